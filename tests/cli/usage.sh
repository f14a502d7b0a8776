#!/bin/sh
# Usage errors and edge options of `sbx eval` and `sbx run`: exit statuses as documented (eval: 0
# ok, 1 guest failed, 2 usage or policy error; run: the command's, 124, 128+N, 125, 2 usage) and
# one clear line on stderr. Process-tier runs are skipped where the jail cannot run.
. "$(dirname "$0")/lib.sh"
dir=$(mktemp -d)
chmod 755 "$dir" # the jail reaches --fs grants as an unprivileged uid
trap 'rm -rf "$dir"' EXIT

# usage_error WANT-STDERR ARGS...: exit 2, exactly that line on stderr, nothing on stdout.
usage_error() {
    msg=$1
    shift
    expect_status 2 "$SBX" "$@"
    expect_eq "$err" "$msg" "sbx $*"
    expect_eq "$out" "" "sbx $*: stdout"
}

# ---- sbx eval: arguments
usage_error 'sbx: eval: expected exactly one CODE or @FILE (try --help)' eval
usage_error 'sbx: eval: expected exactly one CODE or @FILE (try --help)' eval 'return 1' 'return 2'
usage_error "sbx: eval: unknown or incomplete option '--bogus' (try --help)" eval --bogus 'return 1'
usage_error "sbx: eval: unknown or incomplete option '-x' (try --help)" eval -x 'return 1'
usage_error "sbx: eval: unknown or incomplete option '--timeout-ms' (try --help)" eval --timeout-ms
usage_error "sbx: eval: --backend must be worker or process, got 'wasm'" eval --backend wasm 'return 1'
usage_error "sbx: eval: --backend must be worker or process, got 'nope'" eval --backend nope 'return 1'
usage_error 'sbx: eval: --interpreter python3 needs --backend process' \
    eval --interpreter python3 'print(1)'
expect_status 0 "$SBX" eval --interpreter sbx-js 'return 4'
expect_contains "$out" '"value":4' "--interpreter sbx-js is the worker's own engine"

# ---- sbx eval: numbers (cli_parse_u64) and the policy's ranges
for v in abc -5 1e3 '' ' 5' 5x 99999999999999999999999; do
    usage_error "sbx: --timeout-ms: expected a non-negative integer, got '$v'" \
        eval --timeout-ms "$v" 'return 1'
done
usage_error "sbx: --memory-bytes: expected a non-negative integer, got '64M'" \
    eval --memory-bytes 64M 'return 1'
usage_error 'sbx: policy.timeoutMs: must be an integer in 1..3600000, got 0' \
    eval --timeout-ms 0 'return 1'
usage_error 'sbx: policy.timeoutMs: must be an integer in 1..3600000, got 3600001' \
    eval --timeout-ms 3600001 'return 1'
usage_error 'sbx: policy.memoryBytes: must be an integer in 262144..1099511627776, got 1' \
    eval --memory-bytes 1 'return 1'
# The limits do apply: a loop times out, an allocation loop hits the memory limit.
expect_status 1 "$SBX" eval --timeout-ms 50 'while (true) {}'
expect_contains "$out" '"code":"SANDBOX_TIMEOUT"' "--timeout-ms applies"
expect_status 1 "$SBX" eval --memory-bytes 1048576 \
    'var a = []; while (true) a.push(new Array(1000).join("x") + a.length)'
expect_contains "$out" '"code":"SANDBOX_MEMORY_LIMIT"' "--memory-bytes applies"

# ---- sbx eval: --policy
usage_error "sbx: $dir/none.json: unable to open $dir/none.json: No such file or directory" \
    eval --policy "$dir/none.json" 'return 1'
echo '{"timeoutMs": "soon"}' >"$dir/bad.json"
expect_status 2 "$SBX" eval --policy "$dir/bad.json" 'return 1'
expect_contains "$err" 'policy.timeoutMs: ' "bad policy value named"
echo '{"timeoutMs": 50}' >"$dir/slow.json"
expect_status 1 "$SBX" eval --policy "$dir/slow.json" 'while (true) {}'
expect_contains "$out" '"code":"SANDBOX_TIMEOUT"' "policy file's timeout"
# A command-line limit overrides the file's.
expect_status 0 "$SBX" eval --policy "$dir/slow.json" --timeout-ms 5000 \
    'var t = Date.now(); while (Date.now() - t < 150) {} return "late"'
expect_contains "$out" '"value":"late"' "--timeout-ms overrides the policy file"

# ---- sbx eval: CODE and --context from files and stdin
printf 'return context.n * 2' >"$dir/code.js"
printf '{"n": 21}' >"$dir/ctx.json"
expect_status 0 "$SBX" eval --context "@$dir/ctx.json" "@$dir/code.js"
expect_contains "$out" '"value":42' "code and context from files"
expect_status 0 sh -c 'printf "return 9" | exec "$0" eval @-' "$SBX"
expect_contains "$out" '"value":9' "code from stdin"
# Issue 23, item 8: `-` is standard input, as the convention is (it was code: SyntaxError).
expect_status 0 sh -c 'printf "return 8" | exec "$0" eval -' "$SBX"
expect_contains "$out" '"value":8' "eval - reads the code from stdin"
expect_status 0 sh -c 'printf "return context.n * 2" | exec "$0" eval --context "@$1" -' "$SBX" \
    "$dir/ctx.json"
expect_contains "$out" '"value":42' "eval - with --context from a file"
# ---- sbx eval --preload FILE (issue 26, item 3): run in each realm first, in order; errors
# name the file.
printf 'var lib = {n: 20};\nfunction inc() { return ++lib.n; }\n' >"$dir/lib.js"
printf 'var twice = inc() * 2; var nul = "a\000b";\n' >"$dir/second.js"
expect_status 0 "$SBX" eval --preload "$dir/lib.js" --preload "$dir/second.js" \
    'return [lib.n, twice, nul.length]'
expect_contains "$out" '"value":[21,42,3]' "two preloads, in order, a NUL kept"
printf 'var a = 1;\nvar b = (;\n' >"$dir/bad.js"
expect_status 1 "$SBX" eval --preload "$dir/bad.js" 'return 1'
expect_contains "$out" "\"message\":\"preload $dir/bad.js: SyntaxError: expected expression, got ';' ($dir/bad.js, line 2, column 10)\"" \
    "a preload's syntax error names it"
usage_error 'sbx: eval: --preload needs the worker tier' \
    eval --backend process --preload "$dir/lib.js" 'return 1'
usage_error "sbx: $dir/none.js: No such file or directory" eval --preload "$dir/none.js" 'return 1'

# A NUL in --context @FILE cut the context there without a word (the run saw {"n": 21}).
printf '{"n": 21}\000, "m": 1}' >"$dir/nul.json"
usage_error "sbx: eval: --context @$dir/nul.json has a NUL byte at offset 9 (JSON text has none)" \
    eval --context "@$dir/nul.json" 'return context'
expect_status 0 sh -c 'printf "{\"n\": 4}" | exec "$0" eval --context @- "return context.n"' "$SBX"
expect_contains "$out" '"value":4' "context from stdin"
usage_error "sbx: $dir/none.js: No such file or directory" eval "@$dir/none.js"
usage_error "sbx: $dir/none.json: No such file or directory" \
    eval --context "@$dir/none.json" 'return 1'
usage_error "sbx: $dir: Is a directory" eval "@$dir"
expect_status 2 sh -c 'exec "$0" eval @- <"$1"' "$SBX" "$dir"
expect_eq "$err" "sbx: stdin: Is a directory" "unreadable stdin named"
# Invalid context JSON is the run's failure (1), reported in the result.
expect_status 1 "$SBX" eval --context '{bad' 'return 1'
expect_contains "$out" '"error":{"code":"SANDBOX_INVALID_ARGUMENT","message":"context is not valid JSON' \
    "invalid context"
# "--" ends the options: a snippet may then start with "-".
expect_status 0 "$SBX" eval -- '-1; return 2'
expect_contains "$out" '"value":2' "snippet after --"
# An empty snippet is a program that returns nothing.
expect_status 0 "$SBX" eval ''
expect_contains "$out" '"ok":true,"value":null' "empty snippet"
expect_status 0 "$SBX" eval --help
expect_contains "$out" 'usage: sbx eval' "eval --help on stdout"
expect_eq "$err" "" "eval --help: stderr"

# ---- sbx eval: output cap from the policy
echo '{"maxOutputBytes": 8}' >"$dir/cap.json"
expect_status 0 "$SBX" eval --policy "$dir/cap.json" 'console.log("0123456789abcdef"); return 1'
expect_contains "$out" '"stdout":"01234567","stderr":"","stdoutTruncated":true' "worker output cap"

# ---- sbx run: usage errors need no jail
usage_error 'sbx: run: expected -- CMD [ARGS...] (try --help)' run
usage_error 'sbx: run: expected -- CMD [ARGS...] (try --help)' run --
usage_error 'sbx: run: expected -- CMD [ARGS...] (try --help)' run --json --
usage_error "sbx: run: --stdin goes with --json (without it CMD reads sbx's stdin)" \
    run --stdin - -- cat
usage_error "sbx: run: unknown or incomplete option '--timeout-ms' (try --help)" run --timeout-ms
usage_error "sbx: run: unknown or incomplete option '--bogus' (try --help)" run --bogus -- true
usage_error "sbx: run: --net takes only 'loopback', got 'host'" run --net host -- true
usage_error "sbx: --pids: expected a non-negative integer, got 'x'" run --pids x -- true
usage_error "sbx: --timeout-ms: expected a non-negative integer, got '1.5'" run --timeout-ms 1.5 -- true
usage_error "sbx: --memory-bytes: expected a non-negative integer, got '-1'" \
    run --memory-bytes -1 -- true
usage_error 'sbx: policy.memoryBytes: must be an integer in 262144..1099511627776, got 5' \
    run --memory-bytes 5 -- true
usage_error 'sbx: policy.fs[0]: host path is empty in ""' run --fs '' -- true
usage_error "sbx: $dir/none.json: unable to open $dir/none.json: No such file or directory" \
    run --policy "$dir/none.json" -- true
expect_status 0 "$SBX" run --help
expect_contains "$out" 'usage: sbx run' "run --help on stdout"

if ! timeout 20 "$SBX" run -- true 2>/dev/null; then
    echo "process tier unavailable here: sbx run and --backend process checks skipped"
    finish
    exit
fi
# ---- sbx run in the jail
expect_status 0 "$SBX" run true
expect_status 3 "$SBX" run sh -c 'exit 3'
expect_status 0 "$SBX" run -- echo --json --timeout-ms
expect_eq "$out" '--json --timeout-ms' "options after -- are the command's"
expect_status 0 "$SBX" run echo --metrics "$dir/r.prom"
expect_eq "$out" "--metrics $dir/r.prom" "CMD's own --metrics is not sbx's"
[ ! -e "$dir/r.prom" ] && ok || bad "sbx took the command's --metrics"
printf '#!/bin/sh\necho hi\n' >"$dir/noexec.sh"
chmod 644 "$dir/noexec.sh"
expect_status 126 "$SBX" run --fs "$dir/noexec.sh::/x.sh" -- /x.sh
expect_eq "$err" "sbx: run: cannot execute '/x.sh': Permission denied" "not executable: 126"
expect_status 127 "$SBX" run --json -- /no/such/cmd
expect_contains "$out" '"message":"cannot execute '"'"'/no/such/cmd'"'"': No such file or directory"' \
    "--json keeps the exec failure"
expect_contains "$out" '"exitCode":127' "--json exit code"
expect_status 1 "$SBX" run --json --policy "$dir/cap.json" -- sh -c 'echo 0123456789abcdef; exit 1'
expect_contains "$out" '"stdout":"01234567","stderr":"","stdoutTruncated":true' "run output cap"
expect_contains "$out" '"limit":"output"' "output limit named"
expect_status 0 "$SBX" run --json -- cat
expect_contains "$out" '"stdout":"","stderr":""' "--json: stdin is empty without --stdin"
printf 'line one\nline two\n' >"$dir/in.txt"
expect_status 0 "$SBX" run --json --stdin "$dir/in.txt" -- cat
expect_contains "$out" '"stdout":"line one\nline two\n"' "--json --stdin FILE feeds CMD"
expect_status 0 sh -c "printf piped | timeout 20 '$SBX' run --json --stdin - -- cat"
expect_contains "$out" '"stdout":"piped"' "--json --stdin - feeds sbx's stdin"
printf 'a\000b' >"$dir/nul.bin"
expect_status 125 "$SBX" run --json --stdin "$dir/nul.bin" -- cat
expect_eq "$err" "sbx: run: --stdin takes text; $dir/nul.bin holds a NUL byte" "--stdin NUL"
expect_status 125 "$SBX" run --json --stdin "$dir/none.txt" -- cat
expect_contains "$err" "$dir/none.txt" "--stdin missing file named"
expect_status 124 "$SBX" run --json --timeout-ms 100 -- sleep 5
expect_contains "$out" '"code":"SANDBOX_TIMEOUT"' "--json timeout"
expect_status 124 "$SBX" run --policy "$dir/slow.json" -- sleep 5
expect_eq "$err" "" "a timeout is said by the status alone"

# ---- sbx eval --backend process: same options, same statuses
expect_status 0 "$SBX" eval --backend process --context "@$dir/ctx.json" "@$dir/code.js"
expect_contains "$out" '"value":42' "process: code and context from files"
expect_contains "$out" '"backend":"process"' "process backend used"
expect_status 0 "$SBX" eval --backend process --interpreter sh 'echo "$(cat)"'
expect_contains "$out" '"stdout":"null\n"' "process script: no context is null on stdin"
expect_status 1 "$SBX" eval --backend process --interpreter 'bad name' 'echo'
expect_contains "$out" "invalid interpreter name 'bad name'" "bad interpreter name"
expect_status 1 "$SBX" eval --backend process --timeout-ms 200 'while (true) {}'
expect_contains "$out" '"code":"SANDBOX_TIMEOUT"' "process: --timeout-ms"
expect_status 0 "$SBX" eval --backend process --policy "$dir/cap.json" \
    'console.log("0123456789abcdef"); return 1'
expect_contains "$out" '"stdout":"01234567",' "process output cap"
expect_contains "$out" '"stdoutTruncated":true' "process output truncated"
# ---- every --help names the defaults that apply, as the default policy itself resolves them
defaults=$(printf '{}' | "$SBX" policy check -)
field() { echo "$defaults" | sed -n "s/.*\"$1\": *\([0-9][0-9]*\).*/\1/p"; }
mib() { echo "$(($1 / 1048576)) MiB"; }
expect_eq "$(($(field memoryBytes) % 1048576 + $(field maxOutputBytes) % 1048576))" 0 \
    "defaults are whole MiB (else mib() below needs another unit)"
for cmd in "" eval run wasm conformance policy; do
    # shellcheck disable=SC2086
    expect_status 0 "$SBX" $cmd --help
    for want in "timeout $(field timeoutMs) ms" "memory $(mib "$(field memoryBytes)")" \
        "output $(mib "$(field maxOutputBytes)") per stream" "$(field pids) processes"; do
        expect_contains "$out" "$want" "sbx $cmd --help shows the default"
    done
done
finish
