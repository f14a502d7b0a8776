"""eval_js / run / Sandbox and the asyncio forms: values, output, errors, limits, the GIL."""

import asyncio
import threading
import time

import pytest

import sbx
from helpers import when_running


def test_eval_js_value_output_context():
    r = sbx.eval_js('console.log("hi", context.who); return context.a + 1;', {"a": 41, "who": "me"})
    assert r.ok and r.value == 42
    assert r.stdout == "hi me\n" and r.stderr == ""
    assert r.error is None and r.backend == "worker"
    assert isinstance(r.duration_ms, float)
    assert sbx.eval_js("return {x: [1, 'two', null]};").value == {"x": [1, "two", None]}
    assert sbx.eval_js("var a = 1;").value is None


def test_lone_surrogate_value_stays_an_object():
    # Issue 23, item 4: lone surrogates become U+FFFD; the value was turned into a string.
    code = 'return {admin: false, note: "\\ud800", k: ["\\udc00x\\ud83d\\ude00"]}'
    for backend in ("worker", "process"):
        r = sbx.eval_js(code, backend=backend)
        assert r.ok, r.error
        assert r.value == {"admin": False, "note": "\ufffd", "k": ["\ufffdx\U0001f600"]}, backend


def test_errors_carry_line_column_and_stack():
    # Issue 23, item 8: line and column in the message, the guest's stack in error.stack.
    code = "function f(o) {\n  return o.x.y;\n}\nf({});"
    for backend in ("worker", "process"):
        r = sbx.eval_js(code, backend=backend)
        assert r.error.message.endswith("o.x is undefined (line 2, column 3)"), backend
        assert r.error.stack.endswith("\n    at f (code:2:3)\n    at code:4:2"), backend
    assert sbx.eval_js("return 1").error is None


def test_eval_js_guest_errors_are_results_not_exceptions():
    r = sbx.eval_js('throw new Error("boom");')
    assert not r.ok and r.error.code == "SANDBOX_EXECUTION_FAILED" and "boom" in r.error.message
    assert sbx.eval_js("return (;").error.code == "SANDBOX_EXECUTION_FAILED"
    with pytest.raises(sbx.SbxError) as e:
        r.raise_for_error()
    assert e.value.code == "SANDBOX_EXECUTION_FAILED" and e.value.result is r
    assert e.value.value == sbx.ERROR_CODES["SANDBOX_EXECUTION_FAILED"] == 4
    assert sbx.eval_js("return 1").raise_for_error().value == 1


def test_eval_js_timeout_and_policy():
    t0 = time.monotonic()
    r = sbx.eval_js("for (;;) {}", timeout=150)
    assert r.error.code == "SANDBOX_TIMEOUT" and time.monotonic() - t0 < 5
    assert sbx.eval_js("while (true) {}", policy={"timeoutMs": 100}).error.code == "SANDBOX_TIMEOUT"
    r = sbx.eval_js("var s = 'xxxxxxxxxxxxxxxx'; for (var i = 0; i < 1000; i++) console.log(s);",
                    policy={"maxOutputBytes": 4096})
    assert r.stdout_truncated and len(r.stdout) <= 4096


def test_bad_arguments_raise_with_codes():
    with pytest.raises(sbx.PolicyError) as e:
        sbx.eval_js("return 1", policy={"cpuPercent": 150})
    assert e.value.path == "policy.cpuPercent" and e.value.code == "SANDBOX_INVALID_OPTIONS"
    with pytest.raises(sbx.SbxError) as e2:
        sbx.eval_js("return 1", context={1, 2})
    assert e2.value.code == "SANDBOX_INVALID_ARGUMENT"
    with pytest.raises(sbx.SbxError) as e3:
        sbx.eval_js("return 1", backend="quantum")
    assert e3.value.code == "SANDBOX_INVALID_OPTIONS"
    with pytest.raises(sbx.PolicyError):
        sbx.eval_js("return 1", timeout=0)


def test_process_tier_eval_and_command():
    r = sbx.eval_js('console.log("jail"); return context.a * 2;', {"a": 21}, backend="process")
    assert r.ok, r.error
    assert r.value == 42 and r.stdout == "jail\n" and r.exit_code == 0 and r.backend == "process"
    c = sbx.run(["/bin/sh", "-c", "cat; echo err >&2; exit 3"], stdin="fed in")
    assert not c.ok and c.exit_code == 3 and c.stdout == "fed in" and c.stderr == "err\n"
    assert c.error.code == "SANDBOX_EXECUTION_FAILED"
    assert sbx.run(["/bin/true"]).ok
    assert sbx.run(["/bin/cat"], stdin=b"bytes").stdout == "bytes"
    for bad in ([], "ls", [1]):
        with pytest.raises(sbx.SbxError):
            sbx.run(bad)
    with pytest.raises(sbx.SbxError):
        sbx.run(["/bin/cat"], stdin=b"a\0b")


def test_process_tier_blocks_ungranted_files():
    assert not sbx.run(["/bin/cat", "/etc/hostname"]).ok
    r = sbx.run(["/bin/cat", "/etc/hostname"], policy={"fs": ["/etc/hostname"]})  # control
    assert r.ok and r.stdout


DENIED_SCRIPT = r"""import socket, struct, sys
def q(name):
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.settimeout(2)
    l = b''.join(bytes([len(x)]) + x.encode() for x in name.split('.'))
    u.sendto(struct.pack('!6H', 7, 0x100, 1, 0, 0, 0) + l + b'\0\0\1\0\1', ('127.0.0.1', 53))
    return u.recv(512)[3] & 15
port = int(sys.argv[1])
print(socket.socket().connect_ex(('127.0.0.1', port + 1)), socket.socket().connect_ex(('127.0.0.1', port + 1)))
print(q('evil.example'))
print(socket.create_connection(('127.0.0.1', port), timeout=5).recv(2).decode())
"""


def test_process_result_lists_denied_destinations():
    """A port denied twice and an unlisted name: both listed with counts; the allowed connect
    (control: it reaches the server) is not."""
    import socket
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(4)
    port = srv.getsockname()[1]

    def serve():
        c, _ = srv.accept()
        c.sendall(b"hi")
        c.close()

    t = threading.Thread(target=serve, daemon=True)
    t.start()
    try:
        r = sbx.run(["python3", "-S", "-c", DENIED_SCRIPT, str(port)],
                    policy={"net": {"outbound": [f"127.0.0.1:{port}"]}})
    finally:
        t.join(10)
        srv.close()
    assert r.ok, r
    assert r.stdout == "111 111\n3\nhi\n"
    assert r.denied == sbx.Denied(total=3, truncated=False, destinations=(
        sbx.Denial(kind="connect", family="ipv4", host="127.0.0.1", port=port + 1,
                   destination=f"127.0.0.1:{port + 1}", count=2),
        sbx.Denial(kind="dns", family=None, host="evil.example", port=None,
                   destination="evil.example", count=1),
    ))
    assert sbx.run(["/bin/true"]).denied == sbx.Denied()


def test_process_timeout():
    r = sbx.run(["/bin/sh", "-c", "while :; do :; done"], timeout=200)
    assert r.error.code == "SANDBOX_TIMEOUT"


def test_sandbox_reuse_abort_dispose():
    with sbx.Sandbox("worker", {"timeoutMs": 10000}) as sb:
        assert sb.eval_js("return context * 2", 21).value == 42
        when_running(sb, sb.abort)
        t0 = time.monotonic()
        assert sb.eval_js("for (;;) {}").error.code == "SANDBOX_ABORTED"
        assert time.monotonic() - t0 < 5
        assert sb.eval_js("return 1").value == 1  # usable after an abort
    assert sb.eval_js("return 1").error.code == "SANDBOX_DISPOSED"
    sb.dispose()  # idempotent
    sb.close()


def test_dispose_during_a_run_aborts_it():
    sb = sbx.Sandbox("worker", {"timeoutMs": 10000})
    t = when_running(sb, sb.dispose)
    assert sb.eval_js("for (;;) {}").error.code == "SANDBOX_ABORTED"
    t.join()  # dispose() returns once the run it aborted has ended
    assert sb.eval_js("return 1").error.code == "SANDBOX_DISPOSED"


def test_abort_while_idle_does_not_stick():
    sb = sbx.Sandbox("worker")
    sb.abort()
    assert sb.eval_js("return 1").value == 1
    when_running(sb, sb.abort)
    assert sb.eval_js("for (;;) {}", None).error.code == "SANDBOX_ABORTED"
    sb.dispose()


def test_gil_is_released_runs_overlap():
    results = []
    def spin():
        results.append(sbx.eval_js("for (;;) {}", timeout=400))
    threads = [threading.Thread(target=spin) for _ in range(2)]
    t0 = time.monotonic()
    for t in threads:
        t.start()
    # the main thread runs Python meanwhile: it would stall if a run held the GIL
    ticks = 0
    while any(t.is_alive() for t in threads):
        ticks += 1
        time.sleep(0.01)
    wall = (time.monotonic() - t0) * 1000
    assert [r.error.code for r in results] == ["SANDBOX_TIMEOUT"] * 2
    total = sum(r.duration_ms for r in results)
    assert wall < total * 0.8, f"two runs of {total:.0f} ms together took {wall:.0f} ms"
    assert ticks >= 5


def test_asyncio_variants_do_not_block_the_loop():
    async def main():
        ticks = 0
        async def ticker():
            nonlocal ticks
            while True:
                ticks += 1
                await asyncio.sleep(0.01)
        t = asyncio.create_task(ticker())
        r = await sbx.aeval_js("for (;;) {}", timeout=300)
        c = await sbx.arun(["/bin/echo", "hi"])
        v = await sbx.aeval_js("return context.a", {"a": 5}, backend="worker")
        t.cancel()
        return r, c, v, ticks
    r, c, v, ticks = asyncio.run(main())
    assert r.error.code == "SANDBOX_TIMEOUT" and c.stdout == "hi\n" and v.value == 5
    assert ticks >= 10, f"{ticks} loop ticks during a 300 ms run"


def test_asyncio_cancellation_aborts_the_run():
    async def main():
        task = asyncio.create_task(sbx.aeval_js("for (;;) {}", timeout=20000))
        await asyncio.sleep(0.1)
        t0 = time.monotonic()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return time.monotonic() - t0
    assert asyncio.run(main()) < 5


def test_on_output_streams_chunks_as_written():
    got = []
    t0 = time.monotonic()

    def tap(stream, data):
        got.append((stream, data, time.monotonic() - t0))

    code = ("console.log('a'); console.error('b');"
            "const t = Date.now(); while (Date.now() - t < 300) {} console.log('c'); return 1")
    r = sbx.eval_js(code, on_output=tap)
    took = time.monotonic() - t0
    assert r.ok and [(s, d) for s, d, _ in got] == [("stdout", b"a\n"), ("stderr", b"b\n"),
                                                    ("stdout", b"c\n")]
    assert got[0][2] < took - 0.2  # the first chunk came while the guest still ran
    chunks = []
    r = sbx.run(["/bin/sh", "-c", "echo x; echo y >&2"], on_output=lambda s, d: chunks.append((s, d)))
    assert r.ok
    assert b"".join(d for s, d in chunks if s == "stdout") == b"x\n"
    assert b"".join(d for s, d in chunks if s == "stderr") == b"y\n"


def test_on_output_error_is_raised_after_the_run():
    def tap(stream, data):
        raise ValueError("tap failed")

    with pytest.raises(ValueError, match="tap failed"):
        sbx.eval_js("console.log(1); return 1", on_output=tap)


def test_run_cwd():
    r = sbx.run(["/bin/pwd"], cwd="/usr")
    assert r.ok and r.stdout == "/usr\n"


def test_preload_each_run_fresh():
    # Issue 26, item 3: each run sees the preload evaluated in its fresh realm; what a run does
    # to it never reaches the next (control: within the run the change holds). Errors name it.
    lib = 'var lib = {n: 0, tag: "a\\u0000b"};\nfunction bump() { return ++lib.n; }\n'
    with sbx.Sandbox("worker", preload=[("lib.js", lib), "var twice = bump() * 2;"]) as sb:
        r1 = sb.eval_js('bump(); lib.tag = "evil"; Object.prototype.x = 1;'
                        ' return [lib.n, twice, lib.tag]')
        assert r1.value == [2, 2, "evil"], r1.error
        r2 = sb.eval_js("return [lib.n, twice, lib.tag.length, ({}).x]")
        assert r2.value == [1, 2, 3, None], r2.error
    with sbx.Sandbox("worker", preload=["function f() {\n  null.x;\n}\nf();"]) as sb:
        r = sb.eval_js("return 1")
        assert not r.ok and r.error.code == "SANDBOX_EXECUTION_FAILED"
        assert r.error.message.startswith("preload preload-1.js: TypeError: ")
        assert r.error.message.endswith("(preload-1.js, line 2, column 3)")
        assert "at f (preload-1.js:2:3)" in r.error.stack
    for bad in ("var a;", [("x.js", 1)], [("", "var a;")]):
        with pytest.raises(sbx.SbxError) as e:
            sbx.Sandbox("worker", preload=bad)  # type: ignore[arg-type]
        assert e.value.code == "SANDBOX_INVALID_OPTIONS"
    with pytest.raises(sbx.SbxError) as e:
        sbx.Sandbox("process", preload=["var a;"])
    assert e.value.code == "SANDBOX_INVALID_ARGUMENT"
