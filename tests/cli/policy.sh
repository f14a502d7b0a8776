#!/bin/sh
# `sbx policy check`, `--help`, `--version` and usage errors.
. "$(dirname "$0")/lib.sh"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

expect_status 0 "$SBX" --version
expect_contains "$out" "sbx " "version"
expect_status 0 "$SBX" --help
expect_contains "$out" "policy" "help lists commands"
expect_status 2 "$SBX"
expect_status 2 "$SBX" frobnicate
expect_contains "$err" "unknown command" "unknown command"

echo '{"timeoutMs": 250, "fs": ["rw:/tmp"]}' >"$dir/ok.json"
expect_status 0 "$SBX" policy check "$dir/ok.json"
expect_contains "$out" '"timeoutMs": 250' "resolved timeout"
expect_contains "$out" '"memoryBytes": 67108864' "default memory filled in"
expect_contains "$out" '"cpuPercent": 100' "default cpu filled in"
expect_contains "$out" '"rw:/tmp"' "fs kept"

check_bad() { # JSON EXPECTED-SUBSTRING
    printf '%s' "$1" >"$dir/bad.json"
    expect_status 2 "$SBX" policy check "$dir/bad.json"
    expect_contains "$err" "$2" "reject $1"
    [ -z "$out" ] || bad "invalid policy printed something on stdout: $out"
}
check_bad '{"cpuPercent": 150}' 'policy.cpuPercent: must be an integer in 1..100, got 150'
check_bad '{"timeoutMs": -1}' 'policy.timeoutMs: must be an integer in 1..3600000, got -1'
check_bad '{"bogus": true}' 'policy.bogus: unknown key'
check_bad '{"pids": 1, "pids": 2}' 'duplicate object key'
check_bad '{"fs": ["rw:"]}' 'policy.fs[0]: host path is empty'
check_bad '{"timeoutMs": 5,,}' 'syntax error at line 1, column'
expect_status 2 "$SBX" policy check /nonexistent.json
expect_contains "$err" "/nonexistent.json" "missing file named"
expect_status 2 "$SBX" policy
echo '{}' | { expect_status 0 "$SBX" policy check -; }
finish
