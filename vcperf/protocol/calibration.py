"""A study's calibration as one frozen object: its parameters, their covariance and misfit, the rows
they were fitted from, and :meth:`Calibration.interval`, the one way any model output gets its 90 %
predictive interval (the ledger's rows, the what-if readouts and panels, the site planner).

Like a statsmodels results object, the calibration *is* the model: ``calibration("robo2019")``
(cached) holds what the fit determined and how well, and answers "this output, with its band".
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from vcperf import _validate as v
from vcperf.protocol.cache import MEMORY_CACHE, calibrated_module
from vcperf.protocol.jacobian import param_names, value_and_gradient
from vcperf.protocol.misfit import INTERVAL, FitUncertainty, uncertainty
from vcperf.protocol.targets import fit_keys, study_module


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


@dataclass(frozen=True)
class Calibration:
    """One study's default calibration: what the fit determined and how well.

    Attributes
    ----------
    study : str
        The study's ``data/`` folder (e.g. ``"robo2019"``).
    params : dataclass
        The fitted ``Params`` (SI).
    uncertainty : FitUncertainty
        The fit's Jacobian, the parameters' covariance (relative perturbations) and each data table's
        misfit (:func:`vcperf.protocol.fit_uncertainty`).
    fitted_from : tuple of str
        The target keys the parameters were fitted to (provenance: each names one ``data/`` row).

    Examples
    --------
    >>> from vcperf import protocol, contentlib
    >>> cal = protocol.calibration("contentlib2015")
    >>> cal.params == contentlib.calibrate() and cal.cov.shape == (len(cal.param_names),) * 2
    True
    >>> r = cal.interval(lambda p: contentlib.deploy_time_s("streaming", 39e9, params=p))
    >>> bool(r.low < r.value < r.high)
    True
    """

    study: str
    params: object
    uncertainty: FitUncertainty
    fitted_from: tuple

    @property
    def cov(self) -> np.ndarray:
        """Covariance of the relative parameter perturbations (d parameter / |parameter|), in
        :attr:`param_names` order."""
        return self.uncertainty.cov

    @property
    def param_names(self) -> tuple:
        """The parameters' names (nested ones joined with ``.``)."""
        return tuple(param_names(self.params))

    @functools.cached_property
    def data_tables(self) -> tuple:
        """The data tables of the study's targets (a band may carry the misfit of one of them)."""
        return tuple(sorted({t.table for t in study_module(self.study).targets()}))

    def _check_table(self, data_table) -> None:
        if data_table is not None:
            v.choice("data_table", data_table, self.data_tables)

    def gradient(self, fn, *, params=None, reads=None, many=None) -> tuple[np.ndarray, np.ndarray]:
        """``(fn(params), its log-parameter gradient)`` (:func:`vcperf.protocol.value_and_gradient`).

        Parameters
        ----------
        fn : callable
            ``fn(params) -> array``: the outputs at the study's parameters.
        params : dataclass, optional
            Where to differentiate (default :attr:`params`); a ``Params`` of the study.
        reads : collection of str, optional
            The parameters ``fn`` reads (names of :attr:`param_names`); the others have a derivative of
            exactly 0 and are not evaluated. Default: all.
        many : callable, optional
            ``many(list of params) -> list of outputs``: ``fn`` of the parameters and of every perturbed
            set in one batched call (the same values as ``fn`` one at a time).
        """
        p0 = self.params if params is None else v.instance("params", params, type(self.params))
        if not callable(fn):
            raise ValueError(f"fn must be a callable fn(params) -> array; got {fn!r}")
        if many is not None and not callable(many):
            raise ValueError(f"many must be None or a callable many(list of params) -> list of outputs; got {many!r}")
        if reads is not None:
            names = self.param_names
            ok = isinstance(reads, (list, tuple, set, frozenset)) and all(isinstance(r, str) for r in reads)
            if not ok or not set(reads) <= set(names):
                raise ValueError(f"reads must be None or a collection of parameter names among {list(names)}; "
                                 f"got {reads!r}")
            reads = frozenset(reads)
        return value_and_gradient(fn, p0, reads, many)

    def band(self, value, gradient, *, data_table: str | None = None, interval: float = INTERVAL) -> Interval:
        """The predictive interval of a model output from its log-parameter gradient (the delta method).

        The variance is ``g C g`` (:attr:`cov`) plus one measurement's misfit of ``data_table`` (the
        measured quantity the output stands for; default the study's pooled misfit), bounds from
        Student-t quantiles with the misfit's degrees of freedom (log-normal for a positive value); NaN
        where the paper's numbers do not determine the output's parameter direction (its gradient is not
        in the row space of the fit's Jacobian) or the variance is not finite.
        """
        v.check_range("interval", interval, 0.0, 1.0, lo_open=True, hi_open=True)
        self._check_table(data_table)
        value = np.asarray(value, dtype=float)
        low, high = self.uncertainty.bands(value, gradient, table=data_table, interval=interval)
        return Interval(value=value, low=low, high=high, interval=float(interval))

    def interval(self, fn, *, params=None, output: str | None = None, reads=None, many=None,
                 data_table: str | None = None, interval: float = INTERVAL) -> Interval:
        """``fn(params)`` with its predictive interval: :meth:`gradient`, then :meth:`band`.

        Parameters
        ----------
        fn : callable
            ``fn(params) -> array`` (or a dataclass result, with ``output``).
        params, reads, many
            As :meth:`gradient`.
        output : str, optional
            For a function returning a dataclass, the attribute to report (e.g. ``"downtime_s"``).
        data_table, interval
            As :meth:`band`.

        References
        ----------
        .. [1] D. M. Bates, D. G. Watts, *Nonlinear Regression Analysis and Its Applications*, Wiley 1988
           (the linearised interval).
        """
        v.check_range("interval", interval, 0.0, 1.0, lo_open=True, hi_open=True)
        self._check_table(data_table)
        if output is not None and callable(fn):
            inner = fn

            def fn(p):
                out = inner(p)
                if not hasattr(out, output):
                    raise ValueError(f"output must name an attribute of {type(out).__name__}; got {output!r}")
                return getattr(out, output)

        value, g = self.gradient(fn, params=params, reads=reads, many=many)
        return self.band(value, g, data_table=data_table, interval=interval)


def calibration(study) -> Calibration:
    """The :class:`Calibration` of ``study``'s default fit (cached in process; its parts on disk).

    Examples
    --------
    >>> from vcperf import protocol
    >>> protocol.calibration("ft2016").study
    'ft2016'
    """
    module = study_module(study)
    key = (module.STUDY, "Calibration")
    if key not in MEMORY_CACHE:
        MEMORY_CACHE[key] = Calibration(module.STUDY, calibrated_module(module), uncertainty(module), fit_keys(module))
    return MEMORY_CACHE[key]
