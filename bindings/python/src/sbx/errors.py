"""The error registry (libsbx's, read through sbx_err_name) and the exceptions that carry it."""

from __future__ import annotations

import ctypes
from types import MappingProxyType
from typing import TYPE_CHECKING, Mapping

from ._lib import lib

if TYPE_CHECKING:
    from .result import Result


def _registry() -> Mapping[str, int]:
    codes = {}
    for value in range(1000):
        name = lib.sbx_err_name(value).decode()
        back = ctypes.c_int()
        if lib.sbx_err_from_name(name.encode(), ctypes.byref(back)) == 0 and back.value == value:
            codes[name] = value
    return MappingProxyType(codes)


#: Every registered code name -> its stable value (read-only).
ERROR_CODES: Mapping[str, int] = _registry()


def error_name(value: int) -> str:
    """Returns the stable name of an error value ("SANDBOX_UNKNOWN_ERROR" if unregistered)."""
    return str(lib.sbx_err_name(value).decode())


def error_message(value: int) -> str:
    return str(lib.sbx_err_message(value).decode())


class SbxError(Exception):
    """A failure with one of the registry's codes. `result` is set for a guest outcome."""

    def __init__(self, code: str, message: str, result: "Result | None" = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.value = ERROR_CODES.get(code)
        self.message = message
        self.result = result


class PolicyError(SbxError, ValueError):
    """The policy failed validation. `path` is the offending field ("policy.cpuPercent")."""

    def __init__(self, message: str) -> None:
        super().__init__("SANDBOX_INVALID_OPTIONS", message)
        head = message.split(":", 1)[0]
        self.path: str | None = head if head.startswith("policy") else None


def raise_for(rc: int, message: str = "") -> None:
    """Raises SbxError for a non-OK return code of a C call."""
    if rc != 0:
        raise SbxError(error_name(rc), message or error_message(rc))
