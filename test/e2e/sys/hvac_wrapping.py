"""Response wrapping driven by Debian's python3-hvac, its methods unmodified."""
import json
import os
import sys

import hvac

addr = os.environ["LATCHKEY_ADDR"]
root = hvac.Client(url=addr, token=os.environ["LATCHKEY_TOKEN"])
out = {}

# A wrapped token create: hvac's own wrap_ttl argument sends X-Vault-Wrap-TTL.
wrapped = root.auth.token.create(policies=["default"], ttl="1h", wrap_ttl="5m")
out["wrapped"] = {"data": wrapped["data"], "auth": wrapped["auth"], "wrap_info": wrapped["wrap_info"]}

# Unwrapped by the holder of the wrapping token (the client token is the wrapping token).
holder = hvac.Client(url=addr, token=wrapped["wrap_info"]["token"])
unwrapped = holder.sys.unwrap()
out["unwrapped_auth"] = unwrapped["auth"]
out["new_token_works"] = hvac.Client(url=addr, token=unwrapped["auth"]["client_token"]).is_authenticated()
try:
    holder.sys.unwrap()
    out["second_unwrap"] = None
except hvac.exceptions.InvalidRequest as e:
    out["second_unwrap"] = str(e)

# sys/wrapping/wrap through hvac's generic write (it has no wrap method), then lookup and a third-party unwrap.
wrapped_data = root.write("sys/wrapping/wrap", wrap_ttl="120", user="svc", password="hunter2")
token = wrapped_data["wrap_info"]["token"]
out["wrap_info"] = wrapped_data["wrap_info"]
out["lookup"] = hvac.Client(url=addr).write("sys/wrapping/lookup", token=token)["data"]
out["unwrapped_data"] = root.sys.unwrap(token=token)["data"]

# rewrap, then the new token unwraps to the same data.
again = root.write("sys/wrapping/wrap", wrap_ttl="1m", k="v")["wrap_info"]["token"]
rewrapped = root.write("sys/wrapping/rewrap", token=again)["wrap_info"]
out["rewrapped_ttl"] = rewrapped["ttl"]
out["rewrapped_data"] = root.sys.unwrap(token=rewrapped["token"])["data"]

try:
    root.auth.token.create(policies=["default"], wrap_ttl="800h")
    out["bad_ttl"] = None
except hvac.exceptions.InvalidRequest as e:
    out["bad_ttl"] = str(e)
json.dump(out, sys.stdout)
