#!/bin/sh
# A header that changes while an object compiles (a git merge landing during a long SAN build)
# must leave that object out of date, or the next make links the old struct layout beside the
# new (interp.o kept struct wasm_func without its rtt field: every wasm call under SAN read its
# instance from the wrong place). The Makefile dates each object at its compile's start.
# Compiles src/util/sha256.c into a scratch build dir with a compiler wrapper that force-includes
# a scratch header and touches it after compiling, before the object's final write; then
# `make -q` must call the object out of date. Control: the same without the touch must be up
# to date (so the check is not vacuous, nor the fix a rebuild every time).
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/build"
touch "$scratch/build/.deps-ok" # deps/debian-packages.txt is the suite's host's business
cat >"$scratch/cc" <<'CC'
#!/bin/sh
out=
prev=
for a in "$@"; do
    [ "$prev" = "-o" ] && out=$a
    prev=$a
done
gcc -include "$SCRATCH_H" "$@" || exit
if [ "$CHANGE_H" = 1 ]; then
    sleep 0.05
    echo "/* changed */" >>"$SCRATCH_H"
fi
sleep 0.05
touch "$out" # the compiler's last write comes after the header changed
CC
chmod +x "$scratch/cc"
obj=$scratch/build/src/util/sha256.o
pass=0
fail=0
# check NAME CHANGE WANT: builds the object, then make -q's verdict must be WANT (0 up to date).
check() {
    printf '/* scratch */\n' >"$scratch/h.h"
    rm -f "$obj"
    if ! SCRATCH_H=$scratch/h.h CHANGE_H=$2 make -s --no-print-directory -C "$here" \
        BUILD="$scratch/build" CC="$scratch/cc" "$obj" >"$scratch/log" 2>&1; then
        cat "$scratch/log"
        echo "FAIL $1: the object did not build"
        fail=$((fail + 1))
        return
    fi
    make -q --no-print-directory -C "$here" BUILD="$scratch/build" CC="$scratch/cc" "$obj" \
        >/dev/null 2>&1
    rc=$?
    if [ "$rc" -eq "$3" ]; then
        echo "PASS $1"
        pass=$((pass + 1))
    else
        echo "FAIL $1: make -q said $rc, wanted $3 (0 up to date, 1 out of date)"
        fail=$((fail + 1))
    fi
}
check "header changed during the compile: the object is out of date" 1 1
check "control: nothing changed: the object is up to date" 0 0
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
