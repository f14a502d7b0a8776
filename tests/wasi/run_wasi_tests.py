#!/usr/bin/env python3
"""Runs wasi-testsuite (specification.md: legacy and operation-based specs) and the C guests
of tests/wasi/guest/ through build/sbx-wasi-run; prints one line per test and a final
"N passed, M failed".

usage: run_wasi_tests.py RUNNER TESTSUITE_DIR SCRATCH_DIR GUEST_WASM_DIR [GUEST_SPEC_DIR]
"""
import json
import os
import shutil
import stat
import subprocess
import sys

TIMEOUT_S = 60


def make_writable(root):
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            p = os.path.join(dirpath, name)
            if not os.path.islink(p):
                os.chmod(p, os.stat(p).st_mode | stat.S_IWUSR)
    os.chmod(root, os.stat(root).st_mode | stat.S_IWUSR)


def to_operations(spec):
    """Converts a legacy spec to the operation form (specification.md, "Execution")."""
    if "operations" in spec:
        return spec["operations"]
    run = {"type": "run", "args": spec.get("args", []), "env": spec.get("env", {})}
    if spec.get("root") is not None:
        run["root"] = spec["root"]
    if spec.get("dirs"):
        run["dirs"] = spec["dirs"]
    if spec.get("root_ro") is not None:  # ours: the root preopened read-only
        run["root_ro"] = spec["root_ro"]
    return [
        run,
        {"type": "wait", "exit_code": spec.get("exit_code", 0)},
        {"type": "read", "id": "stdout", "payload": spec.get("stdout", "")},
        {"type": "read", "id": "stderr", "payload": spec.get("stderr", "")},
    ]


def runner_argv(runner, wasm, cwd, run, extra):
    argv = [runner] + list(extra)
    if run.get("root") is not None:
        argv += ["--dir", "rw:%s::/" % os.path.join(cwd, run["root"])]
    if run.get("root_ro") is not None:
        argv += ["--dir", "%s::/" % os.path.join(cwd, run["root_ro"])]
    for d in run.get("dirs", []):
        argv += ["--dir", "rw:%s::%s" % (os.path.join(cwd, d), d)]
    for g in run.get("grants", []):  # ours: "[rw:]HOST::GUEST", HOST relative to the work dir
        argv += ["--dir", g]
    for k, v in run.get("env", {}).items():
        argv += ["--env", "%s=%s" % (k, v)]
    return argv + [wasm] + [str(a) for a in run.get("args", [])]


def run_one(runner, wasm, cwd, spec, extra=()):
    """Returns None on success, else the reason for failure."""
    if spec.get("proposals"):
        return "needs proposals %s" % spec["proposals"]
    proc = None
    reads = {"stdout": 0, "stderr": 0}
    for op in to_operations(spec):
        kind = op.get("type")
        if kind == "run":
            if proc is not None and leftover(proc, reads):
                return leftover(proc, reads)
            try:
                proc = subprocess.run(runner_argv(runner, wasm, cwd, op, extra), cwd=cwd,
                                      capture_output=True, timeout=TIMEOUT_S)
            except subprocess.TimeoutExpired:
                return "timed out after %ds" % TIMEOUT_S
            reads = {"stdout": 0, "stderr": 0}  # each run's output is read from its start
        elif kind == "wait":
            want = op.get("exit_code", 0)
            if proc is None or proc.returncode != want:
                err = proc.stderr.decode(errors="replace").strip()[-300:] if proc else ""
                return "exit code %s, want %s %s" % (proc and proc.returncode, want, err)
        elif kind == "read":
            sid = op.get("id", "stdout")
            data = (proc.stdout if sid == "stdout" else proc.stderr).decode(errors="replace")
            want = op.get("payload", "")
            got = data[reads[sid]:reads[sid] + len(want)]
            if got != want:
                return "%s %r, want %r" % (sid, data[reads[sid]:][:300], want)
            reads[sid] += len(want)
        else:
            return "unsupported operation %r" % kind
    return leftover(proc, reads)


def leftover(proc, reads):
    """Returns why output the spec did not read makes the test fail, else None."""
    for sid in ("stdout", "stderr"):
        data = (proc.stdout if sid == "stdout" else proc.stderr).decode(errors="replace")
        if len(data) > reads[sid]:
            return "unexpected %s %r" % (sid, data[reads[sid]:][:300])
    return None


def run_suite_group(runner, src, scratch, group, results):
    work = os.path.join(scratch, group)
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(os.path.join(src, group), work, symlinks=True)
    make_writable(work)
    for dirpath, _, filenames in os.walk(work):
        for name in filenames:
            if name.endswith(".cleanup"):
                os.remove(os.path.join(dirpath, name))
    for name in sorted(os.listdir(work)):
        if not name.endswith(".wasm"):
            continue
        base = name[:-5]
        spec_path = os.path.join(work, base + ".json")
        spec = {}
        if os.path.exists(spec_path):
            with open(spec_path) as f:
                spec = json.load(f)
        why = run_one(runner, os.path.join(work, name), work, spec)
        results.append(("wasi-testsuite/%s/%s" % (group, base), why))


def build_fixture(root, fixture):
    for d in fixture.get("dirs", []):
        os.makedirs(os.path.join(root, d), exist_ok=True)
    for path, text in fixture.get("files", {}).items():
        os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
        with open(os.path.join(root, path), "w") as f:
            f.write(text)
    for path, target in fixture.get("symlinks", {}).items():
        os.symlink(target, os.path.join(root, path))


def run_guests(runner, wasm_dir, spec_dir, scratch, results):
    for name in sorted(os.listdir(spec_dir)):
        if not name.endswith(".json"):
            continue
        base = name[:-5]
        with open(os.path.join(spec_dir, name)) as f:
            spec = json.load(f)
        wasm = os.path.join(wasm_dir, base + ".wasm")
        for mode in spec.get("modes", ["auto", "walk"]):
            work = os.path.join(scratch, "guest-%s-%s" % (base, mode))
            shutil.rmtree(work, ignore_errors=True)
            os.makedirs(os.path.join(work, "outside"))
            with open(os.path.join(work, "outside", "secret.txt"), "w") as f:
                f.write("outside the preopen\n")
            os.makedirs(os.path.join(work, "root"))
            build_fixture(os.path.join(work, "root"), spec.get("fixture", {}))
            extra = list(spec.get("runner_args", []))
            if mode == "walk":
                extra.append("--walk")
            why = run_one(runner, wasm, work, spec, extra)
            results.append(("guest/%s[%s]" % (base, mode), why))


def main():
    if len(sys.argv) < 5:
        print(__doc__, file=sys.stderr)
        return 2
    runner, suite, scratch, wasm_dir = sys.argv[1:5]
    spec_dir = sys.argv[5] if len(sys.argv) > 5 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "guest")
    os.makedirs(scratch, exist_ok=True)
    results = []
    for group in ("c", "assemblyscript"):
        if os.path.isdir(os.path.join(suite, group)):
            run_suite_group(runner, suite, scratch, group, results)
        else:
            results.append(("wasi-testsuite/%s" % group, "missing: %s" % os.path.join(suite, group)))
    run_guests(runner, wasm_dir, spec_dir, scratch, results)
    failed = 0
    for name, why in results:
        print("%s %s%s" % ("PASS" if why is None else "FAIL", name, "" if why is None else ": " + why))
        failed += why is not None
    print("wasi-test: %d passed, %d failed" % (len(results) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
