"""Enabling VCHA (``000_bf7f1144753162c9.txt``, Table 4, Figure 4).

Two clones of the appliance disks over the clone network plus a fixed configuration time. Every
byte a clone moves crosses the link ("The network is mostly saturated during these clone
operations. Hence, the performance of enabling VCHA depends on the network bandwidth"): the base
appliance disks and the data that grows with the inventory, at the TCP payload rate of the link
(:func:`vcperf.network.transfer_time_s`: bandwidth, round trip and loss). Both clones copy the same
appliance back to back ("the same clone operation performed twice"), so the model gives them the
same time.

This module is a pure model: the parameters and the clone link are arguments
(:mod:`vcperf.vcha.params`; the study's values are fitted by :mod:`vcperf.vcha.calibration`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vcperf import _validate as v
from vcperf import network, protocol
from vcperf.vcha.params import STUDY, EnableParams
from vcperf.vcha.vcbench import LAN_RTT_S


@dataclass(frozen=True, eq=False)
class EnableTimes:
    """Time of each step of enabling VCHA (s); arrays of the input shape."""

    clone_secondary_s: np.ndarray
    clone_witness_s: np.ndarray
    configure_s: np.ndarray
    total_s: np.ndarray


def clone_bytes(registered_vms, params: EnableParams):
    """Bytes one clone moves: base appliance disks + inventory-dependent data (Table 4).

    Parameters
    ----------
    registered_vms : float or array_like
        Registered VMs of the inventory, >= 0 (Table 1: 1,440 .. 36,864).
    params : EnableParams
        The study's (``vcperf.vcha.calibrate().enable``).

    Returns
    -------
    float or ndarray
        Bytes.

    Examples
    --------
    >>> from vcperf import vcha
    >>> e = vcha.calibrate().enable
    >>> bool(vcha.clone_bytes(36864, e) > vcha.clone_bytes(1440, e) > 0)
    True
    """
    vms = v.count("registered_vms", registered_vms)
    v.instance("params", params, EnableParams, "the study's EnableParams (vcperf.vcha.calibrate().enable)")
    return params.clone_base_bytes + vms * params.clone_bytes_per_registered_vm


def enable_vcha_times(registered_vms, bandwidth_bps, params=None, rtt_s=LAN_RTT_S, loss=0.0) -> EnableTimes:
    """Time to enable VCHA: clone Secondary, clone Witness, configure (Table 4, Figure 4).

    Parameters
    ----------
    registered_vms : float or array_like
        Registered VMs of the inventory, >= 0 (Table 1: 1,440 .. 36,864).
    bandwidth_bps : float or array_like
        Clone network rate, bit/s, > 0 (the study's 10 Gbps: ``vcperf.vcha.testbed().clone_bandwidth_bps``).
    params : EnableParams or vcperf.vcha.Params, optional
        The study's (``vcperf.vcha.calibrate()`` or its ``.enable``); default: the calibrated ones.
    rtt_s : float or array_like
        Round trip of the clone network, s, >= 0 (default: the test bed's LAN, :data:`LAN_RTT_S`).
    loss : float or array_like
        Packet loss on the clone network, in [0, 1).

    Returns
    -------
    EnableTimes
        Seconds per step and in total.

    Notes
    -----
    Each clone moves :func:`clone_bytes` with :func:`vcperf.network.transfer_time_s` at the TCP
    payload share of the line rate (:data:`vcperf.network.TCP_PAYLOAD_FRACTION`).

    References
    ----------
    .. [1] J. Padhye, V. Firoiu, D. Towsley, J. Kurose, "Modeling TCP Throughput: A Simple Model and
       its Empirical Validation", ACM SIGCOMM 1998 (the TCP rate of a lossy clone network).

    Examples
    --------
    >>> from vcperf import vcha
    >>> t = vcha.enable_vcha_times(36864, 10e9)  # X-Large inventory, the study's 10 Gbps
    >>> round(float(t.total_s) / 60)  # minutes (paper, Table 4: about 9)
    9
    """
    vms = v.count("registered_vms", registered_vms)
    bw = v.positive("bandwidth_bps", bandwidth_bps)
    rtt = v.nonneg("rtt_s", rtt_s)
    p = protocol.calibrated(STUDY) if params is None else params
    p = v.instance("params", getattr(p, "enable", p), EnableParams,
                   "the study's EnableParams or Params (vcperf.vcha.calibrate())")
    loss_ = v.fraction("loss", loss)
    v.broadcast(registered_vms=vms, bandwidth_bps=bw, rtt_s=rtt, loss=loss_)
    clone = np.asarray(network.transfer_time_s(clone_bytes(vms, p), bw * network.TCP_PAYLOAD_FRACTION, rtt,
                                               loss_), dtype=float)
    conf = np.full_like(clone, p.configure_s)
    return EnableTimes(clone, clone.copy(), conf, 2.0 * clone + conf)
