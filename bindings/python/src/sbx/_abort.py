"""Abort for one handle's runs. libsbx remembers an abort that comes before a run is
registered, so abort() is simply forwarded while a run is in flight; end() makes libsbx forget
one that came after the run returned, so that it cannot end the next run."""

from __future__ import annotations

import threading
from typing import Callable


class Aborter:
    def __init__(self, fire: Callable[[], object], clear: Callable[[], object]) -> None:
        self._fire = fire
        self._clear = clear
        self._mu = threading.Lock()  # guards is_running and every fire() and clear()
        self.is_running = False

    def begin(self) -> None:
        with self._mu:
            self.is_running = True

    def end(self) -> None:
        with self._mu:
            self.is_running = False
            self._clear()

    def abort(self) -> None:
        """Ends the run in flight (any thread); no effect when idle."""
        with self._mu:
            if self.is_running:
                self._fire()
