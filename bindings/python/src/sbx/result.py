"""Result: one run's outcome, from libsbx's own JSON form of sbx_result (sbx_result_to_json)."""

from __future__ import annotations

import ctypes
import json
from dataclasses import dataclass, field
from typing import Any

from ._lib import Result as CResult
from ._lib import lib
from .errors import SbxError


@dataclass(frozen=True)
class ErrorInfo:
    code: str
    message: str
    stack: str | None = None  # JavaScript: the guest's stack (e.stack), as Node prints it


@dataclass(frozen=True)
class Denial:
    """One destination net.outbound denied: kind "connect" (family, host, port) or "dns"."""

    kind: str
    family: str | None
    host: str
    port: int | None
    destination: str
    count: int


@dataclass(frozen=True)
class Denied:
    """The run's denials: every one counts in total; destinations lists at most 64 distinct
    ones, and truncated says some were left out."""

    total: int = 0
    truncated: bool = False
    destinations: tuple[Denial, ...] = ()


def _denied(d: dict[str, Any] | None) -> Denied:
    if not d:
        return Denied()
    return Denied(total=d["total"], truncated=d["truncated"],
                  destinations=tuple(Denial(**x) for x in d["destinations"]))


@dataclass(frozen=True)
class Result:
    """ok, value (the returned JSON value, or the wasm call's first result), output, error."""

    ok: bool
    value: Any
    stdout: str
    stderr: str
    stdout_truncated: bool
    stderr_truncated: bool
    error: ErrorInfo | None
    duration_ms: float
    backend: str
    exit_code: int | None = None
    signal: int | None = None
    limit: str | None = None
    enforced: tuple[str, ...] = ()
    denied: Denied = field(default_factory=Denied)
    values: tuple[Any, ...] = field(default=())

    def raise_for_error(self) -> "Result":
        """Raises SbxError (with this result attached) unless ok; returns self."""
        if not self.ok and self.error is not None:
            raise SbxError(self.error.code, self.error.message, self)
        return self


def from_c(r: CResult, values: tuple[Any, ...] = ()) -> Result:
    """Converts (does not free) a filled sbx_result."""
    p = lib.sbx_result_to_json(ctypes.byref(r))
    if not p:
        raise SbxError("SANDBOX_HOST_NOMEM", "out of memory")
    try:
        d = json.loads(ctypes.string_at(p).decode())
    finally:
        lib.sbx_free(p)
    err = d.get("error")
    value = d.get("value")
    if values:
        value = values[0]
    return Result(
        ok=d["ok"], value=value, stdout=d["stdout"], stderr=d["stderr"],
        stdout_truncated=d["stdoutTruncated"], stderr_truncated=d["stderrTruncated"],
        error=ErrorInfo(err["code"], err["message"], err.get("stack")) if err else None,
        duration_ms=d["durationMs"], backend=d["backend"], exit_code=d.get("exitCode"),
        signal=d.get("signal"), limit=d.get("limit"), enforced=tuple(d.get("enforced", ())),
        denied=_denied(d.get("denied")),
        values=values,
    )
