"""Shared pieces of the vMotion model: x86 paging constants, releases, settings and VM records, input checks.

Every model file (:mod:`~vcperf.vmotion.memory`, :mod:`~vcperf.vmotion.trace`,
:mod:`~vcperf.vmotion.switchover`, :mod:`~vcperf.vmotion.migration`, :mod:`~vcperf.vmotion.tpcx`) uses
the same ones. Nothing here reads ``data/``: the values of :class:`Settings` (printed settings of
vMotion itself) come from :func:`vcperf.vmotion.settings`, the :class:`Workload` records from
:func:`vcperf.vmotion.workloads`, the parameters (:mod:`vcperf.vmotion.params`) from
:func:`vcperf.vmotion.calibrate`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vcperf import _validate as v
from vcperf.vmotion.limits import Limits
from vcperf.vmotion.params import Params

#: The two releases the study compares.
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
#: Largest vMotion TCP socket buffer (bytes) the RTT-driven resizing reaches: a named modelling default,
#: not a VMware figure. VMware documents the standard buffer (~0.5 MB) and that Metro / long-distance
#: vMotion resizes it from the observed RTT (``external_vmotion_streams.csv``), but no ceiling. 16 MiB
#: covers VMware's documented envelope with margin (250 Mbit/s per vMotion at the supported 150 ms
#: needs a 4.7 MB window) and is the common ceiling of TCP buffer auto-tuning on hosts tuned for long
#: fat networks; beyond it a stream is window-bound at ``16 MiB / RTT`` (0.9 Gbit/s at 150 ms).
#: Change it with ``dataclasses.replace(settings, max_socket_buffer_bytes=...)``.
MAX_SOCKET_BUFFER_BYTES = 16.0 * 2**20


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
    stream_contention : float
        Serialised share of a stream's per-byte work on the NIC it shares with other streams (its queue
        and the CPU serving it; Amdahl's law, :func:`vcperf.vmotion.nic_stream_factor`), in [0, 1]:
        calibrated in closed form from VMware KB 323379's one- and two-vmknic rows on one 40GbE NIC
        (``external_vmotion_streams.csv``); 0: streams never contend.
    socket_buffer_bytes : float
        Standard size of a vMotion TCP socket buffer (0.5 MB; ``external_vmotion_streams.csv``): the
        window is the larger of it and the bandwidth-delay product at the RTT (buffers follow the
        observed RTT since Metro / long-distance vMotion), at most ``max_socket_buffer_bytes``.
    max_socket_buffer_bytes : float
        Largest socket buffer the resizing reaches (default :data:`MAX_SOCKET_BUFFER_BYTES`, 16 MiB, a
        named modelling default: VMware documents none), >= ``socket_buffer_bytes``: over a long fast
        path a stream is window-bound at ``max_socket_buffer_bytes / RTT``.
    limits : Limits, optional
        VMware's documented limits and the calibrated ranges (``external_vmotion_limits.csv``): inputs
        beyond them are flagged in the results (None: no flags).
    """

    switchover_goal_s: float
    guest_slice_s: float
    switchover_time_goal_s: float = 1.0
    stream_bytes_per_cpu_s: float = float("inf")
    socket_buffer_bytes: float = 0.5e6
    stream_contention: float = 0.0
    limits: Limits | None = None
    max_socket_buffer_bytes: float = MAX_SOCKET_BUFFER_BYTES


@dataclass(frozen=True)
class Workload:
    """One Oracle/HammerDB VM of the study: size, writable working set and undisturbed throughput.

    The writable working set is the Oracle SGA (Table 1): the buffer cache and log buffer are where
    the database writes. ``zero_bytes``: guest memory never touched since boot (zero pages, which
    vMotion does not send); 0 for a VM whose memory was pre-touched.
    """

    name: str
    vcpus: int
    memory_bytes: float
    working_set_bytes: float
    baseline_tps: float
    zero_bytes: float = 0.0


def vm_memory_bytes(value, unit: str) -> float:
    """A VM memory size printed in GB/TB as bytes: VM memory is binary (1 GB = 262,144 4 KB pages).

    Parameters
    ----------
    value : float
        The printed size, > 0.
    unit : {"GB", "TB"}
        The printed unit (binary: 2**30 or 2**40 bytes).

    Examples
    --------
    >>> from vcperf import vmotion as vm
    >>> vm.vm_memory_bytes(64, "GB") == 64 * 2**30
    True
    """
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
