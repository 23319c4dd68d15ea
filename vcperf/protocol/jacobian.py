"""Parameter vectors and the fit's Jacobian: finite-difference sensitivities of a study's targets to
its parameters, numerical rank and the estimability test."""

from __future__ import annotations

import dataclasses

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

    Central finite differences on each parameter's own scale (forward where the parameter set refuses
    the step below, a parameter at the bottom of its physical range). Rows are scaled by the paper value so
    that targets in different units weigh alike.
    """
    names = param_names(params)
    x = np.array([_get(params, n) for n in names])
    tmap = target_map(module)
    scale = np.array([max(abs(tmap[k].paper_value()), 1e-300) for k in keys])
    h = _steps(x)
    cols = []
    for i, name in enumerate(names):
        up = predict(module, with_values(params, {name: x[i] + h[i]}), keys)
        try:
            dn, span = predict(module, with_values(params, {name: x[i] - h[i]}), keys), 2 * h[i]
        except ValueError:  # a parameter at the bottom of its range (0, a refit's underflow): one-sided
            dn, span = predict(module, params, keys), h[i]
        d = (np.array([up[k] for k in keys]) - np.array([dn[k] for k in keys])) / span
        cols.append(d * max(abs(x[i]), 1e-12) / scale)
    jac = np.column_stack(cols) if cols else np.zeros((len(keys), 0))
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
