#!/bin/sh
# Missing suites: `make test` without ../shared (or with SPECTEST_DIR/WASI_TESTSUITE pointing
# nowhere) names each missing suite and where it was looked for, one line per suite, and fails.
# The control: the same needs: with the directory present runs the suite.
. "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; rm -f "$tmp_err"' EXIT
run_tests() { BUILD=$tmp timeout -k 2 "$T" sh scripts/run-tests.sh "$@"; }

# ---- run-tests.sh itself
out=$(run_tests 'gone=needs:GONE_DIR=/nonexistent/sbx-suite,true' 'here=needs:HERE_DIR=/,true')
rc=$?
[ "$rc" -ne 0 ] && ok || bad "a missing suite must fail make test (rc $rc)"
expect_contains "$out" "MISS gone" "the missing suite is named"
expect_contains "$out" "looked for /nonexistent/sbx-suite" "where it was looked for"
expect_contains "$out" "set GONE_DIR=DIR" "which variable moves it"
expect_contains "$out" "ok   here" "control: a present suite runs"
expect_contains "$out" "0 passed, 1 failed" "the missing suite counts as a failure"
out=$(run_tests 'here=needs:HERE_DIR=/,true')
[ $? -eq 0 ] && ok || bad "control: only present suites: $out"

# ---- the suites make test really runs, with their directories moved away
suites=$(printf 'print-suites:\n\t@echo $(TEST_SUITES)\n' |
    env -u MAKEFLAGS -u MAKELEVEL make -s -f Makefile -f - print-suites BUILD="${BUILD:-build}" \
        SPECTEST_DIR=/nonexistent/wasm WASI_TESTSUITE=/nonexistent/wasi | tr ' ' '\n' |
    grep '=needs:')
# shellcheck disable=SC2086
out=$(run_tests $suites)
for want in "MISS wasm/spectest .*looked for /nonexistent/wasm " \
    "MISS wasm/spectest-compiled .*looked for /nonexistent/wasm " \
    "MISS wasm/spectest-base .*looked for /nonexistent/wasm " \
    "MISS wasm/spectest-eh-native .*looked for /nonexistent/wasm " \
    "MISS wasm/spectest-simd .*looked for /nonexistent/wasm/simd " \
    "MISS wasm/spectest-simd-compiled .*looked for /nonexistent/wasm/simd " \
    "MISS wasi/conformance .*looked for /nonexistent/wasi .*set WASI_TESTSUITE=DIR"; do
    if echo "$out" | grep -q "^$want"; then ok; else bad "no line '$want' in: $out"; fi
done
n=$(echo "$out" | grep -c '^MISS')
[ "$n" -eq 7 ] && ok || bad "one line per missing suite: $n MISS lines in: $out"
finish
