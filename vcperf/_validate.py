"""Input checks shared by every public function.

Each check raises ``ValueError`` naming the parameter, the offending value and the valid range,
before any work is done, e.g. ``rtt_s must be in [0, inf); got -0.01``.
Checks accept scalars or array-likes and return a float ndarray (or the scalar as 0-d array).
"""

from __future__ import annotations

import math

import numpy as np


def _fmt(x: float) -> str:
    if x == math.inf:
        return "inf"
    if x == -math.inf:
        return "-inf"
    return f"{x:g}"


def check_range(
    name: str,
    value,
    lo: float = -math.inf,
    hi: float = math.inf,
    *,
    lo_open: bool = False,
    hi_open: bool = False,
) -> np.ndarray:
    """Return ``value`` as a float array after checking every element lies in the interval.

    Parameters
    ----------
    name : str
        Parameter name, used in the error message.
    value : float or array_like
        Value(s) to check. NaN is always rejected.
    lo, hi : float
        Interval bounds.
    lo_open, hi_open : bool
        Whether the bound itself is excluded.

    Raises
    ------
    ValueError
        ``"<name> must be in [lo, hi); got <value>"`` naming the first offending element.
    """
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number; got {value!r}") from None
    bad = np.isnan(arr)
    bad |= (arr <= lo) if lo_open else (arr < lo)
    bad |= (arr >= hi) if hi_open else (arr > hi)
    if np.any(bad):
        first = arr[bad].flat[0] if arr.ndim else float(arr)
        interval = f"{'(' if lo_open else '['}{_fmt(lo)}, {_fmt(hi)}{')' if hi_open else ']'}"
        if lo == -math.inf:
            interval = interval.replace("[-inf", "(-inf")
        if hi == math.inf:
            interval = interval.replace("inf]", "inf)")
        raise ValueError(f"{name} must be in {interval}; got {first:g}")
    return arr


def nonneg(name: str, value) -> np.ndarray:
    """Check ``value >= 0`` (finite)."""
    return check_range(name, value, 0.0, math.inf, hi_open=True)


def positive(name: str, value) -> np.ndarray:
    """Check ``value > 0`` (finite)."""
    return check_range(name, value, 0.0, math.inf, lo_open=True, hi_open=True)


def fraction(name: str, value, *, hi_open: bool = True) -> np.ndarray:
    """Check ``0 <= value < 1`` (or ``<= 1`` with ``hi_open=False``)."""
    return check_range(name, value, 0.0, 1.0, hi_open=hi_open)


def integer(name: str, value, lo: int = 0, hi: float = math.inf) -> int:
    """Check a scalar integer in ``[lo, hi]`` and return it as ``int``."""
    if isinstance(value, bool) or not float(np.asarray(value, dtype=float)).is_integer():
        raise ValueError(f"{name} must be an integer in [{lo}, {_fmt(hi)}]; got {value!r}")
    check_range(name, value, lo, hi)
    return int(value)


def choice(name: str, value, options) -> str:
    """Check ``value`` is one of ``options``."""
    if value not in options:
        raise ValueError(f"{name} must be one of {sorted(options)}; got {value!r}")
    return value
