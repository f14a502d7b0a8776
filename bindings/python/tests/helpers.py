"""Helpers shared by the binding's tests."""

import threading
import time


def when_running(handle, action):
    """Calls action() on another thread once handle (a Sandbox or WasmPlugin) is in a run or
    call, 50 ms into it; returns the thread."""
    def wait():
        while not handle._is_busy:
            time.sleep(0.005)
        time.sleep(0.05)
        action()
    t = threading.Thread(target=wait)
    t.start()
    return t
