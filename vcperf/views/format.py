"""Numbers for people: the one set of formatters every view's readouts and labels use.

One unit family per quantity, the same in every panel:

* durations: ``µs``, ``ms``, ``s``, ``min``, ``h`` (:func:`fmt_duration`);
* bit rates: ``bit/s``, ``kbit/s``, ``Mbit/s``, ``Gbit/s``, ``Tbit/s`` (:func:`fmt_bps`);
* sizes: ``B``, ``kB``, ``MB``, ``GB``, ``TB``, **decimal** (1 kB = 1,000 B; 1 MB = 10^6 B), and the
  byte rates ``B/s`` ... ``GB/s`` (:func:`fmt_bytes`, :func:`fmt_bytes_per_s`);
* shares: ``%`` of a fraction (:func:`fmt_percent`);
* a model value with its predictive interval: ``"56.2 s (51.6–61.1 s, 90 %)"`` (:func:`fmt_band`).

Every number is written by :func:`fmt_num` (three significant digits, thousands separated, never in
exponent notation) followed by a space and its unit; the unit is the largest one in which the number
is at least 1 (durations: seconds up to 2 min, minutes up to 2 h).
"""

from __future__ import annotations

import math

__all__ = ["fmt_num", "fmt_duration", "fmt_bps", "fmt_bytes", "fmt_bytes_per_s", "fmt_percent", "fmt_band"]

#: Duration units, smallest first: (name, seconds per unit, the largest value shown in it).
_TIME_UNITS = (("µs", 1e-6, 1e-3), ("ms", 1e-3, 1.0), ("s", 1.0, 120.0), ("min", 60.0, 7200.0),
               ("h", 3600.0, math.inf))
#: Decimal prefixes for bit rates and sizes, smallest first.
_PREFIXES = (("", 1.0), ("k", 1e3), ("M", 1e6), ("G", 1e9), ("T", 1e12))


def fmt_num(x: float, sig: int = 3) -> str:
    """``x`` to at most ``sig`` significant digits, thousands separated, never in exponent notation.

    Trailing zeros are dropped; NaN is ``"n/a"``, infinities ``"∞"`` / ``"-∞"``.

    Parameters
    ----------
    x : float
        The number (any unit: the caller writes the unit).
    sig : int, optional
        Significant digits (default 3).

    Returns
    -------
    str

    Examples
    --------
    >>> fmt_num(1234567), fmt_num(0.000123), fmt_num(3.50), fmt_num(9.996)
    ('1,230,000', '0.000123', '3.5', '10')
    >>> fmt_num(float("nan"))
    'n/a'
    """
    x = float(x)
    if not math.isfinite(x):
        return "n/a" if math.isnan(x) else ("∞" if x > 0 else "-∞")
    if x == 0:
        return "0"
    digits = sig - 1 - math.floor(math.log10(abs(x)))
    r = round(x, digits)
    if r != 0 and math.floor(math.log10(abs(r))) != math.floor(math.log10(abs(x))):  # 9.996 -> 10.0
        digits -= 1
        r = round(x, digits)
    text = f"{r:,.{max(digits, 0)}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text  # "3.50" -> "3.5", "10.0" -> "10"


def _rounded(x: float, sig: int) -> float:
    """``x`` rounded to ``sig`` significant digits (so 0.9996 s picks the unit of 1 s, not of 999.6 ms)."""
    return float(f"{x:.{sig}g}")


def _scaled(x: float, unit: str, sig: int) -> str:
    """``x`` (>= 0, finite) with the largest decimal prefix of ``unit`` in which it is at least 1."""
    r = _rounded(x, sig)
    prefix, scale = _PREFIXES[0]
    for p, s in _PREFIXES:
        if r >= s:
            prefix, scale = p, s
    return f"{fmt_num(x / scale, sig)} {prefix}{unit}"


def _signed(x: float, fmt, *args) -> str | None:
    """The text of a non-finite or negative ``x`` (``fmt`` of its magnitude, signed); ``None`` otherwise."""
    if not math.isfinite(x):
        return "n/a" if math.isnan(x) else ("∞" if x > 0 else "-∞")
    if x < 0:
        return "-" + fmt(-x, *args)
    return None


def fmt_duration(t_s: float, sig: int = 3) -> str:
    """A duration in the unit people read it in: µs below 1 ms, ms below 1 s, s below 2 min, min below
    2 h, h above.

    Parameters
    ----------
    t_s : float
        The duration (s).
    sig : int, optional
        Significant digits (default 3).

    Returns
    -------
    str
        ``"<number> <unit>"``.

    Examples
    --------
    >>> [fmt_duration(t) for t in (4.2e-4, 0.00496, 0.85, 12.34, 130, 33177)]
    ['420 µs', '4.96 ms', '850 ms', '12.3 s', '2.17 min', '9.22 h']
    >>> fmt_duration(0.9996), fmt_duration(0)
    ('1 s', '0 s')
    """
    t = float(t_s)
    text = _signed(t, fmt_duration, sig)
    if text is not None:
        return text
    if t == 0:
        return "0 s"
    r = _rounded(t, sig)
    for unit, scale, below in _TIME_UNITS:
        if r < below:
            return f"{fmt_num(t / scale, sig)} {unit}"
    raise AssertionError("unreachable: the last unit has no upper limit")


def fmt_bps(rate_bps: float, sig: int = 3) -> str:
    """A bit rate (link, flow, traffic) in decimal units: ``bit/s``, ``kbit/s``, ``Mbit/s``, ``Gbit/s``.

    Parameters
    ----------
    rate_bps : float
        The rate (bit/s).
    sig : int, optional
        Significant digits (default 3).

    Returns
    -------
    str

    Examples
    --------
    >>> fmt_bps(64e3), fmt_bps(0.5e6), fmt_bps(1.5e6), fmt_bps(2.85e9), fmt_bps(1e9)
    ('64 kbit/s', '500 kbit/s', '1.5 Mbit/s', '2.85 Gbit/s', '1 Gbit/s')
    """
    b = float(rate_bps)
    text = _signed(b, fmt_bps, sig)
    return text if text is not None else _scaled(b, "bit/s", sig)


def fmt_bytes(n_bytes: float, sig: int = 3) -> str:
    """A size in decimal units (1 kB = 1,000 B, 1 MB = 10^6 B, 1 GB = 10^9 B).

    Parameters
    ----------
    n_bytes : float
        The size (B).
    sig : int, optional
        Significant digits (default 3).

    Returns
    -------
    str

    Examples
    --------
    >>> fmt_bytes(3.5e6), fmt_bytes(39e9), fmt_bytes(420e3), fmt_bytes(512)
    ('3.5 MB', '39 GB', '420 kB', '512 B')
    """
    b = float(n_bytes)
    text = _signed(b, fmt_bytes, sig)
    return text if text is not None else _scaled(b, "B", sig)


def fmt_bytes_per_s(rate: float, sig: int = 3) -> str:
    """A byte rate (a copy, a dirty rate, a stream) in decimal units: ``MB/s``, ``GB/s``, ...

    Parameters
    ----------
    rate : float
        The rate (B/s).
    sig : int, optional
        Significant digits (default 3).

    Returns
    -------
    str

    Examples
    --------
    >>> fmt_bytes_per_s(118e6), fmt_bytes_per_s(2.2e9)
    ('118 MB/s', '2.2 GB/s')
    """
    b = float(rate)
    text = _signed(b, fmt_bytes_per_s, sig)
    return text if text is not None else _scaled(b, "B/s", sig)


def fmt_percent(fraction: float, sig: int = 3) -> str:
    """A share given as a fraction, in percent: ``0.283 -> "28.3 %"``.

    Parameters
    ----------
    fraction : float
        The share (1 = 100 %).
    sig : int, optional
        Significant digits (default 3).

    Returns
    -------
    str

    Examples
    --------
    >>> fmt_percent(0.283), fmt_percent(1.0), fmt_percent(5e-4), fmt_percent(-0.0123)
    ('28.3 %', '100 %', '0.05 %', '-1.23 %')
    """
    return f"{fmt_num(100.0 * float(fraction), sig)} %"


def fmt_band(value: float, low: float, high: float, fmt=None, interval: float = 0.9) -> str:
    """A model value with its predictive interval: ``"56.2 s (51.6–61.1 s, 90 %)"``.

    Parameters
    ----------
    value, low, high : float
        The value and the interval's bounds, in the unit ``fmt`` takes.
    fmt : callable, optional
        Formats one number with its unit (default :func:`fmt_duration`, seconds). The unit is written
        once when both bounds are a plain ``"number unit"`` in the same unit.
    interval : float, optional
        The interval's coverage (default 0.9).

    Returns
    -------
    str
        Without an interval (NaN bounds: the paper's numbers do not determine the output) the text says
        so instead of showing a band.

    Examples
    --------
    >>> fmt_band(56.2, 51.6, 61.1)
    '56.2 s (51.6–61.1 s, 90 %)'
    >>> fmt_band(0.85, 0.7, 1.2)
    '850 ms (700 ms–1.2 s, 90 %)'
    >>> fmt_band(2e6, 1e6, 3e6, fmt=fmt_bps, interval=0.8)
    '2 Mbit/s (1–3 Mbit/s, 80 %)'
    >>> fmt_band(3.0, float("nan"), float("nan"))
    '3 s (no interval: not estimable)'
    """
    fmt = fmt_duration if fmt is None else fmt
    v_s = fmt(value)
    if not (math.isfinite(float(low)) and math.isfinite(float(high))):
        return f"{v_s} (no interval: not estimable)"
    lo_s, hi_s = fmt(low), fmt(high)
    lo_parts, hi_parts = lo_s.split(" "), hi_s.split(" ")
    if len(lo_parts) == 2 and len(hi_parts) == 2 and lo_parts[1] == hi_parts[1]:
        lo_s = lo_parts[0]
    return f"{v_s} ({lo_s}–{hi_s}, {100 * interval:.0f} %)"


#: Unit words :func:`fmt_in_unit` knows (anything else is written after the number).
_BY_UNIT = {"fraction": "percent", "1": "percent", "time": "duration", "s": "duration", "bit/s": "bps", "B": "bytes"}


def fmt_in_unit(x: float, unit: str, sig: int = 3) -> str:
    """``x`` written in ``unit`` with the formatter of that unit: a fraction as a percent, a time
    (``"time"`` or ``"s"``) as a duration, ``"bit/s"`` as a rate, ``"B"`` as a size; any other unit is
    written after the number (``"12 hosts"``). An infinite value reads ``∞`` (an overloaded link).

    Parameters
    ----------
    x : float
        The value, in SI (fractions as fractions).
    unit : str
        ``"fraction"``/``"1"``, ``"time"``/``"s"``, ``"bit/s"``, ``"B"``, or a word such as ``"hosts"``.
    sig : int, optional
        Significant digits (default 3).

    Examples
    --------
    >>> fmt_in_unit(0.6, "time"), fmt_in_unit(0.21, "fraction"), fmt_in_unit(2e6, "bit/s"), fmt_in_unit(12, "hosts")
    ('600 ms', '21 %', '2 Mbit/s', '12 hosts')
    >>> fmt_in_unit(float("inf"), "time")
    '∞'
    """
    if math.isinf(float(x)) and float(x) > 0:
        return "∞"
    kind = _BY_UNIT.get(unit)
    if kind is None:
        return f"{fmt_num(x, sig)} {unit}"
    return {"percent": fmt_percent, "duration": fmt_duration, "bps": fmt_bps, "bytes": fmt_bytes}[kind](x, sig)
