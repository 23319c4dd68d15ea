"""FT protection's life cycle around the checkpoint cycle: turning FT on (the initial copy of the
secondary) and failing over to the secondary (seed "Storage", "Transparent Failover")."""

from __future__ import annotations

import math

import numpy as np

from vcperf import _validate as v
from vcperf.ft.checkpoint import DEFAULT_FT_ACK_RTT_S, DEFAULT_FT_LINK_BPS, checkpoint_cycle, ft_link_goodput_bps


def turn_on_time_s(disk_bytes, memory_bytes, dirty_rate_bytes_per_s=0.0, ft_link_bps=DEFAULT_FT_LINK_BPS, *,
                   ft_ack_rtt_s=DEFAULT_FT_ACK_RTT_S, ft_link_loss=0.0, n_ft_vms=1,
                   storage_bps=math.inf):
    """Time to turn FT on: the initial copy of the secondary over the FT link.

    Seed "Storage": FT protection starts with a Storage vMotion of the VMDKs to the secondary, and the
    VM is not protected until it completes; then its memory is copied like a vMotion pre-copy: pass 1
    copies ``memory_bytes``, each later pass the memory dirtied during the previous one, a geometric
    series ``M / R / (1 - d / R)``. A guest dirtying faster than the link is throttled to 90 % of it
    (so the copy always converges, as vSphere slows the VM). ``R`` is the FT link's goodput
    (:func:`ft_link_goodput_bps`), the disk copy runs at ``min(R, storage_bps)``.

    Parameters
    ----------
    disk_bytes, memory_bytes : float or array_like
        VMDK and memory size, >= 0.
    dirty_rate_bytes_per_s : float or array_like
        Guest memory dirty rate during the copy, >= 0.
    ft_link_bps, ft_ack_rtt_s, ft_link_loss, n_ft_vms
        As in :func:`checkpoint_cycle`.
    storage_bps : float
        Read/write rate of the datastores (default unbounded), > 0.

    Returns
    -------
    ndarray
        Seconds.

    References
    ----------
    .. [1] C. Clark, K. Fraser, S. Hand, J. G. Hansen, E. Jul, C. Limpach, I. Pratt, A. Warfield, "Live
       Migration of Virtual Machines", NSDI 2005 (iterative pre-copy).

    Examples
    --------
    >>> from vcperf import ft
    >>> round(float(ft.turn_on_time_s(40e9, 8e9)), 1)  # 40 GB of disk, 8 GB of memory over 10 GbE: s
    40.5
    """
    disk = v.nonneg("disk_bytes", disk_bytes)
    mem = v.nonneg("memory_bytes", memory_bytes)
    d = v.nonneg("dirty_rate_bytes_per_s", dirty_rate_bytes_per_s)
    sto = v.check_range("storage_bps", storage_bps, 0.0, math.inf, lo_open=True)
    v.broadcast(disk_bytes=disk, memory_bytes=mem, dirty_rate_bytes_per_s=d, ft_link_bps=ft_link_bps,
                ft_ack_rtt_s=ft_ack_rtt_s, ft_link_loss=ft_link_loss, n_ft_vms=n_ft_vms, storage_bps=sto)
    rate = ft_link_goodput_bps(ft_link_bps, ft_ack_rtt_s, ft_link_loss, n_ft_vms) / 8.0  # bytes/s
    ratio = np.minimum(d / rate, 0.9)
    return disk / np.minimum(rate, sto / 8.0) + mem / rate / (1.0 - ratio)


def failover_time_s(detection_s, checkpoint_interval_s, ft_link_bps=DEFAULT_FT_LINK_BPS, *,
                    dirty_rate_bytes_per_s=0.0, arp_s=0.0, **cycle_kw):
    """Time from a primary-host failure until the secondary serves the VM's clients.

    Seed "Transparent Failover" / "Network": the secondary goes live from the last acknowledged
    checkpoint once the failure is detected (``detection_s``, the FT heartbeat timeout: not printed,
    an input), re-executes the work of the uncommitted epoch (on average half a checkpoint cycle:
    clients saw none of its output), and announces the VM's MAC with a gratuitous ARP (``arp_s``).

    Parameters
    ----------
    detection_s : float or array_like
        Failure detection time, >= 0.
    checkpoint_interval_s, ft_link_bps, dirty_rate_bytes_per_s, **cycle_kw
        As in :func:`checkpoint_cycle`.
    arp_s : float
        Gratuitous ARP propagation, >= 0.

    Returns
    -------
    ndarray
        Seconds.

    References
    ----------
    .. [1] B. Cully, G. Lefebvre, D. Meyer, M. Feeley, N. Hutchinson, A. Warfield, "Remus: High
       Availability via Asynchronous Virtual Machine Replication", NSDI 2008 (checkpoint replication
       with output commit).
    .. [2] VMware, Inc., "VMware vSphere 6 Fault Tolerance: Architecture and Performance", technical
       white paper, 2016, https://communities.vmware.com/docs/DOC-30054.

    Examples
    --------
    >>> from vcperf import ft
    >>> round(float(ft.failover_time_s(1.0, 5e-3)), 4)  # 1 s detection, 5 ms epoch
    1.0025
    """
    det = v.nonneg("detection_s", detection_s)
    arp = v.nonneg("arp_s", arp_s)
    cyc = checkpoint_cycle(dirty_rate_bytes_per_s, checkpoint_interval_s, ft_link_bps, **cycle_kw)
    v.broadcast(detection_s=det, arp_s=arp, dirty_rate_bytes_per_s=dirty_rate_bytes_per_s,
                checkpoint_interval_s=checkpoint_interval_s, ft_link_bps=ft_link_bps, **cycle_kw)
    return det + cyc.epoch_wall_s / 2.0 + arp
