"""The small sys API driven by Debian's python3-hvac, its methods unmodified."""
import json
import os
import sys

import hvac

addr = os.environ["LATCHKEY_ADDR"]
root = hvac.Client(url=addr, token=os.environ["LATCHKEY_TOKEN"])
anon = hvac.Client(url=addr)
out = {}

out["health"] = anon.sys.read_health_status(method="GET")
out["seal_status"] = anon.sys.read_seal_status()
out["is_sealed"] = anon.is_sealed()

doc = {"path": {"pki/issue/*": {"capabilities": ["create", "update"]}}}
root.sys.create_or_update_policy("hvac-issuer", doc)
out["policy"] = root.sys.read_policy("hvac-issuer")["data"]
# The current policy API; hvac 0.11 has no method for it, so its adapter is used as is.
root.adapter.put("/v1/sys/policies/acl/hvac-acl", json={"policy": json.dumps(doc)})
out["acl_policy"] = root.adapter.get("/v1/sys/policies/acl/hvac-acl")["data"]
out["acl_list"] = root.adapter.list("/v1/sys/policies/acl")["data"]["keys"]
root.adapter.delete("/v1/sys/policies/acl/hvac-acl")
out["policies"] = root.sys.list_policies()["data"]["policies"]

out["mount_tune"] = root.sys.read_mount_configuration("pki_int")
out["mounts"] = sorted(root.sys.list_mounted_secrets_engines()["data"].keys())
try:
    root.sys.tune_mount_configuration("pki", max_lease_ttl="1h")
    out["tune_write"] = None
except hvac.exceptions.VaultError as e:
    out["tune_write"] = str(e)

created = root.auth.token.create(policies=["default"], meta={"__proto__": "p", "constructor": "c"})
out["meta"] = root.auth.token.lookup(created["auth"]["client_token"])["data"]["meta"]
json.dump(out, sys.stdout)
