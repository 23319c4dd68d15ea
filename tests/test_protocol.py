"""Every study implements the same protocol (vcperf.protocol), and model files never read data/."""

import ast
import dataclasses
import math
from pathlib import Path

import numpy as np
import pytest

from vcperf import data, protocol
from vcperf.protocol import loo, misfit

STUDIES = list(protocol.STUDY_MODULES)
PKG = Path(__file__).resolve().parent.parent / "vcperf"
#: Files of a study subpackage that may read data/ (paper numbers and testbed facts; the shape of tests/test_shape.py).
DATA_READERS = {"testbed.py", "targets.py", "calibration.py", "validation.py", "__init__.py"}


@pytest.fixture(scope="module", params=STUDIES)
def study(request):
    return protocol.study_module(request.param)


def test_every_study_is_a_subpackage_exposing_the_protocol(study):
    assert Path(study.__file__).name == "__init__.py", "a study is a subpackage split by concern"
    for name in protocol.REQUIRED:
        assert hasattr(study, name), f"{study.__name__} lacks {name}"
    assert study.STUDY in data.STUDIES


def test_model_files_never_read_data(study):
    folder = Path(study.__file__).parent
    for path in sorted(folder.glob("*.py")):
        if path.name in DATA_READERS:
            continue
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module in ("vcperf", "vcperf.data"):
                names = {a.name for a in node.names}
                assert node.module != "vcperf.data" and "data" not in names, f"{path} imports vcperf.data"
            if isinstance(node, ast.Import):
                assert all(a.name != "vcperf.data" for a in node.names), f"{path} imports vcperf.data"
            facade = path.name == "study.py"  # the facade fills params=None from calibrate (never validation)
            if isinstance(node, ast.ImportFrom) and node.module and node.module.endswith(
                    (".validation",) if facade else (".calibration", ".validation")):
                pytest.fail(f"{path} (a model file) imports {node.module}: models take physical inputs")


def test_targets_name_one_data_row_each_and_roles_match_relations(study):
    tmap = protocol.target_map(study)
    assert tmap, "a study speaks to at least one paper number"
    for key, t in tmap.items():
        assert t.table.startswith(study.STUDY + "/"), key
        row = t.data_row()  # raises unless exactly one row matches
        assert row["unit"] != "text", f"{key}: a text row has no value to compare"
        rel = row["relation"] or "="
        if t.role == "bound":
            assert rel in ("<", "<=", ">", ">="), f"{key}: a bound needs an inequality in data/ (has {rel!r})"
        else:
            assert rel in ("=", "~"), f"{key}: an inequality ({rel}) must be role 'bound'"
        if t.role == "derived":
            assert t.depends_on, f"{key}: a derived target names what it is computed from"


def test_calibrate_returns_params_and_fit_on_subsets_work(study):
    p = study.calibrate()
    assert isinstance(p, study.Params)
    names = protocol.param_names(p)
    assert names, "a calibrated study has parameters"
    assert set(names) == set(study.PARAM_DOCS), "PARAM_DOCS documents exactly the float leaves of Params"
    for name, (unit, meaning) in study.PARAM_DOCS.items():
        assert unit and meaning, f"{name}: unit and meaning"
    assert np.isfinite(protocol.param_vector(p)).all()
    fit = protocol.fit_keys(study)
    assert study.calibrate(fit_on=fit) == p, "calibrate() is calibrate(fit_on=<the fit targets>)"
    with pytest.raises(ValueError):
        study.calibrate(fit_on=("no_such_target",))


def test_predict_covers_every_target_and_is_finite(study):
    tmap = protocol.target_map(study)
    values = study.predict(study.calibrate(), tuple(tmap))
    assert set(values) == set(tmap)
    bad = {k: v for k, v in values.items() if not math.isfinite(v)}
    assert not bad, f"non-finite model values: {bad}"


def test_every_fitted_row_has_a_loo_row(study):
    rows = study.fidelity_rows()
    fitted = {r.key for r in rows if r.kind == "fitted"}
    loo = {r.key for r in rows if r.kind == "loo"}
    assert fitted == loo
    assert fitted == set(protocol.fit_keys(study))
    table = study.leave_one_out()
    assert set(table["key"]) == fitted
    # each loo refit really left its group out
    for _, r in table.iterrows():
        assert r["n_fit"] == len(fitted) - r["n_held_out"]


def test_no_predicted_row_is_computed_from_other_rows(study):
    """``predicted``: never used in any fit and not computed from fitted rows. A printed number that is
    arithmetic of other printed rows (a copy, a total, a Difference of two rows) is ``derived`` and
    names them in ``depends_on``; a predicted row depends on none."""
    for t in study.targets():
        if t.role == "predicted":
            assert not t.depends_on, t.key
        if t.depends_on:
            assert t.role == "derived", t.key


def test_parameter_table_names_unit_meaning_and_rows(study):
    t = study.parameter_table()
    assert list(t.columns) == ["name", "value", "unit", "meaning", "identifiable", "sd_relative", "low_90",
                               "high_90", "fitted_from"]
    assert set(t["name"]) == set(study.PARAM_DOCS)
    assert "Gauss-Newton" in t.attrs["uncertainty_method"]
    ok = t[t["identifiable"]]
    assert (ok["sd_relative"] > 0).all()
    assert (ok["low_90"] <= ok["value"]).all() and (ok["value"] <= ok["high_90"]).all()
    assert t.loc[~t["identifiable"], "sd_relative"].isna().all(), "no fake interval for a parameter not identified"
    ident = protocol.identifiability(study)
    assert ident["jacobian_rank"] <= min(ident["n_params"], ident["n_fit_points"])


def test_params_are_frozen_dataclasses(study):
    p = study.calibrate()
    assert dataclasses.is_dataclass(p)
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(p, dataclasses.fields(p)[0].name, 0.0)


def test_protocol_machinery_on_a_toy_study():
    """Leave-one-out and estimability on a linear toy model whose answers are known by hand."""
    toy = _toy()
    loo = protocol.leave_one_out(toy).set_index("key")
    # y = a * x fitted to x = 1, 2 (paper 2, 4): dropping either predicts it exactly
    assert loo.loc["p1", "model_value"] == pytest.approx(2.0)
    assert loo.loc["p2", "model_value"] == pytest.approx(4.0)
    # b only moves p3; without p3 nothing determines it: not estimable (NaN), never a made-up number
    assert not loo.loc["p3", "estimable"] and math.isnan(loo.loc["p3", "model_value"])
    ident = protocol.identifiability(toy)
    assert ident["n_params"] == 2 and ident["jacobian_rank"] == 2
    assert ident["fitted_from"]["b"] == ("p3",)


def _toy():
    import types

    @dataclasses.dataclass(frozen=True)
    class Params:
        a: float
        b: float

    class _T(protocol.Target):
        def paper_value(self):
            return {"p1": 2.0, "p2": 4.0, "p3": 9.0}[self.key]

    targets = (_T("p1", "toy/t", "y", (("x", "1"),), model=lambda p: p.a * 1),
               _T("p2", "toy/t", "y", (("x", "2"),), model=lambda p: p.a * 2),
               _T("p3", "toy/t", "z", (("x", "3"),), model=lambda p: p.a * 3 + p.b))

    def predict(p, keys):
        return protocol.predict(mod, p, keys)

    def calibrate(fit_on=None):
        fit_on = tuple(fit_on or ("p1", "p2", "p3"))
        a_keys = [k for k in fit_on if k in ("p1", "p2")]
        a = np.mean([{"p1": 2.0, "p2": 2.0}[k] for k in a_keys]) if a_keys else 1.0
        b = 9.0 - 3 * a if "p3" in fit_on else 0.5
        return Params(float(a), float(b))

    mod = types.SimpleNamespace(STUDY="toy_study_for_tests", targets=lambda: targets, predict=predict,
                                calibrate=calibrate, Params=Params, PARAM_DOCS={"a": ("1", "slope"),
                                                                                "b": ("1", "offset")})
    return mod


def test_disk_cache_is_shared_and_keyed_by_the_source_digest(tmp_path, monkeypatch):
    """A second process (here: a cleared in-process cache) reads the same results from disk; a changed
    source digest (an edited model or data file) recomputes; VCPERF_NO_CACHE disables the cache."""

    monkeypatch.setenv("VCPERF_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("VCPERF_NO_CACHE", raising=False)
    study = protocol.study_module("contentlib2015")
    protocol.clear_caches()
    first = study.leave_one_out()
    files = sorted(tmp_path.glob("contentlib2015-loo-*.pickle"))
    assert len(files) == 1
    # Poison the file: a cleared process cache must read it back (proving the disk is used) ...
    poisoned = first.copy()
    poisoned["note"] = "from disk"
    protocol.cache._write(files[0], poisoned)  # signed with this installation's key, as the cache writes
    protocol.clear_caches()
    monkeypatch.setattr(protocol.cache, "source_digest", lambda: files[0].name.split("-loo-")[1][:-7] + "0" * 44)
    assert (study.leave_one_out()["note"] == "from disk").all()
    # ... and a different digest (any source or data edit) recomputes the honest values.
    protocol.clear_caches()
    monkeypatch.setattr(protocol.cache, "source_digest", lambda: "f" * 64)
    again = study.leave_one_out()
    assert not (again["note"] == "from disk").any()
    assert again.drop(columns="note").equals(first.drop(columns="note"))
    monkeypatch.setenv("VCPERF_NO_CACHE", "1")
    assert protocol.cache_dir() is None
    protocol.clear_caches()


@pytest.mark.parametrize("study", STUDIES)
def test_default_calibration_is_read_from_the_disk_cache(study, tmp_path, monkeypatch):
    """Every study's ``calibrate()`` (the default fit keys) is stored on disk once per source digest and
    read back by a fresh process (here: cleared in-process caches), so a notebook kernel does not refit;
    an explicit ``fit_on`` always fits."""

    monkeypatch.setenv("VCPERF_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("VCPERF_NO_CACHE", raising=False)
    mod = protocol.study_module(study)
    protocol.clear_caches()
    try:
        honest = mod.calibrate()
        files = sorted(tmp_path.glob(f"{study}-calibrate-*.pickle"))
        assert len(files) == 1 and protocol.cache._read(files[0]) == honest
        # poison it (signed, valid parameters): only a read of the disk returns these values
        name = protocol.param_names(honest)[0]
        poisoned = protocol.with_values(honest, {name: protocol.param_vector(honest)[0] * 1.5})
        protocol.cache._write(files[0], poisoned)
        protocol.clear_caches()
        assert mod.calibrate() == poisoned != honest
        assert mod.calibrate(protocol.fit_keys(mod)) == honest
    finally:
        protocol.clear_caches()


def _toy_linear_module(paper, xs, two_params=False):
    """A toy study y = a x (+ b) whose targets are the given paper values, one table, one group each."""
    import types

    @dataclasses.dataclass(frozen=True)
    class OneParam:
        a: float

    @dataclasses.dataclass(frozen=True)
    class TwoParams:
        a: float
        b: float

    Params = TwoParams if two_params else OneParam

    class _T(protocol.Target):
        def paper_value(self):
            return paper[self.key]

    def model(key):
        return lambda p: p.a * xs[key] + (p.b if two_params else 0.0)

    def predict(p, keys):
        return protocol.predict(mod, p, keys)

    def calibrate(fit_on=None):
        keys = tuple(sorted(paper)) if fit_on is None else tuple(fit_on)
        y = np.array([paper[k] for k in keys])
        x = np.array([xs[k] for k in keys])
        cols = [x / y, 1.0 / y] if two_params else [x / y]  # least squares on relative residuals
        if len(keys) < len(cols):
            raise ValueError("fit_on: too few points")
        coef = np.linalg.lstsq(np.column_stack(cols), np.ones_like(y), rcond=None)[0]
        return Params(*(float(c) for c in coef))

    mod = types.SimpleNamespace(
        STUDY="toy_linear_for_tests", Params=Params, calibrate=calibrate, predict=predict,
        targets=lambda: tuple(_T(k, "toy/t", "y", (("x", str(xs[k])),), model=model(k)) for k in paper))
    return mod


def test_fit_uncertainty_matches_the_least_squares_formula():
    """One-parameter model y = a x fitted to three noisy points, one table, no other study to pool with:
    the misfit sd is the larger of the log residuals' sqrt(RSS / (n - rank)) and the papers' noise
    floor; the posterior variance of the relative perturbation of a is 1 / (sum(g_i^2) / sigma^2 + 1 /
    PARAM_PRIOR_SD^2) with g_i = x_i a / |y_i|; the band adds one measurement's misfit and uses the
    Student-t quantile with n - rank = 2 degrees of freedom."""
    from scipy.stats import t as student_t

    paper = {"q1": 2.2, "q2": 3.8, "q3": 6.3}
    xs = {"q1": 1.0, "q2": 2.0, "q3": 3.0}
    mod = _toy_linear_module(paper, xs)
    keys = tuple(paper)
    y = np.array([paper[k] for k in keys])
    x = np.array([xs[k] for k in keys])
    a = mod.calibrate().a
    unc = protocol.fit_uncertainty(mod, mod.Params(a), keys)
    resid = np.log(a * x / y)  # log space
    sigma = max(math.sqrt(resid @ resid / 2), protocol.noise_floor())
    g = x * a / y
    assert unc.dof == 2
    assert unc.sigma == pytest.approx(sigma, rel=1e-9)
    assert unc.misfit("toy/t") == pytest.approx((sigma, 2.0), rel=1e-9)
    assert unc.cov[0, 0] == pytest.approx(1.0 / ((g @ g) / sigma**2 + 1.0 / protocol.PARAM_PRIOR_SD**2), rel=1e-5)
    low, high = unc.band(a * 4.0, np.array([4.0 * a / 5.0]), 5.0, table="toy/t")
    rel_sd = math.sqrt(unc.cov[0, 0] + sigma**2)  # relative sd of the positive value 4a
    q = student_t.ppf(0.95, 2)
    assert (low, high) == pytest.approx((4.0 * a * math.exp(-q * rel_sd), 4.0 * a * math.exp(q * rel_sd)), rel=1e-6)
    # a negative value (a difference) gets a symmetric normal band, its misfit relative to the paper scale
    nlow, nhigh = unc.band(-0.02, np.array([0.0]), 0.02)
    assert (nlow, nhigh) == pytest.approx((-0.02 - q * sigma * 0.02, -0.02 + q * sigma * 0.02), rel=1e-9)
    # a model value of 0 still gets the misfit band (not a band of width 0)
    zlow, zhigh = unc.band(0.0, np.array([0.0]), 0.5)
    assert (zlow, zhigh) == pytest.approx((-q * sigma * 0.5, q * sigma * 0.5), rel=1e-9)
    # a direction the fit does not determine gets no interval
    blind = protocol.FitUncertainty(jac=np.array([[1.0, 0.0]]), cov=np.zeros((2, 2)), sigma=0.01, dof=0)
    assert all(math.isnan(v) for v in blind.band(1.0, np.array([0.0, 1.0]), 1.0))
    # as many parameters as points: no residual to measure the misfit with, so no interval (not the floor alone)
    exact = protocol.fit_uncertainty(mod, mod.Params(a), ("q1",))
    assert exact.dof == 0 and math.isnan(exact.sigma)
    assert all(math.isnan(v) for v in exact.band(a, np.array([a / 2.2]), 2.2, table="toy/t"))


def test_student_t_quantile_widens_bands_of_few_residual_degrees_of_freedom():
    from scipy.stats import norm
    from scipy.stats import t as student_t

    for dof in (1.0, 2.5, 7.0, 40.0):
        assert float(misfit._quantile(0.9, dof)) == pytest.approx(student_t.ppf(0.95, dof), rel=1e-9)
    assert float(misfit._quantile(0.9, math.inf)) == pytest.approx(norm.ppf(0.95), rel=1e-9)
    assert math.isnan(float(misfit._quantile(0.9, 0.0)))
    unc = {d: protocol.FitUncertainty(jac=np.eye(1), cov=np.zeros((1, 1)), sigma=0.05, dof=3, prior_dof=d)
           for d in (1.0, 3.0, 30.0)}
    widths = [np.subtract(*unc[d].band(1.0, np.zeros(1), 1.0)[::-1]) for d in (1.0, 3.0, 30.0)]
    assert widths[0] > widths[1] > widths[2] > 2 * norm.ppf(0.95) * 0.05 * 0.99


def test_scaled_inv_chi2_fit_recovers_the_spread_of_table_variances():
    """Table variances drawn (seeded) from a scaled inverse chi-square of scale s0^2 and d0 dof, each
    observed through a sample variance with nu dof: the maximum-likelihood fit recovers s0^2 and d0;
    equal variances give a large d0 (no more spread than chance)."""
    rng = np.random.default_rng(17)
    s0, d0, n_tables = 0.05**2, 4.0, 2000
    nu = rng.choice([1.0, 2.0, 3.0, 6.0], n_tables)
    true = d0 * s0 / rng.chisquare(d0, n_tables)
    rss = true * rng.chisquare(nu)
    est_s0, est_d0 = protocol.scaled_inv_chi2_fit(rss, nu)
    assert est_s0 == pytest.approx(s0, rel=0.15)
    assert est_d0 == pytest.approx(d0, rel=0.3)
    same = s0 * rng.chisquare(nu)
    flat_s0, flat_d0 = protocol.scaled_inv_chi2_fit(same, nu)
    assert flat_d0 > 30 and flat_s0 == pytest.approx(s0, rel=0.1)  # d0 > 30: variances within ~25 %
    assert protocol.scaled_inv_chi2_fit(rss, nu) == (est_s0, est_d0)  # deterministic


def test_moderated_table_variances_shrink_towards_the_prior_and_split_the_dof_by_leverage():
    resid = np.array([0.01, -0.01, 0.2, -0.2, 0.0])
    lev = np.array([0.5, 0.5, 0.5, 0.5, 1.0])
    tables = ["a", "a", "b", "b", "c"]
    plain = protocol.structural_variances(resid, lev, tables, 3)
    assert plain["dof"] == 2
    assert plain["tables"]["a"] == pytest.approx((resid @ resid / 2, 2.0))  # one pooled REML variance
    s0, d0 = 0.05**2, 3.0
    est = protocol.structural_variances(resid, lev, tables, 3, prior=(s0, d0, 10.0))
    va, da = est["tables"]["a"]
    vb, db = est["tables"]["b"]
    assert va == pytest.approx((d0 * s0 + 2e-4) / (d0 + 1.0)) and da == pytest.approx(d0 + 1.0)
    assert vb == pytest.approx((d0 * s0 + 0.08) / (d0 + 1.0))
    assert 2e-4 < va < s0 < vb < 0.08  # each table shrunk towards the prior, the ill-fitting one stays wider
    assert est["tables"]["c"] == pytest.approx((s0, d0))  # a table absorbed by the parameters: the prior alone
    assert est["study"] == pytest.approx(((d0 * s0 + resid @ resid) / (d0 + 2), d0 + 2))


def test_loo_bands_use_only_the_refit_residuals():
    """Moving a held-out paper number moves neither its loo prediction nor its loo band: the misfit is
    estimated from the refit's own fitted residuals, never from the number being scored."""
    xs = {f"p{i}": float(i) for i in range(1, 7)}
    base = {k: 2.0 * x + 1.0 + 0.1 * (-1) ** i for i, (k, x) in enumerate(xs.items())}
    before = loo._loo(_toy_linear_module(base, xs, two_params=True)).set_index("key")
    for k in ("p2", "p5"):
        moved = dict(base, **{k: base[k] * 1.5})
        after = loo._loo(_toy_linear_module(moved, xs, two_params=True)).set_index("key")
        protocol.clear_caches()
        assert after.loc[k, "model_value"] == pytest.approx(before.loc[k, "model_value"], rel=1e-9)
        assert (after.loc[k, "model_low"], after.loc[k, "model_high"]) == pytest.approx(
            (before.loc[k, "model_low"], before.loc[k, "model_high"]), rel=1e-9)
        other = next(j for j in xs if j != k)  # a refit that used the moved number does change
        assert after.loc[other, "model_high"] != pytest.approx(before.loc[other, "model_high"], rel=1e-6)
    assert before["model_low"].notna().all() and (before["model_low"] < before["model_high"]).all()


def test_misfit_prior_never_reads_the_study_itself(monkeypatch):
    real = misfit._table_misfit
    seen = []

    def spy(module):
        seen.append(module.STUDY)
        return real(module)

    monkeypatch.setattr(protocol.misfit, "_table_misfit", spy)
    tables = protocol.other_study_tables("robo2019")
    assert "robo2019" not in seen and set(seen) == set(STUDIES) - {"robo2019"}
    assert tables and all(n >= protocol.MIN_TABLE_DOF for _, n in tables)


def test_noise_floor_is_read_from_the_vcha_error_margin_statement():
    # Tables 14/15 differences "well within the error margin": the largest is 2.1 %, over sqrt(2).
    assert protocol.noise_floor() == pytest.approx(0.021 / math.sqrt(2), rel=1e-9)


def test_with_interval_agrees_with_the_ledger_band_and_is_vectorised():
    from vcperf import contentlib

    tb = contentlib.testbed()
    kw = dict(network_bps=tb.nic_bandwidth_bps, mgmt_network_bps=tb.nic_bandwidth_bps,
              fc_bandwidth_bps=tb.fc_bandwidth_bps, vcenter_vcpus=tb.vcenter_vcpus)
    r = protocol.with_interval(contentlib.deploy_time_s, "streaming", tb.template_size_bytes, **kw)
    row = next(x for x in contentlib.fidelity_rows() if x.key == "exp4_1g_time" and x.kind == "fitted")
    assert float(r.value) == pytest.approx(row.model_value, rel=1e-9)
    assert (float(r.low), float(r.high)) == pytest.approx((row.model_low, row.model_high), rel=1e-4)
    sizes = np.array([1e9, 1e10, 1e11])
    many = protocol.with_interval(contentlib.deploy_time_s, "streaming", sizes, **kw)
    assert many.value.shape == sizes.shape and np.all(many.low < many.value) and np.all(many.value < many.high)
    assert np.all(np.diff(many.high - many.low) > 0)  # wider for bigger templates
    assert "90%" in str(r)
    again = protocol.with_interval(contentlib.deploy_time_s, "streaming", sizes, **kw)
    assert np.array_equal(again.low, many.low)  # deterministic
    with pytest.raises(ValueError, match="fn must be a model function"):
        protocol.with_interval(np.sqrt, 2.0)
    with pytest.raises(ValueError, match="interval must be in"):
        protocol.with_interval(contentlib.deploy_time_s, "vaai", 1e9, interval=1.5)
    with pytest.raises(ValueError, match="data_table must be one of"):
        protocol.with_interval(contentlib.deploy_time_s, "vaai", 1e9, data_table="vcha2016/table05_throughput", **kw)


def test_with_interval_uses_the_misfit_of_the_named_table():
    """VCHA's throughput table is fitted within ~2 %, its 64-client I/O table within ~15 %: a what-if
    standing for a throughput gets a narrower band than one of no table, which uses the study's pooled
    misfit; the band of a ledger row equals with_interval's for the same run and table."""
    from vcperf import vcha

    unc = protocol.fit_uncertainty(vcha, vcha.calibrate(), protocol.fit_keys(vcha))
    thr, io = "vcha2016/table05_throughput", "vcha2016/table09_io_64clients"
    assert unc.table_sd[thr] < unc.sigma < unc.table_sd[io]
    assert all(sd >= protocol.noise_floor() for sd in unc.table_sd.values())
    row = next(r for r in vcha.fidelity_rows() if r.key == "t05_throughput_64_enabled" and r.kind == "fitted")
    tb = vcha.testbed()  # the 64-client VCHA-enabled run as the calibration evaluates it
    kw = dict(output="throughput_per_s", bandwidth_bps=tb.replication_bandwidth_bps, psc_mode="external",
              **tb.appliance())
    named = protocol.with_interval(vcha.run_vcbench, 64, True, 0.0, 1, data_table=thr, **kw)
    pooled = protocol.with_interval(vcha.run_vcbench, 64, True, 0.0, 1, **kw)
    assert float(named.value) == pytest.approx(row.model_value, rel=1e-6)
    assert (float(named.low), float(named.high)) == pytest.approx((row.model_low, row.model_high), rel=1e-3)
    assert float(named.high - named.low) < float(pooled.high - pooled.low)


def test_width_drivers_shares_add_up_and_name_the_parameters(study):
    d = protocol.width_drivers(study)
    names = protocol.param_names(study.calibrate())
    assert list(d.columns) == ["key", "role", "width_relative", "noise", "model_form", *names]
    if len(d):
        total = d[["noise", "model_form", *names]].sum(axis=1)
        assert np.allclose(total, 1.0, atol=1e-9)
        assert (d["noise"] > 0).all() and (d["width_relative"] > 0).all() and (d["model_form"] >= 0).all()


def test_the_row_space_of_a_jacobian_is_computed_once_and_is_the_svds():
    """Every interval band tests its gradient against the fit Jacobian's row space: one SVD per Jacobian (by
    its bytes), the same basis a fresh SVD gives, read-only so no caller can change the shared one."""
    import importlib

    jacobian = importlib.import_module("vcperf.protocol.jacobian")
    rng = np.random.default_rng(7)
    jac = rng.normal(size=(12, 5)) @ np.diag([1.0, 1.0, 1.0, 1.0, 0.0])  # rank 4: the last column never moves
    jacobian._ROW_SPACES.clear()
    first = jacobian._row_space(jac)
    assert jacobian._row_space(jac.copy()) is first and len(jacobian._ROW_SPACES) == 1
    _, s, vt = np.linalg.svd(jac, full_matrices=False)
    assert first.shape == (5, 4) and np.array_equal(first, vt[:4].T)
    assert not first.flags.writeable
    assert jacobian.estimable(jac, np.eye(5)[0]) and not jacobian.estimable(jac, np.eye(5)[4])
    other = jac[:, [1, 0, 2, 3, 4]]
    assert jacobian._row_space(other) is not first and len(jacobian._ROW_SPACES) == 2
