#!/bin/sh
# npm's install step: builds build/sbx.node with the system C compiler against the installed
# libsbx (pkg-config sbx, else the default paths) and Node's own node_api.h. No node-gyp and
# no download. SBX_NODE_ADDON set (the source tree's tests) means it is built elsewhere.
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
flags=$(pkg-config --cflags --libs sbx 2>/dev/null || echo "-lsbx")
libdir=$(pkg-config --variable=libdir sbx 2>/dev/null || echo "")
rpath=""
[ -n "$libdir" ] && rpath="-Wl,-rpath,$libdir"
mkdir -p build
${CC:-cc} -std=c17 -D_GNU_SOURCE -O2 -fPIC -fvisibility=hidden -pthread -I"$inc" -shared \
    -o build/sbx.node src/*.c $flags $rpath
echo "sbx: built build/sbx.node"
