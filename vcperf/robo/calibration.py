"""Calibration of the ROBO study (``001_36d9adf7ffa34fcf.txt``): the fit of the six parameters of
:class:`~vcperf.robo.params.Params` to the ``fit`` targets of :mod:`vcperf.robo.targets`. Fitting only.

Each parameter group is fitted to its own numbers, through the model functions with explicit
parameters and the test bed's facts: ``hostsync.bytes_per_change`` by root finding on Figure 2's host
sync, ``stats.bytes_per_sample`` in closed form on Figure 6's Level-4 upload, the VCbench pair on
Figure 10's latencies and the add-host pair on Figure 14's times, both by least squares on log time.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from vcperf import protocol
from vcperf.robo import addhost, hostsync, operations, statistics
from vcperf.robo.params import STUDY, AddHostParams, HostSyncParams, OpsParams, Params, StatsParams
from vcperf.robo.targets import targets
from vcperf.robo.testbed import Testbed, preset, testbed


def _tmap() -> dict:
    return {t.key: t for t in targets()}


#: Starting points of the fits, and the value of a parameter no fit target informs (a deterministic
#: default, never a prediction: leave-one-out marks what depends on it as not estimable). The VCbench
#: fit starts at 0.2 s per vCenter step and 8 round trips per call, where 8 clients on DSL are not
#: held to the link's capacity (there the latency does not depend on the parameters and least
#: squares would not move).
START = Params(
    hostsync=HostSyncParams(bytes_per_change=100.0),
    stats=StatsParams(bytes_per_sample=1.0),
    ops=OpsParams(vcenter_demand_per_step_s=0.2, round_trips_per_call=8.0),
    addhost=AddHostParams(local_s=10.0, round_trips_per_object=25.0),
)


def _fit_hostsync(key: str, tb: Testbed) -> HostSyncParams:
    from scipy.optimize import brentq

    t = _tmap()[key]
    vms = float(dict(t.conditions)["powered_on_vms"])
    goal = t.paper_value()

    def gap(b):
        p = HostSyncParams(b)
        return float(hostsync.host_sync_traffic(vms, p, tb.change_period_s).host_to_vc_bps) - goal

    return HostSyncParams(float(brentq(gap, 0.0, 1e6, xtol=1e-9)))


def _fit_stats(key: str, tb: Testbed) -> StatsParams:
    t = _tmap()[key]
    level = int(dict(t.conditions)["stats_level"])
    per_byte = float(statistics.statistics_payload_bytes(level, tb.powered_on_vms_per_host,
                                                         StatsParams(1.0), tb.schedule, tb.counters))
    return StatsParams(t.paper_value() / per_byte)


def _least_squares(resid, x0, n_points):
    from scipy.optimize import least_squares

    method = "lm" if n_points >= len(x0) else "trf"
    return least_squares(resid, x0=x0, method=method, xtol=1e-12, ftol=1e-12).x


def _fit_ops(keys: tuple, tb: Testbed, vm_state: float) -> OpsParams:
    tmap = _tmap()
    links = [preset(dict(tmap[k].conditions)["network"]) for k in keys]
    goal = np.log([tmap[k].paper_value() for k in keys])

    def params(x):  # demand > 0 and round trips per call >= 1 (the call itself) by construction
        return OpsParams(math.exp(x[0]), 1.0 + math.exp(x[1]))

    def resid(x):
        p = params(x)
        return np.log([operations.vcbench(lk, p, tb.mix, tb.clients, tb.vcenter_vcpus,
                                          vm_state_bytes_=vm_state).mean_latency_s for lk in links]) - goal

    s = START.ops
    return params(_least_squares(resid, [math.log(s.vcenter_demand_per_step_s),
                                         math.log(s.round_trips_per_call - 1.0)],
                                 len(keys)))


def _fit_ops_and_state(keys: tuple, tb: Testbed):
    tmap = _tmap()
    links = [preset(dict(tmap[k].conditions)["network"]) for k in keys]
    goal = np.log([tmap[k].paper_value() for k in keys])

    def params(x):
        return (OpsParams(math.exp(x[0]), 1.0 + math.exp(x[1])),
                HostSyncParams(math.exp(x[2])))

    def resid(x):
        p, h = params(x)
        vs = float(operations.vm_state_bytes(h.bytes_per_change))
        return np.log([operations.vcbench(lk, p, tb.mix, tb.clients, tb.vcenter_vcpus,
                                          vm_state_bytes_=vs).mean_latency_s for lk in links]) - goal

    s = START.ops
    x0 = [math.log(s.vcenter_demand_per_step_s), math.log(s.round_trips_per_call - 1.0),
          math.log(START.hostsync.bytes_per_change)]
    return params(_least_squares(resid, x0, len(keys)))


def _fit_addhost(keys: tuple, tb: Testbed, vm_state: float) -> AddHostParams:
    tmap = _tmap()
    links = [preset(dict(tmap[k].conditions)["network"]) for k in keys]
    goal = np.log([tmap[k].paper_value() for k in keys])
    vms = tb.registered_vms_per_host

    def params(x):
        return AddHostParams(math.exp(x[0]), math.exp(x[1]))

    def resid(x):
        p = params(x)
        return np.log([float(addhost.add_host_time_s(lk, p, vms, vm_state)) for lk in links]) - goal

    s = START.addhost
    return params(_least_squares(resid, [math.log(s.local_s), math.log(s.round_trips_per_object)], len(keys)))


def _component(key: str) -> str | None:
    if key == "hostsync_traffic_24vms":
        return "hostsync"
    if key == "stats_size_level4":
        return "stats"
    if key.startswith("op_latency_") and not key.startswith("op_latency_ratio"):
        return "ops"
    if key.startswith("add_host_"):
        return "addhost"
    return None


def calibrate(fit_on=None) -> Params:
    """Fit :class:`Params` to the ``fit`` targets, or to the target keys ``fit_on``.

    Each parameter group is fitted to its own numbers: ``bytes_per_change`` by root finding,
    ``bytes_per_sample`` in closed form, the VCbench and add-host pairs by least squares on log
    time (``scipy.optimize.least_squares``; Levenberg-Marquardt, or trust-region when a subset
    leaves fewer numbers than parameters). A group none of whose numbers is in ``fit_on`` keeps its
    :data:`START` value. Deterministic and cached.

    Parameters
    ----------
    fit_on : iterable of str, optional
        Keys of fit-able targets (the ``fit`` role); default all of them.

    Raises
    ------
    ValueError
        If a key is unknown or names a target no parameter can be fitted to.

    Examples
    --------
    >>> from vcperf import robo
    >>> p = robo.calibrate()
    >>> round(p.hostsync.bytes_per_change), p.ops.round_trips_per_call >= 1.0
    (342, True)
    """
    fittable = tuple(k for k in _tmap() if _component(k) is not None)
    keys = protocol.resolve_fit_on(STUDY, _tmap().values(), fit_on, allowed=fittable)
    return protocol.cached_calibration(STUDY, fit_on, _calibrate, keys, Params)


@functools.lru_cache(maxsize=64)
def _calibrate(keys: tuple) -> Params:
    tb = testbed()
    by = {c: tuple(k for k in keys if _component(k) == c) for c in ("hostsync", "stats", "ops", "addhost")}
    if by["hostsync"]:
        hs = _fit_hostsync(by["hostsync"][0], tb)
        ops = _fit_ops(by["ops"], tb, float(operations.vm_state_bytes(hs.bytes_per_change))) if by["ops"] \
            else START.ops
    elif len(by["ops"]) >= 3:
        # Without the host-sync number the VM-state size (hence bytes_per_change) is what the operation
        # latencies say it is: fitted with the operation parameters (3 numbers, 3 parameters).
        ops, hs = _fit_ops_and_state(by["ops"], tb)
    else:
        hs = START.hostsync
        ops = _fit_ops(by["ops"], tb, float(operations.vm_state_bytes(hs.bytes_per_change))) if by["ops"] \
            else START.ops
    vm_state = float(operations.vm_state_bytes(hs.bytes_per_change))
    return Params(
        hostsync=hs,
        stats=_fit_stats(by["stats"][0], tb) if by["stats"] else START.stats,
        ops=ops,
        addhost=_fit_addhost(by["addhost"], tb, vm_state) if by["addhost"] else START.addhost,
    )
