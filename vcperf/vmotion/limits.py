"""VMware's documented vMotion limits and the model's calibrated ranges: flags for inputs beyond them.

The limits are product facts (``data/vmotion2020/external_vmotion_limits.csv`` and
``external_vmotion_streams.csv``, read by :func:`vcperf.vmotion.settings`); the calibrated ranges are
the study's VMs (Table 1 and the 72 vCPU / 1 TB VM). The model never clamps an input to them: it
computes the answer and names every input beyond a limit ("unsupported: ...") or outside the
calibrated range ("extrapolated: ...") in the result's ``flags``: each a :class:`LimitFlag`, a string
(its message, so a list of flags prints and passes through unchanged) that also carries its kind, the
quantity, its value, the limit and the ``data/`` row the limit comes from.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: Line rate of one vMotion NIC (bit/s) from which the 10GigE per-NIC limit applies.
TEN_GIGE_BPS = 10e9
#: The ``data/`` tables the limits come from (a flag's ``source`` names the table and the row's quantity).
LIMITS_TABLE = "vmotion2020/external_vmotion_limits"
STREAMS_TABLE = "vmotion2020/external_vmotion_streams"
#: Where the calibrated ranges come from (the study's VMs: Table 1 and the 72 vCPU / 1 TB VM).
CALIBRATED_SOURCE = "vmotion2020/table01_vm_sizes (vcperf.vmotion.workloads)"
#: Flag kinds: an input beyond VMware's documented limits, an input outside the calibrated range, and an
#: answer set by a documented limit rather than by the model (e.g. a link raised to VMware's minimum).
FLAG_KINDS = ("unsupported", "extrapolated", "limit")


class LimitFlag(str):
    """One flag of a vMotion result: its message, and the limit it names as fields.

    A ``str`` (the message, ``"unsupported: ..."`` or ``"extrapolated: ..."``), so a tuple of flags
    prints, compares and passes through a planner unchanged; immutable, with the structure a planner
    reads: ``kind`` (:data:`FLAG_KINDS`), ``quantity`` (what is checked, e.g.
    ``"link_bps / concurrent"``), ``value`` and ``limit`` (SI, in ``unit``; ``value`` the worst case
    of an array input), ``relation`` (``">="``: the value must be at least the limit; ``"<="``: at
    most; ``"in"``: ``limit`` is a ``(low, high)`` range) and ``source`` (the ``data/`` table and the
    row's quantity the limit is read from).

    Examples
    --------
    >>> from vcperf.vmotion.limits import LimitFlag
    >>> f = LimitFlag("unsupported", "link_bps / concurrent", 1e8, 2.5e8, "bit/s", ">=",
    ...               "vmotion2020/external_vmotion_limits: min_bandwidth_per_vmotion", "100 Mbit/s is below 250")
    >>> f
    'unsupported: 100 Mbit/s is below 250'
    >>> f.kind, f.limit, f.as_dict()["source"]
    ('unsupported', 250000000.0, 'vmotion2020/external_vmotion_limits: min_bandwidth_per_vmotion')
    """

    _FIELDS = ("kind", "quantity", "value", "limit", "unit", "relation", "source")

    def __new__(cls, kind, quantity, value, limit, unit, relation, source, text):
        if kind not in FLAG_KINDS:
            raise ValueError(f"kind must be one of {FLAG_KINDS}; got {kind!r}")
        if relation not in (">=", "<=", "in"):
            raise ValueError(f"relation must be one of ('>=', '<=', 'in'); got {relation!r}")
        self = super().__new__(cls, f"{kind}: {text}")
        lim = tuple(float(x) for x in limit) if relation == "in" else float(limit)
        for name, val in zip(cls._FIELDS, (kind, str(quantity), float(value), lim, str(unit), relation, str(source)),
                             strict=True):
            object.__setattr__(self, name, val)
        return self

    def __setattr__(self, name, value):
        raise AttributeError(f"LimitFlag is immutable; cannot set {name!r}")

    def __delattr__(self, name):
        raise AttributeError(f"LimitFlag is immutable; cannot delete {name!r}")

    def __reduce__(self):
        return (LimitFlag, (*(getattr(self, k) for k in self._FIELDS), str(self).split(": ", 1)[1]))

    def as_dict(self) -> dict:
        """The flag's fields and its message (``"message"``) as a plain dict (e.g. for JSON)."""
        return {**{k: getattr(self, k) for k in self._FIELDS}, "message": str(self)}


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


def checked_input_flags(limits, *, memory_bytes, link_bps, rtt_s=0.0, concurrent=1.0, vcpus=None, release="7.0u1",
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
    tuple of LimitFlag
        ``"unsupported: ..."`` and ``"extrapolated: ..."`` flags; empty when all inputs are inside.

    Examples
    --------
    >>> from vcperf import vmotion as vm
    >>> from vcperf.vmotion.limits import checked_input_flags
    >>> lim = vm.settings().limits
    >>> checked_input_flags(lim, memory_bytes=64 * 2**30, link_bps=160e9, vcpus=12)
    ()
    >>> checked_input_flags(lim, memory_bytes=64 * 2**30, link_bps=1e9, concurrent=8, vcpus=12)[0][:12]
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
        worst = _worst(per_vmotion, bad, np.min)
        flags.append(LimitFlag("unsupported", "link_bps / concurrent", worst, limits.min_bps_per_vmotion, "bit/s",
                               ">=", f"{LIMITS_TABLE}: min_bandwidth_per_vmotion",
                               f"{worst / 1e6:.4g} Mbit/s per concurrent vMotion (link_bps / concurrent) is below "
                               f"VMware's {limits.min_bps_per_vmotion / 1e6:g} Mbit/s"))
    bad = np.asarray(rtt > limits.max_rtt_s)
    if bad.any():
        worst = _worst(rtt, bad, np.max)
        flags.append(LimitFlag("unsupported", "rtt_s", worst, limits.max_rtt_s, "s", "<=", f"{STREAMS_TABLE}: max_rtt",
                               f"rtt_s={worst:g} s is above VMware's {limits.max_rtt_s * 1e3:g} ms for vMotion"))
    per_nic = np.where(link / nics >= TEN_GIGE_BPS, limits.max_concurrent_per_nic_10g, limits.max_concurrent_per_nic_1g)
    bad = np.asarray(conc > per_nic)
    if bad.any():
        worst, lim = _worst(conc, bad, np.max), _worst(per_nic, bad, np.min)
        flags.append(LimitFlag("unsupported", "concurrent", worst, lim, "vMotions", "<=",
                               f"{LIMITS_TABLE}: max_concurrent_vmotions_per_nic",
                               f"concurrent={worst:g} vMotions exceed VMware's {lim:g} per NIC at this NIC speed"))
    host = limits.max_concurrent_per_host[release]
    bad = np.asarray(conc > host)
    if bad.any():
        worst = _worst(conc, bad, np.max)
        flags.append(LimitFlag("unsupported", "concurrent", worst, host, "vMotions", "<=",
                               f"{LIMITS_TABLE}: max_concurrent_vmotions_per_host",
                               f"concurrent={worst:g} vMotions exceed VMware's {host:g} per host ({release})"))
    bad = np.asarray(mem > limits.max_memory_bytes[release] * (1 + 1e-12))
    if bad.any():
        worst = _worst(mem, bad, np.max)
        flags.append(LimitFlag("unsupported", "memory_bytes", worst, limits.max_memory_bytes[release], "bytes", "<=",
                               f"{LIMITS_TABLE}: max_vm_memory",
                               f"memory_bytes={worst / 2**40:.4g} TiB exceeds {release}'s "
                               f"{limits.max_memory_bytes[release] / 2**40:g} TiB per VM"))
    lo, hi = limits.calibrated_memory_bytes
    bad = np.asarray((mem < lo * (1 - 1e-12)) | (mem > hi * (1 + 1e-12)))
    if bad.any():
        worst = _worst(mem, bad, np.max) if np.any(mem[bad] > hi) else _worst(mem, bad, np.min)
        flags.append(LimitFlag("extrapolated", "memory_bytes", worst, (lo, hi), "bytes", "in", CALIBRATED_SOURCE,
                               f"memory_bytes outside the calibrated {lo / 2**30:g} GiB - {hi / 2**40:g} TiB"))
    if vcpus is not None:
        cpus = np.asarray(vcpus, dtype=float)
        bad = np.asarray(cpus > limits.max_vcpus[release])
        if bad.any():
            worst = _worst(cpus, bad, np.max)
            flags.append(LimitFlag("unsupported", "vcpus", worst, limits.max_vcpus[release], "vCPUs", "<=",
                                   f"{LIMITS_TABLE}: max_vcpus_per_vm",
                                   f"vcpus={worst:g} exceeds {release}'s {limits.max_vcpus[release]:g} vCPUs per VM"))
        lo, hi = limits.calibrated_vcpus
        bad = np.asarray((cpus < lo) | (cpus > hi))
        if bad.any():
            worst = _worst(cpus, bad, np.max) if np.any(cpus[bad] > hi) else _worst(cpus, bad, np.min)
            flags.append(LimitFlag("extrapolated", "vcpus", worst, (lo, hi), "vCPUs", "in", CALIBRATED_SOURCE,
                                   f"vcpus outside the calibrated {lo:g} - {hi:g}"))
    return tuple(flags)
