"""The study protocol: what every study subpackage implements, and the machinery they all share.

A study (``vcperf.vcha``, ``vcperf.robo``, ``vcperf.ft``, ``vcperf.contentlib``, ``vcperf.vmotion``)
is a subpackage whose ``__init__`` exposes

========================  =====================================================================
``STUDY``                 the ``data/`` folder name, e.g. ``"vcha2016"``
``Params``                frozen dataclass of the calibrated parameters (float fields, SI; may
                          nest frozen dataclasses of floats)
``PARAM_DOCS``            parameter name -> ``(unit, meaning)``, one entry per float leaf of
                          ``Params`` (nested names joined with ``.``)
``targets()``             every paper number the model speaks to, as :class:`Target` rows
``calibrate(fit_on=None)``  fit ``Params`` to the ``fit`` targets (or to the keys ``fit_on``)
``predict(params, keys)``   model value (SI) of each target key under ``params`` (:func:`predict`)
``leave_one_out()``       ``protocol.leave_one_out(module)``: a DataFrame, one row per fitted target
``fidelity_rows()``       ``protocol.fidelity_rows(module)``: the study's ledger rows
``parameter_table()``     ``protocol.parameter_table(module)``: name, value, unit, meaning, rows
========================  =====================================================================

The last three are the shared implementations below, so that every study is judged the same way.
Optional: ``sampling_variances(params, keys)``, the variance the experiment's own finite sample gives
a printed number (a count over a few runs), which :func:`sampling_variances` passes to the bands.

Ledger kinds (``FidelityRow.kind``)
-----------------------------------
``fitted``
    a target with role ``fit``, computed with the parameters fitted to it.
``loo``
    the same paper number predicted by a refit *without it and without every fit target of the
    same condition group* (numbers the paper states for the same run: e.g. throughput, latency and
    CPU of one 64-client VCHA run are held out together). When the remaining targets do not
    determine the prediction (its gradient is not in the row space of the refit's Jacobian: the
    classic estimability test of a linearised least-squares model, checked at the refit and at the
    full calibration so that a parameter left at a flat start value is caught), the row says ``not
    estimable`` and carries NaN, rather than an arbitrary number.
``predicted``
    a target never used in any fit, and not a function of fitted numbers, nor computed from a
    measured output of its own run. One whose model value *equals* a fitted number (the model claims
    "no effect") is marked (:attr:`Target.restates`, found mechanically by :func:`restatements`) and
    the summary gives predicted skill with and without such rows. A predicted change between two
    runs (``Target.difference``) is scored apart, in points of its reference run.
``derived``
    a paper number that is a function of other paper numbers (a total, a ratio of two fitted
    values, ...): shown, never counted in skill.
``bound``
    an inequality the paper states ("under 3 Gbps"): pass or fail, reported apart from skill.

Extrapolation (:func:`extrapolation`): a study's ``HOLDOUTS`` name runs at an end of the calibrated
range (the largest appliance size and inventory); each is refitted without and predicted, and the
summary reports its error and interval coverage.

The package is split by concern: :mod:`~vcperf.protocol.targets` (targets and :func:`predict`),
:mod:`~vcperf.protocol.jacobian` (parameter vectors, Jacobian, estimability),
:mod:`~vcperf.protocol.cache` (calibrations cached in process and on disk),
:mod:`~vcperf.protocol.misfit` (misfit, covariance, bands), :mod:`~vcperf.protocol.calibration`
(:class:`Calibration`: a study's fit as one object, and :meth:`Calibration.interval`, the one way a model
output gets its band), :mod:`~vcperf.protocol.intervals` (its shortcuts by model function),
:mod:`~vcperf.protocol.loo` (leave-one-out),
:mod:`~vcperf.protocol.ledger` (ledger rows, identifiability, width drivers, parameter table, and
:class:`StudyFunctions`: the four of them for one study). This ``__init__`` only re-exports.

References
----------
.. [1] G. K. Smyth, "Linear models and empirical Bayes methods for assessing differential expression
   in microarray experiments", Statistical Applications in Genetics and Molecular Biology 3(1), 2004
   (the moderated table variances of :mod:`~vcperf.protocol.misfit`).
.. [2] D. M. Bates and D. G. Watts, *Nonlinear Regression Analysis and Its Applications*, Wiley, 1988
   (linearised covariance, the delta method and leverages of :mod:`~vcperf.protocol.jacobian`).
.. [3] S. R. Searle, *Linear Models*, Wiley, 1971 (estimable functions: a gradient in the row space of
   the design matrix).
"""

from vcperf.protocol.cache import cache_dir, cached_calibration, calibrated, clear_caches, source_digest
from vcperf.protocol.calibration import Calibration, Interval, calibration
from vcperf.protocol.intervals import interval_from_gradient, study_of, with_interval
from vcperf.protocol.jacobian import (
    ESTIMABLE_TOL,
    JACOBIAN_STEP,
    RANK_TOL,
    estimable,
    estimable_rows,
    jacobian,
    param_names,
    param_vector,
    rank,
    value_and_gradient,
    with_values,
)
from vcperf.protocol.ledger import (
    UNCERTAINTY_METHOD,
    FidelityRow,
    StudyFunctions,
    fidelity_rows,
    identifiability,
    parameter_table,
    restatements,
    width_drivers,
)
from vcperf.protocol.loo import extrapolation, leave_one_out
from vcperf.protocol.misfit import (
    INTERVAL,
    MIN_TABLE_DOF,
    PARAM_PRIOR_SD,
    FitUncertainty,
    fit_uncertainty,
    misfit_prior,
    noise_floor,
    other_study_tables,
    sampling_variances,
    scaled_inv_chi2_fit,
    structural_variances,
    uncertainty,
)
from vcperf.protocol.targets import (
    KINDS,
    REQUIRED,
    ROLES,
    STUDY_MODULES,
    Target,
    fit_keys,
    mark_differences,
    paper_value,
    predict,
    resolve_fit_on,
    study_module,
    target_map,
    target_paper_value,
)

__all__ = [
    "ESTIMABLE_TOL", "INTERVAL", "JACOBIAN_STEP", "KINDS", "MIN_TABLE_DOF", "PARAM_PRIOR_SD", "RANK_TOL", "REQUIRED",
    "ROLES", "STUDY_MODULES", "UNCERTAINTY_METHOD", "Calibration", "FidelityRow", "FitUncertainty", "Interval",
    "StudyFunctions", "Target", "cache_dir", "cached_calibration", "calibrated", "calibration", "clear_caches",
    "estimable", "estimable_rows", "extrapolation", "fidelity_rows", "fit_keys", "fit_uncertainty", "identifiability",
    "interval_from_gradient", "jacobian", "leave_one_out", "mark_differences", "misfit_prior", "noise_floor",
    "other_study_tables", "paper_value", "param_names", "param_vector", "parameter_table", "predict", "rank",
    "resolve_fit_on", "restatements", "sampling_variances", "scaled_inv_chi2_fit", "source_digest",
    "structural_variances", "study_module", "study_of", "target_map", "target_paper_value",
    "uncertainty", "value_and_gradient", "width_drivers", "with_interval", "with_values",
]
