#!/bin/sh
# The compiled tier's cache through the CLI (docs/wasm.md, "Cache"): `sbx compile`'s usage and
# results, `sbx compile` then `sbx wasm --tier compiled` hits (the entry's mtime is touched) with
# the same output, corrupt entries are replaced and the run is right, refused directories
# (group-writable, another owner) are named on stderr and not used while the run still works,
# each with its control. SBX_CACHE_DIR points every run at a scratch directory.
. "$(dirname "$0")/lib.sh"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

need_wat2wasm
# hello.wasm prints "hello from compiled code" and a sum a loop computes, then exits 7.
cat >"$dir/hello.wat" <<'EOF2'
(module
  (import "wasi_snapshot_preview1" "fd_write" (func $write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (memory 1)
  (export "memory" (memory 0))
  (data (i32.const 64) "hello from compiled code: ")
  (func $sum (param $n i32) (result i32) (local $s i32)
    (block $done (loop $next
      (br_if $done (i32.eqz (local.get $n)))
      (local.set $s (i32.add (local.get $s) (local.get $n)))
      (local.set $n (i32.sub (local.get $n) (i32.const 1)))
      (br $next)))
    (local.get $s))
  (func (export "_start") (local $v i32) (local $p i32)
    (local.set $v (call $sum (i32.const 1000)))
    (local.set $p (i32.const 100))
    (block $d (loop $l
      (local.set $p (i32.sub (local.get $p) (i32.const 1)))
      (i32.store8 (local.get $p) (i32.add (i32.const 48) (i32.rem_u (local.get $v) (i32.const 10))))
      (local.set $v (i32.div_u (local.get $v) (i32.const 10)))
      (br_if $l (local.get $v))))
    (i32.store8 (i32.const 100) (i32.const 10))
    (i32.store (i32.const 0) (i32.const 64))
    (i32.store (i32.const 4) (i32.const 26))
    (i32.store (i32.const 8) (local.get $p))
    (i32.store (i32.const 12) (i32.sub (i32.const 101) (local.get $p)))
    (drop (call $write (i32.const 1) (i32.const 0) (i32.const 2) (i32.const 16)))
    (call $exit (i32.const 7))))
EOF2
timeout 20 wat2wasm "$dir/hello.wat" -o "$dir/hello.wasm" || bad "wat2wasm hello.wat failed"
hello="$dir/hello.wasm"
hello_out="hello from compiled code: 500500"
export SBX_CACHE_DIR="$dir/cache"

# ---- sbx compile: usage and bad input
expect_status 2 "$SBX" compile
expect_eq "$err" "sbx: compile: expected one MODULE.wasm (try --help)" "compile: no module"
expect_status 2 "$SBX" compile "$hello" "$hello"
expect_eq "$err" "sbx: compile: expected one MODULE.wasm (try --help)" "compile: two modules"
expect_status 2 "$SBX" compile --bogus
expect_eq "$err" "sbx: compile: unknown option '--bogus' (try --help)" "compile: bad option"
expect_status 0 "$SBX" compile --help
expect_contains "$out" "usage: sbx compile [--hot] MODULE.wasm" "compile --help"
expect_status 125 "$SBX" compile "$dir/none.wasm"
expect_contains "$err" "No such file or directory" "compile: missing file"
printf 'not wasm' >"$dir/bad.wasm"
expect_status 125 "$SBX" compile "$dir/bad.wasm"
expect_contains "$err" "SAND_WASM_INVALID_MODULE" "compile: invalid module"

# ---- refused directories: named on stderr, not used, the run still right; controls use them
mkdir -m 0770 "$dir/gw"
expect_status 7 env SBX_CACHE_DIR="$dir/gw" "$SBX" wasm --tier compiled "$hello"
expect_eq "$out" "$hello_out" "group-writable dir: the run is right"
expect_contains "$err" "sbx: wasm: cache not used: cache directory $dir/gw: writable by group or others (mode 0770)" \
    "group-writable dir: named"
expect_eq "$(ls -A "$dir/gw")" "" "group-writable dir: nothing written"
expect_status 125 env SBX_CACHE_DIR="$dir/gw" "$SBX" compile "$hello"
expect_contains "$err" "writable by group or others" "compile: group-writable dir refused"
chmod 0700 "$dir/gw"
expect_status 7 env SBX_CACHE_DIR="$dir/gw" "$SBX" wasm --tier compiled "$hello"
expect_eq "$err" "" "control: a 0700 dir is used without a word"
if [ "$(id -u)" = 0 ]; then
    mkdir -m 0700 "$dir/foreign"
    chown 65534:65534 "$dir/foreign"
    expect_status 7 env SBX_CACHE_DIR="$dir/foreign" "$SBX" wasm --tier compiled "$hello"
    expect_eq "$out" "$hello_out" "foreign dir: the run is right"
    expect_contains "$err" "owned by uid 65534, not by this user" "foreign dir: named"
    expect_eq "$(ls -A "$dir/foreign")" "" "foreign dir: nothing written"
    chown 0:0 "$dir/foreign"
    expect_status 7 env SBX_CACHE_DIR="$dir/foreign" "$SBX" wasm --tier compiled "$hello"
    expect_eq "$err" "" "control: the same dir owned by us"
else
    echo "SKIP foreign-owner directory: chown needs root"
fi
ln -s "$dir/gw" "$dir/link"
expect_status 7 env SBX_CACHE_DIR="$dir/link" "$SBX" wasm --tier compiled "$hello"
expect_contains "$err" "is a symlink or not a directory" "symlinked dir: named"
expect_status 7 "$SBX" wasm --tier compiled --no-cache "$hello"
expect_eq "$err" "" "--no-cache"
expect_status 7 "$SBX" wasm --tier interp "$hello"
expect_eq "$out" "$hello_out" "interp: the reference output"

# ---- hits: `sbx compile` fills the entry, `sbx wasm --tier compiled` uses it
rm -rf "$SBX_CACHE_DIR"
expect_status 0 "$SBX" compile "$hello"
entry=${out#compiled: }
expect_contains "$out" "compiled: $SBX_CACHE_DIR/" "compile: a new entry"
expect_eq "$(stat -c %a "$entry")" "600" "entry mode"
expect_eq "$(stat -c %a "$SBX_CACHE_DIR")" "700" "directory mode"
expect_status 0 "$SBX" compile "$hello"
expect_eq "$out" "cached: $entry" "compile again: already cached"
# hit: the run touches the entry's mtime in place (a miss would rename a new file over it);
# same output as the interpreter
touch -d @1000000000 "$entry"
inode=$(stat -c %i "$entry")
expect_status 7 "$SBX" wasm --tier compiled "$hello"
expect_eq "$out" "$hello_out" "hit: output"
expect_eq "$err" "" "hit: no diagnostic"
[ "$(stat -c %Y "$entry")" -gt 1000000000 ] && ok || bad "hit: the entry's mtime was not touched"
expect_eq "$(stat -c %i "$entry")" "$inode" "hit: the entry was read, not rewritten"
cp "$entry" "$dir/good.entry"

# corrupt entries: each is detected, replaced by a fresh one, and the run is right
corrupt() { # LABEL PYTHON-EXPRESSION-ON-b
    cp "$dir/good.entry" "$entry"
    python3 -c "import sys; b = bytearray(open(sys.argv[1], 'rb').read()); $2; open(sys.argv[1], 'wb').write(b)" "$entry"
    touch -d @1000000000 "$entry"
    expect_status 7 "$SBX" wasm --tier compiled "$hello"
    expect_eq "$out" "$hello_out" "$1: output"
    cmp -s "$entry" "$dir/good.entry" && ok || bad "$1: entry not replaced by a valid one"
}
corrupt "flipped payload byte" 'b[100] ^= 1'
corrupt "truncated" 'del b[len(b) // 2:]'
corrupt "wrong key in header" 'b[20] ^= 0x80'
corrupt "other format version" 'b[8] = 9'
# a symlinked entry (to a valid entry) is refused and replaced by a regular file
mv "$entry" "$dir/aside.entry"
ln -s "$dir/aside.entry" "$entry"
expect_status 7 "$SBX" wasm --tier compiled "$hello"
expect_eq "$out" "$hello_out" "symlinked entry: output"
[ -f "$entry" ] && [ ! -L "$entry" ] && ok || bad "symlinked entry: not replaced"
# --no-cache neither reads nor writes
rm -f "$entry"
expect_status 7 "$SBX" wasm --tier compiled --no-cache "$hello"
[ ! -e "$entry" ] && ok || bad "--no-cache wrote an entry"
expect_status 7 "$SBX" wasm --tier compiled "$hello"
[ -f "$entry" ] && ok || bad "a miss stores the entry"
finish
