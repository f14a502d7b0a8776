"""WasmPlugin: a libsbx plugin handle (sbx_wasm_sandbox) with capability imports.

Each import is a Python callable registered under the signature the module imports it with
(sbx_wasm_module_imports); libsbx decides per call whether the policy allows it, and a denied
call never reaches Python but is counted (denied_count). An import may return an awaitable:
under acall()/arun() it runs on the caller's event loop and completes the guest's call when it
finishes (sbx_wasm_completion_finish from the loop's thread); under call()/run() it is run to
completion on the guest's thread.
"""

from __future__ import annotations

import asyncio
import ctypes
import inspect
from typing import Any, Callable, Mapping, Sequence

from . import _lib
from ._handle import Handle
from ._lib import HostFn, HostFunc, WasmImport, WasmOptions, WasmValue, lib
from .errors import SbxError, raise_for
from .policy import Policy, PolicyLike
from .result import Result, from_c

_FIELDS = {_lib.I32: "i32", _lib.I64: "i64", _lib.F32: "f32", _lib.F64: "f64"}


def _to_py(v: WasmValue) -> Any:
    return getattr(v.of, _FIELDS[v.type])


def _from_py(x: Any, t: int, what: str) -> WasmValue:
    if t in (_lib.I32, _lib.I64):
        ok = isinstance(x, int)
    else:
        ok = isinstance(x, (int, float)) and not isinstance(x, bool)
    if not ok:
        raise SbxError("SANDBOX_INVALID_ARGUMENT", f"{what}: expected {_FIELDS[t]}, got {x!r}")
    v = WasmValue(type=t)
    setattr(v.of, _FIELDS[t], x)
    return v


class _Import:
    """One registered capability import and the C callback that serves it."""

    def __init__(self, plugin: "WasmPlugin", desc: "_Desc", fn: Callable[..., Any]) -> None:
        self.name, self.signature, self.results = desc
        self.fn = fn
        self.plugin = plugin
        self.c_fn = HostFn(self._call)

    def _finish(self, c: int, value: Any) -> None:
        n = len(self.results)
        vals = value if n > 1 else (value,) if n == 1 else ()
        if n > 1 and (not isinstance(vals, (tuple, list)) or len(vals) != n):
            lib.sbx_wasm_completion_fail(c, f"{self.name} must return {n} values".encode())
            return
        arr = (WasmValue * max(n, 1))()
        for i in range(n):
            arr[i] = _from_py(vals[i], self.results[i], f"{self.name} result {i}")
        lib.sbx_wasm_completion_finish(c, arr, n)

    def _settle(self, c: int, fut: Any) -> None:
        try:
            self._finish(c, fut.result())
        except BaseException as e:  # the guest's call fails; the host carries on
            lib.sbx_wasm_completion_fail(c, f"{self.name}: {e}".encode(errors="replace"))

    def _call(self, user: int, args: Any, n: int, c: int) -> None:
        try:
            value = self.fn(*[_to_py(args[i]) for i in range(n)])
            if inspect.isawaitable(value):
                loop = self.plugin._loop
                if loop is None:  # call()/run(): finish it here, on the guest's thread
                    value = asyncio.run(_awaited(value))
                else:
                    fut = asyncio.run_coroutine_threadsafe(_awaited(value), loop)
                    fut.add_done_callback(lambda f: self._settle(c, f))
                    return
            self._finish(c, value)
        except BaseException as e:
            lib.sbx_wasm_completion_fail(c, f"{self.name}: {e}".encode(errors="replace"))


async def _awaited(aw: Any) -> Any:
    return await aw


_Desc = tuple[str, bytes, list[int]]  # name, signature, result types


def _imports_of(wasm: bytes) -> list[_Desc]:
    """The module's capability imports that a host function can serve (signature set)."""
    out = ctypes.POINTER(WasmImport)()
    n = ctypes.c_size_t()
    err = ctypes.create_string_buffer(512)
    rc = lib.sbx_wasm_module_imports(wasm, len(wasm), ctypes.byref(out), ctypes.byref(n), err,
                                     len(err))
    raise_for(rc, err.value.decode(errors="replace"))
    try:
        return [(out[i].name.decode(), out[i].signature,
                 [out[i].results[k] for k in range(out[i].result_count)])
                for i in range(n.value) if out[i].signature]
    finally:
        lib.sbx_wasm_imports_free(out, n.value)


class WasmPlugin(Handle):
    """A module instance under a policy: call(name, *args) for reactors, run() for commands."""

    _c_abort = staticmethod(lib.sbx_wasm_sandbox_abort)
    _c_clear_abort = staticmethod(lib.sbx_wasm_sandbox_clear_abort)
    _c_dispose = staticmethod(lib.sbx_wasm_sandbox_dispose)
    _c_destroy = staticmethod(lib.sbx_wasm_sandbox_destroy)

    def __init__(self, wasm_bytes: bytes, policy: PolicyLike = None,
                 imports: Mapping[str, Callable[..., Any]] | None = None,
                 argv: Sequence[str] | None = None, stdin: bytes | str | None = None) -> None:
        super().__init__()
        self._loop: asyncio.AbstractEventLoop | None = None
        self.last_result: Result | None = None
        wasm = bytes(wasm_bytes)
        pol = Policy.of(policy)
        for name, fn in (imports or {}).items():
            if not callable(fn):
                raise SbxError("SANDBOX_INVALID_OPTIONS", f"imports[{name!r}]: must be callable")
        self._imports = [_Import(self, d, imports[d[0]]) for d in _imports_of(wasm)
                         if imports and d[0] in imports]
        funcs = (HostFunc * max(len(self._imports), 1))(
            *[HostFunc(i.name.encode(), i.signature, i.c_fn, None) for i in self._imports])
        opts = WasmOptions(size=ctypes.sizeof(WasmOptions), host_funcs=funcs,
                           host_func_count=len(self._imports))
        keep: list[Any] = []
        if argv is not None:
            arr = (ctypes.c_char_p * (len(argv) + 1))(*[a.encode() for a in argv], None)
            keep.append(arr)
            opts.argv = ctypes.cast(arr, ctypes.POINTER(ctypes.c_char_p))
        if stdin is not None:
            data = stdin.encode() if isinstance(stdin, str) else bytes(stdin)
            buf = ctypes.create_string_buffer(data, len(data))
            keep.append(buf)
            opts.stdin_data, opts.stdin_len = ctypes.cast(buf, ctypes.c_void_p), len(data)
        handle = ctypes.c_void_p()
        err = ctypes.create_string_buffer(512)
        rc = lib.sbx_wasm_sandbox_create(wasm, len(wasm), pol._handle, ctypes.byref(opts),
                                         ctypes.byref(handle), err, len(err))
        raise_for(rc, err.value.decode(errors="replace"))
        self._handle = handle.value

    def _export_types(self, name: str) -> tuple[list[int], int]:
        params = (ctypes.c_int * 16)()
        results = (ctypes.c_int * 16)()
        np, nr = ctypes.c_size_t(), ctypes.c_size_t()
        rc = lib.sbx_wasm_sandbox_export_type(self._handle, name.encode(), params,
                                              ctypes.byref(np), results, ctypes.byref(nr), 16)
        if rc != 0:
            return [], 0  # libsbx reports the unknown export (or disposal) in the result
        return [params[i] for i in range(min(np.value, 16))], min(nr.value, 16)

    def call_result(self, name: str, *args: Any) -> Result:
        """Calls an export and returns the full Result (values, output, error)."""
        params, nr = self._export_types(name)
        if len(args) > 16:
            raise SbxError("SANDBOX_INVALID_ARGUMENT", "more than 16 arguments")
        argv = (WasmValue * max(len(args), 1))(*[
            _from_py(a, params[i] if i < len(params) else _lib.I32, f"{name} argument {i}")
            for i, a in enumerate(args)])
        results = (WasmValue * max(nr, 1))()
        out = _lib.Result()
        self._guarded(lambda: lib.sbx_wasm_sandbox_call(
            self._handle, name.encode(), argv, len(args), results, nr, ctypes.byref(out)))
        try:
            values = tuple(_to_py(results[i]) for i in range(nr)) if out.ok else ()
            self.last_result = from_c(out, values)
            return self.last_result
        finally:
            lib.sbx_result_free(ctypes.byref(out))

    def call(self, name: str, *args: Any) -> Any:
        """Calls an export; returns its result (a tuple for several, None for none).

        Raises SbxError (code SAND_WASM_TRAP, SANDBOX_TIMEOUT, ...) when the call failed; the
        Result, with the call's output, is on the exception and in last_result."""
        r = self.call_result(name, *args).raise_for_error()
        return r.values[0] if len(r.values) == 1 else (r.values or None)

    def run(self) -> Result:
        """Runs a WASI command's _start; a non-zero exit is ok=False with exit_code set."""
        out = _lib.Result()
        self._guarded(lambda: lib.sbx_wasm_sandbox_run(self._handle, ctypes.byref(out)))
        try:
            self.last_result = from_c(out)
            return self.last_result
        finally:
            lib.sbx_result_free(ctypes.byref(out))

    async def _async(self, fn: Callable[..., Any], *args: Any) -> Any:
        loop = asyncio.get_running_loop()
        self._loop = loop
        fut = loop.run_in_executor(None, fn, *args)
        try:
            return await asyncio.shield(fut)
        except asyncio.CancelledError:
            self.abort()
            await asyncio.wait([fut])
            raise
        finally:
            if fut.done():
                self._loop = None

    async def acall(self, name: str, *args: Any) -> Any:
        """call() on a thread; awaitable imports run on this loop. Cancelling aborts."""
        return await self._async(self.call, name, *args)

    async def arun(self) -> Result:
        return await self._async(self.run)  # type: ignore[no-any-return]

    @property
    def denied_count(self) -> int:
        """Denials counted so far (WASI and capability imports)."""
        return int(lib.sbx_wasm_sandbox_denied_count(self._handle)) if self._handle else 0
