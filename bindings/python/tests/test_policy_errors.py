"""Policy.parse and the error registry."""

import pytest

import sbx


def test_parse_resolves_defaults():
    p = sbx.Policy.parse({"timeoutMs": 500, "fs": ["/srv::/data"]})
    d = p.to_dict()
    assert d["timeoutMs"] == 500 and d["cpuPercent"] == 100 and d["net"]["outbound"] == []
    assert p.timeout_ms == 500 and p.memory_bytes == 64 << 20 and p.fuel == 0
    assert sbx.Policy.parse('{"pids": 3}').to_dict()["pids"] == 3
    assert sbx.Policy.parse(b"{}").timeout_ms == 5000
    assert "timeoutMs" in repr(p)
    q = p.with_field("fs", ["/other"])
    assert q.to_dict()["fs"] == ["/srv::/data", "/other"] and p.to_dict()["fs"] == ["/srv::/data"]
    assert sbx.Policy.of(p) is p and sbx.Policy.of(None).timeout_ms == 5000


@pytest.mark.parametrize("policy, path, text", [
    ({"cpuPercent": 150}, "policy.cpuPercent", "must be an integer in 1..100, got 150"),
    ({"net": {"outbound": ["ok.test:1", "no-port"]}}, "policy.net.outbound[1]", ""),
    ({"capabilities": {"host.x": "maybe"}}, "policy.capabilities", ""),
    ({"bogus": True}, "policy", "bogus"),
    ('{"timeoutMs": ', None, "line 1"),
])
def test_parse_errors_name_the_field(policy, path, text):
    with pytest.raises(sbx.PolicyError) as e:
        sbx.Policy.parse(policy)
    assert e.value.code == "SANDBOX_INVALID_OPTIONS" and isinstance(e.value, ValueError)
    if path:
        assert e.value.path is not None and e.value.path.startswith(path), e.value.message
    assert text in e.value.message
    with pytest.raises(sbx.PolicyError):
        sbx.Policy.parse(42)
    with pytest.raises(sbx.PolicyError):
        sbx.Policy.parse({"timeoutMs": 1}).with_field("timeoutMs", -1)


def test_error_registry_is_libsbx():
    codes = sbx.ERROR_CODES
    assert codes["OK"] == 0 and codes["SANDBOX_TIMEOUT"] == 1 and codes["SAND_WASM_TRAP"] == 102
    assert len(codes) == 22
    with pytest.raises(TypeError):
        codes["X"] = 1  # read-only
    assert sbx.error_name(103) == "SAND_WASM_PERMISSION_DENIED"
    assert sbx.error_name(99) == "SANDBOX_UNKNOWN_ERROR"
    assert sbx.error_message(1) == "run exceeded its time limit"
    e = sbx.SbxError("SANDBOX_ABORTED", "stop")
    assert e.code == "SANDBOX_ABORTED" and e.value == 2 and e.result is None and "stop" in str(e)
    assert sbx.LIBRARY_VERSION == "0.2.0"
