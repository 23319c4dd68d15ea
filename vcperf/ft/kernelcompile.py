"""A CPU-bound job under FT: the parallel kernel compile of the seed's Figure 2.

Only the stun slows a job that makes no network exchange: it runs ``1 / run_fraction`` longer
(:func:`vcperf.ft.checkpoint_cycle`), and each vCPU added shortens the run but not the memory it
dirties, while every vCPU's state ships at every checkpoint.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vcperf import _validate as v
from vcperf.ft.checkpoint import DEFAULT_FT_LINK_BPS, DEFAULT_RELEASE, check_vcpus, checkpoint_cycle

#: vCPU seconds of one ``make bzImage`` of Linux 2.6.20 on a 3.2 GHz Haswell core (assumed: the seed
#: prints no bar values; a few minutes single-threaded). Only the FT-off bar heights and the small
#: per-vCPU state share of the increase depend on it.
KERNEL_COMPILE_CPU_S = 240.0


def kernel_compile_overhead_fraction(dirty_rate_bytes_per_s, checkpoint_interval_s,
                                     ft_link_bps=DEFAULT_FT_LINK_BPS, **cycle_kw):
    """Relative increase of a CPU-bound job's run time under FT: ``1 / run_fraction - 1`` (Figure 2).

    The kernel compile generates no network traffic, so only the stun counts. Parameters as in
    :func:`checkpoint_cycle`.

    Parameters
    ----------
    dirty_rate_bytes_per_s : float or array_like
        Memory the job dirties per second of run time, B/s, >= 0.
    checkpoint_interval_s : float or array_like
        Run time between checkpoints ``E``, s, > 0.
    ft_link_bps : float or array_like
        FT logging link rate, bit/s, > 0.
    **cycle_kw
        Other inputs of :func:`checkpoint_cycle`.

    Returns
    -------
    ndarray
        Fraction (0.1 = 10 % longer).

    Examples
    --------
    >>> from vcperf import ft
    >>> round(float(ft.kernel_compile_overhead_fraction(1e8, 5e-3)), 3)
    0.096
    """
    cyc = checkpoint_cycle(dirty_rate_bytes_per_s, checkpoint_interval_s, ft_link_bps, **cycle_kw)
    return 1.0 / cyc.run_fraction - 1.0


@dataclass(frozen=True, eq=False)
class KernelCompile:
    """A parallel kernel compile on ``vcpus`` vCPUs, FT off and on (Figure 2; seconds)."""

    vcpus: np.ndarray
    time_off_s: np.ndarray
    time_on_s: np.ndarray

    @property
    def increase_s(self) -> np.ndarray:
        """FT-on minus FT-off compile time."""
        return self.time_on_s - self.time_off_s


def kernel_compile(vcpus, cpu_work_s, dirty_bytes, checkpoint_interval_s, ft_link_bps=DEFAULT_FT_LINK_BPS,
                   *, release=DEFAULT_RELEASE, **cycle_kw) -> KernelCompile:
    """Parallel kernel compile (``make -j``) FT off and on (seed Figure 2, Appendix B: 1/2/4 vCPUs).

    The compile is CPU bound (100 % busy, no network): ``cpu_work_s`` of vCPU time spread over the
    vCPUs, ``T_off = W / n``. It writes ``dirty_bytes`` of fresh memory in all (forked processes'
    page tables, heaps, object files in the page cache), at ``dirty_bytes / T_off`` per run second, so
    each vCPU added shortens the run but not the shipped memory; every vCPU's state ships at every
    checkpoint. ``T_on = T_off / run_fraction``.

    Parameters
    ----------
    vcpus : int or array_like
        vCPUs (1..the release's FT limit, :func:`check_ft_vcpus`).
    cpu_work_s : float
        vCPU seconds of the compile, > 0.
    dirty_bytes : float
        Memory the compile dirties in all, >= 0.
    checkpoint_interval_s, ft_link_bps, **cycle_kw
        As in :func:`checkpoint_cycle`.
    release : str
        vSphere release for the vCPU limit (default "6.0").

    Returns
    -------
    KernelCompile

    Examples
    --------
    >>> from vcperf import ft
    >>> kc = ft.kernel_compile([1, 2, 4], 240.0, 6.4e9, 5.4e-3)
    >>> kc.increase_s.round(1).tolist()  # seconds FT adds per configuration
    [7.9, 6.8, 6.3]
    """
    n = check_vcpus(vcpus, release)
    w = v.duration_s("cpu_work_s", cpu_work_s, v.MIN_DURATION_S)
    b = v.nonneg("dirty_bytes", dirty_bytes)
    v.broadcast(vcpus=n, cpu_work_s=w, dirty_bytes=b, checkpoint_interval_s=checkpoint_interval_s,
                ft_link_bps=ft_link_bps, **cycle_kw)
    t_off = w / n
    cyc = checkpoint_cycle(b / t_off, checkpoint_interval_s, ft_link_bps, vcpus=n, release=release, **cycle_kw)
    return KernelCompile(vcpus=n, time_off_s=t_off, time_on_s=t_off / cyc.run_fraction)
