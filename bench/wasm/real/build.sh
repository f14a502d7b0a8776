#!/bin/sh
# bench/wasm/real/build.sh SRC OUT PROGRAM...: builds each real program (bzip2, sqlite, lua, zlib,
# zexample) from the Debian sources in SRC with its driver here, natively (gcc -O2) into
# OUT/P.native and for wasm32-wasi (clang -O2, wasi-libc) into OUT/P.wasm, with the same -D
# flags; a binary newer than all its inputs is kept, so a rerun rebuilds nothing.
set -eu
SRC=$(cd "$1" && pwd)
OUT=$2
shift 2
DIR=$(cd "$(dirname "$0")" && pwd)
WASM="clang --target=wasm32-wasi --sysroot=/usr -O2 -Wl,--strip-debug -Wl,-z,stack-size=1048576"
NATIVE="${CC:-gcc} -O2"
mkdir -p "$OUT"

one() { # one DIRGLOB: the unpacked source directory of a package
    for d in "$SRC"/$1; do [ -d "$d" ] && echo "$d" && return; done
    echo "build.sh: no $1 in $SRC" >&2
    exit 1
}

fresh() { # fresh TARGET INPUT...: TARGET exists and is newer than every INPUT
    t=$1
    shift
    [ -e "$t" ] || return 1
    for f in "$@"; do [ "$f" -nt "$t" ] && return 1; done
    return 0
}

build() { # build NAME "FLAGS" "HEADERS" SOURCE...: both binaries of NAME, each unless fresh
    name=$1
    flags=$2
    deps="$3 $0"
    shift 3
    # shellcheck disable=SC2086 # flags and deps are words
    fresh "$OUT/$name.native" "$@" $deps || $NATIVE $flags -o "$OUT/$name.native" "$@" -lm
    # shellcheck disable=SC2086
    fresh "$OUT/$name.wasm" "$@" $deps || $WASM $flags $WASM_ONLY -o "$OUT/$name.wasm" "$@" -lm
}

bzip2() {
    b=$(one "bzip2-[0-9]*")
    build bzip2 "-DBZ_NO_STDIO -I$b" "" "$DIR/bzip2_main.c" "$b/blocksort.c" "$b/huffman.c" \
        "$b/crctable.c" "$b/randtable.c" "$b/compress.c" "$b/decompress.c" "$b/bzlib.c"
}

sqlite() { # the amalgamation (sqlite3.c) is generated once by the source's own build (tclsh)
    s=$(one "sqlite3-[0-9]*")
    a=$SRC/sqlite3-amalgamation
    if ! [ -f "$a/sqlite3.c" ]; then
        mkdir -p "$a"
        (cd "$a" && "$s/configure" --disable-tcl >configure.log 2>&1 && make sqlite3.c >make.log 2>&1) ||
            { echo "build.sh: SQLite's amalgamation failed: see $a/*.log" >&2; exit 1; }
    fi
    # OS_OTHER: sqlite_vfs.c is the OS layer; double, not long double (wasm's is software f128).
    build sqlite "-DSQLITE_OS_OTHER=1 -DSQLITE_THREADSAFE=0 -DSQLITE_TEMP_STORE=3 \
        -DSQLITE_OMIT_LOAD_EXTENSION -DLONGDOUBLE_TYPE=double -I$a" "" \
        "$DIR/sqlite_main.c" "$DIR/sqlite_vfs.c" "$a/sqlite3.c"
}

lua() {
    l=$(one "lua5.4-[0-9]*")/src
    inc=$OUT/lua-include
    mkdir -p "$inc"
    # Debian's luaconf.h names a header its build generates; only package paths use it.
    echo '#define DEB_HOST_MULTIARCH "none"' >"$inc/lua5.4-deb-multiarch.h"
    fresh "$inc/lua_script.h" "$DIR/bench.lua" ||
        sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$/\\n"/' "$DIR/bench.lua" \
            >"$inc/lua_script.h"
    set --
    for f in lapi lcode lctype ldebug ldo ldump lfunc lgc llex lmem lobject lopcodes lparser \
        lstate lstring ltable ltm lundump lvm lzio lauxlib lbaselib lmathlib lstrlib ltablib \
        lutf8lib; do
        set -- "$@" "$l/$f.c"
    done
    WASM_ONLY="-I$DIR/wasi"
    build lua "-include $DIR/lua_nojmp.h -I$l -I$inc" "$DIR/lua_nojmp.h $DIR/wasi/setjmp.h $inc/lua_script.h" \
        "$DIR/lua_main.c" "$@"
}

zlib_sources() { # zlib_sources DIR: the library's files (no gz* file I/O)
    for f in adler32 compress crc32 deflate inffast inflate inftrees trees uncompr zutil; do
        printf '%s ' "$1/$f.c"
    done
}

zlib() { # minigzip -9's work (zlib_main.c)
    z=$(one "zlib-[0-9]*")
    # shellcheck disable=SC2046 # one word per file
    build zlib "-DMB=8 -I$z" "" "$DIR/zlib_main.c" $(zlib_sources "$z")
}

zexample() { # zlib's own test/example.c: a short program (milliseconds), Z_SOLO: no gz* files
    z=$(one "zlib-[0-9]*")
    # shellcheck disable=SC2046
    build zexample "-DZ_SOLO -I$z" "" "$z/test/example.c" $(zlib_sources "$z")
}

for p in "$@"; do
    WASM_ONLY=""
    "$p"
done
