"""Model outputs with their predictive intervals, by a study's model function: the shortcuts of
:meth:`vcperf.protocol.Calibration.interval` and :meth:`~vcperf.protocol.Calibration.band` for what-if
readouts, sweeps and notebooks."""

from __future__ import annotations

from vcperf import studies
from vcperf.protocol.calibration import Interval, calibration
from vcperf.protocol.misfit import INTERVAL

__all__ = ["Interval", "interval_from_gradient", "study_of", "with_interval"]


def study_of(fn) -> str:
    """The study whose model defines ``fn`` (from its module, e.g. ``vcperf.vmotion.memory``)."""
    mod = getattr(fn, "__module__", "") or ""
    try:
        return studies.of_module(mod)
    except ValueError:
        raise ValueError(f"fn must be a model function of one of the study packages; "
                         f"got {getattr(fn, '__qualname__', fn)!r} from {mod!r}") from None


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
    return calibration(study_of(fn)).interval(lambda p: fn(*args, params=p, **kwargs), output=output,
                                              data_table=data_table, interval=interval)


def interval_from_gradient(study, value, gradient, *, data_table: str | None = None,
                           interval: float = INTERVAL) -> Interval:
    """The predictive interval of a model output from its parameter gradient (the delta method):
    :meth:`vcperf.protocol.Calibration.band` of ``study``'s calibration.

    ``gradient[..., i]`` is the output's derivative with respect to the ``i``-th parameter of
    :func:`param_names` *times that parameter's value* (a log-parameter sensitivity, as
    :func:`vcperf.protocol.value_and_gradient` gives it).
    """
    return calibration(study).band(value, gradient, data_table=data_table, interval=interval)
