#!/bin/sh
# bench/worker/cli_bench.sh SBX [BASE_SBX] [RUNS]: median wall time of whole processes, for SBX
# and (if given) a baseline build, interleaved run by run: `sbx eval 'return 1'` on the worker
# and process backends, and `sbx policy check` (a process that never runs JavaScript: what
# start-up costs every host of libsbx). `node -e` of the same snippet is the peer.
set -eu
sbx=$1 base=${2:-} runs=${3:-30}
policy=/tmp/cli_bench.$$.json
echo '{"timeoutMs":1000}' >"$policy"
median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
one() { # one CMD...: wall us of one run
    s=$(date +%s%N)
    "$@" >/dev/null
    e=$(date +%s%N)
    echo $(((e - s) / 1000))
}
# bench LABEL ARGS...: SBX ARGS (and BASE_SBX ARGS) RUNS times, interleaved.
bench() {
    label=$1
    shift
    : >/tmp/cli_bench.$$.a
    : >/tmp/cli_bench.$$.b
    i=0
    while [ $i -lt "$runs" ]; do
        one "$sbx" "$@" >>/tmp/cli_bench.$$.a
        [ -n "$base" ] && one "$base" "$@" >>/tmp/cli_bench.$$.b
        i=$((i + 1))
    done
    a=$(median </tmp/cli_bench.$$.a)
    if [ -n "$base" ]; then
        b=$(median </tmp/cli_bench.$$.b)
        echo "$label: median ${a} us, baseline ${b} us, ratio $(echo "$a $b" | awk '{printf "%.2f", $1/$2}')"
    else
        echo "$label: median ${a} us"
    fi
}
bench "sbx eval --backend worker" eval --backend worker 'return 1'
if command -v node >/dev/null; then
    : >/tmp/cli_bench.$$.n
    i=0
    while [ $i -lt "$runs" ]; do
        one node -e '(function () { return 1; })()' >>/tmp/cli_bench.$$.n
        i=$((i + 1))
    done
    echo "peer node -e: median $(median </tmp/cli_bench.$$.n) us"
fi
bench "sbx eval --backend process" eval --backend process 'return 1'
bench "sbx policy check" policy check "$policy"
rm -f /tmp/cli_bench.$$.a /tmp/cli_bench.$$.b /tmp/cli_bench.$$.n "$policy"
