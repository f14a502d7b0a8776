#!/bin/sh
# The Redis part of make bench-serve (#25), in the same run as the rest: a redis-server of its
# own (loopback, a free port, a temp dir, AOF on with fsync every second, as deployed).
#  1. the queue alone: one run at a time through the embedded queue and through Redis (enqueue,
#     subscribe for the result, a claimer in another "node" completes it), rounds interleaved:
#     p50/p99 of each and the added p50 (target <= 1 ms on loopback).
#  2. the queue alone, no-op runs: 1 worker node against 3 (one claimer each, then 4 each), and
#     the CPU Redis spends per run (INFO cpu): runs/s per Redis core, to size a cluster.
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
