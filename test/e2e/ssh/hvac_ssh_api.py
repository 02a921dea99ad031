"""Drives Latchkey's SSH engine with Debian's python3-hvac through hvac's SSH methods.

Debian's python3-hvac is 0.11.2, which has no SSH class: `client.secrets.ssh` raises
NotImplementedError (hvac added one in 1.x). There `SshMethods` stands in for it and sends what it
sends, the same method, path and JSON body with every default it fills in, through the installed
client's own adapter; a client that has the class is driven through the class itself. The flow is
the one of hvac's SSH integration tests: an OTP role without cidr_list, made a zero-address role,
credentials for an arbitrary IP, the OTP verified, and the rest.
"""
import importlib.metadata
import json
import os
import sys

import hvac

# What hvac's create_role sends for each argument left out (booleans it has as "" included).
ROLE_DEFAULTS = {
    "key": "",
    "admin_user": "",
    "default_user": "",
    "cidr_list": "",
    "exclude_cidr_list": "",
    "port": 22,
    "key_type": "",
    "key_bits": 1024,
    "install_script": "",
    "allowed_users": "",
    "allowed_users_template": "",
    "allowed_domains": "",
    "key_option_specs": "",
    "ttl": "",
    "max_ttl": "",
    "allowed_critical_options": "",
    "allowed_extensions": "",
    "default_critical_options": None,
    "default_extensions": None,
    "allow_user_certificates": "",
    "allow_host_certificates": False,
    "allow_bare_domains": False,
    "allow_subdomains": False,
    "allow_user_key_ids": False,
    "key_id_format": "",
    "allowed_user_key_lengths": None,
    "algorithm_signer": "",
}


class SshMethods:
    """hvac's `secrets.ssh` requests, on the mount `ssh`."""

    def __init__(self, client):
        self.adapter = client.adapter

    @staticmethod
    def url(path):
        return "/v1/ssh/" + path

    def create_or_update_key(self, name, key):
        return self.adapter.post(self.url("keys/" + name), json={"key": key})

    def delete_key(self, name):
        return self.adapter.delete(self.url("keys/" + name))

    def create_role(self, name, **fields):
        return self.adapter.post(self.url("roles/" + name), json={**ROLE_DEFAULTS, **fields})

    def read_role(self, name):
        return self.adapter.get(self.url("roles/" + name))

    def list_roles(self):
        return self.adapter.list(self.url("roles"))

    def delete_role(self, name):
        return self.adapter.delete(self.url("roles/" + name))

    def configure_zeroaddress_roles(self, roles):
        return self.adapter.post(self.url("config/zeroaddress"), json={"roles": roles})

    def list_zeroaddress_roles(self):
        return self.adapter.get(self.url("config/zeroaddress"))

    def delete_zeroaddress_role(self):
        return self.adapter.delete(self.url("config/zeroaddress"))

    def generate_ssh_credentials(self, name, username="", ip=""):
        return self.adapter.post(self.url("creds/" + name), json={"username": username, "ip": ip})

    def list_roles_by_ip(self, ip):
        return self.adapter.post(self.url("lookup"), json={"ip": ip})

    def verify_ssh_otp(self, otp):
        return self.adapter.post("v1/ssh/verify", json={"otp": otp})

    def submit_ca_information(self, generate_signing_key=True):
        body = {"private_key": "", "public_key": "", "generate_signing_key": generate_signing_key, "key_type": "ssh-rsa", "key_bits": 0}
        return self.adapter.post(self.url("config/ca"), json=body)

    def delete_ca_information(self):
        return self.adapter.delete(self.url("config/ca"))

    def sign_ssh_key(self, name, public_key):
        body = {
            "public_key": public_key,
            "ttl": "",
            "valid_principals": "",
            "cert_type": "user",
            "key_id": "",
            "critical_options": None,
            "extensions": None,
        }
        return self.adapter.post(self.url("sign/" + name), json=body)


def refusal(call, *args):
    """The error text of a refused request, or None when it succeeded."""
    try:
        call(*args)
        return None
    except (hvac.exceptions.InvalidRequest, hvac.exceptions.InvalidPath) as e:
        return "%s: %s" % (type(e).__name__, e)


def ssh_methods(client):
    """hvac's own SSH class when the installed hvac has one, else the stand-in."""
    try:
        return client.secrets.ssh
    except NotImplementedError:
        return SshMethods(client)


client = hvac.Client(url=os.environ["LATCHKEY_ADDR"], token=os.environ["LATCHKEY_TOKEN"])
ssh = ssh_methods(client)
anonymous = ssh_methods(hvac.Client(url=os.environ["LATCHKEY_ADDR"]))
out = {"hvac_version": importlib.metadata.version("hvac"), "hvac_ssh_class": not isinstance(ssh, SshMethods)}

role, user, ip = "test_role", "root", "1.2.3.4"
out["create_role"] = ssh.create_role(role, default_user=user, key_type="otp").status_code
out["read_role"] = ssh.read_role(role)["data"]
out["list_roles"] = ssh.list_roles()["data"]
out["creds_unlisted"] = refusal(ssh.generate_ssh_credentials, role, user, ip)
out["lookup_unlisted"] = ssh.list_roles_by_ip(ip)["data"]["roles"]
out["zero_unknown_role"] = refusal(ssh.configure_zeroaddress_roles, role + ",no_such_role")
out["configure_zeroaddress"] = ssh.configure_zeroaddress_roles(role).status_code
out["list_zeroaddress"] = ssh.list_zeroaddress_roles()["data"]
creds = ssh.generate_ssh_credentials(role, user, ip)
out["creds"] = {k: creds[k] for k in ("lease_id", "lease_duration", "renewable")}
out["creds"]["data"] = creds["data"]
out["creds_ipv6"] = ssh.generate_ssh_credentials(role, user, "2001:db8::42")["data"]["ip"]
out["lookup"] = ssh.list_roles_by_ip(ip)["data"]["roles"]
out["verify"] = anonymous.verify_ssh_otp(creds["data"]["key"])["data"]
out["verify_again"] = refusal(anonymous.verify_ssh_otp, creds["data"]["key"])

out["delete_zeroaddress"] = ssh.delete_zeroaddress_role().status_code
out["zeroaddress_after_delete"] = refusal(ssh.list_zeroaddress_roles)
out["creds_after_zero_delete"] = refusal(ssh.generate_ssh_credentials, role, user, ip)
ssh.configure_zeroaddress_roles(role)
out["delete_role"] = ssh.delete_role(role).status_code
out["zeroaddress_after_role_delete"] = refusal(ssh.list_zeroaddress_roles)
ssh.create_role(role, default_user=user, key_type="otp")
out["creds_recreated_role"] = refusal(ssh.generate_ssh_credentials, role, user, ip)
ssh.delete_role(role)

# The rest of hvac's SSH integration tests: admin keys, the CA, a signed key.
out["create_key"] = ssh.create_or_update_key("test-key", os.environ["PRIVATE_KEY"]).status_code
out["delete_key"] = ssh.delete_key("test-key").status_code
out["ca_public_key"] = ssh.submit_ca_information()["data"]["public_key"]
ssh.create_role("test_ca_role", default_user=user, key_type="ca", allow_user_certificates=True)
# A ca role whose allowed_users is empty allows no user, so Vault refuses this one too.
out["sign_default_user"] = refusal(ssh.sign_ssh_key, "test_ca_role", os.environ["PUBLIC_KEY"])
out["delete_ca"] = ssh.delete_ca_information().status_code
json.dump(out, sys.stdout)
