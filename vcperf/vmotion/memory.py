"""Iterative memory pre-copy in closed form: SDPS, round-boundary stop, convergence (``004_ea13268657e6b3b0.txt``).

"Migration of Virtual Machine's Memory" (phase 2) and "vMotion Switch-Over Optimizations" (the
0.5-s convergence goal). Round 0 sends all guest memory; every later round sends the pages the guest
dirtied during the previous round, at most its writable working set. Memory has converged when the
remaining dirty bytes can be sent within the switch-over goal at the observed transfer rate. When the
guest dirties memory faster than a fraction of the transfer rate, stun-during-page-send (SDPS) slows
the vCPUs. The re-send rounds shrink geometrically, so their sum and count are closed forms: no
iteration cap decides convergence. A guest that dirties as fast as vMotion sends with SDPS off never
converges, a stated result with its reason.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vcperf import _validate as v
from vcperf.vmotion.core import (
    PAGE_BYTES,
    PAGE_NUMBER_BYTES,
    Settings,
    check_le,
    check_params,
    check_release,
    check_settings,
)
from vcperf.vmotion.limits import checked_input_flags
from vcperf.vmotion.params import Params
from vcperf.vmotion.switchover import (
    SWITCHOVER_ONE_WAY_TRIPS,
    checked_checkpoint_s,
    metadata_entries,
    switchover_metadata_bytes,
)
from vcperf.vmotion.trace import checked_precopy_round_loss
from vcperf.vmotion.transfer import streams, transfer_rate_bytes_per_s, vmotion_window_bytes

#: Modelling choice (not a paper number): SDPS throttles the vCPUs until the guest dirties memory at
#: no more than half the transfer rate, so every throttled round at least halves the remainder.
DEFAULT_SDPS_FRACTION = 0.5
#: Smallest share of the page goal 7.0 U1's stop rule keeps for the last pages when checkpoint and
#: metadata alone use up the switch-over goal (modelling choice: the goal is then physically out of
#: reach and vMotion still has to stop somewhere).
MIN_BUDGET_FRACTION = 0.1
#: Demand fetches of remote pages each vCPU waits for, one after another, after the guest resumes (a
#: modelling default, not a paper number). The paper: vMotion starts the checkpoint restore "while some
#: dirty pages remain to be transmitted" and marks them *remote* on the destination; a vCPU touching one
#: faults and fetches it from the source (a request and the 4 KB page back: one round trip). Each vCPU
#: resumes on the page it was writing when stopped, the most recently dirtied and so among the last
#: pushed: one fetch per vCPU, its vCPUs fetching in parallel (later touches find the push ahead of them).
#: Vary it with ``precopy(..., remote_fetches=...)`` (0: the guest never waits on a remote page).
DEFAULT_REMOTE_FETCHES = 1.0
#: Cases per block when evaluating large grids (bounds the memory of the temporaries).
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
        Guest downtime: checkpoint (device state, every vCPU stopped and resumed, the guest memory mapped:
        :func:`vcperf.vmotion.switchover_checkpoint_s`) + remaining pages + metadata + the switch-over
        protocol's round trips (1.5 RTT, :data:`vcperf.vmotion.switchover.SWITCHOVER_ONE_WAY_TRIPS`) +
        the remote pages fetched after resume (``remote_fetch_s``).
    converged : ndarray of bool
        The rounds reached the stop rule (no cap given, or within it).
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
    reason : ndarray of str
        Why a case did not converge ('' where it did).
    sdps_throttle_fraction : ndarray
        Share of the (traced) guest's pace SDPS takes away while it throttles, ``1 - d / d_traced``
        (the vCPUs are stunned that fraction of the time; the guest's throughput drops by it); 0 where
        SDPS is not engaged.
    throttled_s : ndarray
        How long SDPS throttles the guest: the re-send rounds (s); 0 where SDPS is not engaged.
    flags : tuple of LimitFlag
        Inputs beyond VMware's documented limits or the calibrated ranges ("unsupported: ...",
        "extrapolated: ..."; :class:`vcperf.vmotion.limits.LimitFlag`); empty when every input is inside them.
    remote_fetch_s : ndarray
        Part of the downtime spent after the guest resumes, its vCPUs waiting on remote pages (pages
        still on the source): ``remote_fetches x (RTT + 4 KB / B)`` when any page is left (the guest is back
        when its last vCPU runs: the one that wrote a page left waits for it), 0 when none is; each vCPU's
        fetches one after another, the vCPUs in parallel (:data:`DEFAULT_REMOTE_FETCHES`).
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
    reason: np.ndarray
    sdps_throttle_fraction: np.ndarray = 0.0
    throttled_s: np.ndarray = 0.0
    flags: tuple = ()
    remote_fetch_s: np.ndarray = 0.0

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
    max_rounds=None,
    sdps: bool = True,
    sdps_fraction: float = DEFAULT_SDPS_FRACTION,
    swapped_bytes=0.0,
    zero_bytes=0.0,
    n_vmknics=1,
    streams_per_vmknic=None,
    rtt_s=0.0,
    encryption_cpu_s_per_byte=0.0,
    zeroing_cpu_s_per_byte=0.0,
    concurrent=1,
    n_nics=None,
    loss=0.0,
    remote_fetches=DEFAULT_REMOTE_FETCHES,
) -> PrecopyResult:
    """Iterative memory pre-copy and switch-over for a grid of cases, in one vectorized call.

    ``004_ea13268657e6b3b0.txt``, "Migration of Virtual Machine's Memory" (phase 2) and "vMotion
    Switch-Over Optimizations" (the 0.5-s convergence goal).

    Transfer (:mod:`vcperf.vmotion.transfer`): ``n_vmknics x streams_per_vmknic`` streams, each a
    CPU-bound worker (``settings.stream_bytes_per_cpu_s``, with ``encryption_cpu_s_per_byte`` extra)
    and a TCP window at ``rtt_s`` sized as ESXi sizes it (:func:`vcperf.vmotion.vmotion_window_bytes`:
    the bandwidth-delay product, at most ``settings.max_socket_buffer_bytes``; with ``loss``, PFTK's
    loss-limited rate of :func:`vcperf.network.tcp_throughput_bps`), together at most the NICs' TCP
    goodput shared by ``concurrent`` migrations: rate ``B``. 6.7's round 0 may also zero every large
    page the destination allocates
    (``zeroing_cpu_s_per_byte`` on each worker, a what-if: the paper's numbers leave no room for it,
    see :mod:`vcperf.vmotion.calibration`): rate ``B0 <= B``; 7.0 U1 skips it. Zero pages of a
    freshly booted guest (``zero_bytes``) are not sent: round 0 sends ``M - Z``.

    Rounds: round 0 sends all ``M`` at ``B0``; round ``k >= 1`` sends what the guest dirtied during
    round ``k-1``, ``D_k = min(W, d T_{k-1})`` with ``T_k = D_k / B``: the dirty pages saturate at the
    hot working set ``W``, and from round 1 on they shrink by ``q = d / B`` per round. Stop rule
    (the seed: convergence "when vMotion estimates the number of dirty pages left can be sent within
    the goal"), decided at round boundaries: the first boundary whose bytes left fit the threshold
    (:func:`stop_threshold_bytes`: 0.5 s of sending in 6.7; in 7.0 U1 the pages and their page list
    within what the 1-s switch-over goal leaves after the checkpoint). What is left there depends on
    the last round's length and the dirty rate (closed form, ``_expected_phase_factor``), so the
    downtime (checkpoint + remainder + metadata, all sent over the link, + the protocol's 1.5 RTT + the
    remote pages each vCPU fetches after resume, one round trip each) varies continuously and never
    grows when the link gets faster. SDPS engages on the re-send rounds when the guest dirties faster
    than ``sdps_fraction`` of ``B`` and slows it to that rate (round 0 runs unthrottled: its dirty set
    is bounded by ``W`` anyway), so with SDPS every case converges; without it a guest dirtying at
    least as fast as ``B`` never does (``converged=False``, ``reason`` says why, times infinite).

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
    max_rounds : int, optional
        Give up after this many re-send rounds, in [1, 10**6] (default None: no cap, convergence is
        decided by the dirty rate against the transfer rate). A capped case is switched over with what
        is left and flagged ``converged=False``.
    sdps : bool
        Whether stun-during-page-send may slow the vCPUs (default True).
    sdps_fraction : float
        Dirty rate SDPS enforces, as a fraction of the transfer rate, in (0, 1) (default 0.5, a
        modelling choice).
    swapped_bytes : float or array_like
        Swapped-out guest bytes, in [0, M] (adds switch-over metadata; default 0).
    zero_bytes : float or array_like
        Guest bytes never touched since boot (zero pages), in [0, M - W] and below M: not sent in
        round 0 (the seed: "vSphere has optimizations to reduce the amount of data transferred for
        zero pages"; the study's Test 1 VM is freshly booted, its large VMs pre-touched). Default 0.
    n_vmknics : int or array_like of int
        vMotion vmknics, integers in [1, 64] (one stream each by default; testbed: 4). Default 1.
    streams_per_vmknic : int or array_like of int, optional
        Streams per vmknic, integers in [1, 64]; default the release's (1 in 6.7 and 7.0 U1).
    rtt_s : float or array_like
        Round-trip time between the hosts (s), in [0, 10] (vSphere supports up to 0.150 s; beyond it
        the result is flagged).
    encryption_cpu_s_per_byte : float or array_like
        Extra worker CPU per byte for encrypted vMotion, >= 0 (default 0: off).
    zeroing_cpu_s_per_byte : float or array_like
        6.7 only: CPU-seconds per byte a destination worker spends zeroing each newly allocated large
        page in round 0 ("Improved Heuristics to Minimize Zeroing Cost"), >= 0 (default 0: not
        charged; the calibration finds no room for it).
    concurrent : int or array_like of int
        Migrations sharing the NICs, integers in [1, 4096] (default 1).
    n_nics : int or array_like of int, optional
        Physical NICs the vmknics use, integers in [1, n_vmknics x streams per vmknic] (default: one per
        vmknic, as the test bed). Streams sharing a NIC contend for it
        (:attr:`vcperf.vmotion.Settings.stream_contention`): more vmknics on one NIC, or more streams per
        vmknic, add less than a stream's ceiling each (VMware KB 323379: 18, 28, 36 Gb/s on one 40GbE NIC).
    loss : float or array_like
        Packet loss probability of the path, in [0, 1) (default 0): each stream's TCP is then limited by
        PFTK at ``rtt_s`` (:func:`vcperf.network.tcp_throughput_bps`, the one traffic model's TCP).
    remote_fetches : float
        Demand fetches of remote pages each vCPU waits for after resume, one round trip each, in
        [0, 1e6] (default :data:`DEFAULT_REMOTE_FETCHES`, 1: the page each vCPU was writing at the stop).

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
    zcpu = v.nonneg("zeroing_cpu_s_per_byte", zeroing_cpu_s_per_byte)
    k_conc = v.integers("concurrent", concurrent, 1, 4096) * 1.0
    ws = mem if working_set_bytes is None else v.nonneg("working_set_bytes", working_set_bytes)
    v.broadcast(memory_bytes=mem, dirty_rate_bytes_per_s=d0, link_bps=link, working_set_bytes=ws, vcpus=vcpus,
                swapped_bytes=swapped_bytes, zero_bytes=zero_bytes, n_vmknics=n_vmknics,
                streams_per_vmknic=streams_per_vmknic, rtt_s=rtt,
                encryption_cpu_s_per_byte=enc, zeroing_cpu_s_per_byte=zcpu, concurrent=k_conc)
    check_le("working_set_bytes", ws, mem)
    cpus = np.nan if vcpus is None else v.check_range("vcpus", vcpus, 1, 4096)
    check_release(release)
    rounds_cap = None if max_rounds is None else v.integer("max_rounds", max_rounds, 1, 10**6)
    if not isinstance(sdps, bool):
        raise ValueError(f"sdps must be True or False; got {sdps!r}")
    frac = v.scalar("sdps_fraction", sdps_fraction, 0.0, 1.0, lo_open=True, hi_open=True)
    swp = v.nonneg("swapped_bytes", swapped_bytes)
    check_le("swapped_bytes", swp, mem)
    zero = v.nonneg("zero_bytes", zero_bytes)
    touched = np.asarray(mem) - np.asarray(ws)
    bad = (np.asarray(zero) > touched) | (np.asarray(zero) >= np.asarray(mem))
    if np.any(bad):
        first = np.broadcast_to(zero, bad.shape)[bad].flat[0]
        limit = np.broadcast_to(touched, bad.shape)[bad].flat[0]
        raise ValueError(f"zero_bytes must be in [0, memory_bytes - working_set_bytes={limit:g}] and below "
                         f"memory_bytes (never-touched memory holds no working set); got {first:g}")
    p = check_params(params)
    s = check_settings(settings)
    fetches = v.scalar("remote_fetches", remote_fetches, 0.0, 1e6)

    window = vmotion_window_bytes(link, rtt, k_conc, s.socket_buffer_bytes, s.max_socket_buffer_bytes)
    nics = v.integers("n_vmknics", n_vmknics, 1, 64) * 1.0 if n_nics is None else v.integers("n_nics", n_nics, 1, 4096)
    tr_kw = {"n_streams": n_str, "stream_bytes_per_cpu_s": s.stream_bytes_per_cpu_s, "rtt_s": rtt,
             "concurrent": k_conc, "rwnd_bytes": window, "n_nics": nics, "contention": s.stream_contention,
             "loss": v.check_range("loss", loss, 0.0, 1.0, hi_open=True)}
    rate = transfer_rate_bytes_per_s(link, extra_cpu_s_per_byte=enc, **tr_kw)
    zeroing = zcpu if release == "6.7" else 0.0
    rate0 = transfer_rate_bytes_per_s(link, extra_cpu_s_per_byte=enc + zeroing, **tr_kw)
    mem, d0, rate, ws, cpus, swp, rate0, zero = np.broadcast_arrays(mem, d0, rate, ws, cpus, swp, rate0, zero)
    shape = mem.shape
    flat = [a.ravel() for a in (mem, d0, rate, ws, cpus, swp, rate0, zero)]
    n = flat[0].size
    out = {k: np.empty(n, dtype=bool if k in ("converged", "sdps_engaged") else object if k == "reason" else float)
           for k in ("rounds", "precopy_bytes", "precopy_time_s", "switchover_bytes", "converged",
                     "sdps_engaged", "dirty_rate_bytes_per_s", "round0_dirty_rate_bytes_per_s",
                     "round0_time_s", "resend_trace_loss", "reason", "sdps_throttle_fraction", "throttled_s")}
    for lo in range(0, n, _BLOCK):
        sl = slice(lo, min(n, lo + _BLOCK))
        res = _precopy_block(*(a[sl] for a in flat[:5]), flat[6][sl], flat[7][sl], release, p, s, rounds_cap, sdps,
                             frac)
        for k, val in res.items():
            out[k][sl] = val
    mem_f, rate_f, swp_f = flat[0], flat[2], flat[5]
    left = out["switchover_bytes"]
    finite = np.isfinite(left)
    meta = switchover_metadata_bytes(mem_f, release, np.where(finite, np.minimum(left, mem_f), 0.0), swp_f)
    # the checkpoint (device state, every vCPU stopped and resumed), the last pages and the metadata
    # crossing the link, the switch-over protocol's one-way trips (1.5 RTT); the destination processes
    # each metadata entry
    trips = SWITCHOVER_ONE_WAY_TRIPS * np.broadcast_to(rtt, shape).ravel() / 2.0
    ckpt = checked_checkpoint_s(np.where(np.isnan(flat[4]), 1.0, flat[4]), mem_f, p)
    # after resume: the demand fetches of remote pages (a request and the page back), the vCPUs in
    # parallel; the guest is back when its last vCPU runs, so with any page left the vCPU that wrote it
    # last waits for it
    remote = fetches * (np.where(finite, left, 0.0) > 0) * (np.broadcast_to(rtt, shape).ravel() + PAGE_BYTES / rate_f)
    so_time = np.where(finite, ckpt + (np.where(finite, left, 0.0) + meta) / rate_f + trips + remote
                       + metadata_entries(meta, release) * p.metadata_cost_s_per_entry, np.inf)
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
        reason=r(out["reason"].astype(str)),
        sdps_throttle_fraction=r(out["sdps_throttle_fraction"]),
        throttled_s=r(out["throttled_s"]),
        remote_fetch_s=r(np.where(finite, remote, np.inf)),
        flags=checked_input_flags(s.limits, memory_bytes=mem, link_bps=link, rtt_s=rtt, concurrent=k_conc,
                          vcpus=None if vcpus is None else cpus, release=release, n_vmknics=np.asarray(n_vmknics)),
    )


def _budget_s(mem, release, p: Params, s: Settings, cpus=1.0):
    """Time the stop rule leaves for the last pages (and, in 7.0 U1, their page list), s.

    6.7: the page goal (0.5 s) for the pages alone; its full bitmaps and the checkpoint are not
    budgeted (the seed: they "break the vMotion switch-over goal"). 7.0 U1: what the one-second
    switch-over goal leaves after the checkpoint (:func:`vcperf.vmotion.switchover_checkpoint_s` of
    ``cpus`` vCPUs and ``mem`` bytes), at most the page goal and at least :data:`MIN_BUDGET_FRACTION` of it.
    """
    if release == "6.7":
        return np.full(np.broadcast(mem, cpus).shape, s.switchover_goal_s)
    fixed = checked_checkpoint_s(cpus, mem, p)
    return np.clip(s.switchover_time_goal_s - fixed, MIN_BUDGET_FRACTION * s.switchover_goal_s, s.switchover_goal_s)


def stop_threshold_bytes(rate, mem, release, p: Params, s: Settings, vcpus=1.0):
    """Dirty bytes left at which the stop rule switches over: sendable within the budget.

    ``R* / B + (8 / 4096) R* / B + c_meta R* / 4 KiB = budget`` in 7.0 U1 (its page list, 8 B per
    page, crosses the link and costs ``c_meta`` per entry at the destination);
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
    vcpus : float or array_like
        vCPUs of the VM, in [1, 4096] (7.0 U1 budgets the checkpoint of all of them; default 1).

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
    cpus = v.check_range("vcpus", vcpus, 1, 4096)
    v.broadcast(rate=rate, mem=mem, vcpus=cpus)
    budget = _budget_s(mem, release, p, s, cpus)
    if release == "7.0u1":
        per_byte = (1.0 + PAGE_NUMBER_BYTES / PAGE_BYTES) / rate + p.metadata_cost_s_per_entry / PAGE_BYTES
    else:
        per_byte = 1.0 / rate
    return budget / per_byte


def _expected_phase_factor(q):
    """Mean of ``q**phi`` for a phase ``phi`` uniform on [0, 1): ``(1 - q) / ln(1/q)`` (1 at q = 1, 0 at q = 0).

    The remainder at the first round boundary where it fits the threshold ``R*`` is ``R* q**phi``
    for the phase ``phi`` of that boundary in the geometric shrink (ratio ``q`` per round); over runs
    the phase is spread uniformly, so the expected remainder is ``R*`` times this factor.
    """
    q = np.clip(q, 0.0, 1.0)
    inner = (q > 0.0) & (q < 1.0)
    safe = np.where(inner, q, 0.5)
    return np.where(inner, -np.expm1(np.log(safe)) / -np.log(safe), np.where(q >= 1.0, 1.0, 0.0))


def _precopy_block(mem, d0, rate, ws, cpus, rate0, zero, release, p: Params, s: Settings, rounds_cap, sdps, frac):
    """Pre-copy for 1-d arrays of cases, in closed form (geometric re-send rounds; no iteration).

    Round 0 sends ``M`` at ``B0`` in ``T0``; it leaves ``D_1 = min(W, d0' T0)`` dirty. Round
    ``k >= 1`` sends ``D_k`` at ``B`` and leaves ``D_{k+1} = min(W, q D_k)``, ``q = d / B`` (``d``
    after tracing slowdown and SDPS). vMotion decides at round boundaries: it switches over at the
    first boundary where the bytes left fit the threshold ``R*`` (:func:`stop_threshold_bytes`).
    For ``q < 1`` the rounds shrink geometrically and what is left at the stopping boundary is
    ``min(D_1, R*) q**phi`` with ``phi`` the phase of that boundary within one round's shrink; run to
    run the phase is spread uniformly, so the remainder is ``r = min(D_1, R*) (1 - q) / ln(1/q)``
    (``_expected_phase_factor``). A modelling choice: the expected remainder rather than one
    run's, which jumps by a factor ``1/q`` wherever an input moves a boundary across the threshold;
    the expectation keeps downtime, pre-copy time and bytes monotone in link, dirty rate and memory.
    It depends on the last round's length and the dirty rate through ``q``, falls as the link gets
    faster (``q`` falls) and rises with the dirty rate. The re-send rounds before it send
    ``(D_1 - r) / (1 - q)`` bytes (the geometric sum), in ``ln(D_1 / r) / ln(1/q)`` rounds. For
    ``q >= 1`` (SDPS off, the guest dirties as fast as vMotion sends) the rounds never shrink: not
    converged, stated with its reason, times infinite. ``rounds_cap`` (None: no cap) ends the pre-copy
    after that many rounds (round 0 included), the case then switched over with what is left and
    flagged.
    """
    sent0 = mem - zero  # zero pages are not sent (the destination maps them to its shared zero page)
    t0 = sent0 / rate0
    traced = ~np.isnan(cpus)
    c = np.where(traced, cpus, 1.0)
    # round 0 sends all memory: at most the hot working set fires, once, and is re-traced when sent
    dirty0 = np.minimum(ws, d0 * t0)
    loss0 = checked_precopy_round_loss(dirty0 / t0, dirty0 / sent0, rate0, c, ws, t0, release, p)
    # a re-send round lasts no longer than the guest takes to dirty it: its pages fire at d
    loss_k = checked_precopy_round_loss(d0, 1.0, rate, c, 0.0 * ws, t0, release, p)
    d_r0 = d0 * (1.0 - np.where(traced, loss0, 0.0))
    d_k = d0 * (1.0 - np.where(traced, loss_k, 0.0))
    # SDPS slows the vCPUs just enough that the guest dirties at most frac x B: a continuous min(),
    # no switch -- "engaged" only reports on which side of the kink a case is
    cap = frac * rate if sdps else np.full_like(rate, np.inf)
    d = np.minimum(d_k, cap)
    engaged = d_k > cap
    r_star = stop_threshold_bytes(rate, mem, release, p, s, c)
    q = d / rate
    d1 = np.minimum(ws, d_r0 * t0)
    shrinks = q < 1.0
    stop0 = d1 <= r_star
    conv = stop0 | shrinks
    # expected remainder: a uniformly phased share q**phi of the last boundary's bytes
    rem = np.minimum(d1, r_star) * _expected_phase_factor(q)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(conv & (rem > 0), d1 / np.where(rem > 0, rem, 1.0), 1.0)
        lq = -np.log(np.where((q > 0) & shrinks, q, 0.5))
        m = np.where((q > 0) & shrinks, np.log(ratio) / lq, 0.0)
        # a guest dirtying at least as fast as vMotion sends: the expected half round of the phase
        # average's limit q -> 1 (continuous there), and no shrink from it
        half = stop0 & ~shrinks & (d1 > 0)
        m = np.where(conv, np.where(half, 0.5, m), np.inf)
        resent = np.where(conv, np.where(shrinks, (d1 - rem) / np.where(shrinks, 1.0 - q, 1.0), 0.5 * d1), np.inf)
    capped = np.zeros_like(conv)
    if rounds_cap is not None:
        k = float(rounds_cap - 1)  # re-send rounds after round 0
        capped = ~stop0 & (m > k)
        resent_cap, left_cap = _capped_rounds(d1, q, ws, k)
        rem = np.where(capped, left_cap, rem)
        resent = np.where(capped, resent_cap, resent)
        m = np.where(capped, k, m)
        conv = conv & ~capped
    open_ended = ~conv & ~capped
    reason = np.where(capped, f"not converged: round cap max_rounds={rounds_cap} reached",
                      np.where(open_ended, "not converged: the guest dirties memory at least as fast as vMotion "
                                           "sends it and SDPS is off, so the re-send rounds never shrink", ""))
    # SDPS stuns the vCPUs for the share of the traced guest's pace it removes, through the re-send rounds
    throttling = engaged & ~stop0
    throttle = np.where(throttling, 1.0 - d / np.where(throttling, d_k, 1.0), 0.0)
    resend_s = np.where(open_ended, np.inf, resent / rate)
    return {
        "sdps_throttle_fraction": throttle,
        "throttled_s": np.where(throttling, resend_s, 0.0),
        "rounds": np.where(open_ended, -1.0, 1.0 + np.ceil(m - 1e-9)),
        "precopy_bytes": np.where(open_ended, np.inf, sent0 + resent),
        "precopy_time_s": np.where(open_ended, np.inf, t0 + resend_s),
        "switchover_bytes": np.where(open_ended, np.inf, np.minimum(rem, mem)),
        "converged": conv,
        "sdps_engaged": engaged & ~stop0,
        "dirty_rate_bytes_per_s": d,
        "round0_dirty_rate_bytes_per_s": d_r0,
        "round0_time_s": t0,
        "resend_trace_loss": np.where(traced, loss_k, 0.0),
        "reason": reason,
    }


def _capped_rounds(d1, q, ws, k):
    """Bytes re-sent by ``k`` re-send rounds and bytes left after them: ``D_{j+1} = min(W, q D_j)``."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        shrink = q < 1.0
        geo = np.where(shrink, d1 * (1.0 - q**k) / np.where(shrink, 1.0 - q, 1.0), d1 * k)
        # growing rounds (q > 1) reach W after j* rounds and then re-send W each
        grow = q > 1.0
        lq = np.log(np.where(grow, q, 2.0))
        j_star = np.where(grow & (d1 > 0), np.ceil(np.log(np.where(d1 > 0, ws / np.where(d1 > 0, d1, 1.0), 1.0)) / lq),
                          k)
        j_star = np.clip(j_star, 0.0, k)
        grown = d1 * np.expm1(j_star * lq) / np.where(grow, q - 1.0, 1.0) + (k - j_star) * ws
        sent = np.where(grow, grown, geo)
        left = np.minimum(ws, d1 * np.where(grow, np.exp(np.minimum(k * lq, 700.0)), q**k))
    return sent, left
