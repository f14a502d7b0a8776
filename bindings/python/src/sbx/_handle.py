"""The lifecycle Sandbox and WasmPlugin share: one call into the guest at a time, abort() from
any thread, idempotent dispose()/close(), a context manager, the C handle freed when collected.

libsbx remembers an abort that comes before a run is registered, so abort() is simply forwarded
while a call is in flight; when the call returns libsbx is told to forget one that came too late,
so that it cannot end the next call."""

from __future__ import annotations

import threading
from typing import Any, Callable, TypeVar

_Self = TypeVar("_Self", bound="Handle")


class Handle:
    # The C functions of the handle's kind (staticmethod: ctypes functions, not methods).
    _c_abort: Callable[[Any], None]
    _c_clear_abort: Callable[[Any], None]
    _c_dispose: Callable[[Any], None]
    _c_destroy: Callable[[Any], None]

    def __init__(self) -> None:
        self._handle: int | None = None
        self._lock = threading.Lock()  # one call into the guest at a time
        self._mu = threading.Lock()  # guards _is_busy and every abort forwarded to libsbx
        self._is_busy = False

    def _guarded(self, call: Callable[[], Any]) -> Any:
        """Runs call (one call into the guest) under the lock; abort() reaches it."""
        with self._lock:
            with self._mu:
                self._is_busy = True
            try:
                return call()
            finally:
                with self._mu:
                    self._is_busy = False
                    if self._handle:
                        self._c_clear_abort(self._handle)

    def abort(self) -> None:
        """Ends the run or call in progress with SANDBOX_ABORTED (any thread); no effect when
        idle."""
        with self._mu:
            if self._handle and self._is_busy:
                self._c_abort(self._handle)

    def dispose(self) -> None:
        """Idempotent; aborts a call in progress first. Later calls give the tier's DISPOSED
        error (SANDBOX_DISPOSED, SAND_WASM_DISPOSED)."""
        self.abort()
        with self._lock:
            if self._handle:
                self._c_dispose(self._handle)

    def close(self) -> None:
        """Alias of dispose()."""
        self.dispose()

    def __enter__(self: _Self) -> _Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.dispose()

    def __del__(self) -> None:
        if getattr(self, "_handle", None):
            self._c_destroy(self._handle)
            self._handle = None
