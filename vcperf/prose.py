"""Numbers in prose: format computed values the way the notebooks' text states them.

The notebooks never type a model number into their prose (a refit would make it wrong); they render
it from the computed value, e.g. ``Markdown(f"Exp 4 gains about {prose.sig(gain_s)} s")``. These
helpers only format: significant figures (:func:`vcperf.units.fmt_num`'s rule), signed percentages,
ratios. Pure standard library + numpy.

Examples
--------
>>> from vcperf import prose
>>> prose.sig(123.4), prose.pct(-0.0213, 1, signed=True), prose.times(3.214)
('120', '-2.1 %', '3.2x')
"""

from __future__ import annotations

import numpy as np

from vcperf import units

__all__ = ["sig", "num", "pct", "times"]


def sig(x: float, digits: int = 2) -> str:
    """``x`` rounded to ``digits`` significant figures, written without an exponent.

    The one rule of :func:`vcperf.units.fmt_num` (the views' readouts write numbers the same way):
    thousands separated, trailing zeros dropped, a value rounding up to the next power of ten keeps
    ``digits`` digits (``9.996`` -> ``"10"``).

    Parameters
    ----------
    x : float
        The value, in the unit the sentence states (e.g. s).
    digits : int
        Significant figures (>= 1).

    Returns
    -------
    str
        E.g. ``"120"``, ``"0.45"``, ``"1,400"``, ``"n/a"`` for NaN.

    Examples
    --------
    >>> sig(123.4), sig(0.4512), sig(1389.7), sig(0.000123, 1), sig(9.996), sig(float("nan"))
    ('120', '0.45', '1,400', '0.0001', '10', 'n/a')
    """
    return units.fmt_num(float(np.asarray(x, dtype=float)), digits)


def num(x: float, decimals: int = 1) -> str:
    """``x`` with a fixed number of decimals and thousands separators.

    Parameters
    ----------
    x : float
        The value, in the unit the sentence states.
    decimals : int
        Digits after the decimal point.

    Examples
    --------
    >>> num(1389.74, 0), num(0.2438, 2)
    ('1,390', '0.24')
    """
    return f"{float(np.asarray(x, dtype=float)):,.{decimals}f}"


def pct(fraction: float, decimals: int = 0, signed: bool = False) -> str:
    """A fraction as a percentage with a thin space before ``%`` (the notebooks' style).

    Parameters
    ----------
    fraction : float
        The value as a fraction (0.24 -> ``"24 %"``), e.g. a relative error.
    decimals : int
        Digits after the decimal point.
    signed : bool
        Prefix ``+`` for positive values (negative values always carry ``-``).

    Examples
    --------
    >>> pct(0.2438), pct(-0.0213, 1, signed=True), pct(0.05, signed=True)
    ('24 %', '-2.1 %', '+5 %')
    """
    value = 100.0 * float(np.asarray(fraction, dtype=float))
    text = f"{value:+.{decimals}f}" if signed else f"{value:.{decimals}f}"
    if text.lstrip("+-").strip("0.") == "":
        text = text.lstrip("+-")  # no "-0 %"
    return f"{text} %"


def times(ratio: float, decimals: int = 1) -> str:
    """A ratio written as a multiple (``"3.2x"``).

    Parameters
    ----------
    ratio : float
        Dimensionless ratio.
    decimals : int
        Digits after the decimal point.

    Examples
    --------
    >>> times(3.214), times(1.4716, 2)
    ('3.2x', '1.47x')
    """
    return f"{float(np.asarray(ratio, dtype=float)):.{decimals}f}x"
