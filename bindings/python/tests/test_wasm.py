"""WasmPlugin: typed calls, capability imports (sync, async, failing, denied), limits, lifetime."""

import asyncio
import threading
import time

import pytest

import sbx
from helpers import when_running


def grants(*names):
    return {"timeoutMs": 2000, "capabilities": {n: "allow" for n in names}}


def test_typed_calls_and_output(plugin_wasm):
    with sbx.WasmPlugin(plugin_wasm) as p:
        assert p.call("add", 2, 3) == 5
        assert p.call("add64", 2**40, 5) == 2**40 + 5
        assert p.call("hyp", 3.0, 4.0) == 25.0
        assert p.call("hello") == 0
        assert p.last_result.stdout == "hello from wasm\n"
        r = p.call_result("add", 1, 1)
        assert r.ok and r.values == (2,) and r.value == 2 and r.backend == "wasm"


def test_imports_sync_and_errors(plugin_wasm):
    seen = []
    imports = {"host.log": seen.append, "host.twice": lambda x: x * 2,
               "host.mix": lambda a, b: a + round(b)}
    with sbx.WasmPlugin(plugin_wasm, grants(*imports), imports=imports) as p:
        assert p.call("say", 7) == 7 and seen == [7]
        assert p.call("twice", 21) == 42
        assert p.call("mix", 10, 2.6) == 13
        assert p.denied_count == 0
    def boom(x):
        raise RuntimeError("no doubling today")
    with sbx.WasmPlugin(plugin_wasm, grants("host.twice"), imports={"host.twice": boom}) as p:
        with pytest.raises(sbx.SbxError) as e:
            p.call("twice", 1)
        assert e.value.code == "SAND_WASM_TRAP" and "no doubling today" in e.value.message
        assert p.call("add", 1, 2) == 3  # the instance survives
    with sbx.WasmPlugin(plugin_wasm, grants("host.twice"), imports={"host.twice": lambda x: "x"}) as p:
        with pytest.raises(sbx.SbxError) as e:
            p.call("twice", 1)
        assert e.value.code == "SAND_WASM_TRAP" and "host.twice" in e.value.message


def test_missing_grant_is_a_denial(plugin_wasm):
    calls = []
    secret = lambda: calls.append(1) or 42  # noqa: E731
    with sbx.WasmPlugin(plugin_wasm, {}, imports={"host.secret": secret}) as p:
        assert p.call("secret") == -76  # SBX_WASM_DENIED
        assert calls == [] and p.denied_count == 1
    with sbx.WasmPlugin(plugin_wasm, grants("host.secret"), imports={"host.secret": secret}) as p:
        assert p.call("secret") == 42 and calls == [1] and p.denied_count == 0  # control
    with pytest.raises(sbx.SbxError) as e:  # granted but nobody provides it
        sbx.WasmPlugin(plugin_wasm, grants("host.secret"))
    assert e.value.code == "SAND_WASM_LINK_ERROR"


def test_async_import_under_acall_runs_on_the_loop(plugin_wasm):
    async def twice(x):
        await asyncio.sleep(0.03)
        return x * 2
    async def fails(x):
        raise ValueError("async no")
    async def main():
        with sbx.WasmPlugin(plugin_wasm, grants("host.twice"), imports={"host.twice": twice}) as p:
            v = await p.acall("twice", 21)
        with sbx.WasmPlugin(plugin_wasm, grants("host.twice"), imports={"host.twice": fails}) as q:
            with pytest.raises(sbx.SbxError) as e:
                await q.acall("twice", 1)
        return v, e.value
    v, err = asyncio.run(main())
    assert v == 42 and err.code == "SAND_WASM_TRAP" and "async no" in err.message
    # the synchronous call() runs an awaitable import to completion on the guest's thread
    with sbx.WasmPlugin(plugin_wasm, grants("host.twice"), imports={"host.twice": twice}) as p:
        assert p.call("twice", 5) == 10


def test_trap_timeout_fuel_unknown_export_bad_args(plugin_wasm):
    with sbx.WasmPlugin(plugin_wasm, {"timeoutMs": 200}) as p:
        with pytest.raises(sbx.SbxError) as e:
            p.call("crash")
        assert e.value.code == "SAND_WASM_TRAP"
        t0 = time.monotonic()
        with pytest.raises(sbx.SbxError) as e:
            p.call("spin")
        assert e.value.code == "SANDBOX_TIMEOUT" and time.monotonic() - t0 < 5
        assert e.value.result.limit == "timeout"
        with pytest.raises(sbx.SbxError) as e:
            p.call("nope")
        assert e.value.code == "SAND_WASM_EXPORT_NOT_FOUND"
        with pytest.raises(sbx.SbxError) as e:
            p.call("add", 1)
        assert e.value.code == "SANDBOX_INVALID_ARGUMENT"
        with pytest.raises(sbx.SbxError) as e:
            p.call("add", "x", 1)
        assert e.value.code == "SANDBOX_INVALID_ARGUMENT"
    with sbx.WasmPlugin(plugin_wasm, {"fuel": 100000}) as p:
        with pytest.raises(sbx.SbxError) as e:
            p.call("spin")
        assert e.value.code == "SAND_WASM_FUEL_EXHAUSTED"


def test_abort_and_dispose(plugin_wasm):
    p = sbx.WasmPlugin(plugin_wasm, {"timeoutMs": 10000})
    when_running(p, p.abort)
    with pytest.raises(sbx.SbxError) as e:
        p.call("spin")
    assert e.value.code == "SANDBOX_ABORTED"
    p.abort()  # idle: no effect on the next call
    assert p.call("add", 1, 1) == 2
    t = when_running(p, p.dispose)
    with pytest.raises(sbx.SbxError) as e:
        p.call("spin")
    assert e.value.code == "SANDBOX_ABORTED"
    t.join()
    p.dispose()
    with pytest.raises(sbx.SbxError) as e:
        p.call("add", 1, 2)
    assert e.value.code == "SAND_WASM_DISPOSED"
    assert p.run().error.code == "SAND_WASM_DISPOSED"


def test_acall_cancellation_aborts(plugin_wasm):
    async def main():
        with sbx.WasmPlugin(plugin_wasm, {"timeoutMs": 20000}) as p:
            task = asyncio.create_task(p.acall("spin"))
            await asyncio.sleep(0.1)
            t0 = time.monotonic()
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            return time.monotonic() - t0, await p.acall("add", 2, 2)
    took, v = asyncio.run(main())
    assert took < 5 and v == 4


def test_command_argv_stdin_exit(command_wasm, plugin_wasm):
    with sbx.WasmPlugin(command_wasm, {}, argv=["cmd", "x", "3"], stdin="input\n") as p:
        r = p.run()
        assert r.stdout == "arg x\narg 3\ninput\n" and r.exit_code == 3
        assert r.error.code == "SANDBOX_EXECUTION_FAILED"
    with sbx.WasmPlugin(command_wasm, {}, argv=["cmd", "0"], stdin=b"") as p:
        r = asyncio.run(p.arun())
        assert r.ok and r.exit_code == 0
    with sbx.WasmPlugin(plugin_wasm) as p:
        assert p.run().error.code == "SAND_WASM_EXPORT_NOT_FOUND"
    p.close()  # idempotent alias of dispose()
    assert p.run().error.code == "SAND_WASM_DISPOSED"


def test_bad_modules_and_options(plugin_wasm):
    with pytest.raises(sbx.SbxError) as e:
        sbx.WasmPlugin(b"\0asm\x09")
    assert e.value.code == "SAND_WASM_INVALID_MODULE" and "malformed" in e.value.message
    with pytest.raises(sbx.PolicyError):
        sbx.WasmPlugin(plugin_wasm, {"fuel": -1})
    with pytest.raises(sbx.SbxError) as e:
        sbx.WasmPlugin(plugin_wasm, {}, imports={"host.log": 5})
    assert e.value.code == "SANDBOX_INVALID_OPTIONS"


def test_abort_racing_the_start_of_a_call_is_never_lost(plugin_wasm):
    sb = sbx.Sandbox("worker", {"timeoutMs": 3000})
    with sbx.WasmPlugin(plugin_wasm, {"timeoutMs": 3000}) as p:
        for i in range(8):
            for target, call in ((p, lambda: p.call_result("spin")),
                                 (sb, lambda: sb.eval_js("for (;;) {}"))):
                def fire():
                    while not target._is_busy:  # the call has taken the handle...
                        pass
                    target.abort()              # ...and may not have reached libsbx yet
                t = threading.Thread(target=fire)
                t.start()
                r = call()
                t.join()
                assert r.error.code == "SANDBOX_ABORTED", f"round {i}: {r.error}"
    sb.dispose()
