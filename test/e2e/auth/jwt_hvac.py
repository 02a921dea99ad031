"""python3-hvac logs in through auth/jwt as a GitHub Actions job and an EKS pod would.

Run by jwt-hvac.test.ts with LATCHKEY_ADDR, LATCHKEY_TOKEN (root), the issuers' URLs and the
signed tokens in the environment. Prints one JSON object; no token value is printed.
"""
import json
import os

import hvac
from hvac import exceptions

ADDR = os.environ["LATCHKEY_ADDR"]
ROOT = os.environ["LATCHKEY_TOKEN"]
env = os.environ.get


def attempt(fn, *args, **kwargs):
    try:
        return {"ok": fn(*args, **kwargs)}
    except exceptions.VaultError as e:
        return {"error": type(e).__name__, "message": str(e)}


def auth_of(resp):
    a = dict(resp["auth"])
    a["client_token"] = "<token>" if a.get("client_token") else ""
    a["accessor"] = "<accessor>" if a.get("accessor") else ""
    return a


out = {}
admin = hvac.Client(url=ADDR, token=ROOT)
admin.sys.create_or_update_policy("ci-read", json.dumps({"path": {"sys/policy/ci-read": {"capabilities": ["read"]}}}))

# A GitHub Actions job: the mount "jwt" trusts GitHub's issuer through OIDC discovery.
admin.auth.jwt.configure(oidc_discovery_url=env("GH_ISSUER"), bound_issuer=env("GH_ISSUER"))
out["config"] = admin.auth.jwt.read_config()["data"]
admin.auth.jwt.create_role(
    name="deploy",
    role_type="jwt",
    user_claim="sub",
    allowed_redirect_uris=[],
    bound_audiences=["sts.amazonaws.com"],
    bound_claims_type="glob",
    bound_claims={"repository": "octo-org/octo-repo", "ref": "refs/heads/*"},
    claim_mappings={"repository": "repository", "ref": "ref", "workflow": "workflow", "run_id": "run_id"},
    token_policies=["ci-read"],
    token_ttl="15m",
)
out["role"] = admin.auth.jwt.read_role("deploy")["data"]
out["roles"] = admin.auth.jwt.list_roles()["data"]["keys"]

job = hvac.Client(url=ADDR)
resp = job.auth.jwt.jwt_login(role="deploy", jwt=env("GH_JWT"))
out["gh_login"] = auth_of(resp)
out["gh_authenticated"] = job.is_authenticated()
self_ = job.auth.token.lookup_self()["data"]
out["gh_self"] = {k: self_[k] for k in ("display_name", "meta", "policies", "path", "orphan")}
out["gh_use"] = attempt(lambda: job.sys.read_policy("ci-read")["data"]["name"])
out["gh_other_branch"] = attempt(lambda: hvac.Client(url=ADDR).auth.jwt.jwt_login(role="deploy", jwt=env("GH_JWT_TAG")))
out["gh_expired"] = attempt(lambda: hvac.Client(url=ADDR).auth.jwt.jwt_login(role="deploy", jwt=env("GH_JWT_EXPIRED")))

# A pod on EKS: the mount "jwt" reconfigured for the cluster's OIDC issuer.
admin.auth.jwt.configure(oidc_discovery_url=env("EKS_ISSUER"), bound_issuer=env("EKS_ISSUER"))
admin.auth.jwt.create_role(
    name="payments-api",
    role_type="jwt",
    user_claim="sub",
    allowed_redirect_uris=[],
    bound_audiences=["sts.amazonaws.com"],
    bound_subject="system:serviceaccount:payments:api",
    claim_mappings={"/kubernetes.io/namespace": "namespace", "/kubernetes.io/serviceaccount/name": "service_account"},
    token_policies=["ci-read"],
)
pod = hvac.Client(url=ADDR)
out["eks_login"] = auth_of(pod.auth.jwt.jwt_login(role="payments-api", jwt=env("EKS_JWT")))
out["eks_use"] = attempt(lambda: pod.sys.read_policy("ci-read")["data"]["name"])
out["eks_other_sa"] = attempt(lambda: hvac.Client(url=ADDR).auth.jwt.jwt_login(role="payments-api", jwt=env("EKS_JWT_OTHER")))

print(json.dumps(out))
