"""Reading the physical quantities of a site plan: a number in SI, or a string with its unit.

A plan is written by people, so a field may be ``10e6`` (SI: bit/s) or ``"10 Mbit/s"``, ``80`` or
``"80 ms"``, ``"64 GiB"``. Every value is converted here, once, to the SI unit of its field; an
unknown unit or a unit of the wrong kind is an error naming the field's path in the plan.

Unit names are matched regardless of case where that cannot change their meaning (``mbit/s``,
``MS``), never in the letter that tells bytes from bits: ``B`` is a byte and ``b`` a bit, so
``10 mb`` or ``10 MBps`` is refused as ambiguous. A number without a unit is SI, but one a person
would not mean in SI (an RTT of ``80``, a bandwidth of ``10``) is refused with a suggestion.
"""

from __future__ import annotations

import math
import re

from vcperf import _validate as v

__all__ = ["UNITS"]  # quantity() and choice() name the plan field, not their own arguments

#: Units by kind: name -> factor to SI (bit/s, s, B, B/s).
UNITS = {
    "rate": {"bit/s": 1.0, "bps": 1.0, "kbit/s": 1e3, "kbps": 1e3, "Mbit/s": 1e6, "Mbps": 1e6, "Gbit/s": 1e9,
             "Gbps": 1e9, "Tbit/s": 1e12},
    "time": {"s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "min": 60.0, "h": 3600.0},
    "size": {"B": 1.0, "kB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12, "KiB": 2.0**10, "MiB": 2.0**20,
             "GiB": 2.0**30, "TiB": 2.0**40},
    "byte_rate": {"B/s": 1.0, "kB/s": 1e3, "MB/s": 1e6, "GB/s": 1e9, "MiB/s": 2.0**20, "GiB/s": 2.0**30},
    "fraction": {"%": 1e-2},
    "count": {},
}

#: The SI unit of each kind, as an error message names it.
SI = {"rate": "bit/s", "time": "s", "size": "B", "byte_rate": "B/s", "fraction": "", "count": ""}


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


def quantity(path: str, value, kind: str, lo: float, hi: float, *, lo_open: bool = False,
             integer: bool = False, bare: tuple[float, float, str] | None = None) -> float:
    """The SI value of one plan field, checked against its physical range.

    Parameters
    ----------
    path : str
        The field's path in the plan (``"links[0].bandwidth"``), named by every error.
    value : float or str
        A number (already SI) or ``"<number> <unit>"`` with a unit of :data:`UNITS` ``[kind]``.
    kind : str
        A key of :data:`UNITS`.
    lo, hi : float
        The valid range in SI (``hi`` may be ``inf``).
    lo_open : bool
        Whether ``lo`` itself is excluded.
    integer : bool
        Whether the value must be a whole number.
    bare : (float, float, str), optional
        ``(lo, hi, unit)``: a positive number written without a unit outside ``[lo, hi]`` (SI) is
        refused as a likely missing ``unit`` (an RTT of ``80`` is not 80 s).

    Returns
    -------
    float

    Raises
    ------
    ValueError
        ``"<path> must be ...; got <value>"``.

    Examples
    --------
    >>> quantity("links[0].bandwidth", "10 Mbit/s", "rate", 0.0, 1e12, lo_open=True)
    10000000.0
    >>> quantity("links[0].rtt", "80 MS", "time", 0.0, 10.0)
    0.08
    >>> quantity("links[0].rtt", 80, "time", 0.0, 10.0, bare=(0.0, 10.0, "ms"))
    Traceback (most recent call last):
    ...
    ValueError: links[0].rtt 80 has no unit and would be 80 s: did you mean '80 ms'?
    """
    v.text("path", path)
    units = UNITS[v.choice("kind", kind, tuple(UNITS))]
    lo = float(v.scalar("lo", lo))
    hi = float(v.scalar("hi", hi, lo, math.inf))
    v.boolean("lo_open", lo_open)
    v.boolean("integer", integer)
    rng = f"{'(' if lo_open else '['}{lo:g}, {hi:g}{')' if math.isinf(hi) else ']'}"
    if isinstance(value, bool) or value is None:
        raise ValueError(f"{path} must be a number in {rng} (SI) or a string with a unit of {sorted(units)}; "
                         f"got {value!r}")
    unit = ""
    if isinstance(value, str):
        m = _NUMBER_UNIT.match(value)
        if not m:
            raise ValueError(f"{path} must be a number in {rng} with one of the units {sorted(units)}; "
                             f"got {value!r}")
        unit = _unit(path, value, m.group(2), kind, rng) if m.group(2) else ""
        x = float(m.group(1)) * (units[unit] if unit else 1.0)
    elif isinstance(value, int | float):
        x = float(value)
    else:
        raise ValueError(f"{path} must be a number in {rng}; got {value!r}")
    if bare is not None and not unit and x > 0 and not bare[0] <= x <= bare[1]:
        raise ValueError(f"{path} {value!r} has no unit and would be {x:g} {SI[kind]}: "
                         f"did you mean '{x:g} {bare[2]}'?")
    bad_lo = x <= lo if lo_open else x < lo
    if not math.isfinite(x) or bad_lo or x > hi:
        raise ValueError(f"{path} must be in {rng} (SI); got {value!r}")
    if integer and x != round(x):
        raise ValueError(f"{path} must be a whole number in {rng}; got {value!r}")
    return x


def _unit(path: str, value: str, unit: str, kind: str, rng: str) -> str:
    """The unit of ``UNITS[kind]`` that ``unit`` names (regardless of case except bytes/bits)."""
    units = UNITS[kind]
    if unit in units:
        return unit
    if fold(unit) in _FOLDED[kind]:
        return _FOLDED[kind][fold(unit)]
    alike = sorted(u for u in units if u.lower() == unit.lower())
    if alike or re.search("[bB]", unit) and any(fold(unit).lower() == fold(u).lower() for kk in UNITS
                                                 for u in UNITS[kk]):
        raise ValueError(f"{path} unit {unit!r} is ambiguous: 'B' is a byte and 'b' a bit, so the case of that "
                         f"letter counts; {path} takes one of the units {sorted(units)}; got {value!r}")
    raise ValueError(f"{path} must be a number in {rng} with one of the units {sorted(units)}; got {value!r}")


def choice(path: str, value, choices) -> str:
    """One of ``choices`` (a string field of the plan), or an error naming ``path`` and the choices.

    Examples
    --------
    >>> choice("migrations[0].release", "7.0u1", ("6.7", "7.0u1"))
    '7.0u1'
    """
    v.text("path", path)
    v.sequence("choices", choices, "a tuple of strings")
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"{path} must be one of {list(choices)}; got {value!r}")
    return value
