"""A real `sbx serve` per test module: started with a config in a temp dir on a free loopback
port (listen 127.0.0.1:0; the port is read from its log), talked to with Python's urllib, and
stopped with SIGTERM, whose exit status the fixture checks (0: drained and stopped cleanly; under
SAN=1 LeakSanitizer makes it non-zero on a leak)."""

import hashlib
import json
import os
import re
import signal
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SBX = os.environ.get("SBX") or os.path.join(ROOT, "build", "sbx")


def sha256(token):
    return hashlib.sha256(token.encode()).hexdigest()


class Response:
    def __init__(self, status, headers, body):
        self.status = status
        self.headers = headers
        self.body = body

    def json(self):
        return json.loads(self.body)


class Server:
    def __init__(self, config=None, args=(), ready=True, prefix=()):
        self.dir = tempfile.mkdtemp(prefix="sbx-serve-test-")
        cfg = {"listen": "127.0.0.1:0", "runners": 2, "headerTimeoutMs": 3000,
               "bodyTimeoutMs": 3000}
        cfg.update(config or {})
        self.config_path = os.path.join(self.dir, "config.json")
        self.write_config(cfg)
        self.log = []
        os.chmod(self.dir, 0o755)  # a server started as another user reads its config
        self.proc = subprocess.Popen([*prefix, SBX, "serve", "--config", self.config_path, *args],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, text=True)
        self.port = None
        self._lines = threading.Condition()
        threading.Thread(target=self._read_log, daemon=True).start()
        where = r"listening on \[?([0-9a-f.:]+?)\]?:(\d+)$"
        self.wait_log(where, 30)
        m = re.search(where, self.logtext(), re.M)
        self.host, self.port = m.group(1), int(m.group(2))
        self.base = "http://%s:%d" % (self.host if ":" not in self.host else "[%s]" % self.host,
                                      self.port)
        if ready:
            self.wait_ready()

    def write_config(self, cfg):
        with open(self.config_path, "w") as f:
            json.dump(cfg, f)

    def _read_log(self):
        for line in self.proc.stderr:
            with self._lines:
                self.log.append(line.rstrip("\n"))
                self._lines.notify_all()

    def logtext(self):
        with self._lines:
            return "\n".join(self.log)

    def wait_log(self, pattern, timeout):
        deadline = time.monotonic() + timeout
        with self._lines:
            while not re.search(pattern, "\n".join(self.log), re.M):
                left = deadline - time.monotonic()
                if left <= 0 or self.proc.poll() is not None:
                    raise AssertionError("no %r in the server's log:\n%s" % (pattern,
                                                                          "\n".join(self.log)))
                self._lines.wait(min(left, 0.2))

    def wait_ready(self, timeout=60):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if self.get("/readyz").status == 200:
                    return
            except OSError:
                pass
            time.sleep(0.1)
        raise AssertionError("not ready:\n" + self.logtext())

    def request(self, method, path, body=None, token=None, headers=None, timeout=60):
        data = body if isinstance(body, (bytes, type(None))) else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method)
        if data is not None:
            req.add_header("Content-Type", "application/json")
        if token:
            req.add_header("Authorization", "Bearer " + token)
        for k, v in (headers or {}).items():
            req.add_header(k, v)
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                return Response(r.status, r.headers, r.read().decode())
        except urllib.error.HTTPError as e:
            return Response(e.code, e.headers, e.read().decode())

    def get(self, path, **kw):
        return self.request("GET", path, **kw)

    def post(self, path, body, **kw):
        return self.request("POST", path, body, **kw)

    def run(self, body, **kw):
        return self.post("/v1/runs", body, **kw)

    def metrics(self):
        return self.get("/metrics").body

    def runner_pids(self):
        """The runner processes: this server's children running `sbx __serve-runner`."""
        pids = []
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            try:
                with open("/proc/%s/stat" % pid) as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
                with open("/proc/%s/cmdline" % pid, "rb") as f:
                    cmd = f.read().split(b"\0")
            except OSError:
                continue
            if ppid == self.proc.pid and b"__serve-runner" in cmd:
                pids.append(int(pid))
        return pids

    def stop(self, sig=signal.SIGTERM, timeout=60):
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError("the server did not stop within %d s:\n%s" % (timeout,
                                                                            self.logtext()))


@pytest.fixture(scope="module")
def server():
    s = Server()
    yield s
    assert s.stop() == 0, s.logtext()
