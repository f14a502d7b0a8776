#!/bin/sh
# Installs libsbx into a scratch prefix and builds examples/embed against it with pkg-config,
# as an embedder would, then runs it: all three tiers through the public header only.
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$here/tests/cli/lib.sh"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
prefix=$scratch/prefix
stage=$scratch/build
# The prefix stays private (mode 0700, as mktemp -d makes it): the jail's child, nobody under a
# root host, cannot reach it, so the process tier must not need it for a command and must bind
# the engine module from the host's side for its sbx-js guest (#23 item 5).
[ "$(stat -c %a "$scratch")" = 700 ] && ok || bad "scratch is not private"
BUILD=${BUILD:-build}
case $BUILD in /*) tree=$BUILD ;; *) tree=$here/$BUILD ;; esac
# Installed from a copy of the build state (scripts/install-copy.sh), never rebuilding the tree
# under test: the check at the end holds it to that.
watched="gen/js_module_path.h src/core/engine_module.o src/jail/guest.o libsbx.a libsbx.so sbx lib/sbx/libsbx-js.so
    lib/sbx/libsbx-js.stencil"
stamps() { (cd "$tree" && stat -c '%n %y %a' $watched 2>&1); }
before=$(stamps)
# A sanitized library needs a sanitized embedder (the runtime must come first).
san=""
[ "${SAN:-0}" = 1 ] && san="-fsanitize=address,undefined"
# Under umask 000, as the coverage suites run: what the build writes must not take its modes from it.
T=300
expect_status 0 sh -c "umask 000 && exec sh '$here/scripts/install-copy.sh' '$tree' '$stage' \
    '$prefix' SAN='${SAN:-0}'"
T=30
[ -f "$prefix/lib/pkgconfig/sbx.pc" ] && ok || bad "sbx.pc not installed"
[ -f "$prefix/include/sbx.h" ] && ok || bad "sbx.h not installed"
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
expect_status 0 sh -c "cc -std=c11 -Wall -Wextra -Werror -o '$prefix/embed' \
    $san '$here/examples/embed/embed.c' \$(pkg-config --cflags --libs sbx)"
expect_status 0 env LD_LIBRARY_PATH="$prefix/lib" "$prefix/embed"
expect_contains "$out" 'worker: {"ok":true,"value":{"sum":3},"stdout":"adding\n"' "worker via .so"
expect_contains "$out" 'hello from the jail' "process via .so"
expect_contains "$out" 'process: {"ok":true,"value":{"sum":3},"stdout":"adding\n"' "process JS via .so"
expect_contains "$out" 'hello from wasm' "wasm via .so"
# The shared library loads the engine module installed beside it ($libdir/sbx/libsbx-js.so).
expect_status 0 env LD_LIBRARY_PATH="$prefix/lib" LD_DEBUG=files "$prefix/embed"
expect_contains "$err" "file=$prefix/lib/sbx/libsbx-js.so" "engine module from the prefix"
# The static library works for embedders too, linked with what sbx.pc says it needs (its
# Libs.private; the engine module is loaded at run time) minus -lsbx itself (`make coverage` puts
# --coverage in LDFLAGS: an instrumented archive needs libgcov in the embedder's link).
expect_status 0 sh -c "cc -std=c11 $san -o '$prefix/embed-static' '$here/examples/embed/embed.c' \
    \$(pkg-config --cflags sbx) '$prefix/lib/libsbx.a' \
    \$(pkg-config --static --libs sbx | sed 's/ -lsbx / /') ${LDFLAGS:-}"
expect_status 0 "$prefix/embed-static"
# Installed files have explicit modes whatever the umask (the coverage suites run under 000).
[ "$(stat -c %a "$prefix/lib/sbx/libsbx-js.stencil")" = 644 ] && ok || bad "stencil mode"
[ "$(stat -c %a "$stage/lib/sbx/libsbx-js.stencil")" = 644 ] && ok || bad "built stencil mode"
after=$(stamps)
[ "$after" = "$before" ] && ok || bad "install changed the tree under test: $before -> $after"
finish
