"""One calibration object per study and one interval implementation: the ledger, the what-if panels and
the site planner give the same band for the same quantity."""

from __future__ import annotations

import ast
import dataclasses
import importlib
import math
from pathlib import Path

import numpy as np
import pytest

from vcperf import contentlib, network, protocol, robo, site

PKG = Path(protocol.__file__).resolve().parent.parent


def test_calibration_is_one_frozen_object_per_study():
    cal = protocol.calibration("contentlib2015")
    assert cal is protocol.calibration(contentlib)  # cached; by name or by subpackage
    assert cal.params == contentlib.calibrate()
    assert cal.fitted_from == protocol.fit_keys(contentlib)
    assert cal.param_names == tuple(protocol.param_names(cal.params))
    assert cal.cov.shape == (len(cal.param_names),) * 2
    np.testing.assert_array_equal(cal.cov, protocol.uncertainty("contentlib2015").cov)
    with pytest.raises(dataclasses.FrozenInstanceError):
        cal.params = None


def _burst_plan(link: network.Link, hosts: float, level: int, operation: str):
    return site.from_dict({
        "links": [{"name": "wan", "bandwidth": f"{link.bandwidth_bps / 1e6:.17g} Mbit/s",
                   "rtt": f"{link.rtt_s * 1e3:.17g} ms", "loss": f"{link.loss * 100:.17g} %"}],
        "branches": [{"name": "shop", "link": "wan", "hosts": hosts, "stats_level": level,
                      "operation": operation}]})


@pytest.mark.parametrize("net,hosts,level,operation", [("satellite", 40.0, 2, "clone_vm"),
                                                        ("dsl_512k", 10.0, 1, "clone_vm")])
def test_panel_and_planner_give_one_band_for_the_branch_burst(net, hosts, level, operation):
    """The ROBO planner panel's readout and the site planner's answer for the same branch (its link, hosts,
    statistics level and operation): the same value and the same 90 % band."""
    from vcperf.views import robo as views

    link = robo.preset(net)
    plan = _burst_plan(link, hosts, level, operation)
    _, lat, delay = views.plan_intervals(link, np.array([hosts]), level, operation)
    ev = site.evaluate(plan, intervals=True)
    for panel, quantity in ((lat, "operation_latency_s"), (delay, "statistics_delay_s")):
        a = ev.answer("shop", quantity)
        assert math.isfinite(a.low) and a.low < a.value < a.high
        np.testing.assert_allclose((a.value, a.low, a.high), panel, rtol=1e-12, atol=0)


@pytest.mark.parametrize("study", ["robo2019", "contentlib2015", "ft2016"])
def test_ledger_panel_and_planner_paths_give_one_band(study):
    """Every fitted level of a study: the ledger row's band, the calibration's interval of the target's model
    (what a panel calls) and the site planner's interval: the same numbers."""
    rows = {(r.key, r.kind): r for r in protocol.fidelity_rows(study)}
    cal = protocol.calibration(study)
    checked = 0
    for t in protocol.study_module(study).targets():
        if t.role != "fit" or t.difference:
            continue
        row = rows[(t.key, "fitted")]
        if not (row.model_value > 0 and math.isfinite(row.model_low)) or row.model_low <= t.minimum or \
                row.model_high >= t.maximum:
            continue
        panel = cal.interval(lambda p, t=t: t.model(p), data_table=t.table)
        planner = site.interval(study, lambda p, t=t: np.array([t.model(p)]), data_table=t.table)
        for iv in (panel, planner):
            np.testing.assert_allclose(
                (float(np.ravel(iv.value)[0]), float(np.ravel(iv.low)[0]), float(np.ravel(iv.high)[0])),
                (row.model_value, row.model_low, row.model_high), rtol=1e-12, atol=0)
        checked += 1
    assert checked >= 3


def test_with_interval_is_the_calibration_interval():
    r = protocol.with_interval(contentlib.deploy_time_s, "streaming", np.array([10e9, 39e9]))
    c = protocol.calibration("contentlib2015").interval(lambda p: contentlib.deploy_time_s(
        "streaming", np.array([10e9, 39e9]), params=p))
    for a, b in ((r.value, c.value), (r.low, c.low), (r.high, c.high)):
        np.testing.assert_array_equal(a, b)


def test_reads_and_many_change_the_cost_not_the_band():
    cal = protocol.calibration("robo2019")
    link = robo.preset("satellite")
    calls = []

    def fn(p):
        calls.append(1)
        return np.array([float(robo.plan(link, 20, 2, params=p).operation_latency_s)])

    full = cal.interval(fn)
    n_full = len(calls)
    calls.clear()
    reads = tuple(n for n in cal.param_names if not n.startswith("addhost."))
    cheap = cal.interval(fn, reads=reads)
    assert len(calls) < n_full
    batched = cal.interval(fn, reads=reads, many=lambda qs: [fn(q) for q in qs])
    for iv in (cheap, batched):
        np.testing.assert_allclose((iv.value, iv.low, iv.high), (full.value, full.low, full.high), rtol=1e-12)
    with pytest.raises(ValueError, match="reads must be None or a collection of parameter names"):
        cal.interval(fn, reads=("no_such",))


def test_a_parameter_at_its_domain_edge_gets_a_one_sided_derivative():
    cal = protocol.calibration("contentlib2015")
    name = cal.param_names[0]
    x = float(protocol.param_vector(cal.params)[0])

    def fn(p):  # a model defined only at or above the calibrated value of the first parameter
        if protocol.param_vector(p)[0] < x:
            raise ValueError("outside the domain")
        return np.array([protocol.param_vector(p)[0] ** 2])

    value, g = cal.gradient(fn)
    assert g[0, cal.param_names.index(name)] == pytest.approx(2 * x * x, rel=1e-5)


def test_one_gradient_implementation():
    """No module differentiates a model by itself: the removed implementations stay removed, and only
    protocol/jacobian.py steps parameters by a relative finite difference."""
    from vcperf.robo import readouts
    from vcperf.vcha import vcbench

    assert not hasattr(vcbench, "throughput_sensitivities")
    site_evaluate = importlib.import_module("vcperf.site.evaluate")  # the module (site.evaluate is its function)
    assert not hasattr(site_evaluate, "_value_and_gradient") and not hasattr(site_evaluate, "STEP")
    assert not hasattr(readouts, "INTERVAL_STEP")
    offenders = []
    for path in sorted(PKG.rglob("*.py")):
        if path.parent.name == "protocol":
            continue
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and node.id in {"JACOBIAN_STEP", "INTERVAL_STEP"}:
                offenders.append(f"{path.relative_to(PKG)}:{node.lineno}")
            if isinstance(node, ast.Attribute) and node.attr in {"interval_from_gradient", "JACOBIAN_STEP"}:
                offenders.append(f"{path.relative_to(PKG)}:{node.lineno}")
    assert not offenders, offenders
