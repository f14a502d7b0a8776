"""Piston's API v2 (engineer-man/piston docs/api-v2.md) through urllib: runtimes, execute in
each kind of runtime (interpreted, compiled, the worker tier), its response fields, its errors.
The piston-client package runs against the same server in piston-client.sh."""

import shutil

import pytest

from conftest import Server


@pytest.fixture(scope="module")
def server():
    s = Server({"runners": 2})
    yield s
    assert s.stop() == 0, s.logtext()


def execute(server, body):
    r = server.post("/api/v2/execute", body, timeout=120)
    return r.status, r.json()


def test_runtimes(server):
    rt = server.get("/api/v2/runtimes").json()
    names = {r["language"] for r in rt}
    assert "javascript" in names
    for r in rt:
        assert set(r) == {"language", "version", "aliases"} and r["version"]
    if shutil.which("python3"):
        py = next(r for r in rt if r["language"] == "python")
        assert "py" in py["aliases"] and py["version"][0].isdigit()


STAGE_KEYS = {"stdout", "stderr", "output", "code", "signal", "message", "status", "cpu_time",
              "wall_time", "memory"}


@pytest.mark.skipif(not shutil.which("python3"), reason="no python3")
def test_python_run(server):
    st, j = execute(server, {"language": "py", "version": "*",
                             "files": [{"content": "import sys\nprint(sys.argv[1:], input())\n"
                                       "sys.stdout.flush()\nprint('e', file=sys.stderr)"}],
                             "stdin": "in", "args": ["1", "2"]})
    assert st == 200, j
    assert j["language"] == "python" and j["version"][0].isdigit()
    run = j["run"]
    assert set(run) == STAGE_KEYS and "compile" not in j
    assert run["stdout"] == "['1', '2'] in\n" and run["stderr"] == "e\n"
    assert run["output"] == "['1', '2'] in\ne\n"  # both streams, in the order written
    assert run["code"] == 0 and run["signal"] is None and run["status"] is None
    st, j = execute(server, {"language": "python", "files": [{"content": "import time\n"
                                                              "time.sleep(5)"}],
                             "run_timeout": 300})
    assert j["run"]["status"] == "TO" and j["run"]["signal"] == "SIGKILL" and j["run"]["code"] is None
    st, j = execute(server, {"language": "python", "files": [{"content": "raise SystemExit(4)"}]})
    assert j["run"]["code"] == 4 and j["run"]["status"] == "RE"


@pytest.mark.skipif(not shutil.which("gcc"), reason="no gcc")
def test_c_compile_and_run(server):
    src = '#include <stdio.h>\nint main(int c, char **v) { printf("%d %s\\n", c, v[1]); }\n'
    st, j = execute(server, {"language": "c", "version": "*", "files": [{"name": "m.c",
                                                                         "content": src}],
                             "args": ["x"]})
    assert st == 200, j
    assert j["compile"]["code"] == 0 and j["run"]["stdout"] == "2 x\n", j
    st, j = execute(server, {"language": "gcc", "files": [{"content": "int main( {"}]})
    assert j["compile"]["code"] != 0 and "error" in j["compile"]["stderr"] and "run" not in j


def test_javascript_worker_tier(server):
    st, j = execute(server, {"language": "js", "files": [{"content":
                                                          "console.log(context.args.join(','), "
                                                          "context.stdin)"}],
                             "args": ["1", "2", "3"], "stdin": "s"})
    assert st == 200 and j["run"]["stdout"] == "1,2,3 s\n" and j["run"]["code"] == 0, j
    st, j = execute(server, {"language": "javascript", "files": [{"content": "throw new Error('b')"}]})
    assert j["run"]["code"] == 1 and "b" in j["run"]["message"]


def test_piston_errors(server):
    st, j = execute(server, {"language": "cobol", "version": "1", "files": [{"content": ""}]})
    assert st == 400 and j == {"message": "cobol-1 runtime is unknown"}
    st, j = execute(server, {"version": "*", "files": []})
    assert st == 400 and j["message"] == "language is required as a string"
    st, j = execute(server, {"language": "js", "files": "x"})
    assert st == 400 and j["message"] == "files is required as an array"
    st, j = execute(server, {"language": "js", "files": [{"content": "1"}], "run_timeout": "x"})
    assert st == 400 and "must be numbers" in j["message"]
    r = server.request("POST", "/api/v2/execute", b"{oops")
    assert r.status == 400 and "line 1" in r.json()["message"]
