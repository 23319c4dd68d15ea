"""VMware's documented FT limits per vSphere release, and the flags an input beyond them raises.

SMP-FT vCPUs per VM, the FT logging network's required speed and the per-host FT defaults
(das.maxftvmsperhost, das.maxftvcpusperhost), for every release the package accepts. Product facts,
not from the seed ``002_1123405df89c1006.txt``: recorded with their provenance (``read_from:
external``) in ``data/ft2016/external_smp_ft_limits.csv`` and ``external_ft_requirements.csv``; a model
file never reads ``data/``, so they are held here and ``tests/test_ft.py`` checks they agree, release
for release. An input beyond them is computed and *flagged* (:class:`vcperf._validate.Flag`), never
clamped.
"""

from __future__ import annotations

import numpy as np

from vcperf import _validate as v

#: Largest vCPU count of an FT-protected VM per vSphere release (SMP-FT; vSphere 6.0 introduced it with
#: 4 vCPUs, 6.7 and 7.0 allow 8 with Enterprise Plus: VMware configuration maximums). Product limits,
#: not from the seed: recorded with their provenance in ``data/ft2016/external_smp_ft_limits.csv``
#: (a test checks the two agree).
FT_MAX_VCPUS = {"6.0": 4, "6.5": 4, "6.7": 8, "7.0": 8}
#: The seed's release.
DEFAULT_RELEASE = "6.0"
#: FT logging link VMware requires per release (vSphere Availability 6.0, 6.5, 6.7 and 7.0, "Fault
#: Tolerance Requirements, Limits, and Licensing": "Use a (dedicated) 10-Gbit logging network for FT"),
#: for every release of :data:`FT_MAX_VCPUS`. Product requirements, recorded with their provenance in
#: ``data/ft2016/external_ft_requirements.csv`` (read_from: external; a test checks the two agree,
#: release for release); a slower link is computed and FLAGGED (:attr:`CheckpointCycle.flags`).
FT_LOGGING_LINK_BPS = {"6.0": 10e9, "6.5": 10e9, "6.7": 10e9, "7.0": 10e9}
#: Where the FT limits are stated (the ``flags``' ``source``).
_REQUIREMENTS_SOURCE = ("VMware, 'vSphere Availability' ({rel}), Fault Tolerance Requirements, Limits, and "
                        "Licensing; data/ft2016/external_ft_requirements")
#: Default per-host FT limits of the same documents (das.maxftvmsperhost, das.maxftvcpusperhost):
#: fault-tolerant VMs (primaries and secondaries) and their vCPUs on one host. Beyond them: FLAGGED.
FT_HOST_MAX_VMS = 4
FT_HOST_MAX_VCPUS = 8


def check_ft_vcpus(vcpus, release: str = DEFAULT_RELEASE) -> int:
    """``vcpus`` as an int if an FT VM of vSphere ``release`` may have that many, else ValueError.

    Seed ``002_1123405df89c1006.txt`` (vSphere 6.0 SMP-FT; Appendix B tests 1, 2 and 4 vCPUs); the
    limits per release are :data:`FT_MAX_VCPUS`.

    Parameters
    ----------
    vcpus : int
        vCPUs of the FT VM.
    release : str
        vSphere release, a key of :data:`FT_MAX_VCPUS` (default "6.0").

    Examples
    --------
    >>> from vcperf import ft
    >>> ft.check_ft_vcpus(4), ft.check_ft_vcpus(8, release="6.7")
    (4, 8)
    """
    rel = v.choice("release", release, tuple(FT_MAX_VCPUS))
    try:
        return v.integer("vcpus", vcpus, 1, FT_MAX_VCPUS[rel])
    except ValueError as err:
        raise ValueError(f"{err} (the SMP-FT vCPU limit of vSphere {rel}: {FT_MAX_VCPUS[rel]})") from None


def check_vcpus(vcpus, release: str = DEFAULT_RELEASE) -> np.ndarray:
    """``vcpus`` (scalar or array) as a float array if every value is an integer an FT VM of ``release``
    may have, else ValueError naming the value, the valid range and the release (:data:`FT_MAX_VCPUS`)."""
    rel = v.choice("release", release, tuple(FT_MAX_VCPUS))
    try:
        return v.integers("vcpus", vcpus, 1, FT_MAX_VCPUS[rel]).astype(float)
    except ValueError as err:
        raise ValueError(f"{err} (the SMP-FT vCPU limit of vSphere {rel}: {FT_MAX_VCPUS[rel]})") from None


def limit_flags(ft_link_bps, vcpus, n_ft_vms, release: str = DEFAULT_RELEASE) -> tuple:
    """Which FT inputs lie beyond VMware's documented requirements and defaults (strings; empty if none).

    The logging link below :data:`FT_LOGGING_LINK_BPS` of ``release``; more FT VMs sharing it (one
    host's logging NIC) than :data:`FT_HOST_MAX_VMS`, or their vCPUs beyond :data:`FT_HOST_MAX_VCPUS`.
    The model still computes such inputs: a flag, never a clamp.

    Parameters
    ----------
    ft_link_bps : float or array_like
        FT logging link rate, bit/s, > 0.
    vcpus : float or array_like
        vCPUs of the FT VM, >= 1.
    n_ft_vms : float or array_like
        FT VMs sharing the logging link, >= 1.
    release : str
        vSphere release (default "6.0").

    Returns
    -------
    tuple of vcperf._validate.Flag
        Strings with structure (``kind``, ``name``, ``limit``, ``value``, ``source``); empty if none.

    Examples
    --------
    >>> from vcperf import ft
    >>> ft.limit_flags(10e9, 4, 1), [f.kind for f in ft.limit_flags(1e9, 4, 1, release="7.0")]
    ((), ['beyond_default'])
    """
    link = np.asarray(v.rate_bps("ft_link_bps", ft_link_bps))
    c = np.asarray(v.check_range("vcpus", vcpus, 1.0, np.inf, hi_open=True))
    n = np.asarray(v.check_range("n_ft_vms", n_ft_vms, 1.0, np.inf, hi_open=True))
    rel = v.choice("release", release, tuple(FT_MAX_VCPUS))
    out = []
    need = FT_LOGGING_LINK_BPS[rel]
    src = _REQUIREMENTS_SOURCE.format(rel=f"vSphere {rel}")
    if np.any(link < need):
        out.append(v.Flag(f"ft_link_bps below the {need / 1e9:g} Gbit/s FT logging network vSphere {rel} requires "
                          f"(min {float(link.min()):g})", kind="beyond_default", name="ft_link_bps", limit=need,
                          value=float(link.min()), source=src))
    if np.any(n > FT_HOST_MAX_VMS):
        out.append(v.Flag(f"n_ft_vms above the default {FT_HOST_MAX_VMS} FT VMs per host (das.maxftvmsperhost)",
                          kind="beyond_default", name="n_ft_vms", limit=float(FT_HOST_MAX_VMS),
                          value=float(n.max()), source=src))
    if np.any(n * c > FT_HOST_MAX_VCPUS):
        out.append(v.Flag(f"n_ft_vms x vcpus above the default {FT_HOST_MAX_VCPUS} FT vCPUs per host "
                          "(das.maxftvcpusperhost)", kind="beyond_default", name="n_ft_vms x vcpus",
                          limit=float(FT_HOST_MAX_VCPUS), value=float((n * c).max()), source=src))
    return tuple(out)
