"""Calibration of the Content Library deployment model: testbed facts, targets, fit.

Seed ``003_a39039efb1262c72.txt``. The paper prints six independent statements about Figure 4
(Observations table): Exp 2 "about 20 % slower" than Exp 1, Exp 3 "about three times" Exp 1 on 1 GbE,
Exp 3 on 10 GbE "similar" to Exp 2, Exp 4 "about seven times" Exp 1, and Exp 4's two printed times
(1 GbE and 10 GbE). The four rates of :class:`~vcperf.contentlib.paths.Params` are fitted to all six
(least squares on log(model / paper)), so the fit is over-determined (6 statements, 4 parameters)
and each statement has a leave-one-out prediction. Two more rows restate these statements
(Exp 2's ratio 1.2 is the 20 %, Exp 3 on 10 GbE vs Exp 1 is Exp 2's ratio again): ``derived``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, fields

import numpy as np

from vcperf import _validate as v
from vcperf import data, protocol
from vcperf.contentlib.paths import PATHS, STUDY, Params, deploy_time_s
from vcperf.protocol import Target

FIGURE_TABLE = "contentlib2015/figure04_deploy_time"
TESTBED_TABLE = "contentlib2015/testbed"


@dataclass(frozen=True)
class Testbed:
    """Physical inputs of the study's testbed, read from ``data/contentlib2015/``."""

    template_size_bytes: float
    fc_bandwidth_bps: float
    nic_bandwidth_bps: float
    alt_network_bps: float
    vcenter_vcpus: int


@functools.lru_cache(maxsize=1)
def testbed() -> Testbed:
    """The testbed (Experimental Testbed table; 39 GB template from the Figure 4 table)."""
    tb = TESTBED_TABLE
    return Testbed(
        template_size_bytes=data.value(FIGURE_TABLE, "template_size", "si"),
        fc_bandwidth_bps=data.value(tb, "storage_adapter_speed", "si", component="esxi_host"),
        nic_bandwidth_bps=data.value(tb, "network_adapter_speed", "si", component="esxi_host"),
        alt_network_bps=data.value(tb, "network_speed_alternative", "si", component="esxi_host"),
        vcenter_vcpus=int(data.value(tb, "vcpus", component="vcenter_appliance_vm")),
    )


def _t(key, quantity, exp, gbps=None, role="fit", depends_on=(), note=""):
    cond = (("experiment", str(exp)),) + ((("network_gbps", str(gbps)),) if gbps is not None else ())
    return Target(key, FIGURE_TABLE, quantity, cond, role=role, depends_on=depends_on, note=note)


#: Every Figure 4 statement the model speaks to (``data/contentlib2015/figure04_deploy_time.csv``).
#: Each run (experiment x network) is its own leave-one-out group.
TARGETS = (
    _t("exp2_slowdown", "slowdown_vs_exp1", 2, note="difference (t2 / t1 - 1), scored on the difference"),
    _t("exp2_ratio", "deploy_time_ratio_vs_exp1", 2, role="derived", depends_on=("exp2_slowdown",),
       note="1 + 20 %: the same statement as exp2_slowdown"),
    _t("exp3_1g_ratio", "deploy_time_ratio_vs_exp1", 3, 1),
    _t("exp3_10g_vs_exp2", "deploy_time_ratio_vs_exp2", 3, 10),
    _t("exp3_10g_ratio", "deploy_time_ratio_vs_exp1", 3, 10, role="derived",
       depends_on=("exp3_10g_vs_exp2", "exp2_slowdown"), note="Exp 3 on 10 GbE ~ Exp 2 ~ 1.2 x Exp 1"),
    _t("exp4_1g_ratio", "deploy_time_ratio_vs_exp1", 4, 1),
    _t("exp4_1g_time", "deploy_time", 4, 1),
    _t("exp4_10g_time", "deploy_time", 4, 10),
)
TARGET_KEYS = tuple(t.key for t in TARGETS)


def targets() -> tuple[Target, ...]:
    """Every paper number of the study the model speaks to (see :data:`TARGETS`)."""
    return protocol.mark_differences(TARGETS, ("slowdown_vs_exp1",))


def _network_bps(target: Target, tb: Testbed) -> float:
    cond = dict(target.conditions)
    if "network_gbps" not in cond:
        return tb.nic_bandwidth_bps
    return float(data.to_si(float(cond["network_gbps"]), "Gbps"))


def predict(params: Params, keys=TARGET_KEYS) -> dict:
    """Model value (SI) of each target key on the study's testbed under ``params``."""
    tb = testbed()
    kw = dict(fc_bandwidth_bps=tb.fc_bandwidth_bps, mgmt_network_bps=tb.nic_bandwidth_bps,
              vcenter_vcpus=tb.vcenter_vcpus, params=params)

    def t(path, network_bps=tb.nic_bandwidth_bps):
        return float(deploy_time_s(path, tb.template_size_bytes, network_bps=network_bps, **kw))

    t1, t2 = t("vaai"), t("host_fc")
    out = {}
    by_key = dict(zip(TARGET_KEYS, TARGETS, strict=True))
    for key in keys:
        target = by_key[v.choice("keys", key, TARGET_KEYS)]
        this = t(PATHS[int(dict(target.conditions)["experiment"]) - 1], _network_bps(target, tb))
        out[key] = {"deploy_time": this, "deploy_time_ratio_vs_exp1": this / t1,
                    "deploy_time_ratio_vs_exp2": this / t2, "slowdown_vs_exp1": this / t1 - 1.0}[target.quantity]
    return out


_X0 = Params(1e8, 0.5, 2.0, 1e8)  # starting guess: round orders of magnitude (disk array, NFC, gzip, one core)
_LO = np.log([1e6, 1e-3, 1.0, 1e5])
_HI = np.log([1e11, 1.0, 100.0, 1e11])


def _from_x(x) -> Params:
    return Params(*(float(e) for e in np.exp(x)))


@functools.lru_cache(maxsize=32)
def _fit(keys: tuple[str, ...]) -> Params:
    from scipy.optimize import least_squares

    by_key = dict(zip(TARGET_KEYS, TARGETS, strict=True))
    # a slowdown s is compared as the ratio 1 + s, so every residual is a log ratio of times
    offset = np.array([1.0 if by_key[k].quantity == "slowdown_vs_exp1" else 0.0 for k in keys])
    paper = np.array([by_key[k].paper_value() for k in keys]) + offset

    def resid(x):
        model = predict(_from_x(x), keys)
        return np.log((np.array([model[k] for k in keys]) + offset) / paper)

    x0 = np.clip(np.log([getattr(_X0, f.name) for f in fields(Params)]), _LO + 1e-9, _HI - 1e-9)
    sol = least_squares(resid, x0, bounds=(_LO, _HI), x_scale=1.0, xtol=1e-12, ftol=1e-12, gtol=1e-12)
    return _from_x(sol.x)


def calibrate(fit_on=None) -> Params:
    """Fit :class:`Params` to the targets ``fit_on`` (default: every target with role ``fit``).

    Least squares on log(model / paper) (for the 20 % slowdown, on log of the ratio 1 + slowdown)
    with :func:`scipy.optimize.least_squares` from a deterministic start within bounds.

    Raises
    ------
    ValueError
        Unknown keys, or fewer distinct keys than parameters.
    """
    keys = protocol.resolve_fit_on(STUDY, TARGETS, fit_on)
    n = len(fields(Params))
    if len(set(keys)) < n:
        raise ValueError(f"fit_on must name at least {n} distinct targets; got {len(set(keys))}")
    return protocol.cached_calibration(STUDY, fit_on, _fit, keys)
