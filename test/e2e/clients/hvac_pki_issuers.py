"""hvac's own PKI issuer tests, replayed against Latchkey with Debian's python3-hvac.

hvac's tests/integration_tests/api/secrets_engines/test_pki.py skips six tests on a server older
than Vault 1.11 (test_revoke_issuer: 1.12), because the issuers API is missing there:
test_read_issuer, test_list_issuers, test_update_issuer, test_update_issuer_no_extra_param,
test_revoke_issuer and test_delete_issuer. `TestPki` below holds those six as hvac has them (its
setUp, the same requests in the same order, the same unittest assertions) and unittest runs the
one named on the command line, as hvac's suite runs it against a server of 1.11 or later.

Two things cannot be as in hvac: mounts are deployed as code, so setUp's enable_secrets_engine
and tearDown's disable_secrets_engine have no counterpart (the test starts a service whose mount
`pki-integration-test` is fresh for each test); and Debian's hvac 0.11.2 has none of the issuer
methods (hvac added them in 1.0), so `IssuerMethods` sends what each of hvac's methods sends (its
method, path and body) through the installed client's own adapter. A client that has a method is
driven through the method itself.

`variant_delete_non_default_issuer` is not hvac's: test_delete_issuer's requests and assertion on
an issuer that is not the default (Latchkey refuses to delete the default issuer), to show the one
deliberate difference on its own: reading a deleted issuer answers 404 naming it, where OpenBao
answers 500.

Usage: python3 hvac_pki_issuers.py <test name>; prints one JSON object: the hvac version, the
methods stood in for, the test's result (pass, fail: an assertion failed, error: a request raised)
with its last traceback line, and each request's outcome in order.
"""
import importlib.metadata
import json
import logging
import os
import sys
import unittest

import hvac
from hvac import exceptions, utils

ADDR = os.environ["LATCHKEY_ADDR"]
TOKEN = os.environ["LATCHKEY_TOKEN"]
DEFAULT_MOUNT_POINT = "pki"
STEPS = []
STOOD_IN = set()


class IssuerMethods:
    """hvac's issuer methods of `secrets.pki` (hvac 1.0 and later): the request each one sends."""

    def __init__(self, adapter):
        self._adapter = adapter

    def read_issuer(self, issuer_ref, mount_point=DEFAULT_MOUNT_POINT):
        api_path = utils.format_url("/v1/{mount_point}/issuer/{issuer_ref}", mount_point=mount_point, issuer_ref=issuer_ref)
        return self._adapter.get(url=api_path)

    def list_issuers(self, mount_point=DEFAULT_MOUNT_POINT):
        api_path = utils.format_url("/v1/{mount_point}/issuers", mount_point=mount_point)
        return self._adapter.list(url=api_path)

    def update_issuer(self, issuer_ref, extra_params=None, mount_point=DEFAULT_MOUNT_POINT):
        # As hvac: extra_params None is sent as no body at all.
        params = extra_params
        api_path = utils.format_url("/v1/{mount_point}/issuer/{issuer_ref}", mount_point=mount_point, issuer_ref=issuer_ref)
        return self._adapter.post(url=api_path, json=params)

    def revoke_issuer(self, issuer_ref, mount_point=DEFAULT_MOUNT_POINT):
        api_path = utils.format_url("/v1/{mount_point}/issuer/{issuer_ref}/revoke", mount_point=mount_point, issuer_ref=issuer_ref)
        return self._adapter.post(url=api_path)

    def delete_issuer(self, issuer_ref, mount_point=DEFAULT_MOUNT_POINT):
        api_path = utils.format_url("/v1/{mount_point}/issuer/{issuer_ref}", mount_point=mount_point, issuer_ref=issuer_ref)
        return self._adapter.delete(url=api_path)


class Pki:
    """`client.secrets.pki` with the issuer methods hvac 0.11.2 lacks; every request's outcome recorded in STEPS."""

    def __init__(self, client):
        self._hvac = client.secrets.pki
        self._stand_in = IssuerMethods(client.adapter)

    def __getattr__(self, name):
        if hasattr(self._hvac, name):
            method = getattr(self._hvac, name)
        else:
            STOOD_IN.add(name)
            method = getattr(self._stand_in, name)

        def recorded(*args, **kwargs):
            try:
                result = method(*args, **kwargs)
            except exceptions.VaultError as e:
                STEPS.append({"call": name, "error": type(e).__name__, "message": str(e.args[0]) if e.args else ""})
                raise
            step = {"call": name, "ok": True}
            if isinstance(result, dict):
                step["warnings"] = result.get("warnings")
            else:
                step["status"] = result.status_code
            STEPS.append(step)
            return result

        return recorded


class TestPki(unittest.TestCase):
    TEST_MOUNT_POINT = "pki-integration-test"
    TEST_ROLE = "role-test"

    def setUp(self):
        super().setUp()
        self.client = hvac.Client(url=ADDR, token=TOKEN)
        self.client.secrets.pki = Pki(self.client)
        # enable_secrets_engine(backend_type="pki", path=TEST_MOUNT_POINT): deployed as code, fresh per test.
        common_name = "Vault integration tests"
        generate_type = "exported"
        self.client.secrets.pki.generate_root(
            type=generate_type,
            common_name=common_name,
            mount_point=self.TEST_MOUNT_POINT,
        )
        name = self.TEST_ROLE
        self.client.secrets.pki.create_or_update_role(
            name=name,
            extra_params={
                "allow_any_name": True,
                "ttl": "6h",
                "max_ttl": "12h",
            },
            mount_point=self.TEST_MOUNT_POINT,
        )

    # Read issuer (hvac: skipped below 1.11.0)
    def test_read_issuer(self):
        pki_list_response = self.client.secrets.pki.list_issuers(mount_point=self.TEST_MOUNT_POINT)

        logging.debug("pki_list_response: %s" % pki_list_response)

        self.assertIn(
            member="issuer_name",
            container=self.client.secrets.pki.read_issuer(
                issuer_ref=pki_list_response["data"]["keys"][0],
                mount_point=self.TEST_MOUNT_POINT,
            )["data"].keys(),
        )

    # List issuer (hvac: skipped below 1.11.0)
    def test_list_issuers(self):
        pki_list_response = self.client.secrets.pki.list_issuers(mount_point=self.TEST_MOUNT_POINT)

        logging.debug("pki_list_response: %s" % pki_list_response)

        self.assertIn("keys", pki_list_response["data"].keys())

    # Update issuer (hvac: skipped below 1.11.0)
    def test_update_issuer(self):
        pki_list_response = self.client.secrets.pki.list_issuers(mount_point=self.TEST_MOUNT_POINT)

        logging.debug("pki_list_response: %s" % pki_list_response)

        new_name = "new_issuer_name"

        self.client.secrets.pki.update_issuer(
            issuer_ref=pki_list_response["data"]["keys"][0],
            mount_point=self.TEST_MOUNT_POINT,
            extra_params={"issuer_name": new_name},
        )

        self.assertEqual(
            first=self.client.secrets.pki.read_issuer(
                issuer_ref=pki_list_response["data"]["keys"][0],
                mount_point=self.TEST_MOUNT_POINT,
            )["data"]["issuer_name"],
            second=new_name,
        )

    # Update issuer - no extra params (hvac: skipped below 1.11.0)
    def test_update_issuer_no_extra_param(self):
        pki_list_response = self.client.secrets.pki.list_issuers(mount_point=self.TEST_MOUNT_POINT)

        logging.debug("pki_list_response: %s" % pki_list_response)

        # Read current state of issuer to make sure nothing changes
        pki_read_response = self.client.secrets.pki.read_issuer(
            issuer_ref=pki_list_response["data"]["keys"][0],
            mount_point=self.TEST_MOUNT_POINT,
        )

        pki_update_response = self.client.secrets.pki.update_issuer(
            issuer_ref=pki_list_response["data"]["keys"][0],
            mount_point=self.TEST_MOUNT_POINT,
        )

        self.assertCountEqual(
            first=pki_update_response["data"]["usage"].split(","),
            second=pki_read_response["data"]["usage"].split(","),
        )

    # Revoke issuer (hvac: skipped below 1.12.0)
    def test_revoke_issuer(self):
        pki_list_response = self.client.secrets.pki.list_issuers(mount_point=self.TEST_MOUNT_POINT)

        logging.debug("pki_list_response: %s" % pki_list_response)

        self.client.secrets.pki.revoke_issuer(
            issuer_ref=pki_list_response["data"]["keys"][0],
            mount_point=self.TEST_MOUNT_POINT,
        )

        self.assertEqual(
            first=self.client.secrets.pki.read_issuer(
                issuer_ref=pki_list_response["data"]["keys"][0],
                mount_point=self.TEST_MOUNT_POINT,
            )["data"]["revoked"],
            second=True,
        )

    # Delete issuer (hvac: skipped below 1.11.0)
    def test_delete_issuer(self):
        pki_list_response = self.client.secrets.pki.list_issuers(mount_point=self.TEST_MOUNT_POINT)

        logging.debug("pki_list_response: %s" % pki_list_response)

        self.client.secrets.pki.delete_issuer(
            issuer_ref=pki_list_response["data"]["keys"][0],
            mount_point=self.TEST_MOUNT_POINT,
        )

        with self.assertRaises(exceptions.InternalServerError):
            self.client.secrets.pki.read_issuer(
                issuer_ref=pki_list_response["data"]["keys"][0],
                mount_point=self.TEST_MOUNT_POINT,
            )

    # Not hvac's: test_delete_issuer on an issuer that is not the default, expecting Latchkey's 404.
    def variant_delete_non_default_issuer(self):
        self.client.secrets.pki.generate_root(
            type="internal",
            common_name="Vault integration tests, second root",
            extra_params={"issuer_name": "second"},
            mount_point=self.TEST_MOUNT_POINT,
        )
        pki_list_response = self.client.secrets.pki.list_issuers(mount_point=self.TEST_MOUNT_POINT)
        info = pki_list_response["data"]["key_info"]
        second = [ref for ref in pki_list_response["data"]["keys"] if info[ref]["issuer_name"] == "second"][0]
        self.assertFalse(info[second]["is_default"])

        self.client.secrets.pki.delete_issuer(issuer_ref=second, mount_point=self.TEST_MOUNT_POINT)

        with self.assertRaises(exceptions.InvalidPath) as refused:
            self.client.secrets.pki.read_issuer(issuer_ref=second, mount_point=self.TEST_MOUNT_POINT)
        self.assertIn(second, str(refused.exception))


def run(name):
    result = unittest.TestResult()
    TestPki(name).run(result)
    if result.wasSuccessful():
        outcome, detail = "pass", ""
    else:
        outcome = "fail" if result.failures else "error"
        detail = (result.failures or result.errors)[0][1].strip().splitlines()[-1]
    return {
        "hvac_version": importlib.metadata.version("hvac"),
        "stood_in": sorted(STOOD_IN),
        "test": name,
        "result": outcome,
        "detail": detail,
        "steps": STEPS,
    }


if __name__ == "__main__":
    json.dump(run(sys.argv[1]), sys.stdout)
