#!/bin/sh
# The README's quick start, run as written: every ```sh block that follows a
# "<!-- readme-test -->" line is one shell script, run from the repository root after the build
# (the suite's own build, so `make` itself is not run here), and must exit 0 with what its
# comments promise. The README is checked for its length too (at most 250 lines, #29 item 8).
. "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")/../.." && pwd)
cd "$here" || exit 1
BUILD=${BUILD:-build}
if [ "$BUILD" != build ]; then
    echo "the README's commands name build/: skipped for BUILD=$BUILD"
    finish
    exit
fi
blocks=$(mktemp -d)
trap 'rm -rf "$blocks"; rm -f "$tmp_err"' EXIT
awk -v dir="$blocks" '
    /^<!-- readme-test -->$/ { armed = 1; next }
    armed && /^```sh$/ { n++; file = dir "/" n ".sh"; inside = 1; armed = 0; next }
    inside && /^```$/ { inside = 0; close(file); next }
    inside { print > file }
' README.md
count=$(ls "$blocks" | wc -l)
[ "$count" -ge 3 ] && ok || bad "found $count readme-test blocks, want at least 3"
[ "$(wc -l <README.md)" -le 250 ] && ok || bad "README.md has more than 250 lines"
T=300
i=1
while [ -f "$blocks/$i.sh" ]; do
    expect_status 0 sh -e "$blocks/$i.sh"
    case $i in
    1)
        expect_contains "$out" '"value":42' "block 1: worker eval"
        expect_contains "$out" 'uid 1000' "block 1: sbx run"
        expect_contains "$out" '"value":42,' "block 1: process eval"
        expect_contains "$out" '"timeoutMs": 500' "block 1: policy check"
        ;;
    2) expect_contains "$out" "42
hi" "block 2: Node.js" ;;
    3) expect_contains "$out" "42
hi" "block 3: Python" ;;
    esac
    i=$((i + 1))
done
finish
