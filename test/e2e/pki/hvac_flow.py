"""Drives Latchkey's PKI engine with Debian's python3-hvac, its PKI methods unmodified."""
import json
import os
import sys

import hvac

client = hvac.Client(url=os.environ["LATCHKEY_ADDR"], token=os.environ["LATCHKEY_TOKEN"])
pki = client.secrets.pki
out = {}

root = pki.generate_root(type="internal", common_name="hvac Root", extra_params={"ttl": "8760h", "key_type": "ec"}, mount_point="pki")
out["root"] = root["data"]["certificate"]
csr = pki.generate_intermediate(type="internal", common_name="hvac Int", extra_params={"key_type": "ec"}, mount_point="pki_int")
signed = pki.sign_intermediate(csr=csr["data"]["csr"], common_name="hvac Int", extra_params={"ttl": "100h"}, mount_point="pki")
out["intermediate"] = signed["data"]["certificate"]
pki.set_signed_intermediate(certificate=signed["data"]["certificate"], mount_point="pki_int")
pki.set_urls({"issuing_certificates": ["http://127.0.0.1/v1/pki_int/ca"], "crl_distribution_points": ["http://127.0.0.1/v1/pki_int/crl"]}, mount_point="pki_int")
out["urls"] = pki.read_urls(mount_point="pki_int")["data"]
pki.create_or_update_role("web", {"allowed_domains": "example.com", "allow_subdomains": True, "key_type": "ec", "ttl": "1h"}, mount_point="pki_int")
out["role"] = pki.read_role("web", mount_point="pki_int")["data"]
out["roles"] = pki.list_roles(mount_point="pki_int")["data"]["keys"]
leaf = pki.generate_certificate("web", "www.example.com", extra_params={"alt_names": "api.example.com"}, mount_point="pki_int")
out["leaf"] = leaf["data"]
signed_leaf = pki.sign_certificate("web", os.environ["CSR"], "svc.example.com", mount_point="pki_int")
out["signed"] = signed_leaf["data"]["certificate"]
verbatim = pki.sign_verbatim(os.environ["CSR"], extra_params={"ttl": "1h"}, mount_point="pki_int")
out["verbatim"] = verbatim["data"]["certificate"]
out["read"] = pki.read_certificate(leaf["data"]["serial_number"], mount_point="pki_int")["data"]["certificate"]
out["listed"] = leaf["data"]["serial_number"] in pki.list_certificates(mount_point="pki_int")["data"]["keys"]
out["revoked"] = pki.revoke_certificate(leaf["data"]["serial_number"], mount_point="pki_int")["data"]
pki.rotate_crl(mount_point="pki_int")
out["crl"] = pki.read_crl(mount_point="pki_int")
out["ca_pem"] = pki.read_ca_certificate(mount_point="pki_int")
out["ca_chain"] = pki.read_ca_certificate_chain(mount_point="pki_int")
pki.set_crl_configuration(expiry="48h", mount_point="pki_int")
out["crl_config"] = pki.read_crl_configuration(mount_point="pki_int")["data"]
out["tidy"] = pki.tidy({"tidy_cert_store": True, "safety_buffer": "1h"}, mount_point="pki_int").status_code
pki.delete_role("web", mount_point="pki_int")
try:
    pki.generate_certificate("web", "www.example.com", mount_point="pki_int")
    out["deleted_role_error"] = None
except hvac.exceptions.InvalidRequest as e:
    out["deleted_role_error"] = str(e)
pki.delete_root(mount_point="pki")
json.dump(out, sys.stdout)
