# mk/platform.mk: the platform globals of the worker tier (src/js/platform/, docs/worker.md
# "Globals"): C++ natives linked into the engine module beside the adapter, and JavaScript
# sources embedded as C++ raw strings in a generated header (compiled once per process into
# stencils at run time). The module links Debian's ICU (libicuuc) for IDNA.

PLATFORM_CXX_SRC := $(wildcard src/js/platform/*.cpp)
PLATFORM_OBJ     := $(PLATFORM_CXX_SRC:%.cpp=$(BUILD)/%.o)
PLATFORM_JS      := $(sort $(wildcard src/js/platform/*.js src/js/builtins/*.js))
PLATFORM_JS_H    := $(BUILD)/gen/platform_js.h
ICU_CFLAGS       := $(shell pkg-config --cflags icu-uc 2>/dev/null)
ICU_LIBS         := $(shell pkg-config --libs icu-uc 2>/dev/null)

JS_MODULE_OBJ += $(PLATFORM_OBJ)
MOZJS_LIBS    += $(ICU_LIBS)
$(JS_MODULE): $(PLATFORM_OBJ)
$(PLATFORM_OBJ): CXXFLAGS += -ftls-model=initial-exec $(ICU_CFLAGS)
$(PLATFORM_OBJ): $(PLATFORM_JS_H)

# Each file becomes `static const char sm_js_<name>[]`; the delimiter cannot occur in them.
$(PLATFORM_JS_H): $(PLATFORM_JS) mk/platform.mk | $(BUILD)/gen/.dir
	@for f in $(PLATFORM_JS); do \
		if grep -q ')SBXJS' $$f; then echo "$$f contains )SBXJS" >&2; exit 1; fi; \
		n=$$(basename $$f .js); \
		printf 'static const char sm_js_%s[] = R"SBXJS(' $$n; cat $$f; printf ')SBXJS";\n'; \
	done > $@.tmp && mv $@.tmp $@

# ICU's C side (icu.c) sees the system's ICU headers only, never mozjs's bundled ICU 71 ones.
PLATFORM_C_OBJ := $(BUILD)/src/js/platform/icu.o
JS_MODULE_OBJ  += $(PLATFORM_C_OBJ)
$(JS_MODULE): $(PLATFORM_C_OBJ)
$(PLATFORM_C_OBJ): CFLAGS += $(ICU_CFLAGS)

# Tests (tests/platform/): snippets checked against Node 20's output in both tiers, and the WPT
# URL data (../shared/wpt-url) against the cases Node 20 passes (tests/platform/wpt_url_node20.json).
WPT_URL_DIR ?= ../shared/wpt-url
TEST_SUITES += platform/cases=env,SBX=$(abspath $(BUILD)/sbx),python3,tests/platform/run_cases.py
TEST_SUITES += platform/wpt-url=needs:SBX_WPT_URL=$(WPT_URL_DIR),env,SBX=$(abspath $(BUILD)/sbx),SBX_WPT_URL=$(WPT_URL_DIR),python3,tests/platform/run_wpt_url.py
TEST_DEPS   += $(BUILD)/sbx

# `make bench-platform`: what each platform global costs a run, against the trivial run.
BENCH_PLATFORM_RUNS ?= 2000
.PHONY: bench-platform
bench-platform: $(BUILD)/bench/platform/bench_platform $(JS_MODULE) $(JS_STENCIL)
	@uptime
	$(BUILD)/bench/platform/bench_platform --runs $(BENCH_PLATFORM_RUNS)
BENCH_TARGETS += bench-platform
$(BUILD)/bench/platform/bench_platform: bench/platform/bench_platform.c $(BUILD)/libsbx.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(BUILD)/libsbx.a $(LDFLAGS) $(LDLIBS)
