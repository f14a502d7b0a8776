#!/bin/sh
# tests/coverage/exit_counters.sh BUILD SBX EXIT_BUSY [N]: issue 15. Runs EXIT_BUSY (which exits
# while a pool thread works) and the js guest by hand N times each, every run writing its counters
# into a directory of its own, and checks that libgcov wrote them (before the fix, a pool thread
# still in the engine made the process leave with no dump about one run in three) and that gcov
# derives no negative count from them (a dump while a thread runs instrumented code).
set -u
build=$(realpath "$1") sbx=$(realpath "$2") bin=$(realpath "$3") n=${4:-10}
strip=$(printf '%s' "$build" | tr -cd / | wc -c)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '{}' >"$tmp/policy.json"
printf 'let a = []; for (let i = 0; i < 5000; i++) a.push({i}); return a.length' >"$tmp/guest.js"
pass=0 fail=0

# Prints gcov's negative counts for the counters under $1 of the code the pool and engine
# threads run (graph files copied beside them).
negatives() {
    (cd "$build" && find src/js src/util src/core -name '*.gcno' -exec cp --parents {} "$1" \;)
    (cd "$1" && find src/js src/util src/core -name '*.gcda' | while read -r f; do
        gcov -b -t -o "$(dirname "$f")" "$f" 2>/dev/null |
            grep -E 'taken -[0-9]|returned -[0-9]|^ *-[0-9]+[*]?:' | sed "s|^|$f: |"
    done)
}

check() { # check NAME DIR: the run's counters exist and are consistent
    if [ ! -f "$2/src/js/worker.gcda" ] || [ ! -f "$2/src/js/engine.gcda" ]; then
        echo "FAIL $1: no counters written for src/js (the process left without a dump)"
        fail=$((fail + 1))
        return
    fi
    neg=$(negatives "$2")
    if [ -n "$neg" ]; then
        echo "FAIL $1: gcov derives negative counts:"
        echo "$neg" | head -5
        fail=$((fail + 1))
        return
    fi
    pass=$((pass + 1))
}

# Prints how many times on_throttle ran, as counted in the run's counters under $1.
throttles() {
    (cd "$1" && gcov -f -o src/js src/js/runtime.gcda 2>/dev/null |
        sed -n "/^Function '.*on_throttle/{n;p;q}")
}

for i in $(seq 1 "$n"); do
    d="$tmp/busy$i"
    mkdir -p "$d"
    if GCOV_PREFIX="$d" GCOV_PREFIX_STRIP="$strip" timeout 60 "$bin" 3; then
        check "exit_busy run $i" "$d"
    else
        echo "FAIL exit_busy run $i: exit status $?"
        fail=$((fail + 1))
    fi
    d="$tmp/guest$i"
    mkdir -p "$d"
    out=$(echo null | GCOV_PREFIX="$d" GCOV_PREFIX_STRIP="$strip" timeout 60 \
        "$sbx" __js-guest --policy "$tmp/policy.json" "$tmp/guest.js" 3>&1)
    case $out in
    *value:4:5000*) check "js guest run $i" "$d" ;;
    *)
        echo "FAIL js guest run $i: $out"
        fail=$((fail + 1))
        ;;
    esac
    rm -rf "$tmp/busy$i" "$tmp/guest$i"
done

# A process leaving with a run stuck in the engine (before the fix: no dump at all, so whatever
# only the stuck run's thread executed, here its throttle, was never counted).
for i in $(seq 1 3); do
    d="$tmp/stuck$i"
    mkdir -p "$d"
    if GCOV_PREFIX="$d" GCOV_PREFIX_STRIP="$strip" timeout 60 "$bin" stuck; then
        check "exit_busy stuck run $i" "$d"
        t=$(throttles "$d")
        case $t in
        *"executed:0.00%"* | "") echo "FAIL exit_busy stuck run $i: on_throttle not counted ($t)"
            fail=$((fail + 1)) ;;
        esac
    else
        echo "FAIL exit_busy stuck run $i: exit status $?"
        fail=$((fail + 1))
    fi
    rm -rf "$d"
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
