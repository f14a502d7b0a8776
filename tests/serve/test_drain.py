"""SIGTERM drains: readyz turns 503 and new runs are refused at once, runs in flight get
drainMs to finish, the rest are aborted with SANDBOX_ABORTED recorded (a waiting client gets
it, a callback would too), and the server exits 0."""

import threading
import time

from conftest import Server


def test_sigterm_drains_then_aborts_the_rest():
    s = Server({"runners": 1, "runnerSlots": 2, "drainMs": 1500})
    got = {}

    def waiter(name, body):
        got[name] = s.run(body, timeout=60).json()

    quick = threading.Thread(target=waiter, args=("quick", {
        "tier": "worker", "code": "const t = Date.now(); while (Date.now() - t < 500) {} return 1",
        "policy": {"timeoutMs": 10000}}))
    stuck = threading.Thread(target=waiter, args=("stuck", {
        "tier": "worker", "code": "for(;;){}", "policy": {"timeoutMs": 30000}}))
    queued = threading.Thread(target=waiter, args=("queued", {
        "tier": "worker", "code": "return 3", "policy": {"timeoutMs": 30000}}))
    quick.start()
    stuck.start()
    time.sleep(0.3)
    queued.start()  # both slots busy: it waits in the queue
    time.sleep(0.2)
    t0 = time.monotonic()
    s.proc.send_signal(15)
    s.wait_log("draining", 10)
    r = s.get("/readyz")
    assert r.status == 503 and r.json()["reason"] == "draining"
    r = s.run({"tier": "worker", "code": "return 1"})
    assert r.status == 503 and int(r.headers["Retry-After"]) >= 1
    for t in (quick, stuck, queued):
        t.join(30)
    assert got["quick"]["ok"] and got["quick"]["value"] == 1  # finished within the drain
    assert got["stuck"]["error"]["code"] == "SANDBOX_ABORTED", got["stuck"]
    assert got["queued"]["value"] == 3 or got["queued"]["error"]["code"] == "SANDBOX_ABORTED"
    assert s.proc.wait(30) == 0, s.logtext()
    took = time.monotonic() - t0
    assert 1.4 < took < 15, took
    assert "drain time is over: aborting" in s.logtext()
    deadline = time.monotonic() + 10  # the log's reader thread may lag the process's exit
    while not s.logtext().rstrip().endswith("sbx serve: stopped") and time.monotonic() < deadline:
        time.sleep(0.05)
    assert s.logtext().rstrip().endswith("sbx serve: stopped")


def test_sigterm_with_nothing_in_flight_exits_at_once():
    s = Server({"runners": 1, "drainMs": 20000})
    assert s.run({"tier": "worker", "code": "return 1"}).json()["value"] == 1
    t0 = time.monotonic()
    assert s.stop() == 0, s.logtext()
    assert time.monotonic() - t0 < 10
