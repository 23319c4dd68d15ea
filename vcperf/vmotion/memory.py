"""Iterative memory pre-copy on a rounds axis, with SDPS and a convergence flag (``004_ea13268657e6b3b0.txt``).

"Migration of Virtual Machine's Memory" (phase 2) and "vMotion Switch-Over Optimizations" (the
0.5-s convergence goal). Round 0 sends all guest memory; every later round sends the pages the guest
dirtied during the previous round, at most its writable working set. Memory has converged when the
remaining dirty bytes can be sent within the switch-over goal at the observed transfer rate. When the
guest dirties memory faster than a fraction of the transfer rate, stun-during-page-send (SDPS) slows
the vCPUs. A fixed maximum number of rounds is an array axis: cases that do not converge within it
are flagged (``converged=False``), never iterated further.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vcperf import _validate as v
from vcperf.vmotion.core import PAGE_BYTES, Settings, check_le, check_params, check_release, check_settings
from vcperf.vmotion.params import Params
from vcperf.vmotion.switchover import metadata_entries, switchover_metadata_bytes
from vcperf.vmotion.trace import _precopy_round_loss
from vcperf.vmotion.transfer import streams, transfer_rate_bytes_per_s

#: Modelling choice (not a paper number): SDPS throttles the vCPUs until the guest dirties memory at
#: no more than half the transfer rate, so every throttled round at least halves the remainder.
DEFAULT_SDPS_FRACTION = 0.5
#: Pre-copy rounds after round 0 kept on the rounds axis; cases needing more are flagged.
DEFAULT_MAX_ROUNDS = 16
#: Smallest share of the page goal 7.0 U1's stop rule keeps for the last pages when checkpoint and
#: metadata alone use up the switch-over goal (modelling choice: the goal is then physically out of
#: reach and vMotion still has to stop somewhere).
MIN_BUDGET_FRACTION = 0.1
#: Cases per block when evaluating large grids (bounds the memory of the rounds axis).
_BLOCK = 1 << 16
#: Smallest aggregate vMotion line rate the model takes (bit/s). vSphere requires at least 250 Mbit/s
#: for vMotion; below about 1 Mbit/s even a small VM's migration takes days and a large VM's time
#: overflows float range. A validation range, not a model parameter.
MIN_LINK_BPS = 1e6


@dataclass(frozen=True)
class PrecopyResult:
    """Outcome of :func:`precopy` for every case of the broadcast grid (arrays of one shape).

    Attributes
    ----------
    rounds : ndarray of int
        Pre-copy rounds run, round 0 (all memory) included.
    bytes_sent : ndarray
        All bytes sent: pre-copy rounds plus the pages left for the switch-over (>= memory).
    precopy_bytes : ndarray
        Bytes sent by the pre-copy rounds.
    precopy_time_s : ndarray
        Duration of the pre-copy rounds.
    switchover_bytes : ndarray
        Dirty bytes left for the switch-over.
    metadata_bytes : ndarray
        Switch-over metadata (bitmaps in 6.7, page lists in 7.0 U1).
    switchover_time_s : ndarray
        Guest stall: checkpoint + remaining pages + metadata.
    converged : ndarray of bool
        Remaining dirty bytes fit the switch-over goal within the round cap.
    sdps_engaged : ndarray of bool
        SDPS had to slow the vCPUs.
    dirty_rate_bytes_per_s : ndarray
        Dirty rate in effect during the re-send rounds (after tracing slowdown and SDPS).
    round0_dirty_rate_bytes_per_s : ndarray
        Dirty rate in effect during round 0 (tracing slowdown only: SDPS acts on re-send rounds).
    round0_time_s : ndarray
        Duration of round 0 (all memory, at the round-0 rate).
    resend_trace_loss : ndarray
        Share of the guest's vCPU time taken by trace fires and re-traces during the re-send rounds
        (before SDPS).
    transfer_rate_bytes_per_s : ndarray
        Observed pre-copy transfer rate (TCP goodput of the links).
    """

    rounds: np.ndarray
    bytes_sent: np.ndarray
    precopy_bytes: np.ndarray
    precopy_time_s: np.ndarray
    switchover_bytes: np.ndarray
    metadata_bytes: np.ndarray
    switchover_time_s: np.ndarray
    converged: np.ndarray
    sdps_engaged: np.ndarray
    dirty_rate_bytes_per_s: np.ndarray
    transfer_rate_bytes_per_s: np.ndarray
    round0_dirty_rate_bytes_per_s: np.ndarray
    round0_time_s: np.ndarray
    resend_trace_loss: np.ndarray

    @property
    def migration_time_s(self) -> np.ndarray:
        """Pre-copy plus switch-over (the trace phase is added by :func:`migrate`)."""
        return self.precopy_time_s + self.switchover_time_s


def precopy(
    memory_bytes,
    dirty_rate_bytes_per_s,
    link_bps,
    working_set_bytes=None,
    vcpus=None,
    release="7.0u1",
    *,
    params: Params,
    settings: Settings,
    max_rounds: int = DEFAULT_MAX_ROUNDS,
    sdps: bool = True,
    sdps_fraction: float = DEFAULT_SDPS_FRACTION,
    swapped_bytes=0.0,
    n_vmknics=1,
    streams_per_vmknic=None,
    rtt_s=0.0,
    encryption_cpu_s_per_byte=0.0,
    concurrent=1,
) -> PrecopyResult:
    """Iterative memory pre-copy and switch-over for a grid of cases, in one vectorized call.

    ``004_ea13268657e6b3b0.txt``, "Migration of Virtual Machine's Memory" (phase 2) and "vMotion
    Switch-Over Optimizations" (the 0.5-s convergence goal).

    Transfer (:mod:`vcperf.vmotion.transfer`): ``n_vmknics x streams_per_vmknic`` streams, each a
    CPU-bound worker (``settings.stream_bytes_per_cpu_s``, with ``encryption_cpu_s_per_byte`` extra)
    and a TCP window at ``rtt_s``, together at most the NICs' TCP goodput shared by ``concurrent``
    migrations: rate ``B``. 6.7's round 0 also zeroes every large page the destination allocates
    (``params.zeroing_cpu_s_per_byte`` on each worker): rate ``B0 <= B``; 7.0 U1 skips it.

    Rounds: round 0 sends all ``M`` at ``B0``; round ``k >= 1`` sends what the guest dirtied during
    round ``k-1``, ``D_k = min(W, d T_{k-1})`` with ``T_k = D_k / B``: the dirty pages saturate at the
    hot working set ``W``. The bytes left at time ``tau`` into round ``k`` are
    ``D_k - B tau + min(W, d tau)``: they fall continuously. Stop rule: from the end of round 0 on,
    vMotion switches over the first moment the bytes left fit the budget (:func:`stop_threshold_bytes`:
    0.5 s of sending in 6.7; in 7.0 U1 the pages and their page list within what the 1-s switch-over
    goal leaves after the checkpoint). The remainder therefore never grows with ``B`` and the stall
    (checkpoint + remainder + metadata) never grows when the link gets faster. SDPS engages on the
    re-send rounds when the guest dirties faster than ``sdps_fraction`` of ``B`` and slows it to that
    rate (round 0 runs unthrottled: its dirty set is bounded by ``W`` anyway). Cases that have not
    converged after ``max_rounds`` rounds are flagged and switched over with their remainder.

    With ``vcpus`` given, the dirty rate is the guest's undisturbed rate reduced by the tracing
    slowdown of ``release`` (:func:`precopy_trace_loss`: a slowed guest dirties less); without, it
    is used as given. The seed's invariant "a page is either traced or selected for transmission"
    bounds the fires: a fired page is not traced again until it is sent, so round 0 (all memory, at
    ``B0``) sees at most ``min(W, d T0)`` bytes fire, a dirty share ``min(W, d T0) / M`` of what it
    sends; a re-send round lasts no longer than the guest takes to dirty it, so its pages fire at
    ``d`` and all it sends is dirty. The two kinds of rounds therefore slow the guest differently.

    Parameters
    ----------
    memory_bytes : float or array_like
        Guest memory M (bytes), > 0 (Oracle VMs: 64 GB to 4 TB, Table 1).
    dirty_rate_bytes_per_s : float or array_like
        Undisturbed rate d at which the guest dirties distinct bytes, >= 0.
    link_bps : float or array_like
        Aggregate line rate of the vMotion NICs (bit/s), > 0 (the testbed's 4 x 40 GbE:
        :func:`vcperf.vmotion.testbed_link_bps`).
    working_set_bytes : float or array_like, optional
        Hot (writable) working set W, in [0, M]: dirty pages saturate at it. Default M.
    vcpus : float or array_like, optional
        vCPUs of the VM, in [1, 4096]: applies the tracing slowdown to the dirty rate. Default None:
        ``dirty_rate_bytes_per_s`` is the rate in effect during pre-copy.
    release : {"6.7", "7.0u1"}
    params : Params
        Model parameters (:func:`vcperf.vmotion.calibrate`).
    settings : Settings
        The switch-over goal (:func:`vcperf.vmotion.settings`).
    max_rounds : int
        Rounds after round 0 on the rounds axis, in [1, 256] (default 16).
    sdps : bool
        Whether stun-during-page-send may slow the vCPUs (default True).
    sdps_fraction : float
        Dirty rate SDPS enforces, as a fraction of the transfer rate, in (0, 1) (default 0.5, a
        modelling choice).
    swapped_bytes : float or array_like
        Swapped-out guest bytes, in [0, M] (adds switch-over metadata; default 0).
    n_vmknics : float or array_like
        vMotion vmknics, in [1, 64] (one stream each by default; testbed: 4). Default 1.
    streams_per_vmknic : float or array_like, optional
        Streams per vmknic, in [1, 64]; default the release's (1 in 6.7 and 7.0 U1).
    rtt_s : float or array_like
        Round-trip time between the hosts (s), in [0, 10] (vSphere supports up to 0.150 s).
    encryption_cpu_s_per_byte : float or array_like
        Extra worker CPU per byte for encrypted vMotion, >= 0 (default 0: off).
    concurrent : float or array_like
        Migrations sharing the NICs, in [1, 4096] (default 1).

    Returns
    -------
    PrecopyResult
        Arrays of the broadcast shape of the array inputs.

    Examples
    --------
    >>> from vcperf import vmotion as vm
    >>> p, s = vm.calibrate(), vm.settings()
    >>> r = vm.precopy(64 * 2**30, 1e9, 160e9, 25 * 2**30, 12, "7.0u1", params=p, settings=s, n_vmknics=4)
    >>> bool(r.converged), bool(r.switchover_time_s < s.switchover_time_goal_s)
    (True, True)

    References
    ----------
    C. Clark, K. Fraser, S. Hand, J. G. Hansen, E. Jul, C. Limpach, I. Pratt and A. Warfield, "Live
    Migration of Virtual Machines", NSDI 2005 (iterative pre-copy with a writable working set).
    """
    mem = v.positive("memory_bytes", memory_bytes)
    d0 = v.nonneg("dirty_rate_bytes_per_s", dirty_rate_bytes_per_s)
    link = v.check_range("link_bps", link_bps, MIN_LINK_BPS, np.inf, hi_open=True)
    n_str = streams(n_vmknics, streams_per_vmknic, release)
    rtt = v.check_range("rtt_s", rtt_s, 0.0, 10.0)
    enc = v.nonneg("encryption_cpu_s_per_byte", encryption_cpu_s_per_byte)
    k_conc = v.check_range("concurrent", concurrent, 1, 4096)
    ws = mem if working_set_bytes is None else v.nonneg("working_set_bytes", working_set_bytes)
    v.broadcast(memory_bytes=mem, dirty_rate_bytes_per_s=d0, link_bps=link, working_set_bytes=ws, vcpus=vcpus,
                swapped_bytes=swapped_bytes, n_vmknics=n_vmknics, streams_per_vmknic=streams_per_vmknic, rtt_s=rtt,
                encryption_cpu_s_per_byte=enc, concurrent=k_conc)
    check_le("working_set_bytes", ws, mem)
    cpus = np.nan if vcpus is None else v.check_range("vcpus", vcpus, 1, 4096)
    check_release(release)
    rounds_cap = v.integer("max_rounds", max_rounds, 1, 256)
    if not isinstance(sdps, bool):
        raise ValueError(f"sdps must be True or False; got {sdps!r}")
    frac = v.scalar("sdps_fraction", sdps_fraction, 0.0, 1.0, lo_open=True, hi_open=True)
    swp = v.nonneg("swapped_bytes", swapped_bytes)
    check_le("swapped_bytes", swp, mem)
    p = check_params(params)
    s = check_settings(settings)

    tr_kw = {"n_streams": n_str, "stream_bytes_per_cpu_s": s.stream_bytes_per_cpu_s, "rtt_s": rtt,
             "concurrent": k_conc}
    rate = transfer_rate_bytes_per_s(link, extra_cpu_s_per_byte=enc, **tr_kw)
    zeroing = max(p.zeroing_cpu_s_per_byte, 0.0) if release == "6.7" else 0.0
    rate0 = transfer_rate_bytes_per_s(link, extra_cpu_s_per_byte=enc + zeroing, **tr_kw)
    mem, d0, rate, ws, cpus, swp, rate0 = np.broadcast_arrays(mem, d0, rate, ws, cpus, swp, rate0)
    shape = mem.shape
    flat = [a.ravel() for a in (mem, d0, rate, ws, cpus, swp, rate0)]
    n = flat[0].size
    out = {k: np.empty(n, dtype=bool if k in ("converged", "sdps_engaged") else float)
           for k in ("rounds", "precopy_bytes", "precopy_time_s", "switchover_bytes", "converged",
                     "sdps_engaged", "dirty_rate_bytes_per_s", "round0_dirty_rate_bytes_per_s",
                     "round0_time_s", "resend_trace_loss")}
    for lo in range(0, n, _BLOCK):
        sl = slice(lo, min(n, lo + _BLOCK))
        res = _precopy_block(*(a[sl] for a in flat[:5]), flat[6][sl], release, p, s, rounds_cap, sdps, frac)
        for k, val in res.items():
            out[k][sl] = val
    mem_f, rate_f, swp_f = flat[0], flat[2], flat[5]
    meta = switchover_metadata_bytes(mem_f, release, np.minimum(out["switchover_bytes"], mem_f), swp_f)
    so_time = p.checkpoint_time_s + out["switchover_bytes"] / rate_f + metadata_entries(meta, release) * \
        p.metadata_cost_s_per_entry
    r = lambda a: np.asarray(a).reshape(shape)  # noqa: E731
    return PrecopyResult(
        rounds=r(out["rounds"].astype(int)),
        bytes_sent=r(out["precopy_bytes"] + out["switchover_bytes"]),
        precopy_bytes=r(out["precopy_bytes"]),
        precopy_time_s=r(out["precopy_time_s"]),
        switchover_bytes=r(out["switchover_bytes"]),
        metadata_bytes=r(meta),
        switchover_time_s=r(so_time),
        converged=r(out["converged"]),
        sdps_engaged=r(out["sdps_engaged"]),
        dirty_rate_bytes_per_s=r(out["dirty_rate_bytes_per_s"]),
        transfer_rate_bytes_per_s=r(rate_f),
        round0_dirty_rate_bytes_per_s=r(out["round0_dirty_rate_bytes_per_s"]),
        round0_time_s=r(out["round0_time_s"]),
        resend_trace_loss=r(out["resend_trace_loss"]),
    )


def _budget_s(mem, release, p: Params, s: Settings):
    """Time the stop rule leaves for the last pages (and, in 7.0 U1, their page list), s.

    6.7: the page goal (0.5 s) for the pages alone; its full bitmaps and the checkpoint are not
    budgeted (the seed: they "break the vMotion switch-over goal"). 7.0 U1: what the one-second
    switch-over goal leaves after the checkpoint, at most the page goal and
    at least :data:`MIN_BUDGET_FRACTION` of it.
    """
    if release == "6.7":
        return np.full(np.shape(mem), s.switchover_goal_s)
    fixed = p.checkpoint_time_s
    return np.clip(s.switchover_time_goal_s - fixed, MIN_BUDGET_FRACTION * s.switchover_goal_s, s.switchover_goal_s)


def stop_threshold_bytes(rate, mem, release, p: Params, s: Settings):
    """Dirty bytes left at which the stop rule switches over: sendable within the budget.

    ``R* / B + c_meta R* / 4 KiB = budget`` in 7.0 U1 (its page list costs ``c_meta`` per page);
    ``R* = B x 0.5 s`` in 6.7. Grows with the transfer rate ``B``.

    Parameters
    ----------
    rate : float or array_like
        Transfer rate B of the migration (bytes/s), > 0.
    mem : float or array_like
        Guest memory (bytes), > 0.
    release : {"6.7", "7.0u1"}
    p : Params
        Model parameters (:func:`vcperf.vmotion.calibrate`).
    s : Settings
        vMotion's printed settings (:func:`vcperf.vmotion.settings`).

    Examples
    --------
    >>> from vcperf import vmotion as vm
    >>> p, s = vm.calibrate(), vm.settings()
    >>> bool(vm.stop_threshold_bytes(40e9, 2**36, "7.0u1", p, s) > vm.stop_threshold_bytes(20e9, 2**36, "7.0u1", p, s))
    True
    """
    rate = v.positive("rate", rate)
    mem = v.positive("mem", mem)
    check_release(release)
    v.instance("p", p, Params, "a vcperf.vmotion.Params (from vcperf.vmotion.calibrate())")
    v.instance("s", s, Settings, "a vcperf.vmotion.Settings (from vcperf.vmotion.settings())")
    budget = _budget_s(mem, release, p, s)
    per_byte = 1.0 / rate + (p.metadata_cost_s_per_entry / PAGE_BYTES if release == "7.0u1" else 0.0)
    return budget / per_byte


def _precopy_block(mem, d0, rate, ws, cpus, rate0, release, p: Params, s: Settings, rounds_cap, sdps, frac):
    """Pre-copy for 1-d arrays of cases (rounds on a loop of length ``rounds_cap``; fluid stop rule).

    Round 0 sends ``M`` at ``B0``; round ``k >= 1`` sends ``D_k = min(W, d T_{k-1})`` at ``B``. The
    dirty bytes left at time ``tau`` into round ``k`` are ``D_k - B tau + min(W, d tau)`` (capped at
    ``M``): they fall continuously. The stop rule (threshold ``R*``, :func:`stop_threshold_bytes`)
    is checked from the end of round 0 on: if ``D_1 <= R*`` the VM switches over with ``D_1``;
    otherwise at the first moment of a later round when the bytes left reach ``R*``.
    """
    t0 = mem / rate0
    traced = ~np.isnan(cpus)
    c = np.where(traced, cpus, 1.0)
    # round 0 sends all memory: at most the hot working set fires, once, and is re-traced when sent
    dirty0 = np.minimum(ws, d0 * t0)
    loss0 = _precopy_round_loss(dirty0 / t0, dirty0 / mem, rate0, c, ws, t0, release, p)
    # a re-send round lasts no longer than the guest takes to dirty it: its pages fire at d
    loss_k = _precopy_round_loss(d0, 1.0, rate, c, 0.0 * ws, t0, release, p)
    d_r0 = d0 * (1.0 - np.where(traced, loss0, 0.0))
    d_k = d0 * (1.0 - np.where(traced, loss_k, 0.0))
    # SDPS slows the vCPUs just enough that the guest dirties at most frac x B: a continuous min(),
    # no switch -- "engaged" only reports on which side of the kink a case is
    cap = frac * rate if sdps else np.full_like(rate, np.inf)
    d = np.minimum(d_k, cap)
    engaged = d_k > cap
    r_star = stop_threshold_bytes(rate, mem, release, p, s)
    n = mem.shape[0]
    rounds = np.full(n, float(rounds_cap))
    remainder = np.zeros(n)
    resent = np.zeros(n)
    extra_t = np.zeros(n)  # time spent in rounds >= 1
    done = np.zeros(n, dtype=bool)
    dk = np.minimum(ws, d_r0 * t0)  # D_1: round 0 runs unthrottled
    stop0 = dk <= r_star
    remainder = np.where(stop0, dk, remainder)
    rounds = np.where(stop0, 1.0, rounds)
    done |= stop0
    for k in range(1, rounds_cap):
        if done.all():  # every case has switched over: the later rounds change nothing
            break
        nxt = np.minimum(ws, d * dk / rate)  # D_{k+1}
        cross = ~done & (nxt <= r_star)
        # crossing inside round k: D_k - B tau + min(W, d tau) = R*
        with np.errstate(divide="ignore", invalid="ignore"):
            tau_a = (dk - r_star) / (rate - d)
        ok_a = (rate > d) & (d * tau_a <= ws)
        tau = np.where(ok_a, tau_a, (dk + ws - r_star) / rate)
        tau = np.clip(np.where(np.isfinite(tau), tau, 0.0), 0.0, dk / rate)
        sent = rate * tau
        extra_t = np.where(cross, extra_t + tau, extra_t)
        resent = np.where(cross, resent + sent, resent)
        remainder = np.where(cross, np.minimum(r_star, dk), remainder)
        rounds = np.where(cross, k + 1.0, rounds)
        done |= cross
        # cases still running complete round k
        run = ~done
        extra_t = np.where(run, extra_t + dk / rate, extra_t)
        resent = np.where(run, resent + dk, resent)
        dk = np.where(run, nxt, dk)
    remainder = np.where(done, remainder, dk)
    # bytes sent within the crossing round are part of D_k; what is left of it plus the new dirt is R*
    return {
        "rounds": rounds,
        "precopy_bytes": mem + resent,
        "precopy_time_s": t0 + extra_t,
        "switchover_bytes": np.minimum(remainder, mem),
        "converged": done,
        "sdps_engaged": engaged & (rounds > 1),
        "dirty_rate_bytes_per_s": d,
        "round0_dirty_rate_bytes_per_s": d_r0,
        "round0_time_s": t0,
        "resend_trace_loss": np.where(traced, loss_k, 0.0),
    }
