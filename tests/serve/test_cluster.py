"""sbx serve across machines (#25), with real components: a redis-server of the test's own
(loopback, a free port, a temp dir, AOF on), 2 API nodes (--role api) and 3 worker nodes (--role
worker), each a separate `sbx serve` process. Every run an API node accepts executes on a worker
node, so waiting, events, cancels and results all cross processes through Redis.

- 1,000 runs submitted concurrently across both API nodes: 1,000 correct results, each exactly
  once in the final state (per-node completion counts sum to 1,000; no takeover, no retry).
- kill -9 of a worker while it runs jobs: every run still completes, on the other workers.
- SIGSTOP of a worker past the visibility timeout, then SIGCONT: its run is taken over, and its
  late result does not replace the newer attempt's (the fence; the node counts it as stale).
- Redis restarted in the middle: queued runs survive (AOF), API nodes answer 503 + Retry-After
  while it is down and recover; nothing is left half-written (the queue's counters).
- wait=true and /events from an API node whose run executes on a worker; Idempotency-Key across
  API nodes; DELETE on one API node aborts the run on its worker; /readyz and /metrics."""

import concurrent.futures
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import urllib.request

import pytest

from conftest import Server

VISIBILITY_MS = 1500  # heartbeats every 500 ms: a frozen worker loses its claims in 1.5 s


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Redis:
    """A redis-server on loopback with AOF, restartable on the same port and dir."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="sbx-redis-test-")
        self.port = free_port()
        self.url = "redis://127.0.0.1:%d" % self.port
        self.proc = None
        self.start()

    def start(self):
        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--dir", self.dir,
             "--save", "", "--appendonly", "yes", "--appendfsync", "everysec"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.cli("PING") == "PONG":
                return
            time.sleep(0.05)
        raise AssertionError("redis-server did not start")

    def stop(self):
        """SIGTERM: Redis writes its AOF and exits."""
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(20)

    def cli(self, *args):
        r = subprocess.run(["redis-cli", "-p", str(self.port), *args], capture_output=True,
                           text=True, timeout=10)
        return r.stdout.strip()

    def destroy(self):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


class Cluster:
    def __init__(self, apis=2, workers=3):
        self.redis = Redis()
        common = {"queue": self.redis.url, "visibilityMs": VISIBILITY_MS, "maxAttempts": 3,
                  "runners": 1, "runnerSlots": 4, "drainMs": 2000,
                  "anonymous": {"ratePerSecond": 100000, "concurrency": 100000}}
        self.apis, self.workers = [], []
        try:
            for i in range(workers):
                self.workers.append(Server(dict(common, role="worker", node="w%d" % (i + 1))))
            for i in range(apis):
                self.apis.append(Server(dict(common, role="api", node="api%d" % (i + 1))))
        except BaseException:
            self.destroy()
            raise

    def worker_metric(self, worker, name):
        m = re.search(r'^%s\{node="%s"\} (\d+)$' % (name, worker_node(worker)), worker.metrics(),
                      re.M)
        return int(m.group(1)) if m else 0

    def completed_by_node(self):
        text = self.apis[0].metrics()
        return {n: int(v) for n, v in
                re.findall(r'^sbx_serve_queue_runs_completed_total\{node="([^"]+)"\} (\d+)$',
                           text, re.M)}

    def counter(self, name):
        m = re.search(r"^%s (\d+)$" % name, self.apis[0].metrics(), re.M)
        return int(m.group(1))

    def destroy(self):
        for s in self.apis + self.workers:
            if s.proc.poll() is None:
                s.proc.kill()
                s.proc.wait()
        self.redis.destroy()

    def stop(self):
        """SIGTERM every node still up: each must exit 0 (under SAN=1: no leak)."""
        bad = []
        for s in self.apis + self.workers:
            if s.proc.poll() is None:
                rc = s.stop()
                if rc != 0:
                    bad.append((rc, s.logtext()))
        self.redis.destroy()
        assert not bad, bad


def worker_node(server):
    return re.search(r"node (\S+)$", server.logtext(), re.M).group(1)


def wait_done(api, run_id, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        r = api.get("/v1/runs/" + run_id)
        if r.status == 200 and r.json()["status"] == "done":
            return r.json()["result"]
        time.sleep(0.1)
    raise AssertionError("run %s not done within %d s: %s" % (run_id, timeout, r.body))


def js(code, **kw):
    return dict({"tier": "worker", "code": code}, **kw)


@pytest.fixture(scope="module")
def cluster():
    c = Cluster()
    yield c
    c.stop()


def test_thousand_runs_across_two_api_nodes_each_once(cluster):
    before = cluster.completed_by_node()
    retries0 = cluster.counter("sbx_serve_queue_retries_total")

    def one(i):
        api = cluster.apis[i % 2]
        r = api.run(js("return context.a + 1", context={"a": i}), timeout=120)
        assert r.status == 200, r.body
        return i, r.json()

    with concurrent.futures.ThreadPoolExecutor(24) as pool:
        results = list(pool.map(one, range(1000)))
    ids = set()
    for i, res in results:
        assert res["ok"] and res["value"] == i + 1, res
        ids.add(res["id"])
    assert len(ids) == 1000
    # The final state: each result once, readable on the other API node.
    for i, res in results[::50]:
        got = cluster.apis[(i + 1) % 2].get("/v1/runs/" + res["id"]).json()
        assert got["status"] == "done" and got["result"]["value"] == i + 1
    after = cluster.completed_by_node()
    done = {n: after.get(n, 0) - before.get(n, 0) for n in after}
    assert sum(done.values()) == 1000, done  # no run completed twice
    assert all(done.get("w%d" % k, 0) > 0 for k in (1, 2, 3)), done  # all workers took part
    assert cluster.counter("sbx_serve_queue_retries_total") == retries0


def test_wait_and_events_from_an_api_node_whose_run_runs_on_a_worker(cluster):
    api1, api2 = cluster.apis
    r = api1.run(js("console.log('hi'); return 7"))
    assert r.status == 200 and r.json()["value"] == 7 and r.json()["stdout"] == "hi\n"
    code = ("console.log('a'); await new Promise(r => setTimeout(r, 800)); "
            "console.log('b'); return 9")
    r = api1.run(js(code, wait=False))
    assert r.status == 202, r.body
    rid = r.json()["id"]
    events = []
    with urllib.request.urlopen(api2.base + "/v1/runs/%s/events" % rid, timeout=30) as f:
        for line in f:
            line = line.decode().rstrip("\n")
            if line.startswith("event: ") or line.startswith("data: "):
                events.append(line)
    kinds = [e[7:] for e in events if e.startswith("event: ")]
    assert kinds == ["stdout", "stdout", "result"], events  # live chunks, on another node
    assert json.loads(events[-1][6:])["value"] == 9


def test_idempotency_key_across_api_nodes(cluster):
    api1, api2 = cluster.apis
    key = {"Idempotency-Key": "order-%d" % time.monotonic_ns()}
    first = api1.run(js("return Math.random()"), headers=key).json()
    again = api2.run(js("return Math.random()"), headers=key).json()
    assert again["id"] == first["id"] and again["value"] == first["value"]
    other = api2.run(js("return 1"), headers={"Idempotency-Key": key["Idempotency-Key"] + "x"})
    assert other.json()["id"] != first["id"]
    bad = api1.run(js("return 1"), headers={"Idempotency-Key": "x" * 300})
    assert bad.status == 400, bad.body


def test_delete_on_one_api_node_aborts_the_run_on_its_worker(cluster):
    api1, api2 = cluster.apis
    r = api1.run({"tier": "process", "command": ["/bin/sleep", "30"], "wait": False,
                  "policy": {"timeoutMs": 60000}})
    rid = r.json()["id"]
    deadline = time.monotonic() + 20
    while api2.get("/v1/runs/" + rid).json()["status"] != "running":
        assert time.monotonic() < deadline
        time.sleep(0.05)
    t0 = time.monotonic()
    d = api2.request("DELETE", "/v1/runs/" + rid)
    assert d.status == 200 and d.json()["cancelled"], d.body
    res = wait_done(api1, rid, 20)
    assert res["error"]["code"] == "SANDBOX_ABORTED", res
    assert time.monotonic() - t0 < 10  # the worker heard of it, not the 30 s sleep's end


def test_readyz_and_metrics(cluster):
    for s in cluster.apis + cluster.workers:
        assert s.get("/readyz").status == 200
    text = cluster.apis[0].metrics()
    for name in ("sbx_serve_queue_depth", "sbx_serve_queue_up 1", "sbx_serve_queue_claims_total",
                 "sbx_serve_queue_takeovers_total", "sbx_serve_queue_retries_total",
                 "sbx_serve_queue_failed_total", "sbx_serve_queue_runs_completed_total{node="):
        assert name in text, name
    w = cluster.workers[0]
    assert cluster.worker_metric(w, "sbx_serve_queue_node_claims_total") > 0
    r = w.run(js("return 1"))  # a worker takes no requests
    assert r.status == 404 and "role worker" in r.json()["error"]["message"]


def submit_all(apis, bodies):
    ids = []
    for i, b in enumerate(bodies):
        r = apis[i % len(apis)].run(b)
        assert r.status == 202, r.body
        ids.append(r.json()["id"])
    return ids


def test_kill9_worker_while_it_runs_every_run_completes_elsewhere():
    c = Cluster()
    try:
        victim = c.workers[0]
        body = {"tier": "process", "command": ["/bin/sh", "-c", "sleep 1; echo ran"],
                "wait": False}
        ids = submit_all(c.apis, [body] * 24)
        deadline = time.monotonic() + 30
        while c.worker_metric(victim, "sbx_serve_queue_node_claims_total") == 0:
            assert time.monotonic() < deadline, "the victim never claimed"
            time.sleep(0.05)
        victim.proc.send_signal(signal.SIGKILL)
        victim.proc.wait()
        for rid in ids:
            res = wait_done(c.apis[0], rid, 60)
            assert res["ok"] and res["stdout"] == "ran\n", res
        done = c.completed_by_node()
        assert sum(done.values()) == 24, done  # each run completed once in the final state
        assert c.counter("sbx_serve_queue_takeovers_total") >= 1
        assert c.counter("sbx_serve_queue_failed_total") == 0
    finally:
        c.stop()


def test_sigstop_worker_is_taken_over_and_its_late_result_is_refused():
    c = Cluster()
    try:
        w1 = c.workers[0]
        for w in c.workers[1:]:  # only w1 may claim it first
            w.proc.send_signal(signal.SIGSTOP)
        time.sleep(1.2)  # their blocked reads end in Redis (a read ends within 375 ms)
        cmd = "date +%s.%N; sleep 3; echo end"
        r = c.apis[0].run({"tier": "process", "command": ["/bin/sh", "-c", cmd], "wait": False})
        rid = r.json()["id"]
        deadline = time.monotonic() + 20
        while c.apis[1].get("/v1/runs/" + rid).json()["status"] != "running":
            assert time.monotonic() < deadline
            time.sleep(0.02)
        w1.proc.send_signal(signal.SIGSTOP)  # frozen: no heartbeats, its run goes on
        frozen_at = time.time()
        for w in c.workers[1:]:
            w.proc.send_signal(signal.SIGCONT)
        time.sleep(VISIBILITY_MS / 1000 * 2.5)  # taken over by now
        w1.proc.send_signal(signal.SIGCONT)  # it comes back with its late result
        res = wait_done(c.apis[1], rid, 30)
        deadline = time.monotonic() + 20
        while c.worker_metric(w1, "sbx_serve_queue_node_stale_total") == 0:
            assert time.monotonic() < deadline, "the stale worker never finished"
            time.sleep(0.1)
        final = c.apis[0].get("/v1/runs/" + rid).json()["result"]
        assert final == res
        started = float(final["stdout"].split()[0])
        assert final["ok"] and started > frozen_at, (final, frozen_at)  # the newer attempt's
        assert c.counter("sbx_serve_queue_takeovers_total") == 1
        assert c.counter("sbx_serve_queue_retries_total") == 1
    finally:
        c.stop()


def test_redis_restart_queued_runs_survive_api_503_then_recovers():
    c = Cluster()
    try:
        body = {"tier": "process", "command": ["/bin/sh", "-c", "sleep 0.5; echo ok"],
                "wait": False}
        ids = submit_all(c.apis, [body] * 40)  # 12 run at once: most are queued
        c.redis.stop()
        for api in c.apis:
            r = api.run(body)
            assert r.status == 503 and r.headers["Retry-After"], r.body
            assert api.get("/v1/runs/" + ids[0]).status == 503
            assert api.get("/readyz").status == 503
        time.sleep(1)
        c.redis.start()  # same port, same dir: the AOF is read back
        for api in c.apis:
            api.wait_ready(30)
        late = submit_all(c.apis, [body] * 2)
        for rid in ids + late:
            res = wait_done(c.apis[0], rid, 90)
            assert res["ok"] and res["stdout"] == "ok\n", res
        # Nothing half-written: the counters agree with an idle queue.
        for key in ("n:queued", "n:qbytes", "n:running"):
            assert c.redis.cli("GET", "sbx:" + key) == "0", key
        assert c.redis.cli("XLEN", "sbx:jobs:jail") == "0"
    finally:
        c.stop()
