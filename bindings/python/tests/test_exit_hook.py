"""The binding's atexit hook (sbx._lib) calls sbx_shutdown(), so an interpreter that exits while a
plugin call on a daemon thread is tiering up waits for libLLVM's load to end (docs/wasm.md,
"Exit"). The library pauses the load when asked by SBX_TEST_PAUSE_LLVM_LOAD=MS:PATH, marking
'p' before the pause and 'r' after; the child exits once it sees 'p'. With the hook the mark
ends "pr"; the control removes the hook, and the process ends inside the load ("p"). The control's
pause is long, 19 s: how long an exit takes is the host's (Python's finalization alone took 0.8 to
7 s at load 20-23 here, and a 500 ms pause failed the control 3 times in 7), and an exit that
waited would still see the load end ("pr"): sbx_shutdown() waits up to 20 s (jit/quiesce.c)."""

import os
import pathlib
import subprocess
import sys

import pytest

HERE = pathlib.Path(__file__).resolve().parent

CHILD = r"""
import atexit, pathlib, sys, threading, time
import sbx, sbx._lib
mark = pathlib.Path(sys.argv[1])
if sys.argv[2] == "unhooked":
    atexit.unregister(sbx._lib.lib.sbx_shutdown)
p = sbx.WasmPlugin(pathlib.Path(sys.argv[3]).read_bytes(), {"timeoutMs": 60000})
def spin():
    try:
        p.call("spin")
    except sbx.SbxError:
        pass
threading.Thread(target=spin, daemon=True).start()
end = time.monotonic() + 60
while not mark.exists() or not mark.read_text():
    if time.monotonic() > end:
        sys.exit(3)
    time.sleep(0.005)
sys.exit(0)
"""


def run_child(tmp_path, mode, pause_ms):
    mark = tmp_path / f"mark-{mode}"
    wasm = pathlib.Path(os.environ.get("SBX_TEST_WASM_DIR", HERE.parents[2] / "build" / "bindings"))
    env = dict(os.environ, SBX_TEST_PAUSE_LLVM_LOAD=f"{pause_ms}:{mark}",
               PYTHONPATH=str(HERE.parent / "src"))
    r = subprocess.run([sys.executable, "-c", CHILD, str(mark), mode, str(wasm / "plugin.wasm")],
                       env=env, timeout=120, capture_output=True, text=True)
    return r, mark.read_text() if mark.exists() else ""


def test_exit_waits_for_the_load(tmp_path):
    r, mark = run_child(tmp_path, "hooked", 500)
    assert r.returncode == 0, r.stderr
    assert mark == "pr", r.stderr


def test_control_without_the_hook_exits_inside_the_load(tmp_path):
    r, mark = run_child(tmp_path, "unhooked", 19000)
    assert mark == "p", (r.returncode, r.stderr)
