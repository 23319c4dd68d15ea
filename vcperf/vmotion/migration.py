"""One migration of a running VM: trace phase, pre-copy, switch-over and the guest's throughput.

``004_ea13268657e6b3b0.txt``, Figures 5-10 and Table 1.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from vcperf import _validate as v
from vcperf.vmotion.core import Settings, check_le, check_params, check_release, check_settings
from vcperf.vmotion.limits import LIMITS_TABLE, LimitFlag
from vcperf.vmotion.memory import MIN_LINK_BPS, PrecopyResult, precopy
from vcperf.vmotion.params import Params
from vcperf.vmotion.switchover import checked_checkpoint_s, checked_post_phase
from vcperf.vmotion.trace import checked_trace_phase

#: Most samples :func:`throughput_series` returns (two float64 series of this length: 160 MiB).
MAX_SERIES_SAMPLES = 10_000_000
#: Keywords of :func:`vcperf.vmotion.precopy` that take arrays (checked against the other arrays' shapes).
_ARRAY_PRECOPY_KW = ("swapped_bytes", "zero_bytes", "n_vmknics", "streams_per_vmknic", "rtt_s",
                     "encryption_cpu_s_per_byte", "zeroing_cpu_s_per_byte", "concurrent", "n_nics", "loss")


@dataclass(frozen=True)
class Migration:
    """One migration of a running VM (arrays): phases, times, losses, average throughput.

    ``round0_loss`` and ``resend_loss``: the guest's loss in pre-copy round 0 (tracing only) and in the
    re-send rounds (tracing and SDPS), whose time-weighted mean is ``precopy_loss``.
    ``sdps_throttle_fraction`` and ``throttled_s``: how hard and how long stun-during-page-send slows
    the guest (:attr:`PrecopyResult.sdps_throttle_fraction`, :attr:`PrecopyResult.throttled_s`):
    a migration whose guest dirties memory faster than the link sends it converges only by stunning
    the vCPUs, and this is what the guest pays for it (0 and 0 s when SDPS is not engaged).
    """

    release: str
    trace_time_s: np.ndarray
    trace_loss: np.ndarray
    precopy_time_s: np.ndarray
    precopy_loss: np.ndarray
    switchover_time_s: np.ndarray
    post_switchover_time_s: np.ndarray
    post_switchover_loss: np.ndarray
    migration_time_s: np.ndarray
    average_loss: np.ndarray
    average_throughput_tps: np.ndarray
    baseline_tps: np.ndarray
    precopy: PrecopyResult
    round0_loss: np.ndarray = 0.0
    resend_loss: np.ndarray = 0.0

    @property
    def sdps_throttle_fraction(self) -> np.ndarray:
        """Share of the guest's pace SDPS takes away while it throttles
        (:attr:`PrecopyResult.sdps_throttle_fraction`)."""
        return self.precopy.sdps_throttle_fraction

    @property
    def throttled_s(self) -> np.ndarray:
        """How long SDPS throttles the guest, s (:attr:`PrecopyResult.throttled_s`)."""
        return self.precopy.throttled_s

    @property
    def flags(self) -> tuple:
        """Inputs beyond VMware's documented limits or the calibrated ranges (:attr:`PrecopyResult.flags`)."""
        return self.precopy.flags


def migrate(memory_bytes, vcpus, working_set_bytes, baseline_tps, release, link_bps, *,
            params: Params, settings: Settings, **precopy_kw) -> Migration:
    """A full migration: trace phase, pre-copy, switch-over, and the guest's throughput through it.

    ``004_ea13268657e6b3b0.txt``, Figures 5-10 and Table 1.

    The guest loses ``trace_loss`` of its throughput during the trace phase, ``precopy_loss`` during
    the pre-copy (trace fires and re-installs, plus SDPS throttling if engaged) and all of it during
    the switch-over stall. After it, 6.7 rebuilds the large pages of the remote pages in a degraded
    phase (``post_switchover_time_s``, ``post_switchover_loss``:
    :func:`vcperf.vmotion.post_switchover_phase`), outside the migration's averages. ``average_loss``
    is the time-weighted mean over the migration, the paper's "average throughput loss during vMotion"
    (Figure 8) and what Figures 9-10 compare.

    Release order. 7.0 U1's guest never loses more work (``average_loss x migration_time_s``) than on
    6.7 (checked over 4 GiB - 6 TiB, 1 - 768 vCPUs, 1 MB/s - 8 GB/s of dirtying, 1 - 400 Gbit/s and
    working sets of 1 - 100 % in ``tests/test_vmotion.py``). Three mechanisms reverse single readouts
    at some inputs, all from one cause: 7.0 U1 slows its guest less. (1) The average loss of a nearly
    idle VM can be higher on 7.0 U1 because its migration is shorter (no stop-based trace phase, no
    destination zeroing), so the same switch-over stall weighs more in the average. (2) The
    switch-over of a small, busy VM can be longer on 7.0 U1 because its guest, slowed less by
    tracing, dirties memory faster, so more is left at the last boundary: up to 1.9x on that grid
    (4 GiB, 768 vCPUs, 8 GB/s, 150 Gbit/s), below 2x. (3) For the same reason such a VM's migration can
    be a few percent longer on 7.0 U1 (more is re-sent): at most 4 % on that grid, below 5 %.

    Parameters
    ----------
    memory_bytes : float or array_like
        Guest memory (bytes), > 0.
    vcpus : float or array_like
        vCPUs, in [1, 4096].
    working_set_bytes : float or array_like
        Writable working set (bytes), in [0, memory_bytes] (Oracle: the SGA, Table 1).
    baseline_tps : float or array_like
        Guest throughput before vMotion (transactions/s), >= 0 (0: an idle VM); with
        ``params.dirty_bytes_per_transaction`` it sets the dirty rate.
    release : {"6.7", "7.0u1"}
    link_bps : float or array_like
        Aggregate vMotion line rate (bit/s), > 0 (testbed: :func:`vcperf.vmotion.testbed_link_bps`).
    params : Params
        :func:`vcperf.vmotion.calibrate`.
    settings : Settings
        :func:`vcperf.vmotion.settings`.
    **precopy_kw
        Passed to :func:`precopy` (``max_rounds``, ``sdps``, ``sdps_fraction``, ``swapped_bytes``,
        ``zero_bytes``: never-touched memory, not sent; ``zeroing_cpu_s_per_byte``, ...).

    Examples
    --------
    >>> from vcperf import vmotion as vm
    >>> p, s = vm.calibrate(), vm.settings()
    >>> a = vm.migrate(64 * 2**30, 12, 25 * 2**30, 4500.0, "6.7", 160e9, params=p, settings=s, n_vmknics=4)
    >>> b = vm.migrate(64 * 2**30, 12, 25 * 2**30, 4500.0, "7.0u1", 160e9, params=p, settings=s, n_vmknics=4)
    >>> bool(b.migration_time_s < a.migration_time_s), bool(b.average_loss < a.average_loss)
    (True, True)

    References
    ----------
    C. Clark, K. Fraser, S. Hand, J. G. Hansen, E. Jul, C. Limpach, I. Pratt and A. Warfield, "Live
    Migration of Virtual Machines", NSDI 2005 (iterative pre-copy, stop-and-copy).
    """
    mem = v.positive("memory_bytes", memory_bytes)
    cpus = v.check_range("vcpus", vcpus, 1, 4096)
    ws = v.nonneg("working_set_bytes", working_set_bytes)
    x0 = v.count("baseline_tps", baseline_tps)
    v.broadcast(memory_bytes=mem, vcpus=cpus, working_set_bytes=ws, baseline_tps=x0, link_bps=link_bps,
                **{k: x for k, x in precopy_kw.items() if k in _ARRAY_PRECOPY_KW})
    check_release(release)
    p = check_params(params)
    s = check_settings(settings)
    check_le("working_set_bytes", ws, mem)
    d0 = x0 * p.dirty_bytes_per_transaction
    pc = precopy(mem, d0, link_bps, ws, cpus, release, params=p, settings=s, **precopy_kw)
    tr = checked_trace_phase(mem, cpus, release, p, s)
    # The guest runs at the pace of the dirty rate in effect: tracing slowdown, then SDPS if engaged.
    pc_loss = precopy_guest_loss(d0, pc)
    post_t, post_loss = checked_post_phase(pc.switchover_bytes, np.broadcast_to(ws, pc.switchover_bytes.shape), cpus,
                                    release, p, s)
    total = tr.duration_s + pc.precopy_time_s + pc.switchover_time_s
    with np.errstate(invalid="ignore"):
        lost = tr.throughput_loss * tr.duration_s + pc_loss * pc.precopy_time_s + pc.switchover_time_s
        # a migration that never converges (SDPS off, guest dirtying as fast as the link sends) runs its
        # pre-copy forever: its average loss is the pre-copy's, the limit of lost / total
        avg_loss = np.where(np.isfinite(total), lost / np.where(np.isfinite(total), total, 1.0), pc_loss)
    return Migration(
        release=release,
        trace_time_s=tr.duration_s,
        trace_loss=tr.throughput_loss,
        precopy_time_s=pc.precopy_time_s,
        precopy_loss=pc_loss,
        switchover_time_s=pc.switchover_time_s,
        post_switchover_time_s=post_t,
        post_switchover_loss=post_loss,
        migration_time_s=total,
        average_loss=avg_loss,
        average_throughput_tps=x0 * (1.0 - avg_loss),
        baseline_tps=np.broadcast_to(x0, np.shape(total)) * 1.0,
        precopy=pc,
        round0_loss=_pace_loss(d0, pc.round0_dirty_rate_bytes_per_s),
        resend_loss=_pace_loss(d0, pc.dirty_rate_bytes_per_s),
    )


def _pace_loss(d0, d):
    """Share of the guest's throughput lost when it dirties at ``d`` instead of its undisturbed ``d0`` (0: idle)."""
    d0 = np.broadcast_to(d0, np.shape(d))
    return np.clip(np.where(d0 > 0, 1.0 - d / np.where(d0 > 0, d0, 1.0), 0.0), 0.0, 1.0)


def precopy_guest_loss(dirty_rate_bytes_per_s, pc: PrecopyResult):
    """Guest throughput loss over the pre-copy (fraction): the guest runs at the pace of its dirty rate.

    Round 0 at the traced guest's pace (trace fires and re-installs); re-send rounds also under
    SDPS when engaged. Time-weighted over the rounds of ``pc``.
    """
    d0 = v.nonneg("dirty_rate_bytes_per_s", dirty_rate_bytes_per_s)
    v.instance("pc", pc, PrecopyResult, "a vcperf.vmotion.PrecopyResult (from vcperf.vmotion.precopy)")
    shape = np.shape(pc.dirty_rate_bytes_per_s)
    try:
        d0 = np.broadcast_to(d0, shape)
    except ValueError:
        raise ValueError(f"dirty_rate_bytes_per_s (shape {d0.shape}) must broadcast to the shape {shape} of "
                         f"pc") from None
    safe = np.where(d0 > 0, d0, 1.0)
    loss0 = np.where(d0 > 0, 1.0 - pc.round0_dirty_rate_bytes_per_s / safe, 0.0)
    loss_k = np.where(d0 > 0, 1.0 - pc.dirty_rate_bytes_per_s / safe, 0.0)
    finite = np.isfinite(pc.precopy_time_s)
    t_pre = np.where(finite, pc.precopy_time_s, 1.0)
    t_k = np.where(finite, pc.precopy_time_s - pc.round0_time_s, 0.0)
    # a pre-copy that never ends (not converged, SDPS off) is all re-send rounds in the limit
    return np.clip(np.where(finite, (loss0 * pc.round0_time_s + loss_k * t_k) / t_pre, loss_k), 0.0, 1.0)


def throughput_series(m: Migration, sample_s, start_s, end_s):
    """Guest throughput (tps) averaged over samples of ``sample_s``, as a probe script reports it.

    ``004_ea13268657e6b3b0.txt``, Figures 5-8 (1-s samples) and Figure 10 (0.5-s samples).

    The migration (a scalar :class:`Migration`) starts at ``start_s``; before it and after it the
    guest runs at its baseline. Returns ``(t_s, tps)`` with ``t_s`` the end of each sample.

    Parameters
    ----------
    m : Migration
        A scalar migration (from :func:`migrate` or :func:`vcperf.vmotion.migrate_workload`).
    sample_s : float
        Sampling interval (s), > 0 (Figure 5: 1 s; Figure 10: 0.5 s).
    start_s : float
        Start of the migration on the time axis (s), >= 0.
    end_s : float
        End of the time axis (s), > 0, at least one sample.

    Examples
    --------
    >>> from vcperf import vmotion as vm
    >>> t, tps = vm.throughput_series(vm.migrate_workload("typical", "6.7"), 1.0, 5.0, 60.0)
    >>> len(t), float(tps[0])  # the baseline (270,000 TPM) before the migration starts
    (60, 4500.0)
    >>> bool(tps.min() < 4500.0)
    True
    """
    dt = v.scalar("sample_s", sample_s, 0.0, math.inf, lo_open=True, hi_open=True)
    t0 = v.scalar("start_s", start_s, 0.0, math.inf, hi_open=True)
    t_end = v.scalar("end_s", end_s, 0.0, math.inf, lo_open=True, hi_open=True)
    if t_end / dt > MAX_SERIES_SAMPLES:
        raise ValueError(f"end_s / sample_s must be at most {MAX_SERIES_SAMPLES:,} samples (~"
                         f"{2 * 8 * MAX_SERIES_SAMPLES / 2**20:.0f} MiB of series); got end_s={t_end:g}, "
                         f"sample_s={dt:g} ({t_end / dt:.3g} samples)")
    if t_end < dt:
        raise ValueError(f"end_s must be in [sample_s={dt:g}, inf); got {t_end:g}")
    if not isinstance(m, Migration):
        raise ValueError(f"m must be a Migration; got {type(m).__name__}")
    if np.size(m.migration_time_s) != 1:
        raise ValueError(f"m must be a scalar migration; got shape {np.shape(m.migration_time_s)}")
    x0 = float(m.baseline_tps)
    end = t0 + float(m.migration_time_s)
    pre = t0 + float(m.trace_time_s)
    # round 0 (tracing slowdown), then the re-send rounds (tracing and SDPS, if it throttles)
    r0 = min(float(m.precopy.round0_time_s), float(m.precopy_time_s))
    edges = np.array([0.0, t0, pre, pre + r0, pre + float(m.precopy_time_s), end,
                      end + float(m.post_switchover_time_s), math.inf])
    rates = x0 * np.array([1.0, 1.0 - float(m.trace_loss), 1.0 - float(m.round0_loss), 1.0 - float(m.resend_loss),
                           0.0, 1.0 - float(m.post_switchover_loss), 1.0])
    t = np.arange(dt, t_end + 1e-9 * dt, dt)

    def cumulative(x):  # transactions completed by time x
        seg = np.clip(x[:, None] - edges[None, :-1], 0.0, np.diff(edges)[None, :])
        return seg @ rates

    return t, (cumulative(t) - cumulative(t - dt)) / dt


def times_s(memory_bytes, vcpus, working_set_bytes, baseline_tps, release, link_bps, *, params: Params,
            settings: Settings, **precopy_kw):
    """Migration time and switch-over stall of :func:`migrate`, stacked on a leading axis of 2 (s).

    One call for both readouts of a what-if (and one :func:`vcperf.protocol.with_interval` for both
    intervals). Arguments as in :func:`migrate`.

    Parameters
    ----------
    memory_bytes, vcpus, working_set_bytes, baseline_tps, release, link_bps
        As in :func:`migrate` (bytes, vCPUs, bytes, transactions/s, release, bit/s).
    params : Params
        :func:`vcperf.vmotion.calibrate`.
    settings : Settings
        :func:`vcperf.vmotion.settings`.
    **precopy_kw
        As in :func:`migrate`.

    Examples
    --------
    >>> from vcperf import vmotion as vm
    >>> p, s = vm.calibrate(), vm.settings()
    >>> total, stall = vm.times_s(64 * 2**30, 12, 25 * 2**30, 4500.0, "7.0u1", 160e9, params=p, settings=s)
    >>> bool(0 < stall < total)
    True
    """
    m = migrate(memory_bytes, vcpus, working_set_bytes, baseline_tps, release, link_bps, params=params,
                settings=settings, **precopy_kw)
    return np.stack([m.migration_time_s, m.switchover_time_s])


#: Link rates per pass of the vectorised search of :func:`link_for_downtime_bps` (two passes: the
#: second refines the bracket of the first to better than 0.1 % over four decades).
_LINK_GRID = 97


@dataclass(frozen=True)
class LinkAnswer:
    """Answer of :func:`link_for_downtime`: the link a downtime target needs, what it costs, or why none does.

    Attributes
    ----------
    link_bps : float
        Aggregate line rate (bit/s) to provision: the smallest whose switch-over stall meets the
        target, raised to VMware's minimum (``min_supported_bps``) when the target alone needs less
        (then ``flags`` holds a ``"limit"`` flag); NaN when infeasible.
    feasible : bool
        Whether some rate in the searched range meets the target.
    floor_s : float
        The stall at the fastest rate searched (s): the lowest the search reaches.
    bottleneck : str
        ``""`` when feasible; else what keeps the stall above the target, named: ``"checkpoint"``,
        ``"metadata"`` (6.7's full bitmaps, or the page list and RTT), ``"stream ceiling"`` (the streams'
        CPU or window limit, not the line rate, caps the transfer) or ``"remaining pages"`` (the stop
        rule's last pages, which shrink only slowly as the link grows).
    reason : str
        ``""`` when feasible; else ``"infeasible: ..."`` with the stall's parts in seconds.
    downtime_s : float
        Switch-over stall at ``link_bps`` (s; infeasible: at ``hi_bps``, i.e. ``floor_s``).
    migration_time_s : float
        Migration time at ``link_bps`` (s; infeasible: at ``hi_bps``).
    sdps_throttle_fraction : float
        Share of the guest's pace SDPS takes away at ``link_bps`` (:attr:`Migration.sdps_throttle_fraction`;
        infeasible: at ``hi_bps``).
    throttled_s : float
        How long SDPS throttles the guest at ``link_bps`` (s; infeasible: at ``hi_bps``).
    target_only_bps : float
        The smallest rate that meets the downtime target by the model alone (bit/s; ``lo_bps`` when
        that already meets it; NaN when infeasible): below ``min_supported_bps`` it is not an answer.
    min_supported_bps : float
        VMware's documented minimum for this migration: 250 Mbit/s per concurrent vMotion x
        ``concurrent`` (``external_vmotion_limits.csv``; NaN when ``settings.limits`` is None).
    flags : tuple of LimitFlag
        The migration's flags at the answer (:attr:`Migration.flags`) and, when the answer was raised
        to VMware's minimum, a ``"limit"`` flag (:class:`vcperf.vmotion.limits.LimitFlag`) with the
        rate the target alone needs as its ``value``.
    """

    link_bps: float
    feasible: bool
    floor_s: float
    bottleneck: str
    reason: str
    downtime_s: float = math.nan
    migration_time_s: float = math.nan
    sdps_throttle_fraction: float = math.nan
    throttled_s: float = math.nan
    target_only_bps: float = math.nan
    min_supported_bps: float = math.nan
    flags: tuple = ()


def link_for_downtime_bps(target_downtime_s, memory_bytes, vcpus, working_set_bytes, baseline_tps, release, *,
                          params: Params, settings: Settings, lo_bps=1e8, hi_bps=1e12, **precopy_kw) -> float:
    """Smallest aggregate line rate (bit/s) whose switch-over stall stays within ``target_downtime_s``.

    :attr:`LinkAnswer.link_bps` of :func:`link_for_downtime` (NaN when no rate up to ``hi_bps`` meets
    the target; :func:`link_for_downtime` says why).

    Parameters
    ----------
    target_downtime_s : float
        Largest acceptable switch-over stall (s), > 0.
    memory_bytes, vcpus, working_set_bytes, baseline_tps, release
        As in :func:`migrate` (scalars).
    params, settings
        As in :func:`migrate`.
    lo_bps, hi_bps : float
        Search range (bit/s), ``0 < lo_bps < hi_bps``.
    **precopy_kw
        Passed to :func:`migrate` (``n_vmknics``, ``streams_per_vmknic``, ``rtt_s``, ...).

    Examples
    --------
    >>> import math
    >>> from vcperf import vmotion as vm
    >>> p, s = vm.calibrate(), vm.settings()
    >>> typical = (64 * 2**30, 12, 25 * 2**30, 4500.0, "7.0u1")
    >>> bool(1e9 < vm.link_for_downtime_bps(0.4, *typical, params=p, settings=s, n_vmknics=16) < 1e12)
    True
    >>> args = (1.0, 2**40, 12, 500 * 2**30, 45000.0)
    >>> math.isnan(vm.link_for_downtime_bps(*args, "6.7", params=p, settings=s, n_vmknics=4))  # 6.7's bitmaps
    True
    """
    return link_for_downtime(target_downtime_s, memory_bytes, vcpus, working_set_bytes, baseline_tps, release,
                             params=params, settings=settings, lo_bps=lo_bps, hi_bps=hi_bps, **precopy_kw).link_bps


def link_for_downtime(target_downtime_s, memory_bytes, vcpus, working_set_bytes, baseline_tps, release, *,
                      params: Params, settings: Settings, lo_bps=1e8, hi_bps=1e12, **precopy_kw) -> LinkAnswer:
    """Smallest aggregate line rate meeting a switch-over downtime target, or the named reason none does.

    "What link do I need for a downtime under 1 s?" The stall of :func:`migrate` never grows with the
    line rate (the expected remainder at the stopping round boundary and the metadata's transfer both
    shrink with it, :func:`vcperf.vmotion.precopy`), so the boundary is found on a log grid of
    ``[lo_bps, hi_bps]`` evaluated in one vectorised call, refined once on the bracketing cell (to
    better than 0.1 %; the upper end of the bracket is returned, so the stall there meets the target).
    ``lo_bps`` if that already meets the target. If even ``hi_bps`` does not, the answer is infeasible
    and names the part of the stall at ``hi_bps`` that blocks it: the checkpoint alone, the metadata
    (6.7's full bitmaps), a transfer capped by the streams' CPU or window ceiling rather than the line
    rate (add vmknics or streams), or the pages left at the stop boundary (7.0 U1 stops once what is
    left fits the page goal; the expected remainder falls only slowly as the rate grows). The
    checkpoint is :func:`vcperf.vmotion.switchover_checkpoint_s` (device state, the VM's vCPUs and memory).

    The answer is never below VMware's documented minimum, 250 Mbit/s of dedicated bandwidth per
    concurrent vMotion (``settings.limits``, read from ``external_vmotion_limits.csv``) times
    ``concurrent``: a target the model meets on less is answered with that minimum and a ``"limit"``
    flag whose ``value`` is the rate the target alone needs. At the answer the result reports what the
    link costs: the migration time, the stall, and the guest's SDPS throttle (the share of its pace
    stunned away and for how long: a guest dirtying faster than the link sends converges only by it),
    with the migration's flags. The stall there meets the target (it never grows with the rate).

    Parameters
    ----------
    target_downtime_s : float
        Largest acceptable switch-over stall (s), > 0.
    memory_bytes, vcpus, working_set_bytes, baseline_tps, release
        As in :func:`migrate` (scalars).
    params, settings
        As in :func:`migrate`.
    lo_bps, hi_bps : float
        Search range (bit/s), ``0 < lo_bps < hi_bps``.
    **precopy_kw
        Passed to :func:`migrate` (``n_vmknics``, ``streams_per_vmknic``, ``rtt_s``, ``concurrent``
        (a scalar here), ...).

    Examples
    --------
    >>> from vcperf import vmotion as vm
    >>> p, s = vm.calibrate(), vm.settings()
    >>> a = vm.link_for_downtime(0.9 * p.checkpoint_time_s, 64 * 2**30, 12, 25 * 2**30, 4500.0, "7.0u1",
    ...                          params=p, settings=s, n_vmknics=16)
    >>> a.feasible, a.bottleneck
    (False, 'checkpoint')

    A 2 TiB VM dirtying 500 MB/s, 8 at a time, for a 1-s stall: the model alone would take less than
    VMware's 8 x 250 Mbit/s; the answer is that minimum, flagged, with what it costs the guest.

    >>> tps = 500e6 / p.dirty_bytes_per_transaction
    >>> b = vm.link_for_downtime(1.0, 2 * 2**40, 72, 500 * 2**30, tps, "7.0u1", params=p, settings=s, concurrent=8)
    >>> b.link_bps, [f.kind for f in b.flags if f.kind == "limit"]
    (2000000000.0, ['limit'])
    >>> bool(b.downtime_s <= 1.0), bool(b.sdps_throttle_fraction > 0.5), round(b.migration_time_s / 3600, 1)
    (True, True, 30.6)
    """
    target = v.scalar("target_downtime_s", target_downtime_s, 0.0, math.inf, lo_open=True, hi_open=True)
    lo = v.scalar("lo_bps", lo_bps, MIN_LINK_BPS, math.inf, hi_open=True)
    hi = v.scalar("hi_bps", hi_bps, MIN_LINK_BPS, math.inf, hi_open=True)
    if hi <= lo:
        raise ValueError(f"hi_bps must be above lo_bps={lo:g}; got hi_bps={hi:g}")
    for name, val in (("memory_bytes", memory_bytes), ("vcpus", vcpus), ("working_set_bytes", working_set_bytes),
                      ("baseline_tps", baseline_tps), ("concurrent", precopy_kw.get("concurrent", 1))):
        if v.array(name, val).size != 1:
            raise ValueError(f"{name} must be a scalar; got shape {np.shape(val)}")
    s = check_settings(settings)
    conc = float(v.integers("concurrent", precopy_kw.get("concurrent", 1), 1, 4096))
    minimum = math.nan if s.limits is None else s.limits.min_bps_per_vmotion * conc

    def run(links):
        return migrate(memory_bytes, vcpus, working_set_bytes, baseline_tps, release, links, params=params,
                       settings=s, **precopy_kw)

    a, b = math.log(lo), math.log(hi)
    floor = math.nan
    for _ in range(2):
        grid = np.exp(np.linspace(a, b, _LINK_GRID))
        stall = np.asarray(run(grid).switchover_time_s).ravel()
        floor = float(stall[-1]) if math.isnan(floor) else floor  # the first pass ends at hi_bps
        ok = stall <= target
        if ok[0] and a == math.log(lo):
            return _feasible(lo, floor, minimum, conc, run, at_bottom=True)
        if not ok[-1]:
            at = run(np.array([hi, hi / 2.0]))
            why = _infeasible(target, at, hi, check_params(params), vcpus, memory_bytes)
            return dataclasses.replace(why, **_at(at, 0), min_supported_bps=minimum, flags=at.flags)
        j = int(np.argmax(ok))  # first rate that meets the target (the stall never grows with the rate)
        a, b = math.log(grid[j - 1]), math.log(grid[j])
    return _feasible(math.exp(b), floor, minimum, conc, run)


def _at(m: Migration, i: int) -> dict:
    """The readouts of case ``i`` of ``m`` that a :class:`LinkAnswer` reports at its answer."""
    pick = lambda x: float(np.ravel(x)[i])  # noqa: E731
    return {"downtime_s": pick(m.switchover_time_s), "migration_time_s": pick(m.migration_time_s),
            "sdps_throttle_fraction": pick(m.sdps_throttle_fraction), "throttled_s": pick(m.throttled_s)}


def _feasible(target_only: float, floor: float, minimum: float, conc: float, run, at_bottom=False) -> LinkAnswer:
    """The answer for a target met at ``target_only`` bit/s (``at_bottom``: already at ``lo_bps``, the bottom of
    the search): at least VMware's ``minimum``, flagged when raised."""
    raised = target_only < minimum
    where = "at or below lo_bps=" if at_bottom else "at "
    link = minimum if raised else target_only
    m = run(np.array([link]))
    flags = tuple(m.flags)
    if raised:
        flags += (LimitFlag("limit", "link_bps", target_only, minimum, "bit/s", ">=",
                            f"{LIMITS_TABLE}: min_bandwidth_per_vmotion",
                            f"the downtime target alone is met {where}{target_only / 1e6:.4g} Mbit/s, below VMware's "
                            f"{minimum / conc / 1e6:g} Mbit/s per concurrent vMotion x {conc:g}: the answer is "
                            f"raised to {minimum / 1e6:.4g} Mbit/s"),)
    return LinkAnswer(link, True, floor, "", "", **_at(m, 0), target_only_bps=target_only, min_supported_bps=minimum,
                      flags=flags)


def _infeasible(target: float, m: Migration, hi: float, p: Params, vcpus, memory_bytes) -> LinkAnswer:
    """The named bottleneck of a stall that exceeds ``target`` at ``hi`` (``m``: the migration at hi, hi / 2)."""
    stall = float(np.ravel(m.switchover_time_s)[0])
    pages = float(np.ravel(m.precopy.switchover_bytes / m.precopy.transfer_rate_bytes_per_s)[0])
    ckpt = float(checked_checkpoint_s(float(np.ravel(vcpus)[0]), float(np.ravel(memory_bytes)[0]), p))
    other = stall - ckpt - pages  # metadata transfer and processing, the protocol's round trips, remote fetches
    rate = np.ravel(m.precopy.transfer_rate_bytes_per_s)
    parts = (f"checkpoint {ckpt:.3g} s + remaining pages {pages:.3g} s + metadata and RTT {other:.3g} s = "
             f"{stall:.3g} s at {hi:.3g} bit/s")
    if ckpt >= target:
        name, why = "checkpoint", f"the switch-over checkpoint {ckpt:.3g} s alone exceeds the target {target:g} s"
    elif ckpt + other >= target:
        name, why = "metadata", (f"the checkpoint and the switch-over metadata ({ckpt + other:.3g} s: 6.7's full "
                                 f"bitmaps, or the page list and the protocol's round trips) exceed the target "
                                 f"{target:g} s")
    elif rate[0] <= rate[1] * (1.0 + 1e-9):
        name, why = "stream ceiling", (f"the streams' CPU or window ceiling, not the line rate, caps the transfer "
                                       f"at {rate[0] / 1e9:.3g} GB/s (add vmknics or streams): the stall stays above "
                                       f"the target {target:g} s")
    else:
        name, why = "remaining pages", (f"the pages left at the stop boundary keep the stall above the target "
                                        f"{target:g} s up to {hi:.3g} bit/s (they shrink only slowly as the link "
                                        f"grows)")
    return LinkAnswer(math.nan, False, stall, name, f"infeasible: {why} ({parts})")
