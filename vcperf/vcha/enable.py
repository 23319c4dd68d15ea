"""Enabling VCHA (``000_bf7f1144753162c9.txt``, Table 4, Figure 4).

Two clones of the appliance disks over the clone network (data grows with the inventory) plus a
fixed configuration time. Both clones copy the same appliance back to back (the text: "the same
clone operation performed twice"), so the model gives them the same time.

This module is a pure model: the parameters and the clone bandwidth are arguments (the study's
values come from :mod:`vcperf.vcha.calibration`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vcperf import _validate as v
from vcperf import network

#: Round-trip time of an idle 10 GbE LAN between two servers of the test bed (assumed: the study
#: does not print it; a few hundred microseconds is typical and the clone time hardly depends on it).
LAN_RTT_S = 2e-4


@dataclass(frozen=True)
class EnableParams:
    """Enabling VCHA (Table 4).

    Attributes
    ----------
    clone_overhead_s : float
        Per clone: everything but moving inventory-dependent data (base appliance disks, VM
        creation, power-on), s. Fitted: Table 4 clone rows.
    clone_bytes_per_registered_vm : float
        Appliance disk data that grows with the inventory, per registered VM (bytes). Fitted: Table
        4 clone rows.
    configure_s : float
        Fixed time to configure PostgreSQL and file replication. Fitted: Table 4 configure rows.
    """

    clone_overhead_s: float
    clone_bytes_per_registered_vm: float
    configure_s: float


@dataclass(frozen=True, eq=False)
class EnableTimes:
    """Time of each step of enabling VCHA (s); arrays of the input shape."""

    clone_secondary_s: np.ndarray
    clone_witness_s: np.ndarray
    configure_s: np.ndarray
    total_s: np.ndarray


def enable_vcha_times(registered_vms, bandwidth_bps, params: EnableParams) -> EnableTimes:
    """Time to enable VCHA: clone Secondary, clone Witness, configure (Table 4, Figure 4).

    Parameters
    ----------
    registered_vms : float or array_like
        Registered VMs of the inventory, >= 0 (Table 1: 1,440 .. 36,864).
    bandwidth_bps : float
        Clone network rate, bit/s, > 0 (the study's 10 Gbps: ``vcperf.vcha.testbed().clone_bandwidth_bps``).
    params : EnableParams
        The study's: ``vcperf.vcha.calibrate().enable``.

    Notes
    -----
    The data is moved with :func:`vcperf.network.transfer_time_s` over the clone link (LAN round
    trip :data:`LAN_RTT_S`).
    """
    vms = v.nonneg("registered_vms", registered_vms)
    bw = v.positive("bandwidth_bps", bandwidth_bps)
    p = params
    clone = p.clone_overhead_s + network.transfer_time_s(vms * p.clone_bytes_per_registered_vm, bw, LAN_RTT_S)
    conf = np.full_like(clone, p.configure_s)
    return EnableTimes(clone, clone.copy(), conf, 2.0 * clone + conf)
