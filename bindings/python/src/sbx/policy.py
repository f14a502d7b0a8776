"""Policy: a parsed, validated, immutable libsbx policy (sbx_policy_parse)."""

from __future__ import annotations

import ctypes
import json
from typing import Any, Mapping, Union

from ._lib import lib
from .errors import PolicyError, SbxError

PolicyLike = Union["Policy", str, Mapping[str, Any], None]


class Policy:
    """Parse with Policy.parse(); the handle is freed when the object is collected."""

    __slots__ = ("_handle",)

    def __init__(self, handle: int) -> None:
        self._handle = handle

    @classmethod
    def parse(cls, policy: str | bytes | Mapping[str, Any]) -> "Policy":
        """Validates a policy (JSON text or a dict); raises PolicyError naming the field."""
        if isinstance(policy, Mapping):
            text = json.dumps(policy).encode()
        elif isinstance(policy, str):
            text = policy.encode()
        elif isinstance(policy, bytes):
            text = policy
        else:
            raise PolicyError(f"policy: must be JSON text or a dict, got {type(policy).__name__}")
        out = ctypes.c_void_p()
        err = ctypes.create_string_buffer(512)
        rc = lib.sbx_policy_parse(text, len(text), ctypes.byref(out), err, len(err))
        if rc != 0:
            raise PolicyError(err.value.decode(errors="replace"))
        return cls(out.value or 0)

    @classmethod
    def of(cls, policy: PolicyLike) -> "Policy":
        """Returns policy itself, or parses it (None is the all-defaults policy {})."""
        if isinstance(policy, Policy):
            return policy
        return cls.parse("{}" if policy is None else policy)

    def with_field(self, key: str, value: Any) -> "Policy":
        """A new policy with one field changed (sbx_policy_with: arrays append, objects merge)."""
        out = ctypes.c_void_p()
        err = ctypes.create_string_buffer(512)
        rc = lib.sbx_policy_with(self._handle, key.encode(), json.dumps(value).encode(),
                                 ctypes.byref(out), err, len(err))
        if rc != 0:
            raise PolicyError(err.value.decode(errors="replace"))
        return Policy(out.value or 0)

    def to_json(self) -> str:
        """The resolved policy, every default filled in."""
        p = lib.sbx_policy_to_json(self._handle)
        if not p:
            raise SbxError("SANDBOX_HOST_NOMEM", "out of memory")
        try:
            return str(ctypes.string_at(p).decode())
        finally:
            lib.sbx_free(p)

    def to_dict(self) -> dict[str, Any]:
        return dict(json.loads(self.to_json()))

    @property
    def timeout_ms(self) -> int:
        return int(lib.sbx_policy_timeout_ms(self._handle))

    @property
    def memory_bytes(self) -> int:
        return int(lib.sbx_policy_memory_bytes(self._handle))

    @property
    def fuel(self) -> int:
        return int(lib.sbx_policy_fuel(self._handle))

    def __repr__(self) -> str:
        return f"Policy({self.to_json()})"

    def __del__(self) -> None:
        if self._handle:
            lib.sbx_policy_destroy(self._handle)
            self._handle = 0
