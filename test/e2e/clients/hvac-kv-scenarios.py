"""python3-hvac through every KV endpoint: version 2 (secrets.kv.v2 and, for what 0.11.2 lacks,
its adapter: subkeys, PATCH of data and metadata, the 404 body of a deleted version), a
check-and-set race of threads, max_versions, version 1 (secrets.kv.v1), strict_http (LIST sent
as GET ?list=true, as through API Gateway) and a policy-limited token."""
import threading

import hvac
import requests
from hvac_common import ADDR, ROOT, attempt, client, create, main, unique


def raw(method, path, body=None):
    """A request as sent on the wire (a merge-patch body for PATCH), for what hvac 0.11.2 has no method for."""
    headers = {"X-Vault-Token": ROOT}
    if method == "PATCH":
        headers["Content-Type"] = "application/merge-patch+json"
    res = requests.request(method, ADDR + path, json=body, headers=headers)
    return {"status": res.status_code, "body": res.json() if res.text else None}


def v2():
    c = client()
    kv = c.secrets.kv.v2
    p = unique("app")
    out = {
        "write": kv.create_or_update_secret(p, {"user": "u", "password": "one"})["data"],
        "write_cas": kv.create_or_update_secret(p, {"user": "u", "password": "two"}, cas=1)["data"]["version"],
        "cas_mismatch": attempt(kv.create_or_update_secret, p, {"x": "y"}, cas=1),
        "read": kv.read_secret_version(p)["data"],
        "read_v1": kv.read_secret_version(p, version=1)["data"]["data"],
        "patch": kv.patch(p, {"port": "5432"})["data"]["version"],
        "http_patch": raw("PATCH", "/v1/secret/data/%s" % p, {"data": {"user": None}})["body"]["data"]["version"],
        "after_patch": kv.read_secret_version(p)["data"]["data"],
        "subkeys": c.adapter.get("/v1/secret/subkeys/%s" % p)["data"]["subkeys"],
    }
    kv.delete_latest_version_of_secret(p)
    out["deleted_read"] = attempt(kv.read_secret_version, p)
    gone = raw("GET", "/v1/secret/data/%s" % p)
    out["deleted_raw"] = {"status": gone["status"], "data": gone["body"]["data"]}
    kv.undelete_secret_versions(p, [4])
    out["undeleted"] = kv.read_secret_version(p)["data"]["metadata"]["version"]
    kv.delete_secret_versions(p, [1, 2])
    kv.destroy_secret_versions(p, [1])
    out["metadata"] = kv.read_secret_metadata(p)["data"]
    kv.update_metadata(p, max_versions=5, cas_required=True, delete_version_after="1h")
    raw("PATCH", "/v1/secret/metadata/%s" % p, {"custom_metadata": {"owner": "ops"}})
    out["metadata_after"] = kv.read_secret_metadata(p)["data"]
    out["cas_required"] = attempt(kv.create_or_update_secret, p, {"a": "b"})
    out["list"] = kv.list_secrets("")["data"]["keys"]
    kv.delete_metadata_and_all_versions(p)
    out["gone"] = attempt(kv.read_secret_metadata, p)
    out["list_after"] = attempt(kv.list_secrets, "")
    kv.configure(max_versions=7, cas_required=False, delete_version_after="2h")
    out["config"] = kv.read_configuration()["data"]
    kv.configure(max_versions=0, delete_version_after="0s")
    return out


def race():
    kv = client().secrets.kv.v2
    p = unique("race")
    kv.create_or_update_secret(p, {"n": "0"})
    results = [None] * 16
    start = threading.Barrier(16)

    def racer(i):
        mine = client().secrets.kv.v2
        start.wait()
        results[i] = attempt(lambda: mine.create_or_update_secret(p, {"n": str(i)}, cas=1)["data"]["version"])

    threads = [threading.Thread(target=racer, args=(i,)) for i in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return {"results": results, "current": kv.read_secret_metadata(p)["data"]["current_version"]}


def versions():
    kv = client().secrets.kv.v2
    p = unique("limited")
    kv.update_metadata(p, max_versions=3)
    for n in range(1, 8):
        kv.create_or_update_secret(p, {"n": str(n)})
    meta = kv.read_secret_metadata(p)["data"]
    return {
        "kept": sorted(meta["versions"].keys(), key=int),
        "oldest": meta["oldest_version"],
        "current": meta["current_version"],
        "old_read": attempt(kv.read_secret_version, p, version=4),
        "kept_read": kv.read_secret_version(p, version=5)["data"]["data"],
    }


def v1():
    c = client()
    kv = c.secrets.kv.v1
    p = unique("app")
    out = {
        "write": attempt(kv.create_or_update_secret, "%s/db" % p, {"password": "p", "port": 5432}, mount_point="kv1"),
        "put": attempt(kv.create_or_update_secret, "%s/cache/redis" % p, {"password": "r"}, method="PUT", mount_point="kv1"),
        "read": kv.read_secret("%s/db" % p, mount_point="kv1")["data"],
        "list": kv.list_secrets(p, mount_point="kv1")["data"]["keys"],
        "strict_list": hvac.Client(url=ADDR, token=ROOT, strict_http=True).secrets.kv.v1.list_secrets(p, mount_point="kv1")["data"]["keys"],
        "delete": attempt(kv.delete_secret, "%s/db" % p, mount_point="kv1"),
    }
    out["after_delete"] = attempt(kv.read_secret, "%s/db" % p, mount_point="kv1")
    return out


def policy():
    c = client()
    c.sys.create_or_update_policy("kv-team-read", {"path": {"secret/data/team/*": {"capabilities": ["read"]}}})
    c.secrets.kv.v2.create_or_update_secret("team/db", {"password": "p"})
    c.secrets.kv.v2.create_or_update_secret("other/db", {"password": "q"})
    token, _, _ = create(c, policies=["kv-team-read"])
    kv = client(token).secrets.kv.v2
    return {
        "read": kv.read_secret_version("team/db")["data"]["data"],
        "write": attempt(kv.create_or_update_secret, "team/db", {"password": "x"}),
        "other": attempt(kv.read_secret_version, "other/db"),
        "metadata": attempt(kv.read_secret_metadata, "team/db"),
    }


if __name__ == "__main__":
    main({"v2": v2, "race": race, "versions": versions, "v1": v1, "policy": policy})
