"""The validated sweep design: :class:`Grid` of :class:`ParamSpec` (values or ranges) and its axes.

A Grid is built by :func:`vcperf.sweep.parse_grid` (which validates it against the model); it knows
its parameter names, its size and, for a cartesian design, the values along each axis.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np

__all__ = ["DESIGNS", "Grid", "ParamSpec"]

#: Supported experimental designs.
DESIGNS = ("cartesian", "latin_hypercube")
#: Largest number of design points a grid may describe (guards against typos such as n: 1e9). A
#: cartesian design is generated chunk by chunk, so only its axes and one chunk are in memory.
MAX_POINTS = 10**9
#: Memory the design arrays of a sweep may take at once (axes, one chunk, or a whole Latin


@dataclass(frozen=True)
class ParamSpec:
    """One swept parameter: either explicit ``values`` or a ``lo..hi`` range.

    Attributes
    ----------
    name : str
        Keyword argument of the model function.
    values : tuple or None
        Explicit values (a list in the grid).
    lo, hi : float or None
        Range bounds (inclusive).
    n : int or None
        Points of the range in a cartesian design.
    scale : str
        ``"lin"`` or ``"log"`` (geometric spacing / log-uniform sampling).
    """

    name: str
    values: tuple | None = None
    lo: float | None = None
    hi: float | None = None
    n: int | None = None
    scale: str = "lin"

    def axis(self) -> np.ndarray:
        """The values of this parameter along a cartesian axis."""
        if self.values is not None:
            return as_array(self.values)
        if self.scale == "log":
            return np.geomspace(self.lo, self.hi, self.n)
        return np.linspace(self.lo, self.hi, self.n)


@dataclass(frozen=True)
class Grid:
    """A validated sweep design.

    Attributes
    ----------
    params : tuple of ParamSpec
        Swept parameters in grid order (the last varies fastest in a cartesian design).
    design : str
        ``"cartesian"`` or ``"latin_hypercube"``.
    samples : int or None
        Points of a Latin hypercube.
    seed : int
        Seed of the Latin hypercube.
    """

    params: tuple[ParamSpec, ...]
    design: str = "cartesian"
    samples: int | None = None
    seed: int = 0

    @property
    def names(self) -> list[str]:
        """Parameter names in grid order."""
        return [p.name for p in self.params]

    @property
    def size(self) -> int:
        """Number of design points."""
        if self.design == "latin_hypercube":
            return int(self.samples)
        return math.prod(len(p.values) if p.values is not None else p.n for p in self.params)


def as_array(values) -> np.ndarray:
    if all(isinstance(x, numbers.Integral) and not isinstance(x, bool) for x in values):
        return np.asarray(values, dtype=np.int64)
    if all(isinstance(x, numbers.Real) and not isinstance(x, bool) for x in values):
        return np.asarray(values, dtype=float)
    return np.asarray(values, dtype=object)

