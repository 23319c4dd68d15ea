"""Reading the physical quantities of a site plan: a number in SI, or a string with its unit.

A plan is written by people, so a field may be ``10e6`` (SI: bit/s) or ``"10 Mbit/s"``, ``80`` or
``"80 ms"``, ``"64 GiB"``. Every value is converted here, once, to the SI unit of its field, with
the one unit table and reader, :mod:`vcperf.units` (case-insensitive except bytes vs bits); an
unknown unit or a unit of the wrong kind is an error naming the field's path in the plan. A number
without a unit is SI, but one a person would not mean in SI (an RTT of ``80``, a bandwidth of ``10``)
is refused with a suggestion.
"""

from __future__ import annotations

import math

from vcperf import _validate as v
from vcperf import units
from vcperf.units import SI, UNITS

__all__ = ["UNITS", "SI"]  # quantity() and choice() name the plan field, not their own arguments

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
    known = UNITS[v.choice("kind", kind, tuple(UNITS))]
    lo = float(v.scalar("lo", lo))
    hi = float(v.scalar("hi", hi, lo, math.inf))
    v.boolean("lo_open", lo_open)
    v.boolean("integer", integer)
    rng = f"{'(' if lo_open else '['}{lo:g}, {hi:g}{')' if math.isinf(hi) else ']'}"
    if isinstance(value, bool) or value is None:
        raise ValueError(f"{path} must be a number in {rng} (SI) or a string with a unit of {sorted(known)}; "
                         f"got {value!r}")
    unit = ""
    if isinstance(value, str):
        x, unit = units.parse(value, kind, path, f"a number in {rng}")
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
