#!/bin/sh
# npm's install step: builds build/sbx.node with the system C compiler against the installed
# libsbx (pkg-config sbx), else the source tree it sits in (after `make`), else the default paths,
# and Node's own node_api.h. No node-gyp and no download. SBX_NODE_ADDON set (the source tree's
# tests) means it is built elsewhere.
set -eu
cd "$(dirname "$0")"
[ -n "${SBX_NODE_ADDON:-}" ] && exit 0
inc=""
for d in "$(dirname "$(dirname "$(command -v node)")")/include/node" /usr/include/node /usr/local/include/node; do
    if [ -f "$d/node_api.h" ]; then inc=$d; break; fi
done
if [ -z "$inc" ]; then
    echo "sbx: node_api.h not found (install the nodejs headers, e.g. Debian's libnode-dev)" >&2
    exit 1
fi
mkdir -p build
tree=$(cd ../.. && pwd)
if flags=$(pkg-config --cflags --libs sbx 2>/dev/null); then
    libdir=$(pkg-config --variable=libdir sbx)
    rpath="-Wl,-rpath,$libdir"
elif [ -f "$tree/include/sbx.h" ] && [ -f "$tree/src/core/sandbox.c" ]; then
    # In a clone of the source tree without an installed libsbx: build against the tree's own
    # build/, found beside the addon through a libsbx.so.0 link (the addon's DT_NEEDED).
    if [ ! -f "$tree/build/libsbx.so" ]; then
        echo "sbx: no libsbx: run make in $tree first (or make install, for pkg-config sbx)" >&2
        exit 1
    fi
    ln -sf "$tree/build/libsbx.so" build/libsbx.so.0
    flags="-I$tree/include -L$tree/build -lsbx"
    rpath='-Wl,-rpath,$ORIGIN'
else
    flags="-lsbx"
    rpath=""
fi
${CC:-cc} -std=c17 -D_GNU_SOURCE -O2 -fPIC -fvisibility=hidden -pthread -I"$inc" -shared \
    -Wl,-z,nodelete -o build/sbx.node src/*.c $flags $rpath
echo "sbx: built build/sbx.node"
