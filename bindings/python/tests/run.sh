#!/bin/sh
# Runs the Python binding's tests with Debian's pytest and prints "python: N passed, M failed"
# for scripts/run-tests.sh. pytest's exit status is kept: 0 all passed, 1 some failed, 2-4 an
# interrupted or broken run, 5 no tests collected; anything but 0 fails the suite. Under SAN=1
# (BIND_ASAN = the ASan runtime) python runs with it preloaded, as the ASan libsbx.so needs.
set -u
here=$(cd "$(dirname "$0")" && pwd)
if [ -n "${BIND_ASAN:-}" ] && [ ! -f "$BIND_ASAN" ]; then
    echo "python: skipped under SAN: no ASan runtime to preload into python3 ($BIND_ASAN not found; CC=gcc provides libasan.so)"
    echo "python: 0 passed, 0 failed"
    exit 0
fi
if [ -n "${BIND_ASAN:-}" ]; then
    export LD_PRELOAD="$BIND_ASAN"
    # CPython's own allocations are not instrumented and it frees little at exit.
    export ASAN_OPTIONS="detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
/usr/bin/python3 -m pytest -c "$here/pytest.ini" -rA "$here" >"$log" 2>&1
rc=$?
cat "$log"
summary=$(grep -E '^=+ .*(passed|failed|error|no tests ran).* in [0-9.]+s' "$log" | tail -n 1)
count() { echo "$summary" | grep -oE "[0-9]+ $1" | grep -oE '[0-9]+' || echo 0; }
pass=$(count passed)
fail=$(($(count failed) + $(count error)))
[ "$rc" -ne 0 ] && [ "$fail" -eq 0 ] && fail=1 # rc 2-5: the run itself is broken
echo "pytest exit status $rc"
echo "python: $pass passed, $fail failed"
[ "$rc" -eq 0 ]
