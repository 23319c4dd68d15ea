"""The ROBO study's facade: its models at the calibration and on its test bed
(``001_36d9adf7ffa34fcf.txt``): host sync, statistics, VCbench operations and host operations with the
fitted parameters and the test bed's facts filled in unless given.

The one module of the study that fills ``params=None``: each function here is the pure model of the
same name in :mod:`~vcperf.robo.hostsync`, :mod:`~vcperf.robo.statistics`,
:mod:`~vcperf.robo.operations` or :mod:`~vcperf.robo.addhost` (which take every input explicitly) with
two defaults: ``params=None`` is the study's calibration (:func:`calibrated_params`:
:func:`vcperf.robo.calibrate`, imported, never looked up in a registry), and the inventory,
statistics schedule, counters, VCbench mix, clients and vCenter vCPUs are the test bed's
(:func:`default_testbed`). :mod:`~vcperf.robo.planner`, :mod:`~vcperf.robo.reverse` and
:mod:`~vcperf.robo.readouts` take their defaults from here. Inputs are checked once, by the pure function
each delegates to.
"""

from __future__ import annotations

import math

from vcperf import _validate as v
from vcperf import network
from vcperf.robo import addhost, hostsync, operations, statistics
from vcperf.robo.addhost import HOST_OPERATIONS
from vcperf.robo.calibration import calibrate
from vcperf.robo.hostsync import HostSyncTraffic
from vcperf.robo.operations import VcbenchResult
from vcperf.robo.params import AddHostParams, HostSyncParams, OpsParams, Params, StatsParams
from vcperf.robo.statistics import StatsLinkLoad, StatsTraffic
from vcperf.robo.testbed import preset, preset_names, testbed  # noqa: F401 - preset*: the planner's presets


def default_testbed():
    """The study's test bed (:func:`vcperf.robo.testbed`), the default of every function here.

    Read from ``data/`` by :mod:`vcperf.robo.testbed` (this facade never reads ``data/`` itself).

    Examples
    --------
    >>> from vcperf.robo import study
    >>> study.default_testbed().esxi_hosts
    128.0
    """
    return testbed()


def calibrated_params(params: Params | None = None) -> Params:
    """``params`` (checked to be the study's :class:`~vcperf.robo.Params`) or, for None, the study's
    calibration (:func:`vcperf.robo.calibrate`, cached): the default of every function here and of
    :mod:`~vcperf.robo.planner`, :mod:`~vcperf.robo.reverse` and :mod:`~vcperf.robo.readouts`.

    Parameters
    ----------
    params : Params, optional
        The study's parameters.

    Examples
    --------
    >>> from vcperf import robo
    >>> from vcperf.robo import study
    >>> study.calibrated_params() == robo.calibrate()
    True
    """
    return given_or_default("params", params, Params, calibrate)


def given_or_default(name: str, value, cls, default):
    """``value`` if given (checked to be a ``cls``), else ``default()`` (the calibration)."""
    if value is None:
        return default()
    return v.instance(name, value, cls, f"a {cls.__module__}.{cls.__qualname__} or None")


def testbed_powered_on_vms() -> float:
    """Powered-on VMs per host of the study's test bed (24, ``text_inventory.csv``).

    Examples
    --------
    >>> from vcperf import robo
    >>> robo.testbed_powered_on_vms()
    24.0
    """
    return default_testbed().powered_on_vms_per_host


def host_sync_traffic(powered_on_vms, params: HostSyncParams | None = None) -> HostSyncTraffic:
    """Host-sync traffic (bit/s) of one host at the calibrated payload and the test bed's 20 s period.

    :func:`vcperf.robo.hostsync.host_sync_traffic` (Figures 2-3).

    Parameters
    ----------
    powered_on_vms : float or array_like
        Powered-on VMs on the host, >= 0.
    params : HostSyncParams, optional
        Bytes per change (default: the calibration's).

    Examples
    --------
    >>> from vcperf import robo
    >>> round(float(robo.host_sync_traffic(24).host_to_vc_bps))  # the fitted 3.75 Kbps
    3750
    """
    p = given_or_default("params", params, HostSyncParams, lambda: calibrate().hostsync)
    return hostsync.host_sync_traffic(powered_on_vms, p, default_testbed().change_period_s)


def host_sync_link_utilization(n_hosts, link: network.Link, powered_on_vms=None) -> HostSyncTraffic:
    """Fraction of a shared branch link (each direction) the host sync of ``n_hosts`` hosts uses.

    :func:`vcperf.robo.hostsync.host_sync_link_utilization` at the calibration.

    Parameters
    ----------
    n_hosts : float or array_like
        Hosts behind the link, >= 0.
    link : vcperf.network.Link
        The shared branch link.
    powered_on_vms : float or array_like, optional
        Powered-on VMs per host (default: the test bed's 24).

    Examples
    --------
    >>> from vcperf import robo
    >>> bool(robo.host_sync_link_utilization(50, robo.preset("dsl_512k")).host_to_vc_bps < 0.5)
    True
    """
    tb = default_testbed()
    vms = tb.powered_on_vms_per_host if powered_on_vms is None else powered_on_vms
    return hostsync.host_sync_link_utilization(n_hosts, link, vms, calibrate().hostsync, tb.change_period_s)


def statistics_payload_bytes(level, powered_on_vms, params: StatsParams | None = None):
    """Payload (B) of one statistics upload of one host, at the calibration and the test bed's schedule.

    :func:`vcperf.robo.statistics.statistics_payload_bytes` (Figure 6).

    Parameters
    ----------
    level : int or array_like of int
        Statistics level 1..4.
    powered_on_vms : float or array_like
        Powered-on VMs on the host, >= 0.
    params : StatsParams, optional
        Bytes per sample (default: the calibration's).

    Examples
    --------
    >>> from vcperf import robo
    >>> round(float(robo.statistics_payload_bytes(4, 24)) / 1e6, 1)  # the fitted ~3.5 MB
    3.5
    """
    tb = default_testbed()
    p = given_or_default("params", params, StatsParams, lambda: calibrate().stats)
    return statistics.statistics_payload_bytes(level, powered_on_vms, p, tb.schedule, tb.counters)


def statistics_traffic(level, powered_on_vms, params: StatsParams | None = None) -> StatsTraffic:
    """Average traffic (bit/s) of one host with statistics on, host sync included, at the calibration.

    :func:`vcperf.robo.statistics.statistics_traffic` (Figures 4, 5, 7).

    Parameters
    ----------
    level : int or array_like of int
        Statistics level 1..4.
    powered_on_vms : float or array_like
        Powered-on VMs on the host, >= 0.
    params : StatsParams, optional
        Bytes per sample (default: the calibration's).

    Examples
    --------
    >>> from vcperf import robo
    >>> bool(robo.statistics_traffic(1, 24).vc_to_host_bps < 1e3)  # Figure 7: below 1 Kbps
    True
    """
    tb, cal = default_testbed(), calibrated_params()
    p = given_or_default("params", params, StatsParams, lambda: cal.stats)
    return statistics.statistics_traffic(level, powered_on_vms, p, tb.schedule, tb.counters, cal.hostsync,
                                         tb.change_period_s)


def statistics_link_load(n_hosts, link: network.Link, level=1, powered_on_vms=None, powered_on_vms_sd=0.0,
                         params: StatsParams | None = None) -> StatsLinkLoad:
    """Statistics bursts of ``n_hosts`` hosts on one shared branch link, at the calibration.

    :func:`vcperf.robo.statistics.statistics_link_load` (processor sharing).

    Parameters
    ----------
    n_hosts : float or array_like
        Hosts behind the link, >= 1.
    link : vcperf.network.Link
        The shared branch link.
    level : int
        Statistics level 1..4.
    powered_on_vms : float or array_like, optional
        Mean powered-on VMs per host (default: the test bed's 24).
    powered_on_vms_sd : float
        Standard deviation of powered-on VMs across hosts, >= 0.
    params : StatsParams, optional
        Bytes per sample (default: the calibration's).

    References
    ----------
    .. [1] L. Kleinrock, *Queueing Systems, Volume 2: Computer Applications*, Wiley, 1976
       (processor sharing, M/G/1-PS).

    Examples
    --------
    >>> from vcperf import robo
    >>> load = robo.statistics_link_load(40, robo.preset("dsl_512k"), level=4)
    >>> bool(load.busy_fraction > 1.0)  # 40 Level-4 hosts overload 512 Kbps
    True
    """
    tb = default_testbed()
    vms = tb.powered_on_vms_per_host if powered_on_vms is None else powered_on_vms
    p = given_or_default("params", params, StatsParams, lambda: calibrate().stats)
    return statistics.statistics_link_load(n_hosts, link, level, vms, p, tb.schedule, tb.counters,
                                           powered_on_vms_sd)


def operation_names() -> list[str]:
    """The 19 VCbench operations of Table 3 (``table03_vcbench_operations.csv``), in table order.

    Examples
    --------
    >>> from vcperf import robo
    >>> len(robo.operation_names()), "clone_vm" in robo.operation_names()
    (19, True)
    """
    return list(default_testbed().mix)


def operation_calls(operation: str) -> tuple:
    """Host calls of one operation, as stages (:data:`vcperf.robo.operations.OPERATION_CALLS`).

    Parameters
    ----------
    operation : str
        A Table 3 operation, or ``"create_vm"`` (its calls from Figure 8's data).

    Examples
    --------
    >>> from vcperf import robo
    >>> [c.name for stage in robo.operation_calls("clone_vm") for c in stage]
    ['ReserveName', 'CloneVM', 'RegisterVM', 'Get-Changes']
    """
    return default_testbed().calls(operation)


def vm_state_bytes(params: Params | None = None) -> float:
    """Bytes of one VM's state under ``params`` (:func:`vcperf.robo.operations.vm_state_bytes`).

    Parameters
    ----------
    params : Params, optional
        The study's parameters (default: the calibration); the size follows
        ``hostsync.bytes_per_change``.

    Examples
    --------
    >>> from vcperf import robo
    >>> bool(10e3 < robo.vm_state_bytes() < 20e3)
    True
    """
    p = calibrated_params(params)
    return float(operations.vm_state_bytes(p.hostsync.bytes_per_change))


def operation_network_time_s(operation: str, link: network.Link, round_trips_per_call=None):
    """Network critical path (s) of a named operation at the calibration.

    :func:`vcperf.robo.operations.operation_network_time_s`.

    Parameters
    ----------
    operation : str
        A Table 3 operation or ``"create_vm"``.
    link : vcperf.network.Link
        vCenter <-> host link.
    round_trips_per_call : float or array_like, optional
        Round trips per host call, >= 1 (default: the calibration's).

    Examples
    --------
    >>> from vcperf import robo
    >>> float(robo.operation_network_time_s("create_folder", robo.preset("satellite")))
    0.0
    """
    k = calibrate().ops.round_trips_per_call if round_trips_per_call is None else round_trips_per_call
    return operations.operation_network_time_s(operation_calls(operation), link, k, vm_state_bytes())


def operation_transfer_floor_s(operation: str, link: network.Link) -> float:
    """Pure transfer time (s) of a named operation's bytes over the link (a lower bound).

    Parameters
    ----------
    operation : str
        A Table 3 operation or ``"create_vm"``.
    link : vcperf.network.Link
        vCenter <-> host link.

    Examples
    --------
    >>> from vcperf import robo
    >>> dsl = robo.preset("dsl_512k")
    >>> bool(robo.operation_transfer_floor_s("clone_vm", dsl) < robo.operation_network_time_s("clone_vm", dsl))
    True
    """
    return operations.operation_transfer_floor_s(operation_calls(operation), link, vm_state_bytes())


def operation_traffic_bytes(operation: str) -> tuple[float, float]:
    """Bytes (host -> vCenter, vCenter -> host) one named operation moves, ACKs included.

    Parameters
    ----------
    operation : str
        A Table 3 operation or ``"create_vm"``.

    Examples
    --------
    >>> from vcperf import robo
    >>> up, down = robo.operation_traffic_bytes("clone_vm")
    >>> bool(up > down > 0)
    True
    """
    return operations.operation_traffic_bytes(operation_calls(operation), vm_state_bytes())


def _host_links(n_hosts=None) -> dict:
    """The test bed's host links for VCbench: the operations spread over ``n_hosts`` (default the test bed's
    128) links, one ``tc`` filter per host (seed, Appendix A), each carrying a 24-VM host's host sync and
    Level-1 statistics (the figures' background) beside its share of the operations."""
    tb = default_testbed()
    base = statistics_traffic(1, tb.powered_on_vms_per_host)
    hosts = tb.esxi_hosts if n_hosts is None else n_hosts
    return {"n_links": float(hosts), "background_bps": (float(base.host_to_vc_bps), float(base.vc_to_host_bps))}


def vcbench(link: network.Link, clients: int | None = None, params: OpsParams | None = None) -> VcbenchResult:
    """VCbench throughput and latency over ``link`` with the Table 3 mix on the test bed, at the calibration.

    :func:`vcperf.robo.operations.vcbench` (exact MVA, Figures 9-11), the operations spread over the test
    bed's host links, each shared with its host's steady traffic.

    Parameters
    ----------
    link : vcperf.network.Link
        vCenter <-> host link.
    clients : int, optional
        Closed-loop clients, in [1, 1000] (default: the test bed's 8).
    params : OpsParams, optional
        vCenter demand and round trips per call (default: the calibration's).

    References
    ----------
    .. [1] M. Reiser, S. S. Lavenberg, "Mean-Value Analysis of Closed Multichain Queuing Networks",
       Journal of the ACM 27(2), 1980.

    Examples
    --------
    >>> from vcperf import robo
    >>> round(robo.vcbench(robo.preset("satellite")).mean_latency_s)  # Figure 10: 8.3 s
    8
    """
    tb = default_testbed()
    ops = given_or_default("params", params, OpsParams, lambda: calibrate().ops)
    return operations.vcbench(link, ops, tb.mix, tb.clients if clients is None else clients,
                              tb.vcenter_vcpus, vm_state_bytes_=vm_state_bytes(), **_host_links())


def vcbench_vs_clients(link: network.Link, max_clients: int = 32, params: OpsParams | None = None):
    """VCbench throughput (ops/s) and latency (s) for 1..``max_clients`` clients, at the calibration.

    :func:`vcperf.robo.operations.vcbench_vs_clients`: ``(clients, throughput_per_s, latency_s)``.

    Parameters
    ----------
    link : vcperf.network.Link
        vCenter <-> host link.
    max_clients : int
        Largest closed-loop population, in [1, 1000].
    params : OpsParams, optional
        vCenter demand and round trips per call (default: the calibration's).

    References
    ----------
    .. [1] M. Reiser, S. S. Lavenberg, "Mean-Value Analysis of Closed Multichain Queuing Networks",
       Journal of the ACM 27(2), 1980.

    Examples
    --------
    >>> from vcperf import robo
    >>> n, x, r = robo.vcbench_vs_clients(robo.preset("lan"), 4)
    >>> [int(c) for c in n], bool(x[-1] > x[0])
    ([1, 2, 3, 4], True)
    """
    tb = default_testbed()
    ops = given_or_default("params", params, OpsParams, lambda: calibrate().ops)
    return operations.vcbench_vs_clients(link, ops, tb.mix, max_clients, tb.vcenter_vcpus,
                                         vm_state_bytes_=vm_state_bytes(), **_host_links())


def vcbench_host_traffic(link: network.Link, n_hosts=None, clients: int | None = None) -> HostSyncTraffic:
    """Traffic (bit/s) between vCenter and one host during VCbench (Figures 12-13).

    Operations spread over the test bed's 128 hosts plus the host sync and Level-1 statistics of a
    24-VM host (:func:`vcperf.robo.operations.vcbench_host_traffic`).

    Parameters
    ----------
    link : vcperf.network.Link
        vCenter <-> host link.
    n_hosts : float, optional
        Hosts the operations spread over, >= 1 (default: the test bed's 128).
    clients : int, optional
        VCbench clients (default: the test bed's 8).

    Examples
    --------
    >>> from vcperf import robo
    >>> lan, sat = (robo.vcbench_host_traffic(robo.preset(n)) for n in ("lan", "satellite"))
    >>> bool(lan.host_to_vc_bps > sat.host_to_vc_bps)
    True
    """
    tb = default_testbed()
    base = statistics_traffic(1, tb.powered_on_vms_per_host)
    hosts = tb.esxi_hosts if n_hosts is None else v.scalar("n_hosts", n_hosts, 1.0, math.inf, hi_open=True)
    ops = calibrate().ops
    run = operations.vcbench(link, ops, tb.mix, tb.clients if clients is None else clients, tb.vcenter_vcpus,
                             vm_state_bytes_=vm_state_bytes(), **_host_links(hosts))
    return operations.vcbench_host_traffic(run, tb.mix, hosts,
                                           HostSyncTraffic(base.host_to_vc_bps, base.vc_to_host_bps),
                                           vm_state_bytes_=vm_state_bytes())


def add_host_time_s(link: network.Link, params: AddHostParams | None = None, registered_vms=None):
    """Time (s) to add a host over ``link`` at the calibration (Figure 14).

    :func:`vcperf.robo.addhost.add_host_time_s`.

    Parameters
    ----------
    link : vcperf.network.Link
        vCenter <-> host link.
    params : AddHostParams, optional
        Local time and round trips per object (default: the calibration's).
    registered_vms : float or array_like, optional
        VMs registered on the host, >= 0 (default: the test bed's 30).

    Examples
    --------
    >>> from vcperf import robo
    >>> bool(robo.add_host_time_s(robo.preset("satellite")) > robo.add_host_time_s(robo.preset("lan")))
    True
    """
    vms = default_testbed().registered_vms_per_host if registered_vms is None else registered_vms
    p = given_or_default("params", params, AddHostParams, lambda: calibrate().addhost)
    return addhost.add_host_time_s(link, p, vms, vm_state_bytes())


def add_host_traffic_bps(link: network.Link, registered_vms=None) -> float:
    """Host -> vCenter traffic (bit/s) while adding a host (Figure 15), a 24-VM host's background included.

    Parameters
    ----------
    link : vcperf.network.Link
        vCenter <-> host link.
    registered_vms : float, optional
        VMs registered on the host, >= 0 (default: the test bed's 30).

    Examples
    --------
    >>> from vcperf import robo
    >>> bool(robo.add_host_traffic_bps(robo.preset("lan")) > robo.host_sync_traffic(24).host_to_vc_bps)
    True
    """
    tb = default_testbed()
    vms = tb.registered_vms_per_host if registered_vms is None else v.scalar(
        "registered_vms", registered_vms, 0.0, v.MAX_COUNT)
    base = float(statistics_traffic(1, tb.powered_on_vms_per_host).host_to_vc_bps)
    return float(addhost.add_host_traffic_bps(link, calibrate().addhost, vms, vm_state_bytes(), base))


def host_operation_time_s(operation: str, link: network.Link, registered_vms=None, powered_on_vms=None):
    """Time (s) of one host operation of Figures 14-15 over ``link``, scaling with the host's inventory.

    ``add_host`` is fitted (Figure 14); ``remove_host`` and the maintenance-mode operations are
    what-ifs built from the same calls, vCenter steps and vMotion critical path
    (:mod:`vcperf.robo.addhost`).

    Parameters
    ----------
    operation : str
        One of :data:`vcperf.robo.addhost.HOST_OPERATIONS`.
    link : vcperf.network.Link
        vCenter <-> host link.
    registered_vms : float or array_like, optional
        VMs registered on the host, >= 0 (default: the test bed's 30).
    powered_on_vms : float or array_like, optional
        Powered-on VMs the host evacuates entering maintenance mode (default: the test bed's 24).

    Examples
    --------
    >>> from vcperf import robo
    >>> dsl = robo.preset("dsl_512k")
    >>> bool(robo.host_operation_time_s("enter_maintenance_mode", dsl)
    ...      > robo.host_operation_time_s("exit_maintenance_mode", dsl))
    True
    """
    op = v.choice("operation", operation, HOST_OPERATIONS)
    tb, p = default_testbed(), calibrated_params()
    # both checked whatever the operation (one reads only one of them): a bad value is never ignored
    reg = v.count("registered_vms", tb.registered_vms_per_host if registered_vms is None else registered_vms)
    on = v.count("powered_on_vms", tb.powered_on_vms_per_host if powered_on_vms is None else powered_on_vms)
    vm_state = vm_state_bytes()
    if op == "add_host":
        return addhost.add_host_time_s(link, p.addhost, reg, vm_state)
    if op == "remove_host":
        return addhost.remove_host_time_s(link, p.ops, reg, vm_state)
    return addhost.maintenance_mode_time_s(link, p.ops, on, vm_state, enter=op == "enter_maintenance_mode")
