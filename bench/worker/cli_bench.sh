#!/bin/sh
# bench/worker/cli_bench.sh SBX [BASE_SBX] [RUNS]: median wall time of whole `sbx eval` processes,
# worker and process backends, for SBX and (if given) a baseline build, interleaved run by run.
set -eu
sbx=$1 base=${2:-} runs=${3:-30}
median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
one() { # one BIN BACKEND: wall ms of one run
    s=$(date +%s%N); "$1" eval --backend "$2" 'return 1' >/dev/null; e=$(date +%s%N)
    echo $(( (e - s) / 1000 ))
}
for backend in worker process; do
    : >/tmp/cli_bench.$$.a; : >/tmp/cli_bench.$$.b
    i=0
    while [ $i -lt "$runs" ]; do
        one "$sbx" $backend >>/tmp/cli_bench.$$.a
        [ -n "$base" ] && one "$base" $backend >>/tmp/cli_bench.$$.b
        i=$((i + 1))
    done
    a=$(median </tmp/cli_bench.$$.a)
    if [ -n "$base" ]; then
        b=$(median </tmp/cli_bench.$$.b)
        echo "sbx eval --backend $backend: median ${a} us, baseline ${b} us, ratio $(echo "$a $b" | awk '{printf "%.2f", $1/$2}')"
    else
        echo "sbx eval --backend $backend: median ${a} us"
    fi
done
rm -f /tmp/cli_bench.$$.a /tmp/cli_bench.$$.b
