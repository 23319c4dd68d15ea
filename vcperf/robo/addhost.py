"""Adding a host over a branch link: Figures 14-15 of ``001_36d9adf7ffa34fcf.txt``.

Add host = vCenter-local work (certificate, database inserts, agent setup) plus a full inventory sync
of many sequential round trips. The fitted local time and round trips come in :class:`AddHostParams`;
the inventory bytes are built from the host's registered VMs (:func:`inventory_bytes`).
"""

from __future__ import annotations

from dataclasses import dataclass

from vcperf import _validate as v
from vcperf import network
from vcperf.robo.operations import BYTES_PER_VM_CONFIG
from vcperf.robo.wire import ack_bytes, wire_bytes

#: Assumed bytes of a host's own configuration (networking, storage, hardware) in the sync.
HOST_CONFIG_BYTES = 200e3
#: Assumed request bytes per sync round trip (a property-collector or agent call).
ADD_HOST_REQUEST_BYTES = 500.0


@dataclass(frozen=True)
class AddHostParams:
    """Fitted parameters of the add-host model.

    Attributes
    ----------
    local_s : float
        vCenter-local work of adding a host (s). Fitted to ``figure14_host_op_latency.csv``.
    round_trips : float
        Sequential vCenter <-> host round trips of the full inventory sync and agent setup.
        Fitted to ``figure14_host_op_latency.csv``.
    """

    local_s: float
    round_trips: float


def inventory_bytes(registered_vms):
    """Bytes of a host's full inventory: ``registered_vms x BYTES_PER_VM_CONFIG + HOST_CONFIG_BYTES``.

    Not fitted: DSL and T1 take the same stated add-host time, so bandwidth (and bytes) barely
    matter. The per-VM state is the one a VM operation's closing Get-Changes sync returns.
    """
    return v.nonneg("registered_vms", registered_vms) * BYTES_PER_VM_CONFIG + HOST_CONFIG_BYTES


def add_host_time_s(link: network.Link, params: AddHostParams, inventory_bytes_):
    """Time (s) to add a host over ``link``: ``local_s`` + ``round_trips`` exchanges carrying the
    inventory (:func:`vcperf.network.exchange_time_s`), Figure 14 of ``001_36d9adf7ffa34fcf.txt``.

    Unlike a VM operation's calls (:func:`~vcperf.robo.operations.message_exchange_time_s`), the
    sync's exchanges keep the bulk-TCP rate of :func:`vcperf.network.exchange_time_s`, loss-limited
    on the lossy long links; costed as short messages instead, the four stated times are fitted
    about as well but the LAN held-out error changes sign. Which form describes a sync of ~1000
    back-to-back exchanges is open.

    Parameters
    ----------
    link : vcperf.network.Link
        vCenter <-> host link.
    params : AddHostParams
        Local time and round trips (fitted).
    inventory_bytes_ : float
        Bytes of the host's inventory (:func:`inventory_bytes`), >= 0.
    """
    inv = v.nonneg("inventory_bytes", inventory_bytes_)
    return params.local_s + link.exchange_time_s(params.round_trips, ADD_HOST_REQUEST_BYTES,
                                                 inv / params.round_trips)


def add_host_traffic_bps(link: network.Link, params: AddHostParams, inventory_bytes_, background_bps=0.0) -> float:
    """Average host -> vCenter traffic (bit/s) while a host is being added (Figure 15's kind).

    The inventory and the ACKs of the sync requests spread over the add-host time, plus
    ``background_bps`` (the host sync and Level-1 statistics of the host, which the figure includes).
    """
    inv = float(v.nonneg("inventory_bytes", inventory_bytes_))
    t = float(add_host_time_s(link, params, inv))
    per_rt = inv / params.round_trips
    sync_bytes = params.round_trips * float(wire_bytes(per_rt) + ack_bytes(ADD_HOST_REQUEST_BYTES))
    return float(background_bps) + 8.0 * sync_bytes / t
