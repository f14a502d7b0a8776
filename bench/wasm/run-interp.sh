#!/bin/sh
# bench/wasm/run-interp.sh: the kernels (bench/wasm/kernels, shared with run-wasi.sh) under sbx's
# interpreter and natively (same C, same -O2), interleaved RUNS times (best CPU time kept), then
# sbx against wabt's wasm-interp on reduced sizes (it is ~100x native). Prints CPU ns, ratios and
# geometric means, and a WARNING on stderr when a result differs. `make bench-interp`.
set -eu
BUILD=${BUILD:-build}
OUT=${OUT:-$BUILD/bench-wasm}
RUNS=${RUNS:-3}
WABT=${WABT:-1}
KERNELS=${KERNELS:-"fib sieve nbody sha256 matmul"}
DIR=$(dirname "$0")
mkdir -p "$OUT"

${CC:-gcc} -O2 -D_GNU_SOURCE -Iinclude -Isrc -o "$OUT/bench_interp" "$DIR/bench_interp.c" \
    "$DIR/host.c" "$BUILD/libsbx.a" $(pkg-config --libs jansson libseccomp) -lm -pthread

# This benchmark's sizes (the kernels' defaults are run-wasi.sh's), then the reduced ones.
full() {
    case $1 in
    fib) echo "-DN=35" ;;
    sieve) echo "-DN=4000000 -DREPS=10" ;;
    nbody) echo "-DN=2000000" ;;
    sha256) echo "-DN=1048576 -DREPS=20" ;;
    matmul) echo "-DN=300 -DREPS=4" ;;
    esac
}

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
    clang $WFLAGS $(full "$k") -o "$OUT/$k.wasm" "$DIR/kernels/$k.c"
    clang $WFLAGS $(reduced "$k") -o "$OUT/$k.small.wasm" "$DIR/kernels/$k.c"
    clang -O2 $(full "$k") -o "$OUT/$k.native" "$DIR/kernels/$k.c" "$DIR/native_main.c" -lm
done

best() { # best of RUNS for "$@", which prints "<result> <ns>": prints "<result> <least ns>"
    b=""
    n=0
    while [ $n -lt "$RUNS" ]; do
        o=$("$@")
        t=${o#* }
        if [ -z "$b" ] || [ "$t" -lt "$b" ]; then b=$t; fi
        n=$((n + 1))
    done
    echo "${o% *} $b"
}

cpu_ns() { # CPU time of a whole command in ns; its output goes to $OUT/out
    /usr/bin/time -f "%U %S" -o "$OUT/time" "$@" >"$OUT/out"
    awk '{printf "%.0f\n", ($1 + $2) * 1e9}' "$OUT/time"
}

same() { # same KERNEL WHAT GOT WANT: warns when a result differs
    [ "$3" = "$4" ] || echo "WARNING: $1: $2 returned $3, expected $4" >&2
}

printf "%-8s %14s %14s %8s %16s %16s %8s\n" kernel native_ns sbx_ns x_native \
    "sbx_small_ns" "wabt_small_ns" wabt/sbx
for k in $KERNELS; do
    set -- $(best "$OUT/$k.native")
    want=$1 nat=$2
    set -- $(best "$OUT/bench_interp" "$OUT/$k.wasm")
    same "$k" sbx "$1" "$want"
    sbx=$2
    set -- $(best "$OUT/bench_interp" "$OUT/$k.small.wasm")
    small=$2
    wabt=0
    if [ "$WABT" = 1 ]; then
        wabt=$(cpu_ns wasm-interp "$OUT/$k.small.wasm" --run-all-exports)
        # wasm-interp prints "bench() => i32:<unsigned>"; compared with sbx's small result.
        got=$(sed -n 's/^bench() => i32://p' "$OUT/out")
        same "$k" "wasm-interp (reduced)" "$got" "$(echo "$1" |
            awk '{ printf "%.0f\n", ($1 < 0) ? $1 + 4294967296 : $1 }')"
    fi
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
