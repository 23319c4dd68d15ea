"""The FT checkpoint cycle: stun, run fraction, output commit and FT logging traffic.

Seed ``002_1123405df89c1006.txt`` ("vSphere FT Architecture", "Runtime State", "Transparent
Failover"; VMware KB 406486 on FT network latency): the primary runs for one *epoch* (the
checkpoint interval ``E``); then it is **stunned** while the pages it dirtied during the epoch (plus
vCPU and device state) are shipped over the FT logging link to the secondary, and resumes when the
secondary acknowledges. Network output produced during the epoch is **held** until that
acknowledgement (output commit). Per epoch of run time ``E``::

    dirty bytes       B = min(d E, working_set)          d: bytes dirtied per second of run time
    stun              S = stun_fixed + 8 B / (L eff) + ack_rtt
    run fraction      phi = E / (E + S)                  CPU-bound work slows by 1 / phi
    output delay      Delta = E / 2 + S                  a packet waits for the rest of its epoch
                                                          and for the checkpoint + acknowledgement
    FT logging rate   8 B / eff / (E + S)  <=  L           (bits on the wire, never above the link)

``L`` is the FT logging link rate and ``eff`` the TCP payload share of an Ethernet line rate,
:data:`vcperf.network.TCP_PAYLOAD_FRACTION`. Received network data dirties guest memory several
times (logged packet, vNIC receive ring, socket buffer), so receive-heavy loads load the FT link
and transmit-heavy loads do not (Figures 3-4).

Pure functions of physical inputs: the checkpoint interval is always an argument (the study's
calibrated value is ``vcperf.ft.calibrate().checkpoint_interval_s``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from vcperf import _validate as v
from vcperf.network import TCP_PAYLOAD_FRACTION

#: FT logging link rate: VMware requires/recommends a dedicated 10 GbE FT logging network for
#: multi-vCPU FT in vSphere 6 (Performance Best Practices for vSphere 6.0, reference [1] of the seed).
DEFAULT_FT_LINK_BPS = 10e9
#: Round trip of the secondary's acknowledgement over the dedicated 10 GbE FT link (assumed: the
#: seed does not print it; tens of microseconds host-to-host through one switch).
DEFAULT_FT_ACK_RTT_S = 50e-6
#: Fixed part of the per-epoch stun besides shipping and the acknowledgement (vCPU/device state
#: capture). Not identifiable from the seed's numbers, so 0 by default; a what-if knob.
DEFAULT_STUN_FIXED_S = 0.0
#: Bytes put on the FT link per received byte: the received packet is logged to the secondary,
#: DMA'd into the guest's vNIC receive ring, and copied into the socket/application buffer; the two
#: guest writes dirty memory that the next checkpoint ships.
DEFAULT_LOGGED_BYTES_PER_RECEIVED_BYTE = 3.0


@dataclass(frozen=True, eq=False)
class CheckpointCycle:
    """One FT epoch (all fields broadcast arrays).

    Attributes
    ----------
    dirty_bytes_per_epoch : ndarray
        Bytes shipped per checkpoint.
    transfer_s : ndarray
        Time to ship them over the FT link.
    stun_s : ndarray
        Time the primary is paused per epoch (fixed part + transfer + acknowledgement).
    epoch_wall_s : ndarray
        Run time plus stun, seconds.
    run_fraction : ndarray
        ``E / (E + S)``: share of wall time the primary's vCPUs run.
    output_commit_delay_s : ndarray
        Mean time a network packet is held: ``E / 2 + S``.
    logging_bandwidth_bps : ndarray
        Mean bit rate on the FT logging link (wire bits, headers included), <= link rate.
    """

    dirty_bytes_per_epoch: np.ndarray
    transfer_s: np.ndarray
    stun_s: np.ndarray
    epoch_wall_s: np.ndarray
    run_fraction: np.ndarray
    output_commit_delay_s: np.ndarray
    logging_bandwidth_bps: np.ndarray


def checkpoint_cycle(
    dirty_rate_bytes_per_s,
    checkpoint_interval_s,
    ft_link_bps=DEFAULT_FT_LINK_BPS,
    *,
    ft_ack_rtt_s=DEFAULT_FT_ACK_RTT_S,
    stun_fixed_s=DEFAULT_STUN_FIXED_S,
    working_set_bytes=math.inf,
) -> CheckpointCycle:
    """Epoch, stun, run fraction, output-commit delay and FT traffic of a checkpointed VM.

    Seed ``002_1123405df89c1006.txt``, "Runtime State" and "Transparent Failover": memory and
    execution state are shipped continuously and network output is held until the secondary
    acknowledges. See the module docstring for the equations.

    Parameters
    ----------
    dirty_rate_bytes_per_s : float or array_like
        Bytes the guest dirties per second of run time (received network data counts with
        :data:`DEFAULT_LOGGED_BYTES_PER_RECEIVED_BYTE`), >= 0.
    checkpoint_interval_s : float or array_like
        Run time between checkpoints ``E`` (> 0). The study's value is calibrated to Figure 5
        (``vcperf.ft.calibrate()``); vSphere adapts it dynamically (``ftcpt.cptIntervalUS``, KB 406486).
    ft_link_bps : float or array_like
        FT logging link rate (default 10 GbE, the vSphere 6 recommendation).
    ft_ack_rtt_s : float or array_like
        Acknowledgement round trip over the FT link (default 50 us, assumed).
    stun_fixed_s : float or array_like
        Fixed stun per epoch besides shipping (default 0).
    working_set_bytes : float or array_like
        Pages rewritten within one epoch ship once: the dirty bytes per epoch are capped here
        (default: no cap). Rounding to whole 4 KiB pages is ignored (sub-percent at these rates).

    Returns
    -------
    CheckpointCycle
    """
    d = v.nonneg("dirty_rate_bytes_per_s", dirty_rate_bytes_per_s)
    e = v.positive("checkpoint_interval_s", checkpoint_interval_s)
    link = v.positive("ft_link_bps", ft_link_bps)
    rtt = v.nonneg("ft_ack_rtt_s", ft_ack_rtt_s)
    fixed = v.nonneg("stun_fixed_s", stun_fixed_s)
    wss = v.check_range("working_set_bytes", working_set_bytes, 0.0, math.inf, lo_open=True)
    b = np.minimum(d * e, wss)
    transfer = 8.0 * b / (link * TCP_PAYLOAD_FRACTION)
    stun = fixed + transfer + rtt
    wall = e + stun
    return CheckpointCycle(
        dirty_bytes_per_epoch=b,
        transfer_s=transfer,
        stun_s=stun,
        epoch_wall_s=wall,
        run_fraction=e / wall,
        output_commit_delay_s=e / 2.0 + stun,
        logging_bandwidth_bps=8.0 * b / TCP_PAYLOAD_FRACTION / wall,
    )


def ft_logging_bandwidth_bps(
    receive_rate_bps,
    dirty_rate_bytes_per_s,
    checkpoint_interval_s,
    ft_link_bps=DEFAULT_FT_LINK_BPS,
    *,
    logged_bytes_per_received_byte=DEFAULT_LOGGED_BYTES_PER_RECEIVED_BYTE,
    **cycle_kw,
):
    """Mean FT logging traffic (bit/s on the wire) of a VM that receives and dirties memory.

    Figures 3-4 of ``002_1123405df89c1006.txt``: received data must reach the secondary (logged
    packet + dirtied receive buffers), so receive-heavy loads load the FT link; transmitted data is
    read from guest memory and dirties nothing, so transmit-heavy loads do not.

    Parameters
    ----------
    receive_rate_bps : float or array_like
        Network data the guest receives per second of run time (bit/s), >= 0.
    dirty_rate_bytes_per_s : float or array_like
        Other memory dirtied per second of run time (bytes/s), >= 0.
    checkpoint_interval_s, ft_link_bps, **cycle_kw
        As in :func:`checkpoint_cycle`.
    logged_bytes_per_received_byte : float
        FT link bytes per received byte (default 3: logged packet, receive ring, socket buffer).

    Returns
    -------
    ndarray
        Bit rate on the FT link; always below ``ft_link_bps`` (the primary is stunned while it ships).
    """
    r = v.nonneg("receive_rate_bps", receive_rate_bps)
    d = v.nonneg("dirty_rate_bytes_per_s", dirty_rate_bytes_per_s)
    c = v.nonneg("logged_bytes_per_received_byte", logged_bytes_per_received_byte)
    cyc = checkpoint_cycle(d + c * r / 8.0, checkpoint_interval_s, ft_link_bps, **cycle_kw)
    return cyc.logging_bandwidth_bps


def output_commit_delay_s(dirty_rate_bytes_per_s, checkpoint_interval_s, ft_link_bps=DEFAULT_FT_LINK_BPS,
                          **cycle_kw):
    """Mean extra latency of one outbound packet under FT: ``E / 2 + stun`` (Figure 5).

    The packet waits for the rest of its epoch (``E / 2`` on average), the checkpoint transfer and
    the secondary's acknowledgement. Parameters as in :func:`checkpoint_cycle`.
    """
    return checkpoint_cycle(dirty_rate_bytes_per_s, checkpoint_interval_s, ft_link_bps,
                            **cycle_kw).output_commit_delay_s


def run_fraction_at(throughput_per_s, dirty_bytes_per_op, background_dirty_rate_bytes_per_s,
                    checkpoint_interval_s, ft_link_bps=DEFAULT_FT_LINK_BPS, *,
                    working_set_bytes=math.inf, ft_ack_rtt_s=DEFAULT_FT_ACK_RTT_S,
                    stun_fixed_s=DEFAULT_STUN_FIXED_S):
    """Run fraction of a VM completing ``throughput_per_s`` operations per wall second.

    The memory dirtied per second of *run* time is ``bg + X m / phi``; solving
    ``phi = E / (E + S)`` with :func:`checkpoint_cycle`'s stun gives, without a working-set cap,
    ``phi = E (1 - 8 X m / (L eff)) / (E + stun_fixed + ack_rtt + 8 bg E / (L eff))``: the VM is
    stunned exactly while the link ships the operations' memory. With the cap, the stun is fixed.
    Clipped at 1e-6 when the link cannot keep up (the primary is throttled).
    """
    x = v.nonneg("throughput_per_s", throughput_per_s)
    m = v.nonneg("dirty_bytes_per_op", dirty_bytes_per_op)
    bg = v.nonneg("background_dirty_rate_bytes_per_s", background_dirty_rate_bytes_per_s)
    e = v.positive("checkpoint_interval_s", checkpoint_interval_s)
    link = v.positive("ft_link_bps", ft_link_bps)
    fixed = v.nonneg("stun_fixed_s", stun_fixed_s) + v.nonneg("ft_ack_rtt_s", ft_ack_rtt_s)
    wss = v.check_range("working_set_bytes", working_set_bytes, 0.0, math.inf, lo_open=True)
    return _run_fraction(x, m, bg, e, link, fixed, wss)


def _run_fraction(x, m, bg, e, link, fixed, wss):
    """:func:`run_fraction_at` without input checks (for inner loops; ``fixed`` = stun_fixed + ack_rtt)."""
    a = 8.0 / (link * TCP_PAYLOAD_FRACTION)
    phi_free = e * (1.0 - x * m * a) / (e + fixed + bg * e * a)
    phi_cap = e / (e + fixed + wss * a)
    with np.errstate(divide="ignore", invalid="ignore"):
        capped = np.isfinite(wss) & ((bg + x * m / phi_cap) * e >= wss)
    return np.maximum(np.where(capped, phi_cap, phi_free), 1e-6)


def _commit_delay(d, e, link, fixed, wss):
    """Output-commit delay of :func:`checkpoint_cycle` without input checks (``fixed`` = stun_fixed + ack_rtt)."""
    b = np.minimum(d * e, wss)
    return e / 2.0 + fixed + 8.0 * b / (link * TCP_PAYLOAD_FRACTION)


def activity_time_s(duration_off_s, dirty_rate_bytes_per_s, exchanges, checkpoint_interval_s,
                    ft_link_bps=DEFAULT_FT_LINK_BPS, **cycle_kw):
    """Duration under FT of one activity that takes ``duration_off_s`` without FT.

    The activity runs only while the VM is not stunned (``/ run_fraction``) and each of its
    ``exchanges`` client-visible network exchanges waits one output commit. Used for the kernel
    compile (Figure 2, no network), Web Client browsing (Figure 13) and vCenter restart (Figure 14).

    Parameters
    ----------
    duration_off_s : float or array_like
        Duration without FT, >= 0.
    dirty_rate_bytes_per_s : float or array_like
        Memory dirtied per second of run time, >= 0.
    exchanges : float or array_like
        Serial network exchanges, >= 0.
    checkpoint_interval_s, ft_link_bps, **cycle_kw
        As in :func:`checkpoint_cycle`.
    """
    t0 = v.nonneg("duration_off_s", duration_off_s)
    k = v.nonneg("exchanges", exchanges)
    cyc = checkpoint_cycle(dirty_rate_bytes_per_s, checkpoint_interval_s, ft_link_bps, **cycle_kw)
    return t0 / cyc.run_fraction + k * cyc.output_commit_delay_s


def kernel_compile_overhead_fraction(dirty_rate_bytes_per_s, checkpoint_interval_s,
                                     ft_link_bps=DEFAULT_FT_LINK_BPS, **cycle_kw):
    """Relative increase of a CPU-bound job's run time under FT: ``1 / run_fraction - 1`` (Figure 2).

    The kernel compile generates no network traffic, so only the stun counts. The seed gives the
    increase in seconds (about 7 s) but not the FT-off compile time, so the model's fraction and
    that number together imply a baseline (``vcperf.ft.implied_kernel_compile_baseline_s``).
    Parameters as in :func:`checkpoint_cycle`.
    """
    cyc = checkpoint_cycle(dirty_rate_bytes_per_s, checkpoint_interval_s, ft_link_bps, **cycle_kw)
    return 1.0 / cyc.run_fraction - 1.0
