"""Units: the one table of unit names (read from text) and the one rule for writing numbers.

Every unit vcperf reads or writes is in :data:`UNITS` (by kind, each name with its factor to SI:
bit/s, s, B, B/s). A plan's ``"10 Mbit/s"`` is read with :func:`parse`; a readout, a label or a
sentence of prose writes a number with :func:`fmt_num` (significant digits, thousands separated,
never an exponent, trailing zeros dropped: ``9.996`` to 3 or 2 digits is ``"10"``) and a quantity in
the largest unit of its family in which it is at least 1 (:func:`fmt_duration`, :func:`fmt_bps`,
:func:`fmt_bytes`, :func:`fmt_bytes_per_s`, :func:`fmt_percent`).

Unit names are matched regardless of case where that cannot change their meaning (``mbit/s``,
``MS``), never in the letter that tells bytes from bits: ``B`` is a byte and ``b`` a bit, so
``10 mb`` is refused as ambiguous. Pure standard library.

Examples
--------
>>> parse("10 Mbit/s", "rate"), parse("80 MS", "time"), parse("64 GiB", "size")
((10000000.0, 'Mbit/s'), (0.08, 'ms'), (68719476736.0, 'GiB'))
>>> fmt_num(9.996), fmt_num(9.996, 2), fmt_duration(0.00496), fmt_bps(1.5e6)
('10', '10', '4.96 ms', '1.5 Mbit/s')
"""

from __future__ import annotations

import math
import re

__all__ = ["UNITS", "SI", "fold", "parse", "fmt_num", "fmt_duration", "fmt_bps", "fmt_bytes", "fmt_bytes_per_s",
           "fmt_percent", "fmt_band", "fmt_in_unit"]

#: Units by kind: name -> factor to SI (bit/s, s, B, B/s).
UNITS = {
    "rate": {"bit/s": 1.0, "bps": 1.0, "kbit/s": 1e3, "kbps": 1e3, "Mbit/s": 1e6, "Mbps": 1e6, "Gbit/s": 1e9,
             "Gbps": 1e9, "Tbit/s": 1e12},
    "time": {"s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "min": 60.0, "h": 3600.0},
    "size": {"B": 1.0, "kB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12, "KiB": 2.0**10, "MiB": 2.0**20,
             "GiB": 2.0**30, "TiB": 2.0**40},
    "byte_rate": {"B/s": 1.0, "kB/s": 1e3, "MB/s": 1e6, "GB/s": 1e9, "MiB/s": 2.0**20,
                  "GiB/s": 2.0**30},
    "fraction": {"%": 1e-2},
    "count": {},
}

#: The SI unit of each kind, as an error message names it.
SI = {"rate": "bit/s", "time": "s", "size": "B", "byte_rate": "B/s", "fraction": "", "count": ""}

#: The units numbers are written in, per kind, smallest first (decimal prefixes only: 1 MB = 10^6 B).
_WRITTEN = {"rate": ("bit/s", "kbit/s", "Mbit/s", "Gbit/s", "Tbit/s"), "size": ("B", "kB", "MB", "GB", "TB"),
            "byte_rate": ("B/s", "kB/s", "MB/s", "GB/s")}
#: Durations, smallest first: (unit, the largest value written in it, in s): seconds up to 2 min,
#: minutes up to 2 h.
_DURATIONS = (("µs", 1e-3), ("ms", 1.0), ("s", 120.0), ("min", 7200.0), ("h", math.inf))


def fold(unit: str) -> str:
    """A unit name with its case removed except in the byte/bit letter (``B`` byte, ``b`` bit).

    Examples
    --------
    >>> fold("MBIT/S") == fold("Mbit/s"), fold("mb") == fold("MB"), fold("MS") == fold("ms")
    (True, False, True)
    """
    unit = re.sub("(?i)bit", "@", unit)
    return "".join(c if c in "bB" else c.lower() for c in unit)


_FOLDED = {kind: {fold(u): u for u in units} for kind, units in UNITS.items()}
assert all(len(_FOLDED[k]) == len(UNITS[k]) for k in UNITS), "two units of a kind differ only in case"

_NUMBER_UNIT = re.compile(r"^\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*(\S*)\s*$")


def parse(text: str, kind: str, name: str = "value", expected: str = "a number") -> tuple[float, str]:
    """The SI value of ``"<number> <unit>"`` (or of a bare number, already SI) and the unit it was written in.

    Parameters
    ----------
    text : str
        E.g. ``"10 Mbit/s"``, ``"80 ms"``, ``"0.1 %"``, ``"1e6"``.
    kind : str
        A key of :data:`UNITS`.
    name : str, optional
        What ``text`` is (a plan field's path), named by every error.
    expected : str, optional
        What ``text`` must be, as an error says it (``"a number in [0, 10]"``).

    Returns
    -------
    (float, str)
        The value in SI and the unit's name as :data:`UNITS` spells it (``""`` for a bare number).

    Raises
    ------
    ValueError
        A text that is not a number and a unit of ``kind``, or a unit whose case makes it ambiguous
        (``"10 mb"``: bits or bytes?).

    Examples
    --------
    >>> parse("2 gbit/s", "rate"), parse("1.5", "time"), parse("0.1 %", "fraction")
    ((2000000000.0, 'Gbit/s'), (1.5, ''), (0.001, '%'))
    >>> parse("10 mb", "size", "links[0].buffer")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: links[0].buffer unit 'mb' is ambiguous: 'B' is a byte and 'b' a bit, so the case of that ...
    """
    if not isinstance(kind, str) or kind not in UNITS:
        raise ValueError(f"kind must be one of {sorted(UNITS)}; got {kind!r}")
    m = _NUMBER_UNIT.match(text) if isinstance(text, str) else None
    if not m:
        raise ValueError(f"{name} must be {expected} with one of the units {sorted(UNITS[kind])}; got {text!r}")
    unit = _unit(name, text, m.group(2), kind, expected) if m.group(2) else ""
    return float(m.group(1)) * (UNITS[kind][unit] if unit else 1.0), unit


def _unit(name: str, text: str, unit: str, kind: str, expected: str) -> str:
    """The unit of ``UNITS[kind]`` that ``unit`` names (regardless of case except bytes/bits)."""
    units = UNITS[kind]
    if unit in units:
        return unit
    if fold(unit) in _FOLDED[kind]:
        return _FOLDED[kind][fold(unit)]
    alike = sorted(u for u in units if u.lower() == unit.lower())
    if alike or re.search("[bB]", unit) and any(fold(unit).lower() == fold(u).lower() for kk in UNITS
                                                 for u in UNITS[kk]):
        raise ValueError(f"{name} unit {unit!r} is ambiguous: 'B' is a byte and 'b' a bit, so the case of that "
                         f"letter counts; {name} takes one of the units {sorted(units)}; got {text!r}")
    raise ValueError(f"{name} must be {expected} with one of the units {sorted(units)}; got {text!r}")


def fmt_num(x: float, sig: int = 3) -> str:
    """``x`` to at most ``sig`` significant digits, thousands separated, never in exponent notation.

    The one rule every number written for people follows (readouts, labels, tables, prose): trailing
    zeros are dropped, a value that rounds up to the next power of ten keeps ``sig`` digits of it
    (``9.996`` -> ``"10"``, not ``"10.0"``); NaN is ``"n/a"``, infinities ``"∞"`` / ``"-∞"``.

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
    >>> fmt_num(1234567), fmt_num(0.000123), fmt_num(3.50), fmt_num(9.996), fmt_num(9.996, 2)
    ('1,230,000', '0.000123', '3.5', '10', '10')
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


def _scaled(x: float, kind: str, sig: int) -> str:
    """``x`` in the largest written unit of ``kind`` in which its magnitude is at least 1 (signed; ``n/a``, ``∞``)."""
    x = float(x)
    text = _signed(x, _scaled, kind, sig)
    if text is not None:
        return text
    r = _rounded(x, sig)
    unit = _WRITTEN[kind][0]
    for u in _WRITTEN[kind]:
        if r >= UNITS[kind][u]:
            unit = u
    return f"{fmt_num(x / UNITS[kind][unit], sig)} {unit}"


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
    unit = next(u for u, below in _DURATIONS if r < below)
    return f"{fmt_num(t / UNITS['time'][unit], sig)} {unit}"


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
    return _scaled(rate_bps, "rate", sig)


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
    return _scaled(n_bytes, "size", sig)


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
    return _scaled(rate, "byte_rate", sig)


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
_BY_UNIT = {"fraction": fmt_percent, "1": fmt_percent, "time": fmt_duration, "s": fmt_duration,
            "bit/s": fmt_bps, "B": fmt_bytes}


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
    fmt = _BY_UNIT.get(unit)
    return f"{fmt_num(x, sig)} {unit}" if fmt is None else fmt(x, sig)
