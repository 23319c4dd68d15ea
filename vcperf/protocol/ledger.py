"""Ledger rows: every target of a study under its calibration with its 90 % interval and kind,
its leave-one-out rows, identifiability, what drives each interval's width, and the parameter table;
:class:`StudyFunctions`, these for one study (what its ``validation`` module exposes)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from vcperf import data
from vcperf.protocol.cache import cached_result, calibrated_module
from vcperf.protocol.calibration import calibration
from vcperf.protocol.jacobian import estimable, jacobian, nested_value, param_names, rank
from vcperf.protocol.loo import leave_one_out
from vcperf.protocol.misfit import INTERVAL, interval_bounds, noise_floor, sampling_variances
from vcperf.protocol.targets import KIND_OF_ROLE, KINDS, fit_keys, predict, study_module, target_map


@dataclass(frozen=True)
class FidelityRow:
    """One paper number and the model's value of it (both in ``unit``, SI).

    ``display_unit`` is the unit the paper prints it in (the data table's ``unit``), used by
    :func:`paper_vs_model`.
    """

    study: str
    key: str
    kind: str
    source: str  # data table name, e.g. "robo2019/figure06_stats_data_size"
    locator: str  # table/figure/section of the seed
    quantity: str
    conditions: str
    unit: str
    display_unit: str
    relation: str  # how the paper states it: "=", "~" (about), "<", "<=", ">", ">="
    paper_value: float
    model_value: float
    note: str = ""
    model_low: float = math.nan  # 90 % predictive interval: parameters + table misfit (protocol.FitUncertainty.band)
    model_high: float = math.nan
    restates: str = ""  # a predicted row whose model value is this fitted key's (Target.restates)
    whole_interval: bool = False  # a bound passes only if model_low and model_high satisfy it too

    @property
    def covered(self) -> bool | None:
        """Whether the paper value lies in [model_low, model_high]; None when there is no interval."""
        if not (math.isfinite(self.model_low) and math.isfinite(self.model_high)):
            return None
        return bool(self.model_low <= self.paper_value <= self.model_high)

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}; got {self.kind!r}")
        if self.kind == "bound" and self.relation not in ("<", "<=", ">", ">="):
            raise ValueError(f"a bound row needs an inequality relation; got {self.relation!r} ({self.key})")

    @property
    def rel_error(self) -> float:
        """(model - paper) / |paper|; NaN when the paper value is 0 or the model value is NaN."""
        if self.paper_value == 0 or not math.isfinite(self.model_value):
            return math.nan
        return (self.model_value - self.paper_value) / abs(self.paper_value)

    @property
    def passed(self) -> bool | None:
        """For a ``bound`` row, whether the model satisfies the stated inequality; else None."""
        if self.kind != "bound":
            return None
        p = self.paper_value
        ends = (self.model_low, self.model_high) if self.whole_interval and math.isfinite(self.model_low) \
            and math.isfinite(self.model_high) else ()
        return all({"<": m < p, "<=": m <= p, ">": m > p, ">=": m >= p}[self.relation]
                   for m in (self.model_value, *ends))


def fidelity_rows(study) -> list:
    """The ledger rows of a study: every target under the default calibration, plus its loo rows."""
    module = study_module(study)
    return list(cached_result(module, "rows", lambda: _fidelity_rows(module)))


def _fidelity_rows(module) -> list:
    tmap = target_map(module)
    cal = calibration(module)  # the parameters and their uncertainty: the study's Calibration
    params, unc = cal.params, cal.uncertainty
    model = predict(module, params, tuple(tmap))
    grads = cached_result(module, "gradients", lambda: jacobian(module, params, tuple(tmap))[0])
    loo = leave_one_out(module).set_index("key")
    svar = sampling_variances(module, params, tuple(tmap))
    rows = []
    for i, (k, t) in enumerate(tmap.items()):
        r = t.data_row()
        si_unit = data.UNITS[r["unit"]][0]
        base = dict(study=module.STUDY, key=k, source=t.table, locator=r["locator"] or _locator(t.table),
                    quantity=t.quantity, conditions=t.conditions_text, unit=si_unit, display_unit=r["unit"],
                    relation=r["relation"] or "=", paper_value=t.paper_value())
        low, high = unc.band(float(model[k]), grads[i], abs(base["paper_value"]), table=t.table,
                             difference=t.difference, nonnegative=not t.difference, sampling_var=svar[k])
        low, high = max(low, t.minimum), min(high, t.maximum)  # inside the quantity's (and model's) domain
        rows.append(FidelityRow(**base, model_value=float(model[k]), model_low=low, model_high=high,
                                kind=KIND_OF_ROLE[t.role], note=t.note, restates=t.restates,
                                whole_interval=t.whole_interval_bound))
        if t.role == "fit":
            lr = loo.loc[k]
            refit = f"refit without group '{lr['group']}' ({lr['n_held_out']} held out, {lr['n_fit']} fitted)"
            note = lr["note"] if lr["note"].startswith("not estimable") else "; ".join(
                x for x in (refit, lr["note"]) if x)
            rows.append(FidelityRow(**base, model_value=float(lr["model_value"]), model_low=float(lr["model_low"]),
                                    model_high=float(lr["model_high"]), kind="loo", note=note))
    return rows


def restatements(study, params=None, rtol: float = 1e-9) -> dict:
    """Predicted targets whose model value equals a fitted target's value: the model claims "no effect".

    A ``predicted`` row whose value is that of a ``fit`` row or of a ``derived`` row computed from fit
    rows alone (a Difference of two fitted runs), within ``rtol``, or a predicted change
    between two runs that is 0 (within ``rtol`` of its reference run), says nothing the fit did not: it must carry
    :attr:`Target.restates`. Found mechanically, so a new coincidence cannot go unmarked.

    Parameters
    ----------
    study : str or module
        A study name or its subpackage.
    params : dataclass, optional
        The study's ``Params`` (default: its default calibration).
    rtol : float
        Relative tolerance of "equal".

    Returns
    -------
    dict
        predicted key -> tuple of the fit (or fit-derived) keys with the same model value (empty for a zero
        difference).
    """
    module = study_module(study)
    tmap = target_map(module)
    params = calibrated_module(module) if params is None else params
    values = predict(module, params, tuple(tmap))
    fits = {k for k, t in tmap.items() if t.role == "fit"}
    # what the fit states: the fitted numbers, and the changes/ratios computed from fitted numbers alone
    fitted = {k: values[k] for k, t in tmap.items() if k in fits or (
        t.role == "derived" and t.depends_on and set(t.depends_on) <= fits)}
    out = {}
    for k, t in tmap.items():
        if t.role != "predicted":
            continue
        m = values[k]
        same = tuple(f for f, y in fitted.items() if math.isclose(m, y, rel_tol=rtol, abs_tol=0.0))
        if same or (t.difference and abs(m) <= rtol):
            out[k] = same
    return out


def _locator(table: str) -> str:
    return data.load(table).attrs["provenance"]["locator"]


def _identifiability(module) -> dict:
    params = calibrated_module(module)
    keys = fit_keys(module)
    jac, names = jacobian(module, params, keys)
    groups = {target_map(module)[k].condition_group for k in keys}
    per_param = {n: estimable(jac, np.eye(len(names))[i]) for i, n in enumerate(names)}
    moved_by = {n: tuple(k for j, k in enumerate(keys) if abs(jac[j, i]) > 1e-9) for i, n in enumerate(names)}
    return {"n_params": len(names), "n_fit_points": len(keys), "n_fit_groups": len(groups),
            "jacobian_rank": rank(jac), "identifiable": per_param, "fitted_from": moved_by}


def identifiability(study) -> dict:
    """Parameters vs fit points, Jacobian rank and which parameters the fit determines.

    Returns a dict: n_params, n_fit_points, n_fit_groups (independent runs), jacobian_rank,
    identifiable (name -> bool), fitted_from (name -> keys of fit targets that move it).
    """
    module = study_module(study)
    return dict(cached_result(module, "identifiability", lambda: _identifiability(module)))


def width_drivers(study):
    """What makes each ledger interval wide: the share of its variance from each parameter and from
    one measurement's noise.

    For a target with gradient ``g`` (relative parameter perturbations) the parameter variance is
    ``g C g``; parameter ``j`` contributes ``g_j (C g)_j`` (shares add up to the parameter part and
    can be negative where parameters are correlated), one measurement's run-to-run noise
    ``(noise_floor x model)^2`` and the model-form error of its table (the rest of the table's misfit
    variance, :func:`structural_variances`). Rows: the study's targets with an interval; columns:
    ``key``, ``role``, ``width_relative`` (90 % width / |model|; for a difference, the width itself:
    relative to its reference run), ``noise``, ``model_form``, then one
    column per parameter, all as shares of the total variance.
    """
    module = study_module(study)
    import pandas as pd

    tmap = target_map(module)
    cal = calibration(module)
    params, unc = cal.params, cal.uncertainty
    grads = cached_result(module, "gradients", lambda: jacobian(module, params, tuple(tmap))[0])
    model = predict(module, params, tuple(tmap))
    svar = sampling_variances(module, params, tuple(tmap))
    names = param_names(params)
    recs = []
    for i, (k, t) in enumerate(tmap.items()):
        m = float(model[k])
        scale = abs(t.paper_value())
        g = grads[i]
        low, high = unc.band(m, g, scale, table=t.table, difference=t.difference, nonnegative=not t.difference,
                             sampling_var=svar[k])
        if not (math.isfinite(low) and math.isfinite(high)) or m == 0:
            continue
        per = g * (unc.cov @ g) * scale**2
        misfit = unc.misfit_variance(m, scale, t.table, t.difference, svar[k])  # as FitUncertainty.band
        # one measurement's run-to-run noise (two for a difference, relative to its reference run), or the
        # experiment's own sampling variance where larger
        noise = min(2.0 * noise_floor() ** 2 if t.difference else
                    max((noise_floor() * (m if m > 0 else scale)) ** 2, svar[k]), misfit)
        total = float(per.sum()) + misfit
        # a difference's width relative to its operand level (the reference run, 1), not to the change
        rec = {"key": k, "role": t.role, "width_relative": (high - low) / (1.0 if t.difference else abs(m)),
               "noise": noise / total,
               "model_form": (misfit - noise) / total}
        rec.update({n: float(per[j]) / total for j, n in enumerate(names)})
        recs.append(rec)
    return pd.DataFrame(recs, columns=["key", "role", "width_relative", "noise", "model_form", *names])


#: How parameter uncertainty is computed (shown in every parameter table).
UNCERTAINTY_METHOD = (
    "Gauss-Newton posterior covariance of the least-squares fit, (J' W J + I / PARAM_PRIOR_SD^2)^-1 on the "
    "directions the fit determines, W = diag(1 / s_i^2), PARAM_PRIOR_SD = 1 (relative); s_i = misfit sd of target "
    "i's data table (model-form error + run-to-run noise) from the fit's own fitted residuals in log space "
    "(a change between two runs: model - paper, relative to its reference run), "
    "degrees-of-freedom corrected (n - rank, shared out by leverage), moderated by empirical Bayes (Smyth 2004: a "
    "maximum-likelihood scaled inverse chi-square prior over this fit's and the other studies' table variances), "
    "never below the run-to-run noise floor (a change between two runs: never below sqrt(2) x that floor, absolute, "
    "normal band); intervals use Student-t quantiles with the misfit's degrees of freedom, never below 0 for a "
    "non-negative quantity; not identifiable -> no interval")


def parameter_table(study):
    """Calibrated parameters of a study: name, value, unit, meaning, identifiable, relative standard
    deviation and 90 % interval (:class:`FitUncertainty`; NaN when not identifiable), fitted_from."""
    module = study_module(study)
    import pandas as pd

    cal = calibration(module)
    params, unc = cal.params, cal.uncertainty
    ident = identifiability(module)
    names = param_names(params)
    recs = []
    for i, name in enumerate(names):
        unit, meaning = module.PARAM_DOCS[name]
        value = nested_value(params, name)
        ok = ident["identifiable"].get(name, False)
        var = float(unc.cov[i, i])
        has = ok and math.isfinite(var)  # a fit with no residual degrees of freedom has no variance either
        sd = math.sqrt(max(var, 0.0)) if has else math.nan
        low, high = (interval_bounds(np.asarray(value), np.asarray(sd * abs(value)), INTERVAL, unc.prior_dof) if has
                     else (math.nan, math.nan))
        recs.append({"name": name, "value": value, "unit": unit, "meaning": meaning, "identifiable": ok,
                     "sd_relative": sd, "low_90": float(low), "high_90": float(high),
                     "fitted_from": ", ".join(ident["fitted_from"].get(name, ())) or "(fixed)"})
    table = pd.DataFrame(recs)
    table.attrs["uncertainty_method"] = UNCERTAINTY_METHOD
    table.attrs["misfit_sd"] = dict(unc.table_sd)  # per data table: model-form error + noise (relative sd)
    table.attrs["structural_sd"] = dict(unc.structural_sd)  # per data table: model-form error alone
    table.attrs["residual_dof"] = unc.dof
    return table


@dataclass(frozen=True)
class StudyFunctions:
    """The shared protocol functions of one study, as methods: a study's ``validation`` module exposes
    them (``predict = FUNCTIONS.predict``), so every study is judged by the same code.

    Examples
    --------
    >>> from vcperf.protocol import StudyFunctions
    >>> fns = StudyFunctions("contentlib2015")
    >>> sorted(fns.predict(fns.calibration().params, ["exp4_1g_time"]))
    ['exp4_1g_time']
    """

    study: str

    def __post_init__(self):
        study_module(self.study)  # a registered study, else ValueError

    def calibration(self):
        """The study's :class:`~vcperf.protocol.Calibration`."""
        return calibration(self.study)

    def predict(self, params, keys=None) -> dict:
        """Model value (SI) of each target key under ``params`` (:func:`vcperf.protocol.predict`).

        Parameters
        ----------
        params : Params
            The study's parameters (``calibrate()``).
        keys : iterable of str, optional
            Target keys (``targets()``); default all.
        """
        return predict(self.study, params, keys)

    def leave_one_out(self):
        """Leave-one-out of every fitted number (:func:`vcperf.protocol.leave_one_out`): a DataFrame."""
        return leave_one_out(self.study)

    def fidelity_rows(self) -> list:
        """The study's ledger rows (:func:`vcperf.protocol.fidelity_rows`)."""
        return fidelity_rows(self.study)

    def parameter_table(self):
        """Calibrated parameters with unit, meaning, 90 % interval and the rows each is fitted from
        (:func:`vcperf.protocol.parameter_table`)."""
        return parameter_table(self.study)
