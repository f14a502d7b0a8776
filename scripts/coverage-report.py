#!/usr/bin/env python3
"""Prints gcovr's JSON summary (stdin) as one table of per-file line and branch coverage of src/,
then the coverage targets of issue 7. Exits 1 on a missed target only with --strict."""
import json
import sys

# Files that must be fully covered (issue 7): policy, preopen, outbound allowlist, error codes.
FULL = ("src/core/policy", "src/wasi/preopen", "src/wasi/outbound", "src/core/error")
OVERALL_MIN = 90.0


def pct(covered, total):
    return 100.0 * covered / total if total else 100.0


def main():
    s = json.load(sys.stdin)
    rows = sorted(s["files"], key=lambda f: f["filename"])
    print(f"{'File':<34} {'Lines':>15} {'Branches':>17}")
    for f in rows:
        ln = f"{f['line_covered']}/{f['line_total']} {pct(f['line_covered'], f['line_total']):5.1f}%"
        br = f"{f['branch_covered']}/{f['branch_total']} {pct(f['branch_covered'], f['branch_total']):5.1f}%"
        print(f"{f['filename']:<34} {ln:>15} {br:>17}")
    lines = pct(s["line_covered"], s["line_total"])
    branches = pct(s["branch_covered"], s["branch_total"])
    print(f"{'TOTAL':<34} {s['line_covered']}/{s['line_total']} {lines:5.1f}%"
          f"   {s['branch_covered']}/{s['branch_total']} {branches:5.1f}%")
    missed = [f"overall lines {lines:.1f}% < {OVERALL_MIN}%"] if lines < OVERALL_MIN else []
    for f in rows:
        if f["filename"].startswith(FULL) and f["line_covered"] < f["line_total"]:
            missed.append(f"{f['filename']}: lines {pct(f['line_covered'], f['line_total']):.1f}% < 100%")
    print("coverage targets: " + ("met" if not missed else "missed"))
    for m in missed:
        print("  " + m)
    return 1 if missed and "--strict" in sys.argv else 0


if __name__ == "__main__":
    sys.exit(main())
