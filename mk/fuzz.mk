# mk/fuzz.mk: libFuzzer targets. Every fuzz/fuzz_<target>.c links against a libsbx built with
# clang and the fuzzer/address/undefined instrumentation in its own tree ($(FUZZ_BUILD)).
# `make fuzz` builds them; `make fuzz-smoke` runs each for FUZZ_SECONDS, seeded from
# fuzz/corpus/<target>/ or, for fuzz_wasm_* targets without one, the spec-test modules.

FUZZ_BUILD   ?= build-fuzz
FUZZ_CC      ?= clang
FUZZ_CXX     ?= clang++
FUZZ_SECONDS ?= 60
# A fixed seed makes a smoke run repeatable: CI replays the mutations a local run has already
# tried. FUZZ_SEED=0 lets libFuzzer pick one (for long runs that should explore).
FUZZ_SEED    ?= 1
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
# The library tree: the ordinary rules, re-run with clang; warnings stay on but not fatal, so a
# clang-only warning elsewhere cannot stop the fuzzers from building. The engine module's
# sanitizer references resolve against the fuzzer's runtime, which (linked as C) lacks UBSan's
# C++ -fsanitize=function handler: the module is built without that one check.
FUZZ_MAKE    := $(MAKE) --no-print-directory BUILD=$(FUZZ_BUILD) CC=$(FUZZ_CC) CXX=$(FUZZ_CXX) SAN=0 \
                SANFLAGS="-fsanitize=fuzzer-no-link $(FUZZ_SAN)" \
                WARN="-Wall -Wextra -Wno-error" OPT="-O1 -g" JS_MODULE_NO_UNDEF= \
                JS_CXX_EXTRA=-fno-sanitize=function
# clang -O1 with ASan+UBSan spends tens of minutes on the interpreter's threaded dispatch loop
# (measured: over 15 min of CPU vs 39 s at -O0), so the fuzz tree builds that one file at -O0.
ifeq ($(BUILD),$(FUZZ_BUILD))
$(BUILD)/src/wasm/interp.o: override OPT := -O0 -g
endif
FUZZ_SRC     := $(wildcard fuzz/fuzz_*.c)
FUZZ_BIN     := $(FUZZ_SRC:fuzz/%.c=$(FUZZ_BUILD)/fuzz/%)
FUZZ_SEEDS   := $(FUZZ_BUILD)/seeds/wasm
CLEAN_EXTRA  += $(FUZZ_BUILD)

.PHONY: fuzz fuzz-smoke fuzz-lib
fuzz: $(FUZZ_BIN)

# Always re-entered: the sub-make knows the library's real dependencies.
fuzz-lib:
	@$(FUZZ_MAKE) $(FUZZ_BUILD)/libsbx.a

$(FUZZ_BUILD)/fuzz/%: fuzz/%.c fuzz-lib
	@mkdir -p $(@D)
	$(FUZZ_CC) -std=c17 -O1 -g -D_GNU_SOURCE -Iinclude -Isrc -Wall -Wextra -Werror \
		-fsanitize=fuzzer $(FUZZ_SAN) -fsanitize-link-c++-runtime -o $@ $(filter %.c,$^) \
		$(FUZZ_BUILD)/libsbx.a \
		$(LDLIBS) -pthread

# The differential target's module generator (its input is not a module, so it has no seeds).
# Its inputs start at full length: the generator reads a short one as a nearly empty module.
FUZZ_WASMGEN := fuzz/wasmgen.c fuzz/wasmgen_body.c fuzz/wasmgen_3.c fuzz/wasmgen_gc.c
$(FUZZ_BUILD)/fuzz/fuzz_wasm_diff: $(FUZZ_WASMGEN) fuzz/wasmgen.h fuzz/wasmgen_impl.h
FUZZ_FLAGS_fuzz_wasm_diff := -len_control=0 -max_len=512
# The same target with baseline code on the interpreter's side (fuzz_wasm_base.c).
$(FUZZ_BUILD)/fuzz/fuzz_wasm_base: fuzz/fuzz_wasm_diff.c $(FUZZ_WASMGEN) fuzz/wasmgen.h fuzz/wasmgen_impl.h
FUZZ_FLAGS_fuzz_wasm_base := $(FUZZ_FLAGS_fuzz_wasm_diff)

$(FUZZ_SEEDS)/.stamp:
	@mkdir -p $(@D)
	cp $(SPECTEST2_DIR)/*.wasm $(SPECTEST2_DIR)/simd/*.wasm $(@D)/
	@touch $@

# Each target gets a scratch corpus (new finds) plus its seeds (LeakSanitizer skips libmozjs's
# process-lifetime state, as in `make SAN=1 test`: tests/lsan.supp); a crash leaves its input in
# $(FUZZ_BUILD)/artifacts/ and fails the target. One rule per target, so `make -j2 fuzz-smoke`
# runs two at a time (not .PHONY: make skips pattern rules for phony targets).
FUZZ_SMOKE := $(FUZZ_SRC:fuzz/%.c=fuzz-smoke-%)
fuzz-smoke: $(FUZZ_SMOKE)
fuzz-smoke-%: $(FUZZ_BUILD)/fuzz/% $(FUZZ_SEEDS)/.stamp
	@t=$*; seeds=fuzz/corpus/$$t; \
	if [ ! -d $$seeds ]; then case $$t in fuzz_wasm_diff|fuzz_wasm_base) seeds=;; fuzz_jit_link) seeds=$(FUZZ_BUILD)/seeds/jit_link; mkdir -p $$seeds;; fuzz_wasm_*) seeds=$(FUZZ_SEEDS);; *) seeds=;; esac; fi; \
	mkdir -p $(FUZZ_BUILD)/corpus/$$t $(FUZZ_BUILD)/artifacts; \
	echo "fuzz-smoke: $$t for $(FUZZ_SECONDS) s (seeds: $${seeds:-none})"; \
	FUZZ_JIT_LINK_SEED=$(FUZZ_BUILD)/seeds/jit_link/self.img \
	LSAN_OPTIONS=suppressions=$(abspath tests/lsan.supp):print_suppressions=0 \
	$(FUZZ_BUILD)/fuzz/$$t -max_total_time=$(FUZZ_SECONDS) -seed=$(FUZZ_SEED) -timeout=20 -rss_limit_mb=2048 $(FUZZ_FLAGS_$*) \
		-print_final_stats=1 -artifact_prefix=$(FUZZ_BUILD)/artifacts/$$t- \
		$(FUZZ_BUILD)/corpus/$$t $$seeds 2>$(FUZZ_BUILD)/$$t.log || \
		{ tail -n 40 $(FUZZ_BUILD)/$$t.log; exit 1; }; \
	echo "fuzz-smoke: $$t: $$(grep -E '^stat::number_of_executed_units|^Done' \
		$(FUZZ_BUILD)/$$t.log | tr '\n' ' ')"
