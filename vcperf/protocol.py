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
    """

    key: str
    table: str
    quantity: str
    conditions: tuple = ()
    role: str = "fit"
    group: str | None = None
    depends_on: tuple = ()
    note: str = ""

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


@dataclass(frozen=True)
class FitUncertainty:
    """Linearised uncertainty of a least-squares calibration (Gauss-Newton covariance).

    ``cov`` is the covariance of the relative parameter perturbations (d parameter / |parameter|):
    ``sigma**2 * pinv(J.T @ J)`` with ``J`` the Jacobian of (model / |paper|) over the fit targets and
    ``sigma`` the larger of the fit's residual standard deviation (``sqrt(RSS / (m - rank))``) and
    :func:`noise_floor`. Directions the fit does not determine get no variance here: a prediction
    that depends on them is *not estimable* and gets no interval.
    """

    jac: np.ndarray
    cov: np.ndarray
    sigma: float
    dof: int

    def band(self, model: float, grad: np.ndarray, paper_scale: float, interval: float = INTERVAL):
        """``(low, high)`` predictive interval of a model value with gradient ``grad``.

        Parameter uncertainty (``grad @ cov @ grad``, on the scale ``paper_scale``) plus the noise of
        one measurement (``sigma`` x |model|), central probability ``interval``: log-normal for a
        positive value (so a time or a rate never gets a negative bound), normal otherwise.
        """
        if not estimable(self.jac, grad):
            return math.nan, math.nan
        with np.errstate(over="ignore", invalid="ignore"):
            var = float(grad @ self.cov @ grad) * paper_scale**2 + (self.sigma * model) ** 2
        if not math.isfinite(var):  # a direction the fit barely determines: no honest interval
            return math.nan, math.nan
        low, high = _bounds(np.asarray(model, dtype=float), np.sqrt(max(var, 0.0)), interval)
        return float(low), float(high)


def _bounds(value: np.ndarray, sd: np.ndarray, interval: float):
    """Central ``interval`` of a value with standard deviation ``sd``: log-normal where value > 0
    (``value * exp(+-z sd / value)``), normal elsewhere."""
    from statistics import NormalDist  # stdlib: scipy.stats alone would cost ~1 s of import

    z = NormalDist().inv_cdf(0.5 + interval / 2.0)
    pos = value > 0
    rel = np.divide(sd, value, out=np.zeros_like(sd, dtype=float), where=pos)
    with np.errstate(over="ignore"):
        low = np.where(pos, value * np.exp(-z * rel), value - z * sd)
        high = np.where(pos, value * np.exp(z * rel), value + z * sd)
    # A band wider than floats can hold says nothing: no interval (NaN), never a band that covers anything.
    finite = np.isfinite(low) & np.isfinite(high)
    low, high = np.where(finite, low, np.nan), np.where(finite, high, np.nan)
    return low, high


def fit_uncertainty(module, params, keys) -> FitUncertainty:
    """:class:`FitUncertainty` of ``params`` fitted to the target ``keys`` of a study."""
    tmap = target_map(module)
    jac, _ = jacobian(module, params, keys)
    model = module.predict(params, tuple(keys))
    paper = np.array([tmap[k].paper_value() for k in keys])
    resid = (np.array([model[k] for k in keys]) - paper) / np.maximum(np.abs(paper), 1e-300)
    r = rank(jac)
    dof = len(keys) - r
    sigma = max(math.sqrt(float(resid @ resid) / dof) if dof > 0 else 0.0, noise_floor())
    basis = _row_space(jac)
    if basis.shape[1]:
        _, s, vt = np.linalg.svd(jac, full_matrices=False)
        inv = np.zeros_like(s)
        inv[: basis.shape[1]] = 1.0 / s[: basis.shape[1]] ** 2
        cov = sigma**2 * (vt.T * inv) @ vt
    else:
        cov = np.zeros((jac.shape[1], jac.shape[1]))
    return FitUncertainty(jac=jac, cov=cov, sigma=sigma, dof=dof)


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


def with_interval(fn, *args, output: str | None = None, interval: float = INTERVAL, **kwargs) -> Interval:
    """Evaluate a study's model function with the predictive interval of its calibration.

    The calibrated parameters' covariance (:class:`FitUncertainty` of the default calibration) is
    propagated to the output by the delta method: the output's gradient with respect to each
    parameter comes from two extra vectorised calls per parameter (no loop over input points or
    samples), and the noise of one measurement (:func:`noise_floor` or the fit's residual spread)
    is added. Deterministic. Where the output depends on a parameter direction the paper's numbers
    do not determine, ``low`` and ``high`` are NaN.

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
    params = _calibrated(module)
    unc = _cached(module, "uncertainty", lambda: fit_uncertainty(module, params, fit_keys(module)))

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
    with np.errstate(over="ignore", invalid="ignore"):
        var = np.einsum("...i,ij,...j->...", g, unc.cov, g) + (unc.sigma * value) ** 2
    lo_all, hi_all = _bounds(value, np.sqrt(np.maximum(var, 0.0)), interval)
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
        for i, k in enumerate(held):
            paper = tmap[k].paper_value()
            ok = params is not None and estimable(unc.jac, grads[i]) and estimable(unc.jac, probe[i])
            model = float(preds[k]) if ok else math.nan
            low, high = unc.band(model, grads[i], abs(paper)) if ok else (math.nan, math.nan)
            note = "" if ok else (f"not estimable: {error}" if error else
                                  "not estimable: the other fit targets do not determine it")
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
    rows = []
    for i, (k, t) in enumerate(tmap.items()):
        r = t.data_row()
        si_unit = data.UNITS[r["unit"]][0]
        base = dict(study=module.STUDY, key=k, source=t.table, locator=r["locator"] or _locator(t.table),
                    quantity=t.quantity, conditions=t.conditions_text, unit=si_unit, display_unit=r["unit"],
                    relation=r["relation"] or "=", paper_value=t.paper_value())
        low, high = unc.band(float(model[k]), grads[i], abs(base["paper_value"]))
        rows.append(FidelityRow(**base, model_value=float(model[k]), model_low=low, model_high=high,
                                kind=_KIND_OF_ROLE[t.role], note=t.note))
        if t.role == "fit":
            lr = loo.loc[k]
            rows.append(FidelityRow(**base, model_value=float(lr["model_value"]), model_low=float(lr["model_low"]),
                                    model_high=float(lr["model_high"]), kind="loo",
                                    note=lr["note"] or f"refit without group '{lr['group']}' "
                                                       f"({lr['n_held_out']} held out, {lr['n_fit']} fitted)"))
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
    can be negative where parameters are correlated), the noise ``(sigma x model)^2``. Rows: the
    study's targets with an interval; columns: ``key``, ``width_relative`` (90 % width / |model|),
    ``noise``, then one column per parameter, all as shares of the total variance.
    """
    import pandas as pd

    tmap = target_map(module)
    params = _calibrated(module)
    unc = _cached(module, "uncertainty", lambda: fit_uncertainty(module, params, fit_keys(module)))
    grads = _cached(module, "gradients", lambda: jacobian(module, params, tuple(tmap))[0])
    model = module.predict(params, tuple(tmap))
    names = param_names(params)
    recs = []
    for i, (k, t) in enumerate(tmap.items()):
        m = float(model[k])
        scale = abs(t.paper_value())
        g = grads[i]
        low, high = unc.band(m, g, scale)
        if not (math.isfinite(low) and math.isfinite(high)) or m == 0:
            continue
        per = g * (unc.cov @ g) * scale**2
        noise = (unc.sigma * m) ** 2
        total = float(per.sum()) + noise
        rec = {"key": k, "role": t.role, "width_relative": (high - low) / abs(m), "noise": noise / total}
        rec.update({n: float(per[j]) / total for j, n in enumerate(names)})
        recs.append(rec)
    return pd.DataFrame(recs, columns=["key", "role", "width_relative", "noise", *names])


#: How parameter uncertainty is computed (shown in every parameter table).
UNCERTAINTY_METHOD = ("Gauss-Newton covariance of the least-squares fit (sigma^2 pinv(J'J), sigma = max(residual sd, "
                      "run-to-run noise floor)); not identifiable -> no interval")


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
        sd = math.sqrt(max(float(unc.cov[i, i]), 0.0)) if ok else math.nan
        low, high = (_bounds(np.asarray(value), np.asarray(sd * abs(value)), INTERVAL) if ok
                     else (math.nan, math.nan))
        recs.append({"name": name, "value": value, "unit": unit, "meaning": meaning, "identifiable": ok,
                     "sd_relative": sd, "low_90": float(low), "high_90": float(high),
                     "fitted_from": ", ".join(ident["fitted_from"].get(name, ())) or "(fixed)"})
    table = pd.DataFrame(recs)
    table.attrs["uncertainty_method"] = UNCERTAINTY_METHOD
    return table


def clear_caches() -> None:
    """Forget the in-process cached calibrations, refits and identifiability (the disk cache is keyed by
    :func:`source_digest`, so an edited file is never served stale)."""
    _CACHE.clear()
    getattr(source_digest, "cache_clear", lambda: None)()
