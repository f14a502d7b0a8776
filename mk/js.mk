# mk/js.mk: the worker tier's engine, SpiderMonkey 102 from Debian's libmozjs-102-dev. The adapter
# (src/js/*.cpp) is the only C++ in sbx: no exceptions or RTTI (mozjs is built without them),
# mozjs headers as system headers, the project's warnings otherwise (minus GCC 12's
# -Wdangling-pointer, which misreads every JS::Rooted linking itself into the context's root list).

CXX       ?= g++
ifeq ($(origin CXX),default)
CXX       := g++
endif
MOZJS_CFLAGS := $(shell pkg-config --cflags mozjs-102 2>/dev/null)
MOZJS_LIBS   := $(shell pkg-config --libs mozjs-102 2>/dev/null)
JS_CXX_SRC   := $(wildcard src/js/*.cpp)
JS_CXX_OBJ   := $(JS_CXX_SRC:%.cpp=$(BUILD)/%.o)
CXX_WARN     := $(filter-out -Wstrict-prototypes -Wmissing-prototypes,$(WARN)) \
                $(if $(filter -Werror,$(WARN)),-Wmissing-declarations) \
                $(if $(findstring clang,$(CXX)),,-Wno-dangling-pointer)
CXXFLAGS     += -std=c++17 $(OPT) -fPIC -fvisibility=hidden -pthread -fno-exceptions -fno-rtti \
                $(CXX_WARN) $(SANFLAGS) $(JS_CXX_EXTRA)

# The engine module (src/js/module.h): the adapter, its allocator accounting and what it uses of
# util, linked with libmozjs and libstdc++ and loaded by src/js/loader.c on first use. Only
# sbx__js_module_open is exported. account.c and module.c live in the module only.
JS_MODULE     := $(BUILD)/lib/sbx/libsbx-js.so
# clang's sanitizer runtimes live in the executable (fuzz tree): the module leaves those open.
JS_MODULE_NO_UNDEF ?= -Wl,--no-undefined
JS_MODULE_C   := src/js/account.c src/js/module.c src/js/tz.c
JS_MODULE_OBJ := $(JS_CXX_OBJ) $(JS_MODULE_C:%.c=$(BUILD)/%.o) $(BUILD)/src/js/text.o \
                 $(BUILD)/src/util/buf.o $(BUILD)/src/util/json_text.o $(BUILD)/src/util/utf8.o
LIB_SRC       := $(filter-out $(JS_MODULE_C),$(LIB_SRC))
LIB_OBJ       := $(LIB_SRC:%.c=$(BUILD)/%.o)
all: $(JS_MODULE)
# Its thread-locals in the static TLS block glibc keeps spare for dlopen: LeakSanitizer's tracer
# crashes walking a dlopen'd module's dynamic TLS (seen under SAN=1 in test_worker and soak).
$(JS_MODULE_OBJ): CFLAGS += -ftls-model=initial-exec
$(JS_MODULE_OBJ): CXXFLAGS += -ftls-model=initial-exec
TEST_DEPS += $(JS_MODULE)

$(BUILD)/libsbx.a: | $(JS_MODULE)
# libc before libmozjs (-Wl,: the driver moves a plain -lc last): libmozjs exports its own getenv
# and abort, and its getenv reads the engine's environment (tz.c), which has only TZ; the module's
# libgcov then lost GCOV_PREFIX (coverage/exit-counters).
$(JS_MODULE): $(JS_MODULE_OBJ) src/js/module.map
	@mkdir -p $(@D)
	$(CXX) -shared -Wl,--version-script=src/js/module.map $(JS_MODULE_NO_UNDEF) $(LDFLAGS) -o $@ \
		$(JS_MODULE_OBJ) -Wl,-lc $(MOZJS_LIBS) -lstdc++ -lm
	@chmod 755 $@ # not the umask's mode: the loader refuses a module others could write

# The self-hosted stencil file beside the module (js/selfhosted.cpp), written by the module
# itself through src/js/gen/stencil.c, so it is exactly what this libmozjs and sbx decode.
JS_STENCIL     := $(BUILD)/lib/sbx/libsbx-js.stencil
JS_STENCIL_GEN := $(BUILD)/gen/sbx-js-stencil
all: $(JS_STENCIL)
TEST_DEPS += $(JS_STENCIL)
$(JS_STENCIL_GEN): src/js/gen/stencil.c $(BUILD)/libsbx.a
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(BUILD)/libsbx.a $(LDFLAGS) $(LDLIBS)
$(JS_STENCIL): $(JS_STENCIL_GEN) $(JS_MODULE)
	ASAN_OPTIONS=detect_leaks=0 $(JS_STENCIL_GEN) $(JS_MODULE) $@

# Where core/engine_module.c looks (besides next to a shared libsbx): this tree's module, then PREFIX's.
# Rewritten only when PREFIX or the tree moves, so `make install PREFIX=...` rebuilds engine_module.o.
JS_MODULE_PATH_H := $(BUILD)/gen/js_module_path.h
JS_MODULE_PATHS  := \#define SBX_JS_MODULE_BUILD "$(abspath $(JS_MODULE))"\n\#define \
                    SBX_JS_MODULE_INSTALL "$(PREFIX)/lib/sbx/libsbx-js.so"\n\#define \
                    SBX_BINDIR "$(PREFIX)/bin"
$(JS_MODULE_PATH_H): FORCE | $(BUILD)/gen/.dir
	@printf '$(JS_MODULE_PATHS)\n' > $@.tmp; cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@
$(BUILD)/src/core/engine_module.o $(BUILD)/src/jail/guest.o: $(JS_MODULE_PATH_H)
.PHONY: FORCE
FORCE:

$(BUILD)/src/js/%.o: src/js/%.cpp $(DEPS_STAMP) | $(BUILD)/gen/.dir
	@mkdir -p $(@D)
	@echo "  CXX     $<"
	$(Q)$(DATED_START) $(CXX) $(CPPFLAGS) $(CXXFLAGS) $(MOZJS_CFLAGS) -MMD -MP -c $< -o $@ $(DATED_END)

-include $(JS_CXX_OBJ:.o=.d)

# Snippets with expected results, run through `sbx eval` (tests/js/cases/*.js).
TEST_SUITES += js/snippets=python3,tests/js/run_snippets.py
TEST_SERIAL += js/snippets
TEST_DEPS += $(BUILD)/sbx

BENCH_WORKER_RUNS ?= 10000
# Whole processes (bench/worker/cli_bench.sh): `sbx eval`, `node -e`, `sbx policy check`.
BENCH_CLI_RUNS ?= 100
# Preloads (bench/worker/bench_preload.c): a library preloaded against the same in each body.
BENCH_PRELOAD_ROUNDS ?= 5
BENCH_PRELOAD_LIBS ?= /usr/share/nodejs/lodash/lodash.js:_ \
                      /usr/share/javascript/moment/moment-with-locales.js:moment
.PHONY: bench-worker
bench-worker: $(BUILD)/bench/worker/bench_worker $(BUILD)/bench/worker/bench_preload $(BUILD)/sbx \
              $(JS_MODULE)
	$(BUILD)/bench/worker/bench_worker --runs $(BENCH_WORKER_RUNS) --node bench/worker/node_peer.js
	$(BUILD)/bench/worker/bench_preload --rounds $(BENCH_PRELOAD_ROUNDS) $(BENCH_PRELOAD_LIBS:%=--lib %)
	sh bench/worker/cli_bench.sh $(BUILD)/sbx "" $(BENCH_CLI_RUNS)

# `make bench-jit`: policy.js.jit off against on, and Node, per run and on CPU-heavy snippets.
.PHONY: bench-jit
bench-jit: $(BUILD)/bench/worker/bench_jit
	$(BUILD)/bench/worker/bench_jit --runs $(BENCH_JIT_RUNS) --node bench/worker/node_jit.js
BENCH_JIT_RUNS ?= 2000
BENCH_TARGETS += bench-jit

$(BUILD)/bench/worker/bench_%: bench/worker/bench_%.c $(BUILD)/libsbx.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(BUILD)/libsbx.a $(LDFLAGS) $(LDLIBS)

# libsbx.so and sbx start without relocating libmozjs: only the module links it.
TEST_SUITES += js/not-linked=sh,tests/js/not_linked.sh,$(JS_MODULE),$(BUILD)/libsbx.so,$(BUILD)/sbx
