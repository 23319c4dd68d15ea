"""vCenter 6.7 in remote and branch offices (ROBO): ``001_36d9adf7ffa34fcf.txt``.

The branch link is a :class:`vcperf.network.Link`; Table 1's eight network types are the presets of
:func:`vcperf.network.preset`. The study's four workloads are mechanisms in model files, each a pure
function of physical inputs:

* :mod:`~vcperf.robo.hostsync` -- host-sync traffic (Figures 2-3);
* :mod:`~vcperf.robo.statistics` -- statistics uploads, their traffic and bursts over a shared link
  (Figures 4-7, processor sharing);
* :mod:`~vcperf.robo.operations` -- VCbench operations as stages of overlapping host calls (a critical
  path) and exact MVA (Figures 8-13);
* :mod:`~vcperf.robo.addhost` -- adding a host and the other host operations (Figures 14-15);
* :mod:`~vcperf.robo.branch` -- the one shared branch link: host sync, statistics bursts, operations
  (and a template copy) as TCP flows sharing it; the planner's reverse question (:func:`plan`,
  :func:`required_bandwidth_bps`);
* :mod:`~vcperf.robo.wire` -- bytes on the wire of a TCP message and its ACKs.

:mod:`~vcperf.robo.calibration` reads the test bed and the paper numbers (``data/robo2019/``) and fits
the six parameters of :class:`Params`; :mod:`~vcperf.robo.validation` gives the ledger.

The functions of the same names here (``vcperf.robo.vcbench``, ``host_sync_traffic``, ...) are the
models *at the study's calibration and test bed*: the fitted parameters (:func:`calibrate`) and the
test-bed facts (:func:`testbed`) are filled in unless given. The pure forms take them explicitly
(``vcperf.robo.operations.vcbench(link, params, mix, clients, vcenter_vcpus)``).
"""

from __future__ import annotations

import math

from vcperf import _validate as v
from vcperf import network
from vcperf.robo import addhost, branch, calibration, hostsync, operations, statistics, wire
from vcperf.robo.addhost import ADD_HOST_REQUEST_BYTES, HOST_CONFIG_BYTES, HOST_OBJECTS, AddHostParams
from vcperf.robo.calibration import PARAM_DOCS, STUDY, Params, Testbed, calibrate, predict, targets, testbed
from vcperf.robo.hostsync import HEARTBEAT_BYTES, HEARTBEAT_INTERVAL_S, HostSyncParams, HostSyncTraffic
from vcperf.robo.operations import (
    CALL_REQUEST_BYTES,
    CALL_RESPONSE_BYTES,
    OPERATION_CALLS,
    QUICKSTATS_PROPERTIES,
    VM_STATE_PROPERTIES,
    HostCall,
    OpsParams,
    VcbenchResult,
    call_time_s,
    message_exchange_time_s,
)
from vcperf.robo.statistics import (
    LEVELS,
    CounterModel,
    StatsLinkLoad,
    StatsParams,
    StatsSchedule,
    StatsTraffic,
    statistics_upload_time_s,
    transfer_time_grid_s,
)
from vcperf.robo.validation import (
    fidelity_rows,
    leave_one_out,
    loo_by_network,
    network_table,
    paper_vs_model,
    parameter_table,
)
from vcperf.robo.wire import ACK_BYTES, PACKETS_PER_ACK, ack_bytes, wire_bytes

__all__ = [
    "STUDY", "Params", "PARAM_DOCS", "Testbed", "targets", "calibrate", "predict", "testbed", "fidelity_rows",
    "leave_one_out", "parameter_table", "paper_vs_model", "loo_by_network", "network_table",
    "addhost", "hostsync", "operations", "statistics", "wire",
    "LEVELS", "CounterModel", "StatsSchedule", "StatsParams", "StatsTraffic", "StatsLinkLoad", "HostSyncParams",
    "HostSyncTraffic", "OpsParams", "VcbenchResult", "HostCall", "AddHostParams", "OPERATION_CALLS",
    "VM_STATE_PROPERTIES", "QUICKSTATS_PROPERTIES", "vm_state_bytes", "HOST_OBJECTS",
    "HOST_CONFIG_BYTES", "CALL_REQUEST_BYTES", "CALL_RESPONSE_BYTES", "ADD_HOST_REQUEST_BYTES",
    "HEARTBEAT_BYTES", "HEARTBEAT_INTERVAL_S", "ACK_BYTES", "PACKETS_PER_ACK",
    "wire_bytes", "ack_bytes", "message_exchange_time_s", "call_time_s", "statistics_upload_time_s",
    "transfer_time_grid_s", "testbed_powered_on_vms", "host_sync_traffic", "host_sync_link_utilization",
    "statistics_payload_bytes", "statistics_traffic", "statistics_link_load", "operation_names", "operation_calls",
    "operation_network_time_s", "operation_transfer_floor_s", "operation_traffic_bytes", "vcbench",
    "vcbench_vs_clients", "vcbench_host_traffic", "add_host_time_s", "add_host_traffic_bps", "host_operation_time_s",
    "HOST_OPERATIONS", "branch", "plan", "required_bandwidth_bps",
]


# ----------------------------------------------------------------- the models at the study's calibration


def _given(name: str, value, cls, default):
    """``value`` if given (checked to be a ``cls``), else ``default()`` (the calibration)."""
    if value is None:
        return default()
    return v.instance(name, value, cls, f"a {cls.__module__}.{cls.__qualname__} or None")


def _operation(operation) -> str:
    if not isinstance(operation, str):
        raise ValueError(f"operation must be an operation name (str, see operation_names()); got {operation!r}")
    return operation


def testbed_powered_on_vms() -> float:
    """Powered-on VMs per host of the study's testbed (24, ``text_inventory.csv``)."""
    return testbed().powered_on_vms_per_host


def host_sync_traffic(powered_on_vms, params: HostSyncParams | None = None) -> HostSyncTraffic:
    """:func:`vcperf.robo.hostsync.host_sync_traffic` at the calibrated payload and the testbed's 20 s."""
    p = _given("params", params, HostSyncParams, lambda: calibrate().hostsync)
    return hostsync.host_sync_traffic(powered_on_vms, p, testbed().change_period_s)


def host_sync_link_utilization(n_hosts, link: network.Link, powered_on_vms=None) -> HostSyncTraffic:
    """:func:`vcperf.robo.hostsync.host_sync_link_utilization`; VMs default to the testbed's."""
    tb = testbed()
    vms = tb.powered_on_vms_per_host if powered_on_vms is None else powered_on_vms
    return hostsync.host_sync_link_utilization(n_hosts, link, vms, calibrate().hostsync, tb.change_period_s)


def statistics_payload_bytes(level, powered_on_vms, params: StatsParams | None = None):
    """:func:`vcperf.robo.statistics.statistics_payload_bytes` at the calibration and testbed schedule."""
    tb = testbed()
    return statistics.statistics_payload_bytes(level, powered_on_vms,
                                               _given("params", params, StatsParams, lambda: calibrate().stats),
                                               tb.schedule,
                                               tb.counters)


def statistics_traffic(level, powered_on_vms, params: StatsParams | None = None) -> StatsTraffic:
    """:func:`vcperf.robo.statistics.statistics_traffic` (host sync included) at the calibration."""
    tb, p = testbed(), calibrate()
    return statistics.statistics_traffic(level, powered_on_vms, _given("params", params, StatsParams, lambda: p.stats),
                                         tb.schedule, tb.counters,
                                         p.hostsync, tb.change_period_s)


def statistics_link_load(n_hosts, link: network.Link, level=1, powered_on_vms=None, powered_on_vms_sd=0.0,
                         params: StatsParams | None = None) -> StatsLinkLoad:
    """:func:`vcperf.robo.statistics.statistics_link_load`; VMs default to the testbed's."""
    tb = testbed()
    vms = tb.powered_on_vms_per_host if powered_on_vms is None else powered_on_vms
    return statistics.statistics_link_load(n_hosts, link, level, vms,
                                           _given("params", params, StatsParams, lambda: calibrate().stats),
                                           tb.schedule,
                                           tb.counters, powered_on_vms_sd)


def operation_names() -> list[str]:
    """The 19 VCbench operations of Table 3 (``table03_vcbench_operations.csv``), in table order."""
    return list(testbed().mix)


def operation_calls(operation: str) -> tuple:
    """Host calls of one operation (:data:`OPERATION_CALLS`; ``"create_vm"`` from Figure 8's data)."""
    return testbed().calls(_operation(operation))


def vm_state_bytes(params: Params | None = None) -> float:
    """Bytes of one VM's state at the calibration (:func:`vcperf.robo.operations.vm_state_bytes`)."""
    return calibration.vm_state_bytes(_given("params", params, Params, calibrate))


def operation_network_time_s(operation: str, link: network.Link, round_trips_per_call=None):
    """:func:`vcperf.robo.operations.operation_network_time_s` of a named operation at the calibration."""
    k = calibrate().ops.round_trips_per_call if round_trips_per_call is None else round_trips_per_call
    return operations.operation_network_time_s(operation_calls(operation), link, k, vm_state_bytes())


def operation_transfer_floor_s(operation: str, link: network.Link) -> float:
    """Pure transfer time of a named operation's bytes over the link (a lower bound)."""
    return operations.operation_transfer_floor_s(operation_calls(operation), link, vm_state_bytes())


def operation_traffic_bytes(operation: str) -> tuple[float, float]:
    """Bytes (host -> vCenter, vCenter -> host) one named operation moves, ACKs included."""
    return operations.operation_traffic_bytes(operation_calls(operation), vm_state_bytes())


def vcbench(link: network.Link, clients: int | None = None, params: OpsParams | None = None) -> VcbenchResult:
    """:func:`vcperf.robo.operations.vcbench` with the Table 3 mix, the testbed's vCPUs and (default)
    8 clients, at the calibrated parameters."""
    tb = testbed()
    ops = _given("params", params, OpsParams, lambda: calibrate().ops)
    return operations.vcbench(link, ops, tb.mix, tb.clients if clients is None else clients,
                              tb.vcenter_vcpus, vm_state_bytes_=vm_state_bytes())


def vcbench_vs_clients(link: network.Link, max_clients: int = 32, params: OpsParams | None = None):
    """:func:`vcperf.robo.operations.vcbench_vs_clients` at the calibration: ``(clients, X, R)``."""
    tb = testbed()
    ops = _given("params", params, OpsParams, lambda: calibrate().ops)
    return operations.vcbench_vs_clients(link, ops, tb.mix, max_clients, tb.vcenter_vcpus,
                                         vm_state_bytes_=vm_state_bytes())


def vcbench_host_traffic(link: network.Link, n_hosts=None, clients: int | None = None) -> HostSyncTraffic:
    """Traffic between vCenter and one host during VCbench (Figures 12-13): operations spread over the
    testbed's 128 hosts plus the host sync and Level-1 statistics of a 24-VM host."""
    tb = testbed()
    base = statistics_traffic(1, tb.powered_on_vms_per_host)
    hosts = tb.esxi_hosts if n_hosts is None else n_hosts
    return operations.vcbench_host_traffic(vcbench(link, clients), tb.mix, hosts,
                                           HostSyncTraffic(base.host_to_vc_bps, base.vc_to_host_bps),
                                           vm_state_bytes_=vm_state_bytes())


def add_host_time_s(link: network.Link, params: AddHostParams | None = None, registered_vms=None):
    """:func:`vcperf.robo.addhost.add_host_time_s` at the calibration; VMs default to the testbed's 30."""
    vms = testbed().registered_vms_per_host if registered_vms is None else registered_vms
    return addhost.add_host_time_s(link, _given("params", params, AddHostParams, lambda: calibrate().addhost), vms,
                                   vm_state_bytes())


def add_host_traffic_bps(link: network.Link, registered_vms=None) -> float:
    """Host -> vCenter traffic while adding a host (Figure 15's kind), background of a 24-VM host included."""
    tb = testbed()
    vms = tb.registered_vms_per_host if registered_vms is None else v.scalar(
        "registered_vms", registered_vms, 0.0, math.inf, hi_open=True)
    base = float(statistics_traffic(1, tb.powered_on_vms_per_host).host_to_vc_bps)
    return float(addhost.add_host_traffic_bps(link, calibrate().addhost, vms, vm_state_bytes(), base))


#: The host operations of Figures 14-15 (``text_host_operations.csv``).
HOST_OPERATIONS = ("add_host", "remove_host", "enter_maintenance_mode", "exit_maintenance_mode")


def host_operation_time_s(operation: str, link: network.Link, registered_vms=None, powered_on_vms=None):
    """Time (s) of one host operation of Figures 14-15 over ``link``, scaling with the host's inventory.

    ``add_host`` is fitted (Figure 14); ``remove_host`` and the maintenance-mode operations are
    what-ifs built from the same calls, vCenter steps and vMotion critical path
    (:mod:`vcperf.robo.addhost`). VMs default to the testbed's 30 registered / 24 powered on.
    """
    op = v.choice("operation", operation, HOST_OPERATIONS)
    tb, p = testbed(), calibrate()
    reg = tb.registered_vms_per_host if registered_vms is None else registered_vms
    on = tb.powered_on_vms_per_host if powered_on_vms is None else powered_on_vms
    vm_state = vm_state_bytes()
    if op == "add_host":
        return addhost.add_host_time_s(link, p.addhost, reg, vm_state)
    if op == "remove_host":
        return addhost.remove_host_time_s(link, p.ops, reg, vm_state)
    return addhost.maintenance_mode_time_s(link, p.ops, on, vm_state, enter=op == "enter_maintenance_mode")


# ----------------------------------------------------------------- the shared branch link (planner)


def _as_link(link) -> network.Link:
    if isinstance(link, str):
        names = network.preset_names()
        if link not in names:
            raise ValueError(f"link must be a vcperf.network.Link or one of {names}; got {link!r}")
        return network.preset(link)
    return network.check_link("link", link)


def plan(link, n_hosts, level=1, operation: str = "clone_vm", powered_on_vms=None, template_bytes=0.0,
         params: Params | None = None) -> branch.BranchLoad:
    """The shared branch link of ``n_hosts`` hosts during a statistics burst, at the calibration.

    One call answers the planner's question "satellite, 40 hosts, Level 2: latency of a clone during
    the statistics burst": ``robo.plan("satellite", 40, 2, "clone_vm").operation_latency_s``. Host
    sync, the burst's uploads, the operation's host calls (and an optional template copy toward the
    branch) share the link as TCP flows (:func:`vcperf.robo.branch.branch_load`).

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
    powered_on_vms : float, optional
        Powered-on VMs per host (default: the testbed's 24).
    template_bytes : float
        A template copy toward the branch during the burst (0: none).
    params : Params, optional
        Parameters (default: :func:`calibrate`); ``vcperf.protocol.with_interval(robo.plan, ...,
        output="operation_latency_s")`` gives the 90 % interval.
    """
    tb = testbed()
    p = _given("params", params, Params, calibrate)
    link = _as_link(link)
    operation = _operation(operation)
    vms = tb.powered_on_vms_per_host if powered_on_vms is None else powered_on_vms
    return branch.branch_load(_as_link(link), n_hosts, level, vms, hostsync=p.hostsync, stats=p.stats, ops=p.ops,
                              schedule=tb.schedule, counters=tb.counters, change_period_s=tb.change_period_s,
                              stages=tb.calls(operation), vm_state_bytes_=calibration.vm_state_bytes(p),
                              template_bytes=template_bytes)


def required_bandwidth_bps(target_s, n_hosts, rtt_s, loss=0.0, level=1, quantity: str = "operation_latency",
                           operation: str = "clone_vm", powered_on_vms=None, up_down_ratio=1.0,
                           template_bytes=0.0, params: Params | None = None) -> float:
    """Smallest link rate (bit/s) that keeps an operation's latency during the statistics burst, or the
    statistics delay, at or under ``target_s`` for ``n_hosts`` hosts on a link of ``rtt_s`` and ``loss``.

    Vectorised bisection on the monotone model (:func:`vcperf.robo.branch.required_bandwidth_bps`
    over :func:`plan`); ``inf`` when no rate is enough (the RTT and vCenter alone exceed the target).

    Parameters
    ----------
    target_s : float
        Target (s), > 0.
    n_hosts : float
        Hosts behind the link, >= 1.
    rtt_s, loss : float
        The link's round-trip time and loss probability.
    level : int
        Statistics level 1..4.
    quantity : str
        ``"operation_latency"`` (the operation during a burst) or ``"statistics_delay"`` (one host's
        upload during its group's burst).
    operation : str
        The operation (for ``"operation_latency"``).
    powered_on_vms : float, optional
        Powered-on VMs per host (default: the testbed's 24).
    up_down_ratio : float
        Uplink / downlink rate of the answer; the returned rate is the downlink's.
    template_bytes : float
        A template copy toward the branch during the burst (0: none).
    """
    field = {"operation_latency": "operation_latency_s", "statistics_delay": "statistics_delay_s"}[
        v.choice("quantity", quantity, ("operation_latency", "statistics_delay"))]
    rtt_s = v.scalar("rtt_s", rtt_s, 0.0, math.inf, hi_open=True)
    loss = v.scalar("loss", loss, 0.0, 1.0, hi_open=True)
    n_hosts = v.scalar("n_hosts", n_hosts, 1.0, math.inf, hi_open=True)
    level = v.integer("level", level, 1, 4)
    if powered_on_vms is not None:
        powered_on_vms = v.scalar("powered_on_vms", powered_on_vms, 0.0, math.inf, hi_open=True)
    template_bytes = v.scalar("template_bytes", template_bytes, 0.0, math.inf, hi_open=True)
    operation = _operation(operation)
    _given("params", params, Params, calibrate)

    def evaluate(down, up):
        lk = network.Link(down, float(rtt_s), float(loss), "candidate", up)
        return getattr(plan(lk, n_hosts, level, operation, powered_on_vms, template_bytes, params), field)

    return branch.required_bandwidth_bps(target_s, evaluate, up_down_ratio=up_down_ratio)
