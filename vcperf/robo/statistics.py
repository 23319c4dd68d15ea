"""Statistics uploads of one host and their bursts over a branch link: Figures 4-7 of
``001_36d9adf7ffa34fcf.txt``.

One upload per host every upload interval (30 min) carries the 5-minute samples of every counter
series (counters per entity x device instances, by statistics level, Table 2). The fitted bytes per
sample come in :class:`StatsParams`; the study's intervals in :class:`StatsSchedule` and the counter
counts (assumptions) in :class:`CounterModel`. Bursts of many hosts over a shared branch link share
it with other traffic as TCP flows (processor sharing, :func:`vcperf.queueing.ps_response_time_s`;
the whole coupled link is :mod:`vcperf.robo.branch`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vcperf import _validate as v
from vcperf import network, queueing
from vcperf.robo.hostsync import host_sync_traffic
from vcperf.robo.params import HostSyncParams, StatsParams
from vcperf.robo.wire import ack_bytes, wire_bytes

#: Statistics levels of Table 2.
LEVELS = (1, 2, 3, 4)
#: Device instances of a host besides its logical CPUs: NICs, storage adapters, datastores (assumption).
HOST_OTHER_INSTANCES = 12.0


@dataclass(frozen=True)
class CounterModel:
    """Counter series one host reports per statistics level (Table 2 of the seed).

    Counts are modelling assumptions, approximated from VMware's "Statistics Levels" table for
    vSphere 6.7, not paper numbers. Level-1/2 report aggregate counters only (Level-2 adds a few
    CPU, disk and memory counters); Level-3 reports every counter group and, for each counter
    that has devices, one series per device instance (per physical CPU, NIC, disk ...); Level-4
    adds the minimum and maximum rollups of the counters that have them.

    Attributes
    ----------
    host_instances : float
        Device instances of a host: its logical CPUs plus :data:`HOST_OTHER_INSTANCES` NICs,
        adapters and datastores (the study's hosts have 72 logical CPUs, ``testbed.csv``; the
        calibration builds this from there).
    host_aggregate : tuple of 3 ints
        Aggregate counters of the host entity at Levels 1, 2 and 3 (Level-4 = Level-3 + min/max).
    vm_aggregate : tuple of 3 ints
        The same for one powered-on VM.
    vm_instances : float
        Device instances of a VM: 2 vCPUs, 1 virtual disk, 1 vNIC (assumption).
    counters_per_instance : float
        Counters reported per device instance at Level-3 and above (assumption: 8).
    minmax_counters : float
        Counters per entity that have minimum and maximum rollups (cpu.usage, cpu.usagemhz,
        mem.usage, mem.active, disk.usage, net.usage); each adds two series at Level-4.
    """

    host_instances: float
    host_aggregate: tuple = (35, 42, 130)
    vm_aggregate: tuple = (25, 30, 90)
    vm_instances: float = 4.0
    counters_per_instance: float = 8.0
    minmax_counters: float = 6.0

    def series(self, level, powered_on_vms):
        """Counter series (counter x instance) reported by one host with ``powered_on_vms`` VMs."""
        lvl = np.asarray(level)
        vms = np.asarray(powered_on_vms, dtype=float)
        idx = np.clip(lvl, 1, 3).astype(int) - 1
        host = np.asarray(self.host_aggregate, dtype=float)[idx]
        vm = np.asarray(self.vm_aggregate, dtype=float)[idx]
        device = lvl >= 3
        host = host + np.where(device, self.host_instances * self.counters_per_instance, 0.0)
        vm = vm + np.where(device, self.vm_instances * self.counters_per_instance, 0.0)
        extra = np.where(lvl >= 4, 2.0 * self.minmax_counters, 0.0)
        return (host + extra) + vms * (vm + extra)


@dataclass(frozen=True)
class StatsSchedule:
    """When statistics are sampled and uploaded (the study's values: ``text_statistics.csv``).

    Attributes
    ----------
    sample_interval_s : float
        Historical sample interval (5 min in the study).
    upload_interval_s : float
        One upload per host every upload interval (30 min).
    stagger_interval_s : float
        vCenter contacts a different subset of hosts every stagger interval (5 min).
    """

    sample_interval_s: float
    upload_interval_s: float
    stagger_interval_s: float

    def __post_init__(self):
        for name in ("sample_interval_s", "upload_interval_s", "stagger_interval_s"):
            v.positive(name, getattr(self, name))

    @property
    def samples_per_upload(self) -> float:
        """Samples carried by one upload (30 min / 5 min = 6)."""
        return self.upload_interval_s / self.sample_interval_s

    @property
    def host_groups(self) -> float:
        """Subsets of hosts vCenter cycles through (30 min / 5 min = 6)."""
        return self.upload_interval_s / self.stagger_interval_s


def _objects(params, schedule, counters):
    v.instance("params", params, StatsParams)
    v.instance("schedule", schedule, StatsSchedule)
    v.instance("counters", counters, CounterModel)


def checked_levels(level):
    """Statistics ``level`` checked (each one of :data:`LEVELS`), as ints."""
    lvl = np.asarray(v.real("level", level))
    flat = lvl.ravel()
    if not np.all(np.isin(flat, LEVELS)):
        bad = flat[~np.isin(flat, LEVELS)][0]
        raise ValueError(f"level must be one of {list(LEVELS)}; got {bad!r}")
    return lvl.astype(int)


def checked_payload(level, vms, params: StatsParams, schedule: StatsSchedule, counters: CounterModel):
    """:func:`statistics_payload_bytes` on checked values."""
    return counters.series(level, vms) * schedule.samples_per_upload * params.bytes_per_sample


def statistics_payload_bytes(level, powered_on_vms, params: StatsParams, schedule: StatsSchedule,
                             counters: CounterModel):
    """Payload (B) of one statistics upload of one host (Figure 6 of the seed).

    ``series(level, vms) x samples_per_upload x bytes_per_sample`` with ``series = host + vms x vm``
    counter series (:class:`CounterModel`). Level-2 stays close to Level-1 (aggregate counters
    only), Level-3 jumps (every counter group, per device instance), Level-4 stays close to Level-3
    (a few min/max rollups).

    Parameters
    ----------
    level : int or array_like of int
        Statistics level, one of 1..4 (Table 2).
    powered_on_vms : float or array_like
        Powered-on VMs on the host, >= 0.
    params, schedule, counters
        Bytes per sample (fitted), the sampling/upload intervals and the counter counts.
    """
    _objects(params, schedule, counters)
    lvl = checked_levels(level)
    vms = v.count("powered_on_vms", powered_on_vms)
    v.broadcast(level=lvl, powered_on_vms=vms)
    return checked_payload(lvl, vms, params, schedule, counters)


@dataclass(frozen=True)
class StatsTraffic:
    """Average traffic (bit/s) of one host with statistics on, host sync included (Figures 4, 5, 7)."""

    host_to_vc_bps: np.ndarray
    vc_to_host_bps: np.ndarray
    statistics_only_host_to_vc_bps: np.ndarray


def statistics_traffic(level, powered_on_vms, params: StatsParams, schedule: StatsSchedule, counters: CounterModel,
                       hostsync: HostSyncParams, change_period_s) -> StatsTraffic:
    """Average traffic of one host: statistics uploads spread over the upload interval plus host sync.

    Host -> vCenter: ``wire(payload) / upload_interval`` + :func:`~vcperf.robo.hostsync.host_sync_traffic`.
    vCenter -> host: the ACKs of the upload and of the host sync (the paper: mostly TCP ACKs,
    < 1 Kbps). The figures include the host-sync traffic (``figure04_stats_traffic_by_level.csv``).
    """
    v.instance("hostsync", hostsync, HostSyncParams)
    v.broadcast(powered_on_vms=v.count("powered_on_vms", powered_on_vms),
                change_period_s=v.duration_s("change_period_s", change_period_s, v.MIN_DURATION_S))
    payload = statistics_payload_bytes(level, powered_on_vms, params, schedule, counters)
    sync = host_sync_traffic(powered_on_vms, hostsync, change_period_s)
    up = 8.0 * wire_bytes(payload) / schedule.upload_interval_s
    down = 8.0 * ack_bytes(payload) / schedule.upload_interval_s
    return StatsTraffic(up + sync.host_to_vc_bps, down + sync.vc_to_host_bps, up)


@dataclass(frozen=True)
class StatsLinkLoad:
    """Statistics bursts of ``n_hosts`` hosts behind one branch link, as TCP flows sharing it.

    Attributes
    ----------
    payload_bytes : ndarray
        One host's upload (B).
    burst_s : ndarray
        Time one upload takes alone (:func:`vcperf.network.message_time_s`): the burst.
    link_busy_s : ndarray
        Time one upload occupies the link (wire bits / link rate).
    busy_fraction : ndarray
        Offered load of statistics, ``n_hosts x link_busy_s / upload interval`` (may exceed 1).
    added_delay_s : ndarray
        Mean delay statistics add to a message of other traffic (``message_bytes``) sharing the link
        with them as a TCP flow: processor sharing, ``x rho / (1 - rho)`` for a message that alone
        takes ``x`` (:func:`vcperf.queueing.ps_response_time_s`), never more than ``x`` per upload in
        flight (its share while they run) nor the time to send them (finite at overload).
    concurrent_uploads : ndarray
        Uploads in flight during a burst (one stagger group, more when groups overrun their slot).
    group_burst_s : ndarray
        Time to move the uploads of one stagger group together (hosts / host_groups uploads).
    group_overruns_slot : ndarray of bool
        Whether one group's uploads last longer than the stagger slot.
    notes : tuple of str
        Inputs that do not move the answer, and why (e.g. ``powered_on_vms_sd``).
    """

    payload_bytes: np.ndarray
    burst_s: np.ndarray
    link_busy_s: np.ndarray
    busy_fraction: np.ndarray
    added_delay_s: np.ndarray
    concurrent_uploads: np.ndarray
    group_burst_s: np.ndarray
    group_overruns_slot: np.ndarray
    notes: tuple = ()


#: Why :func:`statistics_link_load`'s ``powered_on_vms_sd`` moves no number (reported in its ``notes``).
SD_NOTE = ("powered_on_vms_sd changes nothing: the mean delay of processor sharing is insensitive to the "
           "spread of upload sizes across hosts (only their mean, set by powered_on_vms, counts)")
#: Default message of "other traffic" whose added delay the capacity planner reports: a host call's
#: 4 KB response (:data:`vcperf.robo.operations.CALL_RESPONSE_BYTES`).
OTHER_MESSAGE_BYTES = 4000.0


def statistics_link_load(n_hosts, link: network.Link, level, powered_on_vms, params: StatsParams,
                         schedule: StatsSchedule, counters: CounterModel, powered_on_vms_sd=0.0,
                         message_bytes=OTHER_MESSAGE_BYTES) -> StatsLinkLoad:
    """Will the statistics bursts of ``n_hosts`` hosts sharing ``link`` saturate it, and what delay do
    they add to other traffic?

    Uploads go host -> vCenter (``link.up_bps``). Their offered load is
    ``rho = n_hosts / upload_interval x link_busy_s``. Other traffic shares the link with them as TCP
    flows do, by processor sharing: a message that alone needs ``x`` takes ``x / (1 - rho)`` on
    average (M/G/1-PS, insensitive to the upload-size distribution, so the spread of VMs across
    hosts does not change it), and never longer than ``x`` plus ``min(x, upload)`` per upload in
    flight -- its fair share while they run, bounded by the time to send everything queued
    (:func:`vcperf.queueing.ps_response_time_s`) -- so the delay is finite at overload. The
    FCFS M/G/1 view this replaces made a small message wait behind whole uploads (seconds to
    minutes), which TCP flows sharing a link do not see. ``group_burst_s`` is the deterministic
    view of vCenter's stagger: one group's uploads together.

    Parameters
    ----------
    n_hosts : float or array_like
        Hosts behind the link, >= 1.
    link : vcperf.network.Link
        The shared branch link.
    level : int
        Statistics level 1..4.
    powered_on_vms : float or array_like
        Mean powered-on VMs per host, >= 0.
    params, schedule, counters
        As in :func:`statistics_payload_bytes`.
    powered_on_vms_sd : float
        Standard deviation of powered-on VMs across hosts, >= 0 (no effect on the PS mean; checked).
    message_bytes : float
        Payload of the other-traffic message whose added delay is reported (default 4 KB).
    """
    network.check_link("link", link)
    _objects(params, schedule, counters)
    n = v.count("n_hosts", n_hosts, 1.0)
    lvl = checked_levels(level)
    vms = v.count("powered_on_vms", powered_on_vms)
    sd = v.nonneg("powered_on_vms_sd", powered_on_vms_sd)
    msg = v.size_bytes("message_bytes", message_bytes)
    v.broadcast(n_hosts=n, level=lvl, powered_on_vms=vms, powered_on_vms_sd=sd, message_bytes=msg)
    payload = checked_payload(lvl, vms, params, schedule, counters)
    busy = 8.0 * wire_bytes(payload) / link.up_bps
    rho = n / schedule.upload_interval_s * busy
    group = np.ceil(n / schedule.host_groups)
    group_busy = group * busy
    in_flight = np.minimum(n, group * np.maximum(1.0, np.ceil(group_busy / schedule.stagger_interval_s)))
    x = 8.0 * wire_bytes(msg) / link.up_bps
    # PS: while n other flows are active a job gets 1/(n+1) of the link, and each of them can take at
    # most min(x, its own size) of service before the job is done: the job never waits longer.
    added = queueing.ps_response_time_s(x, rho, in_flight * np.minimum(x, busy)) - x
    group_burst = link.message_time_s(group * payload, "up")
    return StatsLinkLoad(
        payload_bytes=payload,
        burst_s=link.message_time_s(payload, "up"),
        link_busy_s=busy,
        busy_fraction=rho,
        added_delay_s=added,
        concurrent_uploads=in_flight,
        group_burst_s=group_burst,
        group_overruns_slot=group_burst > schedule.stagger_interval_s,
        notes=(SD_NOTE,) if np.any(sd > 0) else (),
    )


def statistics_upload_time_s(payload_bytes, link: network.Link):
    """Time (s) one host needs to upload a statistics payload over its branch link.

    The upload is one bulk TCP message host -> vCenter (:func:`vcperf.network.message_time_s` on
    ``link.up_bps``, loss charged once): on a slow link it saturates the link for the whole time,
    which the study calls a statistics burst.

    Parameters
    ----------
    payload_bytes : float or array_like
        Statistics payload of one upload (B), >= 0.
    link : vcperf.network.Link
        The branch link.

    References
    ----------
    .. [1] J. Padhye, V. Firoiu, D. Towsley, J. Kurose, "Modeling TCP Throughput: A Simple Model and
       its Empirical Validation", ACM SIGCOMM 1998.
    .. [2] N. Cardwell, S. Savage, T. Anderson, "Modeling TCP Latency", IEEE INFOCOM 2000 (slow start).

    Examples
    --------
    >>> from vcperf import robo
    >>> round(float(robo.statistics_upload_time_s(3.5e6, robo.preset("dsl_512k"))))  # "about 1 minute"
    56
    """
    v.nonneg("payload_bytes", payload_bytes)
    network.check_link("link", link)
    return link.message_time_s(payload_bytes, "up")


def transfer_time_grid_s(payload_bytes, links: dict[str, network.Link]) -> dict[str, np.ndarray]:
    """:func:`statistics_upload_time_s` for several payloads over each named link.

    Parameters
    ----------
    payload_bytes : float or array_like
        Statistics payloads (B), >= 0.
    links : dict of str to vcperf.network.Link
        Name -> branch link.

    Returns
    -------
    dict of str to numpy.ndarray
        Name -> upload time (s) of each payload.

    Examples
    --------
    >>> from vcperf import robo
    >>> grid = robo.transfer_time_grid_s([1e3, 1e6], {n: robo.preset(n) for n in ("lan", "satellite")})
    >>> bool((grid["satellite"] > grid["lan"]).all())
    True
    """
    sizes = v.nonneg("payload_bytes", payload_bytes)
    v.mapping("links", links, "a non-empty dict of name -> vcperf.network.Link")
    for lk in links.values():
        network.check_link("links", lk)
    return {name: lk.message_time_s(sizes, "up") for name, lk in links.items()}
