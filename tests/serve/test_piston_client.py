"""The npm package piston-client (pinned in tests/serve/package-lock.json, installed with npm ci
into the build tree from the npm registry) runs its documented calls against sbx serve
unchanged (piston-client.mjs)."""

import os
import shutil
import subprocess

from conftest import HERE, SBX, Server


def install():
    where = os.path.join(os.path.dirname(os.path.abspath(SBX)), "serve-npm")
    os.makedirs(where, exist_ok=True)
    for name in ("package.json", "package-lock.json", "piston-client.mjs"):
        shutil.copyfile(os.path.join(HERE, name), os.path.join(where, name))
    if not os.path.isdir(os.path.join(where, "node_modules", "piston-client")):
        p = subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts"],
                           cwd=where, capture_output=True, text=True, timeout=300)
        assert p.returncode == 0, p.stdout + p.stderr
    return where


def test_piston_client_unchanged():
    where = install()
    s = Server({"runners": 2})  # anonymous: the client sends no key
    try:
        p = subprocess.run(["node", "piston-client.mjs"], cwd=where, capture_output=True,
                           text=True, timeout=240, env=dict(os.environ, SERVER=s.base))
        assert p.returncode == 0, p.stdout + p.stderr + s.logtext()
        assert "piston-client: ok" in p.stdout
    finally:
        assert s.stop() == 0, s.logtext()
