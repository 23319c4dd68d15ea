"""vMotion in vSphere 7.0 U1 versus 6.7: ``004_ea13268657e6b3b0.txt``.

Five mechanisms, all vectorized numpy functions of physical inputs:

1. **Iterative pre-copy** (:func:`precopy`). Round 0 sends all guest memory; every later round sends
   the pages the guest dirtied during the previous round, at most its writable working set. Memory
   has converged when the remaining dirty bytes can be sent within the switch-over goal (0.5 s in the
   paper) at the observed transfer rate. When the guest dirties memory faster than a fraction of the
   transfer rate, stun-during-page-send (SDPS) slows the vCPUs so the dirty rate drops to that
   fraction. A fixed maximum number of rounds is an array axis: cases that do not converge within it
   are flagged (``converged=False``), never iterated further.
2. **Page tracing** (:func:`trace_phase`, :func:`precopy_trace_loss`). vSphere 6.7 installs one
   trace per 4 KB page in phases that stop all vCPUs, alternating with guest slices; each stop
   costs a per-vCPU amount, so large VMs lose most of their time to stops, and every re-installed
   trace during pre-copy stops all vCPUs again. vSphere 7.0 U1 installs one trace per
   1 GB region on a single vCPU with lazy TLB flushes; a trace fire breaks the 1 GB trace into 2 MB
   and then 4 KB traces on the one faulting vCPU.
3. **Switch-over metadata** (:func:`switchover_metadata_bytes`): two full bitmaps (changed and swap,
   1 bit per 4 KB page) in 6.7 versus a compacted list of page numbers of the remaining pages in
   7.0 U1.
4. **Guest impact** (:func:`migrate`, :func:`throughput_series`): the guest's throughput during the
   trace phase, the pre-copy and the switch-over stall, for the Oracle VMs of Figures 5-10 and
   Table 1.
5. **TPCx-HCI long tail** (:func:`tpcx_monte_carlo`): a seeded Monte Carlo of 18 runs of 158
   migrations each; a migration's trace-phase backlog and switch-over stall raise a loaded VM's mean
   response time above its 90th percentile, which fails a check and invalidates the run.

Paper numbers live only in ``data/vmotion2020``; :func:`calibrate` fits the few parameters of
:class:`Params` to named rows and :func:`fidelity_rows` compares every printed number the model
predicts.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, fields, replace

import numpy as np

from vcperf import _validate as v
from vcperf import network

STUDY = "vmotion2020"
SEED = "004_ea13268657e6b3b0.txt"
RELEASES = ("6.7", "7.0u1")

#: x86 base page (the paper's "4KB" page; its 1 GB region holds 512**2 of them, so sizes are binary).
PAGE_BYTES = 4096.0
#: x86-64 page-table fan-out: a 2 MB (L2) region holds 512 4 KB pages, a 1 GB (L3) region 512 L2s.
PTES_PER_TABLE = 512
PAGES_PER_2MB = float(PTES_PER_TABLE)
PAGES_PER_1GB = float(PTES_PER_TABLE**2)
#: 64-bit page number: one entry of the 7.0 U1 compacted page list (modelling assumption).
PAGE_NUMBER_BYTES = 8.0
#: Bitmaps sent at switch-over by 6.7: the changed bitmap and the swap bitmap (1 bit per page each).
BITMAPS_AT_SWITCHOVER = 2
#: Ethernet frame on the wire around one MSS: MTU 1500 B + 14 B header + 4 B FCS + 8 B preamble +
#: 12 B inter-frame gap. TCP goodput is MSS / wire bytes of the line rate.
ETHERNET_WIRE_BYTES_PER_FRAME = 1500.0 + 14.0 + 4.0 + 8.0 + 12.0
TCP_GOODPUT_FRACTION = network.DEFAULT_MSS_BYTES / ETHERNET_WIRE_BYTES_PER_FRAME
#: Modelling choice (not a paper number): SDPS throttles the vCPUs until the guest dirties memory at
#: no more than half the transfer rate, so every throttled round at least halves the remainder.
DEFAULT_SDPS_FRACTION = 0.5
#: Pre-copy rounds after round 0 kept on the rounds axis; cases needing more are flagged.
DEFAULT_MAX_ROUNDS = 16
#: Cases per block when evaluating large grids (bounds the memory of the rounds axis).
_BLOCK = 1 << 16


# --------------------------------------------------------------------------------------------------
# parameters and data
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Params:
    """Parameters of the vMotion model (SI units). See :func:`calibrate` for where each comes from.

    Attributes
    ----------
    vcpu_stop_cost_s : float
        s per vCPU: time added to one 6.7 stop-based trace-install phase per vCPU that must be
        stopped, TLB-flushed and resumed (and, in 7.0 U1, one vCPU's cost of handling a trace fire).
        Fitted (Figure 7 trace-phase drop, Figure 8 loss, Figure 10).
    trace_install_cost_s_per_page : float
        vCPU-seconds to install (write-protect) one trace entry. Fitted (Figure 8 migration-time
        ratio and loss, Figure 10).
    dirty_bytes_per_transaction : float
        Bytes of distinct guest pages the Oracle workload dirties per transaction (sets the dirty
        rate from the throughput). Fitted (Figure 7 pre-copy drop).
    metadata_cost_s_per_entry : float
        s to process one metadata entry at switch-over: one bitmap bit (a page of guest memory, 6.7)
        or one listed page number (7.0 U1), marking the page remote or swapped on the destination.
        Fitted (Figure 7 six-second switch-over).
    checkpoint_time_s : float
        Device-state checkpoint, transfer and restore at switch-over. Fitted (Figure 8 order of
        magnitude).
    trace_pages_per_install_phase : float
        4 KB traces installed by one 6.7 stop-based install phase (the batch all vCPUs share
        between two guest slices). Fitted (Figure 8 and Figure 10 migration-time ratios and losses).
    guest_slice_s : float
        Guest slice between two 6.7 stop-based install phases (the vCPUs "alternate every few
        milliseconds"): the lower bound printed (Figure 7 text), not fitted.
    switchover_goal_s : float
        Convergence goal: remaining dirty pages sendable within it (text, switch-over section).
    """

    vcpu_stop_cost_s: float
    trace_install_cost_s_per_page: float
    dirty_bytes_per_transaction: float
    metadata_cost_s_per_entry: float
    checkpoint_time_s: float
    trace_pages_per_install_phase: float
    guest_slice_s: float
    switchover_goal_s: float


#: Parameters fitted by :func:`calibrate` (the others are read from data as printed).
FITTED = (
    "vcpu_stop_cost_s",
    "trace_install_cost_s_per_page",
    "dirty_bytes_per_transaction",
    "metadata_cost_s_per_entry",
    "checkpoint_time_s",
    "trace_pages_per_install_phase",
)
PARAM_UNITS = {
    "vcpu_stop_cost_s": "s per vCPU",
    "trace_install_cost_s_per_page": "s per trace",
    "dirty_bytes_per_transaction": "B per transaction",
    "metadata_cost_s_per_entry": "s per entry",
    "checkpoint_time_s": "s",
    "trace_pages_per_install_phase": "traces per phase",
    "guest_slice_s": "s",
    "switchover_goal_s": "s",
}


def _data_value(table: str, quantity: str, **conditions) -> float:
    from vcperf import data

    return data.value(f"{STUDY}/{table}", quantity, "si", **conditions)


@functools.lru_cache(maxsize=1)
def testbed_link_bps() -> float:
    """Aggregate vMotion line rate of the Oracle testbed: vmknics x NIC speed (``testbed.csv``)."""
    nics = _data_value("testbed", "vmotion_vmknics", testbed="oracle_hammerdb", component="network")
    speed = _data_value("testbed", "nic_speed", testbed="oracle_hammerdb", component="network")
    return nics * speed


def vm_memory_bytes(value, unit: str) -> float:
    """A VM memory size printed in GB/TB as bytes: VM memory is binary (1 GB = 262,144 4 KB pages)."""
    factor = {"GB": 2.0**30, "TB": 2.0**40}
    if unit not in factor:
        raise ValueError(f"unit must be one of {sorted(factor)}; got {unit!r}")
    return float(v.nonneg("value", value)) * factor[unit]


@dataclass(frozen=True)
class Workload:
    """One Oracle/HammerDB VM of the study: size, writable working set and undisturbed throughput.

    The writable working set is the Oracle SGA (Table 1): the buffer cache and log buffer are where
    the database writes.
    """

    name: str
    vcpus: int
    memory_bytes: float
    working_set_bytes: float
    baseline_tps: float


@functools.lru_cache(maxsize=1)
def workloads() -> dict[str, Workload]:
    """Table 1's five VMs plus the 72 vCPU / 1 TB VM of Figures 6-8 (workload of the typical VM)."""
    from vcperf import data

    t1 = data.load(f"{STUDY}/table01_vm_sizes")
    out = {}
    for cfg in t1["config"].unique():
        rows = t1[t1["config"] == cfg].set_index("quantity")
        out[cfg] = Workload(
            name=cfg,
            vcpus=int(rows.loc["vcpus", "value"]),
            memory_bytes=vm_memory_bytes(rows.loc["memory", "value"], rows.loc["memory", "unit"]),
            working_set_bytes=vm_memory_bytes(rows.loc["oracle_sga", "value"], rows.loc["oracle_sga", "unit"]),
            baseline_tps=float(data.to_si(rows.loc["hammerdb_throughput_before_vmotion", "value"],
                                          rows.loc["hammerdb_throughput_before_vmotion", "unit"])),
        )
    f6 = data.load(f"{STUDY}/figure06_oracle_large_67").set_index("quantity")
    typ = out["typical"]
    out["large_1tb"] = replace(
        typ, name="large_1tb", vcpus=int(f6.loc["vm_vcpus", "value"]),
        memory_bytes=vm_memory_bytes(f6.loc["vm_memory", "value"], f6.loc["vm_memory", "unit"]),
    )
    return out


# --------------------------------------------------------------------------------------------------
# 1. iterative pre-copy
# --------------------------------------------------------------------------------------------------


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
        Dirty rate in effect during pre-copy (after tracing slowdown and SDPS).
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

    @property
    def migration_time_s(self) -> np.ndarray:
        """Pre-copy plus switch-over (the trace phase is added by :func:`migrate`)."""
        return self.precopy_time_s + self.switchover_time_s


def _check_release(release) -> str:
    return v.choice("release", release, RELEASES)


def transfer_rate_bytes_per_s(link_bps):
    """TCP goodput (bytes/s) of vMotion streams filling links of aggregate line rate ``link_bps``.

    ``link_bps`` (bit/s, > 0) is the sum over the vMotion vmknics (4 x 40 GbE on the testbed); the
    goodput is the MSS share of each Ethernet frame on the wire (:data:`TCP_GOODPUT_FRACTION`).
    """
    bps = v.positive("link_bps", link_bps)
    return bps / 8.0 * TCP_GOODPUT_FRACTION


def switchover_metadata_bytes(memory_bytes, release, remaining_bytes=0.0, swapped_bytes=0.0):
    """Switch-over metadata (bytes) that marks remote and swapped pages on the destination.

    6.7 sends the changed bitmap and the swap bitmap in full, 1 bit per 4 KB page of guest memory
    each; 7.0 U1 sends only the page numbers (8 B each) of the remaining dirty and swapped pages
    (``004_ea13268657e6b3b0.txt``, Figures 3 and 4).

    Parameters
    ----------
    memory_bytes : float or array_like
        Guest memory (bytes), > 0.
    release : {"6.7", "7.0u1"}
    remaining_bytes : float or array_like
        Dirty bytes left at switch-over, in [0, memory_bytes].
    swapped_bytes : float or array_like
        Swapped-out guest bytes, in [0, memory_bytes] (0: no host swapping, as on the testbed).
    """
    mem = v.positive("memory_bytes", memory_bytes)
    _check_release(release)
    rem = v.nonneg("remaining_bytes", remaining_bytes)
    swp = v.nonneg("swapped_bytes", swapped_bytes)
    _check_le("remaining_bytes", rem, mem)
    _check_le("swapped_bytes", swp, mem)
    pages = np.ceil(mem / PAGE_BYTES)
    if release == "6.7":
        return np.broadcast_to(BITMAPS_AT_SWITCHOVER * np.ceil(pages / 8.0), np.broadcast(mem, rem, swp).shape) * 1.0
    return (np.ceil(rem / PAGE_BYTES) + np.ceil(swp / PAGE_BYTES)) * PAGE_NUMBER_BYTES


def metadata_entries(metadata_bytes, release):
    """Entries the destination processes for ``metadata_bytes`` of switch-over metadata.

    A bitmap (6.7) has one entry per bit, i.e. per guest page; a page list (7.0 U1) one per 8-byte
    page number.
    """
    meta = v.nonneg("metadata_bytes", metadata_bytes)
    _check_release(release)
    return meta * 8.0 if release == "6.7" else meta / PAGE_NUMBER_BYTES


def _check_le(name, value, bound):
    over = np.asarray(value) > np.asarray(bound)
    if np.any(over):
        first = np.broadcast_to(value, over.shape)[over].flat[0]
        limit = np.broadcast_to(bound, over.shape)[over].flat[0]
        raise ValueError(f"{name} must be in [0, memory_bytes={limit:g}]; got {first:g}")


def precopy(
    memory_bytes,
    dirty_rate_bytes_per_s,
    link_bps=None,
    working_set_bytes=None,
    vcpus=None,
    release="7.0u1",
    *,
    params: Params | None = None,
    max_rounds: int = DEFAULT_MAX_ROUNDS,
    sdps: bool = True,
    sdps_fraction: float = DEFAULT_SDPS_FRACTION,
    swapped_bytes=0.0,
) -> PrecopyResult:
    """Iterative memory pre-copy and switch-over for a grid of cases, in one vectorized call.

    ``004_ea13268657e6b3b0.txt``, "Migration of Virtual Machine's Memory" (phase 2) and "vMotion
    Switch-Over Optimizations" (the 0.5-s convergence goal).

    Round 0 sends all ``memory_bytes``; round ``k >= 1`` sends what the guest dirtied during round
    ``k-1``, ``D_k = min(W, d * t_{k-1})`` with ``t_k = D_k / B``. Hence, with ``rho = d / B``,
    ``D_k = min(rho_0 * rho**(k-1) * M, W * min(1, rho**(k-1)))``, evaluated on a rounds axis of
    length ``max_rounds``. Memory converges at the first ``k`` with ``D_k <= B * goal``; ``D_k`` is
    then sent during the switch-over. SDPS engages when a round would not shrink the remainder by
    the factor ``sdps_fraction`` (``rho > sdps_fraction``) and slows the vCPUs to
    ``rho = sdps_fraction``; as the rule does not look at the working set, a guest whose working
    set fits the goal anyway is throttled too (a simplification that keeps time monotone in ``d``
    and ``B``). Cases that have not converged after ``max_rounds`` rounds are flagged and switched
    over with their remainder.

    Bytes sent and the data-transfer time grow with ``d`` and fall with ``B``. On 7.0 U1 the
    switch-over metadata is a list of the remaining pages, so a higher ``d`` that forces one more
    round can shorten the switch-over stall; 6.7's bitmaps do not depend on the remainder.

    With ``vcpus`` given, the dirty rate is the guest's undisturbed rate reduced by the tracing
    slowdown of ``release`` (:func:`precopy_trace_loss`: a slowed guest dirties less); without, it
    is used as given. Round 0 runs at the link rate in both releases: a destination cost of
    zeroing large pages on 6.7 (the paper's "memory allocation path") was tried and fitted to
    nothing (rate -> infinity) once the trace phase is modelled, so it is not part of the model.

    Parameters
    ----------
    memory_bytes : float or array_like
        Guest memory M (bytes), > 0 (Oracle VMs: 64 GB to 4 TB, Table 1).
    dirty_rate_bytes_per_s : float or array_like
        Undisturbed rate d at which the guest dirties distinct bytes, >= 0.
    link_bps : float or array_like, optional
        Aggregate vMotion line rate (bit/s); default the testbed's 4 x 40 GbE
        (:func:`testbed_link_bps`, ``testbed.csv``).
    working_set_bytes : float or array_like, optional
        Writable working set W, in [0, M]: no round re-sends more. Default M (unbounded).
    vcpus : float or array_like, optional
        vCPUs of the VM, in [1, 4096]: applies the tracing slowdown to the dirty rate. Default None:
        ``dirty_rate_bytes_per_s`` is the rate in effect during pre-copy.
    release : {"6.7", "7.0u1"}
    params : Params, optional
        Model parameters; default :func:`calibrated`.
    max_rounds : int
        Rounds after round 0 on the rounds axis, in [1, 256] (default 16).
    sdps : bool
        Whether stun-during-page-send may slow the vCPUs (default True).
    sdps_fraction : float
        Dirty rate SDPS enforces, as a fraction of the transfer rate, in (0, 1) (default 0.5, a
        modelling choice).
    swapped_bytes : float or array_like
        Swapped-out guest bytes, in [0, M] (adds switch-over metadata; default 0).

    Returns
    -------
    PrecopyResult
        Arrays of the broadcast shape of the array inputs.
    """
    mem = v.positive("memory_bytes", memory_bytes)
    d0 = v.nonneg("dirty_rate_bytes_per_s", dirty_rate_bytes_per_s)
    rate = transfer_rate_bytes_per_s(testbed_link_bps() if link_bps is None else link_bps)
    ws = mem if working_set_bytes is None else v.nonneg("working_set_bytes", working_set_bytes)
    _check_le("working_set_bytes", ws, mem)
    cpus = np.nan if vcpus is None else v.check_range("vcpus", vcpus, 1, 4096)
    _check_release(release)
    rounds_cap = v.integer("max_rounds", max_rounds, 1, 256)
    if not isinstance(sdps, bool):
        raise ValueError(f"sdps must be True or False; got {sdps!r}")
    frac = float(v.check_range("sdps_fraction", sdps_fraction, 0.0, 1.0, lo_open=True, hi_open=True))
    swp = v.nonneg("swapped_bytes", swapped_bytes)
    _check_le("swapped_bytes", swp, mem)
    p = calibrated() if params is None else params

    mem, d0, rate, ws, cpus, swp = np.broadcast_arrays(mem, d0, rate, ws, cpus, swp)
    shape = mem.shape
    flat = [a.ravel() for a in (mem, d0, rate, ws, cpus, swp)]
    n = flat[0].size
    out = {k: np.empty(n, dtype=bool if k in ("converged", "sdps_engaged") else float)
           for k in ("rounds", "precopy_bytes", "precopy_time_s", "switchover_bytes", "converged",
                     "sdps_engaged", "dirty_rate_bytes_per_s")}
    for lo in range(0, n, _BLOCK):
        sl = slice(lo, min(n, lo + _BLOCK))
        res = _precopy_block(*(a[sl] for a in flat[:5]), release, p, rounds_cap, sdps, frac)
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
    )


def _precopy_block(mem, d0, rate, ws, cpus, release, p: Params, rounds_cap, sdps, frac):
    """Pre-copy for 1-d arrays of cases; the rounds axis is the last axis (length ``rounds_cap``)."""
    loss = _precopy_loss_from_rate(d0, cpus, ws, mem / rate, release, p)
    d = d0 * (1.0 - np.where(np.isnan(cpus), 0.0, loss))
    rate0 = rate
    goal_bytes = rate * p.switchover_goal_s
    rho = d / rate
    engaged = sdps & (rho > frac)
    d = np.where(engaged, frac * rate, d)
    rho = d / rate
    rho0 = d / rate0
    k = np.arange(1, rounds_cap + 1, dtype=float)  # rounds 1..cap
    pw = rho[:, None] ** (k - 1.0)  # rho**(k-1)
    dk = np.minimum(rho0[:, None] * mem[:, None] * pw, ws[:, None] * np.minimum(1.0, pw))
    fits = dk <= goal_bytes[:, None]
    converged = fits.any(axis=1)
    kc = np.where(converged, fits.argmax(axis=1), rounds_cap - 1)  # index of the remainder round
    before = np.arange(rounds_cap)[None, :] < kc[:, None]
    resent = np.where(before, dk, 0.0).sum(axis=1)
    remainder = dk[np.arange(dk.shape[0]), kc]
    return {
        "rounds": kc + 1.0,
        "precopy_bytes": mem + resent,
        "precopy_time_s": mem / rate0 + resent / rate,
        "switchover_bytes": remainder,
        "converged": converged,
        "sdps_engaged": engaged,
        "dirty_rate_bytes_per_s": d,
    }


# --------------------------------------------------------------------------------------------------
# 2. page tracing
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TracePhase:
    """Guest trace phase (arrays): duration and the guest's throughput loss while it lasts."""

    duration_s: np.ndarray
    throughput_loss: np.ndarray
    traces: np.ndarray


def trace_phase(memory_bytes, vcpus, release, *, params: Params | None = None) -> TracePhase:
    """Duration and guest throughput loss of the initial trace install (phase 1).

    ``004_ea13268657e6b3b0.txt``, "vSphere 6.7 Page Tracing", "vSphere 7.0 U1 Page Tracing",
    Figures 1-2.

    6.7 (stop-based): one trace per 4 KB page, ``N = M / 4 KiB``, installed in phases of ``P``
    traces. Each phase stops all ``V`` vCPUs (``c_stop V``), shares the ``P c_install`` of install
    work among them (``P c_install / V``), flushes and resumes; a guest slice ``tau`` follows. Per
    phase the guest is stalled ``s = c_stop V + P c_install / V``: loss ``s / (s + tau)``, duration
    ``N / P (s + tau)``. The stall is smallest at ``V = sqrt(P c_install / c_stop)``; above it the
    stop of ever more vCPUs dominates (the paper's large-VM problem). 7.0 U1 (loose): one trace per
    1 GB region installed by one vCPU while the others run (lazy TLB flush): loss ``1 / V`` for
    ``ceil(M / 1 GiB) c_install``.

    Parameters
    ----------
    memory_bytes : float or array_like
        Guest memory (bytes), > 0.
    vcpus : float or array_like
        vCPUs, in [1, 4096].
    release : {"6.7", "7.0u1"}
    params : Params, optional
        Default :func:`calibrated`.
    """
    mem = v.positive("memory_bytes", memory_bytes)
    cpus = v.check_range("vcpus", vcpus, 1, 4096)
    _check_release(release)
    p = calibrated() if params is None else params
    return _trace_phase(mem, cpus, release, p)


def _trace_phase(mem, cpus, release, p: Params) -> TracePhase:
    tau = p.guest_slice_s
    if release == "6.7":
        traces = np.ceil(mem / PAGE_BYTES)
        per_phase = p.trace_pages_per_install_phase
        stall = p.vcpu_stop_cost_s * cpus + per_phase * p.trace_install_cost_s_per_page / cpus
        loss = stall / (stall + tau)
        duration = traces / per_phase * (stall + tau)
    else:
        traces = np.ceil(mem / (PAGE_BYTES * PAGES_PER_1GB))
        loss = 1.0 / cpus
        duration = traces * p.trace_install_cost_s_per_page
    b = np.broadcast(mem, cpus).shape
    return TracePhase(np.broadcast_to(duration, b) * 1.0, np.broadcast_to(loss, b) * 1.0,
                      np.broadcast_to(traces, b) * 1.0)


def precopy_trace_loss(dirty_rate_bytes_per_s, vcpus, working_set_bytes, precopy_time_s, release, *,
                       params: Params | None = None):
    """Guest throughput loss (fraction) from trace fires and re-installs during pre-copy.

    ``004_ea13268657e6b3b0.txt``, Figure 7 text (the ~30 % pre-copy drop on 6.7) and "Large Trace
    Install" (the 1 GB -> 2 MB -> 4 KB split on a trace fire).

    Every first write to a traced 4 KB page fires. 6.7 re-installs the trace of each re-sent page
    with a stop of all vCPUs (``c_stop V`` of stall per fire); 7.0 U1 handles the fire on the
    faulting vCPU alone (``c_stop`` of one vCPU, i.e. ``c_stop / V`` of the VM) plus the one-time
    split of each 1 GB trace into 512 2 MB traces and of each 2 MB trace into 512 4 KB traces
    (``512 c_install`` each) over the working set, spread over the pre-copy. A slowed guest fires
    less: with ``a`` the loss of an undisturbed guest, the loss is ``a / (1 + a)``.

    Parameters
    ----------
    dirty_rate_bytes_per_s : float or array_like
        Undisturbed dirty rate (bytes/s), >= 0.
    vcpus : float or array_like
        vCPUs, in [1, 4096].
    working_set_bytes : float or array_like
        Writable working set (bytes), >= 0.
    precopy_time_s : float or array_like
        Duration of the pre-copy (s), > 0.
    release : {"6.7", "7.0u1"}
    params : Params, optional
    """
    d0 = v.nonneg("dirty_rate_bytes_per_s", dirty_rate_bytes_per_s)
    cpus = v.check_range("vcpus", vcpus, 1, 4096)
    ws = v.nonneg("working_set_bytes", working_set_bytes)
    t = v.positive("precopy_time_s", precopy_time_s)
    _check_release(release)
    p = calibrated() if params is None else params
    return _precopy_loss_from_rate(d0, cpus, ws, t, release, p)


def _precopy_loss_from_rate(d0, cpus, ws, t, release, p: Params):
    fires_per_s = d0 / PAGE_BYTES
    if release == "6.7":
        a = fires_per_s * p.vcpu_stop_cost_s * cpus
    else:
        splits = (np.minimum(fires_per_s * t, np.ceil(ws / (PAGE_BYTES * PAGES_PER_2MB)))
                  + np.minimum(fires_per_s * t, np.ceil(ws / (PAGE_BYTES * PAGES_PER_1GB))))
        work = fires_per_s * p.vcpu_stop_cost_s + splits * PTES_PER_TABLE * p.trace_install_cost_s_per_page / t
        a = work / cpus
    return a / (1.0 + a)


# --------------------------------------------------------------------------------------------------
# 4. guest impact of one migration
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Migration:
    """One migration of a running VM (arrays): phases, times, losses, average throughput."""

    release: str
    trace_time_s: np.ndarray
    trace_loss: np.ndarray
    precopy_time_s: np.ndarray
    precopy_loss: np.ndarray
    switchover_time_s: np.ndarray
    migration_time_s: np.ndarray
    average_loss: np.ndarray
    average_throughput_tps: np.ndarray
    baseline_tps: np.ndarray
    precopy: PrecopyResult


def migrate(memory_bytes, vcpus, working_set_bytes, baseline_tps, release, link_bps=None, *,
            params: Params | None = None, **precopy_kw) -> Migration:
    """A full migration: trace phase, pre-copy, switch-over, and the guest's throughput through it.

    ``004_ea13268657e6b3b0.txt``, Figures 5-10 and Table 1.

    The guest loses ``trace_loss`` of its throughput during the trace phase, ``precopy_loss`` during
    the pre-copy (trace fires and re-installs, plus SDPS throttling if engaged) and all of it during
    the switch-over stall. ``average_loss`` is the time-weighted mean over the migration, the
    paper's "average throughput loss during vMotion" (Figure 8) and what Figures 9-10 compare.

    Parameters
    ----------
    memory_bytes : float or array_like
        Guest memory (bytes), > 0.
    vcpus : float or array_like
        vCPUs, in [1, 4096].
    working_set_bytes : float or array_like
        Writable working set (bytes), in [0, memory_bytes] (Oracle: the SGA, Table 1).
    baseline_tps : float or array_like
        Guest throughput before vMotion (transactions/s), > 0; with
        ``params.dirty_bytes_per_transaction`` it sets the dirty rate.
    release : {"6.7", "7.0u1"}
    link_bps : float or array_like, optional
        Aggregate vMotion line rate (bit/s); default the testbed's.
    params : Params, optional
    **precopy_kw
        Passed to :func:`precopy` (``max_rounds``, ``sdps``, ``sdps_fraction``, ``swapped_bytes``).
    """
    mem = v.positive("memory_bytes", memory_bytes)
    cpus = v.check_range("vcpus", vcpus, 1, 4096)
    ws = v.nonneg("working_set_bytes", working_set_bytes)
    _check_le("working_set_bytes", ws, mem)
    x0 = v.positive("baseline_tps", baseline_tps)
    _check_release(release)
    p = calibrated() if params is None else params
    d0 = x0 * p.dirty_bytes_per_transaction
    pc = precopy(mem, d0, link_bps, ws, cpus, release, params=p, **precopy_kw)
    tr = _trace_phase(mem, cpus, release, p)
    # The guest runs at the pace of the dirty rate in effect: tracing slowdown, then SDPS if engaged.
    d0 = np.broadcast_to(d0, np.shape(pc.dirty_rate_bytes_per_s))
    pc_loss = np.where(d0 > 0, 1.0 - pc.dirty_rate_bytes_per_s / np.where(d0 > 0, d0, 1.0), 0.0)
    total = tr.duration_s + pc.precopy_time_s + pc.switchover_time_s
    lost = tr.throughput_loss * tr.duration_s + pc_loss * pc.precopy_time_s + pc.switchover_time_s
    avg_loss = lost / total
    return Migration(
        release=release,
        trace_time_s=tr.duration_s,
        trace_loss=tr.throughput_loss,
        precopy_time_s=pc.precopy_time_s,
        precopy_loss=pc_loss,
        switchover_time_s=pc.switchover_time_s,
        migration_time_s=total,
        average_loss=avg_loss,
        average_throughput_tps=x0 * (1.0 - avg_loss),
        baseline_tps=np.broadcast_to(x0, np.shape(total)) * 1.0,
        precopy=pc,
    )


def migrate_workload(name: str, release: str, link_bps=None, *, params: Params | None = None) -> Migration:
    """:func:`migrate` for a named VM of :func:`workloads` (Table 1 configs or ``"large_1tb"``)."""
    v.choice("name", name, tuple(workloads()))
    w = workloads()[name]
    return migrate(w.memory_bytes, w.vcpus, w.working_set_bytes, w.baseline_tps, release, link_bps,
                   params=params)


def throughput_series(m: Migration, sample_s, start_s, end_s):
    """Guest throughput (tps) averaged over samples of ``sample_s``, as a probe script reports it.

    ``004_ea13268657e6b3b0.txt``, Figures 5-8 (1-s samples) and Figure 10 (0.5-s samples).

    The migration (a scalar :class:`Migration`) starts at ``start_s``; before it and after it the
    guest runs at its baseline. Returns ``(t_s, tps)`` with ``t_s`` the end of each sample.

    Parameters
    ----------
    m : Migration
        A scalar migration (from :func:`migrate` or :func:`migrate_workload`).
    sample_s : float
        Sampling interval (s), > 0 (Figure 5: 1 s; Figure 10: 0.5 s).
    start_s : float
        Start of the migration on the time axis (s), >= 0.
    end_s : float
        End of the time axis (s), > 0, at least one sample.
    """
    dt = float(v.positive("sample_s", sample_s))
    t0 = float(v.nonneg("start_s", start_s))
    t_end = float(v.positive("end_s", end_s))
    if t_end < dt:
        raise ValueError(f"end_s must be in [sample_s={dt:g}, inf); got {t_end:g}")
    if not isinstance(m, Migration):
        raise ValueError(f"m must be a Migration; got {type(m).__name__}")
    if np.size(m.migration_time_s) != 1:
        raise ValueError(f"m must be a scalar migration; got shape {np.shape(m.migration_time_s)}")
    x0 = float(m.baseline_tps)
    edges = np.array([0.0, t0, t0 + float(m.trace_time_s), t0 + float(m.trace_time_s + m.precopy_time_s),
                      t0 + float(m.migration_time_s), math.inf])
    rates = x0 * np.array([1.0, 1.0 - float(m.trace_loss), 1.0 - float(m.precopy_loss), 0.0, 1.0])
    t = np.arange(dt, t_end + 1e-9 * dt, dt)

    def cumulative(x):  # transactions completed by time x
        seg = np.clip(x[:, None] - edges[None, :-1], 0.0, np.diff(edges)[None, :])
        return seg @ rates

    return t, (cumulative(t) - cumulative(t - dt)) / dt


# --------------------------------------------------------------------------------------------------
# calibration
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Target:
    """One printed number used to calibrate and/or compare: where it is, and how the model makes it."""

    key: str
    source: str
    locator: str
    quantity: str
    conditions: str
    unit: str
    paper_value: float
    relation: str


def _row(table, quantity, **cond):
    from vcperf import data

    df = data.load(f"{STUDY}/{table}")
    mask = df["quantity"] == quantity
    for c, want in cond.items():
        mask &= df[c] == want
    hits = df[mask]
    if len(hits) != 1:
        raise ValueError(f"{table}: {len(hits)} rows for {quantity} {cond}")
    return hits.iloc[0]


def _si(row):
    from vcperf import data

    if row["unit"] == "percent":
        return float(row["value"]) / 100.0
    return float(data.to_si(row["value"], row["unit"]))


#: key -> (table, quantity, conditions, model quantity description, unit)
_TARGET_SPECS = {
    "trace_drop_large_67": ("figure07_oracle_large_67_phases", "throughput_drop",
                            {"release": "6.7", "phase": "trace"}, "72 vCPU / 1 TB, 6.7, trace phase", "1"),
    "precopy_drop_large_67": ("figure07_oracle_large_67_phases", "throughput_drop",
                              {"release": "6.7", "phase": "precopy"}, "72 vCPU / 1 TB, 6.7, pre-copy", "1"),
    "switchover_stall_large_67": ("figure07_oracle_large_67_phases", "oracle_response_stall",
                                  {"release": "6.7", "phase": "switchover"},
                                  "72 vCPU / 1 TB, 6.7, switch-over", "s"),
    "migration_time_ratio_large": ("figure08_oracle_large_67_vs_70u1", "migration_time_ratio_70u1_over_67",
                                   {}, "72 vCPU / 1 TB, 7.0 U1 / 6.7", "1"),
    "avg_loss_large_67": ("figure08_oracle_large_67_vs_70u1", "avg_throughput_loss_during_vmotion",
                          {"release": "6.7"}, "72 vCPU / 1 TB, 6.7, whole migration", "1"),
    "switchover_improvement_large": ("figure08_oracle_large_67_vs_70u1", "switchover_resume_time_improvement",
                                     {}, "72 vCPU / 1 TB, switch-over 6.7 / 7.0 U1", "1"),
    "typical_tps_70u1": ("figure10_oracle_typical_halfsecond", "avg_throughput_during_vmotion",
                         {"release": "7.0u1"}, "12 vCPU / 64 GB, 7.0 U1, during vMotion", "1/s"),
    "typical_tps_67": ("figure10_oracle_typical_halfsecond", "avg_throughput_during_vmotion",
                       {"release": "6.7"}, "12 vCPU / 64 GB, 6.7, during vMotion", "1/s"),
    "typical_migration_time_reduction": ("figure10_oracle_typical_halfsecond", "migration_time_reduction",
                                         {}, "12 vCPU / 64 GB, 1 - 7.0 U1 / 6.7", "1"),
    "monster_improvement": ("figure09_oracle_sizes_67_vs_70u1", "max_throughput_improvement",
                            {"vm": "monster"}, "192 vCPU / 4 TB, throughput 7.0 U1 / 6.7 during vMotion",
                            "1"),
    # held out: restatements and derived numbers, never fitted
    "typical_improvement": ("figure10_oracle_typical_halfsecond", "throughput_improvement",
                            {}, "12 vCPU / 64 GB, 7.0 U1 / 6.7 - 1 during vMotion", "1"),
    "conclusion_improvement": ("text_conclusion", "throughput_improvement", {},
                               "192 vCPU / 4 TB (largest differential)", "1"),
    "conclusion_duration_reduction": ("text_conclusion", "vmotion_duration_reduction", {},
                                      "mean over Table 1 VMs, 1 - 7.0 U1 / 6.7", "1"),
}

#: Targets :func:`calibrate` fits; the rest (the 19x of Figure 9 and the restatements) are held out.
FIT_KEYS = tuple(list(_TARGET_SPECS)[:9])


@functools.lru_cache(maxsize=1)
def targets() -> dict[str, Target]:
    """The printed numbers the model predicts, read from ``data/vmotion2020`` (SI / fractions)."""
    out = {}
    for key, (table, quantity, cond, conditions, unit) in _TARGET_SPECS.items():
        row = _row(table, quantity, **cond)
        out[key] = Target(key, f"{STUDY}/{table}", row["locator"], quantity, conditions, unit, _si(row),
                          row["relation"])
    return out


def _fixed_params() -> dict:
    return {
        "guest_slice_s": _data_value("figure07_oracle_large_67_phases", "trace_install_alternation_interval",
                                       release="6.7", phase="trace"),
        "switchover_goal_s": _data_value("text_switchover", "dirty_page_send_goal"),
    }


def predict(params: Params, link_bps=None) -> dict[str, float]:
    """Model value of every target of :func:`targets` under ``params`` (same keys, same units)."""
    if not isinstance(params, Params):
        raise ValueError(f"params must be a vcperf.vmotion.Params; got {type(params).__name__}")
    w = workloads()
    names = ("typical", "large_1tb", "medium", "large", "very_large", "monster")
    cols = {k: np.array([getattr(w[n], k) for n in names]) for k in
            ("memory_bytes", "vcpus", "working_set_bytes", "baseline_tps")}
    m = {r: migrate(cols["memory_bytes"], cols["vcpus"], cols["working_set_bytes"], cols["baseline_tps"], r,
                    link_bps, params=params) for r in RELEASES}
    i = {n: k for k, n in enumerate(names)}
    a, b = m["6.7"], m["7.0u1"]
    L, T = i["large_1tb"], i["typical"]
    improvement = (1.0 - b.average_loss) / (1.0 - a.average_loss)
    ratio = b.migration_time_s / a.migration_time_s
    table1 = [i[n] for n in ("typical", "medium", "large", "very_large", "monster")]
    return {
        "trace_drop_large_67": float(a.trace_loss[L]),
        "precopy_drop_large_67": float(a.precopy_loss[L]),
        "switchover_stall_large_67": float(a.switchover_time_s[L]),
        "migration_time_ratio_large": float(ratio[L]),
        "avg_loss_large_67": float(a.average_loss[L]),
        "switchover_improvement_large": float(a.switchover_time_s[L] / b.switchover_time_s[L]),
        "typical_tps_70u1": float(b.average_throughput_tps[T]),
        "typical_tps_67": float(a.average_throughput_tps[T]),
        "typical_migration_time_reduction": float(1.0 - ratio[T]),
        "monster_improvement": float(improvement[i["monster"]]),
        "typical_improvement": float(improvement[T] - 1.0),
        "conclusion_improvement": float(improvement[table1].max()),
        "conclusion_duration_reduction": float(np.mean(1.0 - ratio[table1])),
    }


#: Start values of the fit (log-space search); orders of magnitude only.
_START = {
    "vcpu_stop_cost_s": 1e-5,
    "trace_install_cost_s_per_page": 1e-6,
    "dirty_bytes_per_transaction": 1e3,
    "metadata_cost_s_per_entry": 1e-8,
    "checkpoint_time_s": 0.3,
    "trace_pages_per_install_phase": 1e4,
}


def _fit(keys) -> Params:
    from scipy.optimize import least_squares

    tg = targets()
    fixed = _fixed_params()

    def make(x):
        return Params(**{k: float(val) for k, val in zip(FITTED, np.exp(x), strict=True)}, **fixed)

    def resid(x):
        pred = predict(make(x))
        return np.array([(pred[k] - tg[k].paper_value) / abs(tg[k].paper_value) for k in keys])

    x0 = np.log([_START[k] for k in FITTED])
    sol = least_squares(resid, x0, method="trf", x_scale=1.0, diff_step=1e-4, max_nfev=400)
    return make(sol.x)


@functools.lru_cache(maxsize=1)
def calibrate() -> Params:
    """Fit :data:`FITTED` to the :data:`FIT_KEYS` rows (least squares on relative errors, log scale).

    Six parameters against nine printed numbers: Figures 7 and 8 (the 72 vCPU / 1 TB VM: trace and
    pre-copy drops, six-second switch-over, halved migration time, 50 % average loss, tenfold
    switch-over improvement) and Figure 10 (typical VM: the two average tps during vMotion, halved migration time).
    Figure 9's 19x (monster VM) and the restated numbers are held out. ``guest_slice_s`` and
    ``switchover_goal_s`` are read as printed. Deterministic (fixed start, least squares).
    """
    return _fit(FIT_KEYS)


def calibrated() -> Params:
    """The cached calibrated parameters (:func:`calibrate`)."""
    return calibrate()


@functools.lru_cache(maxsize=1)
def leave_one_out() -> dict[str, float]:
    """Held-out relative error of each fitted target: refit without it, predict it."""
    tg = targets()
    out = {}
    for key in FIT_KEYS:
        p = _fit(tuple(k for k in FIT_KEYS if k != key))
        out[key] = (predict(p)[key] - tg[key].paper_value) / abs(tg[key].paper_value)
    return out


def parameter_table():
    """Calibrated parameters (:class:`Params` and the TPCx-HCI peak load): value, unit, source rows."""
    import pandas as pd

    p = calibrated()
    src = {
        "vcpu_stop_cost_s": "figure07 (trace drop), figure08 (loss), figure10",
        "trace_install_cost_s_per_page": "figure08 (time ratio, loss), figure10",
        "dirty_bytes_per_transaction": "figure07 (pre-copy drop)",
        "metadata_cost_s_per_entry": "figure07 (switch-over stall)",
        "checkpoint_time_s": "figure08 (switch-over improvement)",
        "trace_pages_per_install_phase": "figure08 (time ratio, loss), figure10",
        "guest_slice_s": "figure07 text ('every few milliseconds', lower bound)",
        "switchover_goal_s": "text_switchover (0.5 s goal)",
    }
    recs = [{"parameter": f.name, "value": getattr(p, f.name), "unit": PARAM_UNITS[f.name],
             "fitted": f.name in FITTED, "source": src[f.name]} for f in fields(p)]
    recs.append({"parameter": "tpcx_peak_vm_utilization", "value": calibrate_tpcx(), "unit": "fraction",
                 "fitted": True, "source": "text_tpcx_hci (148 failed checks on 6.7 U3), by calibrate_tpcx()"})
    return pd.DataFrame(recs)


#: TPCx-HCI numbers: key -> (quantity, release, conditions); only the 6.7 U3 failed checks are fitted.
_TPCX_SPECS = {
    "failed_checks_67u3": ("failed_checks", "6.7u3", "TPCx-HCI, 6.7 U3, total over 18 runs"),
    "invalid_runs_67u3": ("invalid_runs", "6.7u3", "TPCx-HCI, 6.7 U3, of 18 runs"),
    "failed_checks_70u1": ("failed_checks", "7.0u1", "TPCx-HCI, 7.0 U1, total over 18 runs"),
    "invalid_runs_70u1": ("invalid_runs", "7.0u1", "TPCx-HCI, 7.0 U1, of 18 runs"),
    "invalid_run_reduction": ("invalid_run_reduction", "7.0u1", "TPCx-HCI, 1 - 7.0 U1 / 6.7 U3 invalid runs"),
    "failed_check_reduction": ("failed_check_reduction", "7.0u1", "TPCx-HCI, 1 - 7.0 U1 / 6.7 U3 failed checks"),
}
TPCX_FIT_KEYS = ("failed_checks_67u3",)


@functools.lru_cache(maxsize=1)
def tpcx_targets() -> dict[str, Target]:
    """The printed TPCx-HCI results (``text_tpcx_hci.csv``), counts and fractions."""
    out = {}
    for key, (quantity, release, conditions) in _TPCX_SPECS.items():
        row = _row("text_tpcx_hci", quantity, release=release)
        out[key] = Target(key, f"{STUDY}/text_tpcx_hci", row["locator"], quantity, conditions,
                          "1", _si(row), row["relation"])
    return out


def fidelity_rows():
    """Paper-vs-model rows for every printed point value the model predicts (:mod:`vcperf.fidelity`)."""
    from vcperf.fidelity import FidelityRow

    rows = []
    for tg, pred, fit in ((targets(), predict(calibrated()), FIT_KEYS),
                          (tpcx_targets(), tpcx_predict(), TPCX_FIT_KEYS)):
        for key, t in tg.items():
            rows.append(FidelityRow(study=STUDY, source=t.source, locator=t.locator, quantity=key,
                                    conditions=t.conditions, unit=t.unit, paper_value=t.paper_value,
                                    model_value=pred[key], fitted=key in fit, relation=t.relation))
    return rows


def bound_checks():
    """The paper's inequality statements ("less than", "several", "a few") beside the model's value.

    These bound rather than state a number, so they are checked (``holds``) rather than given a
    relative error in the fidelity table. Returns a DataFrame with ``statement, source, relation,
    paper_bound, model_value, unit, holds``.
    """
    import pandas as pd

    p = calibrated()
    w = workloads()
    recs = []

    def add(statement, table, quantity, model_value, unit, **cond):
        row = _row(table, quantity, **cond)
        bound = _si(row)
        rel = row["relation"]
        ok = {"<": model_value < bound, "<=": model_value <= bound, ">": model_value > bound,
              ">=": model_value >= bound}[rel]
        recs.append({"statement": statement, "source": f"{STUDY}/{table}", "quantity": quantity,
                     "relation": rel, "paper_bound": bound, "model_value": float(model_value), "unit": unit,
                     "holds": bool(ok)})

    m70 = migrate_workload("large_1tb", "7.0u1")
    m67 = migrate_workload("large_1tb", "6.7")
    mt67 = migrate_workload("typical", "6.7")
    add("7.0 U1 average throughput loss, 72 vCPU / 1 TB", "figure08_oracle_large_67_vs_70u1",
        "avg_throughput_loss_during_vmotion", m70.average_loss, "1", release="7.0u1")
    add("6.7 trace install, smallest VM of the study (12 vCPU / 64 GB)", "text_page_tracing",
        "trace_install_duration_low", mt67.trace_time_s, "s")
    biggest = _data_value("text_page_tracing", "max_vm_memory", release="6.7")
    fewest = _data_value("testbed", "vm_vcpus_min", testbed="oracle_hammerdb", component="vm")
    big = trace_phase(vm_memory_bytes(biggest / 1e12, "TB"), fewest, "6.7")
    add("6.7 trace install, largest 6.7 VM (6 TB) with the study's fewest vCPUs (12)", "text_page_tracing",
        "trace_install_duration_high", big.duration_s, "s")
    add("6.7 cost of stopping the vCPUs of a typical VM (12 vCPUs)", "text_page_tracing", "vcpu_stop_cost",
        p.vcpu_stop_cost_s * w["typical"].vcpus, "s")
    smallest = vm_memory_bytes(_data_value("testbed", "vm_memory_min", testbed="tpcx_hci", component="vm") / 1e9,
                               "GB")
    add("one bitmap of a small VM (2 GB, smallest TPCx-HCI VM)", "figure03_switchover_process", "bitmap_size",
        switchover_metadata_bytes(smallest, "6.7") / BITMAPS_AT_SWITCHOVER, "B", vm="small")
    add("one bitmap of the large VM (1 TB)", "figure03_switchover_process", "bitmap_size",
        switchover_metadata_bytes(w["large_1tb"].memory_bytes, "6.7") / BITMAPS_AT_SWITCHOVER, "B", vm="large")
    add("6.7 bitmap transfer at switch-over, 1 TB VM", "text_switchover", "bitmap_transfer_time_large_vm",
        metadata_entries(m67.precopy.metadata_bytes, "6.7") * p.metadata_cost_s_per_entry, "s", vm="large")
    add("migration time, large (1 TB) over typical VM, 6.7", "figure06_oracle_large_67",
        "migration_time_large_over_typical", m67.migration_time_s / mt67.migration_time_s, "1")
    t, tps = throughput_series(mt67, 1.0, 0.0, float(mt67.migration_time_s) + 1.0)
    add("lowest 1-s throughput of the typical VM during 6.7 vMotion (never zero)", "figure05_oracle_typical_67",
        "oracle_commits_per_s_min", tps.min(), "1/s")
    add("6.7 U3 longest vMotion delay in TPCx-HCI (several seconds)", "text_tpcx_hci", "vmotion_downtime",
        tpcx_longest_delay_s("6.7"), "s", release="6.7u3")
    return pd.DataFrame(recs)


def table1_model():
    """Table 1's five VMs with the model's migration under both releases (Figure 9)."""
    import pandas as pd

    recs = []
    for name in ("typical", "medium", "large", "very_large", "monster"):
        w = workloads()[name]
        a, b = migrate_workload(name, "6.7"), migrate_workload(name, "7.0u1")
        recs.append({
            "config": name, "vcpus": w.vcpus, "memory_GiB": w.memory_bytes / 2**30,
            "sga_GiB": w.working_set_bytes / 2**30, "baseline_tpm": w.baseline_tps * 60,
            "migration_time_67_s": float(a.migration_time_s), "migration_time_70u1_s": float(b.migration_time_s),
            "avg_loss_67": float(a.average_loss), "avg_loss_70u1": float(b.average_loss),
            "switchover_67_s": float(a.switchover_time_s), "switchover_70u1_s": float(b.switchover_time_s),
            "throughput_improvement": float((1 - b.average_loss) / (1 - a.average_loss)),
        })
    return pd.DataFrame(recs)


# --------------------------------------------------------------------------------------------------
# 5. TPCx-HCI long tail (Monte Carlo)
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TpcxSetup:
    """The TPCx-HCI experiment as printed (``text_tpcx_hci.csv``, ``testbed.csv``, Figure 11), in SI."""

    vms: int
    vcpus: np.ndarray  # per VM
    memory_bytes: np.ndarray  # per VM
    checks_per_vm_phase: np.ndarray  # per VM: transaction types checked in each phase
    phases: int
    phase_s: float
    migrations_per_run: int
    runs: int
    load_variation: float
    response_time_s: float
    link_bps: float


@functools.lru_cache(maxsize=1)
def tpcx_setup() -> TpcxSetup:
    """Read the TPCx-HCI setup from ``data/vmotion2020``.

    The twelve VM types of a tile are spread geometrically over the printed ranges (2-28 vCPUs,
    2-98 GB), vCPUs and memory rising together (the paper prints only the ranges). The 2,000 checks
    are spread evenly over VMs and phases (3 or 4 transaction types per VM and phase).
    """
    t = "text_tpcx_hci"
    tb = {"testbed": "tpcx_hci", "component": "vm"}
    per_tile = int(_data_value("testbed", "vms_per_tile", **tb))
    tiles = int(_data_value("testbed", "tiles", **tb))
    vcpus = np.round(np.geomspace(_data_value("testbed", "vm_vcpus_min", **tb),
                                  _data_value("testbed", "vm_vcpus_max", **tb), per_tile))
    mem = np.geomspace(_data_value("testbed", "vm_memory_min", **tb), _data_value("testbed", "vm_memory_max", **tb),
                       per_tile) / 1e9
    vms = per_tile * tiles
    phases = int(_data_value(t, "phases"))
    checks = int(_data_value(t, "response_time_checks"))
    base, extra = divmod(checks, vms * phases)
    cpv = np.full(vms, float(base))
    cpv[: extra // phases] += 1.0  # VMs with one more transaction type checked in every phase
    net = {"testbed": "tpcx_hci", "component": "network"}
    return TpcxSetup(
        vms=vms,
        vcpus=np.tile(vcpus, tiles),
        memory_bytes=np.array([vm_memory_bytes(m, "GB") for m in np.tile(mem, tiles)]),
        checks_per_vm_phase=cpv,
        phases=phases,
        phase_s=_data_value(t, "phase_duration"),
        migrations_per_run=int(_data_value("figure11_tpcx_hci_profile", "migrations", phase="run")),
        runs=int(_data_value(t, "runs_per_data_point")),
        load_variation=_data_value(t, "per_vm_load_variation"),
        response_time_s=_data_value(t, "example_response_time"),
        link_bps=_data_value("testbed", "vmotion_ports", **net) * _data_value("testbed", "nic_speed", **net),
    )


def migration_delay_area_s2(memory_bytes, vcpus, utilization, release, link_bps, *, params: Params | None = None):
    """Integral over time of the extra queueing delay one migration inflicts on a loaded VM (s^2).

    ``004_ea13268657e6b3b0.txt``, "Impact of vMotion Performance on TPCx-HCI".

    Fluid queue of the VM's work: demand ``u`` (fraction of its vCPUs), capacity ``1 - trace_loss``
    during the trace phase, full capacity during pre-copy (a lightly dirtying guest) and zero during
    the switch-over stall ``S``. Trace phase with ``u > c``: backlog grows to ``Q = (u - c) T`` and
    drains at ``1 - u``: area ``Q T / (2 c) + Q**2 / (2 (1 - u))``. Stall: arrivals wait the rest of
    the stall, the work piled up (``u S``) drains at ``1 - u``: ``S**2 / 2 + (u S)**2 / (2 (1 - u))``.
    Divided by the phase length this is the rise of the mean response time.

    Parameters
    ----------
    memory_bytes, vcpus : float or array_like
        VM size (bytes, > 0) and vCPUs ([1, 4096]).
    utilization : float or array_like
        Demand as a fraction of the VM's capacity, in [0, 1).
    release : {"6.7", "7.0u1"}
    link_bps : float
        vMotion line rate (bit/s), > 0.
    params : Params, optional
    """
    mem = v.positive("memory_bytes", memory_bytes)
    cpus = v.check_range("vcpus", vcpus, 1, 4096)
    u = v.fraction("utilization", utilization)
    _check_release(release)
    v.positive("link_bps", link_bps)
    p = calibrated() if params is None else params
    tr = _trace_phase(mem, cpus, release, p)
    stall = precopy(mem, 0.0, link_bps, release=release, params=p).switchover_time_s
    return _delay_area(tr.duration_s, tr.throughput_loss, stall, u)


def _delay_area(trace_s, trace_loss, stall_s, u):
    c = 1.0 - trace_loss
    q = np.maximum(u - c, 0.0) * trace_s
    trace_area = q * trace_s / (2.0 * c) + q**2 / (2.0 * (1.0 - u))
    stall_area = stall_s**2 / 2.0 + (u * stall_s) ** 2 / (2.0 * (1.0 - u))
    return trace_area + stall_area


@dataclass(frozen=True)
class TpcxResult:
    """Monte Carlo outcome for one release: per simulated run, failed checks and validity."""

    release: str
    failed_checks: np.ndarray  # per simulated run
    invalid: np.ndarray  # per simulated run (bool)

    def expected_failed_checks(self, runs: int) -> float:
        """Mean failed checks over ``runs`` runs (the paper sums over 18)."""
        return float(self.failed_checks.mean() * v.integer("runs", runs, 1))

    def expected_invalid_runs(self, runs: int) -> float:
        """Mean number of invalid runs among ``runs``."""
        return float(self.invalid.mean() * v.integer("runs", runs, 1))


def tpcx_monte_carlo(release, peak_utilization, *, replications: int = 200, seed: int = 2020,
                     params: Params | None = None) -> TpcxResult:
    """Average-vs-90th-percentile checks of TPCx-HCI runs with migrations (seeded, vectorized).

    ``004_ea13268657e6b3b0.txt``, "Impact of vMotion Performance on TPCx-HCI" (14 of 18 vs 2 of 18
    invalid runs, 148 vs 4 failed checks); setup from "Load-Generation Software and Testbed".

    Each simulated run has the printed number of migrations (158); each moves a random VM in a random
    phase while that VM's load is drawn log-uniformly over the printed 16x range below
    ``peak_utilization``. A migration raises the mean response time of the VM's transactions in
    that phase by :func:`migration_delay_area_s2` / phase length; with exponential response times
    (90th percentile = ln 10 x mean) the check "average < 90th percentile" fails once the rise
    exceeds ``(ln 10 - 1) x`` the undisturbed response time (the paper's 10-ms example). All
    transaction types of the VM in that phase fail together; one failed check invalidates the run.

    Parameters
    ----------
    release : {"6.7", "7.0u1"}
    peak_utilization : float
        Highest load of a VM as a fraction of its vCPUs, in (0, 1). Fitted by
        :func:`calibrate_tpcx` to the 6.7 U3 failed checks.
    replications : int
        Simulated sets of 18 runs, in [1, 10000] (default 200).
    seed : int
        Seed of the random generator (default 2020), >= 0.
    params : Params, optional
    """
    _check_release(release)
    peak = float(v.check_range("peak_utilization", peak_utilization, 0.0, 1.0, lo_open=True, hi_open=True))
    reps = v.integer("replications", replications, 1, 10000)
    v.integer("seed", seed, 0)
    p = calibrated() if params is None else params
    s = tpcx_setup()
    n_runs = reps * s.runs
    rng = np.random.default_rng(seed)
    shape = (n_runs, s.migrations_per_run)
    vm_idx = rng.integers(0, s.vms, shape)
    phase = rng.integers(0, s.phases, shape)
    u = peak * s.load_variation ** (-rng.random(shape))
    tr = _trace_phase(s.memory_bytes, s.vcpus, release, p)  # per VM, then gathered per migration
    stall = precopy(s.memory_bytes, 0.0, s.link_bps, release=release, params=p).switchover_time_s
    area = _delay_area(tr.duration_s[vm_idx], tr.throughput_loss[vm_idx], stall[vm_idx], u)
    # sum the delays of migrations of the same VM in the same phase of the same run
    cell = (np.arange(n_runs)[:, None] * s.vms + vm_idx) * s.phases + phase
    rise = np.bincount(cell.ravel(), weights=area.ravel(), minlength=n_runs * s.vms * s.phases) / s.phase_s
    failed_cell = rise > (math.log(10.0) - 1.0) * s.response_time_s
    checks = failed_cell.reshape(n_runs, s.vms, s.phases) * s.checks_per_vm_phase[None, :, None]
    failed = checks.sum(axis=(1, 2))
    return TpcxResult(release=release, failed_checks=failed, invalid=failed > 0)


@functools.lru_cache(maxsize=1)
def calibrate_tpcx() -> float:
    """Peak VM utilization (fraction) that reproduces the 6.7 U3 failed checks (148 over 18 runs).

    Bisection on common random numbers (the count is non-decreasing in the peak). One parameter,
    one number; the invalid runs of 6.7 U3 and everything of 7.0 U1 are held out.
    """
    target = _data_value("text_tpcx_hci", "failed_checks", release="6.7u3")
    runs = tpcx_setup().runs
    lo, hi = 0.05, 0.999
    for _ in range(24):
        mid = 0.5 * (lo + hi)
        if tpcx_monte_carlo("6.7", mid).expected_failed_checks(runs) < target:
            lo = mid
        else:
            hi = mid
    f_lo = tpcx_monte_carlo("6.7", lo).expected_failed_checks(runs)
    f_hi = tpcx_monte_carlo("6.7", hi).expected_failed_checks(runs)
    return float(hi if abs(f_hi - target) <= abs(f_lo - target) else lo)


def tpcx_longest_delay_s(release, peak_utilization=None, *, params: Params | None = None) -> float:
    """Longest extra delay a transaction sees in one TPCx-HCI migration (s), over the VM types.

    The larger of the backlog left by the trace phase (``(u - c) T`` seconds of work) and the
    switch-over stall, for a VM at ``peak_utilization`` (default :func:`calibrate_tpcx`).
    """
    _check_release(release)
    peak = calibrate_tpcx() if peak_utilization is None else peak_utilization
    u = float(v.check_range("peak_utilization", peak, 0.0, 1.0, lo_open=True, hi_open=True))
    p = calibrated() if params is None else params
    s = tpcx_setup()
    tr = _trace_phase(s.memory_bytes, s.vcpus, release, p)
    stall = precopy(s.memory_bytes, 0.0, s.link_bps, release=release, params=p).switchover_time_s
    backlog = np.maximum(u - (1.0 - tr.throughput_loss), 0.0) * tr.duration_s
    return float(np.max(np.maximum(backlog, stall)))


@functools.lru_cache(maxsize=1)
def tpcx_predict() -> dict[str, float]:
    """Model values of the TPCx-HCI numbers (failed checks, invalid runs, reductions)."""
    peak = calibrate_tpcx()
    runs = tpcx_setup().runs
    a, b = tpcx_monte_carlo("6.7", peak), tpcx_monte_carlo("7.0u1", peak)
    inv_a, inv_b = a.expected_invalid_runs(runs), b.expected_invalid_runs(runs)
    fc_a, fc_b = a.expected_failed_checks(runs), b.expected_failed_checks(runs)
    return {
        "failed_checks_67u3": fc_a, "invalid_runs_67u3": inv_a,
        "failed_checks_70u1": fc_b, "invalid_runs_70u1": inv_b,
        "invalid_run_reduction": 1.0 - inv_b / inv_a, "failed_check_reduction": 1.0 - fc_b / fc_a,
    }
