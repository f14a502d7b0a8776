#!/bin/sh
# Runs test suites given as name=command[,arg...], each under a hard timeout, and sums their results.
# A suite reports either Check's "Checks: N, Failures: F, Errors: E" or a plain
# "N passed, M failed" line; a suite that ends non-zero without either counts as one failure.
# A command may start with needs:VAR=DIR (repeatable): a suite whose DIR is missing is not run and
# counts as one failure, with one line saying where it was looked for and which variable moves it.
# A missing suite fails rather than being skipped: `make test` must not read as green for a
# conformance suite that never ran.
# SBX_TEST_JOBS=N (default 1) runs up to N suites at once; those named in SBX_TEST_SERIAL
# (space-separated: suites that measure time) run afterwards, one at a time with nothing beside
# them. SBX_TEST_FIRST names suites to start first (the longest, so the pool does not end on one).
# Each suite's line says its own wall time; the last lines the whole run's, and the slowest
# suites' (all suites' times: $BUILD/test-logs/times.txt, "SECONDS NAME STATUS", slowest first).
set -u
BUILD=${BUILD:-build}
logdir="$BUILD/test-logs"
mkdir -p "$logdir"
suite_timeout=${SBX_SUITE_TIMEOUT:-900}
# Prints the first missing needs:VAR=DIR of a command as "VAR DIR"; nothing when all are there.
first_missing() {
    for word in "$@"; do
        case $word in
        needs:*=*) ;;
        *) return 0 ;;
        esac
        need=${word#needs:}
        [ -d "${need#*=}" ] || {
            echo "${need%%=*} ${need#*=}"
            return 0
        }
    done
}
# Sets pass and fail from a suite's log (Check's summary or "N passed, M failed").
count_log() {
    pass=0
    fail=0
    line=$(grep -E '^[0-9]+%: Checks: [0-9]+, Failures: [0-9]+, Errors: [0-9]+' "$1" | tail -n 1)
    if [ -n "$line" ]; then
        checks=$(echo "$line" | sed -E 's/.*Checks: ([0-9]+).*/\1/')
        fails=$(echo "$line" | sed -E 's/.*Failures: ([0-9]+).*/\1/')
        errs=$(echo "$line" | sed -E 's/.*Errors: ([0-9]+).*/\1/')
        fail=$((fails + errs))
        pass=$((checks - fail))
        return
    fi
    line=$(grep -E '^([A-Za-z-]+: )?[0-9]+ passed, [0-9]+ failed' "$1" | tail -n 1)
    if [ -n "$line" ]; then
        pass=$(echo "$line" | sed -E 's/^([A-Za-z-]+: )?([0-9]+) passed.*/\2/')
        fail=$(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')
    fi
}
res_file() { echo "$logdir/$(echo "${1%%=*}" | tr '/' '_').res"; }
# Runs one suite: prints its report in one write (suites may run side by side) and leaves
# "STATUS PASS FAIL SECONDS" in its .res file for the totals.
run_one() {
    spec=$1
    name=${spec%%=*}
    res=$(res_file "$spec")
    # Make variables cannot hold spaces inside one entry: commas separate arguments.
    cmd=$(echo "${spec#*=}" | tr ',' ' ')
    # shellcheck disable=SC2086
    miss=$(first_missing $cmd)
    cmd=$(echo "$cmd" | sed -E 's/^(needs:[^ ]* )*//')
    log="$logdir/$(echo "$name" | tr '/' '_').log"
    if [ -n "$miss" ]; then
        var=${miss%% *}
        dir=${miss#* }
        abs=$(realpath -m -- "$dir" 2>/dev/null || echo "$dir")
        printf '%-4s %-40s suite not found: looked for %s (%s); set %s=DIR to point elsewhere\n' \
            MISS "$name" "$dir" "$abs" "$var"
        echo "MISS 0 1 0" >"$res"
        return
    fi
    start=$(date +%s)
    # shellcheck disable=SC2086
    timeout -k 5 "$suite_timeout" $cmd >"$log" 2>&1
    rc=$?
    secs=$(($(date +%s) - start))
    count_log "$log"
    if [ "$rc" -ne 0 ] && [ "$fail" -eq 0 ]; then
        fail=1
    fi
    status=ok
    [ "$fail" -ne 0 ] && status=FAIL
    report=$(
        printf '%-4s %-40s %5d passed %4d failed  %4ss  (rc=%d, log %s)\n' \
            "$status" "$name" "$pass" "$fail" "$secs" "$rc" "$log"
        if [ "$status" = FAIL ]; then
            grep -E 'FAIL|Failure|Error|error:|failed|Assertion|:[FE]:' "$log" | grep -v ' 0 failed' |
                head -n 20 | sed 's/^/    /'
        fi
    )
    printf '%s\n' "$report"
    echo "$status $pass $fail $secs" >"$res"
}
if [ "${1:-}" = --one ]; then
    run_one "$2"
    exit 0
fi
# SAN=1: SpiderMonkey's process-lifetime state is not a leak (see tests/lsan.supp).
LSAN_OPTIONS="suppressions=$(pwd)/tests/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export LSAN_OPTIONS
# The compiled tier's cache: a scratch one per run, emptied first so that every run compiles
# the same way (and never the user's ~/.cache/sbx).
if [ -z "${SBX_CACHE_DIR:-}" ]; then
    case $BUILD in /*) SBX_CACHE_DIR=$BUILD/test-cache ;; *) SBX_CACHE_DIR=$(pwd)/$BUILD/test-cache ;; esac
    rm -rf "$SBX_CACHE_DIR"
fi
export SBX_CACHE_DIR
jobs=${SBX_TEST_JOBS:-1}
serial=" ${SBX_TEST_SERIAL:-} "
first=" ${SBX_TEST_FIRST:-} "
queue="$logdir/.queue"
: >"$queue"
run_start=$(date +%s)
# The pool's queue, NUL-separated: SBX_TEST_FIRST's suites, then the others, in order.
for pass_no in 1 2; do
    for spec in "$@"; do
        name=${spec%%=*}
        rm -f "$(res_file "$spec")"
        case $serial in *" $name "*) continue ;; esac
        case $first in
        *" $name "*) [ "$pass_no" = 1 ] && printf '%s\0' "$spec" >>"$queue" ;;
        *) [ "$pass_no" = 2 ] && printf '%s\0' "$spec" >>"$queue" ;;
        esac
    done
done
xargs -0 -r -n 1 -P "$jobs" sh "$0" --one <"$queue"
pool_secs=$(($(date +%s) - run_start))
n_serial=0
for spec in "$@"; do
    case $serial in *" ${spec%%=*} "*) run_one "$spec"; n_serial=$((n_serial + 1)) ;; esac
done
total_pass=0
total_fail=0
failed_suites=""
missing_suites=""
times="$logdir/times.txt"
: >"$times.tmp"
for spec in "$@"; do
    name=${spec%%=*}
    res=$(res_file "$spec")
    # A suite without a result (its runner died) counts as failed.
    if [ -s "$res" ]; then
        read -r status pass fail secs <"$res"
    else
        status=FAIL pass=0 fail=1 secs=0
        echo "FAIL $name: no result (its runner died)"
    fi
    echo "${secs:-0} $name $status" >>"$times.tmp"
    case $status in
    MISS) missing_suites="$missing_suites $name" ;;
    FAIL) failed_suites="$failed_suites $name" ;;
    esac
    total_pass=$((total_pass + pass))
    total_fail=$((total_fail + fail))
done
run_secs=$(($(date +%s) - run_start))
sort -rn "$times.tmp" >"$times" && rm -f "$times.tmp"
echo "slowest suites (s): $(head -n 8 "$times" | awk '{printf "%s%s %s", (NR > 1 ? ", " : ""), $2, $1}')"
echo "wall time: ${run_secs}s ($pool_secs s with up to $jobs at once, then $((run_secs - pool_secs)) s for $n_serial serial; load $(cut -d' ' -f1-3 /proc/loadavg))"
[ -n "$failed_suites" ] && echo "failed suites:$failed_suites"
[ -n "$missing_suites" ] && echo "missing suites (counted as failed):$missing_suites"
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
