"""VM operations under VCbench over a branch link: Figures 8-13 of ``001_36d9adf7ffa34fcf.txt``.

Each operation is vCenter-local work plus a list of host calls (Figure 8 shows CreateVM's), each call
a few round trips of short messages on an idle connection (:func:`message_exchange_time_s`: RTT, link
rate, slow start, loss recovery by timeout); the closing Get-Changes host sync returns the final state
of the VM(s) the operation touched, the same per-VM state the add-host inventory sync carries
(:data:`BYTES_PER_VM_CONFIG`). Closed-loop clients, vCenter as a queueing station and the network as a
delay station, solved by exact MVA (:func:`vcperf.queueing.mva`).

Pure functions: the fitted vCenter demand and round trips per call come in :class:`OpsParams`; the
operation mix (name -> host calls), clients and vCenter vCPUs are arguments.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from vcperf import _validate as v
from vcperf import network, queueing
from vcperf.robo.hostsync import HostSyncTraffic
from vcperf.robo.wire import ack_bytes, wire_bytes

#: Assumed bytes of one VM's state (configuration and properties) as the host sends it to vCenter.
#: The same object travels in the add-host inventory sync (one per registered VM, Figure 14) and in
#: the Get-Changes host sync that ends a VM operation (Figure 8: "synchronize the final state").
BYTES_PER_VM_CONFIG = 20e3
#: Assumed payload of a SOAP request to the host and of a response that carries no VM state
#: (task result, or a property change that is not a VM's state, e.g. a port group).
CALL_REQUEST_BYTES = 2000.0
CALL_RESPONSE_BYTES = 4000.0


@dataclass(frozen=True)
class HostCall:
    """One vCenter -> host call of an operation: a request and its response (payload bytes).

    Defaults (assumptions): :data:`CALL_REQUEST_BYTES` (2 KB SOAP request) and
    :data:`CALL_RESPONSE_BYTES` (4 KB task result or property change). A Get-Changes host sync
    returns the final state of every VM the operation synced (:data:`BYTES_PER_VM_CONFIG` each).
    """

    name: str
    request_bytes: float = CALL_REQUEST_BYTES
    response_bytes: float = CALL_RESPONSE_BYTES


def get_changes(name: str = "Get-Changes", synced_vms: int = 1) -> HostCall:
    """A Get-Changes host sync returning the state of ``synced_vms`` VMs (a plain response if 0)."""
    return HostCall(name, response_bytes=synced_vms * BYTES_PER_VM_CONFIG if synced_vms else CALL_RESPONSE_BYTES)


def _calls(*names, synced_vms: int = 1) -> tuple:
    """Commands ``names`` followed by one Get-Changes host sync of ``synced_vms`` VMs."""
    return (*(HostCall(n) for n in names), get_changes(synced_vms=synced_vms))


def calls_from_sequence(messages) -> tuple:
    """Host calls from a sequence diagram's vCenter -> host messages (e.g. Figure 8's step list).

    ``"ReserveName request"`` becomes the call ``ReserveName``; a ``Get-Changes`` message is the
    closing host sync of one VM's final state (:func:`get_changes`).
    """
    names = [m.replace(" request", "").replace(" command", "") for m in messages]
    return tuple(get_changes(n, 1) if n.startswith("Get-Changes") else HostCall(n) for n in names)


#: Host calls of each VCbench operation (Table 3) -- the structure of each operation, an assumption
#: patterned on Figure 8: the command(s) to the host(s) and a final Get-Changes host sync that
#: returns the final state of the VM(s) the operation created or changed (none when the VM leaves
#: the host's inventory -- remove, unregister, the source of a vMotion -- or when the change is not
#: a VM: port groups). Folder operations touch only vCenter's inventory (the paper: no host
#: communication). ``create_vm`` (Figure 8's example) is built from the figure's data by the
#: calibration (:func:`calls_from_sequence`).
OPERATION_CALLS: dict[str, tuple] = {
    "add_port_group": _calls("AddPortGroup", synced_vms=0),
    "remove_port_group": _calls("RemovePortGroup", synced_vms=0),
    "clone_vm": _calls("ReserveName", "CloneVM", "RegisterVM"),
    "create_folder": (),
    "delete_folder": (),
    "create_snapshot": _calls("CreateSnapshot"),
    "delete_snapshot": _calls("RemoveSnapshot"),
    "group_power_on": _calls("PowerOn VM 1", "PowerOn VM 2", "PowerOn VM 3", synced_vms=3),
    "vmotion_vm": (*(HostCall(n) for n in ("PrepareDestination", "PrepareSource", "InitiateSource",
                                           "CompleteDestination")),
                   get_changes("Get-Changes source", 0), get_changes("Get-Changes destination", 1)),
    "power_on_vm": _calls("PowerOn"),
    "power_off_vm": _calls("PowerOff"),
    "reconfigure_vm": _calls("Reconfigure"),
    "register_vm": _calls("ReserveName", "RegisterVM"),
    "unregister_vm": _calls("UnregisterVM", synced_vms=0),
    "relocate_vm": _calls("ReserveName", "RelocateDisks", "RegisterDestination", "UnregisterSource"),
    "remove_vm": _calls("DestroyVM", synced_vms=0),
    "reset_vm": _calls("Reset"),
    "suspend_vm": _calls("Suspend"),
    "resume_vm": _calls("Resume"),
}


@dataclass(frozen=True)
class OpsParams:
    """Fitted parameters of the VCbench model.

    Attributes
    ----------
    vcenter_demand_s : float
        vCenter CPU/database service demand of one operation (s), a queueing station shared by all
        clients. Fitted to ``figure10_vcbench_latency.csv``.
    round_trips_per_call : float
        Sequential vCenter <-> host round trips per host call, >= 1: the call itself (request and
        response as whole messages) plus empty exchanges for task creation, progress and
        completion (:func:`call_time_s`). Fitted to ``figure10_vcbench_latency.csv``.
    """

    vcenter_demand_s: float
    round_trips_per_call: float


def message_exchange_time_s(round_trips, request_bytes, response_bytes, link: network.Link):
    """Time (s) of ``round_trips`` sequential short request/response exchanges on an idle connection.

    :func:`vcperf.network.exchange_time_s` on a loss-free link (RTT, link rate and slow start from
    the initial window) plus, per message, the loss recovery of a short message,
    :func:`vcperf.network.message_loss_delay_s` (a lost segment of a message too short for three
    duplicate ACKs waits one retransmission timeout). The steady-state loss-limited rate (PFTK) of
    a bulk flow is not applied: a host call's messages fit in a few initial windows and its
    connection restarts from idle (VCbench spreads its operations over 128 hosts, so one host's
    link sees a call every few tens of seconds), so loss costs timeouts, not a smaller window.
    """
    n = v.nonneg("round_trips", round_trips)
    req = v.nonneg("request_bytes", request_bytes)
    resp = v.nonneg("response_bytes", response_bytes)
    lossless = network.exchange_time_s(n, req, resp, link.bandwidth_bps, link.rtt_s, 0.0)
    recovery = network.message_loss_delay_s(req, link.rtt_s, link.loss) + network.message_loss_delay_s(
        resp, link.rtt_s, link.loss)
    return lossless + n * recovery


def call_time_s(call: HostCall, link: network.Link, round_trips_per_call):
    """Time (s) of one host call: one exchange carrying its request and its response as whole
    messages, then ``round_trips_per_call - 1`` empty exchanges (task creation, progress polls,
    completion), each :func:`message_exchange_time_s`.

    ``round_trips_per_call`` must be >= 1 (the call itself is one round trip).
    """
    k = v.check_range("round_trips_per_call", round_trips_per_call, 1.0, math.inf, hi_open=True)
    return message_exchange_time_s(1.0, call.request_bytes, call.response_bytes, link) + message_exchange_time_s(
        k - 1.0, 0.0, 0.0, link)


def operation_network_time_s(calls, link: network.Link, round_trips_per_call):
    """Time (s) one operation with host calls ``calls`` spends in vCenter <-> host exchanges.

    The sum of :func:`call_time_s` over its host calls: RTT, link rate, slow start and loss
    recovery of each message. Zero for an operation without host calls (the folder operations).
    """
    k = v.check_range("round_trips_per_call", round_trips_per_call, 1.0, math.inf, hi_open=True)
    total = np.zeros(np.shape(k))
    for call in calls:
        total = total + call_time_s(call, link, k)
    return total


def network_times(mix: dict, link: network.Link, round_trips_per_call: float) -> dict:
    """:func:`operation_network_time_s` of every operation of ``mix`` (name -> calls), vectorized."""
    owners, req, resp = [], [], []
    for op, calls in mix.items():
        for call in calls:
            owners.append(op)
            req.append(call.request_bytes)
            resp.append(call.response_bytes)
    out = dict.fromkeys(mix, 0.0)
    if not owners:
        return out
    times = message_exchange_time_s(1.0, np.array(req), np.array(resp), link)
    empty = float(message_exchange_time_s(max(round_trips_per_call - 1.0, 0.0), 0.0, 0.0, link))
    for op, t in zip(owners, np.atleast_1d(times), strict=True):
        out[op] += float(t) + empty
    return out


def operation_transfer_floor_s(calls, link: network.Link) -> float:
    """Pure transfer time of an operation's bytes over the link: ``bits / bandwidth`` (a lower bound)."""
    bits = sum(8.0 * (c.request_bytes + c.response_bytes) for c in calls)
    return bits / link.bandwidth_bps


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
        Busy fraction of each vCenter vCPU, ``X x vcenter_demand_s / vcpus``.
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


def _stations(params: OpsParams, vcenter_vcpus: int, d_net: float):
    # Seidmann's approximation of an m-server station: a queue with D/m plus a delay of D(m-1)/m.
    m = vcenter_vcpus
    return [params.vcenter_demand_s / m, params.vcenter_demand_s * (m - 1) / m, d_net]


def vcbench(link: network.Link, params: OpsParams, mix: dict, clients: int, vcenter_vcpus: int,
            think_time_s: float = 0.0) -> VcbenchResult:
    """VCbench throughput and latency over ``link`` (Figures 9-11 of ``001_36d9adf7ffa34fcf.txt``).

    A closed queueing network solved by exact MVA (:func:`vcperf.queueing.mva`): ``clients``
    customers cycle through the vCenter CPU (demand ``vcenter_demand_s`` on ``vcenter_vcpus``
    servers, in Seidmann's approximation [1]_: a queueing station with ``D/m`` plus a delay of
    ``D(m-1)/m``) and a network delay station (mean :func:`operation_network_time_s` over a uniform
    mix of the operations of ``mix``). Latency grows far slower than RTT because vCenter-local work
    dominates on fast links and only the RTT-bound part of an operation scales with the RTT.

    Parameters
    ----------
    link : vcperf.network.Link
        vCenter <-> host link.
    params : OpsParams
        vCenter demand and round trips per call (fitted).
    mix : dict
        Operation name -> tuple of :class:`HostCall` (the study's 19 Table 3 operations).
    clients : int
        Concurrent SDK clients, in [1, 1000] (the study ran 8).
    vcenter_vcpus : int
        vCPUs of the vCenter appliance (8 in the study), >= 1.
    think_time_s : float
        Client think time between operations; 0: VCbench issues the next operation at once.

    References
    ----------
    .. [1] A. Seidmann, P. J. Schweitzer, S. Shalev-Oren, "Computerized closed queueing network
       models of flexible manufacturing systems", Large Scale Systems 12, 91-107, 1987.
    """
    n = v.integer("clients", clients, 1, 1000)
    m = v.integer("vcenter_vcpus", vcenter_vcpus, 1, 100000)
    z = float(v.nonneg("think_time_s", think_time_s))
    net = network_times(mix, link, params.round_trips_per_call)
    d_net = float(np.mean(list(net.values())))  # uniform mix
    d_q, d_d, _ = stations = _stations(params, m, d_net)
    res = queueing.mva(stations, n, z, delay_stations=[False, True, True])
    q_before = float(res.queue_length[n - 2, 0]) if n > 1 else 0.0  # arrival theorem
    vc_res = d_q * (1.0 + q_before) + d_d
    return VcbenchResult(
        throughput_per_s=float(res.throughput_per_s[-1]),
        mean_latency_s=float(res.response_time_s[-1]),
        per_operation_latency_s={op: vc_res + net[op] for op in mix},
        vcenter_utilization=float(res.utilization[-1, 0]),
        network_delay_s=d_net,
        clients=n,
    )


def vcbench_vs_clients(link: network.Link, params: OpsParams, mix: dict, max_clients: int, vcenter_vcpus: int,
                       think_time_s: float = 0.0):
    """Throughput (ops/s) and mean latency (s) for 1..``max_clients`` closed-loop clients on ``link``.

    The same network as :func:`vcbench`, solved once by MVA for every population. Returns
    ``(clients, throughput_per_s, latency_s)`` arrays.
    """
    n = v.integer("max_clients", max_clients, 1, 1000)
    m = v.integer("vcenter_vcpus", vcenter_vcpus, 1, 100000)
    d_net = float(np.mean(list(network_times(mix, link, params.round_trips_per_call).values())))
    res = queueing.mva(_stations(params, m, d_net), n, think_time_s, delay_stations=[False, True, True])
    return res.n, res.throughput_per_s, res.response_time_s


def operation_traffic_bytes(calls) -> tuple[float, float]:
    """Bytes (host -> vCenter, vCenter -> host) one operation moves, ACKs of each side included."""
    up = down = 0.0
    for c in calls:
        up += float(wire_bytes(c.response_bytes) + ack_bytes(c.request_bytes))
        down += float(wire_bytes(c.request_bytes) + ack_bytes(c.response_bytes))
    return up, down


def vcbench_host_traffic(result: VcbenchResult, mix: dict, n_hosts, background: HostSyncTraffic) -> HostSyncTraffic:
    """Average traffic (bit/s) between vCenter and one host while VCbench runs (Figures 12-13).

    Operation traffic ``X x bytes per operation / n_hosts`` (operations spread evenly over the
    hosts) plus ``background`` (the host sync and Level-1 statistics of one host, which the paper's
    figures include). Falls with RTT because throughput does.
    """
    n = v.check_range("n_hosts", n_hosts, 1.0, math.inf, hi_open=True)
    up, down = np.mean([operation_traffic_bytes(calls) for calls in mix.values()], axis=0)
    rate = result.throughput_per_s / n
    return HostSyncTraffic(background.host_to_vc_bps + 8.0 * rate * up, background.vc_to_host_bps + 8.0 * rate * down)
