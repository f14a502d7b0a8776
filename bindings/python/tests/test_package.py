"""The package as users get it: pip install offline into a venv, and its types (py.typed)."""

import os
import pathlib
import shutil
import subprocess
import sys
import textwrap

import pytest

PKG = pathlib.Path(__file__).resolve().parents[1]
PY = "/usr/bin/python3"


@pytest.mark.timeout(180)
def test_pip_install_offline(tmp_path):
    src = tmp_path / "src"
    shutil.copytree(PKG, src, ignore=shutil.ignore_patterns("tests", "build", "*.egg-info",
                                                            "__pycache__"))
    venv = tmp_path / "venv"
    subprocess.run([PY, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    pip = subprocess.run([str(venv / "bin" / "pip"), "install", "--no-build-isolation",
                          "--no-index", "--no-deps", str(src)], capture_output=True, text=True)
    assert pip.returncode == 0, pip.stdout + pip.stderr
    code = textwrap.dedent("""
        import importlib.resources, sbx
        assert sbx.__file__.startswith(%r), sbx.__file__
        assert importlib.resources.files("sbx").joinpath("py.typed").is_file()
        print(sbx.eval_js("return context.a + 1", {"a": 41}).value)
    """ % str(venv))
    env = {**os.environ, "PYTHONPATH": ""}
    r = subprocess.run([str(venv / "bin" / "python"), "-c", code], capture_output=True, text=True,
                       cwd=tmp_path, env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "42"


def _mypy(tmp_path, code):
    f = tmp_path / "use.py"
    f.write_text(textwrap.dedent(code))
    env = {**os.environ, "MYPYPATH": str(PKG / "src")}
    return subprocess.run([PY, "-m", "mypy", "--strict", "--cache-dir", str(tmp_path / "cache"), str(f)],
                          capture_output=True, text=True, env=env, cwd=tmp_path)


has_mypy = subprocess.run([PY, "-m", "mypy", "--version"], capture_output=True).returncode == 0


@pytest.mark.skipif(not has_mypy, reason="mypy not installed")
@pytest.mark.timeout(180)
def test_types_check_under_mypy_strict(tmp_path):
    ok = _mypy(tmp_path, """
        import sbx
        r: sbx.Result = sbx.eval_js("return 1", {"a": 1}, policy={"timeoutMs": 5})
        code: str | None = r.error.code if r.error else None
        p = sbx.Policy.parse({"fs": []})
        with sbx.WasmPlugin(b"", p, imports={"host.log": print}) as w:
            n: int = w.denied_count
        ok: bool = sbx.outbound_allowed(sbx.outbound_allowlist(p), "h", 1)
    """)
    assert ok.returncode == 0, ok.stdout
    bad = _mypy(tmp_path, """
        import sbx
        r: int = sbx.eval_js("return 1")
        sbx.outbound_allowed([], "h", "443")
    """)
    assert bad.returncode != 0
    assert bad.stdout.count("error:") == 2, bad.stdout
