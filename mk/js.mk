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
LIB_EXTRA_OBJ += $(JS_CXX_OBJ)
LDLIBS       += $(MOZJS_LIBS) -lstdc++
CXX_WARN     := $(filter-out -Wstrict-prototypes -Wmissing-prototypes,$(WARN)) \
                $(if $(filter -Werror,$(WARN)),-Wmissing-declarations) \
                $(if $(findstring clang,$(CXX)),,-Wno-dangling-pointer)
CXXFLAGS     += -std=c++17 $(OPT) -fPIC -fvisibility=hidden -pthread -fno-exceptions -fno-rtti \
                $(CXX_WARN) $(SANFLAGS)

$(BUILD)/src/js/%.o: src/js/%.cpp $(DEPS_STAMP) | $(BUILD)/gen/.dir
	@mkdir -p $(@D)
	@echo "  CXX     $<"
	$(Q)$(CXX) $(CPPFLAGS) $(CXXFLAGS) $(MOZJS_CFLAGS) -MMD -MP -c $< -o $@

-include $(JS_CXX_OBJ:.o=.d)

# Snippets with expected results, run through `sbx eval` (tests/js/cases/*.js).
TEST_SUITES += js/snippets=python3,tests/js/run_snippets.py
TEST_DEPS += $(BUILD)/sbx

BENCH_WORKER_RUNS ?= 10000
.PHONY: bench-worker
bench-worker: $(BUILD)/bench/worker/bench_worker
	$(BUILD)/bench/worker/bench_worker --runs $(BENCH_WORKER_RUNS) --node bench/worker/node_peer.js

# `make bench-jit`: policy.js.jit off against on, and Node, per run and on CPU-heavy snippets.
.PHONY: bench-jit
bench-jit: $(BUILD)/bench/worker/bench_jit
	$(BUILD)/bench/worker/bench_jit --runs $(BENCH_JIT_RUNS) --node bench/worker/node_jit.js
BENCH_JIT_RUNS ?= 2000
BENCH_TARGETS += bench-jit

$(BUILD)/bench/worker/bench_%: bench/worker/bench_%.c $(BUILD)/libsbx.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(BUILD)/libsbx.a $(LDFLAGS) $(LDLIBS)
