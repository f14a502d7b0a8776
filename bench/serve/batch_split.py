"""Batches across worker nodes: pinned to one worker (what sbx serve does: the prepare step and
every run of a batch on the worker that claimed it, batchParallel at a time) against split (the
prepare's output shipped with each run, so every worker can take runs of it), measured on the
same cluster in the same run (bench/serve/redis.sh). The split side is measured for real: the
program is compiled once (its cost taken from the pinned batch's own prepare step), then every
test case is a POST /v1/runs carrying the binary (base64, as `files`), all at once.

usage: batch_split.py API_URL CASES BATCHES
Prints key=value pairs: wall seconds of BATCHES batches of CASES test cases each, both ways."""

import base64
import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request

SOURCE = r"""
#include <stdio.h>
int main(void) {
    long a, b, s = 0;
    if (scanf("%ld %ld", &a, &b) != 2) return 1;
    for (long i = 0; i < 2000000; i++) s += i % 7; /* a few ms of work per test case */
    printf("%ld\n", a + b + s - s);
    return 0;
}
"""
POLICY = {"timeoutMs": 30000, "memoryBytes": 536870912, "env": {"PATH": "/usr/bin:/bin"}}


def post(url, path, body):
    req = urllib.request.Request(url + path, data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=600) as r:
        return json.loads(r.read())


def pinned(url, cases, batches):
    body = {"prepare": {"tier": "process", "command": ["gcc", "-O2", "-o", "main", "main.c"],
                        "files": [{"name": "main.c", "content": SOURCE}], "policy": POLICY},
            "runs": [{"command": ["./main"], "stdin": "%d 1" % i, "expectedStdout": "%d\n" % (i + 1)}
                     for i in range(cases)]}
    t0 = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(batches) as pool:
        answers = list(pool.map(lambda _: post(url, "/v1/batches", body), range(batches)))
    took = time.monotonic() - t0
    for a in answers:
        assert all(r.get("verdict") == "accepted" for r in a["runs"]), a
    compile_s = sorted(a["prepare"]["durationMs"] for a in answers)[batches // 2] / 1e3
    return took, compile_s


def split(url, cases, batches, compile_s):
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "main.c"), "w") as f:
            f.write(SOURCE)
        subprocess.run(["gcc", "-O2", "-o", os.path.join(d, "main"), os.path.join(d, "main.c")],
                       check=True)
        with open(os.path.join(d, "main"), "rb") as f:
            binary = f.read()
    shipped = base64.b64encode(binary).decode()

    def one(i):
        for _ in range(3):  # ETXTBSY: another run's fork held the file's write fd (reported)
            r = post(url, "/v1/runs", {"tier": "process", "command": ["./main"],
                                       "stdin": "%d 1" % i, "policy": POLICY,
                                       "files": [{"name": "main", "content": shipped,
                                                  "encoding": "base64"}]})
            if "Text file busy" not in str(r.get("error")):
                break
        assert r["ok"] and r["stdout"] == "%d\n" % (i + 1), r
    t0 = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(min(64, cases * batches)) as pool:
        list(pool.map(one, [i % cases for i in range(cases * batches)]))
    return compile_s + time.monotonic() - t0, len(binary)


def main():
    url, cases, batches = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    pin, compile_s = pinned(url, cases, batches)
    spl, size = split(url, cases, batches, compile_s)
    print("batches=%d cases=%d binary_bytes=%d compile_s=%.3f pinned_s=%.3f split_s=%.3f "
          "split_over_pinned=%.2f" % (batches, cases, size, compile_s, pin, spl, spl / pin))


if __name__ == "__main__":
    main()
