"""Guests never run in the server: a runner that dies (SIGKILL, as a guest that takes its
process down would) fails only its own run, with SANDBOX_RUNNER_DIED and a log line, while 50
other runs finish correctly on the other runner; the pool starts another runner."""

import base64
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


def test_programs_in_files_execute_while_other_runs_start():
    """A run's files may hold the program it executes ("command": ["./main"]) while other runs
    of the same runner clone their jails; a write fd in the runner's fd table, copied into such
    a clone, made the exec fail with ETXTBSY ("Text file busy", SANDBOX_EXECUTION_FAILED).
    tests/unit/serve/test_exec.c reproduces the race deterministically (16 of 20 execs failed
    on the old writer); this is the service path end to end (one jail runner, 4 slots, 16 such
    runs at once), which caught the old code only now and then (1 of 3 tries with 24 runs,
    8 slots and 3 MB files, too slow for CI)."""
    with open("/bin/true", "rb") as f:
        elf = f.read() + bytes(1 << 20)  # the loader ignores the padding; the write takes longer
    main = base64.b64encode(elf).decode()
    s = Server({"runners": 1, "runnerSlots": 4})
    try:
        results = [None] * 16

        def client(i):
            results[i] = s.run({"tier": "process", "command": ["./main"],
                                "files": [{"name": "main", "content": main,
                                           "encoding": "base64"}],
                                "policy": {"timeoutMs": 20000}}, timeout=90).json()

        clients = [threading.Thread(target=client, args=(i,)) for i in range(16)]
        for c in clients:
            c.start()
        for c in clients:
            c.join()
        bad = [r for r in results if not r or r.get("exitCode") != 0]
        assert not bad, bad[:2]
    finally:
        assert s.stop() == 0, s.logtext()


def test_javascript_and_jail_runs_go_to_their_runner_classes():
    """JavaScript runs grow their runner's address space, which makes every later jail clone of
    that runner dearer (a process-tier run forks its runner), so the pool keeps two classes of
    runners: worker-tier runs go to the JavaScript class (runner 0 with "runners": 1), process
    and wasm runs to the jail class (runner 1). The job's lane carried no tier before: every run
    went to the jail class. Checked with the library's own counters, labelled by runner."""
    s = Server({"runners": 1})
    try:
        for i in range(3):
            assert s.run({"tier": "worker", "code": "return %d" % i}).json()["value"] == i
        assert s.run({"tier": "process", "command": ["/bin/true"]}).json()["exitCode"] == 0
        lines = [ln for ln in s.metrics().splitlines() if ln.startswith("sandbox_runs_total{")]
        worker = [ln for ln in lines if 'backend="worker"' in ln]
        process = [ln for ln in lines if 'backend="process"' in ln]
        assert worker and all('runner="0"' in ln for ln in worker), lines
        assert sum(float(ln.rsplit(" ", 1)[1]) for ln in worker) >= 3, lines
        assert process and all('runner="1"' in ln for ln in process), lines
    finally:
        assert s.stop() == 0, s.logtext()
