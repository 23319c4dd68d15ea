"""Targets: the paper numbers a study's model speaks to, each carrying the model function that
computes it, and :func:`predict`, the one way every study's model values are computed."""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Callable
from dataclasses import dataclass

from vcperf import data, studies

#: What a study's ``__init__`` must expose (checked by ``tests/test_protocol.py``).
REQUIRED = ("STUDY", "Params", "PARAM_DOCS", "targets", "calibrate", "predict", "leave_one_out",
            "fidelity_rows", "parameter_table")

ROLES = ("fit", "predicted", "derived", "bound")
KINDS = ("fitted", "loo", "predicted", "derived", "bound")
#: A target's role -> the kind of its ledger row.
KIND_OF_ROLE = {"fit": "fitted", "predicted": "predicted", "derived": "derived", "bound": "bound"}

#: Study name -> its subpackage (from the registry :data:`vcperf.studies.STUDIES`).
STUDY_MODULES = {s.name: s.package for s in studies.STUDIES.values()}


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
        The largest value the quantity can take (e.g. 18 invalid runs of 18), or the model can
        produce (a VCHA overhead is never a gain: 0); its band is clipped there. Default: no maximum.
    minimum : float
        The smallest value the quantity can take or the model can produce (a latency change of a
        cost that only adds work: 0); its band is clipped there. Default: no minimum (a level is
        never below 0 anyway, see ``difference``).
    restates : str
        For a ``predicted`` target whose model value *is* a fitted target's value (the model claims
        "no effect": a level with the same throughput as the fitted run, a Passive disk with the
        Active's fitted writes, an Embedded PSC run equal to the fitted External one): the key of that
        fitted target, or of the ``derived`` target computed from fitted ones alone that it equals (a
        change between two fitted runs); for a difference that is 0, the fitted reference run. Such a row is no
        evidence of skill; :func:`vcperf.fidelity.summary` reports predicted skill with and without
        it, and ``tests/test_fidelity.py`` finds every such row (:func:`restatements`) and checks it
        is marked.
    direction_only : bool
        A ``predicted`` target whose paper value is a direction read from prose ("nearly as much
        throughput": about 1), not a measured number: the model's closeness to it is a direction check,
        not skill. :func:`vcperf.fidelity.summary` keeps it out of the predicted skill without
        restatements and counts it apart. Default False.
    whole_interval_bound : bool
        A ``bound`` row passes only if its whole 90 % interval satisfies the inequality, not just
        the model value (default False).
    model : callable
        ``model(params) -> float``: the model value of this number (SI) under the study's ``Params``
        on the study's test bed. :func:`predict` calls it; it is excluded from comparisons and hashing.
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
    minimum: float = -math.inf
    restates: str = ""
    direction_only: bool = False
    whole_interval_bound: bool = False
    model: Callable | None = dataclasses.field(default=None, compare=False, repr=False)

    def __post_init__(self):
        if self.role not in ROLES:
            raise ValueError(f"role must be one of {ROLES}; got {self.role!r} (target {self.key})")
        object.__setattr__(self, "conditions", tuple((str(c), str(v)) for c, v in self.conditions))
        object.__setattr__(self, "depends_on", tuple(self.depends_on))
        if not self.minimum < self.maximum:
            raise ValueError(f"minimum must be below maximum; got {self.minimum} >= {self.maximum} (target {self.key})")
        if self.restates and self.role != "predicted":
            raise ValueError(f"restates marks a predicted target; got role {self.role!r} (target {self.key})")
        if self.direction_only and self.role != "predicted":
            raise ValueError(f"direction_only marks a predicted target; got role {self.role!r} (target {self.key})")

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
        return data.row(self.table, self.quantity, **dict(self.conditions))

    def paper_value(self) -> float:
        """The paper's value in SI (percent and ratios as fractions): :func:`paper_value` of its row."""
        return paper_value(self.table, self.quantity, **dict(self.conditions))
def paper_value(table: str, quantity: str, **conditions) -> float:
    """A paper number in SI: the one row of the ``data/`` table ``table`` with ``quantity`` and ``conditions``.

    The one lookup of a printed number for every study (figures that draw the paper beside the model, a
    calibration's reference runs); :meth:`Target.paper_value` is the same for a target's row.

    Parameters
    ----------
    table : str
        ``"<study>/<table>"``, e.g. ``"vcha2016/table05_throughput"``.
    quantity : str
        The ``quantity`` cell.
    **conditions
        Condition columns selecting exactly one row (e.g. ``clients=64, vcha="enabled"``).

    Returns
    -------
    float
        The value in SI units (ops/s, s, B, B/s; percent and ratios as fractions).

    Raises
    ------
    ValueError
        When no row or more than one row matches (:func:`vcperf.data.row`).

    Examples
    --------
    >>> from vcperf import protocol
    >>> round(protocol.paper_value("vcha2016/table05_throughput", "throughput", clients=64, vcha="enabled") * 60)
    2673
    """
    return data.value(table, quantity, "si", **conditions)


def target_paper_value(study, key: str) -> float:
    """The paper's value (SI) of the target ``key`` of ``study`` (:meth:`Target.paper_value`).

    Parameters
    ----------
    study : str or module
        A study name (``"contentlib2015"``) or its subpackage.
    key : str
        One of its target keys.

    Raises
    ------
    ValueError
        If ``key`` is not a target key of the study.

    Examples
    --------
    >>> from vcperf import protocol
    >>> protocol.target_paper_value("contentlib2015", "exp4_1g_time")
    1380.0
    """
    tmap = target_map(study_module(study))
    if key not in tmap:
        raise ValueError(f"key must be one of {list(tmap)}; got {key!r}")
    return tmap[key].paper_value()


def study_module(study):
    """The subpackage implementing ``study`` (a name of :data:`STUDY_MODULES`); a module passes through.

    Every protocol function takes a study either by name (``"vcha2016"``) or as its subpackage.
    """
    if isinstance(study, str):
        return studies.module(study)
    if not hasattr(study, "STUDY") or not hasattr(study, "targets"):
        raise ValueError(f"study must be a study name {list(STUDY_MODULES)} or a study subpackage; got {study!r}")
    return study



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
    if isinstance(fit_on, str | bytes) or not hasattr(fit_on, "__iter__"):
        raise ValueError(f"fit_on must be None or an iterable of target keys (str) of {study}; got {fit_on!r}")
    keys = tuple(fit_on)
    allowed = set(allowed) if allowed is not None else {t.key for t in targets if t.role != "bound"}
    bad = [k for k in keys if not isinstance(k, str) or k not in allowed]
    if bad:
        raise ValueError(f"fit_on must be one of the fit-able target keys of {study} ({sorted(allowed)}); got {bad}")
    return tuple(sorted(set(keys)))



def predict(study, params, keys=None) -> dict:
    """Model value (SI) of each target key of ``study`` under ``params``: ``target.model(params)``.

    The one implementation of prediction for every study: each :class:`Target` carries the model
    function that computes it from the study's parameters (and its test-bed facts).

    Parameters
    ----------
    study : str or module
        A study name (``"contentlib2015"``) or its subpackage.
    params : dataclass
        The study's ``Params``.
    keys : iterable of str, optional
        Target keys; default every target of the study.

    Returns
    -------
    dict
        key -> float (SI units; percent and ratios as fractions).

    Raises
    ------
    ValueError
        Naming a key that is not a target of the study.
    """
    module = study_module(study)
    tmap = target_map(module)
    keys = tuple(tmap) if keys is None else tuple(keys)
    bad = [k for k in keys if k not in tmap]
    if bad:
        raise ValueError(f"keys must be target keys of {module.STUDY}; got {bad}")
    missing = [k for k in keys if tmap[k].model is None]
    if missing:
        raise ValueError(f"every target of {module.STUDY} carries its model function; {missing} do not")
    return {k: float(tmap[k].model(params)) for k in keys}
