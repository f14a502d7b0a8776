#!/bin/sh
# Self-test of sbx-spectest: converts tests/wasm/selftest*.wast with wast2json, runs the runner
# and checks that exactly the commands marked ";; FAIL" are reported as failures, with a
# non-zero exit. A script whose first module needs a feature the engine lacks is skipped.
set -u
BUILD=${BUILD:-build}
here=$(dirname "$0")
out=$BUILD/tests/wasm/selftest
mkdir -p "$out"
pass=0
fail=0
check() { # check NAME CONDITION-EXIT-STATUS MESSAGE
    if [ "$2" -eq 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL $1: $3"; fi
}
for wast in "$here"/selftest.wast "$here"/selftest_simd.wast; do
    name=$(basename "$wast" .wast)
    if ! wast2json --enable-all "$wast" -o "$out/$name.json" 2>"$out/$name.log"; then
        check "$name" 1 "wast2json failed: $(head -n 3 "$out/$name.log")"
        continue
    fi
    "$BUILD/sbx-spectest" -v -t 1 "$out/$name.json" >"$out/$name.log" 2>&1
    rc=$?
    if grep -q "^  $name.json:2: module load: .*unsupported" "$out/$name.log"; then
        echo "skip $name: $(grep -m1 unsupported "$out/$name.log")"
        continue
    fi
    want=$(grep -n ';; FAIL' "$wast" | cut -d: -f1 | tr '\n' ' ')
    got=$(sed -n "s/^  $name\.json:\([0-9][0-9]*\): .*/\1/p" "$out/$name.log" | tr '\n' ' ')
    [ "$want" = "$got" ]
    check "$name" $? "failing lines: want [$want], got [$got] (log $out/$name.log)"
    nfail=$(echo "$want" | wc -w)
    grep -q "^$name.json: [0-9]* passed, $nfail failed\$" "$out/$name.log"
    check "$name" $? "no per-file line with $nfail failures"
    [ "$rc" -ne 0 ]
    check "$name" $? "exit status 0 despite failures"
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
