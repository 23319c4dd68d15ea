"""VMware's documented vMotion limits and the model's calibrated ranges: flags for inputs beyond them.

The limits are product facts (``data/vmotion2020/external_vmotion_limits.csv`` and
``external_vmotion_streams.csv``, read by :func:`vcperf.vmotion.settings`); the calibrated ranges are
the study's VMs (Table 1 and the 72 vCPU / 1 TB VM). The model never clamps an input to them: it
computes the answer and names every input beyond a limit ("unsupported: ...") or outside the
calibrated range ("extrapolated: ...") in the result's ``flags``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: Line rate of one vMotion NIC (bit/s) from which the 10GigE per-NIC limit applies.
TEN_GIGE_BPS = 10e9


@dataclass(frozen=True)
class Limits:
    """Documented vMotion limits (SI) and the calibrated ranges of the model.

    Attributes
    ----------
    min_bps_per_vmotion : float
        Dedicated bandwidth each concurrent vMotion needs (bit/s; 250 Mbit/s).
    max_rtt_s : float
        Longest supported round-trip time (s; 150 ms).
    max_concurrent_per_nic_1g, max_concurrent_per_nic_10g : int
        vMotions one NIC may carry at a time (4 on 1GigE, 8 on 10GigE and faster).
    max_concurrent_per_host : dict
        Release -> vMotions one host may run at a time.
    max_vcpus : dict
        Release -> largest vCPU count of a VM.
    max_memory_bytes : dict
        Release -> largest VM memory (bytes).
    calibrated_memory_bytes : tuple of float
        (smallest, largest) VM memory the model is calibrated on (bytes).
    calibrated_vcpus : tuple of float
        (fewest, most) vCPUs the model is calibrated on.
    """

    min_bps_per_vmotion: float
    max_rtt_s: float
    max_concurrent_per_nic_1g: int
    max_concurrent_per_nic_10g: int
    max_concurrent_per_host: dict
    max_vcpus: dict
    max_memory_bytes: dict
    calibrated_memory_bytes: tuple
    calibrated_vcpus: tuple


def _worst(values, bad, pick):
    vals = np.broadcast_to(np.asarray(values, dtype=float), np.shape(bad))[bad]
    return float(pick(vals))


def _input_flags(limits, *, memory_bytes, link_bps, rtt_s=0.0, concurrent=1.0, vcpus=None, release="7.0u1",
                n_vmknics=1.0):
    """Strings naming every input beyond VMware's documented limits or the calibrated ranges.

    Parameters
    ----------
    limits : Limits or None
        The limits (:attr:`vcperf.vmotion.Settings.limits`); None: no flags.
    memory_bytes : float or array_like
        Guest memory (bytes).
    link_bps : float or array_like
        Aggregate vMotion line rate (bit/s).
    rtt_s : float or array_like
        Round-trip time (s).
    concurrent : float or array_like
        Concurrent vMotions sharing the link.
    vcpus : float or array_like, optional
        vCPUs of the VM (None: not checked).
    release : {"6.7", "7.0u1"}
    n_vmknics : float or array_like
        vMotion vmknics (one NIC each): the per-NIC line rate is ``link_bps / n_vmknics``.

    Returns
    -------
    tuple of str
        ``"unsupported: ..."`` and ``"extrapolated: ..."`` strings; empty when all inputs are inside.

    Examples
    --------
    >>> from vcperf import vmotion as vm
    >>> from vcperf.vmotion.limits import _input_flags
    >>> lim = vm.settings().limits
    >>> _input_flags(lim, memory_bytes=64 * 2**30, link_bps=160e9, vcpus=12)
    ()
    >>> _input_flags(lim, memory_bytes=64 * 2**30, link_bps=1e9, concurrent=8, vcpus=12)[0][:12]
    'unsupported:'
    """
    if limits is None:
        return ()
    flags = []
    mem = np.asarray(memory_bytes, dtype=float)
    link = np.asarray(link_bps, dtype=float)
    rtt = np.asarray(rtt_s, dtype=float)
    conc = np.asarray(concurrent, dtype=float)
    nics = np.asarray(n_vmknics, dtype=float)
    per_vmotion = link / conc
    bad = np.asarray(per_vmotion < limits.min_bps_per_vmotion)
    if bad.any():
        flags.append(f"unsupported: {_worst(per_vmotion, bad, np.min) / 1e6:.4g} Mbit/s per concurrent vMotion "
                     f"(link_bps / concurrent) is below VMware's {limits.min_bps_per_vmotion / 1e6:g} Mbit/s")
    bad = np.asarray(rtt > limits.max_rtt_s)
    if bad.any():
        flags.append(f"unsupported: rtt_s={_worst(rtt, bad, np.max):g} s is above VMware's "
                     f"{limits.max_rtt_s * 1e3:g} ms for vMotion")
    per_nic = np.where(link / nics >= TEN_GIGE_BPS, limits.max_concurrent_per_nic_10g, limits.max_concurrent_per_nic_1g)
    bad = np.asarray(conc > per_nic)
    if bad.any():
        flags.append(f"unsupported: concurrent={_worst(conc, bad, np.max):g} vMotions exceed VMware's "
                     f"{_worst(per_nic, bad, np.min):g} per NIC at this NIC speed")
    host = limits.max_concurrent_per_host[release]
    bad = np.asarray(conc > host)
    if bad.any():
        flags.append(f"unsupported: concurrent={_worst(conc, bad, np.max):g} vMotions exceed VMware's {host:g} per "
                     f"host ({release})")
    bad = np.asarray(mem > limits.max_memory_bytes[release] * (1 + 1e-12))
    if bad.any():
        flags.append(f"unsupported: memory_bytes={_worst(mem, bad, np.max) / 2**40:.4g} TiB exceeds {release}'s "
                     f"{limits.max_memory_bytes[release] / 2**40:g} TiB per VM")
    lo, hi = limits.calibrated_memory_bytes
    bad = np.asarray((mem < lo * (1 - 1e-12)) | (mem > hi * (1 + 1e-12)))
    if bad.any():
        flags.append(f"extrapolated: memory_bytes outside the calibrated {lo / 2**30:g} GiB - {hi / 2**40:g} TiB")
    if vcpus is not None:
        cpus = np.asarray(vcpus, dtype=float)
        bad = np.asarray(cpus > limits.max_vcpus[release])
        if bad.any():
            flags.append(f"unsupported: vcpus={_worst(cpus, bad, np.max):g} exceeds {release}'s "
                         f"{limits.max_vcpus[release]:g} vCPUs per VM")
        lo, hi = limits.calibrated_vcpus
        bad = np.asarray((cpus < lo) | (cpus > hi))
        if bad.any():
            flags.append(f"extrapolated: vcpus outside the calibrated {lo:g} - {hi:g}")
    return tuple(flags)
