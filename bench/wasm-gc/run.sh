#!/bin/sh
# bench/wasm-gc/run.sh [N] [ROUNDS]: the cost of a struct allocation and of a cast
# (struct.new + struct.get, ref.cast + struct.get, minus the bare loop) in sbx's interpreter and
# compiled tier, and in node's Liftoff/TurboFan (node 20 reads only V8's pre-standard GC
# encoding, behind --experimental-wasm-gc: the same module written in it, gen.py v8proto).
# CPU time of whole runs (startup and compile included, the same in each run of one engine, so
# the difference to `base` is the operations'); rounds interleave engines. Prints ns per
# operation, the median of ROUNDS. Hold /work/notes/bench.lock around it on a shared machine.
set -eu
N=${1:-10000000}
ROUNDS=${2:-3}
HERE=$(dirname "$0")
SBX=${SBX:-build/sbx}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
python3 "$HERE/gen.py" "$T/gc.wasm"
python3 "$HERE/gen.py" "$T/gc_v8.wasm" v8proto
cpu_sbx() { # tier export -> ms of CPU
    /usr/bin/time -f '%U %S' -o "$T/t" "$SBX" wasm --tier "$1" --no-cache --timeout-ms 600000 \
        --invoke "$2" "$T/gc.wasm" "$N" >/dev/null
    awk '{printf "%.1f\n", ($1 + $2) * 1000}' "$T/t"
}
cpu_node() {
    node --experimental-wasm-gc "$HERE/node_run.js" "$T/gc_v8.wasm" "$1" "$N" | awk '{print $1}'
}
for r in $(seq "$ROUNDS"); do
    for e in base alloc cast; do
        echo "interp $e $(cpu_sbx interp $e)"
        echo "compiled $e $(cpu_sbx compiled $e)"
        echo "node $e $(cpu_node $e)"
    done
done >"$T/raw"
awk -v n="$N" '
    { v[$1 " " $2] = v[$1 " " $2] " " $3 }
    function med(s,   a, k, i, j, t) { k = split(s, a, " ");
        for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
        return a[int((k + 1) / 2)] }
    END {
        printf "%-9s %12s %12s   (ns per operation, N=%d, median of rounds)\n", "engine", "struct.new", "ref.cast", n
        split("interp compiled node", es, " ")
        for (i = 1; i <= 3; i++) { e = es[i]; b = med(v[e " base"])
            a[e] = (med(v[e " alloc"]) - b) * 1e6 / n; c[e] = (med(v[e " cast"]) - b) * 1e6 / n
            printf "%-9s %12.1f %12.1f\n", e, a[e], c[e] }
        printf "ratio to node: interp %.1fx / %.1fx, compiled %.1fx / %.1fx\n",
            a["interp"] / a["node"], c["interp"] / c["node"], a["compiled"] / a["node"], c["compiled"] / c["node"]
    }' "$T/raw"
