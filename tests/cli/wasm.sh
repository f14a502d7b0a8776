#!/bin/sh
# `sbx wasm`: a WASI command's argv, environment and exit code, --invoke's typed arguments and
# results, and the exit statuses (guest's code, 124 timeout, 134 trap, 125 sbx failed, 2 usage).
# The modules are built here from text with wat2wasm (wabt, deps/debian-packages.txt).
. "$(dirname "$0")/lib.sh"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

need_wat2wasm

# echo.wasm prints its argv, a "--" line and its environment, one per line, and exits with argc.
cat >"$dir/echo.wat" <<'EOF'
(module
  (import "wasi_snapshot_preview1" "args_sizes_get" (func $args_sizes (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "args_get" (func $args_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "environ_sizes_get" (func $env_sizes (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "environ_get" (func $env_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (memory 1)
  (export "memory" (memory 0))
  (func $dump (param $n i32) (local $i i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (if (i32.eqz (i32.load8_u offset=8192 (local.get $i)))
          (then (i32.store8 offset=8192 (local.get $i) (i32.const 10))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (i32.store (i32.const 16) (i32.const 8192))
    (i32.store (i32.const 20) (local.get $n))
    (drop (call $write (i32.const 1) (i32.const 16) (i32.const 1) (i32.const 24))))
  (func (export "_start")
    (drop (call $args_sizes (i32.const 0) (i32.const 4)))
    (drop (call $args_get (i32.const 1024) (i32.const 8192)))
    (call $dump (i32.load (i32.const 4)))
    (i32.store8 (i32.const 8192) (i32.const 45))
    (i32.store8 (i32.const 8193) (i32.const 45))
    (i32.store8 (i32.const 8194) (i32.const 0))
    (call $dump (i32.const 3))
    (drop (call $env_sizes (i32.const 8) (i32.const 12)))
    (drop (call $env_get (i32.const 1024) (i32.const 8192)))
    (call $dump (i32.load (i32.const 12)))
    (call $exit (i32.load (i32.const 0)))))
EOF
cat >"$dir/calc.wat" <<'EOF'
(module
  (func (export "add") (param i32 i32) (result i32) (i32.add (local.get 0) (local.get 1)))
  (func (export "mul64") (param i64 i64) (result i64) (i64.mul (local.get 0) (local.get 1)))
  (func (export "half32") (param f32) (result f32) (f32.div (local.get 0) (f32.const 2)))
  (func (export "sqrt") (param f64) (result f64) (f64.sqrt (local.get 0)))
  (func (export "pair") (result i32 i64) (i32.const -1) (i64.const 9007199254740993))
  (func (export "none"))
  (func (export "boom") (result i32) (unreachable))
  (func (export "spin") (loop $l (br $l)))
  (global (export "g") i32 (i32.const 1)))
EOF
for m in echo calc; do
    timeout 20 wat2wasm "$dir/$m.wat" -o "$dir/$m.wasm" || bad "wat2wasm $m.wat failed"
done
echo=$dir/echo.wasm
calc=$dir/calc.wasm
nl='
'

# ---- a WASI command: ARGS after MODULE are the guest's, even ones that look like sbx options.
expect_status 3 sh -c 'cd "$1" && exec "$0" wasm echo.wasm a "b c"' "$SBX" "$dir"
expect_eq "$out" "echo.wasm${nl}a${nl}b c${nl}--" "argv, exit code = argc"
expect_status 5 sh -c 'cd "$1" && exec "$0" wasm echo.wasm --metrics m.prom --help -x' "$SBX" "$dir"
expect_eq "$out" "echo.wasm${nl}--metrics${nl}m.prom${nl}--help${nl}-x${nl}--" "options after MODULE"
[ ! -e "$dir/m.prom" ] && ok || bad "a guest's --metrics argument was taken by sbx"
expect_status 2 sh -c 'cd "$1" && exec "$0" wasm -- echo.wasm --x' "$SBX" "$dir"
expect_eq "$out" "echo.wasm${nl}--x${nl}--" "-- before MODULE"
# --metrics among sbx's own options still counts, and --env reaches the guest.
expect_status 1 "$SBX" wasm --env A=1 --metrics "$dir/w.prom" --env 'B=x y=z' --env C= "$echo"
expect_eq "$out" "$echo${nl}--${nl}A=1${nl}B=x y=z${nl}C=" "environment"
expect_contains "$(cat "$dir/w.prom" 2>/dev/null)" 'sandbox_runs_total{backend="wasm"' "metrics file"
# Quotes, backslashes and control characters in a value reach the guest unchanged.
tab=$(printf '\t')
expect_status 1 "$SBX" wasm --env "Q=say \"hi\" \\ back${tab}tab" "$echo"
expect_eq "$out" "$echo${nl}--${nl}Q=say \"hi\" \\ back${tab}tab" "--env value escaped into the policy"

# ---- --invoke: typed arguments and results
invoke() { # WANT-STATUS WANT-STDOUT EXPORT ARGS...
    st=$1
    res=$2
    name=$3
    shift 3
    expect_status "$st" "$SBX" wasm --invoke "$name" "$calc" "$@"
    expect_eq "$out" "$res" "--invoke $name $*"
}
invoke 0 42 add 2 40
invoke 0 15 add 0x10 -1
invoke 0 -2147483648 add 2147483647 1
invoke 0 12884901888 mul64 4294967296 3
invoke 0 1.5 half32 3
invoke 0 1.4142135623730951 sqrt 2
invoke 0 "-1${nl}9007199254740993" pair
invoke 0 "" none
invoke 134 "" boom
expect_eq "$err" "sbx: wasm: SAND_WASM_TRAP: unreachable" "trap message"
invoke 125 "" add 1
expect_eq "$err" "sbx: wasm: export takes 2 arguments, got 1" "argument count"
invoke 125 "" add 1 x
expect_eq "$err" "sbx: wasm: argument 2: not a number: 'x'" "not a number"
invoke 125 "" sqrt ''
expect_eq "$err" "sbx: wasm: argument 1: not a number: ''" "empty number"
invoke 125 "" nope
expect_eq "$err" "sbx: wasm: cannot invoke 'nope': no such export" "no such export"
invoke 125 "" g
expect_eq "$err" "sbx: wasm: cannot invoke 'g': no such export" "a global is not a function"
expect_status 134 "$SBX" wasm --fuel 1000 --invoke spin "$calc"
expect_eq "$err" "sbx: wasm: SAND_WASM_FUEL_EXHAUSTED: guest ran out of fuel (1000)" "fuel"
expect_status 124 "$SBX" wasm --timeout-ms 100 --invoke spin "$calc"
expect_eq "$err" "sbx: wasm: SANDBOX_TIMEOUT: guest exceeded its time limit of 100 ms" "timeout"
# Options edit the --policy file's policy wherever --policy stands.
echo '{"timeoutMs": 60000}' >"$dir/long.json"
expect_status 124 "$SBX" wasm --timeout-ms 100 --policy "$dir/long.json" --invoke spin "$calc"
echo '{"timeoutMs": 100}' >"$dir/short.json"
expect_status 124 "$SBX" wasm --policy "$dir/short.json" --invoke spin "$calc"
expect_contains "$err" "time limit of 100 ms" "policy file's timeout"

# ---- a memory.grow the policy refuses: the guest sees -1 and exits with its own status (here
# grow's result + 1), and sbx says on one stderr line which cap refused it.
cat >"$dir/grow.wat" <<'EOF'
(module
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (memory 1)
  (func (export "_start") (call $exit (i32.add (i32.const 1) (memory.grow (i32.const 2000))))))
EOF
timeout 20 wat2wasm "$dir/grow.wat" -o "$dir/grow.wasm" || bad "wat2wasm grow.wat failed"
refused="sbx: wasm: memory.grow or table.grow refused: the policy caps memory at"
expect_status 0 "$SBX" wasm "$dir/grow.wasm"
expect_eq "$err" "$refused 64 MiB (memoryBytes)" "refused grow, default cap"
expect_status 0 "$SBX" wasm --memory-bytes 1048576 "$dir/grow.wasm"
expect_eq "$err" "$refused 1 MiB (memoryBytes)" "refused grow, --memory-bytes"
expect_status 0 "$SBX" wasm --memory-bytes 300000 "$dir/grow.wasm"
expect_eq "$err" "$refused 300000 bytes (memoryBytes)" "cap in bytes"
# Control: under a cap that holds 2000 more pages the grow succeeds (old size 1) and sbx is quiet.
expect_status 2 "$SBX" wasm --memory-bytes 1073741824 "$dir/grow.wasm"
expect_eq "$err" "" "granted grow says nothing"

# ---- modules sbx cannot run: 125 and the reason
expect_status 125 "$SBX" wasm "$dir/none.wasm"
expect_eq "$err" "sbx: $dir/none.wasm: No such file or directory" "missing module"
printf 'garbage' >"$dir/bad.wasm"
expect_status 125 "$SBX" wasm "$dir/bad.wasm"
expect_contains "$err" "sbx: wasm: $dir/bad.wasm: SAND_WASM_INVALID_MODULE: " "invalid module"
expect_status 125 "$SBX" wasm "$calc"
expect_eq "$err" 'sbx: wasm: SAND_WASM_EXPORT_NOT_FOUND: module exports no function "_start"' \
    "no _start"

# ---- usage errors: 2 and one line
usage_error() { # WANT-STDERR ARGS...
    msg=$1
    shift
    expect_status 2 "$SBX" wasm "$@"
    expect_eq "$err" "$msg" "sbx wasm $*"
}
usage_error 'sbx: wasm: expected MODULE.wasm (try --help)'
usage_error 'sbx: wasm: expected MODULE.wasm (try --help)' --fuel 5
usage_error "sbx: wasm: unknown or incomplete option '--bogus' (try --help)" --bogus "$echo"
usage_error "sbx: wasm: unknown or incomplete option '--invoke' (try --help)" --invoke
# Bad option values are usage errors (2, as wasmtime and sbx eval/run), the option named.
bad_value() { # WANT-STDERR ARGS...
    msg=$1
    shift
    expect_status 2 "$SBX" wasm "$@"
    expect_eq "$err" "$msg" "sbx wasm $*"
    expect_eq "$out" "" "sbx wasm $*: nothing ran"
}
bad_value "sbx: wasm: --env wants K=V, got 'NOEQ'" --env NOEQ "$echo"
bad_value "sbx: wasm: --env wants K=V, got '=v'" --env =v "$echo"
bad_value "sbx: --fuel: expected a non-negative integer, got 'lots'" --fuel lots "$echo"
bad_value "sbx: --cpu-percent: expected a non-negative integer, got '50%'" --cpu-percent 50% "$echo"
bad_value "sbx: --memory-bytes: expected a non-negative integer, got '-1'" --memory-bytes -1 "$echo"
expect_status 0 "$SBX" wasm --help
expect_contains "$out" 'usage: sbx wasm' "wasm --help on stdout"

# ---- values the policy rejects: 125 (sbx failed), the policy's message
expect_status 125 "$SBX" wasm --timeout-ms 0 "$echo"
expect_eq "$err" 'sbx: policy.timeoutMs: must be an integer in 1..3600000, got 0' "timeout range"
expect_status 125 "$SBX" wasm --cpu-percent 101 "$echo"
expect_eq "$err" 'sbx: policy.cpuPercent: must be an integer in 1..100, got 101' "cpu range"
expect_status 125 "$SBX" wasm --allow-outbound nope "$echo"
expect_eq "$err" 'sbx: policy.net.outbound[0]: expected "host:port", got "nope"' "outbound pattern"
expect_status 125 "$SBX" wasm --policy "$dir/none.json" "$echo"
expect_contains "$err" "$dir/none.json" "missing policy named"
expect_status 125 "$SBX" wasm --dir "$dir/no/such" "$echo"
expect_contains "$err" "cannot open preopen $dir/no/such: No such file or directory" "missing --dir"
# A long --dir is passed whole (it used to be cut at 4 KiB into invalid JSON); the message is
# cut at the error buffer's size.
long=$(python3 -c 'print("/" + "d" * 5000)')
expect_status 125 "$SBX" wasm --dir "$long" "$echo"
expect_contains "$err" "cannot open preopen /dddddddddd" "long --dir reaches the preopen"
longv=$(python3 -c 'print("v" * 9000)')
expect_status 1 "$SBX" wasm --env "K=$longv" "$echo"
expect_eq "$out" "$echo${nl}--${nl}K=$longv" "long --env value passed whole"
# Leading zeros are a decimal number, not invalid policy JSON.
expect_status 134 "$SBX" wasm --fuel 0100 --invoke spin "$calc"
expect_contains "$err" "ran out of fuel (100)" "--fuel 0100 is 100"

# ---- --tier: the compiled tier (LLVM) gives the interpreter's results, traps and limits
expect_status 3 sh -c 'cd "$1" && exec "$0" wasm --tier compiled echo.wasm a "b c"' "$SBX" "$dir"
expect_eq "$out" "echo.wasm${nl}a${nl}b c${nl}--" "compiled: argv, WASI, exit code"
expect_status 0 "$SBX" wasm --tier compiled --invoke pair "$calc"
expect_eq "$out" "-1${nl}9007199254740993" "compiled: multi-value results"
expect_status 134 "$SBX" wasm --tier compiled --invoke boom "$calc"
expect_eq "$err" "sbx: wasm: SAND_WASM_TRAP: unreachable" "compiled: trap message"
expect_status 124 "$SBX" wasm --tier compiled --timeout-ms 300 --invoke spin "$calc"
expect_contains "$err" "SANDBOX_TIMEOUT" "compiled: a call-free loop is interrupted"
expect_status 134 "$SBX" wasm --tier compiled --fuel 1000 --invoke spin "$calc"
expect_eq "$err" "sbx: wasm: SAND_WASM_FUEL_EXHAUSTED: guest ran out of fuel (1000)" \
    "compiled: fuel runs in the interpreter, same count"
expect_status 0 "$SBX" wasm --tier interp --invoke add "$calc" 2 40
expect_eq "$out" "42" "--tier interp"
expect_status 125 "$SBX" wasm --tier jit "$echo"
expect_eq "$err" 'sbx: policy.wasm.tier: must be "auto", "interp" or "compiled", got "jit"' "bad tier"
# SIMD runs in the compiled tier too (src/wasm/jit/emit_simd*.c), with the interpreter's result.
cat >"$dir/simd.wat" <<'EOF'
(module (func (export "lane") (result i32) (i32x4.extract_lane 1 (v128.const i32x4 1 2 3 4))))
EOF
timeout 20 wat2wasm "$dir/simd.wat" -o "$dir/simd.wasm" || bad "wat2wasm simd.wat failed"
expect_status 0 "$SBX" wasm --tier compiled --invoke lane "$dir/simd.wasm"
expect_eq "$out" "2" "compiled runs SIMD"
expect_status 0 "$SBX" wasm --tier interp --invoke lane "$dir/simd.wasm"
expect_eq "$out" "2" "the interpreter runs SIMD"
finish
