"""The site planner: one description of a site, every study's answer on the links it shares, and
the reverse questions.

A plan (a YAML file or a dict: :func:`from_dict`, :func:`load`) holds links (rate each way, RTT,
loss), branch offices (hosts, VMs, statistics level, a vCenter operation), the vCenter appliance
with VCHA across a replication link, FT VMs with their logging link, migrations and template
deployments over links, and targets. :func:`evaluate` places every flow on its link, shares each
link by max-min fair processor sharing, and answers each workload with its study's model (ROBO,
vMotion, Content Library, VCHA, FT) with a 90 % interval, flagging VMware's documented limits and
extrapolation beyond the studies' test beds. :func:`smallest_bandwidth`, :func:`largest_rtt` and
:func:`most_hosts` answer the reverse questions by bisection on the forward evaluation.

Examples
--------
>>> from vcperf import site
>>> plan = site.from_dict({"links": [{"name": "wan", "bandwidth": "10 Mbit/s", "rtt": "80 ms"}],
...                        "branches": [{"name": "shop", "link": "wan", "hosts": 20}],
...                        "targets": {"operation_latency_s": 5}})
>>> site.evaluate(plan, intervals=False).ok
True
"""

from vcperf.site.evaluate import INTERVAL, SERIOUS, Answer, Evaluation, evaluate, interval
from vcperf.site.plan import (
    TARGET_QUANTITIES,
    Branch,
    DeploymentSpec,
    FtSpec,
    LinkSpec,
    MigrationSpec,
    Plan,
    VCenter,
    Vcha,
    check_plan,
    from_dict,
    load,
)
from vcperf.site.reverse import Reverse, largest_rtt, most_hosts, smallest_bandwidth
from vcperf.traffic import DirectionLoad, Flag, Flow, FlowShare, direction_load, water_fill

__all__ = [
    "INTERVAL", "SERIOUS", "Answer", "Evaluation", "evaluate", "interval", "DirectionLoad", "Flag", "Flow", "FlowShare",
    "direction_load", "water_fill", "TARGET_QUANTITIES", "Branch", "DeploymentSpec", "FtSpec", "LinkSpec",
    "MigrationSpec", "Plan", "VCenter", "Vcha", "check_plan", "from_dict", "load",
    "Reverse", "largest_rtt", "most_hosts", "smallest_bandwidth",
]
