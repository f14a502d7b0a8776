#!/bin/sh
# sbx serve with curl as the client: one run per tier, a key sent both ways, an events stream
# read as it arrives (curl -N), an over-ceiling refusal, and the SIGTERM stop (exit 0).
set -u
SBX=$(realpath "${1:?usage: curl.sh SBX}")
tmp=$(mktemp -d)
pid=
cleanup() { [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
pass=0
fail=0
check() { # NAME COND...
    name=$1
    shift
    if "$@"; then pass=$((pass + 1)); else echo "FAIL: $name"; fail=$((fail + 1)); fi
}
token=curl-test-token
sha=$(printf %s "$token" | sha256sum | cut -d' ' -f1)
cat >"$tmp/config.json" <<JSON
{"listen": "127.0.0.1:0", "runners": 1, "keys": [{"name": "curl", "sha256": "$sha",
 "ceiling": {"timeoutMs": 5000}}]}
JSON
"$SBX" serve --config "$tmp/config.json" >"$tmp/log" 2>&1 &
pid=$!
port=
for _ in $(seq 300); do
    port=$(sed -n 's/.*listening on 127.0.0.1:\([0-9]*\)$/\1/p' "$tmp/log")
    [ -n "$port" ] && curl -sf "http://127.0.0.1:$port/readyz" >/dev/null && break
    sleep 0.1
done
base=http://127.0.0.1:$port
run() { curl -s --max-time 60 -H "Authorization: Bearer $token" "$base/v1/runs" -d "$1"; }

out=$(run '{"tier": "worker", "code": "return context.x * 2", "context": {"x": 21}}')
check "worker tier" sh -c "echo '$out' | grep -q '\"value\":42'"
run '{"tier": "process", "command": ["/bin/sh", "-c", "read l; echo got $l"], "stdin": "line\n"}' >"$tmp/p"
check "process tier" grep -qF '"stdout":"got line\n"' "$tmp/p"
wasm=$(printf '\000asm\001\000\000\000' | base64 -w0) # an empty module: no _start
out=$(run "{\"tier\": \"wasm\", \"module\": \"$wasm\"}")
check "wasm tier" sh -c "echo '$out' | grep -q 'SAND_WASM_EXPORT_NOT_FOUND'"
code=$(curl -s -o /dev/null -w '%{http_code}' -H "X-Api-Key: $token" "$base/v1/runs" \
    -d '{"tier": "worker", "code": "return 1"}')
check "X-Api-Key" [ "$code" = 200 ]
code=$(curl -s -o "$tmp/body" -w '%{http_code}' "$base/v1/runs" -d '{"tier": "worker", "code": "1"}')
check "no key: 401" [ "$code" = 401 ]
code=$(curl -s -o "$tmp/body" -w '%{http_code}' -H "Authorization: Bearer $token" "$base/v1/runs" \
    -d '{"tier": "worker", "code": "1", "policy": {"timeoutMs": 9000}}')
check "over the ceiling: 403 naming it" sh -c "[ $code = 403 ] && grep -q 'policy.timeoutMs: 9000 exceeds this key' '$tmp/body'"

# events: the first chunk arrives while the run still goes on (curl -N prints as it reads)
id=$(run '{"tier": "process", "command": ["/bin/sh", "-c", "echo one; sleep 1; echo two"], "wait": false}' |
    sed -n 's/.*"id":"\([0-9A-Z]*\)".*/\1/p')
curl -sN --max-time 30 -H "Authorization: Bearer $token" "$base/v1/runs/$id/events" |
    while IFS= read -r line; do printf '%s %s\n' "$(date +%s.%N)" "$line"; done >"$tmp/events"
first=$(grep -m1 'data: "one' "$tmp/events" | cut -d' ' -f1)
last=$(grep -m1 'event: result' "$tmp/events" | cut -d' ' -f1)
check "events stream as written" sh -c "[ -n '$first' ] && [ -n '$last' ] && echo '$first $last' | awk '{exit !(\$2 - \$1 > 0.5)}'"
check "events end with the result" grep -q '"exitCode":0' "$tmp/events"

curl -s "$base/metrics" >"$tmp/metrics"
check "metrics count the requests" grep -q 'sbx_serve_http_requests_total{route="/v1/runs",status="403"} 1' "$tmp/metrics"
kill -TERM "$pid"
wait "$pid"
rc=$?
pid=
check "SIGTERM: exit 0" [ "$rc" -eq 0 ]
check "stopped cleanly" grep -q 'sbx serve: stopped' "$tmp/log"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
