"""Latchkey's stand-in for hvac's HvacIntegrationTestCase.

hvac's starts a Vault server for each test class and its tests enable and disable mounts. Mounts
are configuration in Latchkey, so each test gets a fresh service from the Node test that runs this
(POST to LATCHKEY_CONTROL answers its address and root token) whose KV mounts exist already;
enable_secrets_engine checks the mount is there as asked, disable_secrets_engine has nothing to do.
"""
import json
import urllib.request

import hvac

CONTROL = None  # set by run.py
ENABLED = []  # (path, type, options) each test asked for


def fresh_service():
    req = urllib.request.Request(CONTROL, data=b"{}", method="POST", headers={"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as res:
        return json.loads(res.read())


class MountsAsCode:
    """enable/disable_secrets_engine for a service whose mounts come from its configuration."""

    def __init__(self, client):
        self._client = client

    def enable_secrets_engine(self, backend_type, path=None, options=None, **kwargs):
        ENABLED.append([path, backend_type, options])
        mounts = self._client.sys.list_mounted_secrets_engines()["data"]
        mount = mounts.get("%s/" % path)
        if mount is None:
            raise AssertionError("mount %s/ is not configured" % path)
        want = {k: str(v) for k, v in (options or {}).items()}
        if mount["type"] != backend_type or any(mount["options"].get(k) != v for k, v in want.items()):
            raise AssertionError("mount %s/ is %s %s, not %s %s" % (path, mount["type"], mount["options"], backend_type, want))

    def disable_secrets_engine(self, path):
        pass


class HvacIntegrationTestCase(object):
    client = None

    def setUp(self):
        svc = fresh_service()
        self.client = hvac.Client(url=svc["url"], token=svc["token"])
        shim = MountsAsCode(self.client)
        self.client.sys.enable_secrets_engine = shim.enable_secrets_engine
        self.client.sys.disable_secrets_engine = shim.disable_secrets_engine
        self.root_token = svc["token"]

    def tearDown(self):
        self.client.token = self.root_token
