#!/bin/sh
# bench/wasm/real/run.sh: real programs from Debian's source packages (bzip2, SQLite, Lua 5.4,
# zlib: deflate -9 as minigzip -9, and zlib's example.c, a short program; fetched into
# build/bench-src by fetch.sh, built by build.sh, never committed) run end to end natively, under
# sbx (interpreter: sbx; `--tier auto --no-cache`, hot functions compiled in the run: sbxa; the
# whole module compiled with LLVM in the run: sbxc; compiled with a warm cache filled by `sbx
# compile` first: sbxw; the default path, `sbx wasm` with no tier option, from an empty cache:
# sbxd1, then again with the cache sbxd1 alone filled: sbxd2, and so on: sbxd3 ... sbxd9, in
# RUNNERS order; the upgrade a default run starts after it, off its clock, is waited for and its
# CPU printed apart: reap.py) and under node's WASI, interleaved
# round-robin REPS times (median kept).
# Every runner's output must equal native's byte for byte. A difference, a failed run or one
# killed after REAL_TIMEOUT seconds (default 1800) is reported, shown in the table's cell when no
# run of that pair succeeded, and makes the script exit 1 after the tables. `sbx compile`'s CPU
# time and peak RSS are reported on their own. `make bench-wasm-real [BENCH_WASM_REPS=N]`.
set -eu
BUILD=${BUILD:-build}
OUT=${OUT:-$BUILD/bench-real}
SRC=${BENCH_SRC:-$BUILD/bench-src}
REPS=${BENCH_WASM_REPS:-1}
PROGRAMS=${REAL_PROGRAMS:-"lua sqlite bzip2 zlib zexample"}
RUNNERS=${REAL_RUNNERS:-"native sbx sbxa sbxc sbxw node sbxd1 sbxd2 sbxd3"}
LIMIT=${REAL_TIMEOUT:-1800}
DIR=$(dirname "$0")
SBX=$BUILD/sbx
# bzip2 holds its 20 MB input, the compressed copy and the round trip at once.
SBXRUN="$SBX wasm --timeout-ms 3600000 --memory-bytes 536870912"
export SBX_CACHE_DIR="$OUT/cache" # a scratch cache (docs/wasm.md, "Cache"), never the user's

sh "$DIR/fetch.sh" "$SRC"
echo "building into $OUT ..."
sh "$DIR/build.sh" "$SRC" "$OUT" $PROGRAMS
rm -rf "$SBX_CACHE_DIR"
mkdir -p "$OUT/dcache"
status=0

# limited CMD...: CMD under /usr/bin/time (to $OUT/time), killed after LIMIT seconds; its status.
limited() {
    /usr/bin/time -f "$TIMEFMT" -o "$OUT/time" timeout -k 10 "$LIMIT" "$@"
}

# reaped CMD...: the same (TIMEFMT "%U %S %e" only), then waits for what CMD left running after
# it (the default path's upgrade, off the run's clock) and writes its CPU and wall to $OUT/bgtime.
reaped() {
    python3 "$DIR/reap.py" "$OUT/time" "$OUT/bgtime" timeout -k 10 "$LIMIT" "$@"
}

# failed STATUS: the word for a run that did not succeed (124, 137: timeout killed it).
failed() {
    case $1 in
    124 | 137) echo "timeout" ;;
    *) echo "failed" ;;
    esac
}

compile() { # compile PROGRAM: `sbx compile` alone, timed (CPU, peak RSS); fills sbxw's cache
    rc=0
    TIMEFMT="%U %S %M" limited "$SBX" compile "$OUT/$1.wasm" >/dev/null || rc=$?
    if [ $rc -eq 0 ]; then
        awk -v p="$1" -v kb="$(($(wc -c <"$OUT/$1.wasm") / 1024))" \
            '{ printf "  %-8s %10d %12.2f %14.1f\n", p, kb, $1 + $2, $3 / 1024 }' "$OUT/time" \
            >>"$OUT/compile"
    else
        echo "  $1: sbx compile $(failed $rc) (status $rc; limit ${LIMIT} s)" >>"$OUT/compile"
        status=1
    fi
}

run() { # run RUNNER PROGRAM: one timed run; appends "prog runner cpu_s wall_s" to results
    r=$1
    p=$2
    case $r in
    native) set -- "$OUT/$p.native" ;;
    sbx) set -- $SBXRUN --tier interp "$OUT/$p.wasm" ;;
    sbxa) set -- $SBXRUN --tier auto --no-cache "$OUT/$p.wasm" ;;
    sbxc) set -- $SBXRUN --tier compiled --no-cache "$OUT/$p.wasm" ;;
    sbxw) set -- $SBXRUN --tier compiled "$OUT/$p.wasm" ;;
    sbxd[1-9]) # the default path, its own cache: empty before d1, filled by the runs before
        [ "$r" != sbxd1 ] || rm -rf "$OUT/dcache/$p"
        set -- env SBX_CACHE_DIR="$OUT/dcache/$p" $SBXRUN "$OUT/$p.wasm" ;;
    node) set -- node --no-warnings "$DIR/../wasi/node_wasi.mjs" "$OUT/$p.wasm" ;;
    esac
    rc=0
    case $r in
    sbxd[1-9]) reaped "$@" >"$OUT/$p.$r.out" || rc=$? ;;
    *) TIMEFMT="%U %S %e" limited "$@" >"$OUT/$p.$r.out" || rc=$? ;;
    esac
    # example.c's first line encodes the C types' sizes, which differ between x86-64 and wasm32
    [ "$p" != zexample ] || sed -i '1s/compile flags = 0x[0-9a-f]*/compile flags = (sizes)/' \
        "$OUT/$p.$r.out"
    if [ $rc -ne 0 ]; then
        what=$(failed $rc)
        echo "$(echo "$what" | tr '[:lower:]' '[:upper:]'): $p under $r (status $rc, limit ${LIMIT} s; output $OUT/$p.$r.out)"
        echo "$p $r $what $what" >>"$OUT/results"
        status=1
        return
    fi
    awk -v p="$p" -v r="$r" '{ printf "%s %s %.4f %.4f\n", p, r, $1 + $2, $3 }' "$OUT/time" \
        >>"$OUT/results"
    case $r in sbxd[1-9]) awk -v p="$p" -v r="$r" '{ print p, r, $1, $2 }' "$OUT/bgtime" >>"$OUT/bg" ;; esac
    if [ "$r" != native ] && ! cmp -s "$OUT/$p.native.out" "$OUT/$p.$r.out"; then
        echo "MISMATCH: $p: $r's output differs from native's ($OUT/$p.$r.out)"
        status=1
    fi
}

echo
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg) (2 cores, shared)"
: >"$OUT/results"
: >"$OUT/bg"
: >"$OUT/compile"
i=0
while [ $i -lt "$REPS" ]; do
    for p in $PROGRAMS; do
        case " $RUNNERS " in *" sbxw "*) [ $i -gt 0 ] || compile "$p" ;; esac
        for r in $RUNNERS; do run "$r" "$p"; done
    done
    i=$((i + 1))
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
for p in $PROGRAMS; do echo "  $p: $(head -c 100 "$OUT/$p.native.out" | head -n 1)"; done

echo
echo "sbx compile (LLVM, the whole module, once; it fills the cache sbxw runs from):"
printf '  %-8s %10s %12s %14s\n' program "wasm KiB" "CPU s" "peak RSS MiB"
cat "$OUT/compile"
RUNNERS=$RUNNERS REPS=$REPS sh "$DIR/table.sh" 3 "CPU seconds (user + sys, all threads)" <"$OUT/results"
RUNNERS=$RUNNERS REPS=$REPS sh "$DIR/table.sh" 4 "wall seconds" <"$OUT/results"
if [ -s "$OUT/bg" ]; then
    echo
    echo "after each sbxdN, off its clock: the upgrade of the kept hot code it started (sbx compile"
    echo "--hot at idle priority; waited for before the next run), CPU s and wall s (median of $REPS):"
    sort -k1,1 -k2,2 -k3,3g "$OUT/bg" | awk -v reps="$REPS" '
        { k = $1 " " $2; c[k, ++n[k]] = $3; w[k, n[k]] = $4; if (!(k in seen)) { seen[k] = 1; o[++m] = k } }
        END { for (i = 1; i <= m; i++) { k = o[i]; j = int((n[k] + 1) / 2)
              printf "  %-8s %-6s %8.2f %8.2f\n", substr(k, 1, index(k, " ") - 1), substr(k, index(k, " ") + 1), c[k, j], w[k, j] } }'
fi
echo
echo "wasm-interp (wabt): skipped: Debian's build has no WASI, through which these programs print," \
    "and at its ~300x native on the kernels one run of each would take 10-30 minutes."
exit $status
