"""Abort for one handle's runs: libsbx's abort has no effect before a run is registered, so an
abort() that races a run's start is repeated every millisecond until that run has ended."""

from __future__ import annotations

import threading
import time
from typing import Callable


class Aborter:
    def __init__(self, fire: Callable[[], object]) -> None:
        self._fire = fire
        self._mu = threading.Lock()  # guards the fields below and every fire()
        self._run = 0  # the run in flight's number, 0 when idle
        self._count = 0
        self._requested = False

    def begin(self) -> bool:
        """A run starts; returns False when abort() came first (the run must not start)."""
        with self._mu:
            self._count += 1
            self._run = self._count
            return not self._requested

    def end(self) -> None:
        with self._mu:
            self._run = 0
            self._requested = False

    def abort(self) -> None:
        """Ends the run in flight (any thread); no effect when idle."""
        with self._mu:
            run = self._run
            if not run:
                return
            self._requested = True
            self._fire()
        threading.Thread(target=self._repeat, args=(run,), daemon=True).start()

    def _repeat(self, run: int) -> None:
        while True:
            with self._mu:
                if self._run != run:
                    return
                self._fire()
            time.sleep(0.001)
