"""One shared branch link: host sync, statistics bursts, VM operations (and a template copy) as TCP
flows sharing its bottleneck (``001_36d9adf7ffa34fcf.txt``).

A branch site puts ``n_hosts`` hosts behind one link. Every traffic source of the study is a set of
TCP flows on it, and TCP flows sharing a bottleneck get (roughly) equal shares: processor sharing.

* **Host sync** (:mod:`~vcperf.robo.hostsync`) is a steady low rate from every host: it is reserved
  off the top of each direction.
* **Statistics** (:mod:`~vcperf.robo.statistics`): vCenter asks one stagger group of hosts
  (``ceil(n_hosts / host_groups)``) every stagger interval, so a group's uploads start together and
  share the uplink; when a group's burst outlasts its slot, the next groups overlap it. The uploads
  in flight during a burst, :attr:`BranchLoad.concurrent_uploads`, set everyone's share.
* **Operations** (:mod:`~vcperf.robo.operations`): an operation's host calls are flows too; during a
  burst each of its messages gets ``1 / (uploads + 1)`` of the uplink's free capacity (PS), so a short
  message is slowed, never queued behind a whole upload (the FCFS M/G/1 view it replaces).
* **Template copy** (optional, the Content Library study's subscribed library): one more bulk flow,
  vCenter -> branch, on the downlink.

Every message uses the one loss model of :func:`vcperf.network.message_time_s`. Pure functions of
physical inputs; the parameters and test-bed facts are arguments (see :func:`vcperf.robo.plan` for
the study's calibration filled in).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from vcperf import _validate as v
from vcperf import network, queueing
from vcperf.robo import operations
from vcperf.robo.hostsync import _host_sync
from vcperf.robo.params import HostSyncParams, OpsParams, StatsParams
from vcperf.robo.statistics import CounterModel, StatsSchedule, _levels, _payload
from vcperf.robo.wire import ack_bytes, wire_bytes


@dataclass(frozen=True)
class BranchLoad:
    """What the flows of ``n_hosts`` hosts do to one shared branch link during a statistics burst.

    Attributes
    ----------
    n_hosts : ndarray
        Hosts behind the link.
    payload_bytes : ndarray
        One host's statistics upload (B).
    concurrent_uploads : ndarray
        Uploads in flight during a burst: one stagger group, or several when groups overrun their slot.
    sync_up_bps, sync_down_bps : ndarray
        Host-sync traffic of all hosts, reserved off each direction (bit/s).
    up_share_bps, down_share_bps : ndarray
        Rate one flow of the operation gets in each direction during the burst (PS fair share).
    statistics_delay_s : ndarray
        Time one host's upload takes during its group's burst (every upload of the burst shares the
        uplink; the statistics delay of the planner).
    queued_s : ndarray
        Time to send everything queued on the link during the burst (the uploads in flight, and the
        template copy if any) at the free rate: no flow is delayed by more.
    operation_latency_s : ndarray
        Latency of the operation started during the burst: vCenter steps plus its critical path of
        host calls at the shared rates.
    operation_latency_idle_s : ndarray
        The same operation on the link with only host sync on it.
    offered_load : ndarray
        Average offered uplink load (host sync + statistics + ``operation_rate_per_s`` operations)
        over the uplink rate; may exceed 1 (overload).
    utilization : ndarray
        Carried uplink utilization, ``min(offered_load, 1)``.
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


def _concurrent(n, payload_bytes, up_free_bps, schedule: StatsSchedule):
    """:func:`concurrent_uploads` on checked values."""
    group = np.ceil(n / schedule.host_groups)
    burst = group * 8.0 * wire_bytes(payload_bytes) / up_free_bps
    overlap = np.maximum(1.0, np.ceil(burst / schedule.stagger_interval_s))
    return np.minimum(n, group * overlap)


def concurrent_uploads(n_hosts, payload_bytes, up_free_bps, schedule: StatsSchedule):
    """Statistics uploads in flight during a burst on a link whose free uplink rate is ``up_free_bps``.

    One stagger group, ``g = ceil(n_hosts / host_groups)``, starts together; its burst lasts
    ``g x wire(payload) / up_free`` (fluid). When that outlasts the stagger slot, the next
    ``ceil(burst / slot) - 1`` groups start while it runs: ``min(n_hosts, g x ceil(burst / slot))``.
    Non-decreasing in hosts and payload, non-increasing in rate.
    """
    n = v.check_range("n_hosts", n_hosts, 1.0, math.inf, hi_open=True)
    v.instance("schedule", schedule, StatsSchedule)
    payload = v.nonneg("payload_bytes", payload_bytes)
    up_free = v.positive("up_free_bps", up_free_bps)
    v.broadcast(n_hosts=n, payload_bytes=payload, up_free_bps=up_free)
    return _concurrent(n, payload, up_free, schedule)


def _latency_s(stages: tuple, path: tuple, ops: OpsParams, vm_state):
    """Latency (s) of one operation alone on a path ``(down_bps, up_bps, rtt_s, loss)`` (checked values):
    its vCenter steps plus its network critical path."""
    net = operations._network_s(stages, path, ops.round_trips_per_call, vm_state)
    return operations.vcenter_steps(stages) * ops.vcenter_demand_per_step_s + net


def branch_load(link: network.Link, n_hosts, level, powered_on_vms, *, hostsync: HostSyncParams,
                stats: StatsParams, ops: OpsParams, schedule: StatsSchedule, counters: CounterModel,
                change_period_s: float, stages, vm_state_bytes_: float, template_bytes: float = 0.0,
                operation_rate_per_s: float = 0.0) -> BranchLoad:
    """The shared branch link during a statistics burst of ``n_hosts`` hosts (processor sharing).

    Free capacity of each direction = rate - host sync of all hosts (never below 1 % of the rate);
    the uplink's is shared by the uploads in flight (:func:`concurrent_uploads`) and the operation's
    flow, the downlink's by the operation's flow and, if ``template_bytes > 0``, a template copy
    toward the branch (:func:`vcperf.queueing.fair_share_bps`). A message's time is then
    :func:`vcperf.network.message_time_s` at its share; the operation's delay over its idle latency
    is capped at the time to send everything queued (:attr:`BranchLoad.queued_s`), as processor
    sharing guarantees.

    Parameters
    ----------
    link : vcperf.network.Link
        The branch link (``up_bps`` host -> vCenter, ``down_bps`` vCenter -> host).
    n_hosts : float or array_like
        Hosts behind the link, >= 1.
    level : int
        Statistics level 1..4.
    powered_on_vms : float
        Powered-on VMs per host, >= 0.
    hostsync, stats, ops : parameter dataclasses
        The calibrated host-sync, statistics and operation parameters.
    schedule, counters, change_period_s
        Statistics schedule, counter model and host-sync change period (s) (test-bed facts).
    stages : tuple
        The operation's stages of host calls (:data:`vcperf.robo.operations.OPERATION_CALLS`).
    vm_state_bytes_ : float
        One VM's state (B).
    template_bytes : float
        A template copy toward the branch during the burst (B; 0: none).
    operation_rate_per_s : float
        Operations per second on this link, for the average offered load only.
    """
    network.check_link("link", link)
    for name, value, cls in (("hostsync", hostsync, HostSyncParams), ("stats", stats, StatsParams),
                             ("ops", ops, OpsParams), ("schedule", schedule, StatsSchedule),
                             ("counters", counters, CounterModel)):
        v.instance(name, value, cls)
    stages = operations._stages(stages)
    n = v.check_range("n_hosts", n_hosts, 1.0, math.inf, hi_open=True)
    lvl = _levels(level)
    vms = v.nonneg("powered_on_vms", powered_on_vms)
    period = v.positive("change_period_s", change_period_s)
    v.broadcast(n_hosts=n, level=lvl, powered_on_vms=vms, change_period_s=period)
    vm_state_bytes_ = v.scalar("vm_state_bytes_", vm_state_bytes_, 0.0, math.inf, hi_open=True)
    tpl = v.scalar("template_bytes", template_bytes, 0.0, math.inf, hi_open=True)
    rate = v.scalar("operation_rate_per_s", operation_rate_per_s, 0.0, math.inf, hi_open=True)
    return _branch_load(link, n, lvl, vms, hostsync, stats, ops, schedule, counters, period, stages,
                        vm_state_bytes_, tpl, rate)


def _branch_load(link: network.Link, n, level, vms, hostsync: HostSyncParams, stats: StatsParams, ops: OpsParams,
                 schedule: StatsSchedule, counters: CounterModel, change_period_s, stages: tuple,
                 vm_state_bytes_: float, tpl: float = 0.0, rate: float = 0.0) -> BranchLoad:
    """:func:`branch_load` on checked values (the planner's core: every input validated once by its caller)."""
    payload = _payload(level, vms, stats, schedule, counters)
    sync = _host_sync(vms, hostsync, change_period_s)
    sync_up, sync_down = n * sync.host_to_vc_bps, n * sync.vc_to_host_bps
    up_free = queueing.fair_share_bps(link.up_bps, 1.0, sync_up)
    k = _concurrent(n, payload, up_free, schedule)
    # The uploads' ACKs go down: a small steady share of the downlink while the burst lasts.
    acks_down = k * 8.0 * ack_bytes(payload) / np.maximum(k * 8.0 * wire_bytes(payload) / up_free, 1e-12)
    up_share = queueing.fair_share_bps(link.up_bps, k + 1.0, sync_up)
    down_flows = 1.0 + (tpl > 0)
    down_share = queueing.fair_share_bps(link.down_bps, down_flows, sync_down + acks_down)
    stats_delay = network.message_time_s(payload, up_free / k, link.rtt_s, link.loss)
    idle_d = queueing.fair_share_bps(link.down_bps, down_flows, sync_down)
    idle_u = queueing.fair_share_bps(link.up_bps, 1.0, sync_up)
    lat_idle = _latency_s(stages, (idle_d, idle_u, link.rtt_s, link.loss), ops, vm_state_bytes_)
    # Processor sharing never delays a job by more than the time to serve everything queued with it:
    # the burst's uploads (uplink) and the template copy (downlink).
    queued = k * 8.0 * wire_bytes(payload) / up_free + (8.0 * wire_bytes(tpl) / idle_d if tpl > 0 else 0.0)
    lat = np.minimum(_latency_s(stages, (down_share, up_share, link.rtt_s, link.loss), ops, vm_state_bytes_),
                     lat_idle + queued)
    up_bytes, _ = operations._traffic_bytes(stages, vm_state_bytes_)
    offered = (sync_up + n * 8.0 * wire_bytes(payload) / schedule.upload_interval_s
               + rate * 8.0 * up_bytes) / link.up_bps
    return BranchLoad(
        n_hosts=n, payload_bytes=payload, concurrent_uploads=k, sync_up_bps=sync_up, sync_down_bps=sync_down,
        up_share_bps=up_share, down_share_bps=down_share, statistics_delay_s=stats_delay, queued_s=queued,
        operation_latency_s=lat, operation_latency_idle_s=lat_idle, offered_load=offered,
        utilization=np.minimum(offered, 1.0),
    )


#: Bandwidth range searched by :func:`required_bandwidth_bps` (bit/s): 1 kb/s .. 1 Tb/s.
SEARCH_RANGE_BPS = (1e3, 1e12)


def required_bandwidth_bps(target_s, evaluate, *, up_down_ratio=1.0, rel_tol=1e-4, points=48):
    """Smallest link rate that keeps ``evaluate`` at or under ``target_s`` (vectorised bisection).

    ``evaluate(down_bps, up_bps) -> seconds`` (arrays in, array out) must be non-increasing in
    bandwidth (every model here is: more rate never slows a flow), so the rates that meet the target
    form an interval ``[answer, inf)``. The search brackets it on a log grid of ``points`` rates over
    :data:`SEARCH_RANGE_BPS`, then narrows the bracket with a new grid inside it (a k-section
    bisection: one vectorised model evaluation per step) until its width is below ``rel_tol``.
    Returns ``inf`` when even the top of the range misses the target (the target is below what RTT
    and vCenter alone take) and the bottom of the range when that already meets it.

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
    ratio = v.scalar("up_down_ratio", up_down_ratio, 0.0, math.inf, lo_open=True, hi_open=True)
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
    while hi - lo > rel_tol:  # invariant: lo misses, hi meets
        grid = np.linspace(lo, hi, points)[1:-1]
        good = ok(grid)
        first = int(np.argmax(good)) if good.any() else len(grid)
        lo = grid[first - 1] if first > 0 else lo
        hi = grid[first] if first < len(grid) else hi
    return math.exp(hi)
