#!/usr/bin/env python3
"""tests/platform/run_wpt_url.py: the WPT URL data (../shared/wpt-url: urltestdata.json,
setters_tests.json) through wpt_url.js in sbx's worker tier and in the process tier's JS guest,
against the cases Node 20 passes (wpt_url_node20.json, committed; `--node` measures Node on the
same data with the same script and rewrites it). Every case Node passes must pass in both tiers.
Prints the counts of each, the failures, and "N passed, M failed" (cases Node passes, per tier).
Environment: SBX (the sbx binary), SBX_WPT_URL (the data directory)."""
import hashlib, json, os, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SBX = os.environ.get("SBX") or os.path.join(ROOT, os.environ.get("BUILD", "build"), "sbx")
DATA = os.environ.get("SBX_WPT_URL") or os.path.join(ROOT, "..", "shared", "wpt-url")
NODE_LIST = os.path.join(HERE, "wpt_url_node20.json")
SCRIPT = os.path.join(HERE, "wpt_url.js")


def load_context():
    blobs = {}
    ctx = {}
    for key, name in (("urltestdata", "urltestdata.json"), ("setters", "setters_tests.json")):
        with open(os.path.join(DATA, name), "rb") as f:
            blobs[name] = f.read()
        ctx[key] = json.loads(blobs[name])
    digest = hashlib.sha256(b"".join(blobs[k] for k in sorted(blobs))).hexdigest()
    return ctx, digest


def run_sbx(backend, ctx_file):
    cmd = [SBX, "eval", "--backend", backend, "--timeout-ms", "120000",
           "--memory-bytes", str(256 << 20), "--context", "@" + ctx_file, "@" + SCRIPT]
    p = subprocess.run(cmd, capture_output=True, timeout=300)
    out = json.loads(p.stdout.decode("utf-8"))
    if not out["ok"]:
        raise RuntimeError("sbx %s: %s" % (backend, out.get("error")))
    return out["value"]


def run_node(ctx_file):
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as out:
        path = out.name
    try:
        subprocess.run(["node", os.path.join(HERE, "node_run.js"), SCRIPT, ctx_file, path],
                       check=True, timeout=300)
        with open(path, encoding="utf-8") as f:
            res = json.load(f)
    finally:
        os.unlink(path)
    if not res["ok"]:
        raise RuntimeError("node: %s" % res["error"])
    return res["value"]


def main():
    ctx, digest = load_context()
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False, encoding="utf-8") as f:
        json.dump(ctx, f)
        ctx_file = f.name
    try:
        if "--node" in sys.argv:
            v = run_node(ctx_file)
            version = subprocess.run(["node", "--version"], capture_output=True,
                                     text=True).stdout.strip()
            rec = {"node": version, "data_sha256": digest, "urlTotal": v["urlTotal"],
                   "setterTotal": v["setterTotal"], "passed": sorted(v["passed"]),
                   "failures": v["failures"],
                   "command": "python3 tests/platform/run_wpt_url.py --node"}
            with open(NODE_LIST, "w", encoding="utf-8") as f:
                json.dump(rec, f, indent=0)
                f.write("\n")
            print("node %s: %d of %d cases pass; written to %s" % (
                version, len(v["passed"]), v["urlTotal"] + v["setterTotal"], NODE_LIST))
            return 0
        with open(NODE_LIST, encoding="utf-8") as f:
            node = json.load(f)
        if node["data_sha256"] != digest:
            print("FAIL the WPT data changed since Node's list was measured: run %s" %
                  node["command"])
            print("0 passed, 1 failed")
            return 1
        want = set(node["passed"])
        total = node["urlTotal"] + node["setterTotal"]
        print("node %s: %d of %d pass (url %d, setters %d cases)" % (
            node["node"], len(want), total, node["urlTotal"], node["setterTotal"]))
        passed = failed = 0
        for backend in ("worker", "process"):
            v = run_sbx(backend, ctx_file)
            got = set(v["passed"])
            missing = sorted(want - got)
            extra = sorted(got - want)
            print("sbx %s: %d of %d pass; %d of Node's passes fail; %d pass that Node fails" % (
                backend, len(got), v["urlTotal"] + v["setterTotal"], len(missing), len(extra)))
            for line in v["failures"]:
                if line.split(" ", 1)[0] in want:
                    print("  FAIL %s %s" % (backend, line))
            passed += len(want) - len(missing)
            failed += len(missing)
        print("%d passed, %d failed" % (passed, failed))
        return 1 if failed else 0
    finally:
        os.unlink(ctx_file)


if __name__ == "__main__":
    sys.exit(main())
