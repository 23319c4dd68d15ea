"""FT VMs of different loads on one logging link: max-min water filling, work-conserving sharing.

Seed ``002_1123405df89c1006.txt`` measures one FT VM per logging link; several VMs on one host's FT NIC
share it (``vcperf.ft.checkpoint``'s module docstring): each VM's demand is the logging rate it would
have alone on the link, the link is divided by max-min water filling of those demands
(:func:`max_min_shares_bps`), and a VM's checkpoints ship at what the others' shares leave
(:func:`share_ft_link`). A VM going idle never slows another. Pure functions of physical inputs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from vcperf import _validate as v
from vcperf.ft.checkpoint import (
    DEFAULT_FT_ACK_RTT_S,
    DEFAULT_FT_LINK_BPS,
    DEFAULT_RELEASE,
    DEFAULT_STUN_FIXED_S,
    MAX_CHECKPOINT_INTERVAL_S,
    VCPU_STATE_BYTES,
    CheckpointCycle,
    check_vcpus,
    checked_cycle,
    checked_cycle_demand,
    checked_link_goodput_bps,
    checked_share_goodput_bps,
    limit_flags,
)
from vcperf.network import payload_rate_bps


def max_min_shares_bps(demands_bps, capacity_bps):
    """Max-min fair (water-filling) division of a link among flows of given demands (bit/s).

    Every flow that wants less than the water level gets its demand; the others get the level, set so
    that the shares fill the capacity (or every demand is met). Work-conserving: capacity one flow
    leaves goes to the others; a flow's share never falls when another's demand falls.

    Parameters
    ----------
    demands_bps : array_like
        Demand of each flow, bit/s, >= 0 (last axis: the flows).
    capacity_bps : float or array_like
        Capacity of the link, bit/s, >= 0 (broadcast against the leading axes).

    Returns
    -------
    numpy.ndarray
        Each flow's share, bit/s: ``<= demand``, summing to ``min(capacity, sum of demands)``.

    References
    ----------
    .. [1] D. Bertsekas, R. Gallager, "Data Networks", 2nd ed., Prentice Hall, 1992, section 6.5.2
       (max-min fairness, the water-filling algorithm).

    Examples
    --------
    >>> from vcperf import ft
    >>> [float(x) for x in ft.max_min_shares_bps([1.0, 5.0, 8.0], 10.0)]
    [1.0, 4.5, 4.5]
    """
    d = np.asarray(v.nonneg("demands_bps", demands_bps), dtype=float)
    if d.ndim == 0 or d.shape[-1] == 0:
        raise ValueError(f"demands_bps must hold at least one flow's demand (last axis); got shape {d.shape}")
    cap = np.asarray(v.nonneg("capacity_bps", capacity_bps), dtype=float)
    return _water_fill(d, cap)


def _water_fill(d, cap):
    """:func:`max_min_shares_bps` of validated inputs."""
    d = np.asarray(d, dtype=float)
    cap = np.asarray(cap, dtype=float)[..., None]
    k = d.shape[-1]
    srt = np.sort(d, axis=-1)
    before = np.concatenate([np.zeros(srt.shape[:-1] + (1,)), np.cumsum(srt, axis=-1)[..., :-1]], axis=-1)
    # level if the i smallest demands are met and the rest share what is left equally
    levels = (cap - before) / (k - np.arange(k))
    met = srt <= levels  # the i-th smallest is met at the level the smaller ones leave
    ok = np.cumprod(met, axis=-1).astype(bool)
    n_met = ok.sum(axis=-1, keepdims=True)
    level = np.where(n_met == k, np.inf,
                     np.take_along_axis(levels, np.minimum(n_met, k - 1), axis=-1))
    return np.minimum(d, level)


@dataclass(frozen=True, eq=False)
class FtLinkShare:
    """FT VMs of different loads on one logging link (:func:`share_ft_link`); arrays over the VMs.

    Attributes
    ----------
    demand_bps : ndarray
        Each VM's logging payload rate alone on the link, bit/s (what it asks of the link).
    share_bps : ndarray
        Its max-min fair share of the link's payload capacity (:func:`max_min_shares_bps`), bit/s.
    available_bps : ndarray
        The payload rate its checkpoints ship at: the capacity minus the others' shares, bit/s.
    cycle : CheckpointCycle
        Each VM's checkpoint cycle at its available rate (run fraction, stun, logging bandwidth).
    link_utilization : float
        Mean wire bit rate of all the VMs' logging over the link rate, in [0, 1].
    flags : tuple of str
        Inputs beyond VMware's documented FT limits (:func:`limit_flags` for the VMs together).
    """

    demand_bps: np.ndarray
    share_bps: np.ndarray
    available_bps: np.ndarray
    cycle: CheckpointCycle
    link_utilization: float
    flags: tuple = ()


def share_ft_link(dirty_rates_bytes_per_s, checkpoint_interval_s, ft_link_bps=DEFAULT_FT_LINK_BPS, *, vcpus=1,
                  ft_ack_rtt_s=DEFAULT_FT_ACK_RTT_S, stun_fixed_s=DEFAULT_STUN_FIXED_S, working_set_bytes=math.inf,
                  ft_link_loss=0.0, release=DEFAULT_RELEASE) -> FtLinkShare:
    """Several FT VMs on one logging link, shared work-conservingly (module docstring).

    Each VM's demand is its logging rate alone on the link; the link's payload capacity is divided by
    max-min water filling of the demands; each VM's checkpoints ship at what the others' shares
    leave. A VM going idle never slows another; when every VM wants more than ``L / n`` each ships at
    ``L / n`` (:func:`ft_link_goodput_bps` with ``n_ft_vms = n``).

    Parameters
    ----------
    dirty_rates_bytes_per_s : array_like
        Bytes each VM dirties per second of run time (one per VM, network I/O counted as in
        :func:`checkpoint_cycle`), >= 0; at least one VM.
    checkpoint_interval_s : float
        The checkpoint timer ``E``, s, > 0 (the study's: ``vcperf.ft.calibrate().checkpoint_interval_s``).
    ft_link_bps : float
        The shared FT logging link, bit/s, > 0.
    vcpus : int or array_like of int
        vCPUs of each VM (one value for all, or one per VM).
    ft_ack_rtt_s, stun_fixed_s, working_set_bytes, ft_link_loss, release
        As in :func:`checkpoint_cycle` (scalars).

    Returns
    -------
    FtLinkShare

    Examples
    --------
    >>> from vcperf import ft
    >>> busy = ft.share_ft_link([1e8, 1e8, 1e8, 1e8], 5e-3)
    >>> idle = ft.share_ft_link([1e8, 0.0, 0.0, 0.0], 5e-3)
    >>> bool(idle.cycle.run_fraction[0] >= busy.cycle.run_fraction[0]), round(busy.link_utilization, 2)
    (True, 0.31)
    """
    d = np.asarray(v.nonneg("dirty_rates_bytes_per_s", dirty_rates_bytes_per_s), dtype=float)
    if d.ndim != 1 or d.size == 0:
        raise ValueError(f"dirty_rates_bytes_per_s must be a 1-D sequence of at least one VM's rate; got shape "
                         f"{d.shape}")
    e = float(v.scalar("checkpoint_interval_s", checkpoint_interval_s, 0.0, MAX_CHECKPOINT_INTERVAL_S, lo_open=True))
    link = v.scalar("ft_link_bps", ft_link_bps, 0.0, math.inf, lo_open=True, hi_open=True)
    rtt = v.scalar("ft_ack_rtt_s", ft_ack_rtt_s, 0.0, math.inf, hi_open=True)
    loss = v.scalar("ft_link_loss", ft_link_loss, 0.0, 1.0, hi_open=True)
    wss = v.scalar("working_set_bytes", working_set_bytes, 0.0, math.inf, lo_open=True)
    base = v.scalar("stun_fixed_s", stun_fixed_s, 0.0, math.inf, hi_open=True) + rtt
    v.broadcast(dirty_rates_bytes_per_s=d, vcpus=vcpus)
    c = check_vcpus(vcpus, release) * np.ones(d.shape)
    flags = limit_flags(link, float(c.mean()), float(d.size), release)
    state = c * VCPU_STATE_BYTES
    alone = checked_link_goodput_bps(link, rtt, loss, 1.0)
    demand = checked_cycle_demand(d, e, wss, state)(alone, base + 8.0 * state / alone)
    cap = float(payload_rate_bps(link))
    share = _water_fill(demand, cap)
    available = share + max(cap - float(share.sum()), 0.0)  # = cap - the others' shares, never below its own
    rate = checked_share_goodput_bps(available, rtt, loss)
    cycle = checked_cycle(d, e, wss, rate, base + 8.0 * state / rate, state, flags)
    return FtLinkShare(demand_bps=demand, share_bps=share, available_bps=available, cycle=cycle,
                       link_utilization=float(cycle.logging_bandwidth_bps.sum() / link), flags=flags)
