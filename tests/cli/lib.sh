# tests/cli/lib.sh: a tiny harness for CLI tests: expect_* helpers count, `finish` prints the
# plain summary line run-tests.sh reads. Each command runs under timeout(1).
pass=0
fail=0
T=${T:-30}
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
# expect_status WANT CMD...: runs CMD, captures stdout/stderr in $out/$err.
expect_status() {
    want=$1
    shift
    out=$(timeout -k 2 "$T" "$@" 2>"$tmp_err")
    got=$?
    err=$(cat "$tmp_err")
    if [ "$got" -eq "$want" ]; then ok; else bad "$* -> exit $got, want $want; stderr: $err"; fi
}
expect_eq() { # ACTUAL EXPECTED LABEL
    if [ "$1" = "$2" ]; then ok; else bad "$3: got '$1', want '$2'"; fi
}
expect_contains() { # HAYSTACK NEEDLE LABEL
    case "$1" in *"$2"*) ok ;; *) bad "$3: '$2' not in '$1'" ;; esac
}
# need_wat2wasm: a suite that builds its modules from text fails (one failure) without wabt.
need_wat2wasm() {
    command -v wat2wasm >/dev/null 2>&1 && return
    bad "wat2wasm (wabt) is not installed"
    finish
    exit
}
finish() {
    rm -f "$tmp_err"
    echo "$pass passed, $fail failed"
    [ "$fail" -eq 0 ]
}
tmp_err=$(mktemp)
SBX=${SBX:?SBX must name the sbx binary}
