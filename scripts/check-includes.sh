#!/bin/sh
# The layering lint (scripts/check-includes.py) on the tree, then its control: the same check on a
# copy of src/ with a forbidden include (the jail reaching into the JS engine) and a print to stderr
# planted, each of which must be reported, so a pass above cannot be vacuous. Prints one
# "N passed, M failed" line.
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
printf 'static void warn(void) { fprintf(stderr, "x"); }\n' >>"$scratch/src/core/policy.c"
planted=$(python3 "$here/scripts/check-includes.py" "$scratch")
for want in 'src/jail/plan.c: "js/module.h": jail may not include js' \
    'src/core/policy.c: the library prints'; do
    case $planted in
    *"FAIL: $want"*) pass=$((pass + 1)) ;;
    *)
        echo "FAIL: control: the planted '$want' was not reported"
        fail=$((fail + 1))
        ;;
    esac
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
