"""The calibrated parameters of the ROBO study (``001_36d9adf7ffa34fcf.txt``): :class:`Params`, its four
nested groups and :data:`PARAM_DOCS`. Pure: no ``data/`` access, no model.

Each group is fitted to its own paper numbers by :mod:`vcperf.robo.calibration`: the host-sync payload
(Figure 2), the bytes per statistics sample (Figure 6), the VCbench pair (Figure 10) and the add-host
pair (Figure 14). Every value is SI (bytes, seconds, counts) and checked in ``__post_init__``; a field
may also be an array (a stack of perturbed parameters, as the what-if panels' intervals use).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from vcperf import _validate as v

#: The study's ``data/`` folder.
STUDY = "robo2019"


@dataclass(frozen=True)
class HostSyncParams:
    """Fitted parameter of the host-sync model (:mod:`vcperf.robo.hostsync`).

    Attributes
    ----------
    bytes_per_change : float
        Payload (B) of one VM-change update sent host -> vCenter, >= 0. Fitted to the 3.75 Kbps of
        one host with 24 powered-on VMs (``figure02_hostsync_host_to_vc.csv``).
    """

    bytes_per_change: float

    def __post_init__(self):
        v.nonneg("bytes_per_change", self.bytes_per_change)


@dataclass(frozen=True)
class StatsParams:
    """Fitted parameter of the statistics model (:mod:`vcperf.robo.statistics`).

    Attributes
    ----------
    bytes_per_sample : float
        Payload bytes per counter series per sample, >= 0 (value plus its share of the series' id,
        instance and timestamp encoding). Fitted to the ~3.5 MB Level-4 upload
        (``figure06_stats_data_size.csv``) at the testbed's 24 powered-on VMs per host (the paper
        does not say which VM count the 3.5 MB belongs to).
    """

    bytes_per_sample: float

    def __post_init__(self):
        v.nonneg("bytes_per_sample", self.bytes_per_sample)


@dataclass(frozen=True)
class OpsParams:
    """Fitted parameters of the VCbench model (:mod:`vcperf.robo.operations`).

    Attributes
    ----------
    vcenter_demand_per_step_s : float
        vCenter CPU/database service demand of one step of an operation (s), >= 0: the client
        request and its commit, or one host call's dispatch and result handling
        (:func:`vcperf.robo.operations.vcenter_steps`). Fitted to ``figure10_vcbench_latency.csv``.
    round_trips_per_call : float
        vCenter <-> host round trips on a host call's critical path, >= 1: the call itself (request
        and response as whole messages) plus empty exchanges for task creation, progress and
        completion (:func:`vcperf.robo.operations.call_time_s`). Fitted to
        ``figure10_vcbench_latency.csv``.
    """

    vcenter_demand_per_step_s: float
    round_trips_per_call: float

    def __post_init__(self):
        v.nonneg("vcenter_demand_per_step_s", self.vcenter_demand_per_step_s)
        v.check_range("round_trips_per_call", self.round_trips_per_call, 1.0, math.inf, hi_open=True)


@dataclass(frozen=True)
class AddHostParams:
    """Fitted parameters of the add-host model (:mod:`vcperf.robo.addhost`).

    Attributes
    ----------
    local_s : float
        vCenter-local work of adding a host (s), >= 0. Fitted to ``figure14_host_op_latency.csv``.
    round_trips_per_object : float
        Sequential vCenter <-> host round trips of the inventory sync and agent setup per inventory
        object (registered VM or :data:`vcperf.robo.addhost.HOST_OBJECTS`), >= 0. Fitted to
        ``figure14_host_op_latency.csv``.
    """

    local_s: float
    round_trips_per_object: float

    def __post_init__(self):
        v.nonneg("local_s", self.local_s)
        v.nonneg("round_trips_per_object", self.round_trips_per_object)


@dataclass(frozen=True)
class Params:
    """The six calibrated parameters of the ROBO study (SI), in four groups.

    Attributes
    ----------
    hostsync : HostSyncParams
        Host-sync payload per VM change.
    stats : StatsParams
        Bytes per statistics sample.
    ops : OpsParams
        vCenter demand per operation step and round trips per host call.
    addhost : AddHostParams
        Add-host local time and round trips per inventory object.
    """

    hostsync: HostSyncParams
    stats: StatsParams
    ops: OpsParams
    addhost: AddHostParams

    def __post_init__(self):
        v.instance("hostsync", self.hostsync, HostSyncParams)
        v.instance("stats", self.stats, StatsParams)
        v.instance("ops", self.ops, OpsParams)
        v.instance("addhost", self.addhost, AddHostParams)


#: Parameter name (nested names joined with ``.``) -> (unit, meaning).
PARAM_DOCS = {
    "hostsync.bytes_per_change": ("B", "payload of one VM-change host-sync message"),
    "stats.bytes_per_sample": ("B", "bytes per counter series per 5-min sample in a statistics upload"),
    "ops.vcenter_demand_per_step_s": ("s", "vCenter CPU/DB demand per operation step (request or host call)"),
    "ops.round_trips_per_call": ("1", "round trips on a vCenter -> host call's critical path (>= 1)"),
    "addhost.local_s": ("s", "vCenter-local work of adding a host"),
    "addhost.round_trips_per_object": ("1", "add-host sync round trips per inventory object (VM or host object)"),
}
