#!/bin/sh
# `make demo`: one real example per tier, through the sbx CLI, then through `sbx serve` (started
# on a free loopback port, one request per tier with curl, stopped with SIGTERM).
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

section "sbx serve: the same tiers over HTTP (curl), then a SIGTERM drain"
"$SBX" serve --listen 127.0.0.1:0 >"$work/serve.log" 2>&1 &
serve_pid=$!
port=
for _ in $(seq 100); do
    port=$(sed -n 's/.*listening on 127.0.0.1:\([0-9]*\)$/\1/p' "$work/serve.log")
    [ -n "$port" ] && curl -sf "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && break
    sleep 0.1
done
# post BODY [SHOWN]: one run through curl; SHOWN stands for BODY on the screen
post() { printf '$ curl -s localhost:%s/v1/runs -d %s\n' "$port" "'${2:-$1}'"; curl -sS \
    --max-time 60 "http://127.0.0.1:$port/v1/runs" -d "$1" | tee "$work/out.json"; echo; }
if [ -n "$port" ]; then
    post '{"tier": "worker", "code": "return context.a + 1", "context": {"a": 41}}'
    grep -q '"value":42' "$work/out.json" || status=1
    post '{"tier": "process", "command": ["/bin/sh", "-c", "cat greeting.txt; id -u"], "files": [{"name": "greeting.txt", "content": "hello from /work\n"}]}'
    grep -q '"exitCode":0' "$work/out.json" || status=1
    if [ -f "$work/hello.wasm" ]; then
        post "{\"tier\": \"wasm\", \"module\": \"$(base64 -w0 "$work/hello.wasm")\", \"args\": [\"http\"]}" \
            '{"tier": "wasm", "module": "'"$(base64 -w0 "$work/hello.wasm" | cut -c1-16)"'... (hello.wasm, base64)", "args": ["http"]}'
        grep -q '"backend":"wasm"' "$work/out.json" || status=1
    fi
else
    cat "$work/serve.log"
    status=1
fi
kill -TERM "$serve_pid" 2>/dev/null
wait "$serve_pid" || status=1
sed 's/^/    /' "$work/serve.log"
echo
[ "$status" -eq 0 ] && echo "demo: all tiers ran" || echo "demo: some tier failed (see above)"
exit "$status"
