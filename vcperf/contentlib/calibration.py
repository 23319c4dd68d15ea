"""Calibration of the Content Library deployment model: the least-squares fit of the four rates of
:class:`~vcperf.contentlib.params.Params` to the study's Figure 4 statements
(:mod:`vcperf.contentlib.targets`).

Fitting only: the model is evaluated through :func:`vcperf.protocol.predict` with explicit params.
"""

from __future__ import annotations

import functools
from dataclasses import fields

import numpy as np

from vcperf import protocol
from vcperf.contentlib.params import STUDY, Params
from vcperf.contentlib.targets import TARGET_KEYS, TARGETS

_X0 = Params(1e8, 0.5, 1.0, 1e8)  # starting guess: round orders of magnitude (disk array, NFC, gzip 2:1, one core)
_LO = np.log([1e6, 1e-3, 1e-3, 1e5])
_HI = np.log([1e11, 1.0, 99.0, 1e11])


def _from_x(x) -> Params:
    return Params(*(float(e) for e in np.exp(x)))


@functools.lru_cache(maxsize=32)
def _fit(keys: tuple[str, ...]) -> Params:
    """Least squares of the log residuals on the resolved target ``keys`` (sorted, unique)."""
    from scipy.optimize import least_squares

    by_key = dict(zip(TARGET_KEYS, TARGETS, strict=True))
    # a slowdown s is compared as the ratio 1 + s, so every residual is a log ratio of times
    offset = np.array([1.0 if by_key[k].quantity == "slowdown_vs_exp1" else 0.0 for k in keys])
    paper = np.array([by_key[k].paper_value() for k in keys]) + offset

    def resid(x):
        model = protocol.predict(STUDY, _from_x(x), keys)
        return np.log((np.array([model[k] for k in keys]) + offset) / paper)

    x0 = np.clip(np.log([getattr(_X0, f.name) for f in fields(Params)]), _LO + 1e-9, _HI - 1e-9)
    sol = least_squares(resid, x0, bounds=(_LO, _HI), x_scale=1.0, xtol=1e-12, ftol=1e-12, gtol=1e-12)
    return _from_x(sol.x)


def calibrate(fit_on=None) -> Params:
    """Fit :class:`~vcperf.contentlib.params.Params` to the targets ``fit_on``.

    Least squares on log(model / paper) (for the 20 % slowdown, on log of the ratio 1 + slowdown)
    with :func:`scipy.optimize.least_squares` from a deterministic start within bounds. The default
    calibration is cached in the process and on disk (:func:`vcperf.protocol.cached_calibration`).

    Parameters
    ----------
    fit_on : iterable of str, optional
        Target keys (:func:`vcperf.contentlib.targets`) to fit, at least four distinct ones (one per
        parameter); default: every target with role ``fit`` (the six independent statements).

    Returns
    -------
    Params
        The fitted rates (SI).

    Raises
    ------
    ValueError
        Unknown keys, or fewer distinct keys than parameters.

    Examples
    --------
    >>> from vcperf import contentlib
    >>> p = contentlib.calibrate()
    >>> bool(p.compression_ratio >= 1.0 and 0.0 < p.nfc_efficiency <= 1.0)
    True

    References
    ----------
    .. [1] J. Guan and D. Bergamasco, "How to Efficiently Deploy Virtual Machines from VMware vSphere
       Content Library", VMware VROOM! Blog, July 2015 (Figure 4 and its Observations).
    .. [2] D. M. Bates and D. G. Watts, *Nonlinear Regression Analysis and Its Applications*, Wiley,
       1988 (least squares on the log scale).
    """
    keys = protocol.resolve_fit_on(STUDY, TARGETS, fit_on)
    n = len(fields(Params))
    if len(set(keys)) < n:
        raise ValueError(f"fit_on must name at least {n} distinct targets; got {len(set(keys))}")
    return protocol.cached_calibration(STUDY, fit_on, _fit, keys, Params)
