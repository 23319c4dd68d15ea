"""Model outputs with their predictive intervals: the delta method over the calibration's
covariance plus one measurement's misfit, for what-if readouts and sweeps."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from vcperf import _validate as v
from vcperf import studies
from vcperf.protocol.cache import _calibrated
from vcperf.protocol.jacobian import ESTIMABLE_TOL, _get, _row_space, _steps, param_names, with_values
from vcperf.protocol.misfit import INTERVAL, _bounds, uncertainty
from vcperf.protocol.targets import study_module


@dataclass(frozen=True)
class Interval:
    """A model output with its predictive interval (arrays broadcast like the output)."""

    value: np.ndarray
    low: np.ndarray
    high: np.ndarray
    interval: float

    def __str__(self) -> str:
        v, lo, hi = (float(np.asarray(a).flat[0]) for a in (self.value, self.low, self.high))
        if not (math.isfinite(lo) and math.isfinite(hi)):
            return f"{v:.4g} (no interval: not estimable)"
        return f"{v:.4g} ({lo:.4g}-{hi:.4g}, {self.interval:.0%})"


def study_of(fn) -> str:
    """The study whose model defines ``fn`` (from its module, e.g. ``vcperf.vmotion.memory``)."""
    mod = getattr(fn, "__module__", "") or ""
    try:
        return studies.of_module(mod)
    except ValueError:
        raise ValueError(f"fn must be a model function of one of the study packages; "
                         f"got {getattr(fn, '__qualname__', fn)!r} from {mod!r}") from None


def _check_table(module, data_table) -> None:
    """``data_table`` is None or one of the data tables of the study's targets."""
    if data_table is not None:
        v.choice("data_table", data_table, sorted({t.table for t in module.targets()}))


def with_interval(fn, *args, output: str | None = None, interval: float = INTERVAL, data_table: str | None = None,
                  **kwargs) -> Interval:
    """Evaluate a study's model function with the predictive interval of its calibration.

    The calibrated parameters' covariance (:class:`FitUncertainty` of the default calibration) is
    propagated to the output by the delta method: the output's gradient with respect to each
    parameter comes from two extra vectorised calls per parameter (no loop over input points or
    samples), and one measurement's misfit (model-form error + run-to-run noise, from the fit's own
    residuals: :meth:`FitUncertainty.misfit`) is added; Student-t quantile. Deterministic. Where the
    output depends on a parameter direction the paper's numbers do not determine, or the fit has no
    residual degrees of freedom, ``low`` and ``high`` are NaN.

    Parameters
    ----------
    fn : callable
        A model function of a study that takes ``params=`` (e.g. ``vcperf.contentlib.deploy_time_s``).
    *args, **kwargs
        Its inputs (arrays broadcast as ``fn`` does).
    output : str, optional
        For a function returning a dataclass, the attribute to report (e.g. ``"downtime_s"``).
    interval : float
        Central probability in (0, 1); default 0.9.
    data_table : str, optional
        The ``data/`` table of the measured quantity the output stands for (e.g.
        ``"vcha2016/table05_throughput"``): its own misfit variance is used. Default: the study's
        pooled (prior) misfit, for a quantity of no fitted table.

    Examples
    --------
    >>> from vcperf import contentlib, protocol
    >>> r = protocol.with_interval(contentlib.deploy_time_s, "streaming", 39e9)
    >>> bool(r.low < r.value < r.high)
    True
    """
    v.check_range("interval", interval, 0.0, 1.0, lo_open=True, hi_open=True)
    module = study_module(study_of(fn))
    _check_table(module, data_table)
    params = _calibrated(module)

    def run(p):
        out = fn(*args, params=p, **kwargs)
        if output is not None:
            if not hasattr(out, output):
                raise ValueError(f"output must name an attribute of {type(out).__name__}; got {output!r}")
            out = getattr(out, output)
        return np.asarray(out, dtype=float)

    value = run(params)
    names = param_names(params)
    x = np.array([_get(params, n) for n in names])
    h = _steps(x)
    grads = []
    for i, name in enumerate(names):  # one pair of vectorised calls per parameter
        up = run(with_values(params, {name: x[i] + h[i]}))
        dn = run(with_values(params, {name: x[i] - h[i]}))
        grads.append((up - dn) / (2 * h[i]) * max(abs(x[i]), 1e-12))
    g = np.stack(grads, axis=-1) if grads else np.zeros(value.shape + (0,))
    return interval_from_gradient(module.STUDY, value, g, data_table=data_table, interval=interval)


def interval_from_gradient(study, value, gradient, *, data_table: str | None = None,
                           interval: float = INTERVAL) -> Interval:
    """The predictive interval of a model output from its parameter gradient (the delta method).

    The last step of :func:`with_interval`, public for views that get the gradient more cheaply
    (e.g. one batched solve): ``gradient[..., i]`` is the output's derivative with respect to the
    ``i``-th parameter of :func:`param_names` *times that parameter's value* (a log-parameter
    sensitivity). The variance is ``g C g`` (calibration covariance) plus the model-form misfit of
    ``data_table`` (or of the study), bounds from Student-t quantiles; NaN where the paper's numbers
    do not determine the output's parameter direction.
    """
    v.check_range("interval", interval, 0.0, 1.0, lo_open=True, hi_open=True)
    _check_table(study_module(study), data_table)
    unc = uncertainty(study)
    value = np.asarray(value, dtype=float)
    g = np.asarray(gradient, dtype=float)
    if g.shape[-1:] != (unc.cov.shape[0],):
        raise ValueError(f"gradient must end in an axis of {unc.cov.shape[0]} parameters; got shape {g.shape}")
    sd, dof = unc.misfit(data_table)
    with np.errstate(over="ignore", invalid="ignore"):
        var = np.einsum("...i,ij,...j->...", g, unc.cov, g) + (sd * value) ** 2
    lo_all, hi_all = _bounds(value, np.sqrt(np.maximum(var, 0.0)), interval, dof)
    basis = _row_space(unc.jac)  # one SVD per fit Jacobian, kept by jacobian._row_space
    flat = g.reshape(-1, g.shape[-1])
    flat = flat / np.maximum(np.abs(flat).max(axis=1, initial=0.0), 1e-300)[:, None]  # no overflow in norms
    resid = flat - (flat @ basis) @ basis.T
    ok = (np.linalg.norm(resid, axis=1) <= ESTIMABLE_TOL * np.maximum(np.linalg.norm(flat, axis=1), 1e-300)) | (
        np.linalg.norm(flat, axis=1) == 0.0)
    ok = ok.reshape(value.shape) & np.isfinite(var)
    low = np.where(ok, lo_all, np.nan)
    high = np.where(ok, hi_all, np.nan)
    return Interval(value=value, low=low, high=high, interval=float(interval))
