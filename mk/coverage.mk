# mk/coverage.mk: `make coverage` rebuilds everything with gcov instrumentation in build-cov/, runs
# the test suites there and prints per-file line and branch coverage of src/ (gcovr).
# COVERAGE_STRICT=1 makes a missed target (issue 7) fail the target.

COV_BUILD := build-cov
CLEAN_EXTRA += $(COV_BUILD)

.PHONY: coverage coverage-report
coverage: $(DEPS_STAMP)
	find $(COV_BUILD) -name '*.gcda' -delete 2>/dev/null || true
	@# LDFLAGS goes through the environment so the Makefile's own += still applies.
	LDFLAGS=--coverage $(MAKE) BUILD=$(COV_BUILD) SAN=0 OPT="-O0 -g --coverage" test; \
		echo "coverage: test run exited $$?"
	$(MAKE) --no-print-directory coverage-report

coverage-report:
	gcovr --root . --object-directory $(COV_BUILD) --filter 'src/' --json-summary \
		$(COV_BUILD) | python3 scripts/coverage-report.py $(if $(COVERAGE_STRICT),--strict)
	gcovr --root . --object-directory $(COV_BUILD) --filter 'src/' \
		--html-details $(COV_BUILD)/coverage.html $(COV_BUILD) && \
		echo "line-by-line: $(COV_BUILD)/coverage.html"
