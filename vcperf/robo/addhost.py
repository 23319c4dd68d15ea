"""Host operations over a branch link: Figures 14-15 of ``001_36d9adf7ffa34fcf.txt``.

Add host = vCenter-local work (certificate, agent setup) plus a full inventory sync whose round trips
and bytes grow with the host's inventory: one batch of round trips per inventory object (each
registered VM, plus the host's own configuration objects), each VM's state the size a VM operation's
Get-Changes returns (:func:`vcperf.robo.operations.vm_state_bytes`). The fitted local time and round
trips per object come in :class:`AddHostParams`. The other host operations of the study (remove host,
enter and exit maintenance mode) are built from the same pieces and the VM-operation model; the
paper prints no number for them, so they are what-ifs, never in the ledger.

Every exchange uses the one loss model of :func:`vcperf.network.message_time_s` (loss charged once).
"""

from __future__ import annotations

import math

import numpy as np

from vcperf import _validate as v
from vcperf import network
from vcperf.robo import operations
from vcperf.robo.params import AddHostParams, OpsParams
from vcperf.robo.wire import ack_bytes, wire_bytes

#: Assumed bytes of a host's own configuration (networking, storage, hardware) in the sync.
HOST_CONFIG_BYTES = 200e3
#: Inventory objects of the host itself (host system, its networks, datastores, port groups of its
#: switches ...) synced like one VM each (assumption).
HOST_OBJECTS = 10.0
#: Assumed request bytes per sync round trip (a property-collector or agent call).
ADD_HOST_REQUEST_BYTES = 500.0
#: The host operations of Figures 14-15 (``text_host_operations.csv``).
HOST_OPERATIONS = ("add_host", "remove_host", "enter_maintenance_mode", "exit_maintenance_mode")
#: Concurrent vMotions vCenter runs off one host while it enters maintenance mode (vSphere 6.7 limit
#: per host on a 10 GbE vMotion network; 4 on 1 GbE).
MAX_CONCURRENT_VMOTIONS = 8.0


def inventory_objects(registered_vms):
    """Objects of a host's inventory: its registered VMs plus :data:`HOST_OBJECTS`."""
    return v.count("registered_vms", registered_vms) + HOST_OBJECTS


def inventory_bytes(registered_vms, vm_state_bytes_):
    """Bytes of a host's full inventory: ``registered_vms x vm_state_bytes_ + HOST_CONFIG_BYTES``.

    ``vm_state_bytes_`` is one VM's state (:func:`vcperf.robo.operations.vm_state_bytes`), the same
    the closing Get-Changes of a VM operation returns.
    """
    vms, state = v.count("registered_vms", registered_vms), v.size_bytes("vm_state_bytes_", vm_state_bytes_)
    v.broadcast(registered_vms=vms, vm_state_bytes_=state)
    return vms * state + HOST_CONFIG_BYTES


def add_host_time_s(link: network.Link, params: AddHostParams, registered_vms, vm_state_bytes_):
    """Time (s) to add a host with ``registered_vms`` VMs over ``link`` (Figure 14 of the seed).

    ``local_s`` + ``round_trips_per_object x objects`` sequential exchanges, each a request toward
    the host and an equal share of the inventory back (:func:`vcperf.network.message_time_s` each
    way). Grows with the host's VMs (more objects, more bytes), with RTT and loss; the bytes barely
    matter on the study's links (DSL and T1 take the same stated time).

    Parameters
    ----------
    link : vcperf.network.Link
        vCenter <-> host link.
    params : AddHostParams
        Local time and round trips per object (fitted).
    registered_vms : float or array_like
        VMs registered on the host, >= 0 (the testbed has 30).
    vm_state_bytes_ : float
        Bytes of one VM's state.
    """
    network.check_link("link", link)
    v.instance("params", params, AddHostParams)
    objects = inventory_objects(registered_vms)
    inv = inventory_bytes(registered_vms, vm_state_bytes_)
    return _add_host_s(operations.checked_link_path(link), params, objects, inv)


def _add_host_s(path: tuple, params: AddHostParams, objects, inv):
    """:func:`add_host_time_s` on checked values: ``objects`` inventory objects of ``inv`` bytes in all."""
    n = params.round_trips_per_object * objects
    return params.local_s + operations.checked_exchange_s(n, ADD_HOST_REQUEST_BYTES, inv / n, path)


def add_host_traffic_bps(link: network.Link, params: AddHostParams, registered_vms, vm_state_bytes_,
                         background_bps=0.0):
    """Average host -> vCenter traffic (bit/s) while a host is being added (Figure 15's kind).

    The inventory and the ACKs of the sync requests spread over the add-host time, plus
    ``background_bps`` (the host sync and Level-1 statistics of the host, which the figure includes). The
    sync shares the host's uplink with that background: its exchanges run at the rate the background
    leaves, so the total never exceeds the link where the background alone fits in it.
    """
    network.check_link("link", link)
    v.instance("params", params, AddHostParams)
    inv = inventory_bytes(registered_vms, vm_state_bytes_)
    v.broadcast(registered_vms=inv, background_bps=v.nonneg("background_bps", background_bps))
    objects = inventory_objects(registered_vms)
    n = params.round_trips_per_object * objects
    bg = v.nonneg("background_bps", background_bps)
    free_up = np.asarray(link.up_bps - bg, dtype=float)
    ok = free_up > 0
    down, _, rtt, loss = operations.checked_link_path(link)
    t = _add_host_s((down, np.where(ok, free_up, 1.0), rtt, loss), params, objects, inv)
    sync_bytes = n * (wire_bytes(inv / n) + ack_bytes(ADD_HOST_REQUEST_BYTES))
    return bg + np.where(ok, 8.0 * sync_bytes / t, 0.0)  # a background that fills the uplink leaves the sync nothing


def remove_host_time_s(link: network.Link, ops: OpsParams, registered_vms, vm_state_bytes_=0.0):
    """Time (s) to remove a host: one Disconnect call, then one vCenter step per inventory object.

    vCenter tells the host's agent to stop (one host call, :func:`~vcperf.robo.operations.call_time_s`)
    and deletes each of the host's objects from its inventory and database, one vCenter step
    (``ops.vcenter_demand_per_step_s``, as a folder operation) per object. Scales with VMs; a what-if
    (no paper number).
    """
    network.check_link("link", link)
    v.instance("ops", ops, OpsParams)
    objects = inventory_objects(registered_vms)
    vm_state = v.size_bytes("vm_state_bytes_", vm_state_bytes_)
    v.broadcast(registered_vms=objects, vm_state_bytes_=vm_state)
    call = operations.checked_call_s(operations.HostCall("Disconnect"), operations.checked_link_path(link),
                                     ops.round_trips_per_call, vm_state)
    return call + objects * ops.vcenter_demand_per_step_s


#: Memory of one VM moved by vMotion when a host enters maintenance mode (B): an assumption (the study
#: prints no VM size); pass ``vm_memory_bytes`` to change it.
DEFAULT_VM_MEMORY_BYTES = 4.0 * 2**30
#: The branch's vMotion network between its hosts (bit/s): a local 10 GbE, an assumption; pass
#: ``vmotion_bps`` to change it. The copy never crosses the vCenter link.
DEFAULT_VMOTION_BPS = 10e9


def memory_copy_s(memory_bytes, vmotion_bps, concurrent=1.0):
    """Time (s) of one vMotion wave's memory copies: ``concurrent`` VMs' memory moved at once over the
    hosts' vMotion network, each one bulk TCP transfer sharing it (:func:`vcperf.network.bulk_transfer_time_s`,
    the one transfer model; a local network: no RTT, no loss). One pass of the memory: the pre-copy
    rounds of dirtied pages (Clark et al. 2005) are not modelled, so this is a lower bound (studies do
    not import :mod:`vcperf.vmotion`; this is the branch planner's own simple copy).

    Parameters
    ----------
    memory_bytes : float or array_like
        Memory of one VM (B), >= 0.
    vmotion_bps : float or array_like
        Line rate of the vMotion network (bit/s), > 0.
    concurrent : float or array_like
        VMs copied at once, >= 1.

    Examples
    --------
    >>> from vcperf.robo.addhost import memory_copy_s
    >>> round(float(memory_copy_s(4 * 2**30, 10e9)), 2)  # 4 GiB over 10 GbE
    3.62

    References
    ----------
    .. [1] C. Clark et al., "Live Migration of Virtual Machines", NSDI 2005 (pre-copy migration).
    """
    mem = v.nonneg("memory_bytes", memory_bytes)
    bw = v.rate_bps("vmotion_bps", vmotion_bps)
    n = v.check_range("concurrent", concurrent, 1.0, math.inf, hi_open=True)
    v.broadcast(memory_bytes=mem, vmotion_bps=bw, concurrent=n)
    return network.bulk_transfer_time_s(mem, bw, 0.0, 0.0, flows=n)


def maintenance_mode_time_s(link: network.Link, ops: OpsParams, powered_on_vms, vm_state_bytes_,
                            enter: bool = True, vm_memory_bytes=DEFAULT_VM_MEMORY_BYTES,
                            vmotion_bps=DEFAULT_VMOTION_BPS):
    """Time (s) to enter (evacuate) or exit maintenance mode, a what-if (no paper number).

    Enter: the EnterMaintenanceMode call, then the host's powered-on VMs leave by vMotion in waves of
    :data:`MAX_CONCURRENT_VMOTIONS` (each wave one vMotion critical path, its calls sharing the
    vCenter link, plus its VMs' memory copied together over the branch's vMotion network,
    :func:`memory_copy_s`, plus vCenter's steps for every VM of the wave), then a Get-Changes of the
    host. Exit: one call and a Get-Changes.

    Parameters
    ----------
    link : vcperf.network.Link
        vCenter <-> host link.
    ops : OpsParams
        vCenter demand per step and round trips per call.
    powered_on_vms : float or array_like
        VMs the host evacuates, >= 0.
    vm_state_bytes_ : float
        One VM's state (B) in Get-Changes responses.
    enter : bool
        Enter (True) or exit (False).
    vm_memory_bytes : float or array_like
        Memory of each VM (B), >= 0 (default :data:`DEFAULT_VM_MEMORY_BYTES`, an assumption).
    vmotion_bps : float or array_like
        The hosts' vMotion network (bit/s), > 0 (default :data:`DEFAULT_VMOTION_BPS`, an assumption).
    """
    network.check_link("link", link)
    v.instance("ops", ops, OpsParams)
    vms = v.count("powered_on_vms", powered_on_vms)
    vm_state_bytes_ = v.scalar("vm_state_bytes_", vm_state_bytes_, 0.0, v.MAX_BYTES)
    enter = v.boolean("enter", enter)
    mem = v.nonneg("vm_memory_bytes", vm_memory_bytes)
    vmo = v.rate_bps("vmotion_bps", vmotion_bps)
    v.broadcast(powered_on_vms=vms, vm_memory_bytes=mem, vmotion_bps=vmo)
    k = ops.round_trips_per_call
    path = operations.checked_link_path(link)
    call = operations.checked_call_s(operations.HostCall("MaintenanceMode"), path, k, vm_state_bytes_)
    sync = operations.checked_call_s(operations.get_changes("Get-Changes host", 0), path, k, vm_state_bytes_)
    base = call + sync + 2.0 * ops.vcenter_demand_per_step_s
    if not enter:
        return base + 0.0 * vms * mem * vmo
    stages = operations.OPERATION_CALLS["vmotion_vm"]
    steps = operations.vcenter_steps(stages)
    # Waves of up to MAX_CONCURRENT_VMOTIONS vMotions, each wave as long as a full one's.
    waves = np.ceil(vms / MAX_CONCURRENT_VMOTIONS)
    per_wave = np.clip(vms, 1.0, MAX_CONCURRENT_VMOTIONS)
    wave_t = memory_copy_s(mem, vmo, per_wave)
    for stage in stages:  # a wave's vMotions run together: their messages share the link
        wave_t = wave_t + operations.checked_stage_s(stage, path, k, vm_state_bytes_) + _share_penalty_s(
            stage, link, per_wave, vm_state_bytes_)
    # vCenter's steps of a wave run on its vCPUs side by side: one wave costs one operation's steps.
    return base + waves * (wave_t + steps * ops.vcenter_demand_per_step_s)


def _share_penalty_s(stage, link: network.Link, n_flows, vm_state_bytes_):
    """Extra serialization time of ``n_flows`` concurrent copies of a stage's messages (fair share)."""
    down = sum(c.request_bytes for c in stage)
    up = sum(float(c.response_payload_bytes(vm_state_bytes_)) for c in stage)
    extra = np.maximum(np.asarray(n_flows, dtype=float) - 1.0, 0.0)
    return extra * 8.0 * (down / link.down_bps + up / link.up_bps)
