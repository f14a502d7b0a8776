#!/bin/sh
# bench/wasm/run-interp.sh: the interpreter's kernels under sbx and natively (same C, same -O2),
# interleaved RUNS times (best CPU time kept), then sbx against wabt's wasm-interp on reduced
# sizes (it is ~100x native). Prints CPU ns, ratios and geometric means. `make bench-interp`.
set -eu
BUILD=${BUILD:-build}
OUT=${OUT:-$BUILD/bench-wasm}
RUNS=${RUNS:-3}
WABT=${WABT:-1}
KERNELS=${KERNELS:-"fib sieve nbody sha256 matmul"}
DIR=$(dirname "$0")
mkdir -p "$OUT"

${CC:-gcc} -O2 -D_GNU_SOURCE -Iinclude -Isrc -o "$OUT/bench_interp" "$DIR/bench_interp.c" \
    "$BUILD/libsbx.a" $(pkg-config --libs jansson libseccomp) -lm -pthread

reduced() {
    case $1 in
    fib) echo "-DN=30" ;;
    sieve) echo "-DREPS=1 -DN=1000000" ;;
    nbody) echo "-DN=100000" ;;
    sha256) echo "-DREPS=1 -DN=262144" ;;
    matmul) echo "-DN=120 -DREPS=1" ;;
    esac
}

WFLAGS="--target=wasm32-wasi --sysroot=/usr -O2 -nostartfiles -Wl,--no-entry -Wl,--export=bench -Wl,--strip-debug"
for k in $KERNELS; do
    i64=""
    case $k in nbody | matmul) i64=-DBENCH_I64 ;; esac
    clang $WFLAGS -o "$OUT/$k.wasm" "$DIR/kernels/$k.c"
    clang $WFLAGS $(reduced "$k") -o "$OUT/$k.small.wasm" "$DIR/kernels/$k.c"
    clang -O2 $i64 -o "$OUT/$k.native" "$DIR/kernels/$k.c" "$DIR/native_main.c" -lm
done

best() { # best of RUNS for "$@" printing "<result> <ns>"
    b=""
    n=0
    while [ $n -lt "$RUNS" ]; do
        t=$("$@" | awk '{print $2}')
        if [ -z "$b" ] || [ "$t" -lt "$b" ]; then b=$t; fi
        n=$((n + 1))
    done
    echo "$b"
}

cpu_ns() { # CPU time of a whole command in ns
    /usr/bin/time -f "%U %S" "$@" 2>&1 >/dev/null | tail -n 1 |
        awk '{printf "%.0f\n", ($1 + $2) * 1e9}'
}

printf "%-8s %14s %14s %8s %16s %16s %8s\n" kernel native_ns sbx_ns x_native \
    "sbx_small_ns" "wabt_small_ns" wabt/sbx
for k in $KERNELS; do
    nat=$(best "$OUT/$k.native")
    sbx=$(best "$OUT/bench_interp" "$OUT/$k.wasm")
    small=$(best "$OUT/bench_interp" "$OUT/$k.small.wasm")
    wabt=0
    if [ "$WABT" = 1 ]; then wabt=$(cpu_ns wasm-interp "$OUT/$k.small.wasm" --run-all-exports); fi
    echo "$k $nat $sbx $small $wabt"
done | awk '{
    r = $3 / $2; w = ($5 > 0) ? $5 / $4 : 0
    printf "%-8s %14.0f %14.0f %8.2f %16.0f %16.0f %8.2f\n", $1, $2, $3, r, $4, $5, w
    lr += log(r); n++; if (w > 0) { lw += log(w); nw++ }
} END {
    printf "geomean: sbx %.2fx native", exp(lr / n)
    if (nw) printf "; wasm-interp %.2fx slower than sbx", exp(lw / nw)
    printf "\n"
}'
