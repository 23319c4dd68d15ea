"""Leave-one-out: refit without each condition group of fitted numbers and predict it, with the
estimability test and the refit's own interval."""

from __future__ import annotations

import math

from vcperf.protocol.cache import _cached, _calibrated
from vcperf.protocol.jacobian import estimable, jacobian
from vcperf.protocol.misfit import fit_uncertainty, sampling_variances
from vcperf.protocol.targets import fit_keys, predict, study_module, target_map


def _loo(module):
    import pandas as pd

    tmap = target_map(module)
    fitted = fit_keys(module)
    groups: dict[str, list[str]] = {}
    for k in fitted:
        groups.setdefault(tmap[k].condition_group, []).append(k)
    recs = []
    for group, held in groups.items():
        rest = tuple(k for k in fitted if k not in held)
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
            probe, _ = jacobian(module, _calibrated(module), tuple(held))
            preds = predict(module, params, tuple(held))
            svar = sampling_variances(module, params, held)
        for i, k in enumerate(held):
            paper = tmap[k].paper_value()
            ok = params is not None and estimable(unc.jac, grads[i]) and estimable(unc.jac, probe[i])
            model = float(preds[k]) if ok else math.nan
            low, high = unc.band(model, grads[i], abs(paper), table=tmap[k].table, difference=tmap[k].difference,
                                 nonnegative=not tmap[k].difference, sampling_var=svar[k]) if ok else (math.nan,
                                                                                                        math.nan)
            high = min(high, tmap[k].maximum)
            note = "" if ok else (f"not estimable: {error}" if error else
                                  "not estimable: the other fit targets do not determine it")
            if ok and unc.dof <= 0:
                note = (f"the refit has no residual degrees of freedom ({len(rest)} points, rank "
                        f"{len(rest) - unc.dof}): its misfit variance is the other studies' prior alone")
            recs.append({"key": k, "group": group, "n_held_out": len(held), "n_fit": len(rest),
                         "paper_value": paper, "model_value": model, "model_low": low, "model_high": high,
                         "rel_error": (model - paper) / abs(paper) if paper != 0 else math.nan,
                         "estimable": ok, "note": note})
    return pd.DataFrame(recs, columns=["key", "group", "n_held_out", "n_fit", "paper_value", "model_value",
                                       "model_low", "model_high", "rel_error", "estimable", "note"])


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
    return _cached(module, "loo", lambda: _loo(module)).copy()
