#!/bin/sh
# bench/wasm/compile.sh: what LLVM's compile of a module costs, `sbx compile` into a scratch
# cache: the ~1 MB module (wasi/gen_big.sh 3900; issue 12: "compile time for the 1 MB module
# at the chosen optimisation level: <= 2 s; report its peak memory") and each kernel. Prints
# CPU seconds of all threads (user + sys, from the child's rusage), wall seconds, the peak RSS
# and the level the module takes (src/wasm/jit/level.h). Prints, never asserts.
# `make bench-wasm` runs it after run-wasi.sh; alone: BUILD=build sh bench/wasm/compile.sh.
set -eu
BUILD=${BUILD:-build}
OUT=${OUT:-$BUILD/bench-compile}
PROGRAMS=${PROGRAMS:-"fib sieve nbody sha256 matmul mixed"}
DIR=$(dirname "$0")/wasi
SBX=$BUILD/sbx
mkdir -p "$OUT"
export SBX_CACHE_DIR="$OUT/cache"

src() { # the workload's source: a shared kernel, or mixed.c
    if [ -f "$DIR/../kernels/$1.c" ]; then echo "$DIR/../kernels/$1.c"; else echo "$DIR/$1.c"; fi
}

WFLAGS="--target=wasm32-wasi --sysroot=/usr -O2 -Wl,--strip-debug"
for p in $PROGRAMS; do
    clang $WFLAGS "-DBENCH_NAME=\"$p\"" -o "$OUT/$p.wasm" "$DIR/main.c" "$(src "$p")" -lm
done
sh "$DIR/gen_big.sh" 3900 >"$OUT/big.c"
clang $WFLAGS -mexec-model=reactor -o "$OUT/big.wasm" "$OUT/big.c"
clang $WFLAGS -o "$OUT/bigcmd.wasm" "$DIR/big_main.c" "$OUT/big.c"

# The level's boundary, from the header the compiler uses.
LARGE=$(awk '$1 == "#define" && $2 == "SBX__JIT_LARGE_BYTES" { print $3 }' src/wasm/jit/level.h)

# measure FILE: one fresh compile (the cache emptied first).
measure() {
    rm -rf "$SBX_CACHE_DIR"
    code=$(python3 "$DIR/../code_bytes.py" "$1")
    level=full
    [ "$code" -lt "$LARGE" ] || level=large
    printf '  %-8s %8d B of code, %-5s level: ' "$(basename "$1" .wasm)" "$code" "$level"
    python3 "$DIR/../thread_cpu.py" "$SBX" compile "$1" || true
}

echo "compiled tier: LLVM compile by sbx compile (one run each; load average $(cut -d' ' -f1 /proc/loadavg)):"
for p in $PROGRAMS; do measure "$OUT/$p.wasm"; done
measure "$OUT/big.wasm"

# Under `auto` a module this large compiles only the functions that run (docs/wasm.md, "Hot-only
# tier-up"): the 1 MB module as a program running 16 of its functions, the LLVM part being the
# CPU of the tier-up thread (sbx-tierup), against the interpreter alone.
ROUNDS=${BIG_ROUNDS:-20000000}
echo "the 1 MB module as a program ($ROUNDS rounds over 16 of its functions; load average $(cut -d' ' -f1 /proc/loadavg)):"
for tier in auto interp; do
    printf '  %-7s ' "$tier"
    python3 "$DIR/../thread_cpu.py" --thread sbx-tierup "$SBX" wasm --tier "$tier" --no-cache \
        --timeout-ms 3600000 "$OUT/bigcmd.wasm" "$ROUNDS" || true
done
