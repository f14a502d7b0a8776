# mk/spectest.mk: the WebAssembly spec-test runner over the 3.0 suite (../shared/wasm3-testsuite,
# wast2json JSON). `make spectest` runs every script that passes today in both tiers
# (interpreter, compiled); SPECTEST_FILES picks others instead and SPECTEST_SUMMARY writes
# failures grouped by likely owner to a file. The 2.0 suite (../shared/wasm-testsuite) runs only
# for scripts whose 3.0 copy waits for a proposal still in progress (SPECTEST_WAITING).

SPECTEST_DIR     ?= ../shared/wasm3-testsuite
SPECTEST2_DIR    ?= ../shared/wasm-testsuite
SPECTEST_TIMEOUT ?= 1200
SPECTEST_FILES   ?=
SPECTEST_SUMMARY ?=
SPECTEST_SRC := $(wildcard tests/wasm/spectest*.c)
SPECTEST_OBJ := $(SPECTEST_SRC:%.c=$(BUILD)/%.o)

$(BUILD)/sbx-spectest: $(SPECTEST_OBJ) $(BUILD)/tests/common/file.o $(BUILD)/libsbx.a
	$(CC) $(LDFLAGS) -o $@ $(SPECTEST_OBJ) $(BUILD)/tests/common/file.o $(BUILD)/libsbx.a $(LDLIBS)

$(SPECTEST_OBJ): tests/wasm/spectest.h
$(SPECTEST_OBJ): CPPFLAGS += -Itests/common

# 3.0 scripts that need a proposal not yet in both tiers: group/name (none since GC's heap
# types came: core/ref_null's 3.0 copy runs).
SPECTEST_WAITING :=
SPECTEST_GROUPS  := core bulk-memory memory64 multi-memory tail-call relaxed-simd \
	function-references exceptions gc
spectest_all3    := $(sort $(foreach g,$(SPECTEST_GROUPS),$(wildcard $(SPECTEST_DIR)/$(g)/*.json)))
spectest_waiting := $(SPECTEST_WAITING:%=$(SPECTEST_DIR)/%.json)
SPECTEST_CORE    := $(filter-out $(spectest_waiting),$(spectest_all3)) \
	$(wildcard $(foreach w,$(SPECTEST_WAITING),$(SPECTEST2_DIR)/$(notdir $(w)).json))
SPECTEST_SIMD    := $(sort $(wildcard $(SPECTEST_DIR)/simd/*.json))

spectest_empty :=
spectest_sp    := $(spectest_empty) $(spectest_empty)
spectest_comma := ,
spectest_list   = $(subst $(spectest_sp),$(spectest_comma),$(strip $(1)))

TEST_DEPS   += $(BUILD)/sbx-spectest
# needs: a missing suite directory fails the suite with one line naming it (run-tests.sh).
# The 2.0 copies' commands 3.0 reverses are skipped, each named with why.
SPECTEST_SUPERSEDED := tests/wasm/superseded-2.0.txt
TEST_SUITES += wasm/spectest=needs:SPECTEST_DIR=$(SPECTEST_DIR),env,SBX_WASM_TESTSUITE=$(SPECTEST_DIR),$(BUILD)/sbx-spectest,--superseded,$(SPECTEST_SUPERSEDED),$(call spectest_list,$(SPECTEST_CORE))
# The same scripts in the compiled tier (LLVM, src/wasm/jit/): one compile per module. Under
# SAN=1 with the leak check: sbx-spectest's LeakSanitizer skips TLS roots (tests/common/
# lsan_no_tls.h), as its tracer crashed on libLLVM's dynamic TLS (docs/wasm.md).
TEST_SUITES += wasm/spectest-compiled=needs:SPECTEST_DIR=$(SPECTEST_DIR),env,SBX_WASM_TESTSUITE=$(SPECTEST_DIR),$(BUILD)/sbx-spectest,--tier,compiled,--superseded,$(SPECTEST_SUPERSEDED),$(call spectest_list,$(SPECTEST_CORE))
# The same scripts, and the SIMD ones, with every function in baseline code from its first
# entry (src/wasm/base/, SBX_TEST_BASE=1): what it translates, hands back to the interpreter
# and returns to, checked against the spec's results.
TEST_SUITES += wasm/spectest-base=needs:SPECTEST_DIR=$(SPECTEST_DIR),env,SBX_TEST_BASE=1,SBX_WASM_TESTSUITE=$(SPECTEST_DIR),$(BUILD)/sbx-spectest,--superseded,$(SPECTEST_SUPERSEDED),$(call spectest_list,$(SPECTEST_CORE) $(SPECTEST_SIMD))
# Exception handling compiled with no function left to the interpreter (jit/emit_eh.c): the
# runner fails a script in whose store a call ran interpreted (--native-only).
SPECTEST_EH := $(sort $(wildcard $(SPECTEST_DIR)/exceptions/*.json)) tests/wasm/regress3/json/exceptions.json
TEST_SUITES += wasm/spectest-eh-native=needs:SPECTEST_DIR=$(SPECTEST_DIR),env,SBX_WASM_TESTSUITE=$(SPECTEST_DIR),$(BUILD)/sbx-spectest,--tier,compiled,--native-only,$(call spectest_list,$(SPECTEST_EH))
# Fixed-width SIMD: its 59 scripts as a suite of their own.
TEST_SUITES += wasm/spectest-simd=needs:SPECTEST_DIR=$(SPECTEST_DIR)/simd,env,SBX_WASM_TESTSUITE=$(SPECTEST_DIR),$(BUILD)/sbx-spectest,$(call spectest_list,$(SPECTEST_SIMD))
# ... and compiled (src/wasm/jit/emit_simd*.c), one compile per module, as the core scripts.
# Under SAN=1 a fixed sample: the 1st, 4th, 7th ... script of the sorted list (SPECTEST_SIMD_SAN,
# 20 of 59). The code LLVM emits is not instrumented, only our emitters and runtime are, and the
# sample has scripts of each emit_simd*.c family (lanes, int, float, memory); `make test` runs
# every script compiled, SPECTEST_SIMD_SAN_EVERY=1 all of them here.
SPECTEST_SIMD_SAN_EVERY ?= 3
SPECTEST_SIMD_SAN := $(shell printf '%s\n' $(SPECTEST_SIMD) | awk 'NR % $(SPECTEST_SIMD_SAN_EVERY) == 1 % $(SPECTEST_SIMD_SAN_EVERY)')
spectest_simd_compiled := $(if $(filter 1,$(SAN)),$(SPECTEST_SIMD_SAN),$(SPECTEST_SIMD))
TEST_SUITES += wasm/spectest-simd-compiled=needs:SPECTEST_DIR=$(SPECTEST_DIR)/simd,env,SBX_WASM_TESTSUITE=$(SPECTEST_DIR),$(BUILD)/sbx-spectest,--tier,compiled,$(call spectest_list,$(spectest_simd_compiled))
# The validator's unit test reads the same 3.0 scripts (its other cases run without them).
spectest_waiting_env := SBX_SPECTEST_WAITING=$(subst $(spectest_sp),:,$(strip $(SPECTEST_WAITING)))
TEST_SUITES := $(patsubst unit.wasm.test_validate=%,unit.wasm.test_validate=env$(spectest_comma)SBX_WASM_TESTSUITE=$(SPECTEST_DIR)$(spectest_comma)$(spectest_waiting_env)$(spectest_comma)%,$(TEST_SUITES))
# The runner itself: commands built to fail must be reported, and only those.
TEST_SUITES += wasm/spectest-selftest=sh,tests/wasm/selftest.sh
# The engine's own regression scripts, for paths the spec suite does not reach.
TEST_SUITES += wasm/regress=sh,tests/wasm/regress.sh
TEST_SUITES += wasm/regress-compiled=env,SPECTEST_TIER=compiled,sh,tests/wasm/regress.sh
TEST_SUITES += wasm/regress-base=env,SBX_TEST_BASE=1,sh,tests/wasm/regress.sh

# Regenerates tests/wasm/regress3/json/ from its .wast scripts (needs node and npm: the 3.0
# text encoder is wasm-tools' in @bytecodealliance/jco). The outputs are committed.
.PHONY: regress3-json
regress3-json:
	cd tests/wasm/regress3 && npm install --no-audit --no-fund --no-package-lock && rm -rf json && node wast3json.mjs

.PHONY: spectest
spectest: $(BUILD)/sbx-spectest
ifeq ($(SPECTEST_FILES),)
	SBX_WASM_TESTSUITE=$(SPECTEST_DIR) timeout -k 10 $(SPECTEST_TIMEOUT) $(BUILD)/sbx-spectest \
		--tier both --superseded $(SPECTEST_SUPERSEDED) \
		$(if $(SPECTEST_SUMMARY),--summary $(SPECTEST_SUMMARY)) $(SPECTEST_CORE)
	SBX_WASM_TESTSUITE=$(SPECTEST_DIR) timeout -k 10 $(SPECTEST_TIMEOUT) $(BUILD)/sbx-spectest \
		--tier both $(SPECTEST_SIMD)
else
	SBX_WASM_TESTSUITE=$(SPECTEST_DIR) timeout -k 10 $(SPECTEST_TIMEOUT) $(BUILD)/sbx-spectest \
		--tier both $(if $(SPECTEST_SUMMARY),--summary $(SPECTEST_SUMMARY)) $(SPECTEST_FILES)
endif
