"""Design points of a Grid and the memory they take: cartesian rows from their index, Latin hypercubes.

Cartesian rows are computed from their index (the full product is never built); a Latin hypercube
(McKay, Beckman & Conover 1979) is drawn in full from ``numpy.random.default_rng(seed)`` and sliced.
:func:`check_memory` refuses, before any allocation, a design whose arrays would exceed the budget.
"""

from __future__ import annotations

import numpy as np

from vcperf import _validate
from vcperf.sweep.grid import Grid, as_array

__all__ = ["design_points"]

#: Memory the design arrays of a sweep may take at once (axes, one chunk, or a whole Latin
#: hypercube), checked before anything is allocated.
MAX_DESIGN_BYTES = 1 << 30
_ITEM_BYTES = 8  # float64 / int64
_OVERHEAD_BYTES = 4096  # per array: numpy's header and Python objects, a bound for small arrays


def _gib(n_bytes: float) -> str:
    return f"{n_bytes / 2**30:.2f} GiB"


def _axis_bytes(p) -> int:
    """Bytes of one cartesian axis: ``len * 8`` (``geomspace`` holds a second array while it builds one)."""
    n = len(p.values) if p.values is not None else p.n
    return n * _ITEM_BYTES + _OVERHEAD_BYTES


def design_bytes(grid: Grid, chunk_size: int | None = None) -> dict[str, int]:
    """Estimated peak bytes of the design arrays, by what allocates them (measured with ``tracemalloc``:
    tests/test_sweep.py checks every estimate lies between the measured peak and twice it).

    ``axes``: the cartesian axes, one array per parameter, built once per sweep and held while it
    runs (plus the second array ``geomspace`` holds while it builds the largest log axis);
    ``chunk``: one chunk of rows (the row numbers, one index array and one column per parameter),
    allocated while the axes are held; ``latin_hypercube``: the whole hypercube, drawn at once (a
    column per parameter plus the permutation, uniforms and transforms of the one being drawn).
    """
    k = len(grid.params)
    if grid.design == "latin_hypercube":
        return {"latin_hypercube": grid.samples * (k + 4) * _ITEM_BYTES + _OVERHEAD_BYTES}
    log_axes = [p.n for p in grid.params if p.values is None and p.scale == "log"]
    axes = sum(_axis_bytes(p) for p in grid.params) + max(log_axes, default=0) * _ITEM_BYTES
    rows = min(chunk_size or 10_000, grid.size)
    return {"axes": axes, "chunk": rows * (2 * k + 1) * _ITEM_BYTES + _OVERHEAD_BYTES}


def check_memory(grid: Grid, chunk_size: int | None = None, budget: int | None = None) -> None:
    """Raise ValueError, before any allocation, if the design would take more than ``budget`` bytes.

    The parts of :func:`design_bytes` are alive at the same time (the axes are held while each
    chunk is built), so their sum is what must fit.

    Parameters
    ----------
    grid : Grid
    chunk_size : int, optional
        Points per chunk (default 10000).
    budget : int, optional
        Bytes allowed (default :data:`MAX_DESIGN_BYTES`).
    """
    budget = MAX_DESIGN_BYTES if budget is None else budget
    parts = design_bytes(grid, chunk_size)
    need = sum(parts.values())
    if need <= budget:
        return
    k = len(grid.params)
    if "latin_hypercube" in parts:
        most = (budget - _OVERHEAD_BYTES) // ((k + 4) * _ITEM_BYTES)
        raise ValueError(f"latin_hypercube of {grid.samples} samples x {k} parameters needs "
                         f"about {_gib(need)} of memory; the limit is {_gib(budget)} (MAX_DESIGN_BYTES): "
                         f"samples must be at most {most}")
    row = (2 * k + 1) * _ITEM_BYTES
    most = (budget - parts["axes"] - _OVERHEAD_BYTES) // row  # rows of a chunk that fit beside the axes
    if most < 1:
        biggest = max(grid.params, key=lambda p: len(p.values) if p.values is not None else p.n)
        raise ValueError(f"parameter {biggest.name}: the grid axes need about {_gib(parts['axes'])} of memory; "
                         f"the limit is {_gib(budget)} (MAX_DESIGN_BYTES): use fewer points (n)")
    raise ValueError(f"chunk_size {chunk_size} needs about {_gib(parts['chunk'])} of memory per chunk "
                     f"(beside {_gib(parts['axes'])} of grid axes); the limit is {_gib(budget)} "
                     f"(MAX_DESIGN_BYTES): chunk_size must be at most {most}")


def design_points(grid: Grid, start: int = 0, stop: int | None = None) -> dict[str, np.ndarray]:
    """Rows ``start..stop-1`` of the design, one 1-D array per parameter.

    Cartesian rows are computed from their index (the full product is never built); a Latin
    hypercube is drawn in full from ``numpy.random.default_rng(seed)`` and sliced, so a row is the
    same whatever the chunking.
    """
    _validate.instance("grid", grid, Grid, "a vcperf.sweep.Grid (see parse_grid)")
    start = _validate.integer("start", start, 0)
    stop = _validate.optional(_validate.integer, "stop", stop, 0)
    size = grid.size
    stop = size if stop is None else min(stop, size)
    if not 0 <= start <= stop:
        raise ValueError(f"start must be in [0, {stop}]; got {start}")
    if grid.design == "cartesian":
        return cartesian_rows(grid, [p.axis() for p in grid.params], start, stop)
    return {k: a[start:stop] for k, a in latin_hypercube(grid).items()}


def cartesian_rows(grid: Grid, axes: list[np.ndarray], start: int, stop: int) -> dict[str, np.ndarray]:
    """Rows ``start..stop-1`` of a cartesian design from its ``axes`` (built once per sweep)."""
    idx = np.unravel_index(np.arange(start, stop), [len(a) for a in axes])
    return {p.name: a[i] for p, a, i in zip(grid.params, axes, idx, strict=True)}


def latin_hypercube(grid: Grid) -> dict[str, np.ndarray]:
    """The whole Latin hypercube of ``grid``: one stratified column per parameter (McKay et al. 1979)."""
    rng = np.random.default_rng(grid.seed)
    n = grid.samples
    out = {}
    for p in grid.params:
        u = (rng.permutation(n) + rng.random(n)) / n  # one point in each of n strata, in [0, 1)
        if p.values is not None:
            values = as_array(p.values)
            out[p.name] = values[np.minimum((u * len(values)).astype(np.int64), len(values) - 1)]
        elif p.scale == "log":
            out[p.name] = np.exp(np.log(p.lo) + u * (np.log(p.hi) - np.log(p.lo)))
        else:
            out[p.name] = p.lo + u * (p.hi - p.lo)
        if p.values is None:
            out[p.name] = np.clip(out[p.name], p.lo, p.hi)  # rounding in exp/log
    return out

