"""Reading the physical quantities of a site plan: a number in SI, or a string with its unit.

A plan is written by people, so a field may be ``10e6`` (SI: bit/s) or ``"10 Mbit/s"``, ``80`` or
``"80 ms"``, ``"64 GiB"``. Every value is converted here, once, to the SI unit of its field; an
unknown unit or a unit of the wrong kind is an error naming the field's path in the plan.
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

_NUMBER_UNIT = re.compile(r"^\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*(\S*)\s*$")


def quantity(path: str, value, kind: str, lo: float, hi: float, *, lo_open: bool = False,
             integer: bool = False) -> float:
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
    >>> quantity("links[0].rtt", "80 ms", "time", 0.0, 10.0)
    0.08
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
    if isinstance(value, str):
        m = _NUMBER_UNIT.match(value)
        if not m or (m.group(2) and m.group(2) not in units):
            raise ValueError(f"{path} must be a number in {rng} with one of the units {sorted(units)}; "
                             f"got {value!r}")
        x = float(m.group(1)) * (units[m.group(2)] if m.group(2) else 1.0)
    elif isinstance(value, int | float):
        x = float(value)
    else:
        raise ValueError(f"{path} must be a number in {rng}; got {value!r}")
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
