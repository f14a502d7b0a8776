#!/bin/sh
# Every registered error code is produced by library code (src/) and observed by a test
# (tests/): a code no path produces, or no test sees, is dead weight or an untested promise.
set -u
cd "$(dirname "$0")/.."
pass=0
fail=0
for id in $(sed -n 's/^ *X(\(SBX_[A-Z0-9_]*\), *[0-9]*, *"\([A-Z_]*\)".*/\1/p' include/sbx/error.h); do
    [ "$id" = SBX_OK ] && continue
    name=$(sed -n "s/^ *X($id, *[0-9]*, *\"\([A-Z_]*\)\".*/\1/p" include/sbx/error.h)
    if grep -rqw "$id" src --include='*.c'; then pass=$((pass + 1)); else
        echo "FAIL: $id ($name) is produced nowhere in src/"; fail=$((fail + 1)); fi
    if grep -rqwE "$id|$name" tests --include='*.c' --include='*.sh' --include='*.js' --include='*.py' \
        --exclude=test_errors.c; then pass=$((pass + 1)); else
        echo "FAIL: $id ($name) is observed by no test"; fail=$((fail + 1)); fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
