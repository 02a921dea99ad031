"""Drives Latchkey's token API with Debian's python3-hvac, its token methods unmodified."""
import json
import os
import sys

import hvac
from hvac import exceptions

addr = os.environ["LATCHKEY_ADDR"]
root = hvac.Client(url=addr, token=os.environ["LATCHKEY_TOKEN"])
tok = root.auth.token
out = {}


def as_token(token):
    return hvac.Client(url=addr, token=token)


def error_of(fn):
    try:
        fn()
        return None
    except exceptions.VaultError as e:
        return type(e).__name__ + ": " + str(e)


root.sys.create_or_update_policy("hvac-sudo", {"path": {"auth/token/create": {"capabilities": ["update", "sudo"]}}})
root.sys.create_or_update_policy("hvac-plain", {"path": {"auth/token/create": {"capabilities": ["update"]}}})

created = tok.create(policies=["hvac-plain"], ttl="1h", meta={"team": "a"}, display_name="ci")
t = created["auth"]["client_token"]
out["created"] = created["auth"]
out["lookup"] = tok.lookup(t)["data"]
out["lookup_self"] = as_token(t).auth.token.lookup_self()["data"]
out["lookup_accessor"] = tok.lookup_accessor(created["auth"]["accessor"])["data"]
out["renew"] = tok.renew(t, increment="30m")["auth"]
out["renew_self"] = as_token(t).auth.token.renew_self(increment="20m")["auth"]

periodic = tok.create(period="2h", policies=["hvac-plain"])
out["periodic"] = periodic["auth"]
out["periodic_lookup"] = tok.lookup(periodic["auth"]["client_token"])["data"]
out["periodic_renew"] = tok.renew(periodic["auth"]["client_token"], increment="10h")["auth"]

if hasattr(tok, "create_orphan"):
    orphan = tok.create_orphan(policies=["hvac-plain"], ttl="1h")
else:  # hvac before 1.0: the client's own create_token sends create-orphan
    orphan = root.create_token(orphan=True, policies=["hvac-plain"], ttl="1h")
out["orphan"] = orphan["auth"]
out["orphan_lookup"] = tok.lookup(orphan["auth"]["client_token"])["data"]

out["no_parent_plain"] = error_of(lambda: as_token(t).auth.token.create(no_parent=True))
sudo = tok.create(policies=["hvac-sudo"], ttl="1h")["auth"]["client_token"]
out["no_parent_sudo"] = as_token(sudo).auth.token.create(no_parent=True, ttl="10m")["auth"]
out["period_plain"] = error_of(lambda: as_token(t).auth.token.create(period="1h"))

parent = tok.create(policies=["hvac-plain"], ttl="1h")["auth"]["client_token"]
child = as_token(parent).auth.token.create(ttl="30m")["auth"]["client_token"]
tok.revoke_and_orphan_children(parent)
out["orphaned_child"] = tok.lookup(child)["data"]
out["revoked_parent"] = error_of(lambda: tok.lookup(parent))

out["no_roles"] = error_of(lambda: tok.list_roles())
out["role_write"] = tok.create_or_update_role("app", allowed_policies=["app-read"], orphan=True, path_suffix="v1").status_code
out["role"] = tok.read_role("app")["data"]
out["roles"] = tok.list_roles()["data"]["keys"]
from_role = tok.create(role_name="app", ttl="1h")
out["from_role"] = from_role["auth"]
out["from_role_lookup"] = tok.lookup(from_role["auth"]["client_token"])["data"]
out["from_role_outside"] = error_of(lambda: tok.create(role_name="app", policies=["admin"]))
tok.delete_role("app")
out["roles_after_delete"] = error_of(lambda: tok.list_roles())

tok.revoke_accessor(created["auth"]["accessor"])
out["revoked_accessor_lookup"] = error_of(lambda: tok.lookup_accessor(created["auth"]["accessor"]))
out["revoked_lookup"] = error_of(lambda: tok.lookup(t))
tok.revoke(orphan["auth"]["client_token"])
out["revoked_orphan_lookup"] = error_of(lambda: tok.lookup(orphan["auth"]["client_token"]))
json.dump(out, sys.stdout)
