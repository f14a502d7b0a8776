#!/bin/sh
# The layering lint (scripts/check-includes.py) on the tree, then its control: the same check on a
# copy of src/ with one forbidden include planted (the jail reaching into the JS engine), which
# must fail, so a pass above cannot be vacuous. Prints one "N passed, M failed" line.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
out=$(python3 "$here/scripts/check-includes.py" "$here")
echo "$out" | grep '^FAIL' || true
summary=$(echo "$out" | tail -n 1)
pass=${summary%% passed*}
fail=$(echo "$summary" | sed 's/.* passed, \([0-9]*\) failed/\1/')
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cp -r "$here/src" "$scratch/src"
printf '#include "js/module.h"\n' >>"$scratch/src/jail/plan.c"
planted=$(python3 "$here/scripts/check-includes.py" "$scratch")
case $planted in
*'FAIL: src/jail/plan.c: "js/module.h": jail may not include js'*) pass=$((pass + 1)) ;;
*)
    echo "FAIL: control: a planted jail -> js include was not reported"
    fail=$((fail + 1))
    ;;
esac
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
