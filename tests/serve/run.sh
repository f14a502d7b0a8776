#!/bin/sh
# Runs service tests (tests/serve/test_*.py, each starting its own `sbx serve`) with Debian's
# pytest and prints "serve: N passed, M failed" for scripts/run-tests.sh. SBX is the sbx binary
# under test (make sets it; SAN=1 gives the sanitizer build, whose leaks fail the servers' exit).
set -u
here=$(cd "$(dirname "$0")" && pwd)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
cd "$here" || exit 1
/usr/bin/python3 -m pytest -c "$here/pytest.ini" -rA "$@" >"$log" 2>&1
rc=$?
cat "$log"
summary=$(grep -E '^=+ .*(passed|failed|error|no tests ran).* in [0-9.]+s' "$log" | tail -n 1)
count() { echo "$summary" | grep -oE "[0-9]+ $1" | grep -oE '[0-9]+' || echo 0; }
pass=$(count passed)
fail=$(($(count failed) + $(count error)))
[ "$rc" -ne 0 ] && [ "$fail" -eq 0 ] && fail=1
echo "serve: $pass passed, $fail failed"
[ "$rc" -eq 0 ]
