"""python3-hvac drives auth/approle as a workload and its operator would (approle-hvac.test.ts).

Prints one JSON object. Tokens and secret ids never leave the script: they are replaced by
"<token>" / "<secret>" (and compared here, the outcome printed as booleans).
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "clients"))
from hvac_common import attempt, client, redact  # noqa: E402

ROLE = "hvac-role"
POLICY = {"path": {"auth/approle/role/%s/role-id" % ROLE: {"capabilities": ["read"]}}}


def hide(value):
    """redact(), and secret ids too."""
    value = redact(value)
    if isinstance(value, dict):
        return {k: ("<secret>" if k == "secret_id" and v else hide(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [hide(v) for v in value]
    return value


def main():
    out = {}
    root = client()
    approle = root.auth.approle
    root.sys.create_or_update_policy("approle-reader", json.dumps(POLICY))
    approle.create_or_update_approle(ROLE, token_policies=["approle-reader"], token_ttl="10m", secret_id_ttl="1h", secret_id_bound_cidrs=["127.0.0.0/8"])
    out["role"] = approle.read_role(ROLE)["data"]
    out["roles"] = approle.list_roles()["data"]["keys"]
    role_id = approle.read_role_id(ROLE)["data"]["role_id"]

    gen = approle.generate_secret_id(ROLE, metadata={"team": "blue"}, cidr_list=["127.0.0.1/32"])["data"]
    secret_id, accessor = gen["secret_id"], gen["secret_id_accessor"]
    out["generated"] = hide(gen)
    out["lookup"] = approle.read_secret_id(ROLE, secret_id)["data"]
    out["accessors"] = approle.list_secret_id_accessors(ROLE)["data"]["keys"]
    out["accessor_lookup"] = approle.read_secret_id_accessor(ROLE, accessor)["data"]

    # The workload: a client with no token logs in with the role id and secret id.
    app = client(token=None)
    auth = app.auth.approle.login(role_id, secret_id)["auth"]
    out["auth"] = hide(auth)
    out["client_uses_token"] = app.token == auth["client_token"]
    out["lookup_self"] = hide(app.auth.token.lookup_self()["data"])
    out["allowed_read"] = app.read("auth/approle/role/%s/role-id" % ROLE)["data"]["role_id"] == role_id
    out["forbidden_write"] = attempt(app.auth.approle.generate_secret_id, ROLE)

    out["wrong_secret"] = attempt(client(token=None).auth.approle.login, role_id, secret_id + "-wrong")
    out["wrong_role"] = attempt(client(token=None).auth.approle.login, "not-a-role-id", secret_id)

    custom = approle.create_custom_secret_id(ROLE, "hvac-custom-secret-id-value")["data"]
    out["custom"] = hide(custom)
    out["custom_login"] = "auth" in client(token=None).auth.approle.login(role_id, "hvac-custom-secret-id-value")
    approle.destroy_secret_id(ROLE, "hvac-custom-secret-id-value")
    out["custom_destroyed"] = attempt(client(token=None).auth.approle.login, role_id, "hvac-custom-secret-id-value")
    approle.destroy_secret_id_accessor(ROLE, accessor)
    out["accessor_destroyed"] = attempt(client(token=None).auth.approle.login, role_id, secret_id)

    approle.update_role_id(ROLE, "hvac-custom-role-id")
    out["role_id_after_update"] = approle.read_role_id(ROLE)["data"]["role_id"]

    # hvac's test_unwrap: a wrapped secret-id answer, unwrapped, logs in.
    wrapped = root.write("auth/approle/role/%s/secret-id" % ROLE, wrap_ttl="60s")
    out["wrap_info"] = hide({k: v for k, v in wrapped["wrap_info"].items() if k in ("token", "ttl", "creation_path")})
    out["wrapped_has_no_data"] = not wrapped.get("data")
    unwrapped = root.sys.unwrap(wrapped["wrap_info"]["token"])["data"]
    out["unwrapped_keys"] = sorted(unwrapped.keys())
    out["unwrapped_login"] = "auth" in client(token=None).auth.approle.login("hvac-custom-role-id", unwrapped["secret_id"])

    approle.delete_role(ROLE)
    out["deleted_read"] = attempt(approle.read_role, ROLE)
    print(json.dumps(out))


main()
