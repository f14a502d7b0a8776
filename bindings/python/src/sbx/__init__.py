"""sbx: run untrusted code under a permission policy. A thin ctypes layer over libsbx.so.

    import sbx
    r = sbx.eval_js("return context.a + 1", {"a": 41})
    assert r.ok and r.value == 42
"""

from ._lib import lib as _cdll
from .errors import ERROR_CODES, PolicyError, SbxError, error_message, error_name
from .grants import (
    Conformance,
    ConformanceCase,
    PreopenMatch,
    Rule,
    WasiPreopen,
    match_preopen,
    outbound_allowed,
    outbound_allowlist,
    preopens,
    run_conformance,
)
from .policy import Policy
from .result import Denial, Denied, ErrorInfo, Result
from .sandbox import Sandbox, aeval_js, arun, eval_js, run
from .wasm import WasmPlugin

__version__ = "0.2.0"
LIBRARY_VERSION: str = _cdll.sbx_version().decode()

__all__ = [
    "ERROR_CODES", "Conformance", "ConformanceCase", "Denial", "Denied", "ErrorInfo", "Policy",
    "PolicyError", "PreopenMatch", "Result", "Rule", "Sandbox", "SbxError", "WasiPreopen",
    "WasmPlugin", "aeval_js", "arun", "error_message", "error_name", "eval_js", "match_preopen",
    "outbound_allowed", "outbound_allowlist", "preopens", "run", "run_conformance",
]
