#!/bin/sh
# Runs the Node binding's tests with node --test and prints "node: N passed, M failed" for
# scripts/run-tests.sh. Under SAN=1 (BIND_ASAN = the ASan runtime) node runs with it preloaded,
# since an ASan libsbx.so cannot be loaded into an uninstrumented node otherwise.
set -u
here=$(cd "$(dirname "$0")" && pwd)
if [ -z "${SBX_NODE_ADDON:-}" ]; then
    echo "node: skipped: node_api.h not found (the nodejs package's /usr/include/node, or libnode-dev)"
    echo "node: 0 passed, 0 failed"
    exit 0
fi
if [ -n "${BIND_ASAN:-}" ] && [ ! -f "$BIND_ASAN" ]; then
    echo "node: skipped under SAN: no ASan runtime to preload into node ($BIND_ASAN not found; CC=gcc provides libasan.so)"
    echo "node: 0 passed, 0 failed"
    exit 0
fi
if [ -n "${BIND_ASAN:-}" ]; then
    # Node's own allocations are not instrumented; its intentional leaks at exit are not ours.
    export LD_PRELOAD="$BIND_ASAN"
    export ASAN_OPTIONS="detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
node --test --test-reporter=tap "$here"/*.test.js >"$log" 2>&1
rc=$?
cat "$log"
pass=$(sed -n 's/^# pass \([0-9]*\)$/\1/p' "$log" | tail -n 1)
fail=$(sed -n 's/^# fail \([0-9]*\)$/\1/p' "$log" | tail -n 1)
cancelled=$(sed -n 's/^# cancelled \([0-9]*\)$/\1/p' "$log" | tail -n 1)
fail=$((${fail:-0} + ${cancelled:-0}))
# A crash or an unparsable run must not pass: no summary counts as a failure.
[ -z "$pass" ] && fail=$((fail + 1))
echo "node: ${pass:-0} passed, $fail failed"
[ "$rc" -eq 0 ] && [ "$fail" -eq 0 ]
