#!/usr/bin/env python3
"""Compares per-line coverage reports (gcovr --json, build-cov/coverage-lines.json) of runs on
one tree and lists every line and branch whose covered/not-covered state is not the same in all,
as file:line, the state in each run (+ covered, - not) and the source line. Exits 1 if any moves."""
import argparse
import json
import os
import sys
from itertools import zip_longest


def load(path):
    """Maps file -> line -> (covered, tuple of branch-taken flags); non-code lines are left out."""
    with open(path) as f:
        report = json.load(f)
    files = {}
    for entry in report["files"]:
        lines = files.setdefault(entry["file"], {})
        for ln in entry["lines"]:
            if ln.get("gcovr/noncode") or ln.get("gcovr/excluded"):
                continue
            taken = tuple(b["count"] > 0 for b in ln["branches"])
            old = lines.get(ln["line_number"])
            covered = ln["count"] > 0
            if old:  # a line listed twice (inlined code): covered if either is
                taken = tuple(a or b for a, b in zip_longest(old[1], taken, fillvalue=False))
                covered = covered or old[0]
            lines[ln["line_number"]] = (covered, taken)
    return files


def mark(state):
    return "".join({True: "+", False: "-", None: "?"}[s] for s in state)


def source_line(root, name, number, cache):
    if name not in cache:
        try:
            with open(os.path.join(root, name), errors="replace") as f:
                cache[name] = f.read().split("\n")
        except OSError:
            cache[name] = []
    text = cache[name]
    return text[number - 1].strip() if 0 < number <= len(text) else "(source not found)"


def line_moves(runs, name, number):
    """The line's state per run (None where the run has no such line), its branch states, or None
    if nothing moves."""
    got = [r.get(name, {}).get(number) for r in runs]
    lines = [g[0] if g else None for g in got]
    width = max(len(g[1]) if g else 0 for g in got)
    branches = []
    for i in range(width):
        state = [g[1][i] if g and i < len(g[1]) else None for g in got]
        if len(set(state)) > 1:
            branches.append((i, state))
    if len(set(lines)) > 1 or branches:
        return lines, branches
    return None


def compare(runs, root, show_branches):
    cache = {}
    moved_lines = moved_branches = 0
    for name in sorted(set().union(*runs)):
        if any(name not in r for r in runs):
            print(f"{name}: only in runs {mark([name in r for r in runs])}")
        numbers = sorted(set().union(*(r.get(name, {}) for r in runs)))
        for number in numbers:
            moved = line_moves(runs, name, number)
            if not moved:
                continue
            lines, branches = moved
            src = source_line(root, name, number, cache)
            if len(set(lines)) > 1:
                moved_lines += 1
                print(f"{name}:{number}: line {mark(lines)}  {src}")
            moved_branches += len(branches)
            if show_branches:
                for i, state in branches:
                    print(f"{name}:{number}: branch {i} {mark(state)}  {src}")
    print(f"{moved_lines} lines and {moved_branches} branches differ between {len(runs)} runs")
    return 1 if moved_lines or moved_branches else 0


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("reports", nargs="+", help="two or more gcovr --json files")
    p.add_argument("--root", default=".", help="source tree the reports' paths are relative to")
    p.add_argument("--no-branches", action="store_true", help="count but do not list branches")
    a = p.parse_args()
    if len(a.reports) < 2:
        p.error("needs at least two reports")
    runs = [load(r) for r in a.reports]
    return compare(runs, a.root, not a.no_branches)


if __name__ == "__main__":
    sys.exit(main())
