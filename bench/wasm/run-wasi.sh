#!/bin/sh
# bench/wasm/run-wasi.sh: WASI programs (each kernel of bench/wasm/kernels, and wasi/mixed.c,
# linked with wasi/main.c) end to end under sbx (interpreter: sbx; the default auto tier, which
# tiers up in the background after 200 ms: sbxa; compiled tier: sbxc, its time including LLVM's
# compile (--no-cache), which is also reported alone; sbxw: compiled with a warm cache, filled
# by `sbx compile` first, the run time the issue's targets mean; sbxa's tier-up hits it too),
# node's WASI (V8), wabt's wasm-interp
# (reduced sizes, time scaled up) and natively, interleaved round-robin REPS times (median kept); then
# start-up (hello world) and load/instantiate of a ~1 MB module. Prints, never asserts.
# `make bench-wasm [BENCH_WASM_REPS=N]`.
set -eu
BUILD=${BUILD:-build}
OUT=${OUT:-$BUILD/bench-wasi}
REPS=${BENCH_WASM_REPS:-1}
HELLO_RUNS=${BENCH_WASM_HELLO_RUNS:-200}
WABT=${WABT:-1}
PROGRAMS=${PROGRAMS:-"fib sieve nbody sha256 matmul mixed"}
DIR=$(dirname "$0")/wasi
SBX=$BUILD/sbx
mkdir -p "$OUT"
# A scratch cache (docs/wasm.md, "Cache"), never the user's.
export SBX_CACHE_DIR="$OUT/cache"
rm -rf "$SBX_CACHE_DIR"

# Reduced size for wasm-interp and the factor by which the full size does more work.
reduced() {
    case $1 in
    fib) echo "-DN=32 122.99" ;; # calls(42) / calls(32) = fib(43) / fib(33)
    sieve) echo "-DREPS=1 100" ;;
    nbody) echo "-DN=60000 100" ;;
    sha256) echo "-DREPS=2 100" ;;
    matmul) echo "-DREPS=3 100" ;;
    mixed) echo "-DROUNDS=3 100" ;;
    esac
}

src() { # the workload's source: a shared kernel, or mixed.c
    if [ -f "$DIR/../kernels/$1.c" ]; then echo "$DIR/../kernels/$1.c"; else echo "$DIR/$1.c"; fi
}

WFLAGS="--target=wasm32-wasi --sysroot=/usr -O2 -Wl,--strip-debug"
# wasm-interp lacks WASI: it runs the workload alone, a reactor exporting bench (no main.c).
NIO="-mexec-model=reactor -Wl,--export=bench"
echo "building into $OUT ..."
for p in $PROGRAMS; do
    name="-DBENCH_NAME=\"$p\""
    clang $WFLAGS "$name" -o "$OUT/$p.wasm" "$DIR/main.c" "$(src "$p")" -lm
    ${CC:-gcc} -O2 "$name" -o "$OUT/$p.native" "$DIR/main.c" "$(src "$p")" -lm
    set -- $(reduced "$p")
    clang $WFLAGS $NIO "$1" -o "$OUT/$p.small.wasm" "$(src "$p")" -lm
    ${CC:-gcc} -O2 "$1" "$name" -o "$OUT/$p.small.native" "$DIR/main.c" "$(src "$p")" -lm
done
clang $WFLAGS -o "$OUT/hello.wasm" "$DIR/hello.c"
${CC:-gcc} -O2 -o "$OUT/hello.native" "$DIR/hello.c"
clang $WFLAGS -DBENCH_NO_IO -mexec-model=reactor -o "$OUT/hello.nio.wasm" "$DIR/hello.c"
sh "$DIR/gen_big.sh" 3900 >"$OUT/big.c"
clang $WFLAGS -mexec-model=reactor -o "$OUT/big.wasm" "$OUT/big.c"
${CC:-gcc} -O2 -D_GNU_SOURCE -Iinclude -Isrc -o "$OUT/instantiate" "$DIR/instantiate.c" \
    "$DIR/../host.c" "$BUILD/libsbx.a" $(pkg-config --libs jansson libseccomp) -lm -pthread

run() { # run RUNNER PROGRAM: one timed run, appends "prog runner cpu_s wall_s" to results
    case $1 in
    native) set -- "$2" "$OUT/$2.native" ;;
    sbx) set -- "$2" "$SBX" wasm --tier interp --timeout-ms 3600000 "$OUT/$2.wasm" ;;
    sbxa) set -- "$2" "$SBX" wasm --tier auto --timeout-ms 3600000 "$OUT/$2.wasm" ;;
    sbxc) set -- "$2" "$SBX" wasm --tier compiled --no-cache --timeout-ms 3600000 "$OUT/$2.wasm" ;;
    sbxw) set -- "$2" "$SBX" wasm --tier compiled --timeout-ms 3600000 "$OUT/$2.wasm" ;;
    node) set -- "$2" node --no-warnings "$DIR/node_wasi.mjs" "$OUT/$2.wasm" ;;
    wabt) set -- "$2" wasm-interp --dummy-import-func --run-all-exports "$OUT/$2.small.wasm" ;;
    esac
    p=$1
    shift
    /usr/bin/time -f "%U %S %e" -o "$OUT/time" "$@" >"$OUT/$p.$r.out"
    awk -v p="$p" -v r="$r" '{ printf "%s %s %.4f %.4f\n", p, r, $1 + $2, $3 }' "$OUT/time" \
        >>"$OUT/results"
}

RUNNERS="native sbx sbxa sbxc sbxw node"
for p in $PROGRAMS hello; do "$SBX" compile "$OUT/$p.wasm" >/dev/null; done
if [ "$WABT" = 1 ]; then RUNNERS="$RUNNERS wabt"; fi
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
: >"$OUT/results"
i=0
while [ $i -lt "$REPS" ]; do
    for p in $PROGRAMS; do
        for r in $RUNNERS; do run "$r" "$p"; done
        # Same result everywhere (wasm-interp's is the reduced size's, checked natively).
        for r in sbx sbxa sbxc sbxw node; do
            cmp -s "$OUT/$p.native.out" "$OUT/$p.$r.out" || echo "WARNING: $p: $r's output differs"
        done
        if [ "$WABT" = 1 ]; then
            want=$("$OUT/$p.small.native" | awk '{ printf "%.0f\n", ($2 < 0) ? $2 + 4294967296 : $2 }')
            grep -q "i32:$want\$" "$OUT/$p.wabt.out" || echo "WARNING: $p: wasm-interp's result differs"
        fi
    done
    i=$((i + 1))
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

# Median per (program, runner); wasm-interp's times are scaled by the work factor.
for p in $PROGRAMS; do echo "scale $p $(reduced "$p" | awk '{ print $2 }')"; done >"$OUT/scales"
table() { # table COLUMN(3 = CPU, 4 = wall) TITLE
    echo
    echo "$2 (median of $REPS; x = ratio to native; wasm-interp ran the reduced size, scaled up)"
    sort -k1,1 -k2,2 -k"$1","$1"g "$OUT/results" | awk -v c="$1" -v runners="$RUNNERS" '
    FNR == NR { scale[$2] = $3; next }
    { v[$1 " " $2, ++n[$1 " " $2]] = $c; if (!($1 in seen)) { seen[$1] = 1; order[++np] = $1 } }
    END {
        nr = split(runners, R, " ")
        printf "%-8s", "program"
        for (j = 1; j <= nr; j++) printf " %10s %7s", R[j] (R[j] == "wabt" ? "*" : ""), "x"
        printf "\n"
        for (i = 1; i <= np; i++) {
            p = order[i]
            printf "%-8s", p
            for (j = 1; j <= nr; j++) {
                k = p " " R[j]; m = v[k, int((n[k] + 1) / 2)]
                if (R[j] == "wabt") m *= scale[p]
                if (R[j] == "native") nat = m
                x = (nat > 0) ? m / nat : 0
                printf " %10.3f %7.2f", m, x
                if (x > 0) { lg[R[j]] += log(x); cnt[R[j]]++ }
            }
            printf "\n"
        }
        printf "%-8s", "geomean"
        for (j = 1; j <= nr; j++) printf " %10s %7.2f", "", cnt[R[j]] ? exp(lg[R[j]] / cnt[R[j]]) : 0
        printf "\n"
    }' "$OUT/scales" -
}
table 3 "CPU seconds (user + sys)"
table 4 "wall seconds"

echo
echo "start-up: hello world end to end ($HELLO_RUNS runs; wasm-interp runs an empty export: no WASI)"
hyperfine -N --style none --warmup 10 --runs "$HELLO_RUNS" --export-csv "$OUT/hello.csv" \
    "$OUT/hello.native" "$SBX wasm $OUT/hello.wasm" \
    "$SBX wasm --tier compiled $OUT/hello.wasm" \
    "node --no-warnings $DIR/node_wasi.mjs $OUT/hello.wasm" \
    "wasm-interp --run-all-exports $OUT/hello.nio.wasm" >/dev/null 2>&1
awk -F, 'NR > 1 { printf "  %-70s median %8.2f ms  min %8.2f ms\n", $1, $4 * 1e3, $7 * 1e3 }' \
    "$OUT/hello.csv"

echo
echo "load (decode + validate + compile) and instantiate of a ~1 MB module, in-process:"
"$OUT/instantiate" "$OUT/big.wasm" 20
echo
echo "compiled tier, cache hit: instantiate alone (a child fills the entry; LLVM never loaded):"
for p in $PROGRAMS big; do
    printf '  %-8s ' "$p"
    "$OUT/instantiate" "$OUT/$p.wasm" 20 cached
done
echo
echo "compiled tier, in-process module cache: the same, later instantiates linking the image in memory:"
for p in $PROGRAMS big; do
    printf '  %-8s ' "$p"
    "$OUT/instantiate" "$OUT/$p.wasm" 20 memory
done
echo
echo "compiled tier: LLVM compile time (instantiate, best of 3; part of sbxc's time above):"
for p in $PROGRAMS; do
    printf '  %-8s ' "$p"
    "$OUT/instantiate" "$OUT/$p.wasm" 3 compiled
done
printf '  %-8s ' big
"$OUT/instantiate" "$OUT/big.wasm" 1 compiled
