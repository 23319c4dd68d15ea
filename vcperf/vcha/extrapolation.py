"""How far a VCbench answer lies off the point its network was fitted at, as a widened band.

The VCbench network (:mod:`vcperf.vcha.vcbench`) is fitted on one appliance (X-Large, 32 vCPUs), one
inventory (2,000 hosts, 25,000 powered-on VMs) and one DB pool (vCenter's documented default of 50,
an external source: the VCHA study prints none) -- :data:`vcperf.vcha.limits.FIT_VCPUS` and its neighbours.
An answer elsewhere rests on the model's structure where no number tested it: the result is flagged
(``extrapolation``, :func:`vcperf.vcha.limits.checked_extrapolation_flags`), and its band widened by a
model-form term that grows with how much the extrapolated inputs move the answer:

    spread = sqrt(sum_i max(EXTRAPOLATION_SHARE x |ln(X / X_i)|, EXTRAPOLATION_FLOOR)^2)   (log-space sd)

where ``X_i`` is the throughput with input group ``i`` (the appliance's vCPUs; the inventory's hosts
and VMs; the DB pool) put back at the fitted point and the others as asked. With
:data:`EXTRAPOLATION_SHARE` = 1/2, an extrapolation that moves the answer by a factor ``f`` is
trusted to within ``f^(+-0.82)`` at 90 %; one that the model says does not move it (e.g. a smaller
inventory behind a saturated pool) still adds :data:`EXTRAPOLATION_FLOOR` (10 %), since the model's
structure there is untested. Assumptions stated here, not fitted: no printed number measures the model
away from its test bed. :func:`widen_band` adds it to the fit's band in
quadrature (log space). At the fitted point the spread is 0 and the band is the fit's.

This module is a pure model: parameters are arguments (``params=None``: the calibrated ones).

Examples
--------
>>> from vcperf import vcha
>>> from vcperf.vcha.extrapolation import off_testbed_spread
>>> P = vcha.calibrate()
>>> off_testbed_spread(256, True, params=P, **vcha.testbed().appliance())
0.0
>>> bool(off_testbed_spread(256, True, params=P, **{**vcha.testbed().appliance(), "db_connections": 100.0}) > 0.1)
True
"""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np

from vcperf import _validate as v
from vcperf.vcha import limits
from vcperf.vcha.vcbench import DEFAULT_DB_CONNECTIONS, run_vcbench

#: Share of an extrapolation's modelled effect taken as its model-form standard deviation (log space):
#: an assumption (module docstring), the one knob of the widened bands.
EXTRAPOLATION_SHARE = 0.5
#: Least log-space standard deviation an off-test-bed input group adds (an assumption, module docstring).
EXTRAPOLATION_FLOOR = 0.1


def off_testbed_spread(clients: int, vcha_enabled: bool = False, replication_rtt_s: float = 0.0,
                       stats_level: int = 1, *, vcpus: float, hosts: float, powered_on_vms: float, params=None,
                       db_connections: float = DEFAULT_DB_CONNECTIONS, **kw) -> float:
    """Log-space standard deviation an off-test-bed VCbench throughput adds to its band (module docstring).

    Parameters
    ----------
    clients : int
        Concurrent VCbench clients, in [1, 4096].
    vcha_enabled, replication_rtt_s, stats_level, vcpus, hosts, powered_on_vms, params, db_connections
        As :func:`vcperf.vcha.run_vcbench` (scalars).
    **kw
        Other keyword arguments of :func:`vcperf.vcha.run_vcbench` (link, PSC mode, Passive flush).

    Returns
    -------
    float
        >= 0; 0 at the fitted appliance, inventory and pool.
    """
    n = v.integer("clients", clients, 1, 4096)
    c = v.scalar("vcpus", vcpus, 1.0, 256.0)
    h = v.scalar("hosts", hosts, 0.0, 10000.0)
    vms = v.scalar("powered_on_vms", powered_on_vms, 0.0, 200000.0)
    pool = v.scalar("db_connections", db_connections, 2.0, 10000.0)
    replication_rtt_s = v.scalar("replication_rtt_s", replication_rtt_s, 0.0, 1.0)
    asked = {"vcpus": c, "hosts": h, "powered_on_vms": vms, "db_connections": pool}

    def x_of(**over):
        return float(run_vcbench(n, vcha_enabled, replication_rtt_s, stats_level, params=params, **{**asked, **over},
                             **kw).throughput_per_s)

    x = x_of()
    groups = []
    if c != limits.FIT_VCPUS:
        groups.append({"vcpus": limits.FIT_VCPUS})
    if (h, vms) != (limits.FIT_HOSTS, limits.FIT_POWERED_ON_VMS):
        groups.append({"hosts": limits.FIT_HOSTS, "powered_on_vms": limits.FIT_POWERED_ON_VMS})
    if pool != DEFAULT_DB_CONNECTIONS:
        groups.append({"db_connections": DEFAULT_DB_CONNECTIONS})
    terms = []
    for g in groups:
        try:
            xi = x_of(**g)
        except ValueError:  # e.g. the fitted vCPUs cannot carry this inventory's background: the vCPU ratio
            xi = x * limits.FIT_VCPUS / c
        moved = abs(math.log(x / xi)) if x > 0.0 and xi > 0.0 else 0.0
        terms.append(max(EXTRAPOLATION_SHARE * moved, EXTRAPOLATION_FLOOR))
    return math.sqrt(sum(t * t for t in terms))


def widen_band(value, low, high, spread: float, interval: float = 0.9) -> tuple:
    """``(low, high)`` of a positive answer's band with the off-test-bed ``spread`` added in quadrature
    (log space): ``value x exp(-+sqrt(ln(value / bound)^2 + (z spread)^2))``, ``z`` the normal quantile of
    ``interval``. Infinite bounds stay as they are; ``spread = 0`` returns the band unchanged.

    Examples
    --------
    >>> from vcperf.vcha.extrapolation import widen_band
    >>> widen_band(100.0, 90.0, 110.0, 0.0)
    (90.0, 110.0)
    >>> lo, hi = widen_band(100.0, 90.0, 110.0, 0.25)
    >>> bool(lo < 90.0 and hi > 110.0)
    True
    """
    value = v.scalar("value", value, -math.inf, math.inf, lo_open=True, hi_open=True)
    low = v.scalar("low", low, -math.inf, math.inf)
    high = v.scalar("high", high, -math.inf, math.inf)
    s = v.scalar("spread", spread, 0.0, 10.0)  # a log-space sd of 10: a factor e^16 at 90 %, past any use
    if not low <= value:
        raise ValueError(f"low must be in [-inf, value = {value!r}] (a band around its value); got {low!r}")
    if not high >= value:
        raise ValueError(f"high must be in [value = {value!r}, inf] (a band around its value); got {high!r}")
    if s == 0.0 or not value > 0.0:
        return float(low), float(high)
    z = NormalDist().inv_cdf(0.5 + 0.5 * v.scalar("interval", interval, 0.0, 1.0, lo_open=True, hi_open=True))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # ratios past float range: inf, never raise
        dlo = float(np.log(value / low)) if low > 0 else math.inf
        dhi = float(np.log(high / value)) if high > 0 else 0.0
    if not (math.isfinite(float(low)) and math.isfinite(float(high))):
        return float(low), float(high)
    with np.errstate(over="ignore"):
        return (float(value * np.exp(-math.hypot(dlo, z * s))), float(value * np.exp(math.hypot(dhi, z * s))))
