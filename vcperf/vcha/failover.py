"""Failover / RTO of a VCHA cluster (``000_bf7f1144753162c9.txt``, Tables 2, 3, 16, 17; Figures 2, 3).

Failure detection and promotion (the "in progress" page), PSC services (Embedded PSC only), then
vpxd start-up whose CPU work is spread over the vCPUs and whose inventory load grows with the
registered VMs -- the two competing factors the paper names; the Web Client screens follow the same
pattern with constant offsets between them.

This module is a pure model: the parameters are arguments (:mod:`vcperf.vcha.params`; the study's
values are fitted by :mod:`vcperf.vcha.calibration`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vcperf import _validate as v
from vcperf import protocol
from vcperf.vcha import limits
from vcperf.vcha.params import STUDY, FailoverParams


@dataclass(frozen=True, eq=False)
class FailoverTimes:
    """Times after the Active fails (s); arrays of the broadcast input shape.

    ``flags`` names inputs VCHA does not support (an appliance below Small: 4 vCPUs).
    """

    in_progress_s: np.ndarray
    vpxd_ready_s: np.ndarray
    blank_screen_s: np.ndarray
    blue_screen_s: np.ndarray
    inventory_screen_s: np.ndarray
    vc_summary_s: np.ndarray
    flags: tuple = ()


def failover_times(vcpus, registered_vms, psc_mode: str = "external", *, params=None) -> FailoverTimes:
    """Failover/RTO: times until vpxd accepts connections and the Web Client screens appear.

    Parameters
    ----------
    vcpus : float or array_like
        Appliance vCPUs, in [1, 256] (Table 1: 4 .. 32); below 4 (Tiny: 2) VCHA is not supported:
        the result's ``flags`` say so (:data:`vcperf.vcha.limits.MIN_SUPPORTED_VCPUS`).
    registered_vms : float or array_like
        Registered VMs, >= 0 (Table 1: 1,440 .. 36,864).
    psc_mode : {"external", "embedded"}
        Embedded PSC starts the PSC services before vpxd and vsphere-client (Tables 16-17).
    params : FailoverParams or vcperf.vcha.Params, optional
        The study's (``vcperf.vcha.calibrate()`` or its ``.failover``); default: the calibrated ones.

    Returns
    -------
    FailoverTimes
        Seconds after the failure; ``flags`` for unsupported inputs.

    Examples
    --------
    >>> from vcperf import vcha
    >>> f = vcha.failover_times(32, 36864)  # X-Large
    >>> bool(f.in_progress_s < f.vpxd_ready_s < f.inventory_screen_s < 5 * 60)  # within the 5-minute RTO target
    True
    >>> vcha.failover_times(2, 100).flags[0].endswith("unsupported")  # Tiny
    True
    """
    c = v.check_range("vcpus", vcpus, 1.0, 256.0)
    vms = v.count("registered_vms", registered_vms)
    v.choice("psc_mode", psc_mode, ("external", "embedded"))
    p = protocol.calibrated(STUDY) if params is None else params
    p = v.instance("params", getattr(p, "failover", p), FailoverParams,
                   "the study's FailoverParams or Params (vcperf.vcha.calibrate())")
    v.broadcast(vcpus=c, registered_vms=vms)
    c, vms = np.broadcast_arrays(c, vms)
    psc = p.psc_start_s if psc_mode == "embedded" else 0.0
    base = p.takeover_s + psc
    in_progress = np.full(c.shape, base)
    ready = base + p.vpxd_start_cpu_s / c + p.vpxd_start_s_per_vm * vms
    blank = base + p.client_start_cpu_s / c + p.client_start_s_per_vm * vms
    blue, inventory, summary = (blank + off for off in p.screen_offsets_s)
    return FailoverTimes(in_progress, ready, blank, blue, inventory, summary, limits.checked_vcpu_flags(c))
