"""The FT study's facade: its workloads at the calibration and on the seed's test bed (Swingbench, DVD
Store, IOMeter, brokerage, vCenter, kernel compile), the one module of the study that fills
``params=None`` and ``checkpoint_interval_s=None`` (:func:`vcperf.ft.calibrate`, imported: never looked up
in a registry). Each function here is the scenario of :mod:`vcperf.ft.targets` of the same name at
explicit parameters (``*_at``), with the test bed's facts (:func:`vcperf.ft.testbed`) filled in.
"""

from __future__ import annotations

from vcperf import _validate as v
from vcperf.ft.calibration import calibrate
from vcperf.ft.checkpoint import DEFAULT_FT_LINK_BPS, MAX_CHECKPOINT_INTERVAL_S
from vcperf.ft.kernelcompile import KernelCompile
from vcperf.ft.params import Params
from vcperf.ft.targets import brokerage_at, database_at, iometer_at, iometer_ratios_at, kernel_compile_at, vcenter_at
from vcperf.ft.testbed import testbed
from vcperf.ft.workloads import (
    BROKERAGE_DIRTY_BYTES_PER_TRANSACTION,
    IOMETER_OUTSTANDING_IOS,
    ClosedLoopResult,
)

_PARAMS_WHAT = "the study's Params (vcperf.ft.calibrate()) or None"

def _interval(checkpoint_interval_s) -> float:
    """The validated checkpoint interval, or the calibrated one for None."""
    if checkpoint_interval_s is None:
        return calibrate().checkpoint_interval_s
    return v.scalar("checkpoint_interval_s", checkpoint_interval_s, 0.0, MAX_CHECKPOINT_INTERVAL_S, lo_open=True)


def _params(params) -> Params:
    """The validated ``params``, or the calibrated ones for None."""
    return calibrate() if params is None else v.instance("params", params, Params, _PARAMS_WHAT)


def database_workload(name: str, dirty_bytes_per_op=0.0, checkpoint_interval_s=None, ft_link_bps=DEFAULT_FT_LINK_BPS,
                      *, background_dirty_rate_bytes_per_s=0.0, vcpus=None, **link_kw) -> ClosedLoopResult:
    """Swingbench (Figures 7-8) or DVD Store (Figures 9-10) on the seed's testbed, FT off and on.

    Users and think time from Appendix B (Swingbench users and the mean of its minimum and maximum
    transaction delay; DVD Store threads and think time), the largest vCPU configuration listed, and
    the vCPU demand per transaction set so that the FT-off vCPU utilization is the 60 % the seed
    states for its real-life workloads (:func:`vcperf.ft.closed_loop_at_utilization`). Each
    stored-procedure call is one client exchange that waits one output commit. The databases' memory
    churn is not printed: ``dirty_bytes_per_op`` defaults to 0 (a what-if knob).

    Parameters
    ----------
    name : {"swingbench", "dvdstore"}
        The workload.
    dirty_bytes_per_op : float
        Memory dirtied per transaction, B, >= 0.
    checkpoint_interval_s : float, optional
        Run time between checkpoints, s (default: the calibrated interval).
    ft_link_bps : float
        FT logging link rate, bit/s, as in :func:`vcperf.ft.checkpoint_cycle`.
    background_dirty_rate_bytes_per_s : float
        Memory dirtied per second of run time besides the transactions, B/s, >= 0.
    vcpus : int, optional
        One of the configurations (Appendix B: 1, 2, 4); default the largest.
    **link_kw
        FT-link inputs of :func:`vcperf.ft.closed_loop` (``ft_ack_rtt_s``, ``ft_link_loss``, ``n_ft_vms``).

    Returns
    -------
    ClosedLoopResult

    Examples
    --------
    >>> from vcperf import ft
    >>> r = ft.database_workload("dvdstore")
    >>> bool(r.throughput_ratio < 1 < r.response_ratio)
    True
    """
    v.choice("name", name, ("swingbench", "dvdstore"))
    return database_at(testbed(), name, _interval(checkpoint_interval_s), dirty_bytes_per_op, ft_link_bps,
                     background_dirty_rate_bytes_per_s=background_dirty_rate_bytes_per_s, vcpus=vcpus, **link_kw)


def testbed_iometer(message_bytes, write_fraction=0.0, *, outstanding_ios=IOMETER_OUTSTANDING_IOS,
                    checkpoint_interval_s=None, ft_link_bps=DEFAULT_FT_LINK_BPS, **link_kw) -> ClosedLoopResult:
    """:func:`vcperf.ft.iometer` on the seed's RAID 5 LUN and 4-vCPU VM (Figure 6).

    Parameters
    ----------
    message_bytes : float
        I/O size, B (Figure 6: 2 KB and 64 KB), > 0.
    write_fraction : float
        Share of writes, in [0, 1].
    outstanding_ios : int
        Queue depth, >= 1 (default IOMeter's 1).
    checkpoint_interval_s : float, optional
        Run time between checkpoints, s (default: the calibrated interval).
    ft_link_bps : float
        FT logging link rate, bit/s.
    **link_kw
        FT-link inputs of :func:`vcperf.ft.closed_loop` (``ft_ack_rtt_s``, ``ft_link_loss``, ``n_ft_vms``).

    Returns
    -------
    ClosedLoopResult

    Examples
    --------
    >>> from vcperf import ft
    >>> r = ft.testbed_iometer(64e3, 1.0)
    >>> bool(0.5 < r.throughput_ratio < 1)
    True
    """
    return iometer_at(testbed(), message_bytes, write_fraction, _interval(checkpoint_interval_s),
                    outstanding_ios=outstanding_ios, ft_link_bps=ft_link_bps, **link_kw)


def iometer_ratios(checkpoint_interval_s=None, **link_kw) -> dict:
    """FT-on/off IOMeter throughput of every Appendix B access pattern: ``{(size_label, write_fraction): ratio}``.

    Parameters
    ----------
    checkpoint_interval_s : float, optional
        Run time between checkpoints, s (default: the calibrated interval).
    **link_kw
        FT-link inputs of :func:`testbed_iometer` (``ft_link_bps``, ``ft_ack_rtt_s``, ...).

    Examples
    --------
    >>> from vcperf import ft
    >>> r = ft.iometer_ratios()
    >>> sorted({size for size, _ in r})
    ['2KB', '64KB']
    """
    return iometer_ratios_at(testbed(), _interval(checkpoint_interval_s), **link_kw)


def brokerage_workload(checkpoint_interval_s=None, ft_link_bps=DEFAULT_FT_LINK_BPS, *,
                       dirty_bytes_per_op=BROKERAGE_DIRTY_BYTES_PER_TRANSACTION, **kw) -> ClosedLoopResult:
    """The brokerage (TPC-E-derived) workload of Figure 11 on the seed's VM, FT off and on.

    Appendix B's 80 user connections on 4 vCPUs with no think time,
    :data:`vcperf.ft.workloads.BROKERAGE_IO_S` of disk time per transaction (a delay: the array is
    not saturated), the vCPU demand set for the seed's 60 % utilization, and
    :data:`vcperf.ft.workloads.BROKERAGE_DIRTY_BYTES_PER_TRANSACTION` of buffer-pool pages shipped per
    transaction (the working set is large: no reuse within an epoch).

    Parameters
    ----------
    checkpoint_interval_s : float, optional
        Run time between checkpoints, s (default: the calibrated interval).
    ft_link_bps : float
        FT logging link rate, bit/s.
    dirty_bytes_per_op : float
        Memory shipped per transaction, B, >= 0.
    **kw
        Passed to :func:`vcperf.ft.closed_loop`.

    Returns
    -------
    ClosedLoopResult
        Its ``flags`` carry an ``assumed`` :class:`vcperf._validate.Flag`: the transaction's constants
        are not in the FT study, and with them the FT-off rate (about 15,000 transactions/s on 4 vCPUs) is
        far above a TPC-E-class database on that VM (hundreds to a few thousand per second): the
        transaction is too light, so its FT-on/off ratio is a direction (a loss), not a prediction.

    Examples
    --------
    >>> from vcperf import ft
    >>> r = ft.brokerage_workload()
    >>> bool(r.throughput_ratio < 1), [f.kind for f in r.flags]
    (True, ['assumed'])
    """
    return brokerage_at(testbed(), _interval(checkpoint_interval_s), ft_link_bps,
                        dirty_bytes_per_op=dirty_bytes_per_op, **kw)


def vcenter_values(params: Params | None = None) -> dict:
    """:func:`vcperf.ft.vcenter_predictions` of the calibrated (or given) parameters on the seed's appliance.

    Parameters
    ----------
    params : Params, optional
        The study's parameters (default: the calibrated ones).

    Returns
    -------
    dict
        As :func:`vcperf.ft.vcenter_predictions` (ratios, browse time in s, workload details).

    Examples
    --------
    >>> from vcperf import ft
    >>> vc = ft.vcenter_values()
    >>> bool(vc["ratio_b"] < vc["ratio_a"] < 1)
    True
    """
    return vcenter_at(_params(params), testbed())


def kernel_compile_values(params: Params | None = None, vcpus=None, **cycle_kw) -> KernelCompile:
    """:func:`vcperf.ft.kernel_compile` on the seed's configurations (Appendix B: 1/2/4 vCPUs) under ``params``.

    Parameters
    ----------
    params : Params, optional
        The study's parameters (default: the calibrated ones).
    vcpus : int or array_like, optional
        vCPU counts (default: Appendix B's configurations).
    **cycle_kw
        FT-link inputs of :func:`vcperf.ft.checkpoint_cycle` (``ft_link_bps``, ``ft_ack_rtt_s``, ...).

    Returns
    -------
    KernelCompile

    Examples
    --------
    >>> from vcperf import ft
    >>> kc = ft.kernel_compile_values()
    >>> round(float(kc.increase_s.mean()))
    7
    """
    p = _params(params)
    return kernel_compile_at(p, testbed(), None if vcpus is None else v.real("vcpus", vcpus), **cycle_kw)
