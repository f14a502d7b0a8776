# mk/coverage.mk: `make coverage` rebuilds everything with gcov instrumentation in build-cov/, runs
# the test suites there and prints per-file line and branch coverage of src/ (gcovr).
# COVERAGE_STRICT=1 makes a missed target (issue 7) fail the target.

COV_BUILD := build-cov
CLEAN_EXTRA += $(COV_BUILD)
# LDFLAGS goes through the environment so the Makefile's own += still applies. -u __gcov_dump:
# the engine module dumps its own counters through a weak reference (js/runtime.cpp, which must
# not know SBX_COVERAGE), which alone would not pull libgcov's dump into the module. SpiderMonkey is
# a system library (libmozjs-102): uninstrumented; OPT instruments the C++ adapter too.
# Counters are updated atomically: pool and watchdog threads run the same functions at once
# (issue 15). GCC already picks prefer-atomic wherever -pthread is given (all of CFLAGS); the flag
# makes it explicit for any rule without it. COV_FLAGS reaches every compile rule that instruments
# (C and C++) through OPT. Atomic increments do not stop the other source of negative counts: a
# dump taken while a pool thread is mid-function (at exit) breaks gcov's flow equations: coverage
# builds (SBX_COVERAGE, known only to src/core/exit.c) hold libsbx's threads still while the
# counters are written (the exit steps of core/exit.c).
COV_FLAGS := --coverage -fprofile-update=atomic
COV_MAKE := LDFLAGS="--coverage -Wl,-u,__gcov_dump" $(MAKE) --no-print-directory BUILD=$(COV_BUILD) SAN=0 \
            OPT="-O0 -g $(COV_FLAGS) -DSBX_COVERAGE"

.PHONY: coverage coverage-deps coverage-suites coverage-report coverage-diff
# -k and no format-check: one broken test program or an unformatted file elsewhere must not hide
# the coverage of everything else. Failing suites are reported by the run, then coverage printed.
# The stencil file is written again each run, so its generator (src/js/gen/stencil.c) is counted
# every run, not only in a fresh tree's first one.
coverage: $(DEPS_STAMP)
	find $(COV_BUILD) -name '*.gcda' -delete 2>/dev/null || true
	rm -f $(COV_BUILD)/lib/sbx/libsbx-js.stencil
	mv -f $(COV_BUILD)/coverage-lines.json $(COV_BUILD)/coverage-lines.prev.json 2>/dev/null || true
	$(COV_MAKE) -k all $$($(COV_MAKE) -s coverage-deps) || echo "coverage: some targets failed to build"
	$(COV_MAKE) coverage-suites || echo "coverage: some suites failed"
	$(MAKE) --no-print-directory coverage-report

# Issue 15's regression check: processes that exit while libsbx's threads work still write
# consistent counters (tests/coverage/exit_counters.sh). Meaningful in coverage builds only.
$(BUILD)/tests/coverage/exit_busy: tests/coverage/exit_busy.c $(BUILD)/libsbx.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(BUILD)/libsbx.a $(LDFLAGS) $(LDLIBS)
COV_SUITES := coverage/exit-counters=sh,tests/coverage/exit_counters.sh,$(BUILD),$(BUILD)/sbx,$(BUILD)/tests/coverage/exit_busy

coverage-deps:
	@echo $(TEST_DEPS) $(BUILD)/tests/coverage/exit_busy

# Suites also run as an unprivileged user and in user namespaces: the counters must be writable
# by them too, or libgcov complains on the stderr a test compares. The engine module's directory
# holds no counters and stays writable by its owner only: the loader refuses a module anyone
# could replace (js/loader.c), which would fail every worker-tier run.
coverage-suites:
	@find $(BUILD) -type d -exec chmod a+rwx {} + ; find $(BUILD) -name '*.gcda' -exec chmod a+rw {} +
	@chmod go-w $(BUILD)/lib/sbx
	@umask 000 && BUILD=$(BUILD) SBX=$(abspath $(BUILD)/sbx) sh scripts/run-tests.sh $(TEST_SUITES) \
		$(COV_SUITES)

# One gcovr pass writes every report (gcov runs once per counter file, not once per report).
# coverage-lines.json holds per-line counts, so two runs can be compared line by line.
coverage-report:
	gcovr --root . --object-directory $(COV_BUILD) --filter 'src/' \
		--json-summary $(COV_BUILD)/coverage.json --json $(COV_BUILD)/coverage-lines.json \
		--html-details $(COV_BUILD)/coverage.html $(COV_BUILD)
	python3 scripts/coverage-report.py $(if $(COVERAGE_STRICT),--strict) < $(COV_BUILD)/coverage.json
	@echo "line-by-line: $(COV_BUILD)/coverage.html"

# Lists the lines and branches whose covered state moved between the previous `make coverage`
# and the last one (issue 15: the numbers must stay put), or between COV_RUNS="a.json b.json ...".
COV_RUNS ?= $(COV_BUILD)/coverage-lines.prev.json $(COV_BUILD)/coverage-lines.json
coverage-diff:
	python3 scripts/coverage-diff.py $(COV_RUNS)
