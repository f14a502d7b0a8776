# mk/core.mk: foundation checks: CLI behaviour, exported symbols, linked libraries, error codes.
TEST_SUITES += cli/policy=tests/cli/policy.sh \
               cli/metrics=tests/cli/metrics.sh \
               core/exports=scripts/check-exports.sh,$(BUILD)/libsbx.so,$(SAN) \
               core/error-codes=scripts/check-error-codes.sh
