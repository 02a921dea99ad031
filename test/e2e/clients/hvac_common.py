"""Shared helpers for the python3-hvac scenario scripts: a client per token, outcomes as JSON.

Each script is run as `python3 <script> <scenario>` and prints one JSON object. Token values
never leave the script: `redact` replaces them with "<token>" so assertion output holds none.
"""
import json
import os
import sys
import time
import uuid

import hvac
import requests
from hvac import exceptions

ADDR = os.environ["LATCHKEY_ADDR"]
ROOT = os.environ["LATCHKEY_TOKEN"]
SECRET_KEYS = {"client_token", "id", "token", "wrapped_accessor_token"}


def client(token=ROOT):
    return hvac.Client(url=ADDR, token=token)


def unique(prefix):
    return "%s-%s" % (prefix, uuid.uuid4().hex[:8])


def redact(value):
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if k in SECRET_KEYS and isinstance(v, str):
                out[k] = "<token>" if v else ""
            else:
                out[k] = redact(v)
        return out
    if isinstance(value, list):
        return [redact(v) for v in value]
    return value


def shape(result):
    """What hvac handed back: a parsed body (dict) or, for 204, the requests.Response."""
    if isinstance(result, requests.Response):
        return {"status": result.status_code, "text": result.text}
    return redact(result)


def attempt(fn, *args, **kwargs):
    """{"ok": <result>} or {"error": "<hvac exception class>", "message": "..."}."""
    try:
        return {"ok": shape(fn(*args, **kwargs))}
    except exceptions.VaultError as e:
        return {"error": type(e).__name__, "message": str(e.args[0]) if e.args else ""}


def gone(fn, *args, deadline=8.0, **kwargs):
    """Polls until fn raises a VaultError (revocation may finish after the call answers)."""
    end = time.time() + deadline
    while True:
        outcome = attempt(fn, *args, **kwargs)
        if "error" in outcome or time.time() > end:
            return outcome
        time.sleep(0.2)


def create(c, **kwargs):
    """A token created through `c`; returns (token, accessor, auth block)."""
    auth = c.auth.token.create(**kwargs)["auth"]
    return auth["client_token"], auth["accessor"], auth


def issue(c, cn):
    return c.write("pki/issue/leased", common_name=cn, ttl="1h")


def main(scenarios):
    name = sys.argv[1]
    if name not in scenarios:
        sys.exit("unknown scenario %s; known: %s" % (name, ", ".join(sorted(scenarios))))
    print(json.dumps(scenarios[name](), default=str))
