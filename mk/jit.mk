# mk/jit.mk: the compiled wasm tier (src/wasm/jit/) over LLVM 16's C API. Only the headers are
# used at build time (as -isystem, so -Werror applies to our code only): libLLVM-16 is loaded
# with dlopen on first use (src/wasm/jit/llvm_api.h says why), so nothing is linked.
LLVM_CONFIG ?= llvm-config-16
LLVM_INCDIR := $(shell $(LLVM_CONFIG) --includedir 2>/dev/null)
JIT_SRC     := $(wildcard src/wasm/jit/*.c)
JIT_OBJ     := $(JIT_SRC:%.c=$(BUILD)/%.o)
LIB_EXTRA_OBJ += $(JIT_OBJ)
$(JIT_OBJ): CPPFLAGS += -isystem $(LLVM_INCDIR) -D__STDC_CONSTANT_MACROS -D__STDC_FORMAT_MACROS \
	-D__STDC_LIMIT_MACROS
-include $(JIT_OBJ:.o=.d)

# The WASI suites (wasi-testsuite and tests/wasi/guest) in the compiled tier. Not part of
# `make test`: every test compiles its whole module (about 45 s of CPU for the 38 tests).
.PHONY: wasi-test-compiled
wasi-test-compiled: $(BUILD)/sbx-wasi-run wasi-guests # by name: mk/wasi.mk, read after this file, defines WASI_GUEST_BIN
	SBX_WASI_RUN_TIER=compiled python3 tests/wasi/run_wasi_tests.py $(WASI_TEST_ARGS)
TEST_SUITES += cli/cache=tests/cli/cache.sh cli/upgrade=tests/cli/upgrade.sh

# Bound at load, not lazily: the fault handler's first call of a libc function (raise() on a
# host's fault under SIG_DFL) then never runs the lazy resolver, whose register save takes
# kilobytes of what may be a small alternate signal stack.
$(BUILD)/libsbx.so: LDFLAGS += -Wl,-z,now
$(BUILD)/libsbx.so: mk/jit.mk # relinked when the flag is new to a build tree

# The fault handler in a libsbx loaded by dlopen (as the bindings load it): a program of its own,
# not linked with libsbx, and -rdynamic so that its counting malloc is glibc's loader's too.
$(BUILD)/tests/wasm/jit_dlopen: tests/wasm/jit_dlopen.c tests/unit/wasm/jit_guard_mods.h \
		$(BUILD)/libsbx.so
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -Itests/common -Itests/unit/wasm $(CFLAGS) -rdynamic -o $@ $< $(LDFLAGS) -ldl
TEST_DEPS   += $(BUILD)/tests/wasm/jit_dlopen
TEST_SUITES += wasm/jit-dlopen=$(BUILD)/tests/wasm/jit_dlopen,$(abspath $(BUILD)/libsbx.so)
