"""Leave-one-out: refit without each condition group of fitted numbers and predict it, with the
estimability test and the refit's own interval; the same for a study's extrapolation holdouts."""

from __future__ import annotations

import math

from vcperf.protocol.cache import cached_result, calibrated_module
from vcperf.protocol.jacobian import estimable, jacobian
from vcperf.protocol.misfit import fit_uncertainty, sampling_variances
from vcperf.protocol.targets import fit_keys, predict, study_module, target_map


def _refit_predict(module, held: tuple, group: str) -> list:
    """Refit ``module`` without the fit targets ``held`` and predict them: one record per held key."""
    tmap = target_map(module)
    rest = tuple(k for k in fit_keys(module) if k not in held)
    try:
        params = module.calibrate(fit_on=rest)
        error = ""
    except ValueError as err:  # too few points left to fit: nothing can be predicted
        params, error = None, str(err)
    if params is not None:
        unc = fit_uncertainty(module, params, rest)
        grads, _ = jacobian(module, params, tuple(held))
        # A second probe: the gradient at the full calibration. A parameter the refit cannot
        # determine may sit where the held-out number is locally flat (a start value); the
        # prediction still depends on it, which this gradient reveals.
        probe, _ = jacobian(module, calibrated_module(module), tuple(held))
        preds = predict(module, params, tuple(held))
        svar = sampling_variances(module, params, held)
    recs = []
    for i, k in enumerate(held):
        t = tmap[k]
        paper = t.paper_value()
        ok = params is not None and estimable(unc.jac, grads[i]) and estimable(unc.jac, probe[i])
        model = float(preds[k]) if ok else math.nan
        low, high = unc.band(model, grads[i], abs(paper), table=t.table, difference=t.difference,
                             nonnegative=not t.difference, sampling_var=svar[k]) if ok else (math.nan, math.nan)
        low, high = max(low, t.minimum), min(high, t.maximum)  # inside the quantity's (and model's) domain
        note = "" if ok else (f"not estimable: {error}" if error else
                              "not estimable: the other fit targets do not determine it")
        if ok and unc.dof <= 0:
            note = (f"the refit has no residual degrees of freedom ({len(rest)} points, rank "
                    f"{len(rest) - unc.dof}): its misfit variance is the other studies' prior alone")
        recs.append({"key": k, "group": group, "n_held_out": len(held), "n_fit": len(rest),
                     "paper_value": paper, "model_value": model, "model_low": low, "model_high": high,
                     "rel_error": (model - paper) / abs(paper) if paper != 0 else math.nan,
                     "estimable": ok, "note": note})
    return recs


_COLUMNS = ["key", "group", "n_held_out", "n_fit", "paper_value", "model_value", "model_low", "model_high",
            "rel_error", "estimable", "note"]


def _loo(module):
    import pandas as pd

    tmap = target_map(module)
    groups: dict[str, list[str]] = {}
    for k in fit_keys(module):
        groups.setdefault(tmap[k].condition_group, []).append(k)
    recs = []
    for group, held in groups.items():
        recs.extend(_refit_predict(module, tuple(held), group))
    return pd.DataFrame(recs, columns=_COLUMNS)


def _extrapolation(module):
    import pandas as pd

    tmap = target_map(module)
    recs = []
    for name, groups in getattr(module, "HOLDOUTS", {}).items():
        held = tuple(k for k in fit_keys(module) if tmap[k].condition_group in set(groups))
        if held:
            recs.extend(_refit_predict(module, held, name))
    return pd.DataFrame(recs, columns=_COLUMNS)


def extrapolation(study):
    """Extrapolation: refit without a whole end of the calibrated range and predict it.

    Leave-one-out holds out one run; a study's ``HOLDOUTS`` (name -> condition groups, e.g. every run
    of the largest appliance size and inventory) names the runs that bound a range, so the refit has
    to extrapolate to them. Each holdout is one refit; its rows are scored like loo rows (their own
    refit's 90 % interval). A study without ``HOLDOUTS`` has none.

    Returns
    -------
    pandas.DataFrame
        As :func:`leave_one_out`; ``group`` is the holdout's name.
    """
    module = study_module(study)
    return cached_result(module, "extrapolation", lambda: _extrapolation(module)).copy()


def leave_one_out(study):
    """Leave-one-out of every fitted target of a study (see the module docstring, kind ``loo``).

    Returns
    -------
    pandas.DataFrame
        One row per fit target: key, group, n_held_out (targets dropped with it), n_fit (targets the
        refit used), paper_value, model_value (SI; NaN when not estimable), model_low, model_high (the
        refit's own 90 % predictive interval, :class:`FitUncertainty`), rel_error, estimable, note.
    """
    module = study_module(study)
    return cached_result(module, "loo", lambda: _loo(module)).copy()
