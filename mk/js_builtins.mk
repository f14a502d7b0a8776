# mk/js_builtins.mk (after js.mk, whose JS_MODULE_OBJ it extends): the ECMAScript 2023-2025 built-ins SpiderMonkey 102 lacks (src/js/builtins/,
# docs/worker.md "Built-ins beyond SpiderMonkey 102"): C++ natives linked into the engine module
# beside the adapter; their JavaScript (iterator.js) is embedded with the platform's modules
# (mk/platform.mk) and compiled once per process the same way.

BUILTINS_CXX_SRC := $(wildcard src/js/builtins/*.cpp)
BUILTINS_OBJ     := $(BUILTINS_CXX_SRC:%.cpp=$(BUILD)/%.o)

JS_MODULE_OBJ += $(BUILTINS_OBJ)
$(JS_MODULE): $(BUILTINS_OBJ)
$(BUILTINS_OBJ): CXXFLAGS += -ftls-model=initial-exec

-include $(BUILTINS_OBJ:.o=.d)

# Tests (tests/builtins/): snippets in both tiers, checked against Node 20's committed output
# where Node 20 has the built-in, against the spec's values (in the case's header) where it does
# not (tests/platform/run_cases.py --dir); test262 (mk/test262.mk) covers the rest.
TEST_SUITES += js/builtins=env,SBX=$(abspath $(BUILD)/sbx),python3,tests/platform/run_cases.py,--dir,tests/builtins

# `make bench-builtins`: what the additions cost the run that first uses a class (bench_platform
# with these snippets), against the trivial run; the trivial run's own cost is bench-worker's.
BENCH_BUILTINS_RUNS ?= 2000
.PHONY: bench-builtins
bench-builtins: $(BUILD)/bench/platform/bench_platform $(JS_MODULE) $(JS_STENCIL)
	@uptime
	$(BUILD)/bench/platform/bench_platform --runs $(BENCH_BUILTINS_RUNS) \
		"return [1, 2].length" "return [3, 1, 2].toSorted()[0]" "return [1, 2].findLast(x => x)" \
		"return 'ab'.length + 'ab'.slice(1)" "return 'a'.isWellFormed()" \
		"return new Map([[1, 2]]).size" "return new Set([1]).union(new Set([2])).size" \
		"return [1, 2].values().next().value" "return [1, 2].values().map(x => x).toArray()[0]" \
		"return Object.groupBy([1, 2], x => x % 2)[1][0]" "return Promise.withResolvers().promise ? 1 : 0"
BENCH_TARGETS += bench-builtins
