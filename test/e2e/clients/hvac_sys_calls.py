"""python3-hvac against the sys calls clients make: leader, capabilities, key status, mounts, version history, host info."""
import json

from hvac_common import attempt, client, create, main, unique

APP = {"path": {"secret/data/app/*": {"capabilities": ["read", "list"]}, "pki/issue/web": {"capabilities": ["update"]}}}


def leader():
    c = client()
    plain, _, _ = create(c, policies=["default"])
    return {
        "leader": attempt(c.sys.read_leader_status),
        "ha_status": attempt(lambda: c.ha_status),
        "default_token": attempt(client(plain).sys.read_leader_status),
        "no_token": attempt(client("").sys.read_leader_status),
    }


def capabilities():
    c = client()
    name = unique("caps")
    c.sys.create_or_update_policy(name, json.dumps(APP))
    token, accessor, _ = create(c, policies=["default", name])
    mine = client(token)
    paths = ["secret/data/app/db", "pki/issue/web", "ssh/sign/x"]
    return {
        "self": attempt(mine.sys.get_capabilities, paths),
        "self_one": attempt(mine.sys.get_capabilities, ["secret/data/app/db"]),
        "token": attempt(c.sys.get_capabilities, paths, token=token),
        "accessor": attempt(c.sys.get_capabilities, paths, accessor=accessor),
        "root_self": attempt(c.sys.get_capabilities, ["anything"]),
        "bad_token": attempt(c.sys.get_capabilities, paths, token="hvs.nosuchtoken"),
        "bad_accessor": attempt(c.sys.get_capabilities, paths, accessor="nosuchaccessor"),
        "not_granted": attempt(mine.sys.get_capabilities, paths, token=token),
    }


def mounts():
    c = client()
    listed = c.sys.list_mounted_secrets_engines()["data"]
    return {
        "listed": {path: {"type": m["type"], "options": m.get("options")} for path, m in listed.items()},
        "kv_version": attempt(c.sys.retrieve_mount_option, "secret", "version"),
        "pki_version": attempt(c.sys.retrieve_mount_option, "pki", "version", "none"),
        "ui_mount": attempt(c.read, "sys/internal/ui/mounts/secret/app/db"),
        "ui_none": attempt(c.read, "sys/internal/ui/mounts/nowhere/x"),
        "ui_all": attempt(c.read, "sys/internal/ui/mounts"),
    }


def server():
    c = client()
    return {
        "key_status": attempt(c.sys.get_encryption_key_status),
        "key_status_v1": attempt(lambda: c.key_status),
        "version_history": attempt(c.list, "sys/version-history"),
        "host_info": attempt(c.read, "sys/host-info"),
    }


if __name__ == "__main__":
    main({"leader": leader, "capabilities": capabilities, "mounts": mounts, "server": server})
