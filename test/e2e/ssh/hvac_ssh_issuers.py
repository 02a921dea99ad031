"""Drives Latchkey's SSH issuer endpoints (OpenBao 2.3's API) with Debian's python3-hvac.

Debian's python3-hvac is 0.11.2, which has no SSH class, and no hvac release has methods for
OpenBao's SSH issuers: `IssuerMethods` sends each request as an OpenBao client would, the method,
path and JSON body of OpenBao's API documentation, through the installed client's own adapter
(hvac's error classes, its LIST verb, its raw answers for text bodies). Each endpoint once.
"""
import json
import os
import sys

import hvac


class IssuerMethods:
    """OpenBao's SSH issuer requests, on the mount `ssh`."""

    def __init__(self, client):
        self.adapter = client.adapter

    @staticmethod
    def url(path):
        return "/v1/ssh/" + path

    def submit_ca_information(self, key_type):
        return self.adapter.post(self.url("config/ca"), json={"generate_signing_key": True, "key_type": key_type})

    def read_ca_information(self):
        return self.adapter.get(self.url("config/ca"))

    def submit_issuer(self, path_name=None, **body):
        """issuers/import/<path_name>, or issuers/import with the name (if any) in the body."""
        path = "issuers/import" + ("/" + path_name if path_name else "")
        return self.adapter.post(self.url(path), json=body)

    def list_issuers(self):
        return self.adapter.list(self.url("issuers"))

    def read_issuer(self, ref):
        return self.adapter.get(self.url("issuer/" + ref))

    def update_issuer(self, ref, issuer_name):
        return self.adapter.post(self.url("issuer/" + ref), json={"issuer_name": issuer_name})

    def read_issuer_public_key(self, ref):
        return self.adapter.get(self.url("issuer/" + ref + "/public_key")).text

    def delete_issuer(self, ref):
        return self.adapter.delete(self.url("issuer/" + ref))

    def read_issuers_configuration(self):
        return self.adapter.get(self.url("config/issuers"))

    def set_issuers_configuration(self, default):
        return self.adapter.post(self.url("config/issuers"), json={"default": default})

    def read_public_key(self):
        return self.adapter.get(self.url("public_key")).text

    def read_public_keys(self):
        """Latchkey's addition: every issuer's public key, one line each."""
        return self.adapter.get(self.url("public_keys")).text

    def create_ca_role(self, name, **fields):
        return self.adapter.post(self.url("roles/" + name), json={"key_type": "ca", "allow_user_certificates": True, **fields})

    def read_role(self, name):
        return self.adapter.get(self.url("roles/" + name))

    def sign_ssh_key(self, name, public_key, valid_principals):
        return self.adapter.post(self.url("sign/" + name), json={"public_key": public_key, "valid_principals": valid_principals})

    def delete_ca_information(self):
        return self.adapter.delete(self.url("config/ca"))


def refusal(call, *args, **kwargs):
    """The error text of a refused request, or None when it succeeded."""
    try:
        call(*args, **kwargs)
        return None
    except (hvac.exceptions.InvalidRequest, hvac.exceptions.InvalidPath) as e:
        return "%s: %s" % (type(e).__name__, e)


ssh = IssuerMethods(hvac.Client(url=os.environ["LATCHKEY_ADDR"], token=os.environ["LATCHKEY_TOKEN"]))
anonymous = IssuerMethods(hvac.Client(url=os.environ["LATCHKEY_ADDR"]))
out = {}

out["config_ca"] = ssh.submit_ca_information("ed25519")["data"]
out["read_config_ca"] = ssh.read_ca_information()["data"]
out["import_generated"] = ssh.submit_issuer("next", key_type="ec", key_bits=256, set_default=False)["data"]
submitted = {"private_key": os.environ["CA_PRIVATE_KEY"], "public_key": os.environ["CA_PUBLIC_KEY"]}
out["import_submitted"] = ssh.submit_issuer(issuer_name="imported", **submitted)["data"]
out["list"] = ssh.list_issuers()["data"]
out["read_by_name"] = ssh.read_issuer("next")["data"]
out["update"] = ssh.update_issuer("next", "current")["data"]
out["issuer_public_key"] = anonymous.read_issuer_public_key("current")
out["default_before"] = ssh.read_issuers_configuration()["data"]
switched = ssh.set_issuers_configuration("current")
out["set_default"] = {"data": switched["data"], "warnings": switched["warnings"]}
out["public_key"] = anonymous.read_public_key()
out["public_keys"] = anonymous.read_public_keys()
ssh.create_ca_role("pinned", allowed_users="*", issuer_ref="imported")
out["role_issuer_ref"] = ssh.read_role("pinned")["data"]["issuer_ref"]
out["signed_issuer"] = ssh.sign_ssh_key("pinned", os.environ["USER_PUBLIC_KEY"], "u")["data"]["issuer_id"]
out["name_taken"] = refusal(ssh.submit_issuer, "current", key_type="ed25519")
out["unknown_ref"] = refusal(ssh.read_issuer, "nobody")
deleted = ssh.delete_issuer("imported")  # a role still names it: 200 with OpenBao's warning
out["delete_issuer"] = deleted["warnings"] if isinstance(deleted, dict) else deleted.status_code
out["delete_ca"] = ssh.delete_ca_information().status_code
out["after_delete"] = refusal(ssh.list_issuers)
json.dump(out, sys.stdout)
