#!/bin/sh
# The upgrade of a module's kept hot code after `sbx wasm` (docs/wasm.md, "The upgrade"): a
# default run of a large module (hot-only tier-up) keeps its hot batch in the cache and, having
# paid for it, starts `sbx compile --hot` in the background; the entry becomes an upgraded image
# with nobody else calling it, and the next run, with the same result, finds it upgraded.
# Controls: --no-cache keeps nothing; `sbx compile --hot` before any run finds nothing kept.
. "$(dirname "$0")/lib.sh"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
need_wat2wasm
export SBX_CACHE_DIR="$dir/cache"

# big.wasm: $hot sums i*i below n; _start calls it 10,000 times with n = 100,000 (long enough
# for tier-up even in baseline code: 2,000 calls ended in 0.2 s, before it) and exits with
# 1 + the total mod 113; 2,000 padding functions (never called) put it over the 64 KiB of code
# from which auto compiles only hot functions.
python3 - "$dir/big.wat" <<'EOF2'
import sys
pad = "\n".join(
    "  (func (param i32) (result i32) local.get 0 "
    + " ".join(f"i32.const {i * 10 + j} i32.add" for j in range(10)) + ")"
    for i in range(2000))
open(sys.argv[1], "w").write(f"""(module
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (memory 1)
  (export "memory" (memory 0))
  (func $hot (param $n i32) (result i32) (local $i i32) (local $s i32)
    (block $done (loop $next
      (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
      (local.set $s (i32.add (local.get $s) (i32.mul (local.get $i) (local.get $i))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $next)))
    (local.get $s))
  (func (export "_start") (local $k i32) (local $t i32)
    (block $done (loop $next
      (br_if $done (i32.ge_u (local.get $k) (i32.const 10000)))
      (local.set $t (i32.add (local.get $t) (call $hot (i32.const 100000))))
      (local.set $k (i32.add (local.get $k) (i32.const 1)))
      (br $next)))
    (call $exit (i32.add (i32.rem_u (local.get $t) (i32.const 113)) (i32.const 1))))
{pad})
""")
EOF2
timeout 20 wat2wasm "$dir/big.wat" -o "$dir/big.wasm" || bad "wat2wasm big.wat failed"
big="$dir/big.wasm"
code=$(python3 -c "s = sum(i * i for i in range(100000)) % 2**32; print(s * 10000 % 2**32 % 113 + 1)")

# upgraded: 1 when the cache's one entry is an upgraded partial image (image.c's flags, bits 1
# and 2, at 36 bytes into the image), 0 when it is not, "none" without an entry.
upgraded() {
    python3 - "$SBX_CACHE_DIR" <<'EOF2'
import glob, struct, sys
e = glob.glob(sys.argv[1] + "/*.sbxc")
if len(e) != 1:
    print("none")
else:
    b = open(e[0], "rb").read()
    at = b.find(b"SBXJITIM")
    print(int(at >= 0 and struct.unpack_from("<I", b, at + 36)[0] & 6 == 6))
EOF2
}

expect_status 0 "$SBX" compile --hot "$big"
expect_eq "$out" "not upgraded: no hot code kept for this module" "compile --hot before any run"
expect_status "$code" "$SBX" wasm --no-cache "$big"
expect_eq "$(upgraded)" "none" "--no-cache kept nothing"

expect_status "$code" "$SBX" wasm "$big"
i=0
while [ "$(upgraded)" != 1 ] && [ $i -lt 300 ]; do
    sleep 0.1
    i=$((i + 1))
done
expect_eq "$(upgraded)" 1 "the kept hot code was upgraded after the run, by no one else"
expect_status "$code" "$SBX" wasm "$big"
expect_status 0 "$SBX" compile --hot "$big"
expect_eq "$out" "not upgraded: its kept hot code is upgraded already" "the next run kept it"
finish
