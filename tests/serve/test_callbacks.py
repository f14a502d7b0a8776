"""callbackUrl: the final result POSTed to a real listener on the loopback (the config allows
private addresses for this test), 3 tries with backoff; and the SSRF refusals without that
allowance: address literals at once (400), a name resolving to the loopback at delivery."""

import http.server
import json
import threading
import time

import pytest

from conftest import Server


class Listener:
    def __init__(self, fail_first=0):
        self.hits = []
        self.fail_first = fail_first
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                outer.hits.append((time.monotonic(), dict(self.headers), body))
                code = 500 if len(outer.hits) <= outer.fail_first else 204
                self.send_response(code)
                self.end_headers()

            def log_message(self, *a):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def wait(self, n, timeout=20):
        deadline = time.monotonic() + timeout
        while len(self.hits) < n:
            assert time.monotonic() < deadline, self.hits
            time.sleep(0.05)

    def close(self):
        self.httpd.shutdown()


@pytest.fixture(scope="module")
def allowing():
    s = Server({"runners": 1, "callbackAllowPrivate": True, "callbackTimeoutMs": 2000})
    yield s
    assert s.stop() == 0, s.logtext()


def test_result_is_posted(allowing):
    lst = Listener()
    try:
        r = allowing.run({"tier": "worker", "code": "return 5", "wait": False,
                          "callbackUrl": "http://127.0.0.1:%d/hook" % lst.port})
        rid = r.json()["id"]
        lst.wait(1)
        _, headers, body = lst.hits[0]
        j = json.loads(body)
        assert j["id"] == rid and j["value"] == 5 and j["ok"] is True
        assert headers["X-Sbx-Run-Id"] == rid and headers["Content-Type"] == "application/json"
    finally:
        lst.close()


def test_three_tries_with_backoff(allowing):
    lst = Listener(fail_first=2)
    try:
        allowing.run({"tier": "worker", "code": "return 1",
                      "callbackUrl": "http://127.0.0.1:%d/" % lst.port})
        lst.wait(3)
        t = [h[0] for h in lst.hits]
        assert t[1] - t[0] >= 0.45 and t[2] - t[1] >= 0.9, t
        time.sleep(1)
        assert len(lst.hits) == 3  # the third succeeded: no fourth
    finally:
        lst.close()
    lst = Listener(fail_first=100)
    try:
        allowing.run({"tier": "worker", "code": "return 1",
                      "callbackUrl": "http://127.0.0.1:%d/" % lst.port})
        lst.wait(3)
        allowing.wait_log("failed after 3 tries", 10)
        time.sleep(1)
        assert len(lst.hits) == 3
        assert "sbx_serve_callbacks_failed_total 1" in allowing.metrics()
    finally:
        lst.close()


def test_ssrf_refusals():
    s = Server({"runners": 1})
    lst = Listener()
    try:
        for url in ("http://127.0.0.1:%d/" % lst.port, "http://[::1]:%d/" % lst.port,
                    "http://169.254.169.254/latest/meta-data/", "http://10.0.0.1/",
                    "http://192.168.1.1/", "http://172.16.0.1/", "http://0x7f.1/",
                    "http://2130706433/", "http://[::ffff:127.0.0.1]/", "http://[fe80::1]/",
                    "http://0.0.0.0/", "http://100.64.0.1/"):
            r = s.run({"tier": "worker", "code": "return 1", "callbackUrl": url})
            assert r.status == 400, (url, r.body)
            assert "refused" in r.json()["error"]["message"], (url, r.body)
        # a name is checked when it is resolved, at delivery: localhost is the loopback
        r = s.run({"tier": "worker", "code": "return 1",
                   "callbackUrl": "http://localhost:%d/" % lst.port})
        assert r.status == 200
        s.wait_log(r"callback of run \S+ to http://localhost:\d+/ refused", 10)
        assert "sbx_serve_callbacks_refused_total 1" in s.metrics()
        time.sleep(0.5)
        assert lst.hits == []  # nothing reached the listener
    finally:
        lst.close()
        assert s.stop() == 0, s.logtext()
