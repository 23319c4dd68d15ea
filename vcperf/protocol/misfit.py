"""Calibration uncertainty: each data table's misfit (empirical-Bayes pooled over the studies),
the parameters' posterior covariance, and the predictive band of one model value."""

from __future__ import annotations

import dataclasses
import functools
import math
from dataclasses import dataclass

import numpy as np

from vcperf import data
from vcperf.protocol.cache import cached_result, calibrated_module
from vcperf.protocol.jacobian import estimable_rows, jacobian, rank
from vcperf.protocol.targets import STUDY_MODULES, fit_keys, predict, study_module, target_map

#: Central probability of the intervals the ledger and the what-if readouts report.
INTERVAL = 0.90


@functools.cache
def noise_floor() -> float:
    """Relative run-to-run noise of one measured number (a standard deviation, as a fraction).

    The VCHA study calls the External-vs-Embedded PSC differences of its Tables 14 and 15 (-2.1 %,
    -0.7 %, 1.3 %, 1.3 %) "well within the error margin of the experiment methodology"
    (``000_bf7f1144753162c9.txt``, after Table 15). A difference of two runs has twice the variance
    of one, so one run's noise is at least the largest of them over sqrt(2): about 1.5 %. Read from
    ``data/`` here, never typed.
    """
    diffs = []
    for table, quantity in (("vcha2016/table14_psc_throughput", "throughput_change"),
                            ("vcha2016/table15_psc_latency", "avg_operation_latency_change")):
        df = data.load(table)
        rows = df[df["quantity"] == quantity]
        diffs += [abs(float(data.to_si(v, u))) for v, u in zip(rows["value"], rows["unit"], strict=True)]
    return max(diffs) / math.sqrt(2.0)


#: Prior standard deviation of a parameter's relative perturbation (d parameter / |parameter|): each
#: parameter is a physical quantity whose order of magnitude is known before the fit (to within a
#: factor e). The posterior covariance is then finite along directions the fit determines only
#: barely (a singular value of 1e-6), where the linearised least-squares covariance would claim
#: +-1000 000 % and turn a tiny gradient into a band of +-60 % (a linearisation artefact).
PARAM_PRIOR_SD = 1.0

#: A table's residuals count in the empirical-Bayes spread of variances only with at least this many
#: residual degrees of freedom (n_t - sum of its leverages): a table the parameters absorb says
#: nothing about how far the model misses it.
MIN_TABLE_DOF = 0.5


def _quantile(interval: float, dof) -> np.ndarray:
    """Two-sided Student-t quantile of central probability ``interval`` with ``dof`` degrees of
    freedom (normal for infinite dof; NaN for dof <= 0)."""
    from scipy.special import stdtrit

    dof = np.asarray(dof, dtype=float)
    with np.errstate(invalid="ignore"):
        q = stdtrit(np.where(dof > 0, dof, 1.0), 0.5 + interval / 2.0)
    return np.where(dof > 0, q, np.nan)


def _residuals(model: np.ndarray, paper: np.ndarray, difference=None) -> np.ndarray:
    """Fit residuals on the scale each number's noise lives on.

    In log space, ``ln(model / paper)``, where both are positive (the bands are log-normal there);
    relative, ``(model - paper) / |paper|``, for another signed number. A ``difference``
    (:attr:`Target.difference`: a change between two runs as a fraction of the reference run) is
    measured relative to its operand level, the reference run (1 in these units): ``model - paper``.
    Relative to its own size, a -0.7 % change missed by one point would count as a 140 % residual and
    inflate its table's misfit -- and, through the pooled prior, every study's bands -- although both
    runs it is taken from are fitted to within a point.
    """
    pos = (model > 0) & (paper > 0)
    diff = np.zeros(np.shape(model), dtype=bool) if difference is None else np.asarray(difference, dtype=bool)
    with np.errstate(divide="ignore", invalid="ignore"):
        log_r = np.log(np.where(pos, model, 1.0) / np.where(pos, paper, 1.0))
    signed = np.where(pos, log_r, (model - paper) / np.maximum(np.abs(paper), 1e-300))
    return np.where(diff, model - paper, signed)


def _table_stats(resid: np.ndarray, leverage: np.ndarray, tables) -> dict:
    """Data table -> ``(RSS_t, nu_t)``: the sum of its squared fitted residuals and its residual degrees
    of freedom ``sum(1 - h_ii)`` (``h`` the leverages: the parameters absorb ``sum h_ii = rank``)."""
    resid = np.asarray(resid, dtype=float)
    lev = np.clip(np.asarray(leverage, dtype=float), 0.0, 1.0)
    tables = np.asarray(list(tables), dtype=object)
    return {t: (float((resid[tables == t] ** 2).sum()), float((1.0 - lev[tables == t]).sum()))
            for t in sorted(set(tables.tolist()))}


def scaled_inv_chi2_fit(rss, nu) -> tuple[float, float]:
    """``(s0^2, d0)``: the scaled inverse chi-square distribution of true variances that best explains
    sample variances ``rss / nu`` (``nu`` degrees of freedom each), by maximum likelihood: each
    ``(rss / nu) / s0^2`` then follows an F(nu, d0) distribution (the hierarchical model of Smyth 2004,
    limma; maximum likelihood rather than its moments because tables with one or two residual degrees
    of freedom would swamp a moment estimate). Deterministic (L-BFGS-B from the pooled variance and
    ``d0 = 4``; ``d0`` within [0.2, 1e4], where 1e4 means the variances are no more spread than chance).
    """
    from scipy.optimize import minimize
    from scipy.special import gammaln

    rss, nu = np.asarray(rss, dtype=float), np.asarray(nu, dtype=float)
    pooled = float(rss.sum() / nu.sum())
    if len(nu) < 2:
        return pooled, math.inf
    s2 = np.maximum(rss / nu, 1e-10)

    def nll(x):
        s0, d0 = math.exp(x[0]), math.exp(x[1])
        f = s2 / s0
        a, b = nu / 2.0, d0 / 2.0
        logpdf = (gammaln(a + b) - gammaln(a) - gammaln(b) + a * np.log(nu / d0) + (a - 1.0) * np.log(f)
                  - (a + b) * np.log1p(nu * f / d0) - math.log(s0))
        return -float(logpdf.sum())

    sol = minimize(nll, [math.log(pooled), math.log(4.0)], method="L-BFGS-B",
                   bounds=[(math.log(pooled) - 10.0, math.log(pooled) + 10.0), (math.log(0.2), math.log(1e4))])
    return float(math.exp(sol.x[0])), float(math.exp(sol.x[1]))


def structural_variances(resid: np.ndarray, leverage: np.ndarray, tables, n_params: int, prior=None) -> dict:
    """Per-table variance of the model's misfit (model-form error + measurement noise), from the
    fitted residuals of one calibration, and its degrees of freedom (for the Student-t quantile).

    Each data table (a quantity the paper measured in one experiment: a throughput table, a latency
    figure) has its own misfit: a model can be right about throughputs and 15 % off on I/O. Table
    ``t`` has ``RSS_t`` and ``nu_t = sum(1 - h_ii)`` residual degrees of freedom (``sum nu_t = n -
    rank``, the degrees-of-freedom correction shared out by leverage).

    ``prior = (s0^2, d0, nu)`` is the scaled inverse chi-square distribution of table variances fitted
    to vcperf's *other* studies' tables and this fit's own (:func:`misfit_prior`): how far mechanistic
    models of this kind miss a table (``d0`` infinite: no more spread than chance, then every table gets
    the pooled ``s0^2`` with the ``nu`` degrees of freedom behind it). Each table's variance is then the
    posterior ``(d0 s0^2 + RSS_t) / (d0 + nu_t)`` with ``d0 + nu_t`` degrees of freedom (Smyth 2004's
    moderated variance); a quantity of a table this fit did not use gets the study's pooled posterior
    ``(d0 s0^2 + RSS) / (d0 + n - rank)``. Without a prior (a module outside :data:`STUDY_MODULES`),
    every table gets the study's ``RSS / (n - rank)`` with ``n - rank`` degrees of freedom (the REML
    estimate of one variance), NaN when ``n = rank``.

    Returns a dict: ``study`` (variance, dof) for a quantity of no fitted table, ``tables`` (table ->
    (variance, dof)), ``dof`` (n - rank).
    """
    stats = _table_stats(resid, leverage, tables)
    resid = np.asarray(resid, dtype=float)
    dof = len(resid) - n_params
    rss = float(resid @ resid)
    if prior is None:
        study = (rss / dof, float(dof)) if dof > 0 else (math.nan, 0.0)
        return {"study": study, "tables": dict.fromkeys(stats, study), "dof": dof}
    s0, d0, nu_all = prior
    if math.isinf(d0):  # a single table: one pooled variance
        return {"study": (s0, nu_all), "tables": dict.fromkeys(stats, (s0, nu_all)), "dof": dof}
    study = ((d0 * s0 + rss) / (d0 + max(dof, 0)), d0 + max(dof, 0))
    tables_out = {}
    for t, (rss_t, nu_t) in stats.items():
        tables_out[t] = ((d0 * s0 + rss_t) / (d0 + nu_t), d0 + nu_t)
    return {"study": study, "tables": tables_out, "dof": dof}


def _fit_residuals(module, params, keys):
    """Jacobian, log-space residuals, leverages, rank and SVD of a calibration at its fit keys."""
    tmap = target_map(module)
    jac, _ = jacobian(module, params, keys)
    model = predict(module, params, keys)
    paper = np.array([tmap[k].paper_value() for k in keys])
    resid = _residuals(np.array([model[k] for k in keys], dtype=float), paper,
                       [tmap[k].difference for k in keys])
    r = rank(jac)
    if r:
        u, s, vt = np.linalg.svd(jac, full_matrices=False)
        leverage = (u[:, :r] ** 2).sum(axis=1)
    else:
        s, vt, leverage = np.zeros(0), np.zeros((0, jac.shape[1])), np.zeros(len(keys))
    return jac, resid, leverage, r, s, vt


def _table_misfit(module) -> dict:
    """``_table_stats`` of a study's default calibration (cached)."""
    def compute():
        keys = fit_keys(module)
        _, resid, leverage, _, _, _ = _fit_residuals(module, calibrated_module(module), keys)
        tmap = target_map(module)
        return _table_stats(resid, leverage, [tmap[k].table for k in keys])
    return cached_result(module, "misfit", compute)


def other_study_tables(study: str) -> list[tuple[float, float]]:
    """``(RSS_t, nu_t)`` of every table of the default calibrations of the studies other than ``study``
    with at least ``MIN_TABLE_DOF`` residual degrees of freedom: the rest of the evidence on how far
    vcperf's mechanistic models miss a measured quantity. Never ``study``'s own numbers, so a
    leave-one-out refit's interval depends on the held-out number through nothing but its absence."""
    return [(r_t, n_t) for other in STUDY_MODULES if other != study
            for r_t, n_t in _table_misfit(study_module(other)).values() if n_t >= MIN_TABLE_DOF]


def misfit_prior(study: str, own=()) -> tuple[float, float, float]:
    """``(s0^2, d0, nu)``: the scaled inverse chi-square distribution of table misfit variances
    (:func:`scaled_inv_chi2_fit`) over :func:`other_study_tables` and the fit's ``own`` ``(RSS_t, nu_t)``
    (those with at least ``MIN_TABLE_DOF``), and the residual degrees of freedom ``nu`` behind it."""
    tables = other_study_tables(study) + [(r_t, n_t) for r_t, n_t in own if n_t >= MIN_TABLE_DOF]
    if not tables:
        return math.nan, 0.0, 0.0
    rss, nu = zip(*tables, strict=True)
    s0, d0 = scaled_inv_chi2_fit(rss, nu)
    return s0, d0, float(sum(nu))


@dataclass(frozen=True)
class FitUncertainty:
    """Linearised predictive uncertainty of a least-squares calibration.

    Two parts, both from the calibration's own *fitted* residuals (never from held-out ones):

    ``table_sd``
        One measurement's misfit (model-form error + run-to-run noise) as a relative standard
        deviation, per data table (:func:`structural_variances`: the fit's own fitted residuals in
        log space, degrees-of-freedom corrected, combined with the other studies' table variances
        as an empirical-Bayes prior), never below :func:`noise_floor`; with its degrees of freedom
        ``table_dof`` for the Student-t quantile. ``structural_sd``: the part above the noise floor
        (model-form error alone). ``sigma`` / ``prior_dof``: the same for a quantity of a table the
        fit did not use (the study's pooled posterior; what :func:`with_interval` uses by default).
        ``d0``: the prior's degrees of freedom.
    ``cov``
        Covariance of the relative parameter perturbations (d parameter / |parameter|): the
        Gauss-Newton posterior ``(J' W J + I / PARAM_PRIOR_SD^2)^-1`` within the row space of ``J``
        (the directions the fit determines), ``W = diag(1 / s_i^2)`` with ``s_i`` the misfit sd of
        target ``i``'s table (``s^2 pinv(J'J)`` when every table has the same and the prior is
        negligible). Directions the fit does not determine get no variance: a prediction that
        depends on them is *not estimable* and gets no interval.
    """

    jac: np.ndarray
    cov: np.ndarray
    sigma: float
    dof: int
    prior_dof: float = math.inf
    table_sd: dict = dataclasses.field(default_factory=dict)
    table_dof: dict = dataclasses.field(default_factory=dict)
    structural_sd: dict = dataclasses.field(default_factory=dict)
    d0: float = math.inf

    def misfit(self, table: str | None = None) -> tuple[float, float]:
        """``(sd, dof)`` of one measurement's misfit for a quantity of ``table`` (or of no fitted table)."""
        if table is not None and table in self.table_sd:
            return self.table_sd[table], self.table_dof[table]
        return self.sigma, self.prior_dof

    def misfit_variance(self, model: float, paper_scale: float, table: str | None = None,
                        difference: bool = False, sampling_var: float = 0.0) -> float:
        """Variance of one measurement's misfit of a model value, in the value's units.

        The table's relative misfit sd (:meth:`misfit`) times the value for a positive value (its band
        is log-normal), times ``paper_scale`` otherwise (as the residuals of signed numbers are). A
        ``difference`` (:attr:`Target.difference`: a change between two measured runs, as a fraction
        of the reference run) is a difference of two measurements, each with the run-to-run noise
        :func:`noise_floor` relative to the reference: its misfit is the table's sd relative to that
        operand level (1, as its residuals are, :func:`_residuals`), never less than
        ``2 x noise_floor()^2``, however close to 0 the change is (the paper's "within the error
        margin" differences of 1-2 %).

        ``sampling_var`` (value units squared, :func:`sampling_variances`): the variance the
        experiment's own finite sample gives this number (a count of failures over a few runs of a
        non-deterministic benchmark). It replaces the run-to-run noise floor where it is larger; the
        table's model-form part (its misfit above the floor) is kept.
        """
        sd, _ = self.misfit(table)
        if difference:
            return max(sd**2, 2.0 * noise_floor() ** 2)
        scale = model if model > 0 else paper_scale
        if sampling_var > 0:
            floor2 = noise_floor() ** 2
            return max(sd**2 - floor2, 0.0) * scale**2 + max(float(sampling_var), floor2 * scale**2)
        return (sd * scale) ** 2

    def band(self, model: float, grad: np.ndarray, paper_scale: float, interval: float = INTERVAL,
             table: str | None = None, difference: bool = False, nonnegative: bool = False,
             sampling_var: float = 0.0):
        """``(low, high)`` predictive interval of one model value with gradient ``grad`` (relative to
        ``paper_scale``, as a ledger Jacobian's rows are): :meth:`bands` of one value.

        Parameter uncertainty (``grad @ cov @ grad``, on the scale ``paper_scale``) plus one
        measurement's misfit for a quantity of ``table`` (:meth:`misfit_variance`), Student-t quantile
        of central probability ``interval``: log-normal for a positive value (misfit relative to the
        value; a time or a rate never gets a negative bound), normal otherwise (misfit relative to
        ``paper_scale``, as the residuals of signed numbers are, so a model value of 0 does not get a
        band of width 0). A ``difference`` (a change between two runs, which may have either sign) is
        always normal, its misfit at least the noise of two measurements. ``nonnegative`` (a count, a
        time: every target that is not a difference) clips a normal band's lower end at 0.
        ``sampling_var``: the experiment's own sampling variance of the number
        (:meth:`misfit_variance`, :func:`sampling_variances`); such a count's band is normal (its
        noise is a sum over independent runs), clipped at 0.
        """
        low, high = self.bands(model, grad, paper_scale=paper_scale, grad_scale=paper_scale, interval=interval,
                               table=table, difference=difference, nonnegative=nonnegative,
                               sampling_var=sampling_var)
        return float(low), float(high)

    def bands(self, value, gradient, *, paper_scale=None, grad_scale: float = 1.0, interval: float = INTERVAL,
              table: str | None = None, difference: bool = False, nonnegative: bool = False,
              sampling_var: float = 0.0):
        """``(low, high)`` arrays: the delta method's predictive interval of model values (the one
        implementation behind every band: the ledger's rows and :meth:`vcperf.protocol.Calibration.band`).

        ``gradient[..., i]``: each value's derivative with respect to the ``i``-th parameter times
        that parameter's value (:func:`vcperf.protocol.value_and_gradient`), in units of the value
        divided by ``grad_scale``. The variance is ``g C g grad_scale^2`` plus one measurement's misfit
        (:meth:`misfit_variance`; ``paper_scale``, default ``|value|``, is the scale of a value that is
        not positive), bounds as :meth:`band`. NaN where the paper's numbers do not determine the
        gradient's direction (not in the row space of the fit's Jacobian) or the variance is not finite.
        """
        value = np.asarray(value, dtype=float)
        g = np.asarray(gradient, dtype=float)
        if g.shape[-1:] != (self.cov.shape[0],):
            raise ValueError(f"gradient must end in an axis of {self.cov.shape[0]} parameters; got shape {g.shape}")
        scale = np.abs(value) if paper_scale is None else np.asarray(paper_scale, dtype=float)
        sd, dof = self.misfit(table)
        if difference:
            misfit = np.full(value.shape, max(sd**2, 2.0 * noise_floor() ** 2))
        else:
            s = np.where(value > 0, value, scale)
            if sampling_var > 0:
                floor2 = noise_floor() ** 2
                misfit = max(sd**2 - floor2, 0.0) * s**2 + np.maximum(float(sampling_var), floor2 * s**2)
            else:
                misfit = (sd * s) ** 2
        with np.errstate(over="ignore", invalid="ignore"):
            quad = g @ self.cov @ g if g.ndim == 1 else np.einsum("...i,ij,...j->...", g, self.cov, g)
            var = quad * grad_scale**2 + misfit
        # not estimable: a direction the fit does not determine; not finite: barely determined, or no misfit
        ok = np.broadcast_to(estimable_rows(self.jac, g), np.shape(var)) & np.isfinite(var)
        # a count's own sampling noise is additive (a sum of independent runs): its band is normal
        low, high = interval_bounds(value, np.sqrt(np.maximum(np.where(ok, var, 0.0), 0.0)), interval, dof,
                            log_normal=not difference and not sampling_var > 0)
        if nonnegative:
            low = np.where(np.isfinite(low), np.maximum(low, 0.0), low)
        return np.where(ok, low, np.nan), np.where(ok, high, np.nan)


def sampling_variances(module, params, keys) -> dict:
    """Variance (SI units squared) that the experiment's own finite sample gives each printed number.

    From the study's optional ``sampling_variances(params, keys)``: e.g. vMotion's TPCx-HCI failed
    checks and invalid runs, counts over 18 runs of a benchmark the paper calls "elastic,
    non-deterministic" (a binomial count of 18 runs has a standard deviation of about one run,
    whatever the model). 0 for every other number: its run-to-run noise is :func:`noise_floor`.
    """
    keys = tuple(keys)
    fn = getattr(module, "sampling_variances", None)
    if fn is None or params is None:
        return dict.fromkeys(keys, 0.0)
    out = fn(params, keys)
    return {k: float(out.get(k, 0.0)) for k in keys}


def interval_bounds(value: np.ndarray, sd: np.ndarray, interval: float, dof=math.inf, log_normal: bool = True):
    """Central ``interval`` of a value with standard deviation ``sd`` and a Student-t quantile of
    ``dof`` degrees of freedom: log-normal where value > 0 (``value * exp(+-q sd / value)``) unless
    ``log_normal`` is False, normal elsewhere."""
    q = _quantile(interval, dof)
    value = np.asarray(value, dtype=float)
    sd = np.asarray(sd, dtype=float)
    pos = (value > 0) & log_normal
    rel = np.divide(sd, value, out=np.zeros(np.broadcast(sd, value).shape), where=pos)
    with np.errstate(over="ignore", invalid="ignore"):
        low = np.where(pos, value * np.exp(-q * rel), value - q * sd)
        high = np.where(pos, value * np.exp(q * rel), value + q * sd)
    # A band wider than floats can hold says nothing: no interval (NaN), never a band that covers anything.
    finite = np.isfinite(low) & np.isfinite(high)
    low, high = np.where(finite, low, np.nan), np.where(finite, high, np.nan)
    return low, high


def fit_uncertainty(module, params, keys) -> FitUncertainty:
    """:class:`FitUncertainty` of ``params`` fitted to the target ``keys`` of a study."""
    tmap = target_map(module)
    keys = tuple(keys)
    jac, resid, leverage, r, s, vt = _fit_residuals(module, params, keys)
    tables = [tmap[k].table for k in keys]
    own = _table_stats(resid, leverage, tables).values()
    prior = misfit_prior(module.STUDY, own) if module.STUDY in STUDY_MODULES else None
    est = structural_variances(resid, leverage, tables, r, prior)
    floor2 = noise_floor() ** 2

    def floored(v):
        return max(v, floor2) if math.isfinite(v) else math.nan

    table_var = {t: floored(v) for t, (v, _) in est["tables"].items()}
    point_var = np.array([table_var[t] for t in tables])
    if r and np.all(np.isfinite(point_var)):
        # Posterior covariance of the relative parameter perturbations within the determined row
        # space: (V' (J' W J + I / PARAM_PRIOR_SD^2) V)^-1, W = diag(1 / s_i^2).
        basis = vt[:r].T
        info = basis.T @ (jac.T @ (jac / point_var[:, None])) @ basis + np.eye(r) / PARAM_PRIOR_SD**2
        cov = basis @ np.linalg.inv(info) @ basis.T
    elif r:
        cov = np.full((jac.shape[1], jac.shape[1]), np.nan)
    else:
        cov = np.zeros((jac.shape[1], jac.shape[1]))
    return FitUncertainty(
        jac=jac, cov=cov, sigma=math.sqrt(floored(est["study"][0])), dof=len(keys) - r, prior_dof=est["study"][1],
        table_sd={t: math.sqrt(v) for t, v in table_var.items()},
        table_dof={t: d for t, (_, d) in est["tables"].items()},
        structural_sd={t: math.sqrt(max(v - floor2, 0.0)) if math.isfinite(v) else math.nan
                       for t, v in table_var.items()},
        d0=prior[1] if prior is not None else math.nan)




def uncertainty(study) -> FitUncertainty:
    """The :class:`FitUncertainty` of ``study``'s default calibration (cached, as the ledger uses it)."""
    module = study_module(study)
    return cached_result(module, "uncertainty",
                         lambda: fit_uncertainty(module, calibrated_module(module), fit_keys(module)))

