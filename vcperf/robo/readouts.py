"""The ROBO what-if readouts' 90 % intervals: cheap parameter sensitivities of the branch and VCbench models.

The readouts of the ROBO panels (an operation's latency during a statistics burst, one upload's time,
VCbench's operation and mean latency) carry the predictive interval of the calibration:
:meth:`vcperf.protocol.Calibration.interval`, the one delta method, told which parameters each model
reads (the others have no sensitivity) and, for the branch model, which broadcasts its parameters, how
to evaluate the perturbed parameter sets in one stacked call.

Model-side code: the parameters (default: the study's calibration, from its facade
:mod:`~vcperf.robo.study`) and the test bed's facts
(schedule, counters, change period, the operations' host calls, the VCbench mix) are arguments.

References
----------
.. [1] D. M. Bates and D. G. Watts, *Nonlinear Regression Analysis and Its Applications*, Wiley, 1988
   (the linearised covariance and the delta method).
.. [2] G. K. Smyth, "Linear models and empirical Bayes methods for assessing differential expression
   in microarray experiments", Statistical Applications in Genetics and Molecular Biology 3(1), 2004
   (the moderated misfit variances the bands carry).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from vcperf import _validate as v
from vcperf import network, protocol
from vcperf.robo import branch, operations, statistics
from vcperf.robo.params import STUDY, Params
from vcperf.robo.study import calibrated_params

#: Data table whose model-form misfit an operation time's band carries: the fitted VCbench latencies
#: (Figure 10). A plain TCP transfer of a payload the user sets, which no fitted table measures, carries
#: the study's pooled misfit (``data_table=None``).
LATENCY_TABLE = f"{STUDY}/figure10_vcbench_latency"
#: ... and a statistics upload's time: the table of the statistics size and its "about 1 minute" on DSL.
UPLOAD_TABLE = f"{STUDY}/figure06_stats_data_size"
#: The parameters the branch model reads (the perturbed sets evaluated in one stacked call).
_BRANCH_PARAMS = ("hostsync.bytes_per_change", "stats.bytes_per_sample", "ops.vcenter_demand_per_step_s",
                  "ops.round_trips_per_call")
#: The parameters VCbench reads (``hostsync.bytes_per_change`` through the VM-state size).
_VCBENCH_PARAMS = ("ops.vcenter_demand_per_step_s", "ops.round_trips_per_call", "hostsync.bytes_per_change")


def _params(params):
    if params is not None and not isinstance(params, Params):
        raise ValueError(f"params must be a vcperf.robo.Params or None; got {params!r}")
    return calibrated_params() if params is None else params


def interval(value, sensitivities: dict, data_table: str | None = LATENCY_TABLE, params=None) -> tuple:
    """``(value, low, high)`` of a readout quantity from its log-parameter sensitivities.

    Parameters
    ----------
    value : float
        The quantity's model value (SI).
    sensitivities : dict
        Parameter name (:func:`vcperf.protocol.param_names`) -> ``d value / d ln parameter`` (SI); a
        parameter the quantity does not read has none.
    data_table : str or None, optional
        The table whose model-form misfit the band carries (``None``: the study's pooled misfit).
    params : Params, optional
        The study's parameters (default: its calibration); only their names are read.

    Returns
    -------
    tuple of float
        ``(value, low, high)``: :func:`vcperf.protocol.interval_from_gradient` (calibration covariance +
        one measurement's misfit, Student-t bounds). Deterministic.

    Examples
    --------
    >>> v, lo, hi = interval(10.0, {}, data_table=None)
    >>> bool(lo < v < hi)
    True
    """
    value = v.real("value", value)
    if value.ndim or not value >= 0:
        raise ValueError(f"value must be a single number in [0, inf]; got {value!r}")
    value = float(value)
    params = _params(params)
    names = protocol.param_names(params)
    g = np.zeros(len(names))
    if not isinstance(sensitivities, Mapping):
        raise ValueError(f"sensitivities must be a dict of parameter name -> derivative; got {sensitivities!r}")
    for name, d in sensitivities.items():
        d = v.real(f"sensitivities[{name!r}]", d)
        if d.ndim:
            raise ValueError(f"sensitivities[{name!r}] must be a single number; got shape {d.shape}")
        g[names.index(v.choice("sensitivities (a key)", name, names))] = float(d)
    return _band(value, g, data_table)


def _band(value: float, g: np.ndarray, data_table) -> tuple:
    """``(value, low, high)``: :meth:`vcperf.protocol.Calibration.band` (no band for an overloaded link's
    infinite value)."""
    if not (math.isfinite(value) and np.isfinite(g).all()):
        return value, math.nan, math.nan
    iv = protocol.calibration(STUDY).band(value, g, data_table=data_table)
    return value, float(iv.low), float(iv.high)


def plan_intervals(link: network.Link, hosts, level, powered_on_vms, stages, *, schedule, counters,
                   change_period_s, params=None) -> tuple:
    """The branch link over ``hosts`` and the 90 % intervals of the last host count's operation latency
    during the burst (misfit of :data:`LATENCY_TABLE`) and statistics upload time (of :data:`UPLOAD_TABLE`).

    :meth:`vcperf.protocol.Calibration.interval`'s delta method: the branch model
    (:func:`vcperf.robo.branch.branch_load`) broadcasts its parameters, so the perturbed sets that share
    a host-sync group (the VM-state size, proportional to ``hostsync.bytes_per_change``, is a scalar
    argument) are stacked in one call. The ``addhost`` parameters are not read (zero sensitivity). The
    same as ``with_interval(robo.plan, ..., output="operation_latency_s", data_table=LATENCY_TABLE)``
    (tests/test_intervals.py), at a fraction of its cost.

    Parameters
    ----------
    link : vcperf.network.Link
        The shared branch link.
    hosts : array_like
        Hosts behind the link (the intervals are those of the last).
    level : int
        Statistics level (1-4).
    powered_on_vms : float
        Powered-on VMs per host.
    stages : tuple
        The operation's stages of host calls (the test bed's ``calls(operation)``).
    schedule, counters, change_period_s
        The test bed's statistics schedule, counter model and host-sync change period (s).
    params : Params, optional
        The study's parameters (default: its calibration).

    Returns
    -------
    tuple
        ``(BranchLoad at params over hosts, (value, low, high) latency s, (value, low, high) upload s)``.

    Examples
    --------
    >>> from vcperf import network, robo
    >>> tb = robo.testbed()
    >>> load, lat, up = plan_intervals(robo.preset("satellite"), [1.0, 40.0], 2, 24.0, tb.calls("clone_vm"),
    ...                                schedule=tb.schedule, counters=tb.counters,
    ...                                change_period_s=tb.change_period_s, params=robo.calibrate())
    >>> bool(lat[1] < lat[0] < lat[2])
    True
    """
    p = _params(params)
    hosts = np.atleast_1d(np.asarray(hosts, dtype=float))
    common = {"schedule": schedule, "counters": counters, "change_period_s": change_period_s, "stages": stages}

    def load(q, n):
        return branch.branch_load(link, n, level, powered_on_vms, hostsync=q.hostsync, stats=q.stats, ops=q.ops,
                                  vm_state_bytes_=float(operations.vm_state_bytes(q.hostsync.bytes_per_change)),
                                  **common)

    def answers(b, size):  # operation latency and statistics delay of the last host count, per parameter set
        return [np.broadcast_to(np.atleast_1d(np.asarray(getattr(b, f), float))[..., -1], (size,))
                for f in ("operation_latency_s", "statistics_delay_s")]

    def many(qs):  # the sets sharing a host-sync group (the VM-state size is a scalar) in one stacked call
        out = [None] * len(qs)
        groups: dict = {}
        for j, q in enumerate(qs):
            groups.setdefault(q.hostsync, []).append(j)
        for hs, idx in groups.items():
            stack = Params(hs, statistics.StatsParams(np.array([qs[j].stats.bytes_per_sample for j in idx])[:, None]),
                           operations.OpsParams(*(np.array([getattr(qs[j].ops, f) for j in idx])[:, None] for f in (
                               "vcenter_demand_per_step_s", "round_trips_per_call"))), qs[idx[0]].addhost)
            lat, up = answers(load(stack, hosts[-1:]), len(idx))
            for k, j in enumerate(idx):
                out[j] = np.array([lat[k], up[k]])
        return out

    cal = protocol.calibration(STUDY)
    value, g = cal.gradient(lambda q: many([q])[0], params=p, reads=_BRANCH_PARAMS, many=many)
    base = load(p, hosts)
    return base, _band(float(value[0]), g[0], LATENCY_TABLE), _band(float(value[1]), g[1], UPLOAD_TABLE)


def _split(link, clients, operation, stages, mix, vcenter_vcpus, ops, vm_state_bytes_, t_net=None):
    """``(total, network time, VcbenchResult)`` of ``operation`` under explicit parameters."""
    res = operations.vcbench(link, ops, mix, clients, vcenter_vcpus, vm_state_bytes_=vm_state_bytes_)
    if t_net is None:
        t_net = float(operations.operation_network_time_s(stages, link, ops.round_trips_per_call, vm_state_bytes_))
    total = res.per_operation_latency_s.get(
        operation, res.per_operation_latency_s["create_folder"] * operations.vcenter_steps(stages) + t_net)
    return total, t_net, res


def operation_split(link: network.Link, clients: int, operation: str, stages, mix, vcenter_vcpus,
                    params=None) -> tuple:
    """``(vCenter time, network time, VcbenchResult)`` of ``operation`` on ``link`` with ``clients``.

    ``create_vm`` is not in the VCbench mix: its vCenter time is the folder operations' (one step, no
    network time) times its own steps (:func:`vcperf.robo.operations.vcenter_steps`).

    Parameters
    ----------
    link : vcperf.network.Link
        The branch link.
    clients : int
        VCbench clients (closed loop, no think time).
    operation : str
        An operation of the mix, or ``"create_vm"``.
    stages : tuple
        The operation's stages of host calls (the test bed's ``calls(operation)``).
    mix : dict
        The test bed's VCbench mix (operation -> stages).
    vcenter_vcpus : float
        vCenter's vCPUs.
    params : Params, optional
        The study's parameters (default: its calibration).

    Returns
    -------
    tuple
        ``(vCenter s, network s, VcbenchResult)``.

    Examples
    --------
    >>> from vcperf import network, robo
    >>> tb = robo.testbed()
    >>> vc, net, res = operation_split(robo.preset("dsl_512k"), 8, "clone_vm", tb.calls("clone_vm"), tb.mix,
    ...                                tb.vcenter_vcpus, params=robo.calibrate())
    >>> bool(abs(vc + net - res.per_operation_latency_s["clone_vm"]) < 1e-9)
    True
    """
    p = _params(params)
    total, t_net, res = _split(link, clients, operation, stages, mix, vcenter_vcpus, p.ops,
                               float(operations.vm_state_bytes(p.hostsync.bytes_per_change)))
    return total - t_net, t_net, res


def operation_intervals(link: network.Link, clients: int, operation: str, stages, mix, vcenter_vcpus,
                        params=None) -> tuple:
    """90 % intervals ``(value, low, high)`` of ``operation``'s latency and of the mean VCbench latency.

    :meth:`vcperf.protocol.Calibration.interval`'s delta method on the three parameters VCbench reads
    (``ops.vcenter_demand_per_step_s``, ``ops.round_trips_per_call`` and, through the VM-state size,
    ``hostsync.bytes_per_change``; the others have zero sensitivity), with the misfit of
    :data:`LATENCY_TABLE`.

    Parameters
    ----------
    link, clients, operation, stages, mix, vcenter_vcpus, params
        As :func:`operation_split`.

    Returns
    -------
    tuple
        ``((value, low, high) of the operation's latency s, (value, low, high) of the mean latency s)``.

    Examples
    --------
    >>> from vcperf import network, robo
    >>> tb = robo.testbed()
    >>> lat, mean = operation_intervals(robo.preset("satellite"), 8, "clone_vm", tb.calls("clone_vm"),
    ...                                 tb.mix, tb.vcenter_vcpus, params=robo.calibrate())
    >>> bool(lat[1] < lat[0] < lat[2] and mean[1] < mean[0] < mean[2])
    True
    """
    p = _params(params)

    def latencies(q):
        total, _, res = _split(link, clients, operation, stages, mix, vcenter_vcpus, q.ops,
                               float(operations.vm_state_bytes(q.hostsync.bytes_per_change)))
        return np.array([total, res.mean_latency_s])

    value, g = protocol.calibration(STUDY).gradient(latencies, params=p, reads=_VCBENCH_PARAMS)
    return tuple(_band(float(value[i]), g[i], LATENCY_TABLE) for i in range(2))
