"""The ledger: every row has a kind, every fitted row its loo row, no predicted row is a fitted one
in disguise, and the README's summary is what `vcperf fidelity --summary` prints."""

import itertools
import math
import re
from pathlib import Path

import numpy as np
import pytest

from vcperf import cli, data, fidelity, protocol

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def table():
    return fidelity.table()


def test_every_study_has_rows_with_kinds(table):
    assert list(table.columns) == list(fidelity.COLUMNS)
    assert set(table["study"]) == set(data.STUDIES)
    assert set(table["kind"]) <= set(fidelity.KINDS)
    for study, g in table.groupby("study"):
        assert (g["kind"] == "loo").any(), f"{study}: no leave-one-out rows"


def test_rows_name_an_existing_source_table_and_values_are_finite(table):
    known = set(data.table_names())
    assert set(table["source"]) <= known
    assert np.isfinite(table["paper_value"]).all()
    counted = table[table["kind"] != "loo"]
    assert np.isfinite(counted["model_value"]).all()
    loo = table[table["kind"] == "loo"]
    nan_loo = loo[loo["model_value"].isna()]
    assert nan_loo["note"].str.startswith("not estimable").all(), "a NaN loo row says why"


def test_every_fitted_row_has_exactly_one_loo_row(table):
    for study, g in table.groupby("study"):
        fitted = sorted(g.loc[g["kind"] == "fitted", "key"])
        loo = sorted(g.loc[g["kind"] == "loo", "key"])
        assert fitted == loo, study


def test_no_paper_number_is_counted_twice(table):
    counted = table[table["kind"] != "loo"]
    dup = counted.duplicated(["study", "source", "quantity", "conditions"], keep=False)
    assert not dup.any(), f"rows restated:\n{counted[dup][['study', 'key', 'source', 'quantity', 'conditions']]}"


def test_bounds_are_pass_fail_and_only_bounds(table):
    bounds = table[table["kind"] == "bound"]
    assert bounds["relation"].isin(["<", "<=", ">", ">="]).all()
    assert bounds["passed"].isin([True, False]).all()
    others = table[table["kind"] != "bound"]
    assert others["relation"].isin(["=", "~"]).all()


def _half_ulp_si(printed: str, unit: str) -> float:
    """Half a unit in the last printed digit, in SI: the rounding a printed number carries."""
    m = re.search(r"-?\d[\d,]*(?:\.(\d+))?", printed)
    if m is None:
        return 0.0
    decimals = len(m.group(1) or "")
    return 0.5 * 10.0 ** (-decimals) * data.UNITS[unit][1]


def _same_run(a, b, cols_a, cols_b) -> bool:
    meta = set(data.REQUIRED_COLUMNS) | set(data.OPTIONAL_COLUMNS)
    shared = [c for c in set(cols_a) & set(cols_b) if c not in meta]
    return bool(shared) and all(str(a[c]) == str(b[c]) for c in shared)


def _combos(values):
    """Values computable from one to three paper numbers: copies, sums, differences, ratios."""
    for a in values:
        yield a, "copy"
    for a, b in itertools.permutations(values, 2):
        yield a + b, "sum"
        yield a - b, "difference"
        if b != 0:
            yield a / b, "ratio"
            yield a / b - 1.0, "relative change"
    for a, b, c in itertools.combinations(values, 3):
        yield a + b + c, "sum of three"


#: Predicted rows whose paper value matches a combination of fitted paper values only by a coincidence of
#: the print's rounding, with why the model's value is not computed from them (issue 26: such a row is
#: counted, not hidden as derived). The check below still runs on them: the coincidence must be the named one.
COINCIDENCES = {
    ("vcha2016", "t11_eth1_rx_256_enabled"): (
        "difference", "0.3 MB/s = 10.5 - 10.2 MB/s of two fitted eth0 receive rates within rounding; the model "
                      "computes the Passive's eth1 receive rate from its TCP ACKs and status replies"),
}


def test_no_predicted_row_is_a_function_of_fitted_rows(table):
    """Declared: a predicted target has no depends_on and its data row is not flagged derived.
    Checked: its paper value is not a copy, sum, difference or ratio of fitted paper values of the same
    table (within the rounding of the print), nor a copy of a fitted value of the same run in another table
    (same quantity, every shared condition column equal)."""
    problems = [f"{s}/{k}: named a coincidence but not a predicted row" for s, k in COINCIDENCES
                if protocol.target_map(protocol.study_module(s))[k].role != "predicted"]
    for study in data.STUDIES:
        mod = protocol.study_module(study)
        tmap = protocol.target_map(mod)
        fitted = {k: t for k, t in tmap.items() if t.role == "fit"}
        for k, t in tmap.items():
            if t.role != "predicted":
                continue
            row = t.data_row()
            if t.depends_on or row["flag"] == "derived":
                problems.append(f"{study}/{k}: declared as computed from other numbers")
                continue
            p = t.paper_value()
            tol = _half_ulp_si(row["printed"], row["unit"]) + 1e-9 * abs(p)
            same_table = [f.paper_value() for f in fitted.values()
                          if f.table == t.table and f.data_row()["unit"] == row["unit"]]
            # a copy elsewhere in the study: same quantity, and the same run (every condition column the
            # two rows share agrees, and they share at least one)
            copies = [f.paper_value() for f in fitted.values() if f.quantity == t.quantity
                      and _same_run(f.data_row(), row, data.load(f.table).columns, data.load(t.table).columns)]
            hit = next((how for val, how in _combos(same_table) if abs(val - p) <= tol), None)
            if hit is None and any(abs(c - p) <= 1e-9 * max(abs(p), 1e-300) for c in copies):
                hit = "copy of a fitted value"
            if hit is not None and COINCIDENCES.get((study, k), ("",))[0] != hit:
                problems.append(f"{study}/{k} = {p:g} is a {hit} of fitted numbers of {t.table}")
    assert not problems, "\n".join(problems)


def test_every_predicted_row_equal_to_a_fitted_value_is_marked(table):
    """Issue 26: a predicted row whose model value is a fitted row's (the model claims "no effect") names
    that fitted row in ``restates``, found mechanically; a mark on a row that restates nothing is wrong too."""
    problems = []
    for study in data.STUDIES:
        mod = protocol.study_module(study)
        tmap = protocol.target_map(mod)
        found = protocol.restatements(mod)
        for k, t in tmap.items():
            if k in found and not t.restates:
                problems.append(f"{study}/{k}: equals fitted {found[k] or 'reference run (a zero change)'}, unmarked")
            elif k in found and found[k] and t.restates not in found[k]:
                problems.append(f"{study}/{k}: restates {t.restates!r}, but equals {found[k]}")
            elif t.restates and k not in found:
                problems.append(f"{study}/{k}: marked restating {t.restates!r}, but its value differs")
            elif t.restates and not (tmap[t.restates].role == "fit" or (
                    tmap[t.restates].role == "derived" and tmap[t.restates].depends_on
                    and all(tmap[d].role == "fit" for d in tmap[t.restates].depends_on if d in tmap))):
                problems.append(f"{study}/{k}: restates {t.restates!r}, which is neither fitted nor fit-derived")
    assert not problems, "\n".join(problems)
    # the ledger carries the mark, and the summary scores predicted skill with and without those rows
    marked = table[(table["kind"] == "predicted") & (table["restates"] != "")]
    assert (marked["study"] == "vcha2016").sum() >= 11  # Passive sdf/sdh, Table 12 level 2, Embedded PSC 256
    summ = fidelity.summary(table).set_index("study")
    for study, g in table.groupby("study"):
        tmap = protocol.target_map(protocol.study_module(study))
        lev = g[(g["kind"] == "predicted").to_numpy() & np.array([not tmap[k].difference for k in g["key"]])]
        direction = np.array([tmap[k].direction_only for k in lev["key"]], dtype=bool)
        new = lev[(lev["restates"] == "").to_numpy() & ~direction]
        assert summ.loc[study, "n_predicted"] == len(lev) and summ.loc[study, "n_predicted_new"] == len(new)
        # issue 38: the counts add up (restating and direction-only counted among the predicted levels)
        assert summ.loc[study, "n_restated"] == (lev["restates"] != "").sum()
        assert summ.loc[study, "n_direction_only"] == ((lev["restates"] == "").to_numpy() & direction).sum()
        assert (summ.loc[study, "n_predicted"]
                == summ.loc[study, "n_predicted_new"] + summ.loc[study, "n_restated"]
                + summ.loc[study, "n_direction_only"])
        if len(new):
            assert summ.loc[study, "predicted_new_median"] == pytest.approx(new["rel_error"].abs().median())


def _captured_floats(fn, depth=0):
    """Float constants a model callable carries: default arguments, closure cells, partial arguments."""
    import functools

    if depth > 3 or fn is None:
        return []
    out = []
    if isinstance(fn, functools.partial):
        out += [a for a in (*fn.args, *fn.keywords.values()) if isinstance(a, float)]
        return out + _captured_floats(fn.func, depth + 1)
    out += [a for a in (getattr(fn, "__defaults__", None) or ()) if isinstance(a, float)]
    out += [a for a in (getattr(fn, "__kwdefaults__", None) or {}).values() if isinstance(a, float)]
    for cell in getattr(fn, "__closure__", None) or ():
        try:
            c = cell.cell_contents
        except ValueError:
            continue
        if isinstance(c, float):
            out.append(c)
        elif callable(c):
            out += _captured_floats(c, depth + 1)
    return out


def test_no_predicted_row_takes_a_measured_number_as_input():
    """Issue 26: a predicted target's model never carries a paper number of its study (e.g. the same run's
    measured sdg writes/s fed into the sdg bandwidth): it is computed from the parameters and test-bed facts."""
    problems = []
    for study in data.STUDIES:
        tmap = protocol.target_map(protocol.study_module(study))
        papers = {t.paper_value(): k for k, t in tmap.items()}
        for k, t in tmap.items():
            if t.role == "predicted":
                hits = [papers[x] for x in _captured_floats(t.model) if x in papers and x != 0.0]
                if hits:
                    problems.append(f"{study}/{k} carries the paper value of {hits}")
    assert not problems, "\n".join(problems)


def test_bands_stay_inside_the_models_domain(table):
    """A band never includes a value the model cannot produce (Target.minimum/maximum: a VCHA overhead is
    never a gain), and the paper's headline changes are scored (a band that could not fail scores nothing)."""
    for study, g in table.groupby("study"):
        tmap = protocol.target_map(protocol.study_module(study))
        b = g[g["model_low"].notna()]
        lo = np.array([tmap[k].minimum for k in b["key"]])
        hi = np.array([tmap[k].maximum for k in b["key"]])
        assert (b["model_low"].to_numpy() >= lo).all() and (b["model_high"].to_numpy() <= hi).all(), study
    v = table[table["study"] == "vcha2016"].set_index(["key", "kind"])
    for key in ("t05_change_64", "t12_change_l2", "t12_change_l3", "t12_change_l4", "t14_change_256"):
        row = v.xs(key, level="key").iloc[0]
        assert row["model_high"] <= 0.0 < row["model_high"] - row["model_low"], key
    summ = fidelity.summary(table).set_index("study")
    assert summ.loc["vcha2016", "n_difference"] >= 10


def test_difference_rows_are_scored_on_the_difference():
    row = fidelity.FidelityRow("s", "k", "predicted", "src", "loc", "throughput_change", "", "1", "percent", "=",
                               paper_value=-0.009, model_value=-0.018)
    assert row.rel_error == pytest.approx(-1.0)  # twice the overhead is a 100 % miss, not a 1 % one


def test_bound_rows_judge_the_stated_inequality():
    def bound(paper, model, rel):
        return fidelity.FidelityRow("s", "k", "bound", "src", "loc", "q", "", "s", "s", rel, paper, model)

    assert bound(3.0, 2.4, "<").passed is True
    assert bound(3.0, 3.3, "<").passed is False
    assert bound(1.0, 1.5, ">").passed is True
    assert bound(1.0, 0.5, ">=").passed is False
    with pytest.raises(ValueError, match="inequality"):
        bound(1.0, 1.0, "=")
    with pytest.raises(ValueError, match="kind must be one of"):
        fidelity.FidelityRow("s", "k", "held-out", "src", "loc", "q", "", "s", "s", "=", 1.0, 1.0)
    assert math.isnan(fidelity.FidelityRow("s", "k", "fitted", "src", "loc", "q", "", "s", "s", "=",
                                           0.0, 1.0).rel_error)


def test_summary_reports_loo_and_predicted_first(table):
    summ = fidelity.summary(table)
    text = fidelity.format_summary(summ)
    header = text.splitlines()[0]
    assert header.index("loo") < header.index("predicted") < header.index("fitted")
    for _, r in summ.iterrows():
        g = table[table["study"] == r["study"]]
        assert r["n_loo"] == r["n_fitted"] == (g["kind"] == "fitted").sum()
        assert r["n_params"] >= 1 and r["jacobian_rank"] <= r["n_params"]


def test_every_estimated_row_has_a_sound_interval(table):
    """Fitted and loo rows with a model value all carry a 90 % interval (a refit with no residual degrees
    of freedom still has the other studies' misfit prior), the interval contains the model value and is
    not empty, and the summary's coverage is the share of loo + predicted paper values inside it."""
    has_value = table["model_value"].notna()
    has_band = table["model_low"].notna() & table["model_high"].notna()
    missing = table[has_value & ~has_band & table["kind"].isin(["fitted", "loo"])]
    assert missing.empty, f"rows without an interval: {missing['key'].tolist()}"
    b = table[has_band]
    assert (b["model_low"] <= b["model_value"]).all() and (b["model_value"] <= b["model_high"]).all()
    assert (b["model_high"] > b["model_low"]).all(), "a band of width 0 (e.g. a model value of 0) covers nothing"
    summ = fidelity.summary(table).set_index("study")
    for study, g in b[b["kind"].isin(["loo", "predicted"])].groupby("study"):
        inside = (g["model_low"] <= g["paper_value"]) & (g["paper_value"] <= g["model_high"])
        assert summ.loc[study, "coverage"] == pytest.approx(inside.mean())
        assert summ.loc[study, "n_interval"] == len(g)
        assert 0.0 < summ.loc[study, "median_width"] < 1.0, "a 90 % band wider than the value says nothing"


def test_coverage_with_the_holdouts_pools_the_extrapolation_rows(table):
    """The pooled coverage counts the loo/predicted rows and the holdouts' rows, each scored by its own
    refit's interval and each paper number once (issue 38: a holdout replaces its own loo row; the X-Large
    refits were counted twice); VCHA's goal (issue 26): 75-95 % with its held-out largest size."""
    summ = fidelity.summary(table).set_index("study")
    band = table["model_low"].notna() & table["model_high"].notna()
    for study, r in summ.iterrows():
        ext = protocol.extrapolation(study)
        ext = ext[ext["model_low"].notna() & ext["model_high"].notna()]
        scored = table[(table["study"] == study) & table["kind"].isin(["loo", "predicted"]) & band]
        once = scored[~scored["key"].isin(set(ext["key"]))]
        pooled = __import__("pandas").concat([once, ext])
        inside = (pooled["model_low"] <= pooled["paper_value"]) & (pooled["paper_value"] <= pooled["model_high"])
        assert r["n_interval_all"] == len(once) + len(ext)
        assert len(pooled) == pooled["key"].nunique()  # each paper number once
        assert r["coverage_all"] == pytest.approx(inside.mean())
    assert len(protocol.extrapolation("vcha2016")) > 0
    assert 0.75 <= summ.loc["vcha2016", "coverage_all"] <= 0.95


def test_readme_summary_is_what_the_cli_prints(table, capsys):
    assert cli.main(["fidelity", "--summary"]) == 0
    printed = capsys.readouterr().out.strip()
    readme = (ROOT / "README.md").read_text()
    m = re.search(r"<!-- ledger-summary:start -->\n(.*?)\n<!-- ledger-summary:end -->", readme, re.S)
    assert m, "README.md lacks the ledger-summary block"
    assert m.group(1).strip() == printed, "README's summary is stale: run `make readme`"


def test_unknown_study_is_rejected():
    with pytest.raises(ValueError, match="study must be one of"):
        fidelity.rows(["nope2099"])
