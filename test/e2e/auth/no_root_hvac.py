"""python3-hvac writes approle roles carrying root (no-root-logins.test.ts): each is refused.

A delegated role administrator (a token whose only policy manages auth/approle/role/*) and root
itself call auth.approle.create_or_update_approle with token_policies=["root"]; the
administrator also tries to add root to a good role. Prints one JSON object of the outcomes
(hvac_common.attempt: the hvac exception class and message); no token leaves the script.
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "clients"))
from hvac_common import attempt, client  # noqa: E402

ADMIN_POLICY = {"path": {"auth/approle/role/*": {"capabilities": ["create", "update", "read"]}}}


def main():
    out = {}
    root = client()
    root.sys.create_or_update_policy("hvac-role-admin", json.dumps(ADMIN_POLICY))
    admin = client(token=root.auth.token.create(policies=["hvac-role-admin"])["auth"]["client_token"])
    approle = admin.auth.approle

    out["admin_create"] = attempt(approle.create_or_update_approle, "hvac-rooty", token_policies=["root"])
    out["root_create"] = attempt(root.auth.approle.create_or_update_approle, "hvac-rooty", token_policies=["root"])
    out["created_read"] = attempt(approle.read_role, "hvac-rooty")

    approle.create_or_update_approle("hvac-good", token_policies=["dev"])
    out["admin_update"] = attempt(approle.create_or_update_approle, "hvac-good", token_policies=["dev", "root"])
    out["good_policies"] = approle.read_role("hvac-good")["data"]["token_policies"]
    print(json.dumps(out))


main()
