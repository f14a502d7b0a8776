#!/bin/sh
# tests/jail/cli_run.sh: `sbx run` end to end: stdio passes through, exit statuses follow
# timeout(1) (own status, 124 timeout, 128+N signal, 125 sbx failure, 2 usage), --json, --fs,
# --net loopback, --pids. Usage: cli_run.sh SBX. Prints "N passed, M failed".
set -u
SBX=${1:?usage: cli_run.sh SBX}
pass=0
fail=0
tmp=$(mktemp -d /tmp/sbx-cli-XXXXXX)
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT

check() { # name expected actual
    if [ "$2" = "$3" ]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL: $1: expected '$2', got '$3'"
    fi
}

out=$("$SBX" run -- sh -c 'echo out; echo err >&2; exit 3' 2>"$tmp/err"); rc=$?
check "own status" 3 "$rc"
check "stdout passes through" out "$out"
check "stderr passes through" err "$(cat "$tmp/err")"
"$SBX" run --timeout-ms 200 -- sleep 5; check "timeout" 124 $?
"$SBX" run -- sh -c 'kill -KILL $$'; check "signal" 137 $?
"$SBX" run -- no-such-command-sbx 2>/dev/null; check "not found" 127 $?
"$SBX" run --fs /no/such/path -- true 2>/dev/null; check "sbx failure" 125 $?
"$SBX" run --bogus -- true 2>/dev/null; check "usage" 2 $?
"$SBX" run 2>/dev/null; check "no command" 2 $?
"$SBX" run --net wan -- true 2>/dev/null; check "bad --net" 2 $?
json=$("$SBX" run --json -- sh -c 'echo hi; exit 4'); rc=$?
check "json status" 4 "$rc"
case $json in *'"stdout":"hi\n"'*'"exitCode":4'*) r=yes ;; *) r="$json" ;; esac
check "json body" yes "$r"
echo data >"$tmp/in"
mkdir "$tmp/w" && chmod 777 "$tmp/w"
out=$("$SBX" run --fs "$tmp/in::/in" --fs "rw:$tmp/w::/w" -- sh -c 'cat /in > /w/copy; cat /in')
check "--fs read" data "$out"
check "--fs rw" data "$(cat "$tmp/w/copy")"
out=$("$SBX" run --net loopback -- python3 -c '
import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)
socket.create_connection(s.getsockname(), 1); print("lo")')
check "--net loopback" lo "$out"
"$SBX" run -- python3 -c 'import socket; socket.create_connection(("127.0.0.1", 1), 1)' \
    2>/dev/null
check "no network by default" 1 $?
out=$("$SBX" run --pids 4 --json -- sh -c 'for i in 1 2 3 4 5 6; do sleep 1 & done; wait')
case $out in *'"limit":"pids"'* | *'"rlimit"'*) r=yes ;; *) r="$out" ;; esac
check "--pids" yes "$r"
echo ctx | "$SBX" run -- cat >"$tmp/stdin"
check "stdin passes through" ctx "$(cat "$tmp/stdin")"
echo '{"net": {"outbound": ["a.org:443"]}}' >"$tmp/outbound.json"
SBX_JAIL_KERNEL_RELEASE=5.18.0 "$SBX" run --policy "$tmp/outbound.json" -- sh -c 'echo ran' \
    >"$tmp/out" 2>"$tmp/err"
check "net.outbound unavailable" 125 $?
check "net.outbound guest not run" "" "$(cat "$tmp/out")"
case $(cat "$tmp/err") in *policy.net.outbound*process\ tier*) r=yes ;; *) r=$(cat "$tmp/err") ;; esac
check "net.outbound named" yes "$r"
# --allow-outbound: a listener on the host's 127.0.0.1 (ephemeral port); a denied port gets
# ECONNREFUSED, the allowed one connects through the supervisor.
python3 -c 'import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(4); print(s.getsockname()[1], flush=True)
s.settimeout(20)
for i in range(2): c, _ = s.accept(); c.sendall(b"hello"); c.close()' >"$tmp/port" &
srv=$!
i=0
while [ ! -s "$tmp/port" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
port=$(cat "$tmp/port")
client='import socket, sys
s = socket.socket()
try:
    s.connect((sys.argv[2] if len(sys.argv) > 2 else "127.0.0.1", int(sys.argv[1])))
    print(s.recv(5).decode())
except OSError as e:
    print(e.errno)'
# -S: site's user lookups would add an AF_UNIX denial (nscd) to the lines checked.
out=$("$SBX" run --allow-outbound 127.0.0.1:1 -- python3 -S -c "$client" "$port" 2>"$tmp/err")
check "--allow-outbound denies another port" 111 "$out"
check "--allow-outbound names the denial" "sbx: denied outbound connect to 127.0.0.1:$port (1 time)" \
    "$(cat "$tmp/err")"
out=$("$SBX" run --json --allow-outbound 127.0.0.1:1 -- python3 -S -c "$client" "$port")
case $out in
*'"denied":{"total":1,"truncated":false,"destinations":[{"kind":"connect","family":"ipv4","host":"127.0.0.1","port":'"$port"',"destination":"127.0.0.1:'"$port"'","count":1}]}'*) r=yes ;;
*) r=$out ;;
esac
check "--json lists the denial" yes "$r"
out=$("$SBX" run --allow-outbound "127.0.0.1:$port" -- python3 -S -c "$client" "$port" 2>"$tmp/err")
check "--allow-outbound connects" hello "$out"
check "an allowed connect is not named" "" "$(cat "$tmp/err")"
# A name: resolved by the jail's DNS stub, listed with its port. (glibc's lookup first tries
# nscd's AF_UNIX socket, refused and named on stderr: kept out of the test's output.)
out=$("$SBX" run --allow-outbound "localhost:$port" -- python3 -c "$client" "$port" localhost \
    2>"$tmp/err")
check "--allow-outbound by name" hello "$out"
wait $srv
out=$("$SBX" run -- sh -c "tr '\\0' '|' </proc/1/cmdline")
check "pid 1 cmdline is neutral" "sbx-init|" "$out"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
