#!/bin/sh
# Runs test suites given as name=command[,arg...], each under a hard timeout, and sums their results.
# A suite reports either Check's "Checks: N, Failures: F, Errors: E" or a plain
# "N passed, M failed" line; a suite that ends non-zero without either counts as one failure.
# A command may start with needs:VAR=DIR (repeatable): a suite whose DIR is missing is not run and
# counts as one failure, with one line saying where it was looked for and which variable moves it.
# A missing suite fails rather than being skipped: `make test` must not read as green for a
# conformance suite that never ran.
set -u
BUILD=${BUILD:-build}
logdir="$BUILD/test-logs"
mkdir -p "$logdir"
suite_timeout=${SBX_SUITE_TIMEOUT:-900}
# SAN=1: SpiderMonkey's process-lifetime state is not a leak (see tests/lsan.supp).
LSAN_OPTIONS="suppressions=$(pwd)/tests/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export LSAN_OPTIONS
total_pass=0
total_fail=0
failed_suites=""
missing_suites=""
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
for spec in "$@"; do
    name=${spec%%=*}
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
        total_fail=$((total_fail + 1))
        missing_suites="$missing_suites $name"
        continue
    fi
    start=$(date +%s)
    # shellcheck disable=SC2086
    timeout -k 5 "$suite_timeout" $cmd >"$log" 2>&1
    rc=$?
    secs=$(($(date +%s) - start))
    pass=0
    fail=0
    line=$(grep -E '^[0-9]+%: Checks: [0-9]+, Failures: [0-9]+, Errors: [0-9]+' "$log" | tail -n 1)
    if [ -n "$line" ]; then
        checks=$(echo "$line" | sed -E 's/.*Checks: ([0-9]+).*/\1/')
        fails=$(echo "$line" | sed -E 's/.*Failures: ([0-9]+).*/\1/')
        errs=$(echo "$line" | sed -E 's/.*Errors: ([0-9]+).*/\1/')
        fail=$((fails + errs))
        pass=$((checks - fail))
    else
        line=$(grep -E '^([A-Za-z-]+: )?[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
        if [ -n "$line" ]; then
            pass=$(echo "$line" | sed -E 's/^([A-Za-z-]+: )?([0-9]+) passed.*/\2/')
            fail=$(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')
        fi
    fi
    if [ "$rc" -ne 0 ] && [ "$fail" -eq 0 ]; then
        fail=1
    fi
    if [ "$fail" -ne 0 ]; then
        status=FAIL
        failed_suites="$failed_suites $name"
    else
        status=ok
    fi
    printf '%-4s %-40s %5d passed %4d failed  %4ss  (rc=%d, log %s)\n' \
        "$status" "$name" "$pass" "$fail" "$secs" "$rc" "$log"
    if [ "$status" = FAIL ]; then
        grep -E 'FAIL|Failure|Error|error:|failed|Assertion|:[FE]:' "$log" | grep -v ' 0 failed' | head -n 20 | sed 's/^/    /'
    fi
    total_pass=$((total_pass + pass))
    total_fail=$((total_fail + fail))
done
[ -n "$failed_suites" ] && echo "failed suites:$failed_suites"
[ -n "$missing_suites" ] && echo "missing suites (counted as failed):$missing_suites"
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
