# mk/core.mk: foundation checks: CLI behaviour, exported symbols, linked libraries, error codes,
# the layering of src/ (which module may include which: docs/architecture.md).
TEST_SUITES += cli/policy=tests/cli/policy.sh \
               cli/metrics=tests/cli/metrics.sh \
               cli/guest=tests/cli/guest.sh \
               cli/telemetry=tests/cli/telemetry.sh \
               cli/usage=tests/cli/usage.sh \
               cli/wasm=tests/cli/wasm.sh \
               cli/suites=tests/cli/suites.sh \
               cli/tty=tests/cli/tty.sh \
               cli/tty-unprivileged=setpriv,--reuid=65534,--regid=65534,--clear-groups,tests/cli/tty.sh \
               core/exports=scripts/check-exports.sh,$(BUILD)/libsbx.so,$(SAN) \
               core/error-codes=scripts/check-error-codes.sh \
               lint/includes=scripts/check-includes.sh \
               cli/readme=tests/cli/readme.sh
TEST_SERIAL += cli/telemetry
