"""python3-hvac against auth/token/*: create, lookup, renew, revoke, orphans, periods, roles."""
import json

from hvac_common import ROOT, attempt, client, create, main, redact, unique

# What the scenarios' non-root tokens hold: make children (no sudo), read mounts.
READER = {
    "path": {
        "sys/mounts": {"capabilities": ["read"]},
        "auth/token/create": {"capabilities": ["update"]},
        "auth/token/create-orphan": {"capabilities": ["update"]},
        "auth/token/revoke-orphan": {"capabilities": ["update"]},
    }
}


def policy(c, doc=None):
    name = unique("tok")
    c.sys.create_or_update_policy(name, doc or READER)
    return name


def token_create():
    c = client()
    pol = policy(c)
    token, accessor, auth = create(c, policies=[pol], ttl="1h", meta={"team": "blue"}, display_name="ci", num_uses=0)
    mine = client(token)
    return {
        "auth": redact(auth),
        "lookup": redact(c.auth.token.lookup(token)["data"]),
        "lookup_same_id": c.auth.token.lookup(token)["data"]["id"] == token,
        "lookup_self": redact(mine.auth.token.lookup_self()["data"]),
        "lookup_self_same_id": mine.auth.token.lookup_self()["data"]["id"] == token,
        "lookup_accessor": redact(c.auth.token.lookup_accessor(accessor)["data"]),
        "explicit": redact(create(c, ttl="30m", explicit_max_ttl="5m")[2]),
        "default_ttl": redact(create(c, policies=[pol])[2]),
        "unknown_lookup": attempt(c.auth.token.lookup, "s.not-a-token"),
        "unknown_accessor": attempt(c.auth.token.lookup_accessor, "not-an-accessor"),
        "outside_parent": attempt(create, mine, policies=["root"]),
    }


def num_uses():
    c = client()
    token, _, auth = create(c, policies=[policy(c)], num_uses=2)
    mine = client(token)
    return {
        "auth_num_uses": auth.get("num_uses"),
        "first": attempt(lambda: mine.auth.token.lookup_self()["data"]["num_uses"]),
        "second": attempt(lambda: mine.auth.token.lookup_self()["data"]["num_uses"]),
        "third": attempt(mine.auth.token.lookup_self),
        "by_root": attempt(c.auth.token.lookup, token),
    }


def renew():
    c = client()
    token, accessor, _ = create(c, policies=[policy(c)], ttl="1h", explicit_max_ttl="3h")
    fixed, _, _ = create(c, policies=[policy(c)], ttl="1h", renewable=False)
    renewed = c.auth.token.renew(token, increment="2h")["auth"]
    self_renewed = client(token).auth.token.renew_self(increment="30m")["auth"]
    return {
        "renewed": redact(renewed),
        "renewed_same_token": renewed["client_token"] == token,
        "self_renewed": redact(self_renewed),
        "capped": redact(c.auth.token.renew(token, increment="10h")["auth"]),
        "not_renewable": attempt(c.auth.token.renew, fixed),
        "accessor_still_valid": c.auth.token.lookup_accessor(accessor)["data"]["accessor"] == accessor,
    }


def revoke():
    c = client()
    pol = policy(c)
    parent, _, _ = create(c, policies=[pol], ttl="1h")
    child, child_accessor, _ = create(client(parent), ttl="30m")
    grandchild, _, _ = create(client(child), ttl="10m")
    by_self, _, _ = create(c, policies=[pol])
    by_accessor, accessor, _ = create(c, policies=[pol])
    out = {
        "revoke": attempt(c.auth.token.revoke, parent),
        "parent_lookup": attempt(c.auth.token.lookup, parent),
        "child_lookup": attempt(c.auth.token.lookup, child),
        "grandchild_lookup": attempt(c.auth.token.lookup, grandchild),
        "child_accessor": attempt(c.auth.token.lookup_accessor, child_accessor),
        "revoke_self": attempt(client(by_self).auth.token.revoke_self),
        "self_lookup": attempt(c.auth.token.lookup, by_self),
        "revoke_accessor": attempt(c.auth.token.revoke_accessor, accessor),
        "accessor_lookup": attempt(c.auth.token.lookup_accessor, accessor),
        "accessor_token_lookup": attempt(c.auth.token.lookup, by_accessor),
        "revoke_accessor_again": attempt(c.auth.token.revoke_accessor, accessor),
    }
    return out


def orphans():
    c = client()
    pol = policy(c)
    parent, _, _ = create(c, policies=[pol], ttl="1h")
    child, _, _ = create(client(parent), ttl="30m")
    orphan = client(parent).create_token(orphan=True, ttl="30m")["auth"]
    plain = client(parent)
    out = {
        "orphan_auth": redact(orphan),
        "orphan_lookup": c.auth.token.lookup(orphan["client_token"])["data"]["orphan"],
        "child_orphan_before": c.auth.token.lookup(child)["data"]["orphan"],
        "no_parent_by_non_sudo": attempt(create, plain, no_parent=True),
        "root_no_parent": create(c, policies=[pol], no_parent=True)[2]["orphan"],
        "revoke_orphan_no_sudo": attempt(plain.auth.token.revoke_and_orphan_children, child),
    }
    # Revoking the parent leaves the orphan alone.
    grand, _, _ = create(client(child), ttl="10m")
    out["revoke_and_orphan"] = attempt(c.auth.token.revoke_and_orphan_children, child)
    out["revoked_lookup"] = attempt(c.auth.token.lookup, child)
    out["grandchild_after"] = attempt(lambda: c.auth.token.lookup(grand)["data"]["orphan"])
    c.auth.token.revoke(parent)
    out["orphan_after_parent_revoked"] = attempt(lambda: c.auth.token.lookup(orphan["client_token"])["data"]["orphan"])
    return out


def sudo_orphan():
    """sudo on auth/token/create allows no_parent; create-orphan needs only update there."""
    c = client()
    sudo = policy(c, {"path": {"auth/token/create": {"capabilities": ["update", "sudo"]}, "auth/token/create-orphan": {"capabilities": ["update"]}}})
    plain = policy(c, {"path": {"auth/token/create-orphan": {"capabilities": ["update"]}}})
    s, _, _ = create(c, policies=[sudo])
    p, _, _ = create(c, policies=[plain])
    return {
        "sudo_no_parent": attempt(lambda: create(client(s), no_parent=True, policies=[sudo])[2]["orphan"]),
        "create_orphan_endpoint": attempt(lambda: client(p).create_token(orphan=True, policies=[plain])["auth"]["orphan"]),
    }


def periodic():
    c = client()
    pol = policy(c)
    token, _, auth = create(c, policies=[pol], period="30m")
    mine = client(token)
    parent, _, _ = create(c, policies=[pol])
    return {
        "auth": redact(auth),
        "lookup": redact(c.auth.token.lookup(token)["data"]),
        "renew_self": redact(mine.auth.token.renew_self()["auth"]),
        "renew_increment": redact(mine.auth.token.renew_self(increment="3h")["auth"]),
        "non_sudo_period": attempt(create, client(parent), period="1h"),
    }


def roles():
    c = client()
    pol = policy(c)
    other = policy(c)
    name = unique("role")
    periodic_name = unique("periodic")
    out = {"empty_list": attempt(c.auth.token.list_roles)}
    created = c.auth.token.create_or_update_role(name, allowed_policies=[pol], orphan=True, renewable=True)
    out["create_status"] = created.status_code
    c.write("auth/token/roles/" + periodic_name, allowed_policies=pol, period="1h")
    out["read"] = c.auth.token.read_role(name)["data"]
    out["read_periodic"] = c.auth.token.read_role(periodic_name)["data"]
    out["list"] = c.auth.token.list_roles()["data"]["keys"]
    token, _, auth = create(c, role_name=name, ttl="1h")
    out["auth"] = redact(auth)
    out["lookup"] = redact(c.auth.token.lookup(token)["data"])
    out["periodic_auth"] = redact(create(c, role_name=periodic_name)[2])
    out["outside_allowed"] = attempt(create, c, role_name=name, policies=[other])
    out["unknown_role"] = attempt(create, c, role_name=unique("nope"))
    wrapped = c.create_token(role=name, wrap_ttl="15m")
    out["wrapped"] = redact(wrapped)
    out["unwrapped"] = redact(c.sys.unwrap(wrapped["wrap_info"]["token"])["auth"]) if wrapped.get("wrap_info") else None
    out["revoke_prefix"] = attempt(c.sys.revoke_prefix, "auth/token/create/" + name)
    out["after_prefix"] = attempt(c.auth.token.lookup, token)
    out["delete_status"] = c.auth.token.delete_role(name).status_code
    c.auth.token.delete_role(periodic_name)
    out["read_deleted"] = attempt(c.auth.token.read_role, name)
    return out


def wrapped_create():
    c = client()
    pol = policy(c)
    response = c.auth.token.create(policies=[pol], period="30m", wrap_ttl="15m")
    wrap = response["wrap_info"]
    lookup = c.write("sys/wrapping/lookup", token=wrap["token"])
    unwrapped = client(wrap["token"]).sys.unwrap()
    token = unwrapped["auth"]["client_token"]
    return {
        "response": redact(response),
        "lookup": lookup["data"],
        "unwrapped": redact(unwrapped),
        "token_lookup": redact(c.auth.token.lookup(token)["data"]),
        "accessor_matches": wrap.get("wrapped_accessor") == unwrapped["auth"]["accessor"],
        "again": attempt(c.sys.unwrap, wrap["token"]),
        "lookup_after": attempt(c.write, "sys/wrapping/lookup", token=wrap["token"]),
        "policy_doc": json.loads(c.sys.read_policy(pol)["data"]["rules"]),
    }


if __name__ == "__main__":
    assert ROOT
    main({f.__name__: f for f in [token_create, num_uses, renew, revoke, orphans, sudo_orphan, periodic, roles, wrapped_create]})
