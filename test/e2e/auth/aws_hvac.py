"""python3-hvac against a local Latchkey whose auth/aws mount checks logins with the STS fake.

Configures the mount and a role with hvac's admin calls (root token), then logs in as a
workload does: `client.auth.aws.iam_login(access_key, secret_key, ...)`, which signs
GetCallerIdentity for sts.amazonaws.com. Uses the token it gets, and prints one JSON object
holding no token, key or signature.
"""
import json
import os

import hvac
from hvac import exceptions

ADDR = os.environ["LATCHKEY_ADDR"]
ROOT = os.environ["LATCHKEY_TOKEN"]
STS = os.environ["STS_ENDPOINT"]
HEADER = "latchkey.example.com"

admin = hvac.Client(url=ADDR, token=ROOT)
admin.auth.aws.configure(sts_endpoint=STS, iam_server_id_header_value=HEADER)
admin.auth.aws.create_role(
    role="app-server",
    auth_type="iam",
    bound_iam_principal_arn=["arn:aws:iam::123456789012:role/app-*", "arn:aws:iam::123456789012:user/ci"],
    policies=["reader"],
    ttl="15m",
)
admin.sys.create_or_update_policy("reader", json.dumps({"path": {"sys/policy/reader": {"capabilities": ["read"]}}}))
out = {
    "config": admin.auth.aws.read_config(),
    "role": admin.auth.aws.read_role("app-server"),
    "roles": admin.auth.aws.list_roles()["keys"],
}


def login(key, secret, session=None, header=HEADER, role="app-server"):
    client = hvac.Client(url=ADDR)
    try:
        result = client.auth.aws.iam_login(key, secret, session_token=session, role=role, header_value=header, region="us-east-1")
    except exceptions.VaultError as e:
        return {"error": type(e).__name__, "messages": e.errors}
    auth = result["auth"]
    looked = client.auth.token.lookup_self()["data"]
    policy = client.sys.read_policy("reader")
    try:
        client.sys.read_policy("default")
        other = "allowed"
    except exceptions.Forbidden:
        other = "forbidden"
    return {
        "policies": auth["policies"],
        "metadata": auth["metadata"],
        "lease_duration": auth["lease_duration"],
        "display_name": looked["display_name"],
        "meta": looked["meta"],
        "authenticated": client.is_authenticated(),
        "read_own_policy": "name" in (policy.get("data") or policy),
        "read_other_policy": other,
    }


env = os.environ
out["assumed_role"] = login(env["ROLE_KEY"], env["ROLE_SECRET"], env["ROLE_SESSION"])
out["user"] = login(env["USER_KEY"], env["USER_SECRET"])
out["no_header"] = login(env["USER_KEY"], env["USER_SECRET"], header=None)
out["wrong_secret"] = login(env["USER_KEY"], env["USER_SECRET"] + "x")
out["unbound"] = login(env["OTHER_KEY"], env["OTHER_SECRET"])
print(json.dumps(out))
