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
