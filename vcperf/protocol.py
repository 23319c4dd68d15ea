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
``predict(params, keys)``   model value (SI) of each target key under ``params``
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
    a target never used in any fit, and not a function of fitted numbers.
``derived``
    a paper number that is a function of other paper numbers (a total, a ratio of two fitted
    values, ...): shown, never counted in skill.
``bound``
    an inequality the paper states ("under 3 Gbps"): pass or fail.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import math
from dataclasses import dataclass

import numpy as np

#: The five studies and the subpackage implementing each.
STUDY_MODULES = {
    "vcha2016": "vcperf.vcha",
    "robo2019": "vcperf.robo",
    "ft2016": "vcperf.ft",
    "contentlib2015": "vcperf.contentlib",
    "vmotion2020": "vcperf.vmotion",
}

#: What a study's ``__init__`` must expose (checked by ``tests/test_protocol.py``).
REQUIRED = ("STUDY", "Params", "PARAM_DOCS", "targets", "calibrate", "predict", "leave_one_out",
            "fidelity_rows", "parameter_table")

ROLES = ("fit", "predicted", "derived", "bound")
KINDS = ("fitted", "loo", "predicted", "derived", "bound")
_KIND_OF_ROLE = {"fit": "fitted", "predicted": "predicted", "derived": "derived", "bound": "bound"}

#: Relative step of the finite-difference Jacobian (on each parameter's own scale).
JACOBIAN_STEP = 1e-6
#: A direction counts as determined by the fit when at most this share of it lies outside the row
#: space of the fit's Jacobian; singular values below ``RANK_TOL`` x the largest count as zero.
ESTIMABLE_TOL = 1e-3
RANK_TOL = 1e-7


@dataclass(frozen=True)
class Target:
    """One paper number a study's model speaks to.

    Parameters
    ----------
    key : str
        Unique within the study, e.g. ``"t05_throughput_64_enabled"``.
    table : str
        ``"<study>/<table>"`` in ``data/``.
    quantity : str
        The ``quantity`` cell.
    conditions : tuple of (str, str)
        Condition column values selecting exactly one row of ``table`` with ``quantity``.
    role : str
        One of :data:`ROLES`: ``fit`` (used by the default calibration), ``predicted``, ``derived``
        (a function of other paper numbers, see ``depends_on``) or ``bound`` (the row's relation
        is an inequality, judged pass/fail).
    group : str, optional
        Condition group held out together in leave-one-out; default: the conditions themselves
        (``"clients=64; vcha=enabled"``), so rows of different tables stated for the same run
        share a group.
    depends_on : tuple of str
        For ``derived`` targets, the keys (or data tables) whose paper values this one is computed
        from.
    note : str
        Anything a reader of the ledger must know (how the model computes it, why it is derived).
    difference : bool
        The paper value is a change between two measured runs, as a fraction of the reference run
        ("-2.1 %", "a 65 % drop", "50 % shorter"): a signed number near 0 whose run-to-run noise is
        that of two measurements, ``sqrt(2) x`` :func:`noise_floor` of the reference, not a share of
        the (small) value itself (:meth:`FitUncertainty.band`). Set with :func:`mark_differences`.
        Every other target is a non-negative quantity (a time, a rate, a count, a ratio): its band
        never goes below 0.
    maximum : float
        The largest value the quantity can take (e.g. 18 invalid runs of 18); its band is clipped
        there. Default: no maximum.
    """

    key: str
    table: str
    quantity: str
    conditions: tuple = ()
    role: str = "fit"
    group: str | None = None
    depends_on: tuple = ()
    note: str = ""
    difference: bool = False
    maximum: float = math.inf

    def __post_init__(self):
        if self.role not in ROLES:
            raise ValueError(f"role must be one of {ROLES}; got {self.role!r} (target {self.key})")
        object.__setattr__(self, "conditions", tuple((str(c), str(v)) for c, v in self.conditions))
        object.__setattr__(self, "depends_on", tuple(self.depends_on))

    @property
    def condition_group(self) -> str:
        """The leave-one-out group: ``group`` or the canonical conditions string."""
        if self.group is not None:
            return self.group
        return "; ".join(f"{c}={v}" for c, v in sorted(self.conditions)) or self.table

    @property
    def conditions_text(self) -> str:
        return "; ".join(f"{c}={v}" for c, v in self.conditions)

    def data_row(self):
        """The one ``data/`` row this target names (a pandas Series)."""
        from vcperf import data

        return data.row(self.table, self.quantity, **dict(self.conditions))

    def paper_value(self) -> float:
        """The paper's value in SI (percent and ratios as fractions)."""
        from vcperf import data

        r = self.data_row()
        return float(data.to_si(r["value"], r["unit"]))


def study_module(study: str):
    """The subpackage implementing ``study`` (a key of :data:`STUDY_MODULES`)."""
    if study not in STUDY_MODULES:
        raise ValueError(f"study must be one of {list(STUDY_MODULES)}; got {study!r}")
    return importlib.import_module(STUDY_MODULES[study])


@functools.lru_cache(maxsize=16)
def mark_differences(targets: tuple, names: tuple) -> tuple:
    """``targets`` with :attr:`Target.difference` set on those whose ``quantity`` or ``key`` is in ``names``.

    A study's ``targets()`` names its quantities (or single targets, where a quantity is printed both
    as a change and as a ratio) that are changes between two measured runs here:
    ``protocol.mark_differences(TARGETS, ("throughput_change",))``. Cached (targets are immutable).

    Raises
    ------
    ValueError
        If a name is neither a quantity nor a key of the targets (a typo would silently mark nothing).
    """
    targets, names = tuple(targets), tuple(names)
    unknown = sorted(set(names) - {t.quantity for t in targets} - {t.key for t in targets})
    if unknown:
        raise ValueError(f"names must be quantities or keys of the targets; got {unknown}")
    return tuple(dataclasses.replace(t, difference=True) if t.quantity in names or t.key in names else t
                 for t in targets)


def target_map(module) -> dict:
    """Key -> :class:`Target` for a study module (keys must be unique)."""
    out = {}
    for t in module.targets():
        if t.key in out:
            raise ValueError(f"{module.STUDY}: target key {t.key!r} is used twice")
        out[t.key] = t
    return out


def fit_keys(module) -> tuple:
    """Keys of the targets the default calibration is fitted to."""
    return tuple(k for k, t in target_map(module).items() if t.role == "fit")


def resolve_fit_on(study: str, targets, fit_on=None, allowed=None) -> tuple:
    """The sorted, unique target keys a calibration fits: every ``fit`` target when ``fit_on`` is None.

    Every study's ``calibrate(fit_on)`` starts here, so unknown keys are refused the same way
    everywhere. ``allowed`` (default: every target that is not a ``bound``: an inequality is checked,
    not fitted) limits what ``fit_on`` may name.

    Raises
    ------
    ValueError
        Naming the keys that are unknown or not allowed.
    """
    targets = tuple(targets)
    if fit_on is None:
        return tuple(sorted({t.key for t in targets if t.role == "fit"}))
    if isinstance(fit_on, str):
        raise ValueError(f"fit_on must be an iterable of target keys of {study}; got the string {fit_on!r}")
    keys = tuple(fit_on)
    allowed = set(allowed) if allowed is not None else {t.key for t in targets if t.role != "bound"}
    bad = [k for k in keys if k not in allowed]
    if bad:
        raise ValueError(f"fit_on must be one of the fit-able target keys of {study} ({sorted(allowed)}); got {bad}")
    return tuple(sorted(set(keys)))


# ------------------------------------------------------------------------------ parameter vectors


def param_names(params, prefix: str = "") -> list[str]:
    """Names of the float leaves of a (possibly nested) parameter dataclass, ``a.b`` for nesting."""
    out = []
    for f in dataclasses.fields(params):
        val = getattr(params, f.name)
        if dataclasses.is_dataclass(val):
            out += param_names(val, f"{prefix}{f.name}.")
        elif isinstance(val, float):
            out.append(prefix + f.name)
    return out


def param_vector(params) -> np.ndarray:
    """Values of :func:`param_names`, in order."""
    return np.array([_get(params, n) for n in param_names(params)], dtype=float)


def _get(params, name: str):
    for part in name.split("."):
        params = getattr(params, part)
    return params


def with_values(params, values: dict):
    """A copy of ``params`` with the leaves named in ``values`` replaced (nested names allowed)."""
    top: dict = {}
    for name, val in values.items():
        head, _, rest = name.partition(".")
        top.setdefault(head, {})
        if rest:
            top[head][rest] = val
        else:
            top[head] = val
    changes = {}
    for head, val in top.items():
        cur = getattr(params, head)
        if isinstance(val, dict):
            changes[head] = with_values(cur, val)
        else:
            changes[head] = float(val)
    return dataclasses.replace(params, **changes)


def _steps(x: np.ndarray) -> np.ndarray:
    return JACOBIAN_STEP * np.maximum(np.abs(x), 1e-12)


def jacobian(module, params, keys) -> tuple[np.ndarray, list[str]]:
    """d(model / |paper|) / d(parameter / |parameter|) for ``keys``: rows keys, columns parameters.

    Central finite differences on each parameter's own scale. Rows are scaled by the paper value so
    that targets in different units weigh alike.
    """
    names = param_names(params)
    x = np.array([_get(params, n) for n in names])
    tmap = target_map(module)
    scale = np.array([max(abs(tmap[k].paper_value()), 1e-300) for k in keys])
    h = _steps(x)
    cols = []
    for i, name in enumerate(names):
        up = module.predict(with_values(params, {name: x[i] + h[i]}), keys)
        dn = module.predict(with_values(params, {name: x[i] - h[i]}), keys)
        d = (np.array([up[k] for k in keys]) - np.array([dn[k] for k in keys])) / (2 * h[i])
        cols.append(d * max(abs(x[i]), 1e-12) / scale)
    jac = np.column_stack(cols) if cols else np.zeros((len(keys), 0))
    jac[~np.isfinite(jac)] = 0.0
    return jac, names


def _row_space(jac: np.ndarray) -> np.ndarray:
    if jac.size == 0:
        return np.zeros((jac.shape[1], 0))
    _, s, vt = np.linalg.svd(jac, full_matrices=False)
    rank = int((s > RANK_TOL * max(s.max(initial=0.0), 1e-300)).sum())
    return vt[:rank].T


def rank(jac: np.ndarray) -> int:
    """Numerical rank of a Jacobian (singular values above ``RANK_TOL`` x the largest)."""
    return _row_space(jac).shape[1]


def estimable(jac: np.ndarray, grad: np.ndarray) -> bool:
    """Whether a linear function with gradient ``grad`` is determined by a fit with Jacobian ``jac``."""
    grad = np.asarray(grad, dtype=float)
    if not np.all(np.isfinite(grad)):
        return False
    scale = float(np.abs(grad).max(initial=0.0))
    if scale == 0.0:
        return True
    grad = grad / scale  # no overflow in the norms below
    norm = float(np.linalg.norm(grad))
    basis = _row_space(jac)
    resid = grad - basis @ (basis.T @ grad)
    return float(np.linalg.norm(resid)) <= ESTIMABLE_TOL * norm


# ----------------------------------------------------------------------------------- uncertainty

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
    from vcperf import data

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
    model = module.predict(params, keys)
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
        _, resid, leverage, _, _, _ = _fit_residuals(module, _calibrated(module), keys)
        tmap = target_map(module)
        return _table_stats(resid, leverage, [tmap[k].table for k in keys])
    return _cached(module, "misfit", compute)


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
        """``(low, high)`` predictive interval of a model value with gradient ``grad``.

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
        if not estimable(self.jac, grad):
            return math.nan, math.nan
        _, dof = self.misfit(table)
        with np.errstate(over="ignore", invalid="ignore"):
            var = float(grad @ self.cov @ grad) * paper_scale**2 + self.misfit_variance(model, paper_scale, table,
                                                                                         difference, sampling_var)
        if not math.isfinite(var):  # a direction the fit barely determines, or no misfit estimate
            return math.nan, math.nan
        # a count's own sampling noise is additive (a sum of independent runs): its band is normal
        low, high = _bounds(np.asarray(model, dtype=float), np.sqrt(max(var, 0.0)), interval, dof,
                            log_normal=not difference and not sampling_var > 0)
        low = max(float(low), 0.0) if nonnegative and math.isfinite(low) else float(low)
        return low, float(high)


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


def _bounds(value: np.ndarray, sd: np.ndarray, interval: float, dof=math.inf, log_normal: bool = True):
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
    """The study whose model defines ``fn`` (from its module, e.g. ``vcperf.vmotion.precopy``)."""
    mod = getattr(fn, "__module__", "") or ""
    for study, pkg in STUDY_MODULES.items():
        if mod == pkg or mod.startswith(pkg + "."):
            return study
    raise ValueError(f"fn must be a model function of one of the packages {list(STUDY_MODULES.values())}; "
                     f"got {getattr(fn, '__qualname__', fn)!r} from {mod!r}")


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
    from vcperf import _validate as v

    v.check_range("interval", interval, 0.0, 1.0, lo_open=True, hi_open=True)
    module = study_module(study_of(fn))
    if data_table is not None:
        tables = sorted({t.table for t in module.targets()})
        if data_table not in tables:
            raise ValueError(f"data_table must be one of the tables of {module.STUDY} ({tables}); got {data_table!r}")
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


def uncertainty(study: str) -> FitUncertainty:
    """The :class:`FitUncertainty` of ``study``'s default calibration (cached, as the ledger uses it)."""
    module = study_module(study)
    params = _calibrated(module)
    return _cached(module, "uncertainty", lambda: fit_uncertainty(module, params, fit_keys(module)))


def interval_from_gradient(study: str, value, gradient, *, data_table: str | None = None,
                           interval: float = INTERVAL) -> Interval:
    """The predictive interval of a model output from its parameter gradient (the delta method).

    The last step of :func:`with_interval`, public for views that get the gradient more cheaply
    (e.g. one batched solve): ``gradient[..., i]`` is the output's derivative with respect to the
    ``i``-th parameter of :func:`param_names` *times that parameter's value* (a log-parameter
    sensitivity). The variance is ``g C g`` (calibration covariance) plus the model-form misfit of
    ``data_table`` (or of the study), bounds from Student-t quantiles; NaN where the paper's numbers
    do not determine the output's parameter direction.
    """
    from vcperf import _validate as v

    v.check_range("interval", interval, 0.0, 1.0, lo_open=True, hi_open=True)
    unc = uncertainty(study)
    value = np.asarray(value, dtype=float)
    g = np.asarray(gradient, dtype=float)
    if g.shape[-1:] != (unc.cov.shape[0],):
        raise ValueError(f"gradient must end in an axis of {unc.cov.shape[0]} parameters; got shape {g.shape}")
    sd, dof = unc.misfit(data_table)
    with np.errstate(over="ignore", invalid="ignore"):
        var = np.einsum("...i,ij,...j->...", g, unc.cov, g) + (sd * value) ** 2
    lo_all, hi_all = _bounds(value, np.sqrt(np.maximum(var, 0.0)), interval, dof)
    basis = _row_space(unc.jac)
    flat = g.reshape(-1, g.shape[-1])
    flat = flat / np.maximum(np.abs(flat).max(axis=1, initial=0.0), 1e-300)[:, None]  # no overflow in norms
    resid = flat - (flat @ basis) @ basis.T
    ok = (np.linalg.norm(resid, axis=1) <= ESTIMABLE_TOL * np.maximum(np.linalg.norm(flat, axis=1), 1e-300)) | (
        np.linalg.norm(flat, axis=1) == 0.0)
    ok = ok.reshape(value.shape) & np.isfinite(var)
    low = np.where(ok, lo_all, np.nan)
    high = np.where(ok, hi_all, np.nan)
    return Interval(value=value, low=low, high=high, interval=float(interval))


# ------------------------------------------------------------------------------- leave-one-out


#: (study, what) -> cached result. Calibrations and refits are deterministic, so a process computes
#: each once; :func:`clear_caches` forgets them.
_CACHE: dict = {}


@functools.cache
def source_digest() -> str:
    """SHA-256 of every vcperf source file and every data table: the key of the disk cache.

    Any edit to a model, a calibration or a data file changes it, so a stale result is never read.
    """
    import hashlib
    from pathlib import Path

    from vcperf import data

    h = hashlib.sha256()
    pkg = Path(__file__).resolve().parent
    files = sorted(pkg.rglob("*.py")) + sorted(Path(data.DATA_DIR).rglob("*.csv")) + sorted(
        Path(data.DATA_DIR).rglob("*.json"))
    for path in files:
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def cache_dir():
    """Folder of the disk cache of calibrations and leave-one-out refits, or None when disabled.

    ``$VCPERF_CACHE_DIR`` if set, else ``$XDG_CACHE_HOME/vcperf`` (``~/.cache/vcperf``). Setting
    ``VCPERF_NO_CACHE=1`` (or ``vcperf fidelity --no-cache``) recomputes everything. Every kernel of a
    regeneration and every ``vcperf fidelity`` share it, so the same fits are not redone.
    """
    import os
    from pathlib import Path

    if os.environ.get("VCPERF_NO_CACHE", "") not in ("", "0"):
        return None
    if os.environ.get("VCPERF_CACHE_DIR"):
        return Path(os.environ["VCPERF_CACHE_DIR"])
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "vcperf"


def _disk_path(module, what: str):
    folder = cache_dir()
    if folder is None or module.STUDY not in STUDY_MODULES:
        return None
    return folder / f"{module.STUDY}-{what}-{source_digest()[:20]}.pickle"


def _cached(module, what: str, compute):
    """``compute()`` once per process, and once per source digest on disk (pickled, written atomically)."""
    import os
    import pickle

    key = (module.STUDY, what)
    if key in _CACHE:
        return _CACHE[key]
    path = _disk_path(module, what)
    if path is not None and path.exists():
        try:
            _CACHE[key] = pickle.loads(path.read_bytes())  # our own cache, keyed by the source digest
            return _CACHE[key]
        except Exception:  # noqa: BLE001 - a corrupt or foreign file is recomputed and replaced
            pass
    _CACHE[key] = value = compute()
    if path is not None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_bytes(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
            os.replace(tmp, path)
        except OSError:
            pass  # a read-only home: the in-process cache still holds
    return value


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
            preds = module.predict(params, tuple(held))
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


def leave_one_out(module):
    """Leave-one-out of every fitted target of a study (see the module docstring, kind ``loo``).

    Returns
    -------
    pandas.DataFrame
        One row per fit target: key, group, n_held_out (targets dropped with it), n_fit (targets the
        refit used), paper_value, model_value (SI; NaN when not estimable), model_low, model_high (the
        refit's own 90 % predictive interval, :class:`FitUncertainty`), rel_error, estimable, note.
    """
    return _cached(module, "loo", lambda: _loo(module)).copy()


# ------------------------------------------------------------------------------------ ledger


def _calibrated(module):
    return _cached(module, "calibrate", module.calibrate)


def cached_calibration(study: str, fit_on, fit, keys: tuple):
    """``fit(keys)``, a study's calibration on the resolved ``keys``; the default one (``fit_on`` None)
    once per process and once per source digest on disk (:func:`cache_dir`), so every kernel of a
    regeneration and every notebook reads it instead of refitting (the vMotion fit takes seconds).
    Each study's ``calibrate`` ends with this."""
    if fit_on is not None:
        return fit(keys)
    return _cached(study_module(study), "calibrate", lambda: fit(keys))


def calibrated(study: str):
    """The default calibration of ``study`` (cached): what model functions use when ``params=None``.

    Model files call this instead of importing their study's calibration, so that they never read
    ``data/`` themselves.
    """
    return _calibrated(study_module(study))


def fidelity_rows(module) -> list:
    """The ledger rows of a study: every target under the default calibration, plus its loo rows."""
    return list(_cached(module, "rows", lambda: _fidelity_rows(module)))


def _fidelity_rows(module) -> list:
    from vcperf import data
    from vcperf.fidelity import FidelityRow

    tmap = target_map(module)
    params = _calibrated(module)
    model = module.predict(params, tuple(tmap))
    unc = _cached(module, "uncertainty", lambda: fit_uncertainty(module, params, fit_keys(module)))
    grads = _cached(module, "gradients", lambda: jacobian(module, params, tuple(tmap))[0])
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
        high = min(high, t.maximum)
        rows.append(FidelityRow(**base, model_value=float(model[k]), model_low=low, model_high=high,
                                kind=_KIND_OF_ROLE[t.role], note=t.note))
        if t.role == "fit":
            lr = loo.loc[k]
            refit = f"refit without group '{lr['group']}' ({lr['n_held_out']} held out, {lr['n_fit']} fitted)"
            note = lr["note"] if lr["note"].startswith("not estimable") else "; ".join(
                x for x in (refit, lr["note"]) if x)
            rows.append(FidelityRow(**base, model_value=float(lr["model_value"]), model_low=float(lr["model_low"]),
                                    model_high=float(lr["model_high"]), kind="loo", note=note))
    return rows


def _locator(table: str) -> str:
    from vcperf import data

    return data.load(table).attrs["provenance"]["locator"]


def _identifiability(module) -> dict:
    params = _calibrated(module)
    keys = fit_keys(module)
    jac, names = jacobian(module, params, keys)
    groups = {target_map(module)[k].condition_group for k in keys}
    per_param = {n: estimable(jac, np.eye(len(names))[i]) for i, n in enumerate(names)}
    moved_by = {n: tuple(k for j, k in enumerate(keys) if abs(jac[j, i]) > 1e-9) for i, n in enumerate(names)}
    return {"n_params": len(names), "n_fit_points": len(keys), "n_fit_groups": len(groups),
            "jacobian_rank": rank(jac), "identifiable": per_param, "fitted_from": moved_by}


def identifiability(module) -> dict:
    """Parameters vs fit points, Jacobian rank and which parameters the fit determines.

    Returns a dict: n_params, n_fit_points, n_fit_groups (independent runs), jacobian_rank,
    identifiable (name -> bool), fitted_from (name -> keys of fit targets that move it).
    """
    return dict(_cached(module, "identifiability", lambda: _identifiability(module)))


def width_drivers(module):
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
    import pandas as pd

    tmap = target_map(module)
    params = _calibrated(module)
    unc = _cached(module, "uncertainty", lambda: fit_uncertainty(module, params, fit_keys(module)))
    grads = _cached(module, "gradients", lambda: jacobian(module, params, tuple(tmap))[0])
    model = module.predict(params, tuple(tmap))
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


def parameter_table(module):
    """Calibrated parameters of a study: name, value, unit, meaning, identifiable, relative standard
    deviation and 90 % interval (:class:`FitUncertainty`; NaN when not identifiable), fitted_from."""
    import pandas as pd

    params = _calibrated(module)
    ident = identifiability(module)
    unc = _cached(module, "uncertainty", lambda: fit_uncertainty(module, params, fit_keys(module)))
    names = param_names(params)
    recs = []
    for i, name in enumerate(names):
        unit, meaning = module.PARAM_DOCS[name]
        value = _get(params, name)
        ok = ident["identifiable"].get(name, False)
        var = float(unc.cov[i, i])
        has = ok and math.isfinite(var)  # a fit with no residual degrees of freedom has no variance either
        sd = math.sqrt(max(var, 0.0)) if has else math.nan
        low, high = (_bounds(np.asarray(value), np.asarray(sd * abs(value)), INTERVAL, unc.prior_dof) if has
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


def clear_caches() -> None:
    """Forget the in-process cached calibrations, refits and identifiability (the disk cache is keyed by
    :func:`source_digest`, so an edited file is never served stale)."""
    _CACHE.clear()
    getattr(source_digest, "cache_clear", lambda: None)()
