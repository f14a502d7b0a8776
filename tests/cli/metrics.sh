#!/bin/sh
# `--metrics FILE`: Prometheus text written at exit, before or after the command name.
. "$(dirname "$0")/lib.sh"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

expect_status 0 "$SBX" --metrics "$dir/a.prom" eval 'return 1'
expect_status 1 "$SBX" eval --metrics "$dir/b.prom" --timeout-ms 50 'while (true) {}'
a=$(cat "$dir/a.prom" 2>/dev/null)
b=$(cat "$dir/b.prom" 2>/dev/null)
expect_contains "$a" 'sandbox_runs_total{backend="worker",outcome="ok"} 1' "ok run counted"
expect_contains "$a" 'sandbox_duration_seconds_count{backend="worker"} 1' "duration recorded"
expect_contains "$b" 'sandbox_runs_total{backend="worker",outcome="timeout"} 1' "timeout counted"
if command -v promtool >/dev/null 2>&1; then
    expect_status 0 sh -c "promtool check metrics < '$dir/a.prom'"
else
    echo "promtool not installed: exposition format not checked"
fi
expect_status 2 "$SBX" --metrics
expect_contains "$err" "--metrics needs a FILE" "missing file named"
expect_status 0 "$SBX" --metrics "$dir/nothing.prom" --version
finish
