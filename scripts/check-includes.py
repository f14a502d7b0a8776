#!/usr/bin/env python3
"""Checks the layering of src/ (docs/architecture.md, "Layers"): which module may include which;
that the library never prints; that only core/exit.c knows coverage builds.

Usage: check-includes.py [ROOT]   (ROOT defaults to the repository). Prints one line per forbidden
include and ends with "N passed, M failed" (one check per source file). A second run on a copy of
the tree with one forbidden include planted (check-includes.sh) shows the check can fail.
"""
import os
import re
import sys

# module -> the modules its files may include (besides its own and the public <sbx.h>, <sbx/*.h>).
# Dependencies point down: clients -> public API -> tiers -> core -> util (STYLE.md section 1).
ALLOWED = {
    "util": set(),
    "core": {"util"},
    "telemetry": {"core", "util"},
    "js": {"core", "util"},  # src/js/platform/ is part of js
    "jail": {"core", "util"},
    "wasm": {"core", "util"},
    "wasi": {"wasm", "core", "util"},
    "plugin": {"wasi", "wasm", "core", "util"},
    "cli": set(),  # the public API only
    "serve": set(),  # the public API only
}
# Headers generated into build/gen (no directory): who may include each.
GENERATED = {"js_module_path.h": {"core", "jail"}, "seccomp_prebuilt.h": {"jail"}}
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)
# The library never talks to a terminal (STYLE.md section 3; #29 item 5): errors go to the
# caller. Clients (cli, serve) and build-time generators (*/gen/*) may print.
PRINTS = re.compile(r'\b(?:v?fprintf|fputs|fputc|fwrite)\s*\([^;]*\bstd(?:err|out)\b'
                    r'|(?<![\w])(?:printf|perror|puts)\s*\(')
# A last word right before abort() is no report to a caller: the process ends (as the engine's own
# MOZ_CRASH does); js/oom.cpp says so when the engine dies outside any run.
LAST_WORD = re.compile(r'\bv?fprintf\s*\(\s*stderr[^;]*;\s*abort\s*\(\s*\)\s*;')
CLIENTS = ("cli", "serve")


def module_of(rel):
    parts = rel.split("/")
    return parts[1] if len(parts) > 2 else None


def violations(root, rel):
    mod = module_of(rel)
    with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
        text = f.read()
    if rel.endswith(".cpp") and mod != "js":
        yield "C++ outside the JavaScript engine adapter (src/js/)"
    is_library = mod not in CLIENTS and "/gen/" not in rel
    code = re.sub(r"/\*.*?\*/|//[^\n]*", "", text, flags=re.S)  # comments say what they like
    code = LAST_WORD.sub("", code)
    if is_library and PRINTS.search(code):
        yield "the library prints (errors go to the caller: return codes, results, callbacks)"
    if is_library and "SBX_COVERAGE" in code and rel != "src/core/exit.c":
        yield "SBX_COVERAGE outside src/core/exit.c (exit and coverage live in one place)"
    for kind, inc in INCLUDE.findall(text):
        head = inc.split("/")[0]
        if inc == "sbx.h" or head == "sbx":
            continue  # the public API: everyone's
        if "/" not in inc:
            if kind == '"' and inc in GENERATED and mod not in GENERATED[inc]:
                yield f'"{inc}": a generated header {mod} may not use'
            continue
        if head not in ALLOWED:
            continue  # a system or library header (<sys/...>, <llvm-c/...>, <js/...> of mozjs)
        if kind == "<" and head in ("js",) and rel.endswith(".cpp"):
            continue  # SpiderMonkey's own <js/...> headers
        if head != mod and head not in ALLOWED.get(mod, set()):
            yield f'"{inc}": {mod} may not include {head}'
        elif inc.startswith("wasm/jit/") and not rel.startswith("src/wasm/"):
            yield f'"{inc}": only src/wasm/ includes the JIT (wasm/jit/*)'
        elif inc.startswith("wasm/base/") and not rel.startswith("src/wasm/"):
            yield f'"{inc}": only src/wasm/ includes the baseline tier (wasm/base/*)'


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    passed = failed = 0
    for dirpath, _, files in os.walk(os.path.join(root, "src")):
        for name in sorted(files):
            if not name.endswith((".c", ".h", ".cpp")):
                continue
            rel = os.path.relpath(os.path.join(dirpath, name), root)
            bad = list(violations(root, rel))
            for why in bad:
                print(f"FAIL: {rel}: {why}")
            failed += bool(bad)
            passed += not bad
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
