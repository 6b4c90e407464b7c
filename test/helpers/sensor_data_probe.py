"""Ironic's sensor data collection, as a conductor runs it, with Ironic's own code.

Run with the Python of PyPI's ironic 38.0.0 plus ironic-prometheus-exporter (the driver the
image's conductors load). Ironic's ConductorManager._send_sensor_data (the periodic task) runs twice
for conductor HOST: the nodes it owns are picked by Ironic's own hash ring among ALL_HOSTS
(iter_nodes -> _mapped_to_this_conductor), each owned node's sensor data is sent by
_sensors_nodes_task through Ironic's sensors notifier, and the conductor's own metrics
(the [metrics]backend collector) by _sensors_conductor. What a lab cannot give is stood in for:
the database row list (every NODE, all redfish, active), the node lock (task_manager.acquire) and
the BMC's reading (the redfish management interface's get_sensors_data, returning the dict shape of
Ironic 38's redfish driver: Extra, Fan, Temperature, Power, Drive).

The configuration is Ironic's: CONFIG_FILE (the image's template sections) and the
OS_<GROUP>__<OPTION> variables of the environment (the ironic container's), read by oslo.config.

Usage: sensor_data_probe.py CONFIG_FILE HOST ALL_HOSTS(comma-separated) NODE_NAME... Prints one
JSON object: the settings Ironic read and the nodes this conductor sent.
"""
import contextlib
import json
import warnings
import sys
import threading
import types
import uuid
from unittest import mock

warnings.simplefilter("ignore", DeprecationWarning)
import futurist  # noqa: E402

from ironic.conf import CONF

config_file, host, all_hosts, names = sys.argv[1], sys.argv[2], sys.argv[3].split(","), sys.argv[4:]
CONF(["--config-file", config_file], project="ironic", default_config_files=[])

# Imported once the configuration is read, as in the conductor: the metrics logger of the manager
# module takes [metrics]backend when it is created.
from ironic import objects  # noqa: E402
from ironic.common import context as ironic_context  # noqa: E402
from ironic.common import hash_ring  # noqa: E402
from ironic.common import rpc  # noqa: E402
from ironic.conductor import manager  # noqa: E402
from ironic.conductor import task_manager  # noqa: E402

rpc.init(CONF)
objects.register_all()

# Stable UUIDs per node name: the ring places the same node on the same conductor in every process.
NODES = {str(uuid.uuid5(uuid.NAMESPACE_DNS, n)): n for n in names}


def sensors(name):
    """The redfish management interface's get_sensors_data shape (Ironic 38), one sensor of each kind."""
    return {
        "Extra": {"Manufacturer": "Test", "Model": "Lab", "UUID": "00000000-0000-0000-0000-0000000000" + str(10 + names.index(name))},
        "Fan": {"Fan1@1": {"identity": "Fan1", "max_reading_range": 10000, "min_reading_range": 0, "reading": 4200, "reading_units": "RPM", "serial_number": None, "physical_context": "SystemBoard", "state": "Enabled", "health": "OK"}},
        "Temperature": {"CPU1 Temp@1": {"identity": "CPU1 Temp", "max_reading_range_temp": 120, "min_reading_range_temp": 0, "reading_celsius": 40 + names.index(name), "physical_context": "CPU", "sensor_number": 1, "state": "Enabled", "health": "OK"}},
        "Power": {"0:Power@1": {"power_capacity_watts": 1100, "line_input_voltage": 230, "last_power_output_watts": 180, "serial_number": "PSU0", "state": "Enabled", "health": "OK"}},
        "Drive": {"Disk0:Storage1@1": {"name": "Disk0", "model": "Lab SSD", "capacity_bytes": 960197124096, "state": "Enabled", "health": "Warning"}},
    }


@contextlib.contextmanager
def acquire(context, node_id, shared=False, purpose=None, **kwargs):
    name = NODES[node_id]
    mgmt = types.SimpleNamespace(validate=lambda task: None, get_sensors_data=lambda task: sensors(name))
    yield types.SimpleNamespace(node=types.SimpleNamespace(uuid=node_id, name=name, maintenance=False, driver="redfish"), driver=types.SimpleNamespace(management=mgmt))


mgr = manager.ConductorManager.__new__(manager.ConductorManager)
mgr.host = host
mgr.sensors_notifier = rpc.get_sensors_notifier()
mgr._shutdown = threading.Event()
mgr._executor = futurist.ThreadPoolExecutor(max_workers=CONF.sensor_data.workers)
mgr._reserved_executor = None
mgr.ring_manager = hash_ring.HashRingManager(use_groups=False, cache=False)
mgr.dbapi = types.SimpleNamespace(get_nodeinfo_list=lambda columns, **kw: [(u, "redfish", "", None) for u in NODES])
active = {"redfish": set(all_hosts)}
with mock.patch.object(task_manager, "acquire", acquire), mock.patch.object(objects.Conductor, "get_active_hardware_type_dict", return_value=active):
    owned = [NODES[u] for (u, *_) in mgr.iter_nodes(fields=["instance_uuid"])]
    # Two rounds of the periodic task: the conductor's own metrics of the second are the timers the
    # first recorded (the collector holds nothing before any timed call).
    for _ in range(2):
        mgr._send_sensor_data(ironic_context.get_admin_context())
mgr._executor.shutdown(wait=True)
print(json.dumps({
    "send_sensor_data": CONF.sensor_data.send_sensor_data,
    "interval": CONF.sensor_data.interval,
    "driver": CONF.oslo_messaging_notifications.driver,
    "location": CONF.oslo_messaging_notifications.location,
    "metrics_backend": CONF.metrics.backend,
    "owned": sorted(owned),
}))
