"""Drives both cloud engines with Debian's python3-hvac, unmodified; prints one JSON object."""
import json
import os

import hvac

e = os.environ
c = hvac.Client(url=e["LATCHKEY_ADDR"], token=e["LATCHKEY_TOKEN"])
out = {}

# Cloud-A through hvac's own Azure secrets-engine methods (same wire format).
c.secrets.azure.configure(
    subscription_id=e["SUB"], tenant_id=e["TENANT"], client_id=e["CLIENT_ID"], client_secret=e["CLIENT_SECRET"], mount_point="cloud-a"
)
out["a_config"] = c.secrets.azure.read_config(mount_point="cloud-a")
# hvac's own role writer sends the reference plugin's field name, azure_roles (an alias of cloud_a_roles).
c.secrets.azure.create_or_update_role(
    name="web", azure_roles=[{"role_name": "Reader", "scope": "/subscriptions/" + e["SUB"]}], ttl="1h", mount_point="cloud-a"
)
out["a_role"] = c.read("cloud-a/roles/web")["data"]
out["a_roles"] = c.secrets.azure.list_roles(mount_point="cloud-a")["keys"]
out["a_creds"] = c.secrets.azure.generate_credentials(name="web", mount_point="cloud-a")
full = c.read("cloud-a/creds/web")
out["a_lease"] = full["lease_duration"]
out["a_renewable"] = full["renewable"]
renewed = c.sys.renew_lease(lease_id=full["lease_id"], increment=600)
out["a_renewed"] = [renewed["lease_id"] == full["lease_id"], renewed["lease_duration"], renewed["renewable"]]
c.sys.revoke_lease(full["lease_id"])
try:
    c.read("cloud-a/creds/nope")
except hvac.exceptions.InvalidRequest as err:
    out["a_missing"] = str(err)

# Cloud-B: flat answers through hvac's generic calls.
c.write("cloud-b/config", access_key=e["B_KEY"], secret_key=e["B_SECRET"])
out["b_config"] = c.read("cloud-b/config")
c.write("cloud-b/role/ops", remote_policies="name:ReadOnlyAccess,type:System", ttl=600)
out["b_role"] = c.read("cloud-b/role/ops")
out["b_roles"] = c.list("cloud-b/roles")
creds = c.read("cloud-b/creds/ops")
out["b_creds"] = sorted(creds.keys())
out["b_key"] = creds["access_key"]
renewed = c.sys.renew_lease(lease_id=creds["lease_id"], increment=300)
out["b_renewed"] = [creds["renewable"], renewed["lease_duration"], renewed["renewable"]]
c.sys.revoke_lease(creds["lease_id"])
print(json.dumps(out))
