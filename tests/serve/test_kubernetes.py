"""deploy/kubernetes.yaml says what docs/serve.md ("Kubernetes") says: API pods restricted,
worker pods unprivileged with exactly the settings the jail needs, both roles on one Redis queue
given in a Secret. (No cluster here: the manifest's shape is checked, and each setting's reason
is checked on this machine by test_cluster.py's jails and the notes in docs/serve.md.)"""

import json
import os

import yaml

from conftest import ROOT


def load():
    with open(os.path.join(ROOT, "deploy", "kubernetes.yaml")) as f:
        return {(d["kind"], d["metadata"]["name"]): d for d in yaml.safe_load_all(f) if d}


def container(doc):
    [c] = doc["spec"]["template"]["spec"]["containers"]
    return c


def test_api_pods_are_restricted():
    docs = load()
    c = container(docs[("Deployment", "sbx-api")])
    assert c["args"][:1] == ["serve"] and c["args"][-2:] == ["--role", "api"]
    sc = c["securityContext"]
    assert sc["runAsNonRoot"] and sc["readOnlyRootFilesystem"]
    assert sc["allowPrivilegeEscalation"] is False
    assert sc["capabilities"] == {"drop": ["ALL"]}
    assert sc["seccompProfile"] == {"type": "RuntimeDefault"}
    assert c["readinessProbe"]["httpGet"]["path"] == "/readyz"


def test_worker_pods_unprivileged_with_what_the_jail_needs():
    docs = load()
    dep = docs[("Deployment", "sbx-worker")]
    pod = dep["spec"]["template"]["spec"]
    c = container(dep)
    assert c["args"][-2:] == ["--role", "worker"]
    sc = c["securityContext"]
    assert sc.get("privileged") is False
    assert sc["capabilities"] == {"drop": ["ALL"]} and "add" not in sc["capabilities"]
    assert sc["allowPrivilegeEscalation"] is False and sc["runAsNonRoot"]
    assert sc["procMount"] == "Unmasked" and pod["hostUsers"] is False
    assert sc["seccompProfile"]["type"] in ("Unconfined", "Localhost")
    assert sc["appArmorProfile"]["type"] in ("Unconfined", "Localhost")
    mounts = {m["mountPath"] for m in c["volumeMounts"]}
    assert {"/tmp", "/dev/shm", "/etc/sbx"} <= mounts
    drain = json.loads(docs[("Secret", "sbx-serve")]["stringData"]["serve.json"])["drainMs"]
    assert pod["terminationGracePeriodSeconds"] * 1000 > drain


def test_both_roles_share_the_queue_from_the_secret():
    docs = load()
    cfg = json.loads(docs[("Secret", "sbx-serve")]["stringData"]["serve.json"])
    assert cfg["queue"].startswith("redis://")
    for name in ("sbx-api", "sbx-worker"):
        c = container(docs[("Deployment", name)])
        assert "--queue" not in c["args"]  # the password stays out of the command line
        assert c["args"][c["args"].index("--config") + 1] == "/etc/sbx/serve.json"
    redis = container(docs[("StatefulSet", "sbx-redis")])
    assert "--appendonly" in redis["args"] and "noeviction" in redis["args"]
