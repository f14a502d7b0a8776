#!/bin/sh
# `sbx __js-guest` driven by hand with the process tier's protocol (src/jail/guest.c): policy file
# and script as arguments, context JSON on stdin ("null" when the run has none), the guest's
# stdout/stderr passed through, "<key>:<length>:<bytes>" result records on fd 3.
. "$(dirname "$0")/lib.sh"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT


# guest WANT-STATUS POLICY CODE CONTEXT: one guest run; records in $rec, stdio in $out/$err.
guest() {
    printf '%s' "$2" >"$dir/policy.json"
    printf '%s' "$3" >"$dir/main.js"
    printf '%s' "$4" >"$dir/ctx"
    rm -f "$dir/rec"
    expect_status "$1" sh -c 'exec "$0" __js-guest --policy "$1" "$2" <"$3" 3>"$4"' \
        "$SBX" "$dir/policy.json" "$dir/main.js" "$dir/ctx" "$dir/rec"
    rec=$(cat "$dir/rec" 2>/dev/null)
}

# frames: parses $dir/rec exactly as the tier does (each length is a byte count) and prints one
# "key=value" line per record, or "BAD FRAMING" if bytes are left over or a length is wrong.
frames() {
    python3 -c '
import sys
data = open(sys.argv[1], "rb").read()
p, out = 0, []
while p < len(data):
    k = data.index(b":", p)
    q = data.index(b":", k + 1)
    n = int(data[k + 1:q])
    v = data[q + 1:q + 1 + n]
    if len(v) != n:
        print("BAD FRAMING"); sys.exit(0)
    out.append(data[p:k].decode() + "=" + v.decode())
    p = q + 1 + n
print("\n".join(out))' "$dir/rec" 2>&1
}

nl='
'
# A good snippet: context on stdin, console output on the guest's own stdout/stderr.
guest 0 '{}' 'console.log("hi"); console.error("oops"); return context.a + 1' '{"a": 41}'
expect_eq "$rec" 'ok:1:1value:2:42stdout_truncated:1:0stderr_truncated:1:0' "ok records"
expect_eq "$out" 'hi' "console.log passes to stdout"
expect_eq "$err" 'oops' "console.error passes to stderr"

# A throwing snippet: ok 0, the error code's name, the message and the stack; the guest itself
# exits 0.
guest 0 '{}' 'console.log("before"); throw new Error("x:1:2 boom")' 'null'
expect_eq "$rec" \
    "ok:1:0error:24:SANDBOX_EXECUTION_FAILEDmessage:37:Error: x:1:2 boom (line 1, column 30)stack:34:Error: x:1:2 boom${nl}    at code:1:30stdout_truncated:1:0stderr_truncated:1:0" \
    "throw records"
expect_eq "$out" 'before' "output before the throw kept"
expect_eq "$(frames)" "ok=0${nl}error=SANDBOX_EXECUTION_FAILED${nl}message=Error: x:1:2 boom (line 1, column 30)${nl}stack=Error: x:1:2 boom${nl}    at code:1:30${nl}stdout_truncated=0${nl}stderr_truncated=0" \
    "colons inside a message do not break the framing"

# A syntax error is the run's failure, reported in the records, not a guest crash.
guest 0 '{}' 'return (' 'null'
expect_contains "$rec" 'ok:1:0error:24:SANDBOX_EXECUTION_FAILEDmessage:' "syntax error fails"
expect_contains "$(frames)" 'message=SyntaxError: ' "syntax error message"

# "null" (the tier's "no context") and an empty stdin both give context === null.
guest 0 '{}' 'return context === null' 'null'
expect_eq "$rec" 'ok:1:1value:4:truestdout_truncated:1:0stderr_truncated:1:0' "null context"
guest 0 '{}' 'return context === null' ''
expect_eq "$rec" 'ok:1:1value:4:truestdout_truncated:1:0stderr_truncated:1:0' "empty stdin"
guest 0 '{}' 'return undefined' 'null'
expect_eq "$rec" 'ok:1:1value:4:nullstdout_truncated:1:0stderr_truncated:1:0' "undefined is null"

# Lengths count bytes: UTF-8, escapes and a NUL inside the value.
guest 0 '{}' 'return context.s + "\u0000:\n"' '{"s": "é€"}'
expect_eq "$(frames)" "ok=1${nl}value=\"é€\\u0000:\\n\"${nl}stdout_truncated=0${nl}stderr_truncated=0" \
    "multi-byte value framed by its byte length"

# Bad context JSON on stdin: an invalid-argument result, as in the worker tier.
guest 0 '{}' 'return 1' '{bad'
expect_contains "$(frames)" "ok=0${nl}error=SANDBOX_INVALID_ARGUMENT${nl}message=context is not valid JSON" \
    "bad context JSON"

# The policy file's limits apply inside the guest: output cap, timeout.
guest 0 '{"maxOutputBytes": 8}' 'console.log("0123456789abcdef"); return 1' 'null'
expect_eq "$out" '01234567' "stdout capped at maxOutputBytes"
expect_eq "$rec" 'ok:1:1value:1:1stdout_truncated:1:1stderr_truncated:1:0' "truncation recorded"
guest 0 '{"maxOutputBytes": 4}' 'console.error("abcdefgh"); return 1' 'null'
expect_eq "$err" 'abcd' "stderr capped at maxOutputBytes"
expect_eq "$rec" 'ok:1:1value:1:1stdout_truncated:1:0stderr_truncated:1:1' "stderr truncation"
guest 0 '{"timeoutMs": 100}' 'while (true) {}' 'null'
# (Under load the message adds that the engine is being stopped in the background.)
expect_contains "$(frames)" "ok=0${nl}error=SANDBOX_TIMEOUT${nl}message=run exceeded its time limit" \
    "timeout record"
expect_contains "$rec" 'stdout_truncated:1:0stderr_truncated:1:0' "timeout: truncation records"

# The policy file is the tier's: a capability it does not grant stays denied.
guest 0 '{}' 'return typeof require + typeof process' 'null'
expect_eq "$rec" 'ok:1:1value:20:"undefinedundefined"stdout_truncated:1:0stderr_truncated:1:0' \
    "no require/process in the guest"

# Run by hand (no fd 3): the records follow the guest's stdout.
printf 'console.log("x"); return 7' >"$dir/main.js"
echo '{}' >"$dir/policy.json"
expect_status 0 sh -c 'echo null | exec "$0" __js-guest --policy "$1" "$2" 3>&-' \
    "$SBX" "$dir/policy.json" "$dir/main.js"
expect_eq "$out" "x${nl}ok:1:1value:1:7stdout_truncated:1:0stderr_truncated:1:0" "records on stdout"

# A context over 64 MiB is refused in the records rather than run as null.
python3 -c 'import sys; sys.stdout.write("\"" + "a" * (64 << 20) + "\"")' >"$dir/big"
expect_status 0 sh -c 'exec "$0" __js-guest --policy "$1" "$2" <"$3" 3>&-' \
    "$SBX" "$dir/policy.json" "$dir/main.js" "$dir/big"
expect_eq "$out" \
    'ok:1:0error:24:SANDBOX_INVALID_ARGUMENTmessage:22:context is over 64 MiBstdout_truncated:1:0stderr_truncated:1:0' \
    "oversize context refused"
rm -f "$dir/big"

# Unreadable stdin: sbx failed (125) with the reason, no records, the script does not run.
expect_status 125 sh -c 'exec "$0" __js-guest --policy "$1" "$2" <"$3" 3>"$4"' \
    "$SBX" "$dir/policy.json" "$dir/main.js" "$dir" "$dir/rec"
expect_eq "$err" 'sbx: stdin: Is a directory' "unreadable stdin named"
expect_eq "$out$(cat "$dir/rec")" '' "nothing ran"
expect_status 125 sh -c 'exec "$0" __js-guest --policy "$1" "$2" <&- 3>"$3"' \
    "$SBX" "$dir/policy.json" "$dir/main.js" "$dir/rec"
expect_eq "$err" 'sbx: stdin: Bad file descriptor' "closed stdin named"

# A record that cannot be written (fd 3 read-only) fails the guest.
expect_status 125 sh -c 'echo null | exec "$0" __js-guest --policy "$1" "$2" 3<"$1"' \
    "$SBX" "$dir/policy.json" "$dir/main.js"

# Usage and setup errors: 2 for usage, 125 when the guest cannot start (the tier's "sbx failed").
usage='sbx: __js-guest: usage: sbx __js-guest --policy FILE SCRIPT'
expect_status 2 "$SBX" __js-guest
expect_eq "$err" "$usage" "no arguments"
expect_status 2 "$SBX" __js-guest --policy "$dir/policy.json"
expect_eq "$err" "$usage" "no script"
expect_status 2 "$SBX" __js-guest --polic "$dir/policy.json" "$dir/main.js"
expect_eq "$err" "$usage" "misspelt --policy"
expect_status 2 "$SBX" __js-guest --policy "$dir/policy.json" "$dir/main.js" extra
expect_eq "$err" "$usage" "extra argument"
expect_status 125 "$SBX" __js-guest --policy "$dir/none.json" "$dir/main.js" </dev/null
expect_contains "$err" "$dir/none.json" "missing policy file named"
echo '{"bogus": 1}' >"$dir/bad.json"
expect_status 125 "$SBX" __js-guest --policy "$dir/bad.json" "$dir/main.js" </dev/null
expect_eq "$err" 'sbx: policy.bogus: unknown key' "invalid policy"
expect_status 125 "$SBX" __js-guest --policy "$dir/policy.json" "$dir/none.js" </dev/null
expect_eq "$err" "sbx: $dir/none.js: No such file or directory" "missing script named"
# The hidden command takes no telemetry flag: --metrics is its argument, not sbx's.
expect_status 2 "$SBX" __js-guest --metrics "$dir/m.prom" --policy "$dir/policy.json"
[ ! -e "$dir/m.prom" ] && ok || bad "__js-guest wrote a metrics file"

# End to end, when the process tier can run here: the tier parses these records back into the
# same result as the worker tier's (value, error code and message).
if timeout 20 "$SBX" run -- true 2>/dev/null; then
    for code in 'return [context.a, "é:1"]' 'throw new TypeError("t:2")' 'return ('; do
        expect_status 0 sh -c '"$0" eval --context "{\"a\": 1}" "$1" >"$2"; \
            "$0" eval --backend process --context "{\"a\": 1}" "$1" >"$3"; exit 0' \
            "$SBX" "$code" "$dir/w.json" "$dir/p.json"
        same=$(python3 -c '
import json, sys
w, p = (json.load(open(f)) for f in sys.argv[1:3])
keys = ("ok", "value", "error", "stdoutTruncated")
print("same" if all(w[k] == p[k] for k in keys) and p["backend"] == "process"
      else "%r != %r" % ({k: w[k] for k in keys}, {k: p[k] for k in keys}))' \
            "$dir/w.json" "$dir/p.json" 2>&1)
        expect_eq "$same" same "process tier parses the guest's records: $code"
    done
else
    echo "process tier unavailable here: end-to-end checks skipped"
fi
finish
