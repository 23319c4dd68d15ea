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
    Params,
    Settings,
    check_params,
    check_release,
    check_settings,
)


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
    traces. Each phase stops all ``V`` vCPUs (``c_stop V``), shares the ``P c_install`` of install
    work among them (``P c_install / V``), flushes and resumes; a guest slice ``tau`` follows. Per
    phase the guest is stalled ``s = c_stop V + P c_install / V``: loss ``s / (s + tau)``, duration
    ``N / P (s + tau)``. The stall is smallest at ``V = sqrt(P c_install / c_stop)``; above it the
    stop of ever more vCPUs dominates (the paper's large-VM problem). 7.0 U1 (loose): one trace per
    1 GB region, ``w = ceil(M / 1 GiB) c_install`` of work on one vCPU while the others run (lazy TLB
    flush); like 6.7 it hands its vCPU back to the guest for a slice ``tau`` after each batch of
    ``P`` traces, so the phase lasts ``w + ceil(N / P) tau`` and the VM loses ``w / duration / V``
    (below 1 even for one vCPU).

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
    """
    mem = v.positive("memory_bytes", memory_bytes)
    cpus = v.check_range("vcpus", vcpus, 1, 4096)
    check_release(release)
    return _trace_phase(mem, cpus, release, check_params(params), check_settings(settings))


def _trace_phase(mem, cpus, release, p: Params, s: Settings) -> TracePhase:
    tau = s.guest_slice_s
    if release == "6.7":
        traces = np.ceil(mem / PAGE_BYTES)
        per_phase = p.trace_pages_per_install_phase
        stall = p.vcpu_stop_cost_s * cpus + per_phase * p.trace_install_cost_s_per_page / cpus
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


def precopy_trace_loss(dirty_rate_bytes_per_s, vcpus, working_set_bytes, precopy_time_s, release, *,
                       params: Params):
    """Guest throughput loss (fraction) from trace fires and re-installs during pre-copy.

    ``004_ea13268657e6b3b0.txt``, Figure 7 text (the ~30 % pre-copy drop on 6.7) and "Large Trace
    Install" (the 1 GB -> 2 MB -> 4 KB split on a trace fire).

    Every first write to a traced 4 KB page fires, and vMotion re-installs the trace of each page it
    re-sends. 6.7 re-installs with the same stop-based phases as the initial trace: a page's share
    of a phase stall is ``(c_stop V + P c_install / V) / P``; 7.0 U1 handles the fire and re-installs
    on the faulting vCPU alone (``c_install`` of one vCPU, i.e. ``c_install / V`` of the VM) plus the one-time
    split of each 1 GB trace into 512 2 MB traces and of each 2 MB trace into 512 4 KB traces over
    the working set, spread over the pre-copy. A split fills one new page table: it is charged one
    ``c_install`` (the seed: the extra trace-fire work is "negligible compared to the savings from
    the trace-install path"; charging 512 installs per split made it cost a 12-vCPU VM a fifth of its
    throughput, against the text). A slowed guest fires
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
    params : Params
    """
    d0 = v.nonneg("dirty_rate_bytes_per_s", dirty_rate_bytes_per_s)
    cpus = v.check_range("vcpus", vcpus, 1, 4096)
    ws = v.nonneg("working_set_bytes", working_set_bytes)
    t = v.positive("precopy_time_s", precopy_time_s)
    check_release(release)
    return _precopy_loss_from_rate(d0, cpus, ws, t, release, check_params(params))


def _precopy_loss_from_rate(d0, cpus, ws, t, release, p: Params):
    fires_per_s = d0 / PAGE_BYTES
    if release == "6.7":
        per_phase = p.trace_pages_per_install_phase
        a = fires_per_s * (p.vcpu_stop_cost_s * cpus + per_phase * p.trace_install_cost_s_per_page / cpus) / per_phase
    else:
        splits = (np.minimum(fires_per_s * t, np.ceil(ws / (PAGE_BYTES * PAGES_PER_2MB)))
                  + np.minimum(fires_per_s * t, np.ceil(ws / (PAGE_BYTES * PAGES_PER_1GB))))
        c = p.trace_install_cost_s_per_page
        work = fires_per_s * c + splits * c / t
        a = work / cpus
    return a / (1.0 + a)
