#!/bin/sh
# The engine's own regression scripts (tests/wasm/regress/*.wast, for paths the spec suite does
# not reach: fused instructions, the locals a call zeroes): converted with wast2json, run by
# sbx-spectest, every command must pass. SPECTEST_TIER=compiled runs them in the compiled tier.
# The 3.0 ones (tests/wasm/regress3/*.wast: typed references, exceptions, GC, which wabt 1.0.32
# cannot read) run from their committed conversions, tests/wasm/regress3/json/ (wast3json.mjs).
set -u
BUILD=${BUILD:-build}
here=$(dirname "$0")
out=$BUILD/tests/wasm/regress-${SPECTEST_TIER:-interp} # one per tier: both may run at once
mkdir -p "$out"
pass=0
fail=0
for wast in "$here"/regress/*.wast; do
    name=$(basename "$wast" .wast)
    if ! wast2json --enable-all "$wast" -o "$out/$name.json" 2>"$out/$name.log"; then
        fail=$((fail + 1))
        echo "FAIL $name: wast2json: $(head -n 3 "$out/$name.log")"
        continue
    fi
    line=$(timeout 60 "$BUILD/sbx-spectest" --tier "${SPECTEST_TIER:-interp}" "$out/$name.json" 2>&1 |
        tee "$out/$name.log" |
        grep "^$name.json: ")
    p=$(echo "$line" | sed -n 's/.*: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
    f=$(echo "$line" | sed -n 's/.*: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
    if [ -z "$p" ] || [ "$p" -eq 0 ] || [ "$f" -ne 0 ]; then
        fail=$((fail + ${f:-1}))
        echo "FAIL $name: ${line:-no summary} (log $out/$name.log)"
    fi
    pass=$((pass + ${p:-0}))
done
for json in "$here"/regress3/json/*.json; do
    [ -e "$json" ] || continue
    name=$(basename "$json" .json)
    line=$(timeout 120 "$BUILD/sbx-spectest" --tier "${SPECTEST_TIER:-interp}" "$json" 2>&1 |
        tee "$out/$name.log" |
        grep "^$name.json: ")
    p=$(echo "$line" | sed -n 's/.*: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
    f=$(echo "$line" | sed -n 's/.*: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
    if [ -z "$p" ] || [ "$p" -eq 0 ] || [ "$f" -ne 0 ]; then
        fail=$((fail + ${f:-1}))
        echo "FAIL $name: ${line:-no summary} (log $out/$name.log)"
    fi
    pass=$((pass + ${p:-0}))
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
