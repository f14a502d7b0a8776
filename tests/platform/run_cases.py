#!/usr/bin/env python3
"""tests/platform/run_cases.py: each tests/platform/cases/*.js runs in Node 20 (node_run.js) and
in sbx's worker tier and process tier (`sbx eval`); stdout, stderr and the value (or the
error's "Name: message") must be Node's in both tiers. Node's results are committed in
expected/NAME.json (`--regen` rewrites them from the installed node); when node is installed the
run also checks it still gives them, so the expectations stay Node's own.

Header lines (`//! key: value`) of a case:
  context: JSON given as context;  args: extra `sbx eval` arguments;
  node: skip  (sbx-only behaviour, or output that varies: then `value`, `error`, `stdout`,
              `stderr` give the expectation as JSON, or `stdout-match`, `stderr-match` as a
              regular expression the whole stream must match).
Node prints its process warnings as "(node:PID) Warning: ..." plus a hint line; sbx prints
"Warning: ...": stderr is compared without those. Each run has a 30 s timeout.
Prints "N passed, M failed" (one check per case and tier). `--dir DIR` takes the cases from
DIR/cases and the expectations from DIR/expected instead (tests/builtins uses it)."""
import glob, json, os, re, shlex, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SBX = os.environ.get("SBX") or os.path.join(ROOT, os.environ.get("BUILD", "build"), "sbx")
EXPECTED = os.path.join(HERE, "expected")


def header(path):
    spec = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("//! "):
                key, _, val = line[4:].partition(":")
                spec[key.strip()] = val.strip()
    return spec


def normalize_stderr(text):
    lines = []
    for line in text.splitlines(True):
        if line.startswith("(Use `node --trace-warnings"):
            continue
        lines.append(re.sub(r"^\(node:\d+\) ", "", line))
    return "".join(lines)


def run_node(path, spec):
    with tempfile.TemporaryDirectory() as tmp:
        ctx = "-"
        if "context" in spec:
            ctx = os.path.join(tmp, "context.json")
            with open(ctx, "w", encoding="utf-8") as f:
                f.write(spec["context"])
        out = os.path.join(tmp, "out.json")
        p = subprocess.run(["node", os.path.join(HERE, "node_run.js"), path, ctx, out],
                           capture_output=True, timeout=30)
        with open(out, encoding="utf-8") as f:
            res = json.load(f)
    return {"stdout": p.stdout.decode("utf-8"), "stderr": normalize_stderr(p.stderr.decode("utf-8")),
            "ok": res["ok"], "value": res.get("value"), "error": res.get("error")}


def run_sbx(path, spec, backend):
    cmd = [SBX, "eval", "--backend", backend] + shlex.split(spec.get("args", ""))
    if "context" in spec:
        cmd += ["--context", spec["context"]]
    cmd.append("@" + path)
    p = subprocess.run(cmd, capture_output=True, timeout=30)
    out = json.loads(p.stdout.decode("utf-8"))
    err = out.get("error") or {}
    return {"stdout": out["stdout"], "stderr": out["stderr"], "ok": out["ok"],
            "value": out.get("value"), "error": err.get("message"), "code": err.get("code")}


def compare(want, got):
    problems = []
    for stream in ("stdout", "stderr"):
        pattern = want.get(stream + "-match")
        if pattern is not None:
            if not re.fullmatch(pattern, got[stream], re.S):
                problems.append("%s %r does not match %r" % (stream, got[stream], pattern))
        elif want[stream] != got[stream]:
            problems.append("%s %r, want %r" % (stream, got[stream], want[stream]))
    if want["ok"] != got["ok"]:
        problems.append("ok %s (%s), want %s (%s)" % (got["ok"], got.get("error"), want["ok"],
                                                     want.get("error")))
    elif want["ok"] and want["value"] != got["value"]:
        problems.append("value %s, want %s" % (json.dumps(got["value"]), json.dumps(want["value"])))
    elif not want["ok"] and not (got["error"] or "").startswith(want["error"]):
        problems.append("error %r, want it to start with %r" % (got["error"], want["error"]))
    return problems


def sbx_only(spec):
    want = {"stdout": "", "stderr": "", "ok": "error" not in spec, "value": None, "error": None}
    for key in ("value", "stdout", "stderr", "error"):
        if key in spec:
            want[key] = json.loads(spec[key])
    for key in ("stdout-match", "stderr-match"):
        if key in spec:
            want[key] = spec[key]
    return want


def main():
    global EXPECTED
    argv = sys.argv[1:]
    cases_dir = HERE
    if "--dir" in argv:
        at = argv.index("--dir")
        cases_dir = os.path.abspath(argv[at + 1])
        del argv[at:at + 2]
        EXPECTED = os.path.join(cases_dir, "expected")
    regen = "--regen" in argv
    names = [a for a in argv if not a.startswith("--")]
    cases = sorted(glob.glob(os.path.join(cases_dir, "cases", "*.js")))
    if names:
        cases = [c for c in cases if os.path.basename(c)[:-3] in names]
    has_node = subprocess.run(["sh", "-c", "command -v node"], capture_output=True).returncode == 0
    passed = failed = 0
    for path in cases:
        name = os.path.basename(path)[:-3]
        spec = header(path)
        exp_path = os.path.join(EXPECTED, name + ".json")
        try:
            if spec.get("node") == "skip":
                want = sbx_only(spec)
            elif regen:
                want = run_node(path, spec)
                with open(exp_path, "w", encoding="utf-8") as f:
                    json.dump(want, f, indent=1, ensure_ascii=False)
                    f.write("\n")
            else:
                with open(exp_path, encoding="utf-8") as f:
                    want = json.load(f)
                if has_node:
                    problems = compare(want, run_node(path, spec))
                    if problems:
                        failed += 1
                        print("FAIL %s: node no longer gives expected/%s.json (rerun with --regen?): %s"
                              % (name, name, "; ".join(problems)))
                        continue
        except Exception as e:  # a crash, a hang or unparsable output is a failure
            failed += 1
            print("FAIL %s: node: %s: %s" % (name, type(e).__name__, e))
            continue
        for backend in ("worker", "process"):
            try:
                problems = compare(want, run_sbx(path, spec, backend))
            except Exception as e:
                problems = ["%s: %s" % (type(e).__name__, e)]
            if problems:
                failed += 1
                print("FAIL %s (%s): %s" % (name, backend, "; ".join(problems)))
            else:
                passed += 1
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
