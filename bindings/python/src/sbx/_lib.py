"""libsbx.so through ctypes: the C declarations of include/sbx/*.h that the package uses.

ctypes.CDLL releases the GIL for the duration of every foreign call, so runs on different
threads proceed in parallel; callbacks (capability imports) take it back while Python runs.
"""

from __future__ import annotations

import atexit
import ctypes
import ctypes.util
import os
from ctypes import (
    CFUNCTYPE,
    POINTER,
    Structure,
    Union,
    c_bool,
    c_char,
    c_char_p,
    c_double,
    c_float,
    c_int,
    c_int32,
    c_int64,
    c_long,
    c_size_t,
    c_uint,
    c_uint8,
    c_uint16,
    c_uint64,
    c_void_p,
)


def _load() -> ctypes.CDLL:
    path = os.environ.get("SBX_LIBRARY") or ctypes.util.find_library("sbx") or "libsbx.so.0"
    try:
        return ctypes.CDLL(path)
    except OSError as e:
        raise ImportError(
            f"sbx: cannot load libsbx ({path}): {e}; install libsbx or set SBX_LIBRARY"
        ) from e


lib = _load()


class Denial(Structure):
    _fields_ = [
        ("kind", c_int),
        ("family", c_int),
        ("host", c_char * 256),
        ("port", c_uint16),
        ("count", c_uint64),
    ]


class Result(Structure):
    _fields_ = [
        ("ok", c_bool),
        ("error", c_int),
        ("error_message", c_void_p),
        ("value_json", c_void_p),
        ("stdout_data", c_void_p),
        ("stdout_len", c_size_t),
        ("stdout_truncated", c_bool),
        ("stderr_data", c_void_p),
        ("stderr_len", c_size_t),
        ("stderr_truncated", c_bool),
        ("exit_code", c_int),
        ("signal", c_int),
        ("limit", c_int),
        ("duration_ms", c_double),
        ("backend", c_int),
        ("enforced", c_uint),
        ("denials", POINTER(Denial)),
        ("denial_count", c_size_t),
        ("denied_total", c_uint64),
        ("denials_truncated", c_bool),
        ("error_stack", c_void_p),
    ]


# sbx_output_fn: (user, stream 1 = stdout / 2 = stderr, data, len)
OutputFn = CFUNCTYPE(None, c_void_p, c_int, POINTER(c_char), c_size_t)


class RunInput(Structure):
    _fields_ = [
        ("code", c_char_p),
        ("code_len", c_size_t),
        ("context_json", c_char_p),
        ("interpreter", c_char_p),
        ("argv", POINTER(c_char_p)),
        ("module", c_void_p),
        ("module_len", c_size_t),
        ("inherit_stdio", c_bool),
        ("on_output", OutputFn),
        ("on_output_user", c_void_p),
        ("cwd", c_char_p),
    ]


class _Of(Union):
    _fields_ = [("i32", c_int32), ("i64", c_int64), ("f32", c_float), ("f64", c_double)]


class WasmValue(Structure):
    _fields_ = [("type", c_int), ("of", _Of)]


HostFn = CFUNCTYPE(None, c_void_p, POINTER(WasmValue), c_size_t, c_void_p)


class HostFunc(Structure):
    _fields_ = [("name", c_char_p), ("signature", c_char_p), ("fn", HostFn), ("user", c_void_p)]


class WasmOptions(Structure):
    _fields_ = [
        ("size", c_size_t),
        ("argv", POINTER(c_char_p)),
        ("stdin_data", c_void_p),
        ("stdin_len", c_size_t),
        ("inherit_stdio", c_bool),
        ("host_funcs", POINTER(HostFunc)),
        ("host_func_count", c_size_t),
        ("deny_at_create", c_bool),
    ]


class WasmImport(Structure):
    _fields_ = [
        ("name", c_char_p),
        ("signature", c_char_p),
        ("params", c_int * 16),
        ("results", c_int * 16),
        ("param_count", c_size_t),
        ("result_count", c_size_t),
    ]


class Preopen(Structure):
    _fields_ = [("host_path", c_char_p), ("guest_path", c_char_p), ("is_writable", c_bool)]


class OutboundRule(Structure):
    _fields_ = [
        ("host", c_char_p),
        ("port", c_uint16),
        ("is_wildcard", c_bool),
        ("is_any_port", c_bool),
    ]


class ConformanceCase(Structure):
    _fields_ = [
        ("name", c_char * 48),
        ("expect_allowed", c_bool),
        ("was_allowed", c_bool),
        ("passed", c_bool),
        ("detail", c_char * 160),
    ]


class ConformanceReport(Structure):
    _fields_ = [
        ("cases", POINTER(ConformanceCase)),
        ("case_count", c_size_t),
        ("passed_count", c_size_t),
    ]


def _fn(name: str, restype: object, *argtypes: object) -> None:
    f = getattr(lib, name)
    f.restype = restype
    f.argtypes = list(argtypes)


P = c_void_p  # opaque handles
_fn("sbx_err_name", c_char_p, c_int)
_fn("sbx_err_message", c_char_p, c_int)
_fn("sbx_err_from_name", c_int, c_char_p, POINTER(c_int))
_fn("sbx_version", c_char_p)
_fn("sbx_shutdown", None)
# A wasm call on a daemon thread may still run at exit: libLLVM's destructors must not run
# under its tier-up compile (docs/wasm.md, "Exit"). atexit runs after non-daemon threads end.
atexit.register(lib.sbx_shutdown)
_fn("sbx_free", None, c_void_p)
_fn("sbx_policy_parse", c_int, c_char_p, c_size_t, POINTER(P), c_char_p, c_size_t)
_fn("sbx_policy_with", c_int, P, c_char_p, c_char_p, POINTER(P), c_char_p, c_size_t)
_fn("sbx_policy_to_json", c_void_p, P)
_fn("sbx_policy_destroy", None, P)
_fn("sbx_policy_timeout_ms", ctypes.c_uint32, P)
_fn("sbx_policy_memory_bytes", c_uint64, P)
_fn("sbx_policy_fuel", c_uint64, P)
_fn("sbx_backend_from_name", c_int, c_char_p, POINTER(c_int))
_fn("sbx_sandbox_create", c_int, c_int, P, POINTER(P))
_fn("sbx_sandbox_run", c_int, P, POINTER(RunInput), POINTER(Result))
_fn("sbx_sandbox_preload", c_int, P, c_char_p, c_char_p, c_size_t)
_fn("sbx_sandbox_abort", None, P)
_fn("sbx_sandbox_clear_abort", None, P)
_fn("sbx_sandbox_dispose", None, P)
_fn("sbx_sandbox_destroy", None, P)
_fn("sbx_result_free", None, POINTER(Result))
_fn("sbx_result_to_json", c_void_p, POINTER(Result))
_fn("sbx_wasm_sandbox_create", c_int, c_char_p, c_size_t, P, POINTER(WasmOptions), POINTER(P),
    c_char_p, c_size_t)
_fn("sbx_wasm_sandbox_run", c_int, P, POINTER(Result))
_fn("sbx_wasm_sandbox_call", c_int, P, c_char_p, POINTER(WasmValue), c_size_t,
    POINTER(WasmValue), c_size_t, POINTER(Result))
_fn("sbx_wasm_sandbox_export_type", c_int, P, c_char_p, POINTER(c_int), POINTER(c_size_t),
    POINTER(c_int), POINTER(c_size_t), c_size_t)
_fn("sbx_wasm_sandbox_abort", None, P)
_fn("sbx_wasm_sandbox_clear_abort", None, P)
_fn("sbx_wasm_sandbox_dispose", None, P)
_fn("sbx_wasm_sandbox_destroy", None, P)
_fn("sbx_wasm_sandbox_denied_count", c_uint64, P)
_fn("sbx_wasm_completion_finish", c_int, c_void_p, POINTER(WasmValue), c_size_t)
_fn("sbx_wasm_completion_fail", c_int, c_void_p, c_char_p)
_fn("sbx_wasm_module_imports", c_int, c_char_p, c_size_t, POINTER(POINTER(WasmImport)),
    POINTER(c_size_t), c_char_p, c_size_t)
_fn("sbx_wasm_imports_free", None, POINTER(WasmImport), c_size_t)
_fn("sbx_preopens_build", c_int, P, POINTER(POINTER(Preopen)), POINTER(c_size_t))
_fn("sbx_preopens_free", None, POINTER(Preopen), c_size_t)
_fn("sbx_preopen_match", c_long, POINTER(Preopen), c_size_t, c_char_p, POINTER(c_char_p))
_fn("sbx_outbound_allowlist_build", c_int, P, POINTER(POINTER(OutboundRule)), POINTER(c_size_t))
_fn("sbx_outbound_allowlist_free", None, POINTER(OutboundRule), c_size_t)
_fn("sbx_outbound_allowed", c_bool, POINTER(OutboundRule), c_size_t, c_char_p, c_uint16)
_fn("sbx_wasm_run_conformance", c_int, P, POINTER(ConformanceReport))
_fn("sbx_wasm_conformance_free", None, POINTER(ConformanceReport))

I32, I64, F32, F64 = 0, 1, 2, 3
BACKEND_WORKER, BACKEND_PROCESS, BACKEND_WASM = 0, 1, 2
SBX_OK = 0
__all__ = ["lib", "c_uint8"]
