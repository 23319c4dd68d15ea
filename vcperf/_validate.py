"""Input checks shared by every public function: the one validation layer.

Each check raises ``ValueError`` naming the parameter, the offending value and the valid range,
before any work is done, e.g. ``rtt_s must be in [0, inf); got -0.01``.

* real numbers (:func:`real`, :func:`check_range`, :func:`nonneg`, :func:`positive`,
  :func:`fraction`): scalars or array-likes of ints/floats, returned as a float ndarray (0-d for a
  scalar). ``bool``, strings, ``None``, complex numbers and object arrays are never numbers;
* integers (:func:`integer` for one scalar, :func:`integers` for arrays);
* choices (:func:`choice`: one hashable option, never an array), booleans (:func:`boolean`: a real
  ``bool``, never the string ``"no"``), objects of a type (:func:`instance`, :func:`link`);
* shapes (:func:`broadcast`): array parameters that must broadcast together, naming the ones that
  disagree; :func:`array` / :func:`ndim` name the parameter of a ragged nesting;
* physical ranges (:func:`count`, :func:`size_bytes`, :func:`rate_bps`, :func:`duration_s`; :data:`MAX_COUNT`
  and its siblings): generous bounds that keep every derived quantity finite, so that an error names
  the user's argument, never a quantity computed from it.

Ragged nestings, 0-d object arrays, ints and long doubles beyond float range, complex numbers, dates
and durations are refused naming the parameter; a value of a type the parameter never takes raises
:class:`InputTypeError` (a ``TypeError`` and a ``ValueError``).

The model code never sees a value these checks have not accepted: ``tcp_throughput_bps(True, 0.05)``
is an error, not 1 bit/s.
"""

from __future__ import annotations

import datetime
import math

import numpy as np

#: Numbers that are never a choice nor a real number here: complex, dates and durations (numpy's
#: datetime64/timedelta64 arrays are refused by their dtype).
_NOT_A_CHOICE = (complex, np.complexfloating, datetime.date, datetime.timedelta, np.datetime64, np.timedelta64)
#: Types that are never a real number here.
_NEVER_REAL = (bool, np.bool_, str, bytes, *_NOT_A_CHOICE)


class InputTypeError(ValueError, TypeError):
    """A value of a type the parameter never takes (a string, a bool, a complex number, a timedelta, an
    object array). A ``TypeError``, and a ``ValueError`` too, as every input error of the package is."""


def _fmt(x: float) -> str:
    if x == math.inf:
        return "inf"
    if x == -math.inf:
        return "-inf"
    return str(x) if isinstance(x, int) else f"{x:g}"


#: Physical ranges of the package's inputs, generous by orders of magnitude (a vSphere host runs about a
#: thousand VMs, a link carries at most Tbit/s), so that every quantity a model derives from them stays
#: finite and an error names the user's argument, never a derived one (issue 42).
MAX_COUNT = 1e9  # VMs, hosts, clients, streams, transactions per second
MAX_BYTES = 1e18  # one exabyte: any size, window, working set or state
MIN_RATE_BPS, MAX_RATE_BPS = 1.0, 1e15  # 1 bit/s .. 1 Pbit/s
MIN_DURATION_S, MAX_DURATION_S = 1e-9, 1e12  # 1 ns .. 31,700 years
MAX_RATIO = 1e6  # a dimensionless ratio (bytes logged per byte received, uplink / downlink)


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
    # Fast path for the common scalar (a Python or numpy float/int, or a 0-d float array): the same
    # checks in plain Python, which the inner model calls make thousands of times per update.
    kind = type(value)
    if kind is float or kind is np.float64 or (kind is int and -(2**63) <= value < 2**64) or (
            kind is np.ndarray and value.ndim == 0 and value.dtype.kind == "f"):
        x = float(value)
        if x == x and (x > lo if lo_open else x >= lo) and (x < hi if hi_open else x <= hi):
            return np.array(x)
    arr = real(name, value)
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


def count(name: str, value, lo: float = 0.0) -> np.ndarray:
    """Check a count (VMs, hosts, streams; real, not necessarily whole) in ``[lo, MAX_COUNT]``."""
    return check_range(name, value, lo, MAX_COUNT)


def size_bytes(name: str, value, *, lo_open: bool = False) -> np.ndarray:
    """Check a size in bytes in ``[0, MAX_BYTES]`` (``(0, ...]`` with ``lo_open``)."""
    return check_range(name, value, 0.0, MAX_BYTES, lo_open=lo_open)


def rate_bps(name: str, value) -> np.ndarray:
    """Check a link rate in ``[MIN_RATE_BPS, MAX_RATE_BPS]`` bit/s."""
    return check_range(name, value, MIN_RATE_BPS, MAX_RATE_BPS)


def duration_s(name: str, value, lo: float = 0.0) -> np.ndarray:
    """Check a duration in ``[lo, MAX_DURATION_S]`` seconds (``lo=MIN_DURATION_S`` for a divisor)."""
    return check_range(name, value, lo, MAX_DURATION_S)


def fraction(name: str, value, *, hi_open: bool = True) -> np.ndarray:
    """Check ``0 <= value < 1`` (or ``<= 1`` with ``hi_open=False``)."""
    return check_range(name, value, 0.0, 1.0, hi_open=hi_open)


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def real(name: str, value) -> np.ndarray:
    """Return ``value`` as a float ndarray if it is a real number or an array of them.

    Rejects ``bool`` (and boolean arrays), strings, bytes, ``None``, complex numbers and anything
    numpy only holds as an object array, naming ``name``. NaN and inf pass (the range checks
    reject them).
    """
    if value is None or isinstance(value, _NEVER_REAL):
        raise InputTypeError(f"{name} must be a real number (or an array of them); got {_short(value)} "
                             f"({type(value).__name__})")
    if isinstance(value, int):  # a Python int of any size: numpy holds those beyond 64 bits as objects
        try:
            return np.array(float(value))
        except OverflowError:
            raise ValueError(f"{name} must be a real number in float range (|x| <= 1.8e308); "
                             f"got an integer of {value.bit_length()} bits") from None
    try:
        raw = np.asarray(value)
    except (TypeError, ValueError, OverflowError):  # ragged nesting ("setting an array element with a sequence")
        raise ValueError(f"{name} must be a real number or a rectangular array of them; got {_short(value)} "
                         f"(ragged nesting)") from None
    if raw.dtype.kind not in "iuf":
        what = ("an empty list of unknown type" if raw.size == 0 and raw.dtype.kind == "O" else
                f"a 0-d array of dtype {raw.dtype}" if raw.ndim == 0 else f"dtype {raw.dtype}")
        raise InputTypeError(f"{name} must be a real number (or an array of them); got {_short(value)} ({what})")
    if raw.dtype.kind == "f" and raw.dtype.itemsize > 8:  # long double: beyond float64's range becomes inf
        with np.errstate(all="ignore"):
            big = np.isfinite(raw) & (np.abs(raw) > np.finfo(np.float64).max)
        if np.any(big):
            raise ValueError(f"{name} must be a real number in float range (|x| <= 1.8e308); got "
                             f"{raw[big].flat[0]!s} (a long double beyond float64)")
    return raw.astype(float)


def finite(name: str, value) -> np.ndarray:
    """Check every element is a finite real number."""
    return check_range(name, value, -math.inf, math.inf, lo_open=True, hi_open=True)


def integer(name: str, value, lo: int = 0, hi: float = math.inf) -> int:
    """Check one scalar integer in ``[lo, hi]`` and return it as ``int`` (arrays, bools, strings,
    NaN and non-integral floats are rejected)."""
    rng = f"an integer in [{lo}, {_fmt(hi)}]"
    if isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "iuf":
        value = value[()]
    if isinstance(value, _NEVER_REAL) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise InputTypeError(f"{name} must be {rng}; got {_short(value)} ({type(value).__name__})")
    if isinstance(value, int) and value.bit_length() > 64:  # beyond int64 (and perhaps float): never a count here
        raise ValueError(f"{name} must be in [{lo}, {_fmt(hi)}] (an integer of at most 64 bits); got an integer "
                         f"of {value.bit_length()} bits")
    if not math.isfinite(float(value)) or not float(value).is_integer():
        raise ValueError(f"{name} must be {rng}; got {_short(value)}")
    if not lo <= value <= hi:
        raise ValueError(f"{name} must be in [{lo}, {_fmt(hi)}] (an integer); got {_short(value)}")
    return int(value)


def integers(name: str, value, lo: float = 0, hi: float = math.inf) -> np.ndarray:
    """Check integers (scalar or array) in ``[lo, hi]``; return them as an int64 array."""
    arr = check_range(name, value, lo, hi)
    frac = arr != np.round(arr)
    if np.any(frac):
        raise ValueError(f"{name} must be integers in [{_fmt(lo)}, {_fmt(hi)}]; got {arr[frac].flat[0]:g}")
    return arr.astype(np.int64)


def choice(name: str, value, options):
    """Check ``value`` is one of ``options`` (a single hashable value: arrays and lists are rejected)."""
    try:
        ok = not isinstance(value, (np.ndarray, list, dict, set, *_NOT_A_CHOICE)) and value in options
    except (TypeError, ValueError):  # unhashable, or an array compared element-wise
        ok = False
    if not ok or isinstance(value, (bool, np.bool_)) and not any(isinstance(o, bool) for o in options):
        listed = sorted(options, key=str)
        raise ValueError(f"{name} must be one of {listed}; got {_short(value)}")
    return value


def boolean(name: str, value) -> bool:
    """Check a real boolean (``True``/``False`` or a numpy bool); strings such as ``"no"`` are errors."""
    if isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind == "b":
        value = value[()]
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False; got {_short(value)}")
    return bool(value)


def instance(name: str, value, cls, what: str | None = None):
    """Check ``value`` is an instance of ``cls`` (a class or a tuple of classes)."""
    if not isinstance(value, cls):
        if what is None:
            classes = cls if isinstance(cls, tuple) else (cls,)
            what = " or ".join(f"a {c.__module__}.{c.__qualname__}" for c in classes)
        raise ValueError(f"{name} must be {what}; got {_short(value)}")
    return value


def mapping(name: str, value, what: str = "a dict"):
    """Check ``value`` is a non-empty mapping."""
    from collections.abc import Mapping

    if not isinstance(value, Mapping) or not value:
        raise ValueError(f"{name} must be {what}; got {_short(value)}")
    return value


def _shape(x) -> tuple:
    try:
        return np.shape(x)
    except (TypeError, ValueError):  # a ragged or odd value: its own check names it
        return ()


def array(name: str, value) -> np.ndarray:
    """``np.asarray(value)``, or ``ValueError`` naming ``name`` for a ragged nesting (numpy's "setting an
    array element with a sequence"), an int beyond 64 bits or anything numpy cannot hold as an array."""
    if isinstance(value, np.ndarray):
        return value
    try:
        return np.asarray(value)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{name} must be a number or a rectangular array; got {_short(value)} "
                         f"(ragged nesting)") from None


def ndim(name: str, value) -> int:
    """The number of dimensions of ``value`` (:func:`array`'s checks: a ragged nesting names ``name``)."""
    return array(name, value).ndim


def broadcast(**named) -> tuple[int, ...]:
    """The broadcast shape of the named arrays, or ``ValueError`` naming the parameters that disagree.

    ``broadcast(size_bytes=a, rtt_s=b)`` -> ``a`` and ``b``'s common shape;
    ``"size_bytes (shape (2,)) and rtt_s (shape (3,)) must broadcast together"`` if they do not.
    """
    shapes = {k: _shape(x) for k, x in named.items()}
    distinct = set(shapes.values())
    if len(distinct) <= 1:  # all the same shape (often all scalars): nothing to disagree
        return distinct.pop() if distinct else ()
    try:
        return np.broadcast_shapes(*distinct)
    except ValueError:
        pass  # find the pair that disagrees, to name it
    seen: dict[str, tuple] = {}
    for key, shape in shapes.items():
        for other, oshape in seen.items():
            try:
                np.broadcast_shapes(shape, oshape)
            except ValueError:
                raise ValueError(
                    f"{other} (shape {oshape}) and {key} (shape {shape}) must broadcast together"
                ) from None
        seen[key] = shape
    try:
        return np.broadcast_shapes(*shapes.values())
    except ValueError:  # pragma: no cover - pairwise compatible shapes always broadcast
        listed = ", ".join(f"{k} {s}" for k, s in shapes.items())
        raise ValueError(f"shapes must broadcast against each other; got {listed}") from None


def scalar(name: str, value, lo: float = -math.inf, hi: float = math.inf, *, lo_open: bool = False,
           hi_open: bool = False) -> float:
    """:func:`check_range` for a parameter that takes one number, not an array; returns a float."""
    arr = check_range(name, value, lo, hi, lo_open=lo_open, hi_open=hi_open)
    if arr.ndim:
        raise ValueError(f"{name} must be a single number, not an array; got shape {arr.shape}")
    return float(arr)


def single(**named) -> None:
    """Check every named value is one number, not an array (``x must be a single number ...``)."""
    for name, value in named.items():
        shape = _shape(value)
        if shape != ():
            raise ValueError(f"{name} must be a single number, not an array; got shape {shape}")


def sequence(name: str, value, what: str):
    """Check ``value`` is a tuple or list (not a string); return it as a tuple."""
    if not isinstance(value, (tuple, list)):
        raise ValueError(f"{name} must be {what}; got {_short(value)}")
    return tuple(value)


def text(name: str, value, what: str = "a string"):
    """Check ``value`` is a ``str`` (bytes, numbers, arrays and ``None`` are rejected); return it."""
    if not isinstance(value, str):
        raise ValueError(f"{name} must be {what}; got {_short(value)}")
    return value


def optional(check, name: str, value, *args, **kwargs):
    """``None`` passes through; any other value goes to ``check(name, value, *args, **kwargs)``."""
    return None if value is None else check(name, value, *args, **kwargs)


def existing_file(name: str, value, what: str = "an existing file"):
    """Check ``value`` is a path (``str`` or ``os.PathLike``, not bytes) of an existing file; return a Path."""
    import os
    from pathlib import Path

    if not isinstance(value, (str, os.PathLike)) or isinstance(value, bytes):
        raise ValueError(f"{name} must be the path of {what}; got {_short(value)}")
    path = Path(value)
    if not str(value).strip() or not path.is_file():
        raise ValueError(f"{name} must be the path of {what}; got {_short(str(value))} (no such file)")
    return path


#: The kinds of :class:`Flag`: what an input or an answer lies beyond.
FLAG_KINDS = ("unsupported", "beyond_default", "overload", "saturated", "memory", "fallback", "extrapolation",
              "assumed")


class Flag(str):
    """A flag on a result: the sentence a reader sees (the string itself) with its structure.

    Inputs beyond a documented limit, and answers off the measured test bed, are computed and
    *flagged*, never refused nor clamped. A flag stays a ``str`` (printed, searched, compared as
    before) and carries what a program needs: ``kind`` (one of :data:`FLAG_KINDS`), ``limit`` (the
    limit or measured value crossed, in the unit of ``name``), ``value`` (the input's or answer's
    value), ``name`` (the parameter or quantity) and ``source`` (where the limit is stated: a document,
    a ``data/`` table, the seed). Immutable.

    Examples
    --------
    >>> from vcperf._validate import Flag
    >>> f = Flag("vcpus=2 is below the smallest appliance VCHA supports", kind="unsupported", name="vcpus",
    ...          limit=4.0, value=2.0, source="seed, Table 1")
    >>> f.startswith("vcpus=2"), f.kind, f.limit
    (True, 'unsupported', 4.0)
    """

    def __new__(cls, text: str, *, kind: str, name: str = "", limit=None, value=None, source: str = ""):
        if kind not in FLAG_KINDS:
            raise ValueError(f"kind must be one of {FLAG_KINDS}; got {kind!r}")
        self = super().__new__(cls, text)
        for attr, x in (("kind", kind), ("name", name), ("limit", limit), ("value", value), ("source", source)):
            object.__setattr__(self, attr, x)
        return self

    def __setattr__(self, attr, x):
        raise AttributeError(f"Flag is immutable; cannot set {attr}")

    def __reduce__(self):
        return (_make_flag, (str(self), self.kind, self.name, self.limit, self.value, self.source))

    def as_dict(self) -> dict:
        """``{"text", "kind", "name", "limit", "value", "source"}`` (for JSON)."""
        return {"text": str(self), "kind": self.kind, "name": self.name, "limit": self.limit, "value": self.value,
                "source": self.source}


def _make_flag(text, kind, name, limit, value, source):
    return Flag(text, kind=kind, name=name, limit=limit, value=value, source=source)
