"""Load Ironic's configuration the way Ironic does (oslo.config, with OS_<GROUP>__<OPTION>
environment overrides) and print the value of each requested option as JSON.

Input (argv[1]): JSON list of [group, option]. Output: JSON object "group.option" ->
{"value": <typed value>} or {"error": "<why>"}.
"""
import json
import sys

from oslo_config import cfg

import ironic.conf  # registers every Ironic option on ironic.conf.CONF

CONF = ironic.conf.CONF
CONF([], project="ironic", default_config_files=[], default_config_dirs=[])

result = {}
for group, option in json.loads(sys.argv[1]):
    key = "%s.%s" % (group, option)
    try:
        section = CONF if group.upper() == "DEFAULT" else CONF[group]
        result[key] = {"value": section[option]}
    except (cfg.NoSuchOptError, cfg.NoSuchGroupError, KeyError) as e:
        result[key] = {"error": "%s: %s" % (type(e).__name__, e)}
    except ValueError as e:
        result[key] = {"error": "ValueError: %s" % e}
print(json.dumps(result, default=str))
