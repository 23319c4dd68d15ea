"""Every what-if readout carries a 90 % interval; the ROBO readouts' fast intervals are with_interval's;
differences of two runs carry the noise of two measurements; non-negative quantities' bands stay >= 0."""

import ast
import importlib
import inspect
import math
import pkgutil
import re
from pathlib import Path

import numpy as np
import pytest

from vcperf import network, protocol, robo
from vcperf.protocol import misfit
from vcperf.views import format as fmt

#: "x (lo–hi unit, 90 %)" in any panel's style: an en dash or " to " between two numbers, then the 90 %.
INTERVAL_RE = re.compile(r"\([^()]*\d[^()]*(?:–| to )[^()]*\d[^()]*,\s*90\s?%")


def _views():
    import matplotlib

    matplotlib.use("Agg")
    import vcperf.views

    return {m.name: importlib.import_module(f"vcperf.views.{m.name}")
            for m in pkgutil.iter_modules(vcperf.views.__path__)}


def _update_functions():
    """Every what-if update function of every view module or package (a public ``*_update`` defined in it or
    in one of its submodules), found, not listed."""
    out = {}
    for name, mod in _views().items():
        for fname, fn in inspect.getmembers(mod, inspect.isfunction):
            if fname.endswith("_update") and not fname.startswith("_") and (
                    fn.__module__ == mod.__name__ or fn.__module__.startswith(mod.__name__ + ".")):
                out[f"{name}.{fname}"] = fn
    return out


def test_the_update_functions_are_found():
    found = set(_update_functions())
    assert {"robo.network_whatif_update", "robo.capacity_update", "robo.operations_update",
            "contentlib.deploy_whatif_update", "ft.whatif_update", "vcha.vcbench_whatif_update",
            "vcha.lifecycle_whatif_update", "vmotion.migration_whatif_update"} <= found


@pytest.mark.parametrize("name", sorted(_update_functions()))
def test_every_whatif_readout_carries_a_90_percent_interval(name):
    text, png = _update_functions()[name]()
    assert png[:4] == b"\x89PNG"
    assert INTERVAL_RE.search(text), f"{name}: no '(lo–hi, 90 %)' interval in {text!r}"
    assert "not estimable" not in text, f"{name}: the starting scenario's interval is not estimable: {text!r}"


def test_the_app_panels_are_the_views_panels_and_their_readouts_carry_intervals():
    """notebooks/app.py's tabs are the registry's studies' panels (``vcperf.views.panels()``, not listed
    here): every study has one, and each panel's readout, as built, carries an interval."""
    import vcperf.views
    from vcperf import studies

    source = (Path(__file__).resolve().parents[1] / "notebooks" / "app.py").read_text()
    tree = ast.parse(source)
    panels = next(node.value for node in ast.walk(tree) if isinstance(node, ast.Assign)
                  and any(getattr(t, "id", "") == "PANELS" for t in node.targets))
    assert ast.unparse(panels) == "views.panels()"
    _views()
    for name in studies.names():
        assert vcperf.views.module(name).PANELS, f"{name}: no what-if panel"
    makers = list(vcperf.views.panels().values())
    assert len(makers) == 9  # the site planner and the studies' eight panels
    import ipywidgets as w

    for make in makers:
        box = make()
        texts = [c.value for c in box.children if isinstance(c, w.Label | w.HTML) and c.value]
        assert any(INTERVAL_RE.search(t) for t in texts), f"{make.__qualname__}: no interval in {texts}"


@pytest.mark.parametrize("kwargs", [
    {"bandwidth_bps": 10e6, "rtt_s": 0.5, "loss": 0.001, "payload_bytes": 4e9},
    {"bandwidth_bps": 1e9, "rtt_s": 0.001, "loss": 0.0, "payload_bytes": 1e3},
])
def test_robo_network_readout_interval_is_the_studys_misfit_of_a_parameter_free_transfer(kwargs):
    views = _views()["robo"]
    text, _ = views.network_whatif_update(**kwargs)
    link = network.Link(kwargs["bandwidth_bps"], kwargs["rtt_s"], kwargs["loss"])
    t = float(robo.statistics_upload_time_s(kwargs["payload_bytes"], link))
    iv = protocol.interval_from_gradient(robo.STUDY, t, np.zeros(6))  # a transfer reads no parameter
    assert float(iv.low) < t < float(iv.high)
    assert fmt.fmt_band(t, float(iv.low), float(iv.high)) in text


@pytest.mark.parametrize("net,hosts,level,operation", [
    ("dsl_512k", 10.0, 1, "clone_vm"), ("satellite", 40.0, 2, "clone_vm"), ("t1", 150.0, 4, "create_vm"),
    ("t1", 60.0, 4, "create_vm"), ("dsl_512k", 7.0, 3, "create_folder"), ("lan", 1.0, 1, "group_power_on"),
])
def test_robo_planner_intervals_are_with_intervals(net, hosts, level, operation):
    """The planner's one stacked call (parameters on a new axis, forward differences) gives with_interval's
    band (two plan calls per parameter, central differences) to the differences' rounding."""
    views = _views()["robo"]
    link = robo.preset(net)
    grid = np.array([1.0, 5.0, hosts])
    base, lat, delay = views.plan_intervals(link, grid, level, operation)
    plain = robo.plan(link, grid, level, operation)
    np.testing.assert_allclose(np.broadcast_to(base.operation_latency_s, grid.shape),
                               np.broadcast_to(plain.operation_latency_s, grid.shape), rtol=1e-12)
    if bool(np.asarray(plain.overloaded)[-1]):
        # 150 Level-4 hosts overload T1: an overload is labelled and infinite, never a floor-rate number,
        # and has no band.
        assert str(np.asarray(plain.verdict)[-1]) == "overloaded"
        for v3 in (lat, delay):
            assert math.isinf(v3[0]) and all(math.isnan(x) for x in v3[1:])
        return
    for v3, output, table in ((lat, "operation_latency_s", views.LATENCY_TABLE),
                              (delay, "statistics_delay_s", views.UPLOAD_TABLE)):
        ref = protocol.with_interval(robo.plan, link, hosts, level, operation, output=output, data_table=table)
        assert v3[0] == pytest.approx(float(ref.value), rel=1e-12)
        assert v3[1:] == pytest.approx((float(ref.low), float(ref.high)), rel=1e-5)
        assert v3[1] < v3[0] < v3[2]


def _vcbench_reference(link, clients, operation):
    """with_interval's delta method, written out: central differences over *every* study parameter of a
    function of the study's Params (the VM-state size follows hostsync.bytes_per_change)."""
    from vcperf.robo import operations

    tb, p = robo.testbed(), robo.calibrate()
    names = protocol.param_names(p)

    def run(q):
        vs = robo.vm_state_bytes(q)
        r = operations.vcbench(link, q.ops, tb.mix, clients, tb.vcenter_vcpus, vm_state_bytes_=vs)
        stages = robo.operation_calls(operation)
        t_net = float(operations.operation_network_time_s(stages, link, q.ops.round_trips_per_call, vs))
        lat = r.per_operation_latency_s.get(
            operation, r.per_operation_latency_s["create_folder"] * operations.vcenter_steps(stages) + t_net)
        return np.array([lat, r.mean_latency_s])

    x = protocol.param_vector(p)
    h = protocol.JACOBIAN_STEP * np.abs(x)
    g = np.stack([(run(protocol.with_values(p, {n: x[i] + h[i]})) - run(protocol.with_values(p, {n: x[i] - h[i]})))
                  / (2 * h[i]) * x[i] for i, n in enumerate(names)], axis=-1)
    return protocol.interval_from_gradient(robo.STUDY, run(p), g, data_table=f"{robo.STUDY}/figure10_vcbench_latency")


@pytest.mark.parametrize("net,clients,operation", [
    ("dsl_512k", 8, "clone_vm"), ("satellite", 32, "create_vm"), ("lan", 1, "create_folder"),
    ("t1", 8, "vmotion_vm"),
])
def test_robo_operations_intervals_are_the_delta_method_over_every_parameter(net, clients, operation):
    views = _views()["robo"]
    link = robo.preset(net)
    lat, mean = views.operation_intervals(link, clients, operation)
    ref = _vcbench_reference(link, clients, operation)
    for i, v3 in enumerate((lat, mean)):
        assert v3[0] == pytest.approx(float(ref.value[i]), rel=1e-12)
        assert v3[1:] == pytest.approx((float(ref.low[i]), float(ref.high[i])), rel=1e-5)
        assert v3[1] < v3[0] < v3[2]


def test_robo_readouts_are_deterministic_and_show_the_operations_interval():
    views = _views()["robo"]
    link = robo.preset("satellite")
    first = views.operations_update(link.bandwidth_bps, link.rtt_s, link.loss, 8, "clone_vm")[0]
    views.operation_intervals.cache_clear()
    views.operation_split.cache_clear()
    again = views.operations_update(link.bandwidth_bps, link.rtt_s, link.loss, 8, "clone_vm")[0]
    assert first == again
    lat, mean = views.operation_intervals(link, 8, "clone_vm")
    assert f"clone_vm {fmt.fmt_band(*lat)}" in first
    res = robo.vcbench(link, 8)
    assert res.throughput_per_s == pytest.approx(8 / res.mean_latency_s, rel=1e-12)  # no think time: Little
    x = f"{fmt.fmt_num(8 / mean[2] * 60, 4)}–{fmt.fmt_num(8 / mean[1] * 60, 4)} ops/min, 90 %"
    assert f"throughput {fmt.fmt_num(res.throughput_per_s * 60, 4)} ops/min ({x})" in first
    text = views.capacity_update(link.bandwidth_bps, link.rtt_s, link.loss, 40, 2)[0]
    _, lat_iv, _ = views.plan_intervals(link, np.array([40.0]), 2, "clone_vm")
    assert f"clone_vm during the burst {fmt.fmt_band(*lat_iv)}" in text
    assert text == views.capacity_update(link.bandwidth_bps, link.rtt_s, link.loss, 40, 2)[0]


def test_fmt_band_writes_the_unit_once_and_says_when_there_is_no_interval():
    assert fmt.fmt_band(56.2, 51.6, 61.1) == "56.2 s (51.6–61.1 s, 90 %)"
    assert fmt.fmt_band(0.85, 0.7, 1.2) == "850 ms (700 ms–1.2 s, 90 %)"
    assert fmt.fmt_band(130, 110, 150) == "2.17 min (110 s–2.5 min, 90 %)"
    assert fmt.fmt_band(3.0, math.nan, math.nan) == "3 s (no interval: not estimable)"
    assert fmt.fmt_band(2e6, 1e6, 3e6, fmt=fmt.fmt_bps, interval=0.8) == "2 Mbit/s (1–3 Mbit/s, 80 %)"


# --- the ledger's bands: differences of two runs, non-negative quantities -------------------------------


def test_a_difference_band_carries_the_noise_of_two_runs_and_may_change_sign():
    """A change between two runs with a model value of ~0 (VCHA Table 14's 256-client PSC change) gets a
    normal band at least sqrt(2) x the noise floor wide each way, not a band of width ~0; without the mark
    the same value would get a log-normal band that never reaches 0."""
    # a table misfit (1 %, relative to the reference run) below the two-run noise: the floor applies
    unc = protocol.FitUncertainty(jac=np.eye(1), cov=np.zeros((1, 1)), sigma=0.01, dof=3, prior_dof=3.0)
    q = float(misfit._quantile(0.9, 3.0))
    floor = math.sqrt(2.0) * protocol.noise_floor()
    assert floor > 0.01
    for model in (1e-14, -1e-14, 0.0):
        low, high = unc.band(model, np.zeros(1), 0.007, difference=True)
        assert (low, high) == pytest.approx((model - q * floor, model + q * floor), rel=1e-9, abs=1e-15)
    plain = unc.band(1e-14, np.zeros(1), 0.007)
    assert plain[0] > 0 and plain[1] - plain[0] < 1e-14  # the defect a difference must not have
    unc = protocol.FitUncertainty(jac=np.eye(1), cov=np.zeros((1, 1)), sigma=0.05, dof=3, prior_dof=3.0)
    # a large change keeps its table's misfit when that is larger, relative to the change's operand level
    # (the reference run, 1), as its residuals are measured (session 4: was relative to the change itself)
    big = unc.band(-0.65, np.zeros(1), 0.65, difference=True)
    assert big == pytest.approx((-0.65 - q * 0.05, -0.65 + q * 0.05), rel=1e-9)
    assert unc.band(-0.2, np.zeros(1), 0.2, difference=True) == pytest.approx((-0.2 - q * 0.05, -0.2 + q * 0.05))


def test_a_difference_residual_is_measured_against_its_reference_run():
    """A fitted -0.7 % change that the model puts at -1.7 % is one point off its reference run, not a 143 %
    residual: relative to its own size it would inflate its table's misfit and, through the pooled prior,
    every study's bands. Level numbers keep log residuals."""
    model, paper = np.array([-0.017, 1.1, -0.5]), np.array([-0.007, 1.0, -0.25])
    r = misfit._residuals(model, paper, [True, False, False])
    assert r == pytest.approx([-0.01, math.log(1.1), -1.0])
    assert misfit._residuals(model, paper) == pytest.approx([-10 / 7, math.log(1.1), -1.0])  # no mark: relative


def test_a_nonnegative_band_never_goes_below_zero():
    unc = protocol.FitUncertainty(jac=np.eye(1), cov=np.zeros((1, 1)), sigma=0.1, dof=3, prior_dof=3.0)
    low, high = unc.band(0.0, np.zeros(1), 4.0, nonnegative=True)
    assert low == 0.0 and high > 0.0
    assert unc.band(0.0, np.zeros(1), 4.0)[0] < 0.0  # signed when not said otherwise (unchanged default)
    assert unc.band(2.0, np.zeros(1), 4.0, nonnegative=True) == unc.band(2.0, np.zeros(1), 4.0)  # log-normal > 0


def test_mark_differences_refuses_names_it_cannot_find():
    t = (protocol.Target("a", "x/t", "throughput_change"), protocol.Target("b", "x/t", "throughput"))
    marked = protocol.mark_differences(t, ("throughput_change",))
    assert [x.difference for x in marked] == [True, False]
    assert [x.difference for x in protocol.mark_differences(t, ("b",))] == [False, True]
    with pytest.raises(ValueError, match="throughput_chnage"):
        protocol.mark_differences(t, ("throughput_chnage",))


@pytest.fixture(scope="module")
def ledger():
    from vcperf import fidelity

    return fidelity.table()


def test_every_signed_target_is_marked_a_difference_and_every_change_quantity_too():
    """A target with a negative paper value must be a difference (a non-negative quantity cannot be
    negative), and so must every percent quantity named as a change between runs."""
    from vcperf import data

    change = re.compile(r"(change|drop|loss|reduction|slowdown|improvement)")
    for study in protocol.STUDY_MODULES:
        for t in protocol.study_module(study).targets():
            if t.paper_value() < 0:
                assert t.difference, f"{study}: {t.key} is negative but not marked a difference"
            if change.search(t.quantity) and t.data_row()["unit"] == "percent":
                assert t.difference, f"{study}: {t.key} ({t.quantity}, percent) is a change but not marked"
            if t.difference:
                assert data.UNITS[t.data_row()["unit"]][0] in ("1", ""), f"{study}: {t.key} is not a fraction"


def test_ledger_bands_of_differences_and_nonnegative_quantities(ledger):
    q_min = float(misfit._quantile(0.9, math.inf))
    floor = math.sqrt(2.0) * protocol.noise_floor()
    diff = {(s, t.key) for s in protocol.STUDY_MODULES for t in protocol.study_module(s).targets() if t.difference}
    has = ledger[ledger["model_low"].notna() & ledger["model_high"].notna()]
    is_diff = np.array([(s, k) in diff for s, k in zip(has["study"], has["key"], strict=True)])
    assert is_diff.sum() >= 15
    d = has[is_diff]
    # a band is clipped only at the edge of the model's own domain (issue 26: Target.minimum/maximum, e.g. a
    # VCHA overhead is never a gain), and there exactly
    tgt = {(s, t.key): t for s in protocol.STUDY_MODULES for t in protocol.study_module(s).targets()}
    hi_edge = np.array([tgt[(s, k)].maximum for s, k in zip(d["study"], d["key"], strict=True)])
    lo_edge = np.array([tgt[(s, k)].minimum for s, k in zip(d["study"], d["key"], strict=True)])
    up_ok = (d["model_high"] - d["model_value"]) >= q_min * floor * (1 - 1e-9)
    dn_ok = (d["model_value"] - d["model_low"]) >= q_min * floor * (1 - 1e-9)
    assert (up_ok | (d["model_high"].to_numpy() == hi_edge)).all()
    assert (dn_ok | (d["model_low"].to_numpy() == lo_edge)).all()
    assert ((d["model_high"] - d["model_low"]) >= q_min * floor * (1 - 1e-9)).all()  # never collapsed
    assert (d["model_low"].to_numpy() >= lo_edge).all() and (d["model_high"].to_numpy() <= hi_edge).all()
    assert (has.loc[~is_diff, "model_low"] >= 0.0).all(), "a non-negative quantity's band goes below 0"
    # vMotion's 7.0 U1 failed checks: a count (was 0 with a -0.48..0.48 band; non-zero since the split
    # TPCx-HCI phases) has a band inside [0, inf) around its value (the clip itself: the band() tests above)
    row = has[(has["study"] == "vmotion2020") & (has["key"] == "failed_checks_70u1")].iloc[0]
    assert 0.0 <= row["model_low"] <= row["model_value"] <= row["model_high"]


def test_summary_width_of_a_difference_is_relative_to_its_reference_run(ledger):
    """The summary's median width: a level row's width over |paper|, a difference's width itself (a change
    as a fraction of its reference run), so a change near 0 does not dominate with a huge relative width."""
    from vcperf import fidelity

    summ = fidelity.summary(ledger).set_index("study")
    for study, g in ledger.groupby("study"):
        tmap = protocol.target_map(protocol.study_module(study))
        s = g[g["kind"].isin(["loo", "predicted"]) & g["model_low"].notna() & g["model_high"].notna()]
        widths = [(hi - lo) / (1.0 if tmap[k].difference else abs(p))
                  for k, p, lo, hi in zip(s["key"], s["paper_value"], s["model_low"], s["model_high"], strict=True)]
        assert summ.loc[study, "median_width"] == pytest.approx(float(np.median(widths)), rel=1e-12)
    # difference rows are among them (Content Library's slowdown, vMotion's time reduction: loo rows with a
    # band; VCHA's printed Differences are derived since both their sides are rows), so the rule is exercised
    s = ledger[ledger["kind"].isin(["loo", "predicted"]) & ledger["model_low"].notna()]
    diffs = [k for st, k in zip(s["study"], s["key"], strict=True)
             if protocol.target_map(protocol.study_module(st))[k].difference]
    assert len(diffs) >= 2


def test_every_study_has_a_notebook_section_on_its_interval_widths():
    """Issue 17: per study, a notebook section says what drives the widths and where the model extrapolates.

    Some notebook calls ``protocol.width_drivers(<the study's module>)`` under a "How far to trust it"
    heading and draws a band (``protocol.with_interval``) over an input swept beyond the paper's points.
    """
    notebooks = Path(__file__).resolve().parents[1] / "notebooks"
    found = {}
    for path in sorted(notebooks.glob("*.py")):
        text = path.read_text()
        if "## How far to trust it" not in text or "protocol.with_interval(" not in text:
            continue
        tree = ast.parse(text)
        aliases = {}  # local name -> imported module
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module == "vcperf":
                aliases.update({a.asname or a.name: f"vcperf.{a.name}" for a in node.names})
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "width_drivers" and node.args and isinstance(node.args[0], ast.Name)):
                found.setdefault(aliases.get(node.args[0].id), []).append(path.name)
    missing = sorted(set(protocol.STUDY_MODULES.values()) - set(found))
    assert not missing, f"no 'How far to trust it' section with width_drivers for {missing}"
