#!/bin/sh
# The engine is loaded on first use (src/js/loader.c): libsbx.so and sbx must not link libmozjs
# or the C++ runtime, and the module must (the control: the check would see them if present).
set -u
module=${1:?usage: not_linked.sh MODULE BINARY...}
shift
pass=0
fail=0
needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }
for f in "$@"; do
    bad=$(needed "$f" | grep -E '^(libmozjs|libstdc\+\+)')
    if [ -n "$bad" ]; then
        echo "FAIL: $f links" $bad; fail=$((fail + 1))
    else
        pass=$((pass + 1))
    fi
done
for want in 'libmozjs-102' 'libstdc\+\+'; do
    if needed "$module" | grep -qE "^$want"; then
        pass=$((pass + 1))
    else
        echo "FAIL: $module does not link $want"; fail=$((fail + 1))
    fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
