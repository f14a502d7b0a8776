"""Guests never run in the server: a runner that dies (SIGKILL, as a guest that takes its
process down would) fails only its own run, with SANDBOX_RUNNER_DIED and a log line, while 50
other runs finish correctly on the other runner; the pool starts another runner."""

import os
import signal
import threading
import time

from conftest import Server


def process_of(cmd_marker):
    """The pid whose command line contains cmd_marker (the victim guest)."""
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                if cmd_marker in f.read():
                    return int(pid)
        except OSError:
            pass
    return None


def ancestor_in(pid, candidates):
    while pid and pid > 1:
        if pid in candidates:
            return pid
        try:
            with open("/proc/%d/stat" % pid) as f:
                pid = int(f.read().rsplit(")", 1)[1].split()[1])
        except OSError:
            return None
    return None


def test_a_dead_runner_fails_only_its_run():
    s = Server({"runners": 2, "runnerSlots": 1})  # per class: 2 + 2 processes
    try:
        runners = s.runner_pids()
        assert len(runners) == 4  # 2 for JavaScript, 2 for jails
        victim = {}

        def run_victim():
            victim["r"] = s.run({"tier": "process", "command": ["/bin/sleep", "987.5"],
                                 "policy": {"timeoutMs": 30000}}, timeout=60).json()

        t = threading.Thread(target=run_victim)
        t.start()
        deadline = time.monotonic() + 20
        guest = None
        while not guest and time.monotonic() < deadline:
            guest = process_of(b"987.5")
            time.sleep(0.05)
        assert guest, "the victim never started"
        doomed = ancestor_in(guest, set(runners))
        assert doomed in runners
        results = []

        def client(i):
            results.append(s.run({"tier": "worker", "code": "return context.i + 1",
                                  "context": {"i": i}}, timeout=60).json())

        clients = [threading.Thread(target=client, args=(i,)) for i in range(50)]
        for c in clients[:25]:
            c.start()
        os.kill(doomed, signal.SIGKILL)  # as a guest that takes its runner down would
        for c in clients[25:]:
            c.start()
        for c in clients:
            c.join()
        t.join()
        assert victim["r"]["error"]["code"] == "SANDBOX_RUNNER_DIED", victim["r"]
        assert "died" in victim["r"]["error"]["message"]
        assert len(results) == 50
        assert sorted(r["value"] for r in results) == list(range(1, 51)), \
            [r for r in results if not r.get("ok")]
        s.wait_log(r"runner \d+ \(pid %d\) died \(signal 9\); 1 run\(s\) failed" % doomed, 10)
        deadline = time.monotonic() + 30
        while "sbx_serve_runners_alive 4" not in s.metrics():
            assert time.monotonic() < deadline, s.metrics()
            time.sleep(0.1)
        assert "sbx_serve_runners_restarted_total 1" in s.metrics()
        fresh = s.runner_pids()
        assert len(fresh) == 4 and doomed not in fresh
        # the new runner works: runs that need both runners at once finish
        both = [s.run({"tier": "worker", "code": "return 2", "wait": False}).json()["id"]
                for _ in range(4)]
        for rid in both:
            deadline = time.monotonic() + 30
            while s.get("/v1/runs/" + rid).json()["status"] != "done":
                assert time.monotonic() < deadline
                time.sleep(0.05)
            assert s.get("/v1/runs/" + rid).json()["result"]["value"] == 2
    finally:
        assert s.stop() == 0, s.logtext()
