#!/bin/sh
# install-copy.sh BUILD STAGE PREFIX [MAKE-VAR=VALUE...]: `make install PREFIX=PREFIX` for tests,
# from a copy of BUILD's build state in STAGE (a new directory). PREFIX is built into libsbx
# (js_module_path.h -> loader.o), so an install at another PREFIX rebuilds: in BUILD that would
# change the tree other suites are running from (and, under `make coverage`, restamp loader.c's
# notes so that its counters are dropped). The copy keeps mtimes and leaves counter files out.
set -eu
[ $# -ge 3 ] || { echo "usage: $0 BUILD STAGE PREFIX [VAR=VALUE...]" >&2; exit 2; }
here=$(cd "$(dirname "$0")/.." && pwd)
build=$1 stage=$2 prefix=$3
shift 3
case $build in /*) ;; *) build=$here/$build ;; esac
mkdir "$stage"
tar -C "$build" --exclude='*.gcda' -cf - .deps-ok gen lib libsbx.a libsbx.so sbx src |
    tar -C "$stage" -xpf -
exec make -s -C "$here" "$@" BUILD="$stage" install PREFIX="$prefix"
