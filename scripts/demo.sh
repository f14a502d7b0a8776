#!/bin/sh
# `make demo`: one real example per tier, through the sbx CLI.
set -u
BUILD=${BUILD:-build}
SBX="$BUILD/sbx"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
section() { printf '\n== %s ==\n' "$1"; }
show() { printf '$ %s\n' "$*"; "$@"; rc=$?; printf '(exit %d)\n' "$rc"; return "$rc"; }

section "worker tier: JavaScript (SpiderMonkey) in a fresh realm on a pool thread"
show "$SBX" eval --context '{"items":[3,1,2]}' \
    'console.log("sorting", context.items.length, "items"); return context.items.sort();' || status=1
show "$SBX" eval --timeout-ms 200 'while (true) {}'
[ $? -eq 1 ] || status=1

section "process tier: a command in a Linux jail (namespaces, seccomp, Landlock, limits)"
show "$SBX" run --timeout-ms 2000 -- /bin/sh -c 'echo "uid in jail: $(id -u)"; ls /home /root 2>&1 | head -2; cat /etc/passwd 2>&1 | head -1' || status=1
show "$SBX" eval --backend process --context '{"n":6}' 'return context.n * 7;' || status=1

section "wasm tier: a WASI module under sbx's own WebAssembly engine"
if clang --target=wasm32-wasi --sysroot=/usr -O2 -Wl,--strip-debug \
    -o "$work/hello.wasm" examples/demo/hello.c 2>"$work/cc.log"; then
    mkdir -p "$work/out"
    show "$SBX" wasm --dir "rw:$work/out::/out" --env WHO=demo "$work/hello.wasm" one two || status=1
    printf 'host sees: %s\n' "$(cat "$work/out/greeting.txt" 2>/dev/null || echo '(no file)')"
else
    cat "$work/cc.log"
    status=1
fi
echo
[ "$status" -eq 0 ] && echo "demo: all tiers ran" || echo "demo: some tier failed (see above)"
exit "$status"
