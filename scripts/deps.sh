#!/bin/sh
# Installs the Debian packages listed in deps/debian-packages.txt that are missing.
set -eu
here=$(dirname "$0")/..
list="$here/deps/debian-packages.txt"
missing=""
for pkg in $(sed -e 's/#.*//' -e 's/[[:space:]].*//' "$list" | grep -v '^$'); do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $pkg"
    fi
done
[ -z "$missing" ] && exit 0
echo "deps: installing$missing" >&2
if [ "$(id -u)" -ne 0 ]; then
    echo "deps: missing packages and not root; install them:$missing" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
