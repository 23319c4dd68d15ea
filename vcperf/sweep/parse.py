"""Reading and validating a sweep grid (YAML or a mapping) against a model's signature, before any work.

Every error names the parameter: unknown for the model, empty list or range, ``n < 1``, ``lo > hi``,
non-numeric values where numbers are needed, a log range with ``lo <= 0``; or an unknown design, a
missing ``samples``, unknown keys, required model arguments left out, a grid too large for memory.
"""

from __future__ import annotations

import inspect
import math
import numbers
import os
import re
from collections.abc import Callable, Mapping
from pathlib import Path

import numpy as np

from vcperf import _validate, _yaml
from vcperf.sweep.design import check_memory, design_points
from vcperf.sweep.grid import DESIGNS, MAX_POINTS, Grid, ParamSpec
from vcperf.sweep.model import resolve_model

__all__ = ["load_grid", "parse_grid"]

_SCALES = ("lin", "log")
_GRID_KEYS = {"design", "samples", "seed", "parameters"}
_RANGE_KEYS = {"lo", "hi", "n", "scale"}
# Parameter names ending like this carry a physical unit and must be numbers (project convention).
_UNIT_SUFFIXES = (
    "_s", "_ms", "_us", "_bps", "_gbps", "_mbps", "_bytes", "_gib", "_mib", "_kib", "_per_s", "_hz",
    "_fraction", "_pct", "_percent", "_segments", "_count",
)  # fmt: skip
#: A number written as text (YAML 1.1 reads ``1e9`` and ``1.0e6`` as strings): ASCII digits only, no
#: ``_`` separators, no ``nan``/``inf``, no hexadecimal (``float`` would take ``'１２３'`` and ``'1_000'``).
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", re.ASCII)


def _needs_number(param: inspect.Parameter | None, name: str) -> bool:
    if param is not None and param.default is not inspect.Parameter.empty:
        default = param.default
        if isinstance(default, numbers.Real) and not isinstance(default, bool):
            return True
    return name.endswith(_UNIT_SUFFIXES)


def number(label: str, value) -> float:
    """A finite real number: an int or float (not bool), or a decimal number written as ASCII text
    (YAML reads ``1e9`` and ``1.0e6`` as strings; see :data:`_DECIMAL`)."""
    if isinstance(value, str):
        if not _DECIMAL.fullmatch(value):
            raise ValueError(f"{label} must be a number; got {value!r}")
    elif isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ValueError(f"{label} must be a number; got {value!r}")
    try:
        out = float(value)
    except OverflowError:  # an int beyond float range (10**400)
        out = math.inf
    if not math.isfinite(out):
        raise ValueError(f"{label} must be a finite number; got {value!r}")
    return out


def integer(label: str, value, lo: int) -> int:
    """An integer ``>= lo``: an int (not bool) or an integral float; never text (``'1e6'`` in YAML
    is a string: write ``1000000``)."""
    if isinstance(value, str):
        raise ValueError(f"{label} must be an integer >= {lo} written as a number (e.g. 1000000, not "
                         f"the text {value!r})")
    x = number(label, value)
    if not x.is_integer() or x < lo:
        raise ValueError(f"{label} must be an integer >= {lo}; got {value!r}")
    return int(x)


def _parse_param(name: str, spec, sig_param, design: str) -> ParamSpec:
    numeric = _needs_number(sig_param, name)
    if isinstance(spec, Mapping):
        unknown = set(spec) - _RANGE_KEYS
        if unknown:
            raise ValueError(f"parameter {name}: unknown range keys {sorted(unknown)}; allowed {sorted(_RANGE_KEYS)}")
        for key in ("lo", "hi"):
            if key not in spec:
                raise ValueError(f"parameter {name}: a range needs lo and hi; missing {key}")
        lo = number(f"parameter {name}: lo", spec["lo"])
        hi = number(f"parameter {name}: hi", spec["hi"])
        scale = spec.get("scale", "lin")
        if scale not in _SCALES:
            raise ValueError(f"parameter {name}: scale must be one of {list(_SCALES)}; got {scale!r}")
        if lo > hi:
            raise ValueError(f"parameter {name}: empty range, lo must be <= hi; got lo={lo:g} > hi={hi:g}")
        if scale == "log" and lo <= 0:
            raise ValueError(f"parameter {name}: a log range needs lo > 0; got lo={lo:g}")
        if design == "cartesian":
            if "n" not in spec:
                raise ValueError(f"parameter {name}: a cartesian range needs n (number of points)")
            n = integer(f"parameter {name}: n", spec["n"], 1)
            if n > 1 and lo == hi:
                raise ValueError(f"parameter {name}: empty range, lo == hi == {lo:g} with n={n} points; "
                                 f"use n: 1 or a list")
        else:
            n = integer(f"parameter {name}: n", spec["n"], 1) if "n" in spec else None
        return ParamSpec(name, lo=lo, hi=hi, n=n, scale=scale)
    if isinstance(spec, (list, tuple)):
        if len(spec) == 0:
            raise ValueError(f"parameter {name}: empty list of values")
        if any(isinstance(x, (Mapping, list, tuple)) for x in spec):
            raise ValueError(f"parameter {name}: values must be scalars; got {list(spec)!r}")
        values = list(spec)
        if numeric:  # ints stay ints; anything else must read as a finite number
            values = [x if isinstance(x, numbers.Integral) and not isinstance(x, bool)
                      else number(f"parameter {name}: value", x) for x in values]
        return ParamSpec(name, values=tuple(values))
    if isinstance(spec, (str, numbers.Number)):
        return _parse_param(name, [spec], sig_param, design)  # a single fixed value
    raise ValueError(f"parameter {name}: must be a list of values or a {{lo, hi, n, scale}} range; got {spec!r}")


def load_grid(path: str | Path) -> dict:
    """Read a grid YAML file into a mapping (use :func:`parse_grid` to validate it)."""
    p = _validate.existing_file("path", path, "a grid YAML file")
    return _yaml.load_file(p, f"grid {str(path)!r}")


def parse_grid(spec: Mapping | str | Path, model: str | Callable, *, seed: int | None = None) -> Grid:
    """Validate a grid against a model function's signature, before any evaluation.

    Parameters
    ----------
    spec : mapping, or path of a YAML file
        ``{design, samples, seed, parameters: {name: list | {lo, hi, n, scale}}}``.
    model : str or callable
        The model (see :func:`resolve_model`); parameter names are checked against its signature.
    seed : int, optional
        Overrides the grid's ``seed`` (Latin hypercube).

    Returns
    -------
    Grid

    Raises
    ------
    ValueError
        Naming the parameter: unknown for the model, empty list or range, ``n < 1``, ``lo > hi``,
        non-numeric values where numbers are needed, a log range with ``lo <= 0``; or an unknown
        design, a missing ``samples``, unknown keys, required model arguments left out.
    """
    if isinstance(spec, (str, os.PathLike)) and not isinstance(spec, bytes):
        spec = load_grid(_validate.existing_file("spec", spec, "a grid YAML file (or a grid mapping)"))
    if not isinstance(spec, Mapping):
        raise ValueError(f"spec must be a grid mapping with a 'parameters' key (or a YAML file); "
                         f"got {type(spec).__name__}")
    if seed is not None:
        _validate.integer("seed", seed, 0)
    unknown = set(spec) - _GRID_KEYS
    if unknown:
        raise ValueError(f"spec (the grid) has unknown keys {sorted(unknown)}; allowed {sorted(_GRID_KEYS)}")
    design = spec.get("design", "cartesian")
    if design not in DESIGNS:
        raise ValueError(f"design must be one of {list(DESIGNS)}; got {design!r}")
    grid_seed = seed if seed is not None else spec.get("seed", 0)
    grid_seed = integer("seed", grid_seed, 0)
    samples = None
    if design == "latin_hypercube":
        if "samples" not in spec:
            raise ValueError("samples must be given for design latin_hypercube (number of points, >= 1)")
        samples = integer("samples", spec["samples"], 1)
        if samples > MAX_POINTS:
            raise ValueError(f"samples must be in [1, {MAX_POINTS}]; got {samples}")
    elif "samples" in spec:
        raise ValueError("samples is only used by design latin_hypercube; remove it or set design")
    params = spec.get("parameters")
    if not isinstance(params, Mapping) or not params:
        raise ValueError("grid must have a non-empty 'parameters' mapping (name: values or range)")

    path, func = resolve_model(model)
    sig = inspect.signature(func)
    accepts_kw = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in sig.parameters.values())
    named = {k: p for k, p in sig.parameters.items()
             if p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)}
    for name in params:
        if not isinstance(name, str) or (name not in named and not accepts_kw):
            raise ValueError(f"parameter {name!r} is not an argument of {path}; its arguments are {list(named)}")
    missing = [k for k, p in named.items() if p.default is inspect.Parameter.empty and k not in params]
    if missing:
        raise ValueError(f"parameters {missing} of {path} have no default and must be in the grid")
    out = tuple(_parse_param(name, s, named.get(name), design) for name, s in params.items())
    grid = Grid(params=out, design=design, samples=samples, seed=grid_seed)
    if grid.size > MAX_POINTS:
        raise ValueError(f"grid has {grid.size} points; must be at most {MAX_POINTS}")
    check_memory(grid)
    if accepts_kw and any(name not in named for name in params):
        _probe_keywords(func, path, grid, named)
    return grid



def _probe_keywords(func, path, grid, named):
    """A model with **kwargs: call it once on the first point to reject unknown names early."""
    point = {k: v[0] for k, v in design_points(grid, 0, 1).items()}
    try:
        func(**point)
    except TypeError as err:
        extra = [k for k in point if k not in named]
        raise ValueError(f"parameter(s) {extra} not accepted by {path}: {err}") from None
    except ValueError:
        pass  # a value problem, reported when the sweep runs
