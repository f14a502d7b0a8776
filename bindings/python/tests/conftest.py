"""Shared fixtures: the guest modules mk/bindings.mk builds, and the package from src/."""

import os
import pathlib
import sys

import pytest

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))
WASM_DIR = pathlib.Path(os.environ.get("SBX_TEST_WASM_DIR", HERE.parents[2] / "build" / "bindings"))


@pytest.fixture(scope="session")
def plugin_wasm() -> bytes:
    return (WASM_DIR / "plugin.wasm").read_bytes()


@pytest.fixture(scope="session")
def command_wasm() -> bytes:
    return (WASM_DIR / "command.wasm").read_bytes()
