# mk/wasi.mk: the preview1 layer: flags, the runner, guest programs, wasi-testsuite.
# `make wasi-test` runs ../shared/wasi-testsuite and the C guests in tests/wasi/.
CFLAGS_wasi := -Wconversion
wasi_empty :=
wasi_space := $(wasi_empty) $(wasi_empty)
wasi_comma := ,

WASI_TESTSUITE ?= ../shared/wasi-testsuite
WASI_CC        ?= clang
WASI_CFLAGS    := --target=wasm32-wasi --sysroot=/usr -O2 -Wl,--strip-debug -Wall -Werror
WASI_GUEST_SRC := $(wildcard tests/wasi/guest/*.c)
WASI_GUEST_BIN := $(WASI_GUEST_SRC:tests/wasi/guest/%.c=$(BUILD)/tests/wasi/%.wasm)

$(BUILD)/sbx-wasi-run: $(BUILD)/tests/wasi/wasi_run.o $(BUILD)/tests/common/file.o $(BUILD)/libsbx.a
	$(CC) $(LDFLAGS) -o $@ $< $(BUILD)/tests/common/file.o $(BUILD)/libsbx.a $(LDLIBS)

-include $(BUILD)/tests/wasi/wasi_run.d
$(BUILD)/tests/wasi/wasi_run.o: tests/wasi/wasi_run.c mk/wasi.mk $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Itests/common $(CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/tests/wasi/%.wasm: tests/wasi/guest/%.c
	@mkdir -p $(@D)
	$(WASI_CC) $(WASI_CFLAGS) -o $@ $<

WASI_TEST_ARGS = $(abspath $(BUILD)/sbx-wasi-run) $(abspath $(WASI_TESTSUITE)) \
	$(abspath $(BUILD)/wasi-scratch) $(abspath $(BUILD)/tests/wasi)

TEST_DEPS   += $(BUILD)/sbx-wasi-run $(WASI_GUEST_BIN)
# Without the wasi-testsuite the suite fails with one line naming it (needs:, run-tests.sh).
TEST_SUITES += wasi/conformance=needs:WASI_TESTSUITE=$(WASI_TESTSUITE),python3,tests/wasi/run_wasi_tests.py,$(subst $(wasi_space),$(wasi_comma),$(strip $(WASI_TEST_ARGS)))

.PHONY: wasi-test wasi-guests
wasi-guests: $(WASI_GUEST_BIN)
wasi-test: $(BUILD)/sbx-wasi-run $(WASI_GUEST_BIN)
	python3 tests/wasi/run_wasi_tests.py $(WASI_TEST_ARGS)
