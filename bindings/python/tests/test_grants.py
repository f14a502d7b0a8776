"""Preopens, the outbound gate and the conformance battery, through libsbx."""

import pytest

import sbx


def test_preopens_build_and_match():
    items = sbx.preopens({"fs": ["/srv/data::/data", "rw:/tmp/out", "/x::/data/", "rw:/y::/data"]})
    assert items == (sbx.WasiPreopen("/srv/data", "/data", True),
                     sbx.WasiPreopen("/tmp/out", "/tmp/out", True))
    assert sbx.preopens({"fs": ["/srv"]})[0].writable is False
    assert sbx.preopens({}) == ()
    m = sbx.match_preopen(items, "/data/sub/file")
    assert m.preopen is items[0] and m.index == 0 and m.rest == "sub/file"
    assert sbx.match_preopen(items, "/database") is None
    assert sbx.match_preopen(items, "/data").rest == "."
    assert sbx.match_preopen((), "/data") is None
    with pytest.raises(sbx.SbxError):
        sbx.match_preopen(items, 5)


def test_outbound_allowlist_and_gate():
    rules = sbx.outbound_allowlist({"net": {"outbound": [
        "api.example.com:443", "*.example.org:443", "any.test:*", "[::1]:8080"]}})
    assert rules[1] == sbx.Rule("*.example.org", 443, True)
    assert rules[2] == sbx.Rule("any.test", None, False)
    gate = lambda h, p: sbx.outbound_allowed(rules, h, p)  # noqa: E731
    assert gate("api.example.com", 443) and gate("API.Example.COM", 443)
    assert not gate("api.example.com", 80)
    assert gate("deep.sub.example.org", 443) and not gate("example.org", 443)
    assert gate("any.test", 1) and gate("0:0::1", 8080)
    assert not gate("evil.test", 443)
    assert not sbx.outbound_allowed(sbx.outbound_allowlist({}), "localhost", 80)
    for bad in (70000, -1, 1.5, True):
        with pytest.raises(sbx.SbxError):
            gate("x", bad)
    with pytest.raises(sbx.SbxError):
        gate(5, 1)


def test_conformance():
    r = sbx.run_conformance({"fs": ["rw:/nonexistent::/data"], "capabilities": {"host.log": "allow"}})
    assert r.ok, [c for c in r.cases if not c.passed]
    assert r.passed == len(r.cases) >= 10
    names = {c.name for c in r.cases}
    assert {"fs.escape.dotdot", "net.connect", "cap.host.log"} <= names
    write = next(c for c in r.cases if c.name == "fs.write")
    assert write.expect_allowed and write.was_allowed
    ro = sbx.run_conformance({"fs": ["/nonexistent::/data"]})
    assert not next(c for c in ro.cases if c.name == "fs.write").expect_allowed
    assert sbx.run_conformance().ok
