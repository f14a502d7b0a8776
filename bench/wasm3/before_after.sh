#!/bin/sh
# bench/wasm3/before_after.sh OLD_SBX [NEW_SBX]: the six WASI kernels of `make bench-wasm`
# (bench/wasm/run-wasi.sh's build of fib, sieve, nbody, sha256, matmul, mixed) under two sbx
# builds, interleaved round-robin REPS times (median kept): the interpreter (--tier interp) and
# the compiled tier with a warm cache (--tier compiled after `sbx compile`, each build with its
# own cache directory), CPU time (user + sys). Prints each build's median and new/old; for the
# 3.0 report (issue #27: "the new features must not slow the 2.0 paths"), OLD_SBX is a build of
# the main commit before the 3.0 work (docs/wasm.md, "Performance of 3.0"). Prints, never
# asserts. BENCH_WASM_REPS=N (default 3), PROGRAMS="fib ..." to pick. WASM_DIR=DIR runs the
# modules DIR/PROGRAM.wasm as built (e.g. WASM_DIR=build/bench-real PROGRAMS="bzip2 lua sqlite
# zlib" after make bench-wasm-real: the real programs) instead of building the kernels.
set -eu
OLD=$1
NEW=${2:-build/sbx}
REPS=${BENCH_WASM_REPS:-3}
PROGRAMS=${PROGRAMS:-"fib sieve nbody sha256 matmul mixed"}
OUT=${OUT:-build/bench-wasm3}
DIR=$(dirname "$0")/../wasm/wasi
mkdir -p "$OUT/cache-old" "$OUT/cache-new"
WFLAGS="--target=wasm32-wasi --sysroot=/usr -O2 -Wl,--strip-debug"
for p in $([ "${TABLE_ONLY:-0}" = 1 ] || echo "$PROGRAMS"); do
    if [ -n "${WASM_DIR:-}" ]; then
        cp "$WASM_DIR/$p.wasm" "$OUT/$p.wasm"
    else
        src="$DIR/../kernels/$p.c"
        [ -f "$src" ] || src="$DIR/$p.c"
        clang $WFLAGS "-DBENCH_NAME=\"$p\"" -o "$OUT/$p.wasm" "$DIR/main.c" "$src" -lm
    fi
    SBX_CACHE_DIR="$OUT/cache-old" "$OLD" compile "$OUT/$p.wasm" >/dev/null
    SBX_CACHE_DIR="$OUT/cache-new" "$NEW" compile "$OUT/$p.wasm" >/dev/null
done

run() { # run BUILD(old|new) TIER PROGRAM: appends "prog build tier cpu_s" to results
    sbx=$OLD
    [ "$1" = new ] && sbx=$NEW
    SBX_CACHE_DIR="$OUT/cache-$1" /usr/bin/time -f "%U %S" -o "$OUT/time" \
        "$sbx" wasm --tier "$2" --timeout-ms 3600000 --memory-bytes 536870912 "$OUT/$3.wasm" >"$OUT/$3.$1.$2.out"
    awk -v p="$3" -v b="$1" -v t="$2" '{ printf "%s %s %s %.4f\n", p, b, t, $1 + $2 }' \
        "$OUT/time" >>"$OUT/results"
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
[ "${TABLE_ONLY:-0}" = 1 ] || : >"$OUT/results" # TABLE_ONLY=1: the table of $OUT/results
i=0
[ "${TABLE_ONLY:-0}" = 1 ] && i=$REPS
while [ $i -lt "$REPS" ]; do
    for p in $PROGRAMS; do
        for t in interp compiled; do
            run old $t "$p"
            run new $t "$p"
            cmp -s "$OUT/$p.old.$t.out" "$OUT/$p.new.$t.out" || echo "WARNING: $p $t: outputs differ"
        done
    done
    i=$((i + 1))
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "CPU seconds, median of $REPS (new/old: < 1 is faster)"
sort -k1,1 -k3,3 -k2,2 -k4,4g "$OUT/results" | awk -v progs="$PROGRAMS" '
{ k = $1 " " $3 " " $2; v[k, ++n[k]] = $4 }
END {
    printf "%-8s %10s %10s %8s %10s %10s %8s\n", "program", "interp old", "new", "new/old",
           "compiled old", "new", "new/old"
    np = split(progs, P, " ")
    for (i = 1; i <= np; i++) {
        printf "%-8s", P[i]
        split("interp compiled", T, " ")
        for (j = 1; j <= 2; j++) {
            ko = P[i] " " T[j] " old"; kn = P[i] " " T[j] " new"
            o = v[ko, int((n[ko] + 1) / 2)]; w = v[kn, int((n[kn] + 1) / 2)]
            printf " %10.3f %10.3f %8.3f", o, w, (o > 0 ? w / o : 0)
        }
        printf "\n"
    }
}'
