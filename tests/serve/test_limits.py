"""Keys, ceilings and every limit and refusal: 401, 403 naming the field, 400 with line and
column or the JSON path, 413, 429 + Retry-After, 503 + Retry-After, slow clients, loopback
only without keys, SIGHUP reloading keys."""

import json
import signal
import socket
import threading
import time

import pytest

from conftest import Server, sha256

JUDGE, SLOW, BULK = "judge-secret-token", "slow-secret-token", "bulk-secret-token"


@pytest.fixture(scope="module")
def keyed():
    s = Server({
        "runners": 1, "runnerSlots": 1, "queueMax": 5, "bodyLimitBytes": 65536,
        "filesMax": 3, "fileMaxBytes": 1000,
        "keys": [
            {"name": "judge", "sha256": sha256(JUDGE), "tiers": ["worker", "process"],
             "ceiling": {"timeoutMs": 10000, "memoryBytes": 268435456, "maxOutputBytes": 1000,
                         "fs": False, "net": False},
             "concurrency": 3, "ratePerSecond": 1000},
            {"name": "slow", "sha256": sha256(SLOW), "tiers": ["worker"], "ratePerSecond": 2},
            {"name": "bulk", "sha256": sha256(BULK), "concurrency": 100,
             "ratePerSecond": 100000},
        ]})
    yield s
    assert s.stop() == 0, s.logtext()


ONE = {"tier": "worker", "code": "return 1"}


def test_keys_are_required_and_matched(keyed):
    r = keyed.run(ONE)
    assert r.status == 401 and "API key is required" in r.json()["error"]["message"]
    assert keyed.run(ONE, token="wrong").status == 401
    assert keyed.run(ONE, token=JUDGE).json()["value"] == 1
    r = keyed.run(ONE, headers={"X-Api-Key": JUDGE})
    assert r.status == 200 and r.json()["value"] == 1
    assert keyed.get("/healthz").status == 200 and keyed.get("/metrics").status == 200
    # a run is another key's business: 404, as if it did not exist
    rid = keyed.run(dict(ONE, wait=False), token=BULK).json()["id"]
    assert keyed.get("/v1/runs/" + rid, token=JUDGE).status == 404
    assert keyed.get("/v1/runs/" + rid, token=BULK).status == 200
    assert keyed.get("/v1/runs/" + rid).status == 401


def test_ceilings_refuse_naming_the_field(keyed):
    def refusal(body):
        r = keyed.run(body, token=JUDGE)
        assert r.status == 403, r.body
        return r.json()["error"]["message"]

    assert refusal(dict(ONE, policy={"timeoutMs": 60000})) == \
        "policy.timeoutMs: 60000 exceeds this key's ceiling 10000"
    assert refusal(dict(ONE, policy={"memoryBytes": 536870912})) == \
        "policy.memoryBytes: 536870912 exceeds this key's ceiling 268435456"
    assert refusal(dict(ONE, policy={"maxOutputBytes": 2000})) == \
        "policy.maxOutputBytes: 2000 exceeds this key's ceiling 1000"
    assert "policy.fs" in refusal({"tier": "process", "command": ["/bin/true"],
                                   "policy": {"fs": ["/etc"]}})
    assert "policy.net" in refusal({"tier": "process", "command": ["/bin/true"],
                                    "policy": {"net": {"loopback": True}}})
    assert refusal({"tier": "wasm", "module": "AGFzbQEAAAA="}) == \
        "request.tier: this key may not use the wasm tier"
    # at the ceiling is fine; a limit left out gets min(library default, ceiling): 1000 here
    assert keyed.run(dict(ONE, policy={"timeoutMs": 10000}), token=JUDGE).status == 200
    j = keyed.run({"tier": "worker", "code": "console.log('x'.repeat(5000))"}, token=JUDGE).json()
    assert j["stdoutTruncated"] and len(j["stdout"]) == 1000
    # a bad policy is the library's message, with its path
    r = keyed.run(dict(ONE, policy={"cpuPercent": 150}), token=JUDGE)
    assert r.status == 400 and r.json()["error"]["message"].startswith("policy.cpuPercent:")


def test_bad_input_is_a_clear_400(keyed):
    def err(body, status=400):
        r = keyed.request("POST", "/v1/runs", body if isinstance(body, bytes) else
                          json.dumps(body).encode(), token=BULK)
        assert r.status == status, r.body
        return r.json()["error"]["message"]

    m = err(b'{\n  "tier": "worker",\n  "code": }')
    assert "line 3, column" in m, m
    assert err(b'{"tier": "worker", "tier": "process"}').startswith("request: invalid JSON")
    assert err({"tier": "worker", "code": "return 1", "bogus": 1}) == "request.bogus: unknown field"
    assert err({"tier": "worker", "code": 5}) == "request.code: must be a string"
    assert err({"tier": "process", "command": ["/bin/true"], "files": [{"name": "a", "x": 1}]}) \
        == "request.files[0].x: unknown field"
    assert "request.files[0].encoding: must be one of" in err(
        {"tier": "process", "command": ["/bin/true"],
         "files": [{"name": "a", "content": "", "encoding": "hex"}]})
    assert err({"tier": "process", "command": ["/bin/true"], "args": [1]}) == \
        "request.args[0]: must be a string"
    assert err({"tier": "vm", "code": "x"}).startswith("request.tier: must be one of")
    assert "worker tier runs code" in err({"tier": "worker", "command": ["x"]})
    assert "not base64" in err({"tier": "wasm", "module": "%%%"})
    for name in ("../x", "/etc/passwd", "a//b", "a/../b", "a/"):
        assert name in err({"tier": "process", "command": ["/bin/true"],
                            "files": [{"name": name, "content": ""}]})
    assert "filesMax" in err({"tier": "process", "command": ["/bin/true"],
                              "files": [{"name": "f%d" % i, "content": ""} for i in range(4)]})
    assert "fileMaxBytes" in err({"tier": "process", "command": ["/bin/true"],
                                  "files": [{"name": "f", "content": "x" * 1001}]}, 413)
    assert "bodyLimitBytes" in err({"tier": "worker", "code": "x" * 70000}, 413)
    assert err({"tier": "process", "command": ["/bin/true"],
                "callbackUrl": "ftp://example.org/"}).startswith("request.callbackUrl")


def raw(server, data, read=True, timeout=10):
    s = socket.create_connection((server.host, server.port), timeout=timeout)
    s.sendall(data)
    out = b""
    while read:
        chunk = s.recv(65536)
        if not chunk:
            break
        out += chunk
    s.close()
    return out


def test_chunked_body_over_the_limit_is_413(keyed):
    body = b"x" * 40000
    chunk = b"%x\r\n%s\r\n" % (len(body), body)
    head = (b"POST /v1/runs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n" % BULK.encode())
    out = raw(keyed, head + chunk + chunk + b"0\r\n\r\n")
    assert out.startswith(b"HTTP/1.1 413"), out[:200]


def test_rate_limit_429(keyed):
    statuses = [keyed.run(ONE, token=SLOW) for _ in range(4)]
    limited = [r for r in statuses if r.status == 429]
    assert limited, [r.status for r in statuses]
    assert int(limited[0].headers["Retry-After"]) >= 1
    assert "ratePerSecond" in limited[0].json()["error"]["message"]
    time.sleep(1.1)  # the bucket refills
    assert keyed.run(ONE, token=SLOW).status == 200


def test_concurrency_429_then_released(keyed):
    long = {"tier": "worker", "code": "for(;;){}", "policy": {"timeoutMs": 8000}, "wait": False}
    ids = [keyed.run(long, token=JUDGE).json()["id"] for _ in range(3)]
    r = keyed.run(long, token=JUDGE)
    assert r.status == 429 and r.headers["Retry-After"] == "1"
    assert "concurrency" in r.json()["error"]["message"]
    for rid in ids:
        keyed.request("DELETE", "/v1/runs/" + rid, token=JUDGE)
    deadline = time.monotonic() + 20
    while keyed.run(ONE, token=JUDGE).status == 429:
        assert time.monotonic() < deadline
        time.sleep(0.1)


def test_queue_full_503(keyed):
    long = {"tier": "worker", "code": "for(;;){}", "policy": {"timeoutMs": 8000}, "wait": False}
    accepted, full = [], None
    for _ in range(10):  # 1 runner x 1 slot runs one; queueMax 5 hold the rest
        r = keyed.run(long, token=BULK)
        if r.status == 503:
            full = r
            break
        accepted.append(r.json()["id"])
    assert full is not None and 5 <= len(accepted) <= 6, len(accepted)
    assert full.headers["Retry-After"] == "1" and "queue is full" in full.json()["error"]["message"]
    for rid in accepted:
        keyed.request("DELETE", "/v1/runs/" + rid, token=BULK)


def test_slow_headers_and_body_are_cut(keyed):
    t0 = time.monotonic()
    out = raw(keyed, b"POST /v1/runs HTTP/1.1\r\nHost: x\r\n")  # headers never end
    took = time.monotonic() - t0
    assert out == b"" and 2.5 < took < 8, (out, took)  # headerTimeoutMs 3000
    s = socket.create_connection((keyed.host, keyed.port), timeout=10)
    s.sendall(b"POST /v1/runs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + BULK.encode() +
              b"\r\nContent-Length: 100\r\n\r\n")
    t0 = time.monotonic()
    got = b""
    try:
        for _ in range(20):  # a byte every 0.4 s: never idle, never done
            s.sendall(b" ")
            time.sleep(0.4)
    except OSError:
        pass
    try:
        while True:
            chunk = s.recv(4096)
            if not chunk:
                break
            got += chunk
    except OSError:
        pass
    took = time.monotonic() - t0
    s.close()
    assert took < 8, took  # bodyTimeoutMs 3000
    assert got == b"" or got.startswith(b"HTTP/1.1 408"), got[:100]
    # control: a whole request on a fresh connection is answered
    assert keyed.run(ONE, token=BULK).status == 200


def test_sighup_reloads_keys(keyed):
    new = "fresh-token"
    with open(keyed.config_path) as f:
        cfg = json.load(f)
    cfg["keys"].append({"name": "fresh", "sha256": sha256(new)})
    keyed.write_config(cfg)
    assert keyed.run(ONE, token=new).status == 401
    keyed.proc.send_signal(signal.SIGHUP)
    keyed.wait_log(r"SIGHUP: reloaded 4 key", 10)
    assert keyed.run(ONE, token=new).status == 200
    with open(keyed.config_path, "w") as f:
        f.write("{broken")
    keyed.proc.send_signal(signal.SIGHUP)
    keyed.wait_log(r"keeping the current keys", 10)
    assert keyed.run(ONE, token=new).status == 200


def test_no_keys_means_loopback_only():
    s = Server({"listen": "0.0.0.0:0", "runners": 1})
    try:
        assert "listening on the loopback only" in s.logtext()
        assert s.host == "127.0.0.1"
        assert s.run(ONE).json()["value"] == 1  # the anonymous key
    finally:
        assert s.stop() == 0, s.logtext()
