"""The ledger: every paper number a model speaks to, beside the model's value, with its kind.

Rows are computed by calling the models through the study protocol (:mod:`vcperf.protocol`), never
copied. Each row has a ``kind`` (``fitted``, ``loo``, ``predicted``, ``derived``, ``bound``; see
:mod:`vcperf.protocol`), and the summary reports leave-one-out and predicted skill first.

A difference the paper states ("VCHA costs 0.9 %") is a row whose paper value *is* the difference
(-0.009), so its error is relative to the difference, not to the ratio it was taken from.

Examples
--------
>>> from vcperf import fidelity
>>> fidelity.KINDS
('fitted', 'loo', 'predicted', 'derived', 'bound')
"""

from __future__ import annotations

import math
from dataclasses import asdict

from vcperf import data, protocol
from vcperf import studies as registry
from vcperf.protocol import KINDS, FidelityRow, study_module

__all__ = ["KINDS", "COLUMNS", "GLOSSARY", "FidelityRow", "rows", "table", "summary", "format_summary",
           "format_summary_text", "format_glossary", "paper_vs_model", "modelled_studies"]

#: The ledger's words, one plain sentence each (term -> meaning), in reading order: the report's glossary page,
#: the landing notebook's last section and README's "Fidelity" section say the same.
GLOSSARY = {
    "paper value": "a number the paper prints (a time, a throughput, a size), kept in data/ with where it is printed.",
    "model value": "what the model computes for the same conditions, in the paper's unit.",
    "error": "how far the model is from the paper, relative to the paper value: |model − paper| / |paper|.",
    "miss": "a held-out number the model misses by more than 25 %; the report highlights it and the study's "
            "notebook explains it.",
    "calibration": "choosing the model's few free parameters (a CPU cost per operation, bytes per change) so that "
                   "the model matches some of the paper's numbers.",
    "fitted": "a paper number the calibration used. Matching it shows little: it is shown, never counted as skill.",
    "loo (leave-one-out)": "a fitted number predicted again by a calibration done without it, and without every "
                           "number measured in the same run: the model's skill on a number it did not see.",
    "not estimable": "a loo number the remaining numbers cannot pin down (no combination of them determines it); "
                     "left blank rather than guessed.",
    "predicted": "a paper number no calibration ever used and that is not a function of fitted numbers: with loo, "
                 "the evidence of skill.",
    "derived": "a paper number computed from other paper numbers (a printed total, a difference of two runs): "
               "shown, not counted.",
    "bound": "an inequality the paper states (\"under 3 Gbps\"), which the model passes or fails.",
    "90 % interval": "the range the model's value falls in with 90 % confidence: calibration uncertainty plus how "
                     "far the model misses that data table, never narrower than the papers' run-to-run noise.",
    "coverage": "the share of loo and predicted paper values that fall inside their 90 % interval (about 90 % "
                "when the intervals are honest).",
    "extrapolation (holdout)": "a whole set of runs (the largest vCenter size, one vMotion run) left out of the "
                               "calibration and predicted: how the model does beyond what it was fitted on.",
    "parameters / fit points": "how many free parameters were calibrated on how many paper numbers; fewer "
                               "parameters than points leaves room to be wrong, which is what makes a match count.",
    "Jacobian rank": "how many independent directions the fitted numbers move in when the parameters move; equal "
                     "to the number of parameters, every parameter is pinned down by the data.",
}

COLUMNS = (
    "study", "key", "kind", "source", "locator", "quantity", "conditions", "unit", "display_unit", "relation",
    "paper_value", "model_value", "model_low", "model_high", "rel_error", "passed", "note", "restates",
)


def modelled_studies() -> list[str]:
    """Studies that implement the protocol: every study of the registry :mod:`vcperf.studies`."""
    return list(registry.names())


def rows(studies=None) -> list[FidelityRow]:
    """Compute the ledger rows of the given studies (default: all five)."""
    out = []
    for study in studies or modelled_studies():
        out.extend(study_module(study).fidelity_rows())
    return out


def table(studies=None):
    """The ledger as a pandas DataFrame with :data:`COLUMNS`."""
    import pandas as pd

    records = [{**asdict(r), "rel_error": r.rel_error, "passed": r.passed} for r in rows(studies)]
    return pd.DataFrame(records, columns=list(COLUMNS))


def summary(df):
    """Per study: loo, predicted, bounds, fitted and derived counts and errors, plus identifiability.

    Errors are |rel_error|. ``loo_not_estimable`` counts loo rows the refit could not determine
    (NaN); their medians are over the estimable ones. ``coverage`` is the share of loo and predicted
    rows whose paper value lies in the model's 90 % interval (``n_interval`` rows have one), and
    ``median_width`` the median interval width relative to the paper value (for a difference, a change
    between two runs, relative to its operand level: the width in units of the reference run). The interval
    (:class:`vcperf.protocol.FitUncertainty`) adds the calibration's parameter uncertainty to the
    model-form misfit of the row's data table, both estimated from that calibration's own fitted
    residuals (a loo row's from its refit: never from the number being scored), Student-t quantile.

    ``predicted`` counts predicted levels (not changes); ``predicted_new`` the same without the rows
    that restate a fitted number (``restates``; ``n_restated`` of the predicted levels do) and without
    the direction checks read from prose (``Target.direction_only``; ``n_direction_only``): the
    model's "no effect" is no evidence of skill, nor is closeness to "about 1";
    ``n_predicted = n_predicted_new + n_restated + n_direction_only``. ``difference`` scores the changes
    between two runs (the paper's headline overheads; predicted, or derived from two runs, not copies
    of another change) by ``|model - paper|`` in units of the reference run, with their interval
    coverage; the predicted ones count in ``coverage`` too. ``extrapolation``
    scores the study's holdouts (:func:`vcperf.protocol.extrapolation`: e.g. every run of the
    largest appliance size and inventory refitted without) with their own coverage;
    ``coverage_all`` (``n_interval_all`` rows) pools them with the loo and predicted rows, each paper
    number once (a holdout replaces its own loo row). Bounds are
    pass/fail, never in skill.
    """
    import pandas as pd

    out = []
    for study, g in df.groupby("study", sort=False):
        rec = {"study": study}
        tmap = protocol.target_map(study_module(study))
        is_diff = pd.Series([tmap[k].difference for k in g["key"]], index=g.index, dtype=bool)
        restated = (g["restates"].fillna("").astype(str) != "") if "restates" in g else is_diff & False
        direction = pd.Series([tmap[k].direction_only for k in g["key"]], index=g.index, dtype=bool)
        for kind in ("loo", "predicted", "fitted"):
            sel = g["kind"] == kind
            if kind == "predicted":
                sel = sel & ~is_diff  # a predicted change between two runs is scored apart (below)
            _errors(rec, kind, g.loc[sel, "rel_error"].abs())
        # predicted skill without the rows that restate a fitted number (the model claims "no effect")
        # and without the direction checks read from prose ("nearly as much": about 1)
        new = (g["kind"] == "predicted") & ~is_diff & ~restated & ~direction
        _errors(rec, "predicted_new", g.loc[new, "rel_error"].abs())
        # counted among the predicted levels they leave out, so the counts add up
        rec["n_restated"] = int(((g["kind"] == "predicted") & ~is_diff & restated).sum())
        rec["n_direction_only"] = int(((g["kind"] == "predicted") & ~is_diff & ~restated & direction).sum())
        # a change between two runs (the paper's headline overheads), predicted or derived from two runs
        # (not a copy of another change): |model - paper| in units of its reference run (relative to a
        # change near 0 any error would look huge), and its coverage
        of_runs = pd.Series([not any(tmap[k].difference for k in tmap[key].depends_on if k in tmap)
                             for key in g["key"]], index=g.index, dtype=bool)
        d = g[is_diff & ((g["kind"] == "predicted") | ((g["kind"] == "derived") & of_runs))]
        _errors(rec, "difference", (d["model_value"] - d["paper_value"]).abs())
        rec["difference_coverage"] = _coverage(d)[0]
        rec["loo_not_estimable"] = int(((g["kind"] == "loo") & g["model_value"].isna()).sum())
        bounds = g[g["kind"] == "bound"]
        rec["n_bound"] = len(bounds)
        rec["bounds_passed"] = int(bounds["passed"].astype(bool).sum())
        rec["n_derived"] = int((g["kind"] == "derived").sum())
        # Interval skill: of the loo and predicted rows that have an interval, the share whose paper
        # value falls inside it (a calibrated 90 % interval covers about 90 %), and the median width.
        scored = g[g["kind"].isin(["loo", "predicted"]) & g["model_low"].notna() & g["model_high"].notna()]
        rec["coverage"], rec["n_interval"] = _coverage(scored)
        # a difference (a change between two runs, as a fraction of the reference run) is measured
        # relative to its operand level, 1: relative to a change near 0 any width would look huge
        level = [1.0 if tmap[k].difference else abs(p) for k, p in zip(scored["key"], scored["paper_value"],
                                                                         strict=True)]
        width = (scored["model_high"] - scored["model_low"]) / pd.Series(level, index=scored.index, dtype=float)
        rec["median_width"] = float(width.median()) if len(scored) else math.nan
        # extrapolation: the study's holdouts (e.g. the largest size and inventory) refitted without
        ext = protocol.extrapolation(study_module(study))
        _errors(rec, "extrapolation", ext["rel_error"].abs())
        rec["extrapolation_coverage"] = _coverage(ext)[0]
        # the interval's coverage over every scored row, the holdouts' included: the pool a user's own
        # question falls in, whether inside the calibrated range or beyond its largest size
        # each paper number once: a holdout's refit replaces the same row's loo (the X-Large refits were
        # counted twice)
        # (where the holdout's refit gives no band, not estimable, the row's own loo band stays)
        ext_b = ext[ext["model_low"].notna() & ext["model_high"].notna()]
        once = scored[~scored["key"].isin(set(ext_b["key"]))]
        both = pd.concat([once[["paper_value", "model_low", "model_high"]],
                          ext_b[["paper_value", "model_low", "model_high"]]], ignore_index=True)
        rec["coverage_all"], rec["n_interval_all"] = _coverage(both)
        ident = protocol.identifiability(study_module(study))
        rec.update({k: ident[k] for k in ("n_params", "n_fit_points", "n_fit_groups", "jacobian_rank")})
        out.append(rec)
    return pd.DataFrame(out)


def _errors(rec: dict, name: str, err) -> None:
    """``n_<name>``, ``<name>_median``, ``<name>_max`` of absolute errors ``err`` (medians over finite ones)."""
    rec[f"n_{name}"] = len(err)
    rec[f"{name}_median"] = float(err.median()) if err.notna().any() else math.nan
    rec[f"{name}_max"] = float(err.max()) if err.notna().any() else math.nan


def _coverage(rows) -> tuple:
    """(share of rows with an interval whose paper value lies inside it, how many have one)."""
    rows = rows[rows["model_low"].notna() & rows["model_high"].notna()]
    inside = (rows["model_low"] <= rows["paper_value"]) & (rows["paper_value"] <= rows["model_high"])
    return (float(inside.mean()) if len(rows) else math.nan), len(rows)


def _with_holdouts(r) -> str:
    """"; with the holdouts C (n)": the coverage pooled with the extrapolation rows, if there are any."""
    if not r["n_extrapolation"]:  # no holdouts (a holdout replaces its own loo row: the counts can match)
        return ""
    return f"; with the holdouts {_pct(r['coverage_all'])} ({r['n_interval_all']})"


def _pct(x: float) -> str:
    return "—" if not math.isfinite(x) else f"{100 * x:.1f} %"


def format_summary(summ) -> str:
    """The summary as a Markdown table (what ``vcperf fidelity --summary`` prints and README shows): per study, the
    errors on numbers the model did not see first (leave-one-out, predicted), then how often the 90 % interval holds
    the paper's value, the stated bounds, the fitted errors and how many parameters were fitted to how many numbers
    (the words: :data:`GLOSSARY`; every other count: :func:`format_summary_text`)."""
    head = ("| study | error on numbers left out of the fit (loo): median, max (n) "
            "| error on numbers no fit used (predicted): median, max (n) | paper values inside the 90 % interval "
            "| stated bounds that hold | error on fitted numbers: median (n) "
            "| parameters / fit points, Jacobian rank |")
    lines = [head, "|---|---|---|---|---|---|---|"]

    def errors(median, largest, n, extra=""):
        return f"{_pct(median)}, {_pct(largest)} ({n}{extra})" if n else "none"

    for _, r in summ.iterrows():
        ne = f", {r['loo_not_estimable']} not estimable" if r["loo_not_estimable"] else ""
        lines.append(
            f"| {r['study']} "
            f"| {errors(r['loo_median'], r['loo_max'], r['n_loo'], ne)} "
            f"| {errors(r['predicted_median'], r['predicted_max'], r['n_predicted'])} "
            f"| {_pct(r['coverage'])} of {r['n_interval']}{_with_holdouts(r)} "
            f"| {r['bounds_passed']} of {r['n_bound']} "
            f"| {_pct(r['fitted_median'])} ({r['n_fitted']}) "
            f"| {r['n_params']} / {r['n_fit_points']}, rank {r['jacobian_rank']} |"
        )
    return "\n".join(lines)


def format_glossary(level: int = 2) -> str:
    """:data:`GLOSSARY` as Markdown: a heading of ``level`` and one bullet per word.

    Examples
    --------
    >>> print(format_glossary().splitlines()[0])
    ## The ledger's words
    """
    if not isinstance(level, int) or isinstance(level, bool) or not 1 <= level <= 6:
        raise ValueError(f"level must be an integer in [1, 6]; got {level!r}")
    return "\n".join([f"{'#' * level} The ledger's words", ""]
                     + [f"- **{term}**: {meaning}" for term, meaning in GLOSSARY.items()])


def format_summary_text(summ) -> str:
    """The summary as plain lines that fit 100 columns (four per study), for a terminal or a pipe."""
    lines = []
    for _, r in summ.iterrows():
        ne = f", {r['loo_not_estimable']} not estimable" if r["loo_not_estimable"] else ""
        lines.append(f"{r['study']}: loo {_pct(r['loo_median'])} median, {_pct(r['loo_max'])} max ({r['n_loo']}{ne})")
        lines.append(f"    predicted {_pct(r['predicted_median'])}, {_pct(r['predicted_max'])} ({r['n_predicted']}); "
                     f"without {r['n_restated']} restating a fit and {r['n_direction_only']} direction-only "
                     f"{_pct(r['predicted_new_median'])}, "
                     f"{_pct(r['predicted_new_max'])} ({r['n_predicted_new']})")
        lines.append(f"    changes {_pct(r['difference_median'])}, {_pct(r['difference_max'])} pts "
                     f"({r['n_difference']}, cov. {_pct(r['difference_coverage'])}); extrapolation "
                     f"{_pct(r['extrapolation_median'])}, {_pct(r['extrapolation_max'])} "
                     f"({r['n_extrapolation']}, cov. {_pct(r['extrapolation_coverage'])})")
        lines.append(f"    90 % interval covers {_pct(r['coverage'])} of {r['n_interval']}{_with_holdouts(r)}; bounds "
                     f"{r['bounds_passed']}/{r['n_bound']}; fitted {_pct(r['fitted_median'])} median "
                     f"({r['n_fitted']}); {r['n_params']} params / {r['n_fit_points']} points")
    return "\n".join(lines)


def paper_vs_model(study: str, source: str | None = None, kinds=None):
    """A study's ledger rows in the paper's own units, for notebooks and the report.

    Parameters
    ----------
    study : str
        A study name, e.g. ``"vcha2016"``.
    source : str, optional
        Keep rows whose data table name starts with this (``"vcha2016/table05"``) or whose locator
        does (``"Table 5"``).
    kinds : iterable of str, optional
        Keep these kinds (default: all but ``loo``, which :func:`vcperf.protocol.leave_one_out` shows).

    Returns
    -------
    pandas.DataFrame
        locator, quantity, conditions, kind, paper, model, unit (the printed unit), error (percent),
        passed, note.
    """
    import pandas as pd

    kinds = set(kinds) if kinds is not None else set(KINDS) - {"loo"}
    recs = []
    for r in study_module(study).fidelity_rows():
        if r.kind not in kinds:
            continue
        if source is not None and not (r.source.startswith(source) or r.locator.startswith(source)):
            continue
        factor = data.UNITS[r.display_unit][1]
        recs.append({"locator": r.locator, "quantity": r.quantity, "conditions": r.conditions, "kind": r.kind,
                     "paper": r.paper_value / factor, "model": r.model_value / factor, "unit": r.display_unit,
                     "error_percent": 100 * r.rel_error, "passed": r.passed, "note": r.note})
    return pd.DataFrame(recs, columns=["locator", "quantity", "conditions", "kind", "paper", "model", "unit",
                                       "error_percent", "passed", "note"])
