"""The branch-office planner of the ROBO study (``001_36d9adf7ffa34fcf.txt``): one shared branch link at
the study's calibration and test bed (:func:`plan`), and its reverse question, the smallest link rate
that meets a target (:func:`required_bandwidth_bps`).

Every input is checked once, here at the public boundary; the shared-link model
(:func:`vcperf.robo.branch.branch_load`'s core) then works on checked values.
"""

from __future__ import annotations

import math

import numpy as np

from vcperf import _validate as v
from vcperf import network
from vcperf.robo import branch, operations, statistics
from vcperf.robo.params import Params
from vcperf.robo.study import calibrated_params, default_testbed, preset, preset_names


def branch_link(link) -> network.Link:
    """A checked branch link: a :class:`vcperf.network.Link`, or a Table 1 preset name resolved.

    Parameters
    ----------
    link : vcperf.network.Link or str
        The link, or one of :func:`vcperf.robo.preset_names`.

    Returns
    -------
    vcperf.network.Link

    Examples
    --------
    >>> from vcperf import robo
    >>> robo.branch_link("satellite") == robo.preset("satellite")
    True
    """
    if isinstance(link, str):
        names = preset_names()  # the presets are test-bed facts (data/), through the facade
        if link not in names:
            raise ValueError(f"link must be a vcperf.network.Link or one of {names}; got {link!r}")
        return preset(link)
    return network.check_link("link", link)


def checked_plan(link: network.Link, n, level, vms, p: Params, stages: tuple, sizes: tuple = (), rate: float = 0.0,
          window: float = branch.DEFAULT_TRANSFER_WINDOW_S) -> branch.BranchLoad:
    """:func:`plan` on checked values."""
    tb = default_testbed()
    vm_state = float(operations.vm_state_bytes(p.hostsync.bytes_per_change))
    return branch.checked_branch_load(link, n, level, vms, p.hostsync, p.stats, p.ops, tb.schedule, tb.counters,
                               tb.change_period_s, stages, vm_state, sizes, rate, window, tb.calls(DEPLOY_OPERATION))


#: The operation that turns a transferred template into a VM on a branch host (its fixed cost).
DEPLOY_OPERATION = "clone_vm"


def plan(link, n_hosts, level=1, operation: str = "clone_vm", powered_on_vms=None, transfers_bytes=None,
         operation_rate_per_s=0.0, transfer_window_s=branch.DEFAULT_TRANSFER_WINDOW_S,
         params: Params | None = None) -> branch.BranchLoad:
    """The shared branch link of ``n_hosts`` hosts during a statistics burst, at the calibration.

    One call answers the planner's question "satellite, 40 hosts, Level 2: latency of a clone during
    the statistics burst": ``robo.plan("satellite", 40, 2, "clone_vm").operation_latency_s``, or "40
    hosts and 5 template deployments over 10 Mbit/s": ``robo.plan(link, 40, transfers_bytes=[39e9] * 5)``.
    Host sync, the burst's uploads, ``operation_rate_per_s`` operations and the transfers toward the
    branch share the link as TCP flows (:func:`vcperf.robo.branch.branch_load`, processor sharing);
    the result carries one offered load counting every flow, its verdict and the dominant flow.

    Parameters
    ----------
    link : vcperf.network.Link or str
        The branch link, or a Table 1 preset name.
    n_hosts : float or array_like
        Hosts behind the link, >= 1.
    level : int
        Statistics level 1..4.
    operation : str
        A Table 3 operation or ``"create_vm"``.
    powered_on_vms : float or array_like, optional
        Powered-on VMs per host, >= 0 (default: the test bed's 24).
    transfers_bytes : float or sequence of float, optional
        Transfers toward the branch (template deployments, library syncs) starting with the burst
        (B each; empty: none); each gets its own completion time (``.transfers.completion_s``) and
        deployment time (``.transfers.deploy_s``: then a clone registers the VM, a fixed cost).
    operation_rate_per_s : float
        Operations of this kind per second on the link (their traffic is a steady flow), >= 0.
    transfer_window_s : float
        Time (s) the transfers are asked to finish in (their offered load), > 0. Default one hour.
    params : Params, optional
        Parameters (default: the calibration); ``vcperf.protocol.with_interval(robo.plan, ...,
        output="operation_latency_s")`` gives the 90 % interval.

    Returns
    -------
    vcperf.robo.branch.BranchLoad

    References
    ----------
    .. [1] J. Padhye, V. Firoiu, D. Towsley, J. Kurose, "Modeling TCP Throughput: A Simple Model and
       its Empirical Validation", ACM SIGCOMM 1998 (the loss-limited rate of each flow).

    Examples
    --------
    >>> from vcperf import robo
    >>> burst = robo.plan("satellite", 40, 2, "clone_vm")
    >>> bool(burst.operation_latency_s > burst.operation_latency_idle_s)
    True
    >>> str(robo.plan("dsl_512k", 128, 1).verdict)  # host sync alone fills the uplink
    'overloaded'
    """
    tb = default_testbed()
    p = calibrated_params(params)
    link = branch_link(link)
    stages = tb.calls(operation)
    n = v.count("n_hosts", n_hosts, 1.0)
    lvl = statistics.checked_levels(level)
    vms = v.count("powered_on_vms", tb.powered_on_vms_per_host if powered_on_vms is None else powered_on_vms)
    v.broadcast(n_hosts=n, level=lvl, powered_on_vms=vms)
    sizes = branch.checked_sizes(transfers_bytes)
    rate = v.scalar("operation_rate_per_s", operation_rate_per_s, 0.0, math.inf, hi_open=True)
    window = v.scalar("transfer_window_s", transfer_window_s, 0.0, math.inf, lo_open=True, hi_open=True)
    return checked_plan(link, n, lvl, vms, p, stages, sizes, rate, window)


#: Quantity of the reverse questions -> (field or reducer of :class:`~vcperf.robo.branch.BranchLoad`, its flow).
QUANTITIES = {
    "operation_latency": "operations",
    "statistics_delay": "statistics",
    "deployment_time": "transfers",
}


def quantity_s(load: branch.BranchLoad, quantity: str):
    """The time (s) a reverse question bounds, read from a :func:`plan` result.

    ``"operation_latency"`` (the operation during a burst), ``"statistics_delay"`` (one upload during
    its group's burst) or ``"deployment_time"`` (the last deployment: its transfer, then its
    :data:`DEPLOY_OPERATION` on the shared link; 0 without transfers).

    Parameters
    ----------
    load : vcperf.robo.branch.BranchLoad
        A :func:`plan` result.
    quantity : str
        One of :data:`QUANTITIES`.

    Examples
    --------
    >>> from vcperf import robo
    >>> load = robo.plan("t1", 10, transfers_bytes=[1e9, 2e9])
    >>> bool(robo.planner.quantity_s(load, "deployment_time") > load.transfers.completion_s[..., 1])  # + the clone
    True
    """
    v.instance("load", load, branch.BranchLoad, "a vcperf.robo.branch.BranchLoad (a robo.plan result)")
    v.choice("quantity", quantity, tuple(QUANTITIES))
    if quantity == "operation_latency":
        return load.operation_latency_s
    if quantity == "statistics_delay":
        return load.statistics_delay_s
    done = load.transfers.deploy_s
    return np.max(done, axis=-1) if done.shape[-1] else np.zeros(done.shape[:-1])


def required_bandwidth_bps(target_s, n_hosts, rtt_s, loss=0.0, level=1, quantity: str = "operation_latency",
                           operation: str = "clone_vm", powered_on_vms=None, up_down_ratio=1.0,
                           transfers_bytes=None, operation_rate_per_s=0.0, params: Params | None = None) -> float:
    """Smallest link rate (bit/s) that keeps an operation's latency during the statistics burst, the
    statistics delay or the transfers' completion at or under ``target_s`` for ``n_hosts`` hosts on
    a link of ``rtt_s`` and ``loss``.

    Vectorised bisection on the monotone model (:func:`vcperf.robo.branch.required_bandwidth_bps`
    over :func:`plan`); ``inf`` when no rate is enough (the RTT and vCenter alone exceed the target).
    Every flow of the branch is on the candidate links, so an answer never overloads them.

    Parameters
    ----------
    target_s : float
        Target (s), > 0.
    n_hosts : float
        Hosts behind the link, >= 1.
    rtt_s : float
        The link's round-trip time (s), >= 0.
    loss : float
        The link's packet loss probability, in [0, 1).
    level : int
        Statistics level 1..4.
    quantity : str
        One of :data:`QUANTITIES` (:func:`quantity_s`).
    operation : str
        The operation (for ``"operation_latency"``).
    powered_on_vms : float, optional
        Powered-on VMs per host (default: the test bed's 24).
    up_down_ratio : float
        Uplink / downlink rate of the answer; the returned rate is the downlink's.
    transfers_bytes : float or sequence of float, optional
        Transfers toward the branch during the burst (B each).
    operation_rate_per_s : float
        Operations per second on the link (a steady flow), >= 0.
    params : Params, optional
        Parameters (default: the calibration).

    References
    ----------
    .. [1] J. Padhye, V. Firoiu, D. Towsley, J. Kurose, "Modeling TCP Throughput: A Simple Model and
       its Empirical Validation", ACM SIGCOMM 1998.
    .. [2] N. Cardwell, S. Savage, T. Anderson, "Modeling TCP Latency", IEEE INFOCOM 2000 (slow start); the model
       bisected is :func:`plan`'s.

    Examples
    --------
    >>> from vcperf import robo
    >>> need = robo.required_bandwidth_bps(20.0, 40, 0.5, 0.001, level=2)
    >>> bool(robo.plan(robo.preset("satellite").with_rates(need, need), 40, 2).operation_latency_s <= 20.0)
    True
    """
    quantity = v.choice("quantity", quantity, tuple(QUANTITIES))
    rtt_s = v.scalar("rtt_s", rtt_s, 0.0, math.inf, hi_open=True)
    loss = v.scalar("loss", loss, 0.0, 1.0, hi_open=True)
    n_hosts = v.scalar("n_hosts", n_hosts, 1.0, v.MAX_COUNT)
    level = v.integer("level", level, 1, 4)
    tb = default_testbed()
    vms = tb.powered_on_vms_per_host if powered_on_vms is None else v.scalar(
        "powered_on_vms", powered_on_vms, 0.0, v.MAX_COUNT)
    sizes = branch.checked_sizes(transfers_bytes)
    rate = v.scalar("operation_rate_per_s", operation_rate_per_s, 0.0, math.inf, hi_open=True)
    stages = tb.calls(operation)
    p = calibrated_params(params)

    def evaluate(down, up):
        lk = network.Link(down, float(rtt_s), float(loss), "candidate", up)
        return quantity_s(checked_plan(lk, n_hosts, level, vms, p, stages, sizes, rate), quantity)

    return branch.required_bandwidth_bps(target_s, evaluate, up_down_ratio=up_down_ratio)
