"""Connect to a Redfish endpoint the way Ironic's redfish driver does, with Ironic's own config.

Run with an Ironic's Python (e.g. PyPI's ironic 38.0.0, the image's release). The environment
holds exactly the OS_<GROUP>__<OPTION> settings under test; oslo.config reads them as Ironic's
service does. A node with the redfish driver and no driver_info redfish_verify_ca is parsed by
ironic.drivers.modules.redfish.utils.parse_driver_info (which falls back to [redfish]verify_ca),
and the connection is made through its SessionCache (sushy, with that verify value).

Usage: redfish_verify_probe.py ADDRESS SYSTEM_ID [DRIVER]. Prints one JSON object:
{"verify_ca": <value>, "power_state": "..."} or {"verify_ca": ..., "error": "<class>: <message>"}.

Usage: redfish_verify_probe.py --repeat N INTERVAL ADDRESS SYSTEM_ID [DRIVER]: the same in one
process, with Ironic's default session cache, retried up to N times (one JSON line per attempt).

Usage: redfish_verify_probe.py --download URL: Ironic's own HTTPS download instead (an image
source, a deploy image), through ironic.common.image_service.HttpImageService, which verifies
with [DEFAULT]webserver_verify_ca: {"verify_ca": <value>, "bytes": <n>} or {..., "error": ...}.
"""
import json
import sys
import time
import types

from ironic.conf import CONF
from ironic.drivers.modules.redfish import utils as redfish_utils

CONF([], project="ironic", default_config_files=[])

if sys.argv[1] == "--download":
    import tempfile

    from ironic.common import image_service

    out = {"verify_ca": CONF.webserver_verify_ca}
    try:
        with tempfile.TemporaryFile() as f:
            image_service.HttpImageService().download(sys.argv[2], f)
            out["bytes"] = f.tell()
    except Exception as e:  # report any failure: the test asserts on its kind
        out["error"] = f"{type(e).__name__}: {e}"
    print(json.dumps(out))
    sys.exit(0)

attempts, interval = 1, 0.0
if sys.argv[1] == "--repeat":
    # One long-lived process (like a running conductor, with its session cache): try every INTERVAL
    # seconds, up to N times, until the connection verifies.
    attempts, interval = int(sys.argv[2]), float(sys.argv[3])
    del sys.argv[1:4]
else:
    CONF.set_override("connection_cache_size", 0, group="redfish")
address, system_id = sys.argv[1], sys.argv[2]
driver = sys.argv[3] if len(sys.argv) > 3 else "redfish"

node = types.SimpleNamespace(
    uuid="00000000-0000-0000-0000-0000000000aa",
    driver=driver,
    driver_info={
        "redfish_address": address,
        "redfish_system_id": system_id,
        "redfish_username": "admin",
        "redfish_password": "password",
        "redfish_auth_type": "basic",
    },
)
info = redfish_utils.parse_driver_info(node)
for attempt in range(1, attempts + 1):
    out = {"verify_ca": info["verify_ca"], "attempt": attempt}
    try:
        with redfish_utils.SessionCache(info) as conn:
            out["power_state"] = str(conn.get_system(system_id).power_state)
        break
    except Exception as e:  # report any failure: the test asserts on its kind
        out["error"] = f"{type(e).__name__}: {e}"
        if attempt < attempts:
            print(json.dumps(out), flush=True)
            time.sleep(interval)
print(json.dumps(out))
