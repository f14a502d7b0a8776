#!/bin/sh
# `sbx serve` without a server: config validation with JSON paths, the reference that
# docs/serve.md carries, the runtimes and OpenAPI document the repository ships, and the
# systemd unit (systemd-analyze verify, when the host has it).
set -u
SBX=$(realpath "${1:?usage: cli.sh SBX}")
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
no() { echo "FAIL: $*"; fail=$((fail + 1)); }

# expect_error CONFIG_JSON MESSAGE: --check-config exits 2 with MESSAGE on stderr
expect_error() {
    printf '%s' "$1" >"$tmp/c.json"
    out=$("$SBX" serve --check-config --config "$tmp/c.json" 2>&1)
    rc=$?
    if [ "$rc" -eq 2 ] && echo "$out" | grep -qF -- "$2"; then ok; else no "config $1: rc $rc, got '$out', want '$2'"; fi
}
expect_error '{"listen": 8080}' 'config.listen: must be a string'
expect_error '{"runners": -1}' 'config.runners: must be an integer in 0..256, got -1'
expect_error '{"bogus": 1}' 'config.bogus: unknown field'
expect_error '{"keys": [{"name": "a"}]}' 'config.keys[0].sha256: is required'
expect_error '{"keys": [{"name": "a", "sha256": "xyz"}]}' 'config.keys[0].sha256: must be 64 hex digits'
h=$(printf %s t | sha256sum | cut -d' ' -f1)
expect_error "{\"keys\": [{\"name\": \"a\", \"sha256\": \"$h\", \"ceiling\": {\"timeoutMs\": 0}}]}" \
    'config.keys[0].ceiling.timeoutMs: must be an integer in 1..3600000, got 0'
expect_error "{\"keys\": [{\"name\": \"a\", \"sha256\": \"$h\", \"tiers\": [\"gpu\"]}]}" \
    'config.keys[0].tiers[0]: must be one of "worker", "process", "wasm"'
expect_error "{\"keys\": [{\"name\": \"a\", \"sha256\": \"$h\"}, {\"name\": \"a\", \"sha256\": \"$h\"}]}" \
    'config.keys[1].name: "a" is also keys[0]'"'"'s name'
expect_error '{"listen": "x",
  "queueMax": }' 'config: invalid JSON at line 2, column'
expect_error '{"runtimes": "/no/such/file"}' 'runtimes: /no/such/file: No such file'
printf '{"runtimes": [{"language": "x", "tier": "gpu"}]}' >"$tmp/rt.json"
expect_error "{\"runtimes\": \"$tmp/rt.json\"}" 'runtimes.runtimes[0].tier: must be one of'
if "$SBX" serve --check-config --config "$root/deploy/serve.json" 2>&1 | grep -q 'runtimes: /etc/sbx'; then ok
elif "$SBX" serve --check-config --config "$root/deploy/serve.json" >/dev/null 2>&1; then ok
else no "deploy/serve.json does not check"; fi
out=$("$SBX" serve --bogus 2>&1); rc=$?
[ "$rc" -eq 2 ] && echo "$out" | grep -q 'unknown option' && ok || no "--bogus: rc $rc: $out"
out=$("$SBX" serve --drain-ms x 2>&1); rc=$?
[ "$rc" -eq 2 ] && echo "$out" | grep -q 'drain-ms' && ok || no "--drain-ms x: rc $rc: $out"

# docs/serve.md carries the config reference exactly as --config-reference prints it
"$SBX" serve --config-reference >"$tmp/ref.md"
if grep -qxF -f "$tmp/ref.md" "$root/docs/serve.md" &&
    [ "$(grep -cxF -f "$tmp/ref.md" "$root/docs/serve.md")" -eq "$(wc -l <"$tmp/ref.md")" ]; then ok
else no "docs/serve.md's config table differs from 'sbx serve --config-reference'"; fi
"$SBX" serve --help | grep -q 'config.*fields' && ok || no "--help shows no config fields"
"$SBX" serve --print-runtimes | cmp -s - "$root/deploy/runtimes.json" && ok ||
    no "deploy/runtimes.json differs from the built-in runtimes"
"$SBX" serve --openapi | cmp -s - "$root/docs/openapi.json" && ok ||
    no "docs/openapi.json differs from 'sbx serve --openapi'"

# The unit verifies (with this build's sbx in ExecStart, as an install would have it).
if command -v systemd-analyze >/dev/null 2>&1; then
    sed "s|/usr/local/bin/sbx|$SBX|" "$root/deploy/sbx-serve.service" >"$tmp/sbx-serve.service"
    out=$(systemd-analyze verify "$tmp/sbx-serve.service" 2>&1)
    [ -z "$out" ] && ok || no "systemd-analyze verify deploy/sbx-serve.service: $out"
else
    echo "skip: systemd-analyze is not on this host"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
