"""The wasm tier's policy pieces on their own (<sbx/plugin.h>, sbx_wasm_run_conformance):
preopens, the outbound allowlist and gate, and the conformance battery."""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from typing import Sequence

from ._lib import ConformanceReport, OutboundRule, Preopen, lib
from .errors import SbxError, raise_for
from .policy import Policy, PolicyLike


@dataclass(frozen=True)
class WasiPreopen:
    host_path: str
    guest_path: str
    writable: bool


@dataclass(frozen=True)
class PreopenMatch:
    preopen: WasiPreopen
    index: int
    rest: str


@dataclass(frozen=True)
class Rule:
    host: str
    port: int | None  # None for any port
    wildcard: bool


@dataclass(frozen=True)
class ConformanceCase:
    name: str
    expect_allowed: bool
    was_allowed: bool
    passed: bool
    detail: str


@dataclass(frozen=True)
class Conformance:
    cases: tuple[ConformanceCase, ...]
    passed: int

    @property
    def ok(self) -> bool:
        return self.passed == len(self.cases)


def preopens(policy: PolicyLike) -> tuple[WasiPreopen, ...]:
    """The preopened directories policy.fs gives a wasm guest, one per guest path."""
    pol = Policy.of(policy)
    out = ctypes.POINTER(Preopen)()
    n = ctypes.c_size_t()
    raise_for(lib.sbx_preopens_build(pol._handle, ctypes.byref(out), ctypes.byref(n)))
    try:
        return tuple(WasiPreopen(out[i].host_path.decode(), out[i].guest_path.decode(),
                                 out[i].is_writable) for i in range(n.value))
    finally:
        lib.sbx_preopens_free(out, n.value)


def match_preopen(items: Sequence[WasiPreopen], guest_path: str) -> PreopenMatch | None:
    """The preopen a guest path resolves under (longest component-wise prefix), or None."""
    if not isinstance(guest_path, str):
        raise SbxError("SANDBOX_INVALID_ARGUMENT", "guest_path must be a string")
    arr = (Preopen * max(len(items), 1))(*[
        Preopen(p.host_path.encode(), p.guest_path.encode(), p.writable) for p in items])
    rest = ctypes.c_char_p()
    path = guest_path.encode()
    i = lib.sbx_preopen_match(arr, len(items), path, ctypes.byref(rest))
    if i < 0:
        return None
    return PreopenMatch(items[i], int(i), (rest.value or b".").decode())


def outbound_allowlist(policy: PolicyLike) -> tuple[Rule, ...]:
    """policy.net.outbound as rules."""
    pol = Policy.of(policy)
    out = ctypes.POINTER(OutboundRule)()
    n = ctypes.c_size_t()
    raise_for(lib.sbx_outbound_allowlist_build(pol._handle, ctypes.byref(out), ctypes.byref(n)))
    try:
        return tuple(Rule(out[i].host.decode(), None if out[i].is_any_port else out[i].port,
                          out[i].is_wildcard) for i in range(n.value))
    finally:
        lib.sbx_outbound_allowlist_free(out, n.value)


def outbound_allowed(rules: Sequence[Rule], host: str, port: int) -> bool:
    """True when the rules let a wasm guest connect to host:port (the tier's own gate)."""
    if not isinstance(port, int) or isinstance(port, bool) or not 0 <= port <= 65535:
        raise SbxError("SANDBOX_INVALID_ARGUMENT", "port must be an integer in 0..65535")
    if not isinstance(host, str):
        raise SbxError("SANDBOX_INVALID_ARGUMENT", "host must be a string")
    arr = (OutboundRule * max(len(rules), 1))(*[
        OutboundRule(r.host.encode(), r.port or 0, r.wildcard, r.port is None) for r in rules])
    return bool(lib.sbx_outbound_allowed(arr, len(rules), host.encode(), port))


def run_conformance(policy: PolicyLike = None) -> Conformance:
    """Runs libsbx's capability battery under policy: is every grant enforced?"""
    pol = Policy.of(policy)
    rep = ConformanceReport()
    raise_for(lib.sbx_wasm_run_conformance(pol._handle, ctypes.byref(rep)))
    try:
        cases = tuple(ConformanceCase(c.name.decode(), c.expect_allowed, c.was_allowed, c.passed,
                                      c.detail.decode(errors="replace"))
                      for c in (rep.cases[i] for i in range(rep.case_count)))
        return Conformance(cases, int(rep.passed_count))
    finally:
        lib.sbx_wasm_conformance_free(ctypes.byref(rep))
