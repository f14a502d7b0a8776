#!/usr/bin/env python3
"""tests/js/run_snippets.py: runs every tests/js/cases/*.js through `sbx eval --backend TIER`
and checks the printed JSON against the case's `//! key: value` header lines:
  tiers (where it runs, each tier a run of its own against the same expectations: "worker
  process" for both; default "worker"; a run in the process tier is printed "NAME [process]"),
  args (extra CLI arguments), context (JSON), policy (JSON, passed as --policy FILE),
  value (JSON), error (code), message (substring), stack (JSON string: a substring of the
  error's stack), stdout / stderr (JSON strings),
  truncated (true: both streams' flags), max-ms (bound on the caller's wall time).
Each case runs under a 20 s timeout. Prints "N passed, M failed"."""
import glob, json, os, shlex, subprocess, sys, tempfile, time

SBX = os.environ.get("SBX") or os.path.join(os.environ.get("BUILD", "build"), "sbx")
HERE = os.path.dirname(os.path.abspath(__file__))


def header(path):
    spec = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("//! "):
                key, _, val = line[4:].partition(":")
                spec[key.strip()] = val.strip()
    return spec


TIERS = ("worker", "process")


def tiers(spec):
    names = spec.get("tiers", "worker").split()
    if not names or any(t not in TIERS for t in names) or len(set(names)) != len(names):
        raise ValueError("tiers %r: a list of %s" % (spec.get("tiers"), ", ".join(TIERS)))
    return names


def run_case(path, tier):
    spec = header(path)
    cmd = [SBX, "eval", "--backend", tier] + shlex.split(spec.get("args", ""))
    if "context" in spec:
        cmd += ["--context", spec["context"]]
    policy = None
    if "policy" in spec:
        policy = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
        policy.write(spec["policy"])
        policy.close()
        cmd += ["--policy", policy.name]
    cmd.append("@" + path)
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, capture_output=True, timeout=20)
    finally:
        if policy:
            os.unlink(policy.name)
    wall_ms = (time.monotonic() - t0) * 1000
    out = json.loads(p.stdout.decode("utf-8"))
    problems = []
    if out.get("backend") != tier:  # the run happened where the header says
        problems.append("ran in %r, want %r" % (out.get("backend"), tier))
    want_error = spec.get("error")
    if want_error:
        got = (out.get("error") or {}).get("code")
        if out["ok"] or got != want_error:
            problems.append("error %s, want %s" % (got, want_error))
        if p.returncode != 1:
            problems.append("exit %d, want 1" % p.returncode)
    elif not out["ok"] or p.returncode != 0:
        problems.append("failed: %s (exit %d)" % (out.get("error"), p.returncode))
    if "value" in spec and out.get("value") != json.loads(spec["value"]):
        problems.append("value %r" % (out.get("value"),))
    if "message" in spec and spec["message"] not in ((out.get("error") or {}).get("message") or ""):
        problems.append("message %r lacks %r" % (out.get("error"), spec["message"]))
    if "stack" in spec and json.loads(spec["stack"]) not in ((out.get("error") or {}).get("stack") or ""):
        problems.append("stack %r lacks %r" % ((out.get("error") or {}).get("stack"), spec["stack"]))
    for stream in ("stdout", "stderr"):
        if stream in spec and out[stream] != json.loads(spec[stream]):
            problems.append("%s %r" % (stream, out[stream]))
    if spec.get("truncated") == "true" and not (out["stdoutTruncated"] and out["stderrTruncated"]):
        problems.append("streams not marked truncated")
    if "max-ms" in spec and wall_ms > float(spec["max-ms"]):
        problems.append("took %.0f ms (process wall time), bound %s" % (wall_ms, spec["max-ms"]))
    return problems


def check(path, tier, name):
    try:
        problems = run_case(path, tier)
        # The 2-core test host is shared: a case that missed only its time bound runs once
        # more and the repeat must meet it (noted, so a real regression fails both).
        if len(problems) == 1 and problems[0].startswith("took "):
            print("note %s: %s, attempt 1" % (name, problems[0]))
            problems = run_case(path, tier)
    except Exception as e:  # a crash, a hang or unparsable output is a failure
        problems = ["%s: %s" % (type(e).__name__, e)]
    return problems


def main():
    cases = sorted(glob.glob(os.path.join(HERE, "cases", "*.js")))
    passed = failed = 0
    for path in cases:
        base = os.path.basename(path)
        try:
            names = tiers(header(path))
        except ValueError as e:
            failed += 1
            print("FAIL %s: %s" % (base, e))
            continue
        for tier in names:
            name = base if tier == "worker" else "%s [%s]" % (base, tier)
            problems = check(path, tier, name)
            if problems:
                failed += 1
                print("FAIL %s: %s" % (name, "; ".join(problems)))
            else:
                passed += 1
                print("ok   %s" % name)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed or not cases else 0


if __name__ == "__main__":
    sys.exit(main())
