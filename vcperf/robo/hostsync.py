"""Host-sync (background) traffic of one host: Figures 2-3 of ``001_36d9adf7ffa34fcf.txt``.

Every powered-on VM's quick statistics change once per real-time statistics interval and each change
travels host -> vCenter as one small TCP message; vpxa adds a UDP heartbeat. The reverse direction
carries only the TCP ACKs of those messages. Pure functions of physical inputs: the fitted payload per
change comes in :class:`HostSyncParams`, the change period (the real-time interval) as an argument.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vcperf import _validate as v
from vcperf import network
from vcperf.robo.params import HostSyncParams
from vcperf.robo.wire import ack_bytes, wire_bytes

#: One vpxa heartbeat datagram on the wire (B). Assumption: a UDP/902 datagram with a short
#: payload; it sets the traffic of a host without VMs.
HEARTBEAT_BYTES = 100.0
#: vpxa heartbeat period (s), VMware's documented default.
HEARTBEAT_INTERVAL_S = 10.0


@dataclass(frozen=True)
class HostSyncTraffic:
    """Average traffic of one host (bit/s, or link fractions where a function says so), both directions."""

    host_to_vc_bps: np.ndarray
    vc_to_host_bps: np.ndarray


def host_sync_traffic(powered_on_vms, params: HostSyncParams, change_period_s) -> HostSyncTraffic:
    """Average host-sync traffic (bit/s) of one host, host -> vCenter and vCenter -> host.

    ``host_to_vc = 8 (HEARTBEAT_BYTES / HEARTBEAT_INTERVAL_S + vms / change_period * wire(change))``
    and ``vc_to_host = 8 vms / change_period * acks(change)``: linear in powered-on VMs; the reverse
    direction is only TCP ACKs (``001_36d9adf7ffa34fcf.txt``, Figures 2-3).

    Parameters
    ----------
    powered_on_vms : float or array_like
        Powered-on VMs on the host, >= 0 (the testbed has 24).
    params : HostSyncParams
        Bytes per change (fitted).
    change_period_s : float
        Seconds between two changes of one powered-on VM: its quick statistics are refreshed every
        real-time statistics interval (20 s in the study), each refresh a property change vpxa pushes.
    """
    vms = v.count("powered_on_vms", powered_on_vms)
    v.instance("params", params, HostSyncParams)
    period = v.duration_s("change_period_s", change_period_s, v.MIN_DURATION_S)
    v.broadcast(powered_on_vms=vms, change_period_s=period)
    return checked_host_sync(vms, params, period)


def checked_host_sync(vms, params: HostSyncParams, period) -> HostSyncTraffic:
    """:func:`host_sync_traffic` on checked values."""
    msgs_per_s = vms / period
    up = HEARTBEAT_BYTES / HEARTBEAT_INTERVAL_S + msgs_per_s * wire_bytes(params.bytes_per_change)
    down = msgs_per_s * ack_bytes(params.bytes_per_change)
    return HostSyncTraffic(host_to_vc_bps=8.0 * up, vc_to_host_bps=8.0 * down)


def host_sync_link_utilization(n_hosts, link: network.Link, powered_on_vms, params: HostSyncParams,
                               change_period_s) -> HostSyncTraffic:
    """Fraction of a shared branch link (each direction) used by the host sync of ``n_hosts`` hosts.

    The study says tens of hosts could share one link (``text_background_traffic.csv``): the offered
    load is ``n_hosts`` times :func:`host_sync_traffic`, each direction divided by that direction's
    rate (host -> vCenter by ``link.up_bps``, vCenter -> host by ``link.down_bps``;
    :func:`vcperf.network.utilization`). Returned in the fields of :class:`HostSyncTraffic` as
    fractions, not bit/s.

    Parameters
    ----------
    n_hosts : float or array_like
        Hosts behind the link, >= 0.
    link : vcperf.network.Link
        The branch link (asymmetric rates allowed).
    powered_on_vms : float or array_like
        Powered-on VMs per host, >= 0.
    params : HostSyncParams
        Bytes per change.
    change_period_s : float
        Seconds between two changes of one VM.

    Examples
    --------
    >>> from vcperf import network
    >>> from vcperf.robo.hostsync import host_sync_link_utilization
    >>> from vcperf.robo.params import HostSyncParams
    >>> u = host_sync_link_utilization(40, network.Link(8e6, 0.05, up_bandwidth_bps=1e6), 24,
    ...                                HostSyncParams(200.0), 20.0)
    >>> bool(u.host_to_vc_bps > 5 * u.vc_to_host_bps)  # uplink (1 Mbit/s) carries the changes
    True
    """
    n = v.count("n_hosts", n_hosts)
    network.check_link("link", link)
    v.broadcast(n_hosts=n, powered_on_vms=v.count("powered_on_vms", powered_on_vms))
    t = host_sync_traffic(powered_on_vms, params, change_period_s)
    return HostSyncTraffic(
        host_to_vc_bps=network.utilization(n * t.host_to_vc_bps, link.up_bps),
        vc_to_host_bps=network.utilization(n * t.vc_to_host_bps, link.down_bps),
    )
