#!/bin/sh
# Self-test of the test262 runner ($TEST262) on a mini sample (tests/test262/selftest/: the real
# harness plus tests built to pass, under pass/, and to fail, under fail/). Checks that exactly
# fail/* fail, each for its own reason; that an unlisted failure and a stale entry (listed, but
# passes or is gone) each fail the run; and that --update writes the list a clean run accepts.
set -u
BUILD=${BUILD:-build}
TEST262=${TEST262:-$BUILD/tests/test262/test262}
TEST262_DIR=${TEST262_DIR:-../shared/test262}
here=$(dirname "$0")/selftest
out=$BUILD/tests/test262/selftest
rm -rf "$out"
mkdir -p "$out/root/harness"
cp -r "$here/test" "$out/root/"
cp "$TEST262_DIR/harness/assert.js" "$TEST262_DIR/harness/sta.js" \
    "$TEST262_DIR/harness/doneprintHandle.js" "$here/harness/selftestHelper.js" "$out/root/harness/"
pass=0
fail=0
check() { # check NAME CONDITION-EXIT-STATUS MESSAGE
    if [ "$2" -eq 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL $1: $3"; fi
}
run() { # run LOG LIST [OPTIONS...]: the runner on the mini sample, 0.5 s per test (2 s on retry)
    log=$1 list=$2
    shift 2
    "$TEST262" --root "$out/root" --expected "$list" --timeout-ms 500 --engine selftest \
        --results "$out/$log.results" "$@" >"$out/$log.log" 2>&1
}

# 1. --update from no list: lists exactly fail/*.
run update "$out/list.txt" --update
check update $? "--update failed (log $out/update.log)"
want=$(cd "$here/test" && ls fail/*.js | sed 's|^|test/|' | sort | tr '\n' ' ')
got=$(grep -v '^#' "$out/list.txt" | grep '  # ' | sed 's/  # .*//' | sort | tr '\n' ' ')
[ "$want" = "$got" ]
check update $? "listed: want [$want], got [$got]"

# 2. Each failure for its own reason (the list's derived reasons and the per-test results).
while read -r test reason; do
    grep -q "^FAIL test/fail/$test  # .*$reason" "$out/update.results"
    check "fail/$test" $? "reason lacks '$reason': $(grep "fail/$test" "$out/update.results")"
done <<'EOF'
assert.js Test262Error: .*built to fail
negative-runs.js expected SyntaxError (parse phase), ran to completion
negative-wrong-type.js expected SyntaxError, got TypeError: built to fail
only-strict-sloppy.js Test262Error
raw-no-harness.js ReferenceError
include-missing.js runner: harness noSuchHelper.js
async-failure.js Test262:AsyncTestFailure:.*built to fail
async-never.js \(async test did not complete\|SANDBOX_TIMEOUT\)
timeout.js SANDBOX_TIMEOUT
tamper-throw.js TypeError: built to fail
EOF
grep -q '^test/fail/missing-builtin.js  # NoSuchBuiltin not implemented$' "$out/list.txt"
check list-reason $? "a missing built-in is not listed as 'NoSuchBuiltin not implemented'"
grep -q '^## fail (11)$' "$out/list.txt"
check list-groups $? "no '## fail (11)' group header"

# A timeout is retried alone with 4x the time: a slow test then passes, a hang fails again; a
# listed test is not retried, except when rewriting the list.
grep -q '^retried test/pass/slow.js alone with 2000 ms: passed$' "$out/update.log"
check retry $? "slow.js was not retried into a pass (log $out/update.log)"
grep -q '^retried test/fail/timeout.js alone with 2000 ms: SANDBOX_TIMEOUT' "$out/update.log"
check retry $? "timeout.js was not retried, or did not time out again (log $out/update.log)"

# 3. The written list is accepted: every outcome as expected, exit 0.
run clean "$out/list.txt"
check clean $? "run with its own list failed (log $out/clean.log)"
grep -q '^expectations: 23 passed, 0 failed$' "$out/clean.log"
check clean $? "no 'expectations: 23 passed, 0 failed' line"
grep -q '^test262 on selftest (worker tier, 2 threads): 12 passed, 11 failed of 23 (52.2%)' \
    "$out/clean.log"
check clean $? "no conformance line '12 passed, 11 failed of 23'"
grep -q '^fail  *11  *0  *11  *0.0%$' "$out/clean.log"
check clean $? "no per-area row for 'fail'"
grep -q '^retried test/fail/timeout.js' "$out/clean.log"
[ $? -ne 0 ]
check clean $? "a listed timeout was retried (log $out/clean.log)"

# 4. An unlisted failure fails the run.
grep -v '^test/fail/assert.js ' "$out/list.txt" >"$out/unlisted.txt"
run unlisted "$out/unlisted.txt"
[ $? -ne 0 ] && grep -q '^FAIL test/fail/assert.js: unexpected failure' "$out/unlisted.log"
check unlisted $? "an unlisted failure passed (log $out/unlisted.log)"

# 5. A listed test that passes, and one not in the sample, are stale.
{ cat "$out/list.txt"; echo 'test/pass/plain.js  # thought to fail'; } >"$out/stale.txt"
run stale "$out/stale.txt"
[ $? -ne 0 ] && grep -q '^FAIL test/pass/plain.js: passes but is listed' "$out/stale.log"
check stale $? "a stale entry passed (log $out/stale.log)"
{ cat "$out/list.txt"; echo 'test/gone.js  # removed from the sample'; } >"$out/gone.txt"
run gone "$out/gone.txt"
[ $? -ne 0 ] && grep -q '^FAIL test/gone.js: listed but not in the sample' "$out/gone.log"
check gone $? "an entry for a test not in the sample passed (log $out/gone.log)"

# 6. --update keeps a reason someone wrote, and a malformed list is an error, not a pass.
sed 's|^test/fail/assert.js  # .*|test/fail/assert.js  # a reason kept by hand|' "$out/list.txt" \
    >"$out/kept.txt"
run kept "$out/kept.txt" --update
grep -q '^test/fail/assert.js  # a reason kept by hand$' "$out/kept.txt"
check kept $? "--update dropped a hand-written reason"
cp "$out/list.txt" "$out/subset.txt"
run subset "$out/subset.txt" --update --filter pass/
cmp -s "$out/list.txt" "$out/subset.txt"
check subset $? "--update --filter pass/ changed the entries of tests it did not run"
sed 's|^test/fail/missing-builtin.js  # .*|test/fail/missing-builtin.js  # Stale not implemented|' \
    "$out/list.txt" >"$out/rederived.txt"
run rederived "$out/rederived.txt" --update
grep -q '^test/fail/missing-builtin.js  # NoSuchBuiltin not implemented$' "$out/rederived.txt"
check rederived $? "--update kept a 'not implemented' reason instead of deriving it again"
echo 'test/fail/assert.js' >"$out/bad.txt"
run bad "$out/bad.txt"
[ $? -ne 0 ] && grep -q "bad.txt:1: want 'PATH  # REASON'" "$out/bad.log"
check bad $? "a malformed list was accepted (log $out/bad.log)"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
