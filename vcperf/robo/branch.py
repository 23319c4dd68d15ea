"""One shared branch link on which every flow of a branch meets, in both directions
(``001_36d9adf7ffa34fcf.txt``): host sync, statistics bursts, VM and host operations, and template or
subscription transfers, with one offered load that counts them all and one verdict.

A branch site puts ``n_hosts`` hosts behind one link (``up_bps`` host -> vCenter, ``down_bps``
vCenter -> host). Every flow of the study is TCP traffic on it; TCP flows sharing a bottleneck get
(roughly) equal shares, processor sharing (PS):

* **Host sync** (:mod:`~vcperf.robo.hostsync`): a steady low rate from every host (ACKs back).
* **Statistics** (:mod:`~vcperf.robo.statistics`): on average one upload per host per upload
  interval; vCenter asks one stagger group (``n_hosts / host_groups`` hosts on average) per stagger
  slot, so a group's uploads share the uplink during its burst; when a burst outlasts its slot the
  next groups overlap it (``x max(1, burst / slot)``). Fluid counts: continuous in hosts.
* **Operations** (:mod:`~vcperf.robo.operations`): ``operation_rate_per_s`` operations per second,
  each moving its host calls' bytes (ACKs included) both ways; the operation asked about runs during
  a burst, each of its messages getting ``1 / (flows + 1)`` of the free capacity.
* **Transfers** (template deployments, subscribed-library syncs): bulk flows vCenter -> branch that
  start together and share the downlink's free capacity (:func:`vcperf.network.shared_transfer_times_s`,
  the one transfer model), each with its own completion time; counted in the offered load over
  ``transfer_window_s`` (the time they are asked to finish in).

Offered load of a direction = every flow's average bits / the direction's rate; the branch's
:attr:`BranchLoad.offered_load` is the larger direction. Verdict: ``"overloaded"`` at >= 1 (the steady
flows no longer fit: delays are ``inf``, never a floor-rate finite number), ``"heavily loaded"`` at
>= :data:`HEAVY_LOAD`, else ``"fits"``; :attr:`BranchLoad.dominant_flow` names the flow with the
largest share. Pure functions of physical inputs; parameters and test-bed facts are arguments
(see :func:`vcperf.robo.plan` for the study's calibration filled in).

References
----------
.. [1] L. Kleinrock, *Queueing Systems, Vol. 2*, Wiley, 1976 (processor sharing).
.. [2] J. Padhye, V. Firoiu, D. Towsley, J. Kurose, "Modeling TCP Throughput: A Simple Model and its
   Empirical Validation", ACM SIGCOMM 1998.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from vcperf import _validate as v
from vcperf import network
from vcperf.robo import operations
from vcperf.robo.hostsync import checked_host_sync
from vcperf.robo.params import HostSyncParams, OpsParams, StatsParams
from vcperf.robo.statistics import CounterModel, StatsSchedule, checked_levels, checked_payload
from vcperf.robo.wire import ack_bytes, wire_bytes

#: The flows of a branch, in the order of :attr:`BranchLoad.flow_load`.
FLOWS = ("host_sync", "statistics", "operations", "transfers")
#: Offered load from which the verdict is "heavily loaded": a PS flow's transfer time (its bytes on the link;
#: not its round trips nor vCenter's own work, which do not queue there) is then >= 1 / (1 - 0.7) ~ 3.3 times
#: its time alone on average (M/G/1-PS, Kleinrock 1976), so an operation of many round trips slows far less.
HEAVY_LOAD = 0.7
#: ACK bytes per data byte on the wire of a bulk transfer: one 40 B ACK per two full segments.
BULK_ACK_RATIO = network.IP_TCP_HEADER_BYTES / (network.DEFAULT_PACKETS_PER_ACK * network.ETHERNET_MTU_BYTES)
#: Default time (s) the transfers are asked to finish in, for the offered load only: one hour.
#: An assumption of the planner (the study has no transfers); pass ``transfer_window_s`` to change it.
DEFAULT_TRANSFER_WINDOW_S = 3600.0


@dataclass(frozen=True)
class Transfers:
    """Completion of the transfers toward the branch (in the order given).

    Attributes
    ----------
    sizes_bytes : tuple of float
        Payload of each transfer (B).
    completion_s : ndarray
        Completion time of each (s), shape ``broadcast + (len(sizes_bytes),)``; ``inf`` at overload.
    deploy_s : ndarray
        Each transfer's completion plus its deployment operation (the clone that registers the VM on
        its host, ``deploy_stages``) on the shared link: the fixed per-deployment cost, so a 0-byte
        template does not deploy in 0 s. Equal to ``completion_s`` without ``deploy_stages``.
    """

    sizes_bytes: tuple
    completion_s: np.ndarray
    deploy_s: np.ndarray


@dataclass(frozen=True)
class BranchLoad:
    """Every flow of ``n_hosts`` hosts on one shared branch link, and the link's verdict.

    Attributes
    ----------
    n_hosts : ndarray
        Hosts behind the link.
    payload_bytes : ndarray
        One host's statistics upload (B).
    concurrent_uploads : ndarray
        Uploads in flight during a burst: one stagger group, more when groups overrun their slot
        (fluid: ``n_hosts / host_groups`` on average, at least 1, at most ``n_hosts``).
    sync_up_bps, sync_down_bps : ndarray
        Host-sync traffic of all hosts in each direction (bit/s).
    up_share_bps, down_share_bps : ndarray
        Rate one flow of the operation gets in each direction during the burst (PS fair share).
    statistics_delay_s : ndarray
        Time one host's upload takes during its group's burst (``inf`` when overloaded).
    queued_s : ndarray
        Time to send everything queued on the link during the burst (the burst's uploads and the
        transfers) at the free rates: no flow is delayed by more (``inf`` when overloaded).
    operation_latency_s : ndarray
        Latency of the operation started during the burst (``inf`` when overloaded).
    operation_latency_idle_s : ndarray
        The same operation with only the steady flows (host sync, other operations) on the link.
    offered_load : ndarray
        Offered load of the busier direction, every flow counted; may exceed 1 (overload).
    utilization : ndarray
        Carried load of the busier direction, ``min(offered_load, 1)``.
    offered_load_up, offered_load_down : ndarray
        Offered load of each direction.
    carried_up_bps, carried_down_bps : ndarray
        Traffic each direction carries (bit/s): never above its rate.
    flow_load : dict
        Flow name (:data:`FLOWS`) -> its offered load (its larger direction's share of that rate).
    dominant_flow : ndarray of str
        The flow with the largest :attr:`flow_load`.
    verdict : ndarray of str
        ``"fits"``, ``"heavily loaded"`` (offered load >= :data:`HEAVY_LOAD`) or ``"overloaded"`` (>= 1).
    overloaded : ndarray of bool
        Whether the offered load is >= 1.
    transfers : Transfers
        Each transfer's completion time.
    """

    n_hosts: np.ndarray
    payload_bytes: np.ndarray
    concurrent_uploads: np.ndarray
    sync_up_bps: np.ndarray
    sync_down_bps: np.ndarray
    up_share_bps: np.ndarray
    down_share_bps: np.ndarray
    statistics_delay_s: np.ndarray
    queued_s: np.ndarray
    operation_latency_s: np.ndarray
    operation_latency_idle_s: np.ndarray
    offered_load: np.ndarray
    utilization: np.ndarray
    offered_load_up: np.ndarray
    offered_load_down: np.ndarray
    carried_up_bps: np.ndarray
    carried_down_bps: np.ndarray
    flow_load: dict
    dominant_flow: np.ndarray
    verdict: np.ndarray
    overloaded: np.ndarray
    transfers: Transfers


def _concurrent(n, payload_bytes, up_free_bps, schedule: StatsSchedule):
    """:func:`concurrent_uploads` on checked values (``up_free_bps`` may be <= 0: then every host)."""
    group = np.maximum(1.0, n / schedule.host_groups)
    ok = up_free_bps > 0
    burst = group * 8.0 * wire_bytes(payload_bytes) / np.where(ok, up_free_bps, 1.0)
    overlap = np.where(ok, np.maximum(1.0, burst / schedule.stagger_interval_s), np.inf)
    return np.minimum(n, group * overlap)


def concurrent_uploads(n_hosts, payload_bytes, up_free_bps, schedule: StatsSchedule):
    """Statistics uploads in flight during a burst on a link whose free uplink rate is ``up_free_bps``.

    One stagger group, ``g = max(1, n_hosts / host_groups)`` hosts on average, starts together;
    its burst lasts ``g x wire(payload) / up_free`` (fluid). When that outlasts the stagger slot, the
    next groups start while it runs: ``min(n_hosts, g x max(1, burst / slot))``. Continuous and
    non-decreasing in hosts and payload, non-increasing in rate.

    Parameters
    ----------
    n_hosts : float or array_like
        Hosts behind the link, >= 1.
    payload_bytes : float or array_like
        One host's upload (B), >= 0.
    up_free_bps : float or array_like
        Uplink rate left by the steady flows (bit/s), > 0.
    schedule : StatsSchedule
        The statistics schedule.

    Examples
    --------
    >>> from vcperf import robo
    >>> s = robo.testbed().schedule
    >>> float(robo.branch.concurrent_uploads(12, 1e5, 1e6, s))  # two hosts per group of six
    2.0
    """
    n = v.count("n_hosts", n_hosts, 1.0)
    v.instance("schedule", schedule, StatsSchedule)
    payload = v.nonneg("payload_bytes", payload_bytes)
    up_free = v.positive("up_free_bps", up_free_bps)
    v.broadcast(n_hosts=n, payload_bytes=payload, up_free_bps=up_free)
    return _concurrent(n, payload, up_free, schedule)


def _latency_s(stages: tuple, path: tuple, ops: OpsParams, vm_state):
    """Latency (s) of one operation alone on a path ``(down_bps, up_bps, rtt_s, loss)`` (checked values):
    its vCenter steps plus its network critical path."""
    net = operations.checked_network_s(stages, path, ops.round_trips_per_call, vm_state)
    return operations.vcenter_steps(stages) * ops.vcenter_demand_per_step_s + net


def _latency_pair(stages: tuple, down, up_a, up_b, link: network.Link, ops: OpsParams, vm_state):
    """:func:`_latency_s` on uplink rates ``up_a`` and ``up_b`` (the same downlink, RTT and loss) in one
    vectorised call: every input, the parameters' arrays included, is broadcast to one shape first, so the
    pair's leading axis never meets another input's axis."""
    shape = np.broadcast_shapes(*(np.shape(x) for x in (down, up_a, up_b, link.rtt_s, link.loss,
                                                       ops.round_trips_per_call, ops.vcenter_demand_per_step_s,
                                                       vm_state)))

    def two(a, b):
        return np.stack([np.broadcast_to(a, shape), np.broadcast_to(b, shape)])

    pair = _latency_s(stages, (two(down, down), two(up_a, up_b), two(link.rtt_s, link.rtt_s),
                               two(link.loss, link.loss)), ops, vm_state)
    pair = np.broadcast_to(pair, (2,) + shape)
    return pair[0], pair[1]


def checked_sizes(transfers_bytes) -> tuple:
    """Transfer sizes checked: None (none), a float or a sequence of floats >= 0 -> a tuple."""
    if transfers_bytes is None:
        return ()
    sizes = np.atleast_1d(v.size_bytes("transfers_bytes", transfers_bytes))
    if sizes.ndim != 1:
        raise ValueError(f"transfers_bytes must be a size or a sequence of sizes (B); got shape {sizes.shape}")
    return tuple(float(s) for s in sizes)


def branch_load(link: network.Link, n_hosts, level, powered_on_vms, *, hostsync: HostSyncParams,
                stats: StatsParams, ops: OpsParams, schedule: StatsSchedule, counters: CounterModel,
                change_period_s: float, stages, vm_state_bytes_: float, transfers_bytes=None,
                operation_rate_per_s: float = 0.0,
                transfer_window_s: float = DEFAULT_TRANSFER_WINDOW_S) -> BranchLoad:
    """Every flow of ``n_hosts`` hosts on one shared branch link during a statistics burst.

    Steady flows (host sync, the statistics average, ``operation_rate_per_s`` operations, the
    transfers' ACKs) are served first; the burst's uploads share the uplink's free capacity, the
    transfers the downlink's (:func:`vcperf.network.shared_transfer_times_s`), and the operation's
    messages get ``1 / (flows + 1)`` of it (:func:`vcperf.network.message_time_s` at that share),
    its delay over the idle latency capped by the time to send everything queued, as processor
    sharing guarantees. When the steady flows fill either direction every delay is ``inf``.

    Parameters
    ----------
    link : vcperf.network.Link
        The branch link (``up_bps`` host -> vCenter, ``down_bps`` vCenter -> host).
    n_hosts : float or array_like
        Hosts behind the link, >= 1.
    level : int or array_like
        Statistics level 1..4.
    powered_on_vms : float or array_like
        Powered-on VMs per host, >= 0.
    hostsync, stats, ops : parameter dataclasses
        The calibrated host-sync, statistics and operation parameters.
    schedule, counters, change_period_s
        Statistics schedule, counter model and host-sync change period (s) (test-bed facts).
    stages : tuple
        The operation's stages of host calls (:data:`vcperf.robo.operations.OPERATION_CALLS`).
    vm_state_bytes_ : float
        One VM's state (B).
    transfers_bytes : float or sequence of float, optional
        Transfers toward the branch starting with the burst (B each; None or empty: none).
    operation_rate_per_s : float
        Operations per second of this kind on the link (>= 0): their traffic is a steady flow.
    transfer_window_s : float
        Time (s) the transfers are asked to finish in: their offered load is their bytes over it.

    Returns
    -------
    BranchLoad

    Examples
    --------
    >>> from vcperf import robo
    >>> tb, p = robo.testbed(), robo.calibrate()
    >>> b = robo.branch.branch_load(robo.preset("dsl_512k"), 10, 1, 24, hostsync=p.hostsync, stats=p.stats,
    ...     ops=p.ops, schedule=tb.schedule, counters=tb.counters, change_period_s=tb.change_period_s,
    ...     stages=tb.calls("clone_vm"), vm_state_bytes_=robo.vm_state_bytes(p), transfers_bytes=[1e8])
    >>> str(b.verdict), bool(b.transfers.completion_s[0] > 1e8 * 8 / 512e3)
    ('fits', True)

    References
    ----------
    .. [1] L. Kleinrock, *Queueing Systems, Vol. 2*, Wiley, 1976 (processor sharing).
    .. [2] J. Padhye, V. Firoiu, D. Towsley, J. Kurose, "Modeling TCP Throughput: A Simple Model and
       its Empirical Validation", ACM SIGCOMM 1998.
    """
    network.check_link("link", link)
    for name, value, cls in (("hostsync", hostsync, HostSyncParams), ("stats", stats, StatsParams),
                             ("ops", ops, OpsParams), ("schedule", schedule, StatsSchedule),
                             ("counters", counters, CounterModel)):
        v.instance(name, value, cls)
    stages = operations.checked_stages(stages)
    n = v.count("n_hosts", n_hosts, 1.0)
    lvl = checked_levels(level)
    vms = v.count("powered_on_vms", powered_on_vms)
    period = v.duration_s("change_period_s", change_period_s, v.MIN_DURATION_S)
    v.broadcast(n_hosts=n, level=lvl, powered_on_vms=vms, change_period_s=period)
    vm_state_bytes_ = v.scalar("vm_state_bytes_", vm_state_bytes_, 0.0, v.MAX_BYTES)
    sizes = checked_sizes(transfers_bytes)
    rate = v.scalar("operation_rate_per_s", operation_rate_per_s, 0.0, math.inf, hi_open=True)
    window = v.scalar("transfer_window_s", transfer_window_s, 0.0, math.inf, lo_open=True, hi_open=True)
    return checked_branch_load(link, n, lvl, vms, hostsync, stats, ops, schedule, counters, period, stages,
                        vm_state_bytes_, sizes, rate, window)


def checked_branch_load(link: network.Link, n, level, vms, hostsync: HostSyncParams, stats: StatsParams, ops: OpsParams,
                 schedule: StatsSchedule, counters: CounterModel, change_period_s, stages: tuple,
                 vm_state_bytes_: float, sizes: tuple = (), rate: float = 0.0,
                 window: float = DEFAULT_TRANSFER_WINDOW_S, deploy_stages: tuple = ()) -> BranchLoad:
    """:func:`branch_load` on checked values (the planner's core: every input validated once by its caller)."""
    up_c, down_c = link.up_bps, link.down_bps
    payload = checked_payload(level, vms, stats, schedule, counters)
    sync = checked_host_sync(vms, hostsync, change_period_s)
    op_up, op_down = operations.checked_traffic_bytes(stages, vm_state_bytes_)
    sizes_a = np.asarray(sizes, dtype=float)
    # Average bits per second of every flow, (up, down).
    flows = {
        "host_sync": (n * sync.host_to_vc_bps, n * sync.vc_to_host_bps),
        "statistics": (n * 8.0 * wire_bytes(payload) / schedule.upload_interval_s,
                       n * 8.0 * ack_bytes(payload) / schedule.upload_interval_s),
        "operations": (rate * 8.0 * op_up, rate * 8.0 * op_down),
        "transfers": (0.0, float(np.sum(8.0 * wire_bytes(sizes_a))) / window if sizes else 0.0),
    }
    # The steady flows (everything but the burst itself and the transfers' bytes) are served first;
    # while the transfers run (they are elastic: they take the downlink's free rate), their ACKs go up
    # at BULK_ACK_RATIO of it, a flow of the uplink like any other.
    steady_down = flows["host_sync"][1] + flows["operations"][1] + flows["statistics"][1]
    if sizes:
        flows["transfers"] = (BULK_ACK_RATIO * np.maximum(down_c - steady_down, 0.0), flows["transfers"][1])
    steady_up = flows["host_sync"][0] + flows["operations"][0] + flows["transfers"][0]
    offered_up = sum(f[0] for f in flows.values()) / up_c
    offered_down = sum(f[1] for f in flows.values()) / down_c
    offered = np.maximum(offered_up, offered_down)
    flow_load = {k: np.maximum(u / up_c, d / down_c) for k, (u, d) in flows.items()}
    stacked = np.stack(np.broadcast_arrays(*flow_load.values()))
    dominant = np.asarray(FLOWS)[np.argmax(stacked, axis=0)]
    verdict = np.where(offered >= 1.0, "overloaded", np.where(offered >= HEAVY_LOAD, "heavily loaded", "fits"))
    # Overloaded when the flows that must be carried continuously (all but the elastic transfers) do not fit.
    full = np.maximum((steady_up + flows["statistics"][0]) / up_c, steady_down / down_c) >= 1.0
    up_free, down_free = up_c - steady_up, down_c - steady_down
    # Processor sharing at the whole offered load (M/G/1-PS: a job of x bits takes x / (C - every other
    # flow's average), the statistics' average included): no delay is shorter than that, so each grows
    # smoothly and without bound as the load reaches the rate, continuous in hosts, VMs and operations up to
    # saturation. At light load the stagger groups' bursts bind instead (below).
    ps_up = up_c - steady_up - flows["statistics"][0]
    k = _concurrent(n, payload, up_free, schedule)
    ok = ~full & (up_free > 0) & (down_free > 0)
    safe = lambda x: np.where(ok, x, 1.0)  # noqa: E731 -- evaluate only where capacity remains
    stats_delay = np.where(ok, np.maximum(network.message_time_s(payload, safe(up_free / k), link.rtt_s, link.loss),
                                          network.message_time_s(payload, safe(ps_up), link.rtt_s, link.loss)), np.inf)
    lat_idle, lat_ps = _latency_pair(stages, safe(down_free), safe(up_free), safe(ps_up), link, ops, vm_state_bytes_)
    done = network.checked_shared_transfer_times_s(sizes_a, down_c, link.rtt_s, link.loss, np.maximum(steady_down, 0.0))
    done = np.where(np.expand_dims(ok, -1), done, np.inf)
    # A transfer shares the downlink with the operation only while it runs: it counts as a flow for
    # the part of the operation's idle latency it lasts (a 1-byte copy hardly, a 2 TB one fully).
    m = np.sum(np.minimum(1.0, np.where(np.expand_dims(ok, -1), done, 0.0) / np.expand_dims(safe(lat_idle), -1)),
               axis=-1)
    up_share = np.maximum(up_free, 0.0) / (k + 1.0)
    down_share = np.maximum(down_free, 0.0) / (m + 1.0)
    busy = _latency_s(stages, (safe(down_share), safe(up_share), link.rtt_s, link.loss), ops, vm_state_bytes_)
    queued = (k * 8.0 * wire_bytes(payload) / safe(up_free)
              + float(np.sum(8.0 * wire_bytes(sizes_a))) / safe(down_free))
    lat = np.where(ok, np.maximum(lat_ps, np.minimum(busy, lat_idle + queued)), np.inf)
    deploy = (_latency_s(deploy_stages, (safe(down_share), safe(up_share), link.rtt_s, link.loss), ops,
                         vm_state_bytes_) if deploy_stages else np.zeros(np.shape(lat)))
    lat_idle = np.where(ok, lat_idle, np.inf)
    queued = np.where(ok, queued, np.inf)
    return BranchLoad(
        n_hosts=n, payload_bytes=payload, concurrent_uploads=k, sync_up_bps=flows["host_sync"][0],
        sync_down_bps=flows["host_sync"][1], up_share_bps=up_share, down_share_bps=down_share,
        statistics_delay_s=stats_delay, queued_s=queued, operation_latency_s=lat,
        operation_latency_idle_s=lat_idle, offered_load=offered, utilization=np.minimum(offered, 1.0),
        offered_load_up=offered_up, offered_load_down=offered_down,
        carried_up_bps=np.minimum(offered_up, 1.0) * up_c, carried_down_bps=np.minimum(offered_down, 1.0) * down_c,
        flow_load=flow_load, dominant_flow=dominant, verdict=verdict, overloaded=offered >= 1.0,
        transfers=Transfers(sizes, done, done + np.expand_dims(deploy, -1)),
    )


#: Bandwidth range searched by :func:`required_bandwidth_bps` (bit/s): 1 kb/s .. 1 Tb/s.
SEARCH_RANGE_BPS = (1e3, 1e12)
#: Iteration cap of the reverse searches' bracketing loops (each narrows the bracket by the grid's
#: points, at least 2x: 200 covers any float range; a tolerance at float resolution cannot spin).
MAX_BISECTIONS = 200


def required_bandwidth_bps(target_s, evaluate, *, up_down_ratio=1.0, rel_tol=1e-4, points=48):
    """Smallest link rate that keeps ``evaluate`` at or under ``target_s`` (vectorised bisection).

    ``evaluate(down_bps, up_bps) -> seconds`` (arrays in, array out) must be non-increasing in
    bandwidth (every model here is: more rate never slows a flow), so the rates that meet the target
    form an interval ``[answer, inf)``. The search brackets it on a log grid of ``points`` rates over
    :data:`SEARCH_RANGE_BPS`, then narrows the bracket with a new grid inside it (a k-section
    bisection: one vectorised model evaluation per step) until its width is below ``rel_tol``.
    Returns ``inf`` when even the top of the range misses the target (the target is below what RTT
    and vCenter alone take) and the bottom of the range when that already meets it.

    Not one of SciPy's root finders: the search is on a predicate (every rate at or above the answer
    meets the target), and ``evaluate`` may step in bandwidth (waves of concurrent uploads, TCP's
    window), where a bracketing root finder returns a point of either side; the answer here is the
    top of the final bracket, a rate that meets the target.

    Parameters
    ----------
    target_s : float
        Target time (s), > 0.
    evaluate : callable
        ``(down_bps, up_bps) -> array`` time of the quantity on links of those rates.
    up_down_ratio : float
        Uplink rate / downlink rate of the answer (1: symmetric; e.g. 0.1 for ADSL-like links).
    rel_tol : float
        Width of the final bracket in log(bit/s), in [1e-12, 1).
    points : int
        Rates per bracketing grid, in [3, 10000].
    """
    target = v.scalar("target_s", target_s, 0.0, math.inf, lo_open=True, hi_open=True)
    if not callable(evaluate):
        raise ValueError(f"evaluate must be a callable (down_bps, up_bps) -> seconds; got {evaluate!r}")
    ratio = v.scalar("up_down_ratio", up_down_ratio, 1.0 / v.MAX_RATIO, v.MAX_RATIO)
    rel_tol = v.scalar("rel_tol", rel_tol, 1e-12, 1.0, hi_open=True)
    points = v.integer("points", points, 3, 10_000)
    lo, hi = (math.log(x) for x in SEARCH_RANGE_BPS)

    def ok(log_bw):
        bw = np.exp(log_bw)
        return np.asarray(evaluate(bw, bw * ratio), dtype=float) <= target

    ends = ok(np.array([lo, hi]))
    if not ends[1]:
        return math.inf
    if ends[0]:
        return math.exp(lo)
    for _ in range(MAX_BISECTIONS):  # invariant: lo misses, hi meets
        if hi - lo <= rel_tol:
            break
        grid = np.linspace(lo, hi, points)[1:-1]
        good = ok(grid)
        first = int(np.argmax(good)) if good.any() else len(grid)
        lo = grid[first - 1] if first > 0 else lo
        hi = grid[first] if first < len(grid) else hi
    return math.exp(hi)
