#!/bin/sh
# make bench-serve: sbx serve against the library, in the same run, on this machine's cores.
#  1. worker tier, `return context.a + 1`: the library's runs/s (bench_lib, one sandbox per
#     thread, as many threads as cores) against HTTP runs/s with keep-alive (wrk, closed loop);
#     the ratio (target >= 0.5x). Rounds interleaved; the medians are reported.
#  2. p50/p99 latency at half the HTTP peak (load.c, open loop) (target p99 <= 5 ms), with
#     where each request's time went (load.c's parts), and the library's own p50/p99 at the
#     same rate (bench_lib rate: 8 threads, open loop), rounds interleaved.
#  3. process tier /bin/true, one run after another: the library's median against HTTP's (the
#     service's added cost per run; target <= 1 ms), in wall time and in CPU time (the server's
#     and its runners', jails included, against the library process's: load-independent).
#  4. the server's RSS idle, and with 10,000 runs queued behind runners kept busy.
# Every figure is printed with the load average: the machine is shared.
set -u
BUILD=${BUILD:-build}
SBX=$BUILD/sbx
BIN=$BUILD/bench/serve
ROUNDS=${BENCH_SERVE_ROUNDS:-3}
SECS=${BENCH_SERVE_SECONDS:-5}
CORES=$(nproc)
# Run alone (not through make bench-serve), a missing tool gave empty figures and "ratio infx".
for f in "$SBX" "$BIN/bench_lib" "$BIN/load"; do
    [ -x "$f" ] || { echo "bench/serve/run.sh: $f is missing: run make bench-serve" >&2; exit 2; }
done
command -v wrk >/dev/null || { echo "bench/serve/run.sh: wrk is missing" >&2; exit 2; }
tmp=$(mktemp -d)
server_pid=
cleanup() {
    [ -n "$server_pid" ] && kill -TERM "$server_pid" 2>/dev/null && wait "$server_pid"
    rm -rf "$tmp"
}
trap cleanup EXIT
# The load average, and the share of the last 10 s in which some runnable task waited for a
# CPU (/proc/pressure/cpu "some avg10": others' work on the shared cores shows there first).
load() {
    psi=$(sed -n 's/^some avg10=\([0-9.]*\).*/\1/p' /proc/pressure/cpu 2>/dev/null)
    echo "$(cut -d' ' -f1-3 /proc/loadavg)${psi:+, cpu pressure ${psi}%}"
}
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
field() { tr ' ' '\n' | sed -n "s/^$1=//p"; }

start_server() { # CONFIG_JSON
    echo "$1" >"$tmp/config.json"
    "$SBX" serve --config "$tmp/config.json" >"$tmp/serve.log" 2>&1 &
    server_pid=$!
    port=
    for _ in $(seq 300); do
        port=$(sed -n 's/.*listening on 127.0.0.1:\([0-9]*\)$/\1/p' "$tmp/serve.log")
        [ -n "$port" ] && curl -sf "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && return 0
        sleep 0.1
    done
    cat "$tmp/serve.log"
    exit 1
}
stop_server() {
    kill -TERM "$server_pid"
    wait "$server_pid"
    server_pid=
}
rss_kb() { sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$server_pid/status"; }

WORKER='{"tier":"worker","code":"return context.a + 1","context":{"a":41}}'
TRUE='{"tier":"process","command":["/bin/true"]}'
cat >"$tmp/post.lua" <<EOF
wrk.method = "POST"
wrk.body = '$WORKER'
wrk.headers["Content-Type"] = "application/json"
EOF

echo "sbx serve benchmark: $CORES cores, $ROUNDS rounds of ${SECS}s, load $(load) at start"
start_server "{\"listen\": \"127.0.0.1:0\", \"runners\": $CORES,
  \"anonymous\": {\"ratePerSecond\": 1000000, \"concurrency\": 100000}}"
"$BIN/load" rate 127.0.0.1 "$port" /v1/runs "$WORKER" 500 1 4 >/dev/null # warm every runner

echo
echo "== 1. worker tier, return context.a + 1: runs per second"
: >"$tmp/lib"
: >"$tmp/http"
for r in $(seq "$ROUNDS"); do
    lib=$("$BIN/bench_lib" worker "$CORES" "$SECS" | field runs_per_s)
    http=$(wrk -t2 -c16 -d"${SECS}s" -s "$tmp/post.lua" "http://127.0.0.1:$port/v1/runs" |
        sed -n 's/^Requests\/sec:[[:space:]]*\([0-9.]*\)/\1/p')
    echo "round $r: library $lib runs/s ($CORES threads), HTTP $http runs/s (wrk -t2 -c16), load $(load)"
    echo "$lib" >>"$tmp/lib"
    echo "$http" >>"$tmp/http"
done
lib=$(median <"$tmp/lib")
http=$(median <"$tmp/http")
echo "median: library $lib runs/s, HTTP $http runs/s: ratio $(echo "$http $lib" | awk '{printf "%.2f", $1 / $2}')x (target >= 0.5x)"

echo
half=$(echo "$http" | awk '{printf "%d", $1 / 2}')
echo "== 2. latency at half the HTTP peak: $half requests/s, open loop, 8 connections, ${SECS}s"
for r in $(seq "$ROUNDS"); do
    echo "round $r: HTTP $("$BIN/load" rate 127.0.0.1 "$port" /v1/runs "$WORKER" "$half" "$SECS" 8), load $(load)"
    echo "round $r: library $("$BIN/bench_lib" rate "$half" "$SECS" 8), load $(load)"
done

echo
echo "== 3. process tier /bin/true: the service's cost per run"
echo "(pairs: one run through the library, one through HTTP, in turn; the median of the differences)"
: >"$tmp/added"
: >"$tmp/added_cpu"
for r in $(seq "$ROUNDS"); do
    line=$(BENCH_SERVER_PID=$server_pid "$BIN/bench_lib" pair "$port" 100)
    echo "round $r: $line, load $(load)"
    echo "$line" | field added_ms >>"$tmp/added"
    echo "$line" | field added_cpu_ms >>"$tmp/added_cpu"
done
echo "median: the service adds $(median <"$tmp/added") ms of wall time per /bin/true run over the library (target <= 1 ms)"
echo "median: the service adds $(median <"$tmp/added_cpu") ms of CPU per /bin/true run (server + runners + their jails, against the library's process + its jails)"
stop_server

echo
echo "== 4. server RSS"
start_server '{"listen": "127.0.0.1:0", "runners": 1, "runnerSlots": 1, "drainMs": 0,
  "anonymous": {"ratePerSecond": 1000000, "concurrency": 100000}}'
idle=$(rss_kb)
curl -s "http://127.0.0.1:$port/v1/runs" -d '{"tier":"worker","code":"for(;;){}","policy":{"timeoutMs":60000},"wait":false}' >/dev/null
sleep 0.5 # the one slot now runs it: what follows stays queued
"$BIN/load" rate 127.0.0.1 "$port" /v1/runs \
    '{"tier":"worker","code":"return context.a + 1","context":{"a":41},"wait":false}' 5000 2 4 |
    sed 's/^/queued 10,000 runs: /'
depth=$(curl -s "http://127.0.0.1:$port/metrics" | sed -n 's/^sbx_serve_queue_depth //p')
full=$(rss_kb)
echo "idle: $idle KiB; with $depth runs queued: $full KiB ($(echo "$full $idle $depth" | awk '{printf "%.0f", ($1 - $2) * 1024 / $3}') bytes per queued run); load $(load)"
stop_server

echo
BUILD=$BUILD sh "$(dirname "$0")/redis.sh" # the Redis queue (#25), same run
