#!/bin/sh
# libsbx.so exports only sbx_ symbols and links only the libraries in deps/ldd-allowlist.txt.
set -u
lib=${1:?usage: check-exports.sh LIBSBX.so [SAN]}
# A sanitizer build (SAN=1) also loads the sanitizers' runtimes, which a release never does.
san_libs='^(libasan\.so\.[0-9]+|libubsan\.so\.[0-9]+|libgcc_s\.so\.1|libstdc\+\+\.so\.6)$'
is_san=${2:-0}
pass=0
fail=0
bad=$(nm -D --defined-only "$lib" | awk '{print $3}' | grep -v '^sbx_' | grep -v '^$')
if [ -n "$bad" ]; then
    echo "FAIL: non-sbx_ symbols exported:"; echo "$bad" | head -20; fail=$((fail + 1))
else
    pass=$((pass + 1))
fi
count=$(nm -D --defined-only "$lib" | grep -c ' sbx_')
if [ "$count" -gt 0 ]; then pass=$((pass + 1)); else echo "FAIL: no sbx_ symbols"; fail=$((fail + 1)); fi
allow=$(dirname "$0")/../deps/ldd-allowlist.txt
for dep in $(ldd "$lib" | awk '{print $1}' | sed 's|.*/||'); do
    if grep -v "^#" "$allow" | grep -qx "$dep" ||
        { [ "$is_san" = 1 ] && echo "$dep" | grep -qE "$san_libs"; }; then
        pass=$((pass + 1))
    else
        echo "FAIL: $lib links $dep, which is not in deps/ldd-allowlist.txt"
        fail=$((fail + 1))
    fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
