"""Shared pieces of the vMotion model: constants, parameters, input checks (``004_ea13268657e6b3b0.txt``).

Physical constants of x86 paging and the parameter dataclasses live here so that every model file
(:mod:`~vcperf.vmotion.memory`, :mod:`~vcperf.vmotion.trace`, :mod:`~vcperf.vmotion.switchover`,
:mod:`~vcperf.vmotion.migration`, :mod:`~vcperf.vmotion.tpcx`) uses the same ones. Nothing here reads
``data/``: the values of :class:`Params` come from :func:`vcperf.vmotion.calibrate`, those of
:class:`Settings` (two printed settings of vMotion itself) from :func:`vcperf.vmotion.settings`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vcperf import _validate as v

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


@dataclass(frozen=True)
class TpcxParams:
    """Parameters of the TPCx-HCI long-tail model (:mod:`vcperf.vmotion.tpcx`).

    Attributes
    ----------
    peak_vm_utilization : float
        Highest load of a TPCx-HCI VM as a fraction of its vCPUs, in (0, 1). Fitted with
        ``dirty_scale`` to the 148 failed 6.7 U3 and 4 failed 7.0 U1 checks (``text_tpcx_hci.csv``).
    dirty_scale : float
        Memory a TPCx-HCI VM (PostgreSQL) dirties per busy vCPU-second, relative to the Oracle VM
        under HammerDB (dimensionless, > 0). The seed prints no TPCx-HCI dirty rate; 1.0 (the
        default) is the Oracle VM's. Fitted with the peak load to the two failed-check counts: the
        seed attributes the 6.7 U3 failures to multi-second switch-over downtimes, and the few
        7.0 U1 failures bound how often SDPS may throttle the largest VMs.
    """

    peak_vm_utilization: float
    dirty_scale: float = 1.0


@dataclass(frozen=True)
class Params:
    """Calibrated parameters of the vMotion model (SI units); see :func:`vcperf.vmotion.calibrate`.

    Attributes
    ----------
    vcpu_stop_cost_s : float
        s per vCPU: time added to one 6.7 stop-based phase (trace install, re-install, large-page
        rebuild) per vCPU that must be stopped, TLB-flushed and resumed.
    trace_install_cost_s_per_page : float
        vCPU-seconds to install (write-protect) one trace entry; also one 7.0 U1 trace fire or split
        handled by the faulting vCPU, and one page-table entry remapped by the 6.7 large-page rebuild.
    dirty_bytes_per_transaction : float
        Bytes of distinct guest pages the Oracle workload dirties per transaction (sets the dirty
        rate from the throughput).
    metadata_cost_s_per_entry : float
        s to process one switch-over metadata entry: one bitmap bit (a page of guest memory, 6.7)
        or one listed page number (7.0 U1).
    checkpoint_time_s : float
        Device-state checkpoint, transfer and restore at switch-over.
    trace_pages_per_install_phase : float
        4 KB traces installed by one 6.7 stop-based install phase (the batch all vCPUs share
        between two guest slices); in the pre-copy, the chunk of transmitted pages one stop-based
        phase re-traces.
    zeroing_cpu_s_per_byte : float
        CPU-seconds per byte a 6.7 destination stream worker spends zeroing each newly allocated
        large page before receiving into it (round 0 only; "Improved Heuristics to Minimize Zeroing
        Cost": 7.0 U1 skips it when the source 2 MB range is backed large).
    tpcx : TpcxParams
        The TPCx-HCI part.
    """

    vcpu_stop_cost_s: float
    trace_install_cost_s_per_page: float
    dirty_bytes_per_transaction: float
    metadata_cost_s_per_entry: float
    checkpoint_time_s: float
    trace_pages_per_install_phase: float
    zeroing_cpu_s_per_byte: float
    tpcx: TpcxParams


#: Parameter name -> (unit, meaning), one per float leaf of :class:`Params`.
PARAM_DOCS = {
    "vcpu_stop_cost_s": ("s per vCPU", "stop, TLB flush and resume of one vCPU per 6.7 stop-based phase"),
    "trace_install_cost_s_per_page": ("s per trace", "vCPU time to install (write-protect) one trace entry; one "
                                                     "7.0 U1 trace fire or split"),
    "dirty_bytes_per_transaction": ("B per transaction", "distinct guest bytes the Oracle workload dirties per "
                                                         "transaction"),
    "metadata_cost_s_per_entry": ("s per entry", "destination cost of one switch-over metadata entry (bitmap bit "
                                                 "in 6.7, page number in 7.0 U1)"),
    "checkpoint_time_s": ("s", "device-state checkpoint, transfer and restore at switch-over"),
    "trace_pages_per_install_phase": ("traces per phase", "4 KB traces installed by one 6.7 stop-based phase "
                                                          "(also the sent chunk one phase re-traces)"),
    "zeroing_cpu_s_per_byte": ("CPU s per B", "6.7 destination zeroing of newly allocated large pages, per byte "
                                               "received in round 0 (skipped by 7.0 U1)"),
    "tpcx.peak_vm_utilization": ("fraction", "highest load of a TPCx-HCI VM, share of its vCPUs"),
    "tpcx.dirty_scale": ("1", "TPCx-HCI VM's dirty rate per busy vCPU relative to the Oracle VM's"),
}


@dataclass(frozen=True)
class Settings:
    """Two printed settings of vMotion itself (not fitted; read by :func:`vcperf.vmotion.settings`).

    Attributes
    ----------
    switchover_goal_s : float
        Convergence goal: the remaining dirty pages must be sendable within it (0.5 s, switch-over
        section).
    guest_slice_s : float
        Guest slice between two 6.7 stop-based install phases (vCPUs alternate "every few
        milliseconds": the implied lower bound, 1 ms).
    switchover_time_goal_s : float
        Goal for the whole switch-over stall (checkpoint + last pages + metadata): "under one
        second" (switch-over section). 7.0 U1's stop rule budgets within it.
    stream_bytes_per_cpu_s : float
        CPU ceiling of one vMotion stream (its worker thread saturates one core), bytes per
        CPU-second: 18 Gb/s (external, VMware KB 323379; ``external_vmotion_streams.csv``).
    """

    switchover_goal_s: float
    guest_slice_s: float
    switchover_time_goal_s: float = 1.0
    stream_bytes_per_cpu_s: float = float("inf")


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


def vm_memory_bytes(value, unit: str) -> float:
    """A VM memory size printed in GB/TB as bytes: VM memory is binary (1 GB = 262,144 4 KB pages)."""
    factor = {"GB": 2.0**30, "TB": 2.0**40}
    v.choice("unit", unit, tuple(factor))
    return v.scalar("value", value, 0.0, float("inf"), hi_open=True) * factor[unit]


def check_release(release) -> str:
    return v.choice("release", release, RELEASES)


def check_params(params) -> Params:
    if not isinstance(params, Params):
        raise ValueError(f"params must be a vcperf.vmotion.Params (from vcperf.vmotion.calibrate()); "
                         f"got {type(params).__name__}")
    return params


def check_settings(settings) -> Settings:
    if not isinstance(settings, Settings):
        raise ValueError(f"settings must be a vcperf.vmotion.Settings (from vcperf.vmotion.settings()); "
                         f"got {type(settings).__name__}")
    return settings


def check_le(name, value, bound):
    over = np.asarray(value) > np.asarray(bound)
    if np.any(over):
        first = np.broadcast_to(value, over.shape)[over].flat[0]
        limit = np.broadcast_to(bound, over.shape)[over].flat[0]
        raise ValueError(f"{name} must be in [0, memory_bytes={limit:g}]; got {first:g}")
