"""Parameter vectors, the one finite-difference gradient of a model output with respect to a study's
parameters (:func:`value_and_gradient`: the fit's Jacobian, the ledger's bands and every what-if band),
numerical rank and the estimability test."""

from __future__ import annotations

import dataclasses
import functools
import math

import numpy as np

from vcperf.protocol.targets import predict, target_map

#: Relative step of the finite-difference Jacobian (on each parameter's own scale).
JACOBIAN_STEP = 1e-6
#: A direction counts as determined by the fit when at most this share of it lies outside the row
#: space of the fit's Jacobian; singular values below ``RANK_TOL`` x the largest count as zero.
ESTIMABLE_TOL = 1e-3
RANK_TOL = 1e-7



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
    return np.array([nested_value(params, n) for n in param_names(params)], dtype=float)


def nested_value(params, name: str):
    """The field ``name`` of ``params``, dotted through sub-dataclasses (``"hostsync.per_vm_bytes"``)."""
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


#: A perturbed parameter set that its dataclass rejects, or where the model raises ValueError (a
#: parameter at the edge of its domain).
_REJECTED = object()


def _perturbed(p0, name: str, x: float):
    try:
        return with_values(p0, {name: x})
    except ValueError:
        return _REJECTED


def _perturb(p0) -> tuple:
    """``(name, x, h, params at x + h, params at x - h)`` for every parameter of ``p0``: ``h`` is
    ``JACOBIAN_STEP`` on the parameter's own scale (0 for a parameter that is not finite: no gradient)."""
    out = []
    for name in param_names(p0):
        x = float(nested_value(p0, name))
        if not math.isfinite(x):
            out.append((name, x, 0.0, None, None))
            continue
        h = JACOBIAN_STEP * max(abs(x), 1e-12)
        out.append((name, x, h, _perturbed(p0, name, x + h), _perturbed(p0, name, x - h)))
    return tuple(out)


_perturb_cached = functools.lru_cache(maxsize=32)(_perturb)


def _perturbations(p0) -> tuple:
    """:func:`_perturb`, cached for hashable (frozen, scalar) parameters: a calibration's perturbed sets
    are built once, not on every evaluation."""
    try:
        hash(p0)
    except TypeError:  # array-valued parameters: built each time
        return _perturb(p0)
    return _perturb_cached(p0)


def _run(fn, q):
    """``fn(q)``, or ``_REJECTED`` where ``q`` is rejected or ``fn`` raises ValueError (outside its domain)."""
    if q is _REJECTED:
        return _REJECTED
    try:
        return fn(q)
    except ValueError:
        return _REJECTED


def value_and_gradient(fn, params, reads=None, many=None) -> tuple[np.ndarray, np.ndarray]:
    """``(fn(params), d fn / d parameter x |parameter|)``: the one gradient of every band in vcperf.

    Central differences of ``JACOBIAN_STEP`` on each parameter's own scale (Bates & Watts 1988), one
    pair of calls per parameter (each call vectorised over the output's inputs); one-sided where the
    parameter set or the model refuses one side (a parameter at the edge of its domain). The
    gradient's last axis runs over :func:`param_names`; it is a log-parameter sensitivity (the scale
    of :class:`~vcperf.protocol.misfit.FitUncertainty`'s covariance). An infinite output has a NaN
    gradient (no band).

    Parameters
    ----------
    fn : callable
        ``fn(params) -> array``.
    params : dataclass
        The study's ``Params`` to differentiate at.
    reads : collection of str, optional
        The parameter names ``fn`` reads (None: all); every other one has a gradient of exactly 0 and
        is not evaluated.
    many : callable, optional
        ``many(list of params) -> list of outputs``: ``params`` and the perturbed sets in one batched call
        (where it raises ValueError, one is outside the model's domain: then each is evaluated alone).

    Raises
    ------
    ValueError
        Where a parameter has no neighbour inside its model's domain (the model's own error).

    Examples
    --------
    >>> from vcperf import contentlib
    >>> from vcperf.protocol import value_and_gradient
    >>> p = contentlib.calibrate()
    >>> value, g = value_and_gradient(lambda q: contentlib.deploy_time_s("streaming", 39e9, params=q), p)
    >>> g.shape == (len(param_names(p)),) and bool(value > 0)
    True
    """
    steps = _perturbations(params)
    todo = [s for s in steps if s[2] and (reads is None or s[0] in reads or _REJECTED in s[3:])]
    done = {}
    if many is not None:
        qs = [params] + [q for s in todo for q in s[3:] if q is not _REJECTED]
        try:
            done = dict(zip(map(id, qs), many(qs), strict=True))
        except ValueError:
            done = {}
    value = np.asarray(done[id(params)] if id(params) in done else fn(params), dtype=float)
    grads = []
    for name, x, h, up_p, dn_p in steps:
        if not h or (reads is not None and name not in reads and _REJECTED not in (up_p, dn_p)):
            grads.append(np.zeros_like(value))
            continue
        up, dn = (done[id(q)] if id(q) in done else _run(fn, q) for q in (up_p, dn_p))
        if up is not _REJECTED and dn is not _REJECTED:
            span = 2 * h
        elif up is not _REJECTED:  # a parameter at the bottom of its range (0, a refit's underflow): one-sided
            dn, span = value, h
        elif dn is not _REJECTED:
            up, span = value, h
        else:  # neither side is inside the domain: the model's own error, as evaluated alone
            fn(with_values(params, {name: x - h}))
            raise ValueError(f"params: {name} = {x!r} has no neighbour inside its model's domain")
        with np.errstate(invalid="ignore"):  # an infinite answer (overload) has no gradient: no band
            grads.append((np.asarray(up, float) - np.asarray(dn, float)) / span * max(abs(x), 1e-12))
    return value, np.stack(grads, axis=-1) if grads else np.zeros(value.shape + (0,))


def jacobian(module, params, keys) -> tuple[np.ndarray, list[str]]:
    """d(model / |paper|) / d(parameter / |parameter|) for ``keys``: rows keys, columns parameters.

    :func:`value_and_gradient` of the targets' :func:`~vcperf.protocol.targets.predict`; rows are
    scaled by the paper value so that targets in different units weigh alike (a non-finite entry is 0).
    """
    keys = tuple(keys)
    names = param_names(params)
    tmap = target_map(module)
    scale = np.array([max(abs(tmap[k].paper_value()), 1e-300) for k in keys])
    if not keys:
        return np.zeros((0, len(names))), names

    def values(p):
        out = predict(module, p, keys)
        return np.array([out[k] for k in keys])

    _, grad = value_and_gradient(values, params)
    jac = grad / scale[:, None]
    jac[~np.isfinite(jac)] = 0.0
    return jac, names


#: Row spaces of the Jacobians seen in this process (by their bytes): a study's interval bands test
#: every target against the same fit Jacobian, one SVD instead of one per target.
_ROW_SPACES: dict = {}
_ROW_SPACES_MAX = 16


def _row_space(jac: np.ndarray) -> np.ndarray:
    """Orthonormal basis (columns, read-only) of the row space of ``jac``."""
    if jac.size == 0:
        return np.zeros((jac.shape[1], 0))
    key = (jac.shape, jac.dtype.str, np.ascontiguousarray(jac).tobytes())
    basis = _ROW_SPACES.get(key)
    if basis is None:
        _, s, vt = np.linalg.svd(jac, full_matrices=False)
        rank = int((s > RANK_TOL * max(s.max(initial=0.0), 1e-300)).sum())
        basis = vt[:rank].T
        basis.flags.writeable = False
        if len(_ROW_SPACES) >= _ROW_SPACES_MAX:
            _ROW_SPACES.clear()
        _ROW_SPACES[key] = basis
    return basis


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


def estimable_rows(jac: np.ndarray, grads: np.ndarray) -> np.ndarray:
    """:func:`estimable` of each gradient along the last axis of ``grads`` (one projection for them all)."""
    grads = np.asarray(grads, dtype=float)
    if grads.ndim == 1:
        return np.asarray(estimable(jac, grads))
    flat = grads.reshape(-1, grads.shape[-1])
    finite = np.isfinite(flat).all(axis=1)
    flat = np.where(finite[:, None], flat, 0.0)
    flat = flat / np.maximum(np.abs(flat).max(axis=1, initial=0.0), 1e-300)[:, None]  # no overflow in norms
    basis = _row_space(jac)
    norm = np.linalg.norm(flat, axis=1)
    resid = np.linalg.norm(flat - (flat @ basis) @ basis.T, axis=1)
    return (finite & ((resid <= ESTIMABLE_TOL * norm) | (norm == 0.0))).reshape(grads.shape[:-1])

