"""VM operations under VCbench over a branch link: Figures 8-13 of ``001_36d9adf7ffa34fcf.txt``.

Each operation is vCenter-local work (one demand per step: the request and one per host call) plus
host calls in *stages* (Figure 8 shows CreateVM's): the calls of a stage are independent and overlap
on vpxd's persistent connections, sharing the link; stages follow one another, so an operation's
network time is a critical path, not a sum of every call. Each call is a few round trips of messages
(:func:`message_exchange_time_s`, one loss model: :func:`vcperf.network.message_time_s`); the closing
Get-Changes host sync returns the final state of the VM(s) the operation touched, whose size is
derived from the measured host-sync message (:func:`vm_state_bytes`), the same per-VM state the
add-host inventory sync carries. Closed-loop clients, vCenter as a queueing station and the network
as a delay station, solved by exact MVA (:func:`vcperf.queueing.mva`).

Pure functions: the fitted vCenter demand per step and round trips per call come in
:class:`OpsParams`; the operation mix (name -> stages of host calls), clients, vCenter vCPUs and the
VM-state size are arguments.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from vcperf import _validate as v
from vcperf import network, queueing
from vcperf.robo.hostsync import HostSyncTraffic
from vcperf.robo.params import OpsParams
from vcperf.robo.wire import ack_bytes, wire_bytes

#: Leaf properties of one VM's state as a Get-Changes host sync returns it after an operation.
#: Assumption, counted from the vSphere 6.7 API's VirtualMachine data objects for a small VM: about 15
#: virtual devices of a default VM (PCI, IDE and SCSI controllers, keyboard, pointer, video card, VMCI,
#: disk, CD-ROM, floppy, NIC ...) x ~25 properties each, plus ~375 of its configuration (files, flags,
#: resource allocation, boot and tools options), runtime, guest, summary, storage and file layout. Set
#: from that count before fitting, not to improve the fit (the notebook shows the sensitivity).
VM_STATE_PROPERTIES = 750.0
#: Properties of one quick-statistics change (vim.vm.Summary.QuickStats in vSphere 6.7 has 20): the
#: host-sync message of Figure 2 whose payload is fitted (``hostsync.bytes_per_change``).
QUICKSTATS_PROPERTIES = 20.0
#: Assumed payload of a SOAP request to the host and of a response that carries no VM state
#: (task result, or a property change that is not a VM's state, e.g. a port group).
CALL_REQUEST_BYTES = 2000.0
CALL_RESPONSE_BYTES = 4000.0


def vm_state_bytes(bytes_per_change):
    """Bytes of one VM's state on the wire, from the host-sync message the study measured.

    A host-sync change (Figure 2, ``bytes_per_change`` fitted to 3.75 Kbps at 24 VMs) carries the
    :data:`QUICKSTATS_PROPERTIES` quick-statistics properties of one VM; the same property-update
    encoding carries the :data:`VM_STATE_PROPERTIES` properties of a VM's full state:
    ``bytes_per_change x VM_STATE_PROPERTIES / QUICKSTATS_PROPERTIES``. Used by the closing
    Get-Changes of a VM operation and by the add-host inventory sync (one per registered VM): an
    inventory fact (property counts) times a measured encoding, not a free size.
    """
    return v.nonneg("bytes_per_change", bytes_per_change) * VM_STATE_PROPERTIES / QUICKSTATS_PROPERTIES


@dataclass(frozen=True)
class HostCall:
    """One vCenter -> host call of an operation: a request and its response (payload bytes).

    Defaults (assumptions): :data:`CALL_REQUEST_BYTES` (2 KB SOAP request) and
    :data:`CALL_RESPONSE_BYTES` (4 KB task result or property change). A Get-Changes host sync
    returns the final state of ``synced_vms`` VMs (:func:`vm_state_bytes` each) instead.
    """

    name: str
    request_bytes: float = CALL_REQUEST_BYTES
    response_bytes: float = CALL_RESPONSE_BYTES
    synced_vms: float = 0.0

    def __post_init__(self):
        v.instance("name", self.name, str, "a str")
        v.scalar("request_bytes", self.request_bytes, 0.0, math.inf, hi_open=True)
        v.scalar("response_bytes", self.response_bytes, 0.0, math.inf, hi_open=True)
        v.scalar("synced_vms", self.synced_vms, 0.0, math.inf, hi_open=True)

    def response_payload_bytes(self, vm_state_bytes_):
        """Response payload (B): the plain response plus ``synced_vms`` VM states."""
        return self.response_bytes + self.synced_vms * vm_state_bytes_


def get_changes(name: str = "Get-Changes", synced_vms: int = 1) -> HostCall:
    """A Get-Changes host sync returning the state of ``synced_vms`` VMs (a plain response if 0)."""
    v.instance("name", name, str, "a str")
    synced_vms = v.integer("synced_vms", synced_vms, 0, 10**6)
    if synced_vms:
        return HostCall(name, response_bytes=0.0, synced_vms=float(synced_vms))
    return HostCall(name)


def _seq(*names, synced_vms: int = 1) -> tuple:
    """Stages of dependent commands ``names`` (one call each) then one Get-Changes of ``synced_vms`` VMs."""
    return (*((HostCall(n),) for n in names), (get_changes(synced_vms=synced_vms),))


def calls_from_sequence(messages) -> tuple:
    """Host calls from a sequence diagram's vCenter -> host messages (e.g. Figure 8's step list).

    ``"ReserveName request"`` becomes the call ``ReserveName``; a ``Get-Changes`` message is the
    closing host sync of one VM's final state (:func:`get_changes`). Each waits for the previous
    one's response (Figure 8: "if it receives back a response ... then"), one call per stage.
    """
    if isinstance(messages, (str, bytes)) or not hasattr(messages, "__iter__") or (
            isinstance(messages, np.ndarray) and messages.ndim == 0):
        raise ValueError(f"messages must be a sequence of message names (str); got {messages!r}")
    messages = list(messages)
    for m in messages:
        v.instance("messages", m, str, "made of message names (str)")
    names = [m.replace(" request", "").replace(" command", "") for m in messages]
    return tuple((get_changes(n, 1) if n.startswith("Get-Changes") else HostCall(n),) for n in names)


def flatten(stages) -> tuple:
    """The host calls of an operation's stages, in order."""
    return tuple(c for stage in checked_stages(stages) for c in stage)


#: Host calls of each VCbench operation (Table 3) as *stages*: the calls of one stage are independent
#: and overlap on vpxd's persistent connections to the host(s); a stage starts when the previous one
#: has answered (a critical path). The structure is an assumption patterned on Figure 8 (each step
#: waits for the previous response): the command(s) to the host(s) and a final Get-Changes host sync
#: that returns the final state of the VM(s) the operation created or changed (none when the VM
#: leaves the host's inventory -- remove, unregister -- or when the change is not a VM: port groups).
#: Independent calls: the three power-ons of a group power-on; vMotion's preparation of source and
#: destination and its two closing host syncs; relocate's registration at the destination and
#: unregistration at the source. Folder operations touch only vCenter's inventory (no host call).
#: ``create_vm`` (Figure 8's example) is built from the figure's data by the calibration.
OPERATION_CALLS: dict[str, tuple] = {
    "add_port_group": _seq("AddPortGroup", synced_vms=0),
    "remove_port_group": _seq("RemovePortGroup", synced_vms=0),
    "clone_vm": _seq("ReserveName", "CloneVM", "RegisterVM"),
    "create_folder": (),
    "delete_folder": (),
    "create_snapshot": _seq("CreateSnapshot"),
    "delete_snapshot": _seq("RemoveSnapshot"),
    "group_power_on": ((HostCall("PowerOn VM 1"), HostCall("PowerOn VM 2"), HostCall("PowerOn VM 3")),
                       (get_changes(synced_vms=3),)),
    "vmotion_vm": ((HostCall("PrepareDestination"), HostCall("PrepareSource")), (HostCall("InitiateSource"),),
                   (HostCall("CompleteDestination"),),
                   (get_changes("Get-Changes source", 0), get_changes("Get-Changes destination", 1))),
    "power_on_vm": _seq("PowerOn"),
    "power_off_vm": _seq("PowerOff"),
    "reconfigure_vm": _seq("Reconfigure"),
    "register_vm": _seq("ReserveName", "RegisterVM"),
    "unregister_vm": _seq("UnregisterVM", synced_vms=0),
    "relocate_vm": ((HostCall("ReserveName"),), (HostCall("RelocateDisks"),),
                    (HostCall("RegisterDestination"), HostCall("UnregisterSource")), (get_changes(synced_vms=1),)),
    "remove_vm": _seq("DestroyVM", synced_vms=0),
    "reset_vm": _seq("Reset"),
    "suspend_vm": _seq("Suspend"),
    "resume_vm": _seq("Resume"),
}


def vcenter_steps(stages) -> float:
    """vCenter work items of an operation: the client request and its database commit, plus one per host call.

    An operation's vCenter demand is ``vcenter_demand_per_step_s x steps``: a folder operation is one
    step (no host), a clone five (four host calls), so per-operation demand follows what it does.
    """
    return 1.0 + len(flatten(stages))


def checked_stages(stages, name: str = "stages") -> tuple:
    """Check an operation's stages: a tuple of stages, each a tuple of :class:`HostCall`."""
    what = "a tuple of stages, each a tuple of HostCall (vcperf.robo.OPERATION_CALLS)"
    out = v.sequence(name, stages, what)
    for stage in out:
        _stage(stage, name)
    return out


def _stage(stage, name: str = "stage") -> tuple:
    out = v.sequence(name, stage, "a tuple of HostCall (one stage of vcperf.robo.OPERATION_CALLS)")
    for c in out:
        v.instance(name, c, HostCall, "made of HostCall objects")
    return out


def _mix(mix) -> dict:
    v.mapping("mix", mix, "a non-empty dict of operation name -> stages of HostCall")
    for stages in mix.values():
        checked_stages(stages, "mix")
    return mix


def checked_link_path(link: network.Link) -> tuple:
    """A checked link's four numbers ``(down_bps, up_bps, rtt_s, loss)``: what the private cores take."""
    return link.down_bps, link.up_bps, link.rtt_s, link.loss


def checked_exchange_s(round_trips, request_bytes, response_bytes, path: tuple):
    """:func:`message_exchange_time_s` on checked values (``path`` from :func:`checked_link_path`)."""
    down, up, rtt, loss = path
    return round_trips * (network.message_time_s(request_bytes, down, rtt, loss)
                          + network.message_time_s(response_bytes, up, rtt, loss))


def checked_call_s(call: HostCall, path: tuple, k, vm_state):
    """:func:`call_time_s` on checked values."""
    resp = call.response_payload_bytes(vm_state)
    return checked_exchange_s(1.0, call.request_bytes, resp, path) + checked_exchange_s(k - 1.0, 0.0, 0.0, path)


def checked_stage_s(stage: tuple, path: tuple, k, vm_state):
    """Time (s) of one stage (checked values): its calls overlap on the link, each at its fair share
    (processor sharing); the slowest ends it."""
    if not stage:
        return 0.0
    n = len(stage)
    down, up, rtt, loss = path
    shared = path if n <= 1 else (down / n, up / n, rtt, loss)
    return np.max([checked_call_s(c, shared, k, vm_state) for c in stage], axis=0)


def checked_network_s(stages: tuple, path: tuple, k, vm_state):
    """:func:`operation_network_time_s` on checked values."""
    total = np.zeros(np.shape(k))
    for stage in stages:
        total = total + checked_stage_s(stage, path, k, vm_state)
    return total


def _round_trips(round_trips_per_call):
    return v.check_range("round_trips_per_call", round_trips_per_call, 1.0, math.inf, hi_open=True)


def message_exchange_time_s(round_trips, request_bytes, response_bytes, link: network.Link):
    """Time (s) of ``round_trips`` sequential request/response exchanges on a persistent connection.

    Each exchange sends the request toward the host (``link.down_bps``) and the response back
    (``link.up_bps``), each message costed by :func:`vcperf.network.message_time_s`: RTT, rate,
    slow start from the initial window, and loss recovered once -- by fast retransmit, by
    retransmission timeouts that can repeat (exponential backoff), or by the PFTK rate of a bulk
    message, whichever binds.

    Parameters
    ----------
    round_trips : float or array_like
        Sequential exchanges, >= 0 (may be fractional as an average).
    request_bytes, response_bytes : float or array_like
        Payload of each request (vCenter -> host) and each response (host -> vCenter), B, >= 0.
    link : vcperf.network.Link
        vCenter <-> host link.

    Returns
    -------
    numpy.ndarray
        Time (s).

    References
    ----------
    .. [1] J. Padhye, V. Firoiu, D. Towsley, J. Kurose, "Modeling TCP Throughput: A Simple Model and
       its Empirical Validation", ACM SIGCOMM 1998 (the loss-limited rate of bulk messages).

    Examples
    --------
    >>> from vcperf import robo
    >>> lan, sat = robo.preset("lan"), robo.preset("satellite")
    >>> bool(robo.message_exchange_time_s(1, 2000, 4000, sat) > robo.message_exchange_time_s(1, 2000, 4000, lan))
    True
    """
    n = v.nonneg("round_trips", round_trips)
    req = v.nonneg("request_bytes", request_bytes)
    resp = v.nonneg("response_bytes", response_bytes)
    network.check_link("link", link)
    v.broadcast(round_trips=n, request_bytes=req, response_bytes=resp)
    return checked_exchange_s(n, req, resp, checked_link_path(link))


def call_time_s(call: HostCall, link: network.Link, round_trips_per_call, vm_state_bytes_=0.0):
    """Time (s) of one host call: one exchange carrying its request and its response as whole
    messages, then ``round_trips_per_call - 1`` empty exchanges (task creation, progress polls,
    completion), each :func:`message_exchange_time_s`.

    Parameters
    ----------
    call : HostCall
        The call (request and response payloads, VM states it returns).
    link : vcperf.network.Link
        vCenter <-> host link.
    round_trips_per_call : float or array_like
        Round trips on the call's critical path, >= 1 (the call itself is one).
    vm_state_bytes_ : float or array_like
        Size of one VM's state (B, :func:`vm_state_bytes`) for a Get-Changes call, >= 0.

    Returns
    -------
    numpy.ndarray
        Time (s).

    References
    ----------
    .. [1] J. Padhye, V. Firoiu, D. Towsley, J. Kurose, "Modeling TCP Throughput: A Simple Model and
       its Empirical Validation", ACM SIGCOMM 1998.
    .. [2] N. Cardwell, S. Savage, T. Anderson, "Modeling TCP Latency", IEEE INFOCOM 2000 (slow start).

    Examples
    --------
    >>> from vcperf import robo
    >>> t1 = robo.call_time_s(robo.HostCall("PowerOn"), robo.preset("satellite"), 1.0)
    >>> t3 = robo.call_time_s(robo.HostCall("PowerOn"), robo.preset("satellite"), 3.0)
    >>> bool(t3 > t1 > 0.5)
    True
    """
    v.instance("call", call, HostCall)
    network.check_link("link", link)
    k = _round_trips(round_trips_per_call)
    vm_state = v.size_bytes("vm_state_bytes_", vm_state_bytes_)
    v.broadcast(round_trips_per_call=k, vm_state_bytes_=vm_state)
    return checked_call_s(call, checked_link_path(link), k, vm_state)


def operation_network_time_s(stages, link: network.Link, round_trips_per_call, vm_state_bytes_=0.0):
    """Time (s) one operation spends in vCenter <-> host exchanges: its critical path.

    The sum over its stages of the stage times (independent calls of a stage overlap on the
    persistent connections and share the link; dependent stages follow one another). Zero for an
    operation without host calls (the folder operations).
    """
    stages = checked_stages(stages)
    network.check_link("link", link)
    k = _round_trips(round_trips_per_call)
    vm_state = v.size_bytes("vm_state_bytes_", vm_state_bytes_)
    v.broadcast(round_trips_per_call=k, vm_state_bytes_=vm_state)
    return checked_network_s(stages, checked_link_path(link), k, vm_state)


def _network_times(mix: dict, link: network.Link, k: float, vm_state_bytes_: float) -> dict:
    """:func:`operation_network_time_s` (checked values) of every operation of ``mix`` (name -> stages), vectorized.

    Every call of every stage is costed in one :func:`vcperf.network.message_time_s` evaluation per
    direction (the same :func:`call_time_s` at each stage's fair share), then reduced to stage maxima
    and per-operation sums.
    """
    owner, stage_id, share, req, resp = [], [], [], [], []
    sid = 0
    for op, stages in mix.items():
        for stage in stages:
            for c in stage:
                owner.append(op)
                stage_id.append(sid)
                share.append(len(stage))
                req.append(c.request_bytes)
                resp.append(float(c.response_payload_bytes(vm_state_bytes_)))
            sid += 1
    out = dict.fromkeys(mix, 0.0)
    if not owner:
        return out
    n = np.array(share, dtype=float)
    down, up = link.down_bps / n, link.up_bps / n
    rtt, p = link.rtt_s, link.loss
    t = (network.message_time_s(np.array(req), down, rtt, p) + network.message_time_s(np.array(resp), up, rtt, p)
         + (k - 1.0) * (network.message_time_s(0.0, down, rtt, p) + network.message_time_s(0.0, up, rtt, p)))
    stage_t = np.zeros(sid)
    np.maximum.at(stage_t, np.array(stage_id), t)
    stage_owner = {}
    for op, s_ in zip(owner, stage_id, strict=True):
        stage_owner[s_] = op
    for s_, op in stage_owner.items():
        out[op] += float(stage_t[s_])
    return out


def operation_transfer_floor_s(stages, link: network.Link, vm_state_bytes_=0.0) -> float:
    """Pure transfer time of an operation's bytes over the link: bits / rate each way (a lower bound)."""
    network.check_link("link", link)
    vm_state_bytes_ = v.scalar("vm_state_bytes_", vm_state_bytes_, 0.0, v.MAX_BYTES)
    calls = flatten(checked_stages(stages))
    down = sum(8.0 * c.request_bytes for c in calls) / link.down_bps
    up = sum(8.0 * float(c.response_payload_bytes(vm_state_bytes_)) for c in calls) / link.up_bps
    return down + up


@dataclass(frozen=True)
class VcbenchResult:
    """VCbench on one link: closed-loop MVA with ``clients`` clients.

    Attributes
    ----------
    throughput_per_s : float
        Operations per second (Figure 9 plots per minute).
    mean_latency_s : float
        Mean operation latency (Figure 10).
    per_operation_latency_s : dict
        Operation -> mean latency (Figure 11): its vCenter residence plus its own network time.
    vcenter_utilization : float
        Busy fraction of each vCenter vCPU, ``X x mean demand / vcpus``.
    network_delay_s : float
        Mean network time per operation (the delay station's demand).
    clients : int
        Closed-loop population.
    """

    throughput_per_s: float
    mean_latency_s: float
    per_operation_latency_s: dict
    vcenter_utilization: float
    network_delay_s: float
    clients: int


def _stations(d_vc: float, vcenter_vcpus: int, d_net: float, clients: int):
    """vCenter and network stations of the VCbench network. With no more clients than vCPUs every
    client always has a vCPU: vCenter is exactly a delay station (no queueing, so an operation
    without host calls, e.g. a folder operation, takes the same time on every link, as the study
    observes). Beyond, Seidmann's approximation of an m-server station: a queue with D/m plus a
    delay of D(m-1)/m."""
    m = vcenter_vcpus
    if clients <= m:
        return [0.0, d_vc, d_net]
    return [d_vc / m, d_vc * (m - 1) / m, d_net]


def _link_demands(mix: dict, link: network.Link, vm_state_bytes_: float, n_links: float = 1.0,
                  background_bps=(0.0, 0.0)) -> float:
    """Wire time (s) per operation of the mix on the busier direction of the links (uniform mix): the
    operations spread over ``n_links`` host links alike (the study's one ``tc`` filter per host), each
    direction at the rate its steady ``background_bps`` (host sync and statistics, ``(up, down)``) leaves;
    ``inf`` when the background alone fills a direction (no operation gets through)."""
    up, down = np.mean([checked_traffic_bytes(stages, vm_state_bytes_) for stages in mix.values()], axis=0)
    free_up, free_down = link.up_bps - background_bps[0], link.down_bps - background_bps[1]
    if free_up <= 0 or free_down <= 0:
        return math.inf
    return max(8.0 * float(up) / free_up, 8.0 * float(down) / free_down) / n_links


def _link_bound(n, x, r, z, d_link):
    """Throughput and response time of ``n`` clients held to the link's capacity: the asymptotic bound
    of a closed network, ``X(n) <= 1 / D_link`` (Denning & Buzen 1978), with the response time that
    Little's law then gives, ``n / X - Z``. Below the bound the network is unchanged."""
    cap = 1.0 / d_link if d_link > 0 else np.inf  # 0 when the background fills the link: no operation
    x_b = np.minimum(x, cap)
    with np.errstate(divide="ignore"):  # no capacity left: no operation, an infinite response
        return x_b, np.maximum(r, n / x_b - z)


def _mix_demands(params: OpsParams, mix: dict) -> dict:
    return {op: params.vcenter_demand_per_step_s * vcenter_steps(stages) for op, stages in mix.items()}


def vcbench(link: network.Link, params: OpsParams, mix: dict, clients: int, vcenter_vcpus: int,
            think_time_s: float = 0.0, vm_state_bytes_: float = 0.0, *, n_links: float = 1.0,
            background_bps=(0.0, 0.0)) -> VcbenchResult:
    """VCbench throughput and latency over ``link`` (Figures 9-11 of ``001_36d9adf7ffa34fcf.txt``).

    A closed queueing network solved by exact MVA (:func:`vcperf.queueing.mva`): ``clients``
    customers cycle through the vCenter CPU (mean demand of the mix, each operation's
    ``vcenter_demand_per_step_s x`` :func:`vcenter_steps`, on ``vcenter_vcpus`` servers, in
    Seidmann's approximation [1]_: a queueing station with ``D/m`` plus a delay of ``D(m-1)/m``) and
    a network delay station (mean :func:`operation_network_time_s` over a uniform mix of the
    operations of ``mix``). The clients also contend for the link: throughput never exceeds what its
    busier direction carries, ``1 / D_link`` with ``D_link`` the wire time of an operation's bytes
    (:func:`operation_traffic_bytes`), the closed network's asymptotic bound [2]_ (64 clients on
    64 kbit/s get no more operations than the link carries; latency then follows from Little's law).
    An operation's vCenter residence is the mix's scaled by its own demand.
    Latency grows far slower than RTT because vCenter-local work dominates on fast links and only
    the critical path of an operation's host calls scales with the RTT.

    Parameters
    ----------
    link : vcperf.network.Link
        vCenter <-> host link.
    params : OpsParams
        vCenter demand and round trips per call (fitted).
    mix : dict
        Operation name -> stages of :class:`HostCall` (the study's 19 Table 3 operations).
    clients : int
        Concurrent SDK clients, in [1, 1000] (the study ran 8).
    vcenter_vcpus : int
        vCPUs of the vCenter appliance (8 in the study), >= 1.
    think_time_s : float
        Client think time between operations; 0: VCbench issues the next operation at once.
    vm_state_bytes_ : float
        Bytes of one VM's state (:func:`vm_state_bytes`) in the Get-Changes responses.
    n_links : float
        Host links the operations spread over alike, >= 1 (the study: one ``tc`` filter per host, 128).
    background_bps : (float, float)
        Steady traffic of each host link ``(up, down)`` (bit/s), >= 0: host sync and statistics, which
        the operations share the link with (so a link's total traffic never exceeds its rate).

    References
    ----------
    .. [1] A. Seidmann, P. J. Schweitzer, S. Shalev-Oren, "Computerized closed queueing network
       models of flexible manufacturing systems", Large Scale Systems 12, 91-107, 1987.
    .. [2] P. J. Denning, J. P. Buzen, "The Operational Analysis of Queueing Network Models", ACM
       Computing Surveys 10(3), 1978 (the bottleneck bound X <= 1 / D_max).
    """
    n = v.integer("clients", clients, 1, 1000)
    n_links, background_bps, m, z, vm_state_bytes_, k = _checked_vcbench_inputs(
        link, params, mix, vcenter_vcpus, think_time_s, vm_state_bytes_, n_links, background_bps)
    net = _network_times(mix, link, k, vm_state_bytes_)
    d_net = float(np.mean(list(net.values())))  # uniform mix
    demands = _mix_demands(params, mix)
    d_vc = float(np.mean(list(demands.values())))
    d_q, d_d, _ = stations = _stations(d_vc, m, d_net, n)
    res = queueing.mva(stations, n, z, delay_stations=[False, True, True])
    q_before = float(res.queue_length[n - 2, 0]) if n > 1 else 0.0  # arrival theorem
    vc_res = d_q * (1.0 + q_before) + d_d
    x, r = (float(a) for a in _link_bound(n, res.throughput_per_s[-1], res.response_time_s[-1], z,
                                          _link_demands(mix, link, vm_state_bytes_, n_links, background_bps)))
    wait = r - float(res.response_time_s[-1])  # waiting for the link when it is the bottleneck
    return VcbenchResult(
        throughput_per_s=x,
        mean_latency_s=r,
        per_operation_latency_s={op: vc_res * demands[op] / d_vc + net[op] + wait for op in mix},
        vcenter_utilization=x * d_vc / m,
        network_delay_s=d_net,
        clients=n,
    )


def _checked_vcbench_inputs(link, params, mix, vcenter_vcpus, think_time_s, vm_state_bytes_, n_links,
                            background_bps) -> tuple:
    """The inputs :func:`vcbench` and :func:`vcbench_vs_clients` share, checked: ``(n_links, background_bps,
    vcenter_vcpus, think_time_s, vm_state_bytes_, round_trips_per_call)``."""
    network.check_link("link", link)
    n_links = v.scalar("n_links", n_links, 1.0, math.inf, hi_open=True)
    background_bps = _background(background_bps)
    v.instance("params", params, OpsParams)
    _mix(mix)
    m = v.integer("vcenter_vcpus", vcenter_vcpus, 1, 100000)
    z = v.scalar("think_time_s", think_time_s, 0.0, math.inf, hi_open=True)
    vm_state = v.scalar("vm_state_bytes_", vm_state_bytes_, 0.0, v.MAX_BYTES)
    k = v.scalar("round_trips_per_call", params.round_trips_per_call, 1.0, math.inf, hi_open=True)
    return n_links, background_bps, m, z, vm_state, k


def _background(background_bps) -> tuple:
    """``(up, down)`` steady traffic of a host link, checked (bit/s, each >= 0)."""
    pair = v.sequence("background_bps", background_bps, "a pair (up, down) of bit/s")
    if len(pair) != 2:
        raise ValueError(f"background_bps must be a pair (up, down) of bit/s; got {background_bps!r}")
    return tuple(float(v.scalar("background_bps", x, 0.0, math.inf, hi_open=True)) for x in pair)


def vcbench_vs_clients(link: network.Link, params: OpsParams, mix: dict, max_clients: int, vcenter_vcpus: int,
                       think_time_s: float = 0.0, vm_state_bytes_: float = 0.0, *, n_links: float = 1.0,
                       background_bps=(0.0, 0.0)):
    """Throughput (ops/s) and mean latency (s) for 1..``max_clients`` closed-loop clients on ``link``.

    The same network as :func:`vcbench` (``n_links`` and ``background_bps`` as there), solved once by MVA
    for every population. Returns ``(clients, throughput_per_s, latency_s)`` arrays.
    """
    n = v.integer("max_clients", max_clients, 1, 1000)
    n_links, background_bps, m, think_time_s, vm_state_bytes_, k = _checked_vcbench_inputs(
        link, params, mix, vcenter_vcpus, think_time_s, vm_state_bytes_, n_links, background_bps)
    d_net = float(np.mean(list(_network_times(mix, link, k, vm_state_bytes_).values())))
    d_vc = float(np.mean(list(_mix_demands(params, mix).values())))
    delay = queueing.mva(_stations(d_vc, m, d_net, 1), n, think_time_s, delay_stations=[False, True, True])
    split = queueing.mva(_stations(d_vc, m, d_net, m + 1), n, think_time_s, delay_stations=[False, True, True])
    few = delay.n <= m  # every client has a vCPU: no queueing at vCenter
    x, r = _link_bound(delay.n, np.where(few, delay.throughput_per_s, split.throughput_per_s),
                       np.where(few, delay.response_time_s, split.response_time_s), think_time_s,
                       _link_demands(mix, link, vm_state_bytes_, n_links, background_bps))
    return delay.n, x, r


def operation_traffic_bytes(stages, vm_state_bytes_=0.0) -> tuple[float, float]:
    """Bytes (host -> vCenter, vCenter -> host) one operation moves, ACKs of each side included."""
    vm_state_bytes_ = v.scalar("vm_state_bytes_", vm_state_bytes_, 0.0, v.MAX_BYTES)
    return checked_traffic_bytes(checked_stages(stages), vm_state_bytes_)


def checked_traffic_bytes(stages: tuple, vm_state_bytes_: float) -> tuple[float, float]:
    """:func:`operation_traffic_bytes` on checked values."""
    up = down = 0.0
    for c in (c for stage in stages for c in stage):
        resp = c.response_payload_bytes(vm_state_bytes_)
        up += float(wire_bytes(resp) + ack_bytes(c.request_bytes))
        down += float(wire_bytes(c.request_bytes) + ack_bytes(resp))
    return up, down


def vcbench_host_traffic(result: VcbenchResult, mix: dict, n_hosts, background: HostSyncTraffic,
                         vm_state_bytes_: float = 0.0) -> HostSyncTraffic:
    """Average traffic (bit/s) between vCenter and one host while VCbench runs (Figures 12-13).

    Operation traffic ``X x bytes per operation / n_hosts`` (operations spread evenly over the
    hosts) plus ``background`` (the host sync and Level-1 statistics of one host, which the paper's
    figures include). Falls with RTT because throughput does.
    """
    v.instance("result", result, VcbenchResult)
    _mix(mix)
    v.instance("background", background, HostSyncTraffic)
    vm_state_bytes_ = v.scalar("vm_state_bytes_", vm_state_bytes_, 0.0, v.MAX_BYTES)
    n = v.count("n_hosts", n_hosts, 1.0)
    up, down = np.mean([operation_traffic_bytes(stages, vm_state_bytes_) for stages in mix.values()], axis=0)
    rate = result.throughput_per_s / n
    return HostSyncTraffic(background.host_to_vc_bps + 8.0 * rate * up, background.vc_to_host_bps + 8.0 * rate * down)
