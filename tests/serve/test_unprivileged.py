"""The server runs as an unprivileged user: started as nobody (setpriv), every tier works,
files land in /work, and the jail says what it could enforce without root."""

import os
import shutil

import pytest

from conftest import Server


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("setpriv"),
                    reason="needs root to become nobody (unprivileged already otherwise)")
def test_serve_as_nobody():
    s = Server({"runners": 1}, prefix=["setpriv", "--reuid=65534", "--regid=65534",
                                       "--clear-groups", "--"])
    try:
        with open("/proc/%d/status" % s.proc.pid) as f:
            assert "Uid:\t65534\t65534\t65534\t65534" in f.read()
        info = s.get("/v1/info").json()
        assert set(info["tiers"]) >= {"worker", "wasm"}
        assert s.run({"tier": "worker", "code": "return 1"}).json()["value"] == 1
        if "process" not in info["tiers"]:
            pytest.skip("this host gives nobody no user namespaces: no process tier")
        j = s.run({"tier": "process", "command": ["/bin/sh", "-c", "id -u; cat f"],
                   "files": [{"name": "f", "content": "x"}]}).json()
        assert j["ok"] and j["stdout"] == "1000\nx", j
    finally:
        assert s.stop() == 0, s.logtext()
