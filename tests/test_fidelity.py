"""The fidelity table: every study modelled, columns as documented, bounds judged as stated."""

import math

import numpy as np
import pytest

from vcperf import data, fidelity


@pytest.fixture(scope="module")
def table():
    return fidelity.table()


def test_every_study_has_a_model_and_rows(table):
    assert set(fidelity.modelled_studies()) == set(data.STUDIES)
    assert set(table["study"]) == set(data.STUDIES)
    assert list(table.columns) == list(fidelity.COLUMNS)


def test_rows_name_an_existing_source_table_and_are_finite(table):
    known = set(data.table_names())
    for source in table["source"]:
        assert any(source.startswith(name) for name in known), source
    assert np.isfinite(table["paper_value"]).all()
    assert np.isfinite(table["model_value"]).all()
    assert table["fitted"].isin([True, False]).all()


def test_every_study_has_held_out_rows(table):
    held_out = table[~table["fitted"]].groupby("study").size()
    assert set(held_out.index) == set(data.STUDIES)


def _row(paper, model, relation):
    return fidelity.FidelityRow("s", "src", "loc", "q", "", "s", paper, model, False, relation)


def test_statement_error_judges_bounds_and_keeps_equalities():
    assert _row(3.0, 2.4, "<").statement_error == 0.0
    assert _row(3.0, 3.3, "<").statement_error == pytest.approx(0.1)
    assert _row(1.0, 1.5, ">").statement_error == 0.0
    assert _row(1.0, 0.5, ">=").statement_error == pytest.approx(-0.5)
    assert _row(60.0, 56.0, "~").statement_error == pytest.approx(-4 / 60)
    assert math.isnan(_row(0.0, 1.0, "=").rel_error)


def test_summary_counts_fitted_and_held_out(table):
    summ = fidelity.summary(table)
    for _, r in summ.iterrows():
        g = table[table["study"] == r["study"]]
        assert r["n"] == len(g) == r["n_fitted"] + r["n_held_out"]
        assert r["max_abs_rel_error"] == pytest.approx(g["statement_error"].abs().max())
    assert "median |err|" in fidelity.format_summary(summ)


def test_unknown_study_is_rejected():
    with pytest.raises(ValueError, match="study must be one of"):
        fidelity.rows(["nope2099"])
