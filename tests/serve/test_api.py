"""The native API through Python's urllib against a real `sbx serve`: each tier, waiting or
not, status, cancel, events, batches with verdicts, files, info, health, OpenAPI, metrics."""

import base64
import json
import os
import shutil
import subprocess
import threading
import time
import urllib.request

import pytest

from conftest import HERE, ROOT, SBX

def leb(n):
    out = b""
    while True:
        b, n = n & 0x7F, n >> 7
        out += bytes([b | (0x80 if n else 0)])
        if not n:
            return out


def vec(items):
    return leb(len(items)) + b"".join(items)


def name(s):
    return leb(len(s)) + s.encode()


def section(sid, payload):
    return bytes([sid]) + leb(len(payload)) + payload


def wasm_hello(text):
    """A WASI command whose _start writes text to fd 1 with one fd_write."""
    i32 = b"\x7f"
    types = vec([b"\x60" + vec([i32] * 4) + vec([i32]), b"\x60\x00\x00"])
    imports = vec([name("wasi_snapshot_preview1") + name("fd_write") + b"\x00" + leb(0)])
    code = (b"\x41\x01\x41\x00\x41\x01\x41\x08\x10\x00\x1a\x0b")  # fd_write(1, iov 0, 1, 8)
    body = vec([]) + code
    data_iov = (16).to_bytes(4, "little") + len(text).to_bytes(4, "little")
    data = vec([b"\x00\x41\x00\x0b" + vec([bytes([c]) for c in data_iov]),
                b"\x00\x41\x10\x0b" + vec([bytes([c]) for c in text.encode()])])
    return (b"\x00asm\x01\x00\x00\x00" + section(1, types) + section(2, imports) +
            section(3, vec([leb(1)])) + section(5, vec([b"\x00\x01"])) +
            section(7, vec([name("_start") + b"\x00" + leb(1), name("memory") + b"\x02" + leb(0)])) +
            section(10, vec([leb(len(body)) + body])) + section(11, data))


WASM_HELLO = wasm_hello("wasm says hi")


def test_worker_wait(server):
    r = server.run({"tier": "worker", "code": "console.log('hi'); return context.a + 1",
                    "context": {"a": 41}})
    assert r.status == 200, r.body
    j = r.json()
    assert j["ok"] is True and j["value"] == 42 and j["stdout"] == "hi\n"
    assert j["backend"] == "worker" and len(j["id"]) == 26
    # the same JSON as sbx_result_to_json, plus id: every key the library writes is there
    for key in ("stderr", "stdoutTruncated", "stderrTruncated", "error", "durationMs"):
        assert key in j


def server_timing(r):
    """The answer's Server-Timing header as {stage: ms}, in order."""
    out = {}
    for part in r.headers["Server-Timing"].split(","):
        name, dur = part.strip().split(";dur=")
        out[name] = float(dur)
    return out


def test_server_timing_gives_each_stage_of_a_run(server):
    r = server.run({"tier": "worker", "code": "return context.a + 1", "context": {"a": 41}})
    assert r.status == 200, r.body
    t = server_timing(r)
    assert list(t) == ["body", "submit", "wait", "respond"], t
    assert all(v >= 0 for v in t.values()), t
    # the run (the library's own time, in the runner) lies between the body's end and the
    # result: the hand-off ends submit, so a run can finish before this thread reads the clock
    # again and wait alone may be shorter than it
    assert t["submit"] + t["wait"] >= r.json()["durationMs"], (t, r.json()["durationMs"])
    # a request answered before any run: only the stages it reached
    r = server.post("/v1/runs", b"{not json")
    assert r.status == 400 and list(server_timing(r)) == ["body"], r.headers


def test_process_command_args_stdin_files(server):
    r = server.run({"tier": "process", "command": ["/bin/sh", "-c", "echo $0 $1; pwd; cat a/b.txt; "
                                                   "cat bin.dat | od -An -tx1; cat"],
                    "args": ["x", "y"], "stdin": "from stdin",
                    "files": [{"name": "a/b.txt", "content": "hello\n"},
                              {"name": "bin.dat", "content": base64.b64encode(b"\x00\xff").decode(),
                               "encoding": "base64"}]})
    j = r.json()
    assert j["ok"], j
    lines = j["stdout"].split("\n")
    assert lines[0] == "x y" and lines[1] == "/work" and lines[2] == "hello"
    assert lines[3].split() == ["00", "ff"] and lines[4] == "from stdin"
    assert j["exitCode"] == 0 and j["backend"] == "process"


def test_process_script_and_failure(server):
    j = server.run({"tier": "process", "code": "import sys; print(sys.argv[0]); sys.exit(3)",
                    "interpreter": "python3"}).json()
    assert not j["ok"] and j["exitCode"] == 3 and j["error"]["code"] == "SANDBOX_EXECUTION_FAILED"
    j = server.run({"tier": "process", "code": "return context.n * 2", "context": {"n": 21}}).json()
    assert j["ok"] and j["value"] == 42  # sbx's own JavaScript engine in the jail


def test_wasm_module_args(server):
    j = server.run({"tier": "wasm", "module": base64.b64encode(WASM_HELLO).decode()}).json()
    assert j["ok"], j
    assert j["stdout"] == "wasm says hi" and j["backend"] == "wasm"


def test_timeout_and_limits_are_results(server):
    j = server.run({"tier": "worker", "code": "for(;;){}", "policy": {"timeoutMs": 200}}).json()
    assert j["error"]["code"] == "SANDBOX_TIMEOUT"
    j = server.run({"tier": "worker", "code": "console.log('x'.repeat(100))",
                    "policy": {"maxOutputBytes": 10}}).json()
    assert j["stdoutTruncated"] is True and len(j["stdout"]) == 10


def test_async_run_get_and_events(server):
    code = ("console.log('one'); const t = Date.now(); while (Date.now() - t < 400) {}"
            "console.error('two'); return 7")
    r = server.run({"tier": "worker", "code": code, "wait": False})
    assert r.status == 202, r.body
    rid = r.json()["id"]
    assert r.json()["status"] == "queued"
    events = read_events(server, rid)
    kinds = [(e["event"], e.get("data")) for e in events]
    assert kinds[0] == ("stdout", "one\n") and kinds[1] == ("stderr", "two\n"), kinds
    assert kinds[-1][0] == "result" and kinds[-1][1]["value"] == 7
    # the first chunk came while the guest still ran: before the result, by the guest's wait
    assert events[-1]["at"] - events[0]["at"] > 0.2, events
    g = server.get("/v1/runs/" + rid).json()
    assert g["status"] == "done" and g["result"]["value"] == 7 and g["id"] == rid
    # a done run's events: its output from the result, then the result
    again = read_events(server, rid)
    assert [e["event"] for e in again] == ["stdout", "stderr", "result"]


def read_events(server, rid, headers=None):
    req = urllib.request.Request(server.base + "/v1/runs/%s/events" % rid, headers=headers or {})
    events, cur = [], {}
    with urllib.request.urlopen(req, timeout=30) as r:
        assert r.headers["Content-Type"] == "text/event-stream"
        for raw in r:
            line = raw.decode().rstrip("\n")
            if line.startswith(":"):
                continue
            if not line:
                if cur:
                    cur["at"] = time.monotonic()
                    events.append(cur)
                cur = {}
                continue
            k, _, v = line.partition(": ")
            cur[k] = json.loads(v) if k == "data" else v
    return events


def test_events_of_a_process_run_and_resume(server):
    r = server.run({"tier": "process", "command": ["/bin/sh", "-c",
                                                   "echo a; sleep 0.3; echo b; sleep 0.3; echo c"],
                    "wait": False})
    rid = r.json()["id"]
    events = read_events(server, rid)
    out = "".join(e["data"] for e in events if e["event"] == "stdout")
    assert out == "a\nb\nc\n" and events[-1]["event"] == "result"
    assert events[-1]["at"] - events[0]["at"] > 0.3
    # Last-Event-ID resumes after it (a done run has no chunks left: the result alone)
    last = read_events(server, rid, {"Last-Event-ID": events[-2]["id"]})
    assert [e["event"] for e in last] == ["result"]


def test_delete_queued_and_running(server):
    # fill every JavaScript slot (2 runners x 4) with long runs, then one more waits
    long = [server.run({"tier": "worker", "code": "for(;;){}", "policy": {"timeoutMs": 20000},
                        "wait": False}).json()["id"] for _ in range(8)]
    queued = server.run({"tier": "worker", "code": "return 1", "wait": False}).json()["id"]
    time.sleep(0.5)
    assert server.get("/v1/runs/" + queued).json()["status"] == "queued"
    d = server.request("DELETE", "/v1/runs/" + queued).json()
    assert d == {"id": queued, "status": "queued", "cancelled": True}
    g = server.get("/v1/runs/" + queued).json()
    assert g["status"] == "done" and g["result"]["error"]["code"] == "SANDBOX_ABORTED"
    for rid in long:
        assert server.request("DELETE", "/v1/runs/" + rid).json()["cancelled"] is True
    for rid in long:
        deadline = time.monotonic() + 20
        while server.get("/v1/runs/" + rid).json()["status"] != "done":
            assert time.monotonic() < deadline
            time.sleep(0.05)
        res = server.get("/v1/runs/" + rid).json()["result"]
        assert res["error"]["code"] == "SANDBOX_ABORTED", res
        assert res["durationMs"] < 15000
    assert server.request("DELETE", "/v1/runs/" + long[0]).json()["cancelled"] is False
    assert server.request("DELETE", "/v1/runs/0000000000000000000000000Z").status == 404
    assert server.get("/v1/runs/not-an-id").status == 404


BATCH_C = r'''
#include <stdio.h>
#include <stdlib.h>
int main(void) { long a, b; if (scanf("%ld %ld", &a, &b) != 2) return 2;
  if (a == 0) for (;;);
  if (a < 0) { volatile char *big = malloc(1L << 30); long s = 0;
    for (long i = 0; i < (1L << 30); i += 4096) big[i] = 1;
    for (long i = 0; i < (1L << 30); i += 4096) s += big[i];
    printf("%ld\n", s); return 0; }
  printf("%ld\n", a + b); return 0; }
'''


@pytest.mark.skipif(not shutil.which("gcc"), reason="no gcc on this host")
def test_batch_compile_once_run_many(server):
    body = {"prepare": {"tier": "process", "command": ["gcc", "-O2", "-o", "main", "main.c"],
                        "files": [{"name": "main.c", "content": BATCH_C}],
                        "policy": {"timeoutMs": 30000, "memoryBytes": 536870912,
                                   "env": {"PATH": "/usr/bin:/bin"}}},
            "runs": [{"command": ["./main"], "stdin": "1 2", "expectedStdout": "3"},
                     {"command": ["./main"], "stdin": "1 2", "expectedStdout": "3  \n\n"},
                     {"command": ["./main"], "stdin": "2 2", "expectedStdout": "5\n"},
                     {"command": ["./main"], "stdin": "0 0", "expectedStdout": "0",
                      "policy": {"timeoutMs": 300}},
                     {"command": ["./main"], "stdin": "-1 0", "expectedStdout": "0",
                      "policy": {"memoryBytes": 33554432}},
                     {"command": ["./main"], "stdin": "x", "expectedStdout": ""},
                     {"command": ["./main"], "stdin": "5 5"},
                     {"command": ["/bin/sh", "-c", "touch ./new"], "expectedStdout": ""}]}
    r = server.post("/v1/batches", body, timeout=120)
    assert r.status == 200, r.body
    j = r.json()
    assert j["prepare"]["ok"] and "verdict" not in j["prepare"]
    verdicts = [x.get("verdict") for x in j["runs"]]
    # without a memory cgroup the limit is RLIMIT_DATA: malloc fails, the program crashes
    has_cgroup = any(e.startswith("cgroup") for e in j["runs"][4]["enforced"])
    assert verdicts == ["accepted", "accepted", "wrong_answer", "time_limit",
                        "memory_limit" if has_cgroup else "runtime_error", "runtime_error", None,
                        "runtime_error"], j["runs"]
    assert j["runs"][6]["stdout"] == "10\n"
    assert "Read-only file system" in j["runs"][7]["stderr"]  # /work is read-only for runs
    bad = dict(body, prepare=dict(body["prepare"], files=[{"name": "main.c", "content": "int x ="}]))
    j = server.post("/v1/batches", bad, timeout=120).json()
    assert j["prepare"]["verdict"] == "compile_error" and j["runs"] == []
    assert "error" in j["prepare"]["stderr"]


def test_batch_bounds(server):
    r = server.post("/v1/batches", {"prepare": {"tier": "worker", "code": "return 1"},
                                    "runs": [{"code": "return 1"}] * 257})
    assert r.status == 400 and "batchMax" in r.json()["error"]["message"]
    r = server.post("/v1/batches", {"prepare": {"tier": "worker", "code": "return 1"},
                                    "runs": [{"code": "return 2", "expectedStdout": ""}] * 3})
    j = r.json()
    assert r.status == 200 and [x["value"] for x in j["runs"]] == [2, 2, 2]


def test_info_health_openapi(server):
    info = server.get("/v1/info").json()
    assert info["version"] and "worker" in info["tiers"] and "wasm" in info["tiers"]
    assert isinstance(info["enforced"], list) and info["queue"] == "memory"
    if "process" in info["tiers"]:
        assert "seccomp" in info["enforced"]
    assert server.get("/healthz").json() == {"status": "ok"}
    assert server.get("/readyz").json()["status"] == "ready"
    doc = server.get("/v1/openapi.json").json()
    assert doc["openapi"].startswith("3.0") and "/v1/runs" in doc["paths"]
    with open(os.path.join(ROOT, "docs", "openapi.json")) as f:
        assert json.load(f) == doc  # docs/openapi.json is the served document
    assert server.get("/nope").status == 404
    assert server.request("PUT", "/v1/runs").status == 405


@pytest.mark.skipif(not shutil.which("promtool"), reason="no promtool")
def test_metrics_promtool(server):
    server.run({"tier": "worker", "code": "return 1"})
    text = server.metrics()
    assert 'sandbox_runs_total{' in text and 'runner="' in text  # the library's, per runner
    assert 'sbx_serve_http_requests_total{route="/v1/runs",status="200"}' in text
    for name in ("sbx_serve_queue_depth", "sbx_serve_runs_in_flight", "sbx_serve_runners_alive 4",
                 "sbx_serve_runners_restarted_total"):
        assert name in text
    p = subprocess.run(["promtool", "check", "metrics"], input=text, text=True,
                       capture_output=True)
    assert p.returncode == 0, p.stdout + p.stderr


def test_concurrent_clients(server):
    results = []

    def client(i):
        results.append(server.run({"tier": "worker", "code": "return context.i * 2",
                                   "context": {"i": i}}).json()["value"])

    threads = [threading.Thread(target=client, args=(i,)) for i in range(40)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == [2 * i for i in range(40)]


def test_work_dirs_do_not_leak_between_runs(server):
    # runs go to every slot in turn: enough of them that each slot's /work is reused
    for i in range(12):
        j = server.run({"tier": "process", "command": ["/bin/sh", "-c",
                        "ls -A; mkdir -p d/e; echo s%d > d/e/secret; ln -s /etc l; "
                        "chmod 000 d/e d; chmod 000 mine" % i],
                        "files": [{"name": "mine", "content": str(i)}]}).json()
        assert j["ok"], j
        assert j["stdout"] == "mine\n", (i, j["stdout"])  # nothing of an earlier run
