#!/bin/sh
# bench/wasm/real/fetch.sh SRC: Debian 12's source packages of bzip2, sqlite3, lua5.4 and zlib into SRC
# (build/bench-src), unpacked with their Debian patches; each is fetched once and then reused.
# The machine's apt config lists binary packages only, so a private apt directory under SRC adds
# deb-src entries (-o Dir::Etc::sourcelist=...); /etc/apt is read, never written.
set -eu
SRC=$1
PACKAGES="bzip2 sqlite3 lua5.4 zlib"
mkdir -p "$SRC"
SRC=$(cd "$SRC" && pwd)
missing=""
for p in $PACKAGES; do
    ls -d "$SRC/$p"-[0-9]* >/dev/null 2>&1 || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
command -v dpkg-source >/dev/null || { echo "fetch.sh: dpkg-source missing (dpkg-dev)" >&2; exit 1; }
APT=$SRC/apt
mkdir -p "$APT/lists/partial" "$APT/cache/archives/partial" "$APT/parts"
cat >"$APT/sources.list" <<EOF
deb-src http://deb.debian.org/debian bookworm main
deb-src http://deb.debian.org/debian bookworm-updates main
deb-src http://deb.debian.org/debian-security bookworm-security main
EOF
set -- -o Dir::Etc::sourcelist="$APT/sources.list" -o Dir::Etc::sourceparts="$APT/parts" \
    -o Dir::State::Lists="$APT/lists" -o Dir::Cache="$APT/cache" -o Debug::NoLocking=1 \
    -o APT::Sandbox::User="$(id -un)"
echo "fetching Debian sources:$missing"
apt-get "$@" -qq update
for p in $missing; do
    (cd "$SRC" && apt-get "$@" -qq source "$p" >/dev/null 2>&1) && continue
    # The security archive's newest version may be unreachable (zlib's was, 2026-12-02): the
    # release's own, the first that showsrc lists.
    v=$(apt-cache "$@" showsrc "$p" | awk '/^Version:/ { print $2; exit }')
    (cd "$SRC" && apt-get "$@" -qq source "$p=$v" >/dev/null)
done
