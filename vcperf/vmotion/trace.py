"""Page tracing: 6.7 stop-based 4 KB traces vs 7.0 U1 loose 1 GB traces (``004_ea13268657e6b3b0.txt``).

"vSphere 6.7 Page Tracing", "vSphere 7.0 U1 Page Tracing", Figures 1-2, Figure 7 text.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vcperf import _validate as v
from vcperf.vmotion.core import (
    PAGE_BYTES,
    PAGES_PER_1GB,
    PAGES_PER_2MB,
    Settings,
    check_params,
    check_release,
    check_settings,
)
from vcperf.vmotion.params import Params


@dataclass(frozen=True)
class TracePhase:
    """Guest trace phase (arrays): duration and the guest's throughput loss while it lasts."""

    duration_s: np.ndarray
    throughput_loss: np.ndarray
    traces: np.ndarray


def trace_phase(memory_bytes, vcpus, release, *, params: Params, settings: Settings) -> TracePhase:
    """Duration and guest throughput loss of the initial trace install (phase 1).

    ``004_ea13268657e6b3b0.txt``, "vSphere 6.7 Page Tracing", "vSphere 7.0 U1 Page Tracing",
    Figures 1-2.

    6.7 (stop-based): one trace per 4 KB page, ``N = M / 4 KiB``, installed in phases of ``P``
    traces. Each phase stops all ``V`` vCPUs and resumes them (``c_stop V``: "the more vCPUs the VM is
    configured with, the longer it takes to stop and resume them") and installs its ``P`` traces
    (``P c_install``): the write-protect stores are shared among the stopped vCPUs ("distribute the
    work of installing the traces to all the vCPUs"), but every vCPU must drop each newly traced
    page from its own TLB before it resumes ("flushes each vCPU's TLB ... and ensures the modified
    page table entries are honored"), so the install part does not shrink with ``V``. A guest slice
    ``tau`` follows. Per phase the guest is stalled ``s = c_stop V + P c_install`` (``checked_stop_phase_stall_s``):
    loss ``s / (s + tau)``, duration ``N / P (s + tau)``, both growing with every vCPU from one on:
    small VMs trace in seconds (the seed: "This approach worked fine for small-to-medium-sized VMs,
    because stopping a few vCPUs is not too expensive"), large ones lose most of their throughput.
    7.0 U1 (loose): one trace per 1 GB region, ``w = ceil(M / 1 GiB) c_install`` of work on one vCPU
    while the others run (lazy TLB flush); like 6.7 it hands its vCPU back to the guest for a slice
    ``tau`` after each batch of ``P`` traces, so the phase lasts ``w + ceil(N / P) tau`` and the VM
    loses ``w / duration / V`` (below 1 even for one vCPU).

    Parameters
    ----------
    memory_bytes : float or array_like
        Guest memory (bytes), > 0.
    vcpus : float or array_like
        vCPUs, in [1, 4096].
    release : {"6.7", "7.0u1"}
    params : Params
        :func:`vcperf.vmotion.calibrate`.
    settings : Settings
        :func:`vcperf.vmotion.settings` (the guest slice ``tau``).

    Examples
    --------
    >>> from vcperf import vmotion as vm
    >>> p, s = vm.calibrate(), vm.settings()
    >>> t67 = vm.trace_phase(64 * 2**30, 12, "6.7", params=p, settings=s)
    >>> t70 = vm.trace_phase(64 * 2**30, 12, "7.0u1", params=p, settings=s)
    >>> bool(t70.duration_s < t67.duration_s)
    True
    """
    mem = v.positive("memory_bytes", memory_bytes)
    cpus = v.check_range("vcpus", vcpus, 1, 4096)
    v.broadcast(memory_bytes=mem, vcpus=cpus)
    check_release(release)
    return checked_trace_phase(mem, cpus, release, check_params(params), check_settings(settings))


def checked_trace_phase(mem, cpus, release, p: Params, s: Settings) -> TracePhase:
    """:func:`trace_phase` on checked values."""
    tau = s.guest_slice_s
    if release == "6.7":
        traces = np.ceil(mem / PAGE_BYTES)
        per_phase = p.trace_pages_per_install_phase
        stall = checked_stop_phase_stall_s(cpus, per_phase, p)
        loss = stall / (stall + tau)
        duration = traces / per_phase * (stall + tau)
    else:
        traces = np.ceil(mem / (PAGE_BYTES * PAGES_PER_1GB))
        work = traces * p.trace_install_cost_s_per_page
        chunks = np.ceil(traces / p.trace_pages_per_install_phase)
        duration = work + chunks * tau
        loss = work / duration / cpus
    b = np.broadcast(mem, cpus).shape
    return TracePhase(np.broadcast_to(duration, b) * 1.0, np.broadcast_to(loss, b) * 1.0,
                      np.broadcast_to(traces, b) * 1.0)


def checked_stop_phase_stall_s(cpus, pages, p: Params):
    """Guest stall (s) of one 6.7 stop-based phase that (re-)traces ``pages`` 4 KB pages on ``cpus`` vCPUs:
    stop and resume every vCPU, then the pages' install, which every vCPU's TLB shoot-down makes
    no shorter with more vCPUs (:func:`trace_phase`)."""
    return p.vcpu_stop_cost_s * cpus + pages * p.trace_install_cost_s_per_page


def precopy_trace_loss(dirty_rate_bytes_per_s, vcpus, working_set_bytes, precopy_time_s, release, *,
                       params: Params, transfer_rate_bytes_per_s, dirty_share=1.0):
    """Guest throughput loss (fraction) from trace fires and re-traces during a pre-copy round.

    ``004_ea13268657e6b3b0.txt``, Figure 7 text (the ~30 % pre-copy drop on 6.7: "whenever vMotion
    transmits a dirty page, it needs to reinstall a trace on that page"), "vSphere 7.0 U1 Page
    Tracing" (one vCPU does the tracing work; a fire impacts only one vCPU; "a page is either traced
    or selected for transmission") and "Large Trace Install" (the 1 GB -> 2 MB -> 4 KB split).

    Every fire is a fault handled by the faulting vCPU (``c_fire``, i.e. ``c_fire / V`` of the VM). A
    fired page stays untraced until vMotion sends it, so ``dirty_rate_bytes_per_s`` is the rate of
    first writes to traced pages (bounded by the hot working set over a long round 0: see
    :func:`vcperf.vmotion.precopy`). Sent dirty pages are re-traced:

    - 6.7 re-traces with its stop-based phases, one per transmitted chunk of ``P`` pages (the install
      phase's batch) that holds a dirty page: ``c_stop V`` per phase plus ``c_install`` per page, with
      all vCPUs stopped (the stall of the trace phase's phases, :func:`trace_phase`).
      A chunk holds a dirty page with probability ``1 - exp(-P s)`` for a dirty share ``s`` of the
      pages sent (1 in a re-send round). The loss therefore follows the transfer, not the fire rate:
      a faster link re-traces more often.
    - 7.0 U1 re-traces loosely on the faulting vCPU (``c_install`` per page after its ``c_fire``) and
      splits each 1 GB trace into 512 2 MB traces and each 2 MB trace into 512 4 KB traces once over
      the working set (one ``c_install`` per split, spread over ``precopy_time_s``; the seed: the extra
      trace-fire work is "negligible compared to the savings from the trace-install path").

    With ``a`` the extra vCPU work per unit of the VM's time, the loss is ``a / (1 + a)`` (a slowed
    guest fires less).

    Parameters
    ----------
    dirty_rate_bytes_per_s : float or array_like
        First writes to traced pages (bytes/s), >= 0.
    vcpus : float or array_like
        vCPUs, in [1, 4096].
    working_set_bytes : float or array_like
        Writable working set (bytes), >= 0 (the 7.0 U1 splits; 0 once they are done).
    precopy_time_s : float or array_like
        Duration of the round (s), > 0.
    release : {"6.7", "7.0u1"}
    params : Params
    transfer_rate_bytes_per_s : float or array_like
        Bytes/s vMotion sends during the round, > 0.
    dirty_share : float or array_like
        Share of the sent pages that are dirty, in [0, 1] (default 1: a re-send round).

    Examples
    --------
    >>> from vcperf import vmotion as vm
    >>> p = vm.calibrate()
    >>> loss = vm.precopy_trace_loss(1e9, 12, 25 * 2**30, 10.0, "6.7", params=p, transfer_rate_bytes_per_s=18e9)
    >>> bool(0 < loss < 1)
    True
    """
    d0 = v.nonneg("dirty_rate_bytes_per_s", dirty_rate_bytes_per_s)
    cpus = v.check_range("vcpus", vcpus, 1, 4096)
    ws = v.nonneg("working_set_bytes", working_set_bytes)
    t = v.positive("precopy_time_s", precopy_time_s)
    check_release(release)
    rate = v.positive("transfer_rate_bytes_per_s", transfer_rate_bytes_per_s)
    share = v.fraction("dirty_share", dirty_share, hi_open=False)
    v.broadcast(dirty_rate_bytes_per_s=d0, vcpus=cpus, working_set_bytes=ws, precopy_time_s=t,
                transfer_rate_bytes_per_s=rate, dirty_share=share)
    return checked_precopy_round_loss(d0, share, rate, cpus, ws, t, release, check_params(params))


def checked_precopy_round_loss(fire_rate, dirty_share, transfer_rate, cpus, ws, t, release, p: Params):
    """:func:`precopy_trace_loss` without input checks (arrays); ``fire_rate`` in bytes/s."""
    fires_per_s = fire_rate / PAGE_BYTES
    c = p.trace_install_cost_s_per_page
    if release == "6.7":
        per_phase = p.trace_pages_per_install_phase
        sent_pages = transfer_rate / PAGE_BYTES
        stops_per_s = sent_pages / per_phase * -np.expm1(-per_phase * dirty_share)
        a = (stops_per_s * p.vcpu_stop_cost_s * cpus + sent_pages * dirty_share * c
             + fires_per_s * p.trace_fire_cost_s / cpus)
    else:
        splits = (np.minimum(fires_per_s * t, np.ceil(ws / (PAGE_BYTES * PAGES_PER_2MB)))
                  + np.minimum(fires_per_s * t, np.ceil(ws / (PAGE_BYTES * PAGES_PER_1GB))))
        a = (fires_per_s * (p.trace_fire_cost_s + c) + splits * c / t) / cpus  # the fire, then the loose re-install
    return a / (1.0 + a)
