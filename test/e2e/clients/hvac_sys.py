"""python3-hvac against sys/*: policies, leases, wrapping, seal status, health, mounts."""
import json

from hvac_common import ROOT, attempt, client, create, gone, issue, main, redact, unique

DOC = {"path": {"secret/*": {"capabilities": ["read", "list"]}, "sys/mounts": {"capabilities": ["read"]}}}


def policies():
    c = client()
    name = unique("pol")
    out = {"create": attempt(c.sys.create_or_update_policy, name, DOC)}
    out["read"] = c.sys.read_policy(name)["data"]
    out["rules"] = json.loads(out["read"]["rules"])
    out["parsed"] = c.get_policy(name, parse=True)
    out["list"] = c.sys.list_policies()["data"]["policies"]
    out["compact"] = attempt(c.sys.create_or_update_policy, name, DOC, pretty_print=False)
    out["delete"] = attempt(c.sys.delete_policy, name)
    out["after_delete"] = c.get_policy(name)
    out["list_after"] = c.sys.list_policies()["data"]["policies"]
    out["root_update"] = attempt(c.sys.create_or_update_policy, "root", DOC)
    out["default_delete"] = attempt(c.sys.delete_policy, "default")
    out["typo_key"] = attempt(c.sys.create_or_update_policy, unique("typo"), {"paths": DOC["path"]})
    out["legacy_rule"] = attempt(c.sys.create_or_update_policy, unique("legacy"), {"path": {"secret/*": {"policy": "read"}}})
    return out


def acl_policies():
    c = client()
    name = unique("acl")
    out = {"write": attempt(c.write, "sys/policies/acl/" + name, policy=json.dumps(DOC))}
    out["read"] = redact(c.read("sys/policies/acl/" + name))
    out["list"] = attempt(lambda: c.list("sys/policies/acl")["data"]["keys"])
    out["legacy_read"] = json.loads(c.sys.read_policy(name)["data"]["rules"])
    out["delete"] = attempt(c.adapter.delete, "/v1/sys/policies/acl/" + name)
    out["read_deleted"] = attempt(c.adapter.get, "/v1/sys/policies/acl/" + name)
    return out


def leases():
    c = client()
    first = issue(c, "one.example.com")
    second = issue(c, "two.example.com")
    lease = first["lease_id"]
    out = {"issue": {k: first[k] for k in ("lease_id", "renewable", "lease_duration")}}
    out["read"] = c.sys.read_lease(lease)["data"]
    out["list_mount"] = attempt(c.sys.list_leases, "pki/")
    out["list_mount_noslash"] = attempt(c.sys.list_leases, "pki")
    out["list_role"] = attempt(c.sys.list_leases, "pki/issue/leased/")
    out["renew"] = attempt(c.sys.renew_lease, lease, increment=60)
    out["renew_legacy"] = attempt(c.adapter.put, "/v1/sys/renew/" + lease)
    out["revoke"] = attempt(c.sys.revoke_lease, lease)
    out["read_revoked"] = gone(c.sys.read_lease, lease)
    out["serials"] = [first["data"]["serial_number"], second["data"]["serial_number"]]
    out["revoke_legacy"] = attempt(c.adapter.put, "/v1/sys/revoke/" + second["lease_id"])
    out["read_legacy_revoked"] = (gone if "ok" in out["revoke_legacy"] else attempt)(c.sys.read_lease, second["lease_id"])
    out["list_after"] = attempt(c.sys.list_leases, "pki/issue/leased/")
    out["unknown"] = attempt(c.sys.read_lease, "pki/issue/leased/nope")
    return out


def revoke_prefix():
    c = client()
    issued = [issue(c, "p%d.example.com" % i) for i in range(3)]
    out = {"no_sudo": attempt(client(create(c, policies=["issuer"])[0]).sys.revoke_prefix, "pki/issue/leased/")}
    out["revoke_prefix"] = attempt(c.sys.revoke_prefix, "pki/issue/leased/")
    wait = gone if "ok" in out["revoke_prefix"] else attempt  # no polling when the call itself failed
    out["after"] = [wait(c.sys.read_lease, r["lease_id"]) for r in issued]
    out["list_after"] = wait(c.sys.list_leases, "pki/")
    out["serials"] = [r["data"]["serial_number"] for r in issued]
    forced = issue(c, "forced.example.com")
    out["revoke_force"] = attempt(c.sys.revoke_force, "pki/issue/leased")
    out["forced_after"] = (gone if "ok" in out["revoke_force"] else attempt)(c.sys.read_lease, forced["lease_id"])
    out["serials"].append(forced["data"]["serial_number"])
    return out


def token_revocation_revokes_leases():
    """A child token issues leased certificates; revoking its parent revokes the leases."""
    c = client()
    parent, parent_accessor, _ = create(c, policies=["issuer", "maker"], ttl="1h")
    child, _, _ = create(client(parent), policies=["issuer"], ttl="30m")
    issued = [issue(client(child), "c%d.example.com" % i) for i in range(3)]
    out = {"leases_before": [attempt(c.sys.read_lease, r["lease_id"]) for r in issued]}
    out["revoke"] = attempt(c.auth.token.revoke_accessor, parent_accessor)
    out["child_lookup"] = attempt(c.auth.token.lookup, child)
    out["leases_after"] = [gone(c.sys.read_lease, r["lease_id"]) for r in issued]
    out["serials"] = [r["data"]["serial_number"] for r in issued]
    return out


def wrapping():
    c = client()
    payload = {"answer": "42", "nested": {"k": "v"}}
    wrapped = c.adapter.post("/v1/sys/wrapping/wrap", json=payload, wrap_ttl="2m")
    wrap = wrapped["wrap_info"]
    out = {"wrap": redact(wrapped)}
    out["lookup"] = attempt(lambda: c.write("sys/wrapping/lookup", token=wrap["token"])["data"])
    rewrapped = c.write("sys/wrapping/rewrap", token=wrap["token"])
    out["rewrap"] = redact(rewrapped)
    out["old_after_rewrap"] = attempt(c.sys.unwrap, wrap["token"])
    out["unwrap"] = c.sys.unwrap(rewrapped["wrap_info"]["token"])["data"]
    out["unwrap_again"] = attempt(c.sys.unwrap, rewrapped["wrap_info"]["token"])
    out["no_wrap_ttl"] = attempt(c.adapter.post, "/v1/sys/wrapping/wrap", json=payload)
    read = c.read("sys/mounts", wrap_ttl="60s")
    out["read_wrapped"] = redact(read)
    out["read_unwrapped_has_pki"] = "pki/" in c.sys.unwrap(read["wrap_info"]["token"])["data"]
    out["bogus"] = attempt(c.sys.unwrap, "s.not-a-wrapping-token")
    return out


def system():
    c = client()
    anonymous = client(None)
    return {
        "seal_status": attempt(lambda: anonymous.seal_status),
        "is_sealed": attempt(anonymous.sys.is_sealed),
        "health": attempt(anonymous.sys.read_health_status, method="GET"),
        "mounts": attempt(c.sys.list_mounted_secrets_engines),
        "mount": attempt(c.read, "sys/mounts/pki"),
        "tune": attempt(c.sys.read_mount_configuration, "pki"),
        "unknown_mount": attempt(c.adapter.get, "/v1/sys/mounts/nope/tune"),
        "authenticated": attempt(c.is_authenticated),
    }


def mixed_case():
    """Names sent in mixed case, as `vault policy write MyPolicy` and Terraform send them: folded to lower case."""
    c = client()
    doc = json.dumps({"path": {"mixed/*": {"capabilities": ["read"]}}})
    out = {
        "write": attempt(c.sys.create_or_update_policy, "MixedPolicy", doc),
        "read_lower": attempt(c.sys.read_policy, "mixedpolicy"),
        "read_upper": attempt(c.sys.read_policy, "MIXEDPOLICY"),
        "list": attempt(c.sys.list_policies),
        "acl_write": attempt(c.write, "sys/policies/acl/MixedAcl", policy=doc),
        "acl_read": attempt(c.read, "sys/policies/acl/mixedacl"),
    }
    approle = c.auth.approle
    out["role_write"] = attempt(approle.create_or_update_approle, "MixedRole", token_policies=["MixedPolicy"])
    out["role_read"] = attempt(lambda: approle.read_role("mixedrole")["data"]["token_policies"])
    role_id = approle.read_role_id("MIXEDROLE")["data"]["role_id"]
    secret_id = approle.generate_secret_id("MixedRole")["data"]["secret_id"]
    login = approle.login(role_id, secret_id, use_token=False)
    out["login_policies"] = login["auth"]["policies"]
    out["roles"] = attempt(lambda: approle.list_roles()["data"]["keys"])
    out["delete"] = attempt(c.sys.delete_policy, "MIXEDpolicy")
    out["after_delete"] = attempt(c.sys.read_policy, "mixedpolicy")
    return out


if __name__ == "__main__":
    assert ROOT
    main({f.__name__: f for f in [policies, acl_policies, leases, revoke_prefix, token_revocation_revokes_leases, wrapping, system, mixed_case]})
