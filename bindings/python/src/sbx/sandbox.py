"""Sandbox (a libsbx sandbox handle), eval_js / run and their asyncio forms.

A handle is used by one thread at a time (a lock serialises runs); abort() is safe from any
thread. The GIL is released inside sbx_sandbox_run, so runs on different threads overlap.
"""

from __future__ import annotations

import asyncio
import ctypes
import json
from typing import Any, Callable, Sequence, Tuple, Union

from ._handle import Handle
from ._lib import Result as CResult
from ._lib import OutputFn, RunInput, lib
from .errors import SbxError, raise_for
from .policy import Policy, PolicyLike
from .result import Result, from_c


def _context_json(context: Any) -> bytes | None:
    if context is None:
        return None
    try:
        return json.dumps(context).encode()
    except (TypeError, ValueError) as e:
        raise SbxError("SANDBOX_INVALID_ARGUMENT", f"context is not JSON-serialisable: {e}") from e


OnOutput = Callable[[str, bytes], None]


class _Tap:
    """Adapts on_output(stream, data) to sbx_output_fn. libsbx calls it on the thread running
    the guest (the engine's thread in the worker tier) while the run lasts; ctypes takes the
    GIL for it. An exception it raises is kept and raised once the run has returned."""

    def __init__(self, fn: OnOutput) -> None:
        if not callable(fn):
            raise SbxError("SANDBOX_INVALID_ARGUMENT", "on_output must be callable")
        self.fn = fn
        self.error: BaseException | None = None
        self.c_fn = OutputFn(self._call)  # referenced here for as long as the run lasts

    def _call(self, _user: Any, stream: int, data: Any, length: int) -> None:
        if self.error is not None:
            return
        try:
            self.fn("stderr" if stream == 2 else "stdout", ctypes.string_at(data, length))
        except BaseException as e:  # noqa: BLE001 - re-raised after the run
            self.error = e


def _backend(name: str) -> int:
    out = ctypes.c_int()
    if lib.sbx_backend_from_name(name.encode(), ctypes.byref(out)) != 0:
        raise SbxError("SANDBOX_INVALID_OPTIONS", f"backend: unknown tier {name!r}")
    return out.value


Preload = Union[str, Tuple[str, str]]


def _preloads(preload: Sequence[Preload] | None) -> list[tuple[bytes, bytes]]:
    if preload is None:
        return []
    if isinstance(preload, (str, bytes)):
        raise SbxError("SANDBOX_INVALID_OPTIONS", "preload must be a list of sources or (name, source)")
    out = []
    for i, p in enumerate(preload):
        if isinstance(p, str):
            out.append((f"preload-{i + 1}.js".encode(), p.encode()))
        elif (isinstance(p, tuple) and len(p) == 2 and isinstance(p[0], str) and p[0]
              and isinstance(p[1], str)):
            out.append((p[0].encode(), p[1].encode()))
        else:
            raise SbxError("SANDBOX_INVALID_OPTIONS",
                           f"preload[{i}]: must be a source or a (name, source) tuple of strings")
    return out


class Sandbox(Handle):
    """One tier ("worker" or "process") under one policy; reusable, a context manager."""

    _c_abort = staticmethod(lib.sbx_sandbox_abort)
    _c_clear_abort = staticmethod(lib.sbx_sandbox_clear_abort)
    _c_dispose = staticmethod(lib.sbx_sandbox_dispose)
    _c_destroy = staticmethod(lib.sbx_sandbox_destroy)

    def __init__(self, backend: str = "worker", policy: PolicyLike = None,
                 timeout: float | None = None, preload: Sequence[Preload] | None = None) -> None:
        """preload (worker tier): scripts each run sees already evaluated in its fresh realm,
        before the body, in order; each a source (named preload-N.js) or (name, source).
        Compiled once per process; nothing they do in one run reaches the next."""
        super().__init__()
        scripts = _preloads(preload)
        pol = Policy.of(policy)
        if timeout is not None:
            pol = pol.with_field("timeoutMs", timeout)
        self.policy = pol
        self.backend = backend
        handle = ctypes.c_void_p()
        raise_for(lib.sbx_sandbox_create(_backend(backend), pol._handle, ctypes.byref(handle)))
        self._handle = handle.value
        for name, source in scripts:
            rc = lib.sbx_sandbox_preload(self._handle, name, source, len(source))
            if rc != 0:
                self.dispose()
                raise_for(rc)

    def _run(self, inp: RunInput, on_output: OnOutput | None = None) -> Result:
        tap = _Tap(on_output) if on_output is not None else None
        if tap:
            inp.on_output = tap.c_fn
        out = CResult()
        rc = self._guarded(
            lambda: lib.sbx_sandbox_run(self._handle, ctypes.byref(inp), ctypes.byref(out)))
        try:
            if rc != 0 and out.error == 0:
                raise_for(rc)
            result = from_c(out)
        finally:
            lib.sbx_result_free(ctypes.byref(out))
        if tap and tap.error is not None:
            raise tap.error
        return result

    def eval_js(self, code: str, context: Any = None, interpreter: str | None = None,
                on_output: OnOutput | None = None) -> Result:
        """Runs a JavaScript function body (`context` injected); process tier: any interpreter.
        on_output(stream, data), if given, gets each chunk of output ("stdout" or "stderr",
        bytes) as the guest writes it, on the thread running the guest."""
        src = code.encode()
        inp = RunInput(code=src, code_len=len(src), context_json=_context_json(context),
                       interpreter=interpreter.encode() if interpreter else None)
        return self._run(inp, on_output)

    def run(self, argv: Sequence[str], stdin: str | bytes | None = None,
            on_output: OnOutput | None = None, cwd: str | None = None) -> Result:
        """Runs a command (process tier); stdin is its standard input (no NUL bytes), cwd its
        working directory in the jail, on_output as for eval_js."""
        if isinstance(argv, (str, bytes)) or not argv or not all(isinstance(a, str) for a in argv):
            raise SbxError("SANDBOX_INVALID_ARGUMENT", "argv must be a non-empty list of strings")
        data = stdin.encode() if isinstance(stdin, str) else stdin
        if data is not None and b"\0" in data:
            raise SbxError("SANDBOX_INVALID_ARGUMENT", "stdin must not contain NUL bytes")
        arr = (ctypes.c_char_p * (len(argv) + 1))(*[a.encode() for a in argv], None)
        inp = RunInput(context_json=data, argv=ctypes.cast(arr, ctypes.POINTER(ctypes.c_char_p)),
                       cwd=cwd.encode() if cwd else None)
        return self._run(inp, on_output)


def eval_js(code: str, context: Any = None, policy: PolicyLike = None, backend: str = "worker",
            timeout: float | None = None, on_output: OnOutput | None = None) -> Result:
    """Runs a JavaScript function body in a fresh sandbox of the tier and returns its Result."""
    with Sandbox(backend, policy, timeout) as sb:
        return sb.eval_js(code, context, on_output=on_output)


def run(argv: Sequence[str], policy: PolicyLike = None, stdin: str | bytes | None = None,
        timeout: float | None = None, on_output: OnOutput | None = None,
        cwd: str | None = None) -> Result:
    """Runs a command in the process tier's jail and returns its Result."""
    with Sandbox("process", policy, timeout) as sb:
        return sb.run(argv, stdin, on_output=on_output, cwd=cwd)


async def _in_thread(sb: Sandbox, fn: Any, *args: Any) -> Result:
    """Runs fn on a worker thread; cancelling the awaiting task aborts the run."""
    loop = asyncio.get_running_loop()
    fut = loop.run_in_executor(None, fn, *args)
    try:
        return await asyncio.shield(fut)
    except asyncio.CancelledError:
        sb.abort()
        await asyncio.wait([fut])
        raise
    finally:
        if fut.done():
            sb.dispose()


async def aeval_js(code: str, context: Any = None, policy: PolicyLike = None,
                   backend: str = "worker", timeout: float | None = None) -> Result:
    """eval_js on a thread: the event loop keeps running; cancellation aborts the run."""
    sb = Sandbox(backend, policy, timeout)
    return await _in_thread(sb, sb.eval_js, code, context)


async def arun(argv: Sequence[str], policy: PolicyLike = None, stdin: str | bytes | None = None,
               timeout: float | None = None) -> Result:
    """run on a thread: the event loop keeps running; cancellation aborts the run."""
    sb = Sandbox("process", policy, timeout)
    return await _in_thread(sb, sb.run, argv, stdin)
