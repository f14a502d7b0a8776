#!/bin/sh
# The Redis part of make bench-serve (#25), in the same run as the rest: a redis-server of its
# own (loopback, a free port, a temp dir, AOF on with fsync every second, as deployed).
#  1. the queue alone: one run at a time through the embedded queue and through Redis (enqueue,
#     subscribe for the result, a claimer in another "node" completes it), rounds interleaved:
#     p50/p99 of each and the added p50 (target <= 1 ms on loopback).
#  2. the queue alone, no-op runs: 1 worker node against 3 (one claimer each, then 4 each), and
#     the CPU Redis spends per run (INFO cpu): runs/s per Redis core, to size a cluster.
#  3. through HTTP, one run at a time: one embedded node against an API node + a worker node
#     on Redis (load.c seq, rounds interleaved): the added median.
#  4. through HTTP, closed loop (wrk): runs/s of the embedded node, of Redis with 1 worker node
#     and with 3; Redis's CPU per run under that load, so runs/s per Redis core.
#  5. batches on 3 worker nodes: pinned to one worker against split (bench/serve/batch_split.py).
# Every figure is printed with the load average: the machine is shared.
set -u
BUILD=${BUILD:-build}
BIN=$BUILD/bench/serve
ROUNDS=${BENCH_SERVE_ROUNDS:-3}
RUNS=${BENCH_REDIS_RUNS:-5000}
tmp=$(mktemp -d)
redis_pid=
cleanup() {
    [ -n "$redis_pid" ] && kill "$redis_pid" 2>/dev/null && wait "$redis_pid" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
load() { cut -d' ' -f1-3 /proc/loadavg; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

port=$(free_port)
redis-server --port "$port" --bind 127.0.0.1 --dir "$tmp" --save '' --appendonly yes \
    --appendfsync everysec >"$tmp/redis.log" 2>&1 &
redis_pid=$!
for _ in $(seq 100); do
    redis-cli -p "$port" PING >/dev/null 2>&1 && break
    sleep 0.1
done
url=redis://127.0.0.1:$port
port_redis=$port
echo "Redis queue benchmark: $(redis-server --version | cut -d' ' -f1-3), $(nproc) cores, load $(load) at start"

echo
echo "== R1. the queue alone, one run at a time: embedded against Redis (rounds interleaved)"
"$BIN/bench_queue" latency "$url" 300 "$ROUNDS"
echo "load $(load)"

echo
echo "== R2. the queue alone, $RUNS no-op runs from 2 API handles: worker nodes x claimers"
for shape in "1 1" "3 1" "3 4"; do
    redis-cli -p "$port" FLUSHALL >/dev/null
    # shellcheck disable=SC2086
    echo "$("$BIN/bench_queue" throughput "$url" $shape "$RUNS"), load $(load)"
done

# ---- through HTTP: sbx serve nodes (the embedded queue against Redis) ----------------------
SBX=$BUILD/sbx
nodes=""
ANON='"anonymous": {"ratePerSecond": 1000000, "concurrency": 100000}'
WORKER_RUN='{"tier":"worker","code":"return context.a + 1","context":{"a":41}}'
start_node() { # NAME CONFIG_JSON [ARGS...]: sets $port
    name=$1
    echo "$2" >"$tmp/$name.json"
    shift 2
    : >"$tmp/$name.log" # exists before the loop below reads it
    "$SBX" serve --config "$tmp/$name.json" "$@" >"$tmp/$name.log" 2>&1 &
    nodes="$nodes $!"
    port=
    for _ in $(seq 300); do
        port=$(sed -n 's/.*listening on 127.0.0.1:\([0-9]*\)$/\1/p' "$tmp/$name.log")
        [ -n "$port" ] && curl -sf "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && return 0
        sleep 0.1
    done
    cat "$tmp/$name.log"
    exit 1
}
stop_nodes() {
    for pid in $nodes; do kill -TERM "$pid" 2>/dev/null; done
    for pid in $nodes; do wait "$pid" 2>/dev/null; done
    nodes=""
}
redis_cpu() { redis-cli -p "$redis_port" INFO cpu | awk -F: '/used_cpu_(user|sys):/ {s += $2} END {printf "%.3f", s}'; }
wrk_runs() { # PORT SECONDS: "requests seconds"
    wrk -t2 -c16 -d"$2s" -s "$tmp/post.lua" "http://127.0.0.1:$1/v1/runs" |
        awk '/requests in/ {n = $1; s = $4; sub(/s,?$/, "", s); print n, s}'
}
redis_port=$port_redis
cat >"$tmp/post.lua" <<LUA
wrk.method = "POST"
wrk.body = '$WORKER_RUN'
wrk.headers["Content-Type"] = "application/json"
LUA
SECS=${BENCH_SERVE_SECONDS:-5}
trap 'stop_nodes; cleanup' EXIT

echo
echo "== R3. through HTTP, one run at a time (worker tier, return context.a + 1, keep-alive):"
echo "   embedded (one node, 1 runner) against Redis (an API node + a worker node, 1 runner)"
start_node embedded "{\"listen\": \"127.0.0.1:0\", \"runners\": 1, $ANON}"
emb=$port
start_node api "{\"listen\": \"127.0.0.1:0\", $ANON}" --queue "$url" --role api --node api1
api=$port
start_node w1 "{\"listen\": \"127.0.0.1:0\", \"runners\": 1, $ANON}" --queue "$url" --role worker --node w1
# warm-up, not counted: each side's first runs (a runner's first engine, connections)
"$BIN/load" seq 127.0.0.1 "$emb" /v1/runs "$WORKER_RUN" 100 >/dev/null
"$BIN/load" seq 127.0.0.1 "$api" /v1/runs "$WORKER_RUN" 100 >/dev/null
: >"$tmp/added"
for r in $(seq "$ROUNDS"); do
    a=$("$BIN/load" seq 127.0.0.1 "$emb" /v1/runs "$WORKER_RUN" 300 | sed -n 's/^median_ms=\([0-9.]*\).*/\1/p')
    b=$("$BIN/load" seq 127.0.0.1 "$api" /v1/runs "$WORKER_RUN" 300 | sed -n 's/^median_ms=\([0-9.]*\).*/\1/p')
    echo "round $r: embedded median $a ms, Redis median $b ms: added $(echo "$a $b" | awk '{printf "%.3f", $2 - $1}') ms, load $(load)"
    echo "$a $b" | awk '{print $2 - $1}' >>"$tmp/added"
done
echo "median added per run through Redis: $(sort -n "$tmp/added" | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}') ms (target <= 1 ms at p50)"

echo
echo "== R4. through HTTP, closed loop (wrk -t2 -c16, ${SECS}s): runs/s, and Redis's CPU per run"
# shellcheck disable=SC2046 # two numbers, split on purpose
set -- $(wrk_runs "$emb" "$SECS")
echo "embedded, 1 runner: $(echo "$1 $2" | awk '{printf "%.0f", $1 / $2}') runs/s, load $(load)"
for shape in 1 3; do
    if [ "$shape" = 3 ]; then
        start_node w2 "{\"listen\": \"127.0.0.1:0\", \"runners\": 1, $ANON}" --queue "$url" --role worker --node w2
        start_node w3 "{\"listen\": \"127.0.0.1:0\", \"runners\": 1, $ANON}" --queue "$url" --role worker --node w3
    fi
    c0=$(redis_cpu)
    # shellcheck disable=SC2046
    set -- $(wrk_runs "$api" "$SECS")
    c1=$(redis_cpu)
    echo "$1 $2 $c0 $c1 $shape" | awk '{cpu = $4 - $3; printf "Redis, %d worker node(s) x 1 runner: %.0f runs/s; Redis CPU %.0f us per run (%.0f%% of one core): %.0f runs/s per Redis core\n", $5, $1 / $2, cpu * 1e6 / $1, cpu * 100 / $2, $1 / cpu}'
    echo "   load $(load)"
done

echo
echo "== R5. batches across the 3 worker nodes: pinned to one worker (as sbx serve runs them)"
echo "   against split (the prepare's binary shipped with every test case, any worker runs it)"
for shape in "20 1" "20 6"; do
    # shellcheck disable=SC2086
    echo "$(python3 "$(dirname "$0")/batch_split.py" "http://127.0.0.1:$api" $shape), load $(load)"
done
stop_nodes
