# sbx: GNU Make + pkg-config. `make`, `make test`, `make SAN=1 test`, `make demo`.
# Each tier adds its own rules in mk/<module>.mk; this file holds what all share.

VERSION   := 0.2.0
PREFIX    ?= /usr/local
SAN       ?= 0
CC        ?= cc
ifeq ($(origin CC),default)
CC        := gcc
endif

ifeq ($(SAN),1)
BUILD     ?= build-san
SANFLAGS  := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
else
BUILD     ?= build
SANFLAGS  :=
endif

# Linked libraries; libcurl is loaded on first use by the OTLP exporter (its headers only here).
PKGS      := jansson libseccomp
PKGS_CFLAGS := $(shell pkg-config --cflags $(PKGS) libcurl 2>/dev/null)
WARN      := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wvla -Wformat=2 \
             -Wimplicit-fallthrough -Werror
OPT       ?= -O2 -g
CPPFLAGS  += -D_GNU_SOURCE -DSBX_VERSION='"$(VERSION)"' -Iinclude -Isrc -I$(BUILD)/gen
CFLAGS    += -std=c17 $(OPT) -fPIC -fvisibility=hidden -pthread $(WARN) $(SANFLAGS)
LDFLAGS   += -pthread $(SANFLAGS)
LDLIBS    += $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lm
# -Wconversion where guest-controlled integers flow (STYLE.md section 7).
CFLAGS_CONV := -Wconversion

DEPS_STAMP := $(BUILD)/.deps-ok

LIB_MODULES := core util telemetry js jail wasm wasm/base wasi plugin
LIB_SRC   := $(foreach m,$(LIB_MODULES),$(wildcard src/$(m)/*.c))
LIB_OBJ   := $(LIB_SRC:%.c=$(BUILD)/%.o)
LIB_EXTRA_OBJ :=
CLI_SRC   := $(wildcard src/cli/*.c)
CLI_OBJ   := $(CLI_SRC:%.c=$(BUILD)/%.o)

# Unit tests: tests/unit/<module>/test_<file>.c, one Check program each.
UNIT_SRC  := $(wildcard tests/unit/*/test_*.c)
UNIT_BIN  := $(UNIT_SRC:%.c=$(BUILD)/%)
TEST_COMMON_SRC := $(wildcard tests/common/*.c)
TEST_COMMON_OBJ := $(TEST_COMMON_SRC:%.c=$(BUILD)/%.o)
CHECK_LIBS = $(shell pkg-config --libs check 2>/dev/null)

# Suites run by `make test`: name=command pairs, run by scripts/run-tests.sh.
TEST_SUITES := $(foreach b,$(UNIT_BIN),$(subst /,.,$(patsubst $(BUILD)/tests/unit/%,unit/%,$(b)))=$(b))
TEST_DEPS   := $(UNIT_BIN)
# Suites run TEST_JOBS at a time, except TEST_SERIAL's: each bounds a wall time (a timeout's
# precision, a deadline, a race window) or rebuilds what others run, so they run last, one at a
# time, with nothing beside them. TEST_FIRST: the longest, started first so the pool does not
# end on one alone.
TEST_SERIAL := unit.jail.test_gate unit.jail.test_jail unit.jail.test_host unit.js.test_worker \
               unit.plugin.test_sandbox unit.plugin.test_guests unit.wasm.test_runtime unit.js.test_jit
TEST_FIRST  := wasm/spectest-compiled wasm/spectest-simd-compiled bindings/node bindings/python \
               unit.telemetry.test_otlp
CLEAN_EXTRA :=
# V=1 shows full command lines.
Q         := $(if $(filter 1,$(V)),,@)

.PHONY: all deps test check-only demo install format format-check clean
all: $(BUILD)/libsbx.a $(BUILD)/libsbx.so $(BUILD)/sbx

# A plain `make` on a fresh machine installs the packages first, then makes `all` again, so that
# the $(shell pkg-config ...) and llvm-config values above are read with them (as test and demo).
ifeq ($(wildcard $(DEPS_STAMP)),)
.DEFAULT_GOAL := first-build
endif
.PHONY: first-build
first-build: $(DEPS_STAMP)
	@$(MAKE) --no-print-directory all

-include $(sort $(wildcard mk/*.mk))

deps: $(DEPS_STAMP)
$(DEPS_STAMP): deps/debian-packages.txt scripts/deps.sh
	@mkdir -p $(@D)
	@sh scripts/deps.sh
	@touch $@

# A compiled file is dated when its compile started, not when it ended: a source or header that
# changed meanwhile (a git merge during a 10-minute SAN build) is then newer than it, so the next
# make compiles it again. Dated at its end, interp.o once kept the old struct wasm_func beside
# objects with the new one (tests/build/dated_objects.sh). Usage: $(DATED_START) cmd $(DATED_END)
DATED_START = s=$@.started; touch $$s &&
DATED_END   = && touch -r $$s $@; rc=$$?; rm -f $$s; exit $$rc
TEST_SUITES += build/dated-objects=sh,tests/build/dated_objects.sh

$(BUILD)/%.o: %.c $(DEPS_STAMP) | $(BUILD)/gen/.dir
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(DATED_START) $(CC) $(CPPFLAGS) $(CFLAGS) \
		$(CFLAGS_$(firstword $(subst /, ,$(patsubst src/%,%,$(dir $<))))) $(PKGS_CFLAGS) -MMD -MP \
		-c $< -o $@ $(DATED_END)

$(BUILD)/gen/.dir:
	@mkdir -p $(@D) && touch $@

$(BUILD)/libsbx.a: $(LIB_OBJ) $(LIB_EXTRA_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/libsbx.so: $(LIB_OBJ) $(LIB_EXTRA_OBJ) src/libsbx.map
	$(CC) -shared -Wl,--version-script=src/libsbx.map -Wl,-soname,libsbx.so.0 -Wl,--no-undefined \
		$(LDFLAGS) -o $@ $(LIB_OBJ) $(LIB_EXTRA_OBJ) $(LDLIBS)

$(BUILD)/sbx: $(CLI_OBJ) $(BUILD)/libsbx.a
	$(CC) $(LDFLAGS) -o $@ $(CLI_OBJ) $(BUILD)/libsbx.a $(LDLIBS)

$(BUILD)/tests/unit/%: tests/unit/%.c $(TEST_COMMON_OBJ) $(BUILD)/libsbx.a $(BUILD)/sbx
	@mkdir -p $(@D)
	$(DATED_START) $(CC) $(CPPFLAGS) -Itests/common $(CFLAGS) $(shell pkg-config --cflags check) \
		$(PKGS_CFLAGS) -MMD -MP -MF $@.d -o $@ $< $(TEST_COMMON_OBJ) $(BUILD)/libsbx.a $(LDFLAGS) \
		$(CHECK_LIBS) $(LDLIBS) $(DATED_END)

$(BUILD)/tests/common/%.o: tests/common/%.c $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(DATED_START) $(CC) $(CPPFLAGS) -Itests/common $(CFLAGS) $(shell pkg-config --cflags check) \
		$(PKGS_CFLAGS) -MMD -MP -c $< -o $@ $(DATED_END)

# clang-format is checked as one suite, so a style slip is reported without hiding test results.
# The build runs on every core (JOBS); so do the suites, but TEST_SERIAL's (see above).
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
TEST_JOBS ?= $(JOBS)
# T='unit.js.% js/%' runs only the suites whose names match those make patterns.
# (not exported: the suites' own scripts use T for their timeout)
unexport T
TEST_ALL = format=make,-s,format-check $(TEST_SUITES)
TEST_RUN = $(if $(T),$(foreach s,$(TEST_ALL),$(if $(filter $(T),$(firstword $(subst =, ,$(s)))),$(s))),$(TEST_ALL))
.PHONY: test-build
test-build: all $(TEST_DEPS)
test: $(DEPS_STAMP)
	@$(MAKE) --no-print-directory -j$(JOBS) test-build
	@BUILD=$(BUILD) SBX=$(abspath $(BUILD)/sbx) SBX_TEST_JOBS=$(TEST_JOBS) \
		SBX_TEST_SERIAL="$(strip $(TEST_SERIAL))" SBX_TEST_FIRST="$(strip $(TEST_FIRST))" \
		sh scripts/run-tests.sh $(TEST_RUN)

demo: $(DEPS_STAMP)
	@$(MAKE) --no-print-directory -j$(JOBS) all
	@BUILD=$(BUILD) sh scripts/demo.sh

install: all
	install -d $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include/sbx $(DESTDIR)$(PREFIX)/bin \
		$(DESTDIR)$(PREFIX)/lib/sbx
	install -m 644 $(BUILD)/libsbx.a $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(BUILD)/libsbx.so $(DESTDIR)$(PREFIX)/lib/libsbx.so.0
	ln -sf libsbx.so.0 $(DESTDIR)$(PREFIX)/lib/libsbx.so
	install -m 644 include/sbx.h $(DESTDIR)$(PREFIX)/include/
	install -m 644 include/sbx/*.h $(DESTDIR)$(PREFIX)/include/sbx/
	install -m 755 $(BUILD)/sbx $(DESTDIR)$(PREFIX)/bin/
	install -m 755 $(JS_MODULE) $(DESTDIR)$(PREFIX)/lib/sbx/
	install -m 644 $(JS_STENCIL) $(DESTDIR)$(PREFIX)/lib/sbx/
	install -m 755 $(SERVE_MODULE) $(SERVE_RUNNER_MODULE) $(DESTDIR)$(PREFIX)/lib/sbx/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' -e 's|@PKGS@|$(PKGS)|' \
		sbx.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/sbx.pc

FORMAT_FILES = $(shell git ls-files '*.c' '*.h' '*.cpp' 2>/dev/null)
format:
	clang-format -i $(FORMAT_FILES)
format-check: $(DEPS_STAMP)
	@clang-format --dry-run --Werror $(FORMAT_FILES) && echo "format-check: ok"

clean:
	rm -rf build build-san $(CLEAN_EXTRA)

# Every object's header dependencies, whichever rule built it (test programs and benchmarks too:
# without them a grown struct left stale objects that read past it). Not the benchmarks' Debian
# sources under bench-src: SQLite's tree has a directory named www/search.d.
-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(UNIT_BIN:=.d) $(TEST_COMMON_OBJ:.o=.d) \
         $(shell find $(BUILD) -path $(BUILD)/bench-src -prune -o -name '*.d' -type f -print 2>/dev/null)
