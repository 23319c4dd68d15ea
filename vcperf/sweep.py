"""Parameter sweeps: evaluate a public vcperf model function over a grid, in chunks, optionally on Dask.

A grid is a YAML mapping (or the same structure as a Python dict)::

    design: cartesian          # or latin_hypercube (default cartesian)
    samples: 1000              # latin_hypercube only: number of points
    seed: 0                    # latin_hypercube only: random seed (reproducible design)
    parameters:
      size_bytes: [1.0e6, 1.0e9]                      # a list of values
      rtt_s: {lo: 0.001, hi: 0.3, n: 20, scale: log}  # a range: n points, lin (default) or log
      bandwidth_bps: {lo: 1.0e7, hi: 1.0e10, n: 10}

``cartesian`` takes every combination (the product of the lists and ranges; the last parameter
varies fastest). ``latin_hypercube`` draws ``samples`` points, one per stratum in every dimension
(McKay, Beckman & Conover 1979): ranges are sampled continuously (uniform, or log-uniform with
``scale: log``), ``n`` is ignored; lists are sampled as stratified choices among their values.

:func:`evaluate` calls the model with one array per parameter per chunk (models are vectorized
numpy functions); a model that cannot take arrays is called point by point. The result is a tidy
table: one column per parameter and one per output (a scalar output is named after the function;
a dataclass result gives one column per numeric scalar field). With a ``dask.distributed`` client
the chunks run on the cluster's workers; rows come back in design order either way, so a cluster
run equals the in-process run row for row.

Pure functions: :func:`resolve_model`, :func:`parse_grid`, :func:`design_points`,
:func:`evaluate` (and :func:`iter_evaluate`, which yields the table chunk by chunk so a large sweep
can be streamed to disk with bounded memory).
"""

from __future__ import annotations

import collections
import dataclasses
import importlib
import inspect
import itertools
import math
import numbers
import os
import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from vcperf import _validate

__all__ = [
    "DESIGNS",
    "Grid",
    "ParamSpec",
    "design_points",
    "evaluate",
    "iter_evaluate",
    "load_grid",
    "parse_grid",
    "resolve_model",
]

#: Supported experimental designs.
DESIGNS = ("cartesian", "latin_hypercube")
#: Largest number of design points a grid may describe (guards against typos such as n: 1e9). A
#: cartesian design is generated chunk by chunk, so only its axes and one chunk are in memory.
MAX_POINTS = 10**9
#: Memory the design arrays of a sweep may take at once (axes, one chunk, or a whole Latin
#: hypercube), checked before anything is allocated.
MAX_DESIGN_BYTES = 1 << 30
_ITEM_BYTES = 8  # float64 / int64
_SCALES = ("lin", "log")
_GRID_KEYS = {"design", "samples", "seed", "parameters"}
_RANGE_KEYS = {"lo", "hi", "n", "scale"}
# Parameter names ending like this carry a physical unit and must be numbers (project convention).
_UNIT_SUFFIXES = (
    "_s", "_ms", "_us", "_bps", "_gbps", "_mbps", "_bytes", "_gib", "_mib", "_kib", "_per_s", "_hz",
    "_fraction", "_pct", "_percent", "_segments", "_count",
)  # fmt: skip
# Modules whose functions are not models (they run notebooks, write files or draw).
_NOT_MODELS = ("vcperf.cli", "vcperf.sweep", "vcperf.regenerate", "vcperf.report", "vcperf.plotting",
               "vcperf.widgets", "vcperf.views", "vcperf.params")


# --------------------------------------------------------------------------------------------
# Model
# --------------------------------------------------------------------------------------------


def resolve_model(model: str | Callable) -> tuple[str, Callable]:
    """The dotted path and the function of a public model function inside the vcperf package.

    Parameters
    ----------
    model : str or callable
        ``"vcperf.network.transfer_time_s"``, or the function itself.

    Returns
    -------
    (str, callable)
        Its dotted path (what Dask workers import) and the function.

    Raises
    ------
    ValueError
        If the path is not ``vcperf.<module>.<function>``, names a private or non-model module or
        function, or does not resolve to a plain function defined in vcperf.
    """
    if callable(model) and not isinstance(model, str):
        path = f"{getattr(model, '__module__', '')}.{getattr(model, '__qualname__', '')}"
    elif isinstance(model, str):
        path = model.strip()
    else:
        raise ValueError(f"model must be a dotted path such as vcperf.network.transfer_time_s; got {model!r}")
    module_name, _, func_name = path.rpartition(".")
    if not module_name.startswith("vcperf.") or not func_name:
        raise ValueError(f"model must be a function inside the vcperf package (vcperf.<module>.<function>); "
                         f"got {path!r}")
    if any(part.startswith("_") for part in path.split(".")):
        raise ValueError(f"model must be a public function (no _private module or name); got {path!r}")
    if any(module_name == m or module_name.startswith(m + ".") for m in _NOT_MODELS):
        raise ValueError(f"model must be a model function, not from {module_name} (cli, plotting, views, ... "
                         f"are not models); got {path!r}")
    try:
        module = importlib.import_module(module_name)
    except ImportError as err:
        raise ValueError(f"model module {module_name!r} cannot be imported: {err}") from None
    func = getattr(module, func_name, None)
    if not inspect.isfunction(func) or not func.__module__.startswith("vcperf"):
        raise ValueError(f"model {path!r} is not a function defined in the vcperf package")
    if callable(model) and not isinstance(model, str) and func is not model:
        raise ValueError(f"model {path!r} does not resolve to the function given")
    return path, func


# --------------------------------------------------------------------------------------------
# Grid
# --------------------------------------------------------------------------------------------


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
            return _as_array(self.values)
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


def _as_array(values) -> np.ndarray:
    if all(isinstance(x, numbers.Integral) and not isinstance(x, bool) for x in values):
        return np.asarray(values, dtype=np.int64)
    if all(isinstance(x, numbers.Real) and not isinstance(x, bool) for x in values):
        return np.asarray(values, dtype=float)
    return np.asarray(values, dtype=object)


def _needs_number(param: inspect.Parameter | None, name: str) -> bool:
    if param is not None and param.default is not inspect.Parameter.empty:
        default = param.default
        if isinstance(default, numbers.Real) and not isinstance(default, bool):
            return True
    return name.endswith(_UNIT_SUFFIXES)


def _number(label: str, value) -> float:
    """A finite real number from YAML (which reads ``1e9`` without a dot as a string)."""
    if isinstance(value, bool):
        raise ValueError(f"{label} must be a number; got {value!r}")
    try:
        out = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{label} must be a number; got {value!r}") from None
    if not math.isfinite(out):
        raise ValueError(f"{label} must be a finite number; got {value!r}")
    return out


def _integer(label: str, value, lo: int) -> int:
    x = _number(label, value)
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
        lo = _number(f"parameter {name}: lo", spec["lo"])
        hi = _number(f"parameter {name}: hi", spec["hi"])
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
            n = _integer(f"parameter {name}: n", spec["n"], 1)
            if n > 1 and lo == hi:
                raise ValueError(f"parameter {name}: empty range, lo == hi == {lo:g} with n={n} points; "
                                 f"use n: 1 or a list")
        else:
            n = _integer(f"parameter {name}: n", spec["n"], 1) if "n" in spec else None
        return ParamSpec(name, lo=lo, hi=hi, n=n, scale=scale)
    if isinstance(spec, (list, tuple)):
        if len(spec) == 0:
            raise ValueError(f"parameter {name}: empty list of values")
        if any(isinstance(x, (Mapping, list, tuple)) for x in spec):
            raise ValueError(f"parameter {name}: values must be scalars; got {list(spec)!r}")
        values = list(spec)
        if numeric:  # ints stay ints; anything else must read as a finite number
            values = [x if isinstance(x, numbers.Integral) and not isinstance(x, bool)
                      else _number(f"parameter {name}: value", x) for x in values]
        return ParamSpec(name, values=tuple(values))
    if isinstance(spec, (str, numbers.Number)):
        return _parse_param(name, [spec], sig_param, design)  # a single fixed value
    raise ValueError(f"parameter {name}: must be a list of values or a {{lo, hi, n, scale}} range; got {spec!r}")


def load_grid(path: str | Path) -> dict:
    """Read a grid YAML file into a mapping (use :func:`parse_grid` to validate it)."""
    import yaml

    p = _validate.existing_file("path", path, "a grid YAML file")
    try:
        spec = yaml.safe_load(p.read_text())
    except yaml.YAMLError as err:
        raise ValueError(f"grid {str(path)!r} is not valid YAML: {err}") from None
    return spec


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
    grid_seed = _integer("seed", grid_seed, 0)
    samples = None
    if design == "latin_hypercube":
        if "samples" not in spec:
            raise ValueError("samples must be given for design latin_hypercube (number of points, >= 1)")
        samples = _integer("samples", spec["samples"], 1)
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


def _gib(n_bytes: float) -> str:
    return f"{n_bytes / 2**30:.2f} GiB"


def design_bytes(grid: Grid, chunk_size: int | None = None) -> dict[str, int]:
    """Estimated peak bytes of the design arrays, by what allocates them.

    ``axes``: a cartesian axis per parameter (with the temporaries of linspace/geomspace);
    ``chunk``: one chunk of rows (index arrays and one column per parameter);
    ``latin_hypercube``: the whole hypercube, drawn at once (a column per parameter plus the
    permutation, uniforms and transforms of the one being drawn).
    """
    k = len(grid.params)
    if grid.design == "latin_hypercube":
        return {"latin_hypercube": grid.samples * (k + 4) * _ITEM_BYTES}
    axes = sum((len(p.values) if p.values is not None else 3 * p.n) for p in grid.params) * _ITEM_BYTES
    rows = min(chunk_size or 10_000, grid.size)
    return {"axes": axes, "chunk": rows * (2 * k + 1) * _ITEM_BYTES}


def check_memory(grid: Grid, chunk_size: int | None = None, budget: int | None = None) -> None:
    """Raise ValueError, before any allocation, if the design would take more than ``budget`` bytes.

    Parameters
    ----------
    grid : Grid
    chunk_size : int, optional
        Points per chunk (default 10000).
    budget : int, optional
        Bytes allowed (default :data:`MAX_DESIGN_BYTES`).
    """
    budget = MAX_DESIGN_BYTES if budget is None else budget
    for what, need in design_bytes(grid, chunk_size).items():
        if need <= budget:
            continue
        if what == "latin_hypercube":
            most = budget // ((len(grid.params) + 4) * _ITEM_BYTES)
            raise ValueError(f"latin_hypercube of {grid.samples} samples x {len(grid.params)} parameters needs "
                             f"about {_gib(need)} of memory; the limit is {_gib(budget)} (MAX_DESIGN_BYTES): "
                             f"samples must be at most {most}")
        if what == "axes":
            biggest = max(grid.params, key=lambda p: len(p.values) if p.values is not None else p.n)
            raise ValueError(f"parameter {biggest.name}: the grid axes need about {_gib(need)} of memory; the "
                             f"limit is {_gib(budget)} (MAX_DESIGN_BYTES): use fewer points (n)")
        most = budget // ((2 * len(grid.params) + 1) * _ITEM_BYTES)
        raise ValueError(f"chunk_size {chunk_size} needs about {_gib(need)} of memory per chunk; the limit is "
                         f"{_gib(budget)} (MAX_DESIGN_BYTES): chunk_size must be at most {most}")


# --------------------------------------------------------------------------------------------
# Dask
# --------------------------------------------------------------------------------------------

#: Interface every socket of a local cluster listens on.
LOOPBACK = "127.0.0.1"


def _quiet_dask() -> None:
    os.environ.setdefault("DASK_LOGGING__DISTRIBUTED", "warning")  # before distributed is imported


def connect(address: str):
    """A ``dask.distributed.Client`` of an existing cluster (a context manager)."""
    _quiet_dask()
    from dask.distributed import Client

    return Client(address)


def local_cluster(workers: int, *, dashboard: bool = False):
    """A context manager giving a Client of a new local cluster of ``workers`` processes.

    Scheduler, workers and nannies listen on 127.0.0.1 only; the dashboard is off unless
    ``dashboard`` (then on 127.0.0.1, a free port, whose link is printed on stderr).
    """
    import contextlib

    workers = _integer("workers", workers, 1)
    _quiet_dask()
    from dask.distributed import Client, LocalCluster

    @contextlib.contextmanager
    def _cm():
        with LocalCluster(n_workers=workers, processes=True, threads_per_worker=1, host=LOOPBACK,
                          dashboard_address=f"{LOOPBACK}:0" if dashboard else None,
                          worker_dashboard_address=None) as cluster, Client(cluster) as client:
            if dashboard:
                print(f"vcperf sweep: Dask dashboard at {cluster.dashboard_link}", file=sys.stderr)
            yield client

    return _cm()


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


# --------------------------------------------------------------------------------------------
# Design points
# --------------------------------------------------------------------------------------------


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
        axes = [p.axis() for p in grid.params]
        idx = np.unravel_index(np.arange(start, stop), [len(a) for a in axes])
        return {p.name: a[i] for p, a, i in zip(grid.params, axes, idx, strict=True)}
    return {k: a[start:stop] for k, a in _latin_hypercube(grid).items()}


def _latin_hypercube(grid: Grid) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(grid.seed)
    n = grid.samples
    out = {}
    for p in grid.params:
        u = (rng.permutation(n) + rng.random(n)) / n  # one point in each of n strata, in [0, 1)
        if p.values is not None:
            values = _as_array(p.values)
            out[p.name] = values[np.minimum((u * len(values)).astype(np.int64), len(values) - 1)]
        elif p.scale == "log":
            out[p.name] = np.exp(np.log(p.lo) + u * (np.log(p.hi) - np.log(p.lo)))
        else:
            out[p.name] = p.lo + u * (p.hi - p.lo)
        if p.values is None:
            out[p.name] = np.clip(out[p.name], p.lo, p.hi)  # rounding in exp/log
    return out


# --------------------------------------------------------------------------------------------
# Evaluation
# --------------------------------------------------------------------------------------------


def _outputs(result, n: int, default_name: str) -> dict[str, np.ndarray] | None:
    """Per-point numeric scalar outputs of one model call on n points (None if not per-point)."""
    if dataclasses.is_dataclass(result) and not isinstance(result, type):
        fields = {f.name: getattr(result, f.name) for f in dataclasses.fields(result)}
    elif isinstance(result, Mapping):
        fields = dict(result)
    elif isinstance(result, tuple) and hasattr(result, "_fields"):
        fields = result._asdict()
    else:
        fields = {default_name: result}
    out = {}
    for key, value in fields.items():
        try:
            arr = np.asarray(value)
        except Exception:  # noqa: BLE001 - an object that is not array-like is not an output column
            continue
        if arr.dtype.kind not in "biuf":
            continue
        if arr.shape == () or arr.shape == (n,):
            out[key] = np.broadcast_to(arr, (n,)).astype(float if arr.dtype.kind == "f" else arr.dtype)
        elif arr.size == n and n == 1:
            out[key] = arr.reshape(1)
        elif len(fields) == 1:
            return None  # the single output is not one value per point
    return out or None


def evaluate_chunk(model_path: str, points: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Evaluate one chunk (vectorized, else point by point); parameters and outputs as columns.

    Module-level so that Dask workers can import it; the model is re-resolved from its path.
    """
    _, func = resolve_model(model_path)
    name = model_path.rpartition(".")[2]
    n = len(next(iter(points.values())))
    outputs = None
    if n > 0 and all(a.dtype != object for a in points.values()):
        try:
            outputs = _outputs(func(**points), n, name)
        except (TypeError, ValueError):
            outputs = None  # not vectorized over these arguments (or a bad point: found below)
    if outputs is None:
        rows = []
        for i in range(n):
            point = {k: (a[i].item() if a.dtype != object else a[i]) for k, a in points.items()}
            try:
                out = _outputs(func(**point), 1, name)
            except ValueError as err:
                raise ValueError(f"{model_path} failed at {point}: {err}") from None
            if out is None:
                raise ValueError(f"{model_path} returned no numeric scalar output at {point}")
            rows.append(out)
        keys = list(rows[0]) if rows else []
        outputs = {k: np.concatenate([r[k] for r in rows]) for k in keys}
    table = {k: np.asarray(a) for k, a in points.items()}
    for key, col in outputs.items():
        table[f"out_{key}" if key in table else key] = col
    return table


def _chunks(grid_or_points, chunk_size: int) -> Iterator[dict[str, np.ndarray]]:
    if isinstance(grid_or_points, Grid) and grid_or_points.design == "cartesian":
        for start in range(0, grid_or_points.size, chunk_size):
            yield design_points(grid_or_points, start, start + chunk_size)
        return
    if isinstance(grid_or_points, Grid):  # a Latin hypercube is drawn once (its size is `samples`)
        grid_or_points = _latin_hypercube(grid_or_points)
    cols = {k: np.asarray(v) for k, v in grid_or_points.items()}
    if not cols:
        raise ValueError("points must have at least one parameter column")
    lengths = {k: len(v) for k, v in cols.items()}
    if len(set(lengths.values())) != 1:
        raise ValueError(f"points must be columns of equal length; got {lengths}")
    n = next(iter(lengths.values()))
    for start in range(0, n, chunk_size):
        yield {k: v[start:start + chunk_size] for k, v in cols.items()}


def _progress_disabled() -> bool:
    return bool(os.environ.get("CI")) or not sys.stderr.isatty()


def iter_evaluate(model, points, chunk_size: int = 10_000, client=None, *, progress: bool | None = None,
                  max_in_flight: int | None = None):
    """Yield the result table chunk by chunk (pandas DataFrames, in design order).

    Parameters are those of :func:`evaluate`; ``max_in_flight`` bounds the chunks submitted to a
    Dask cluster and not yet collected (default: twice the workers' threads, at least 2), so
    memory stays bounded however large the grid.
    """
    path, _ = resolve_model(model)
    _check_points(points)
    if isinstance(chunk_size, (bool, np.bool_)) or not isinstance(chunk_size, numbers.Real):
        raise ValueError(f"chunk_size must be an integer >= 1; got {chunk_size!r}")
    chunk_size = _integer("chunk_size", chunk_size, 1)
    if chunk_size > MAX_POINTS:
        raise ValueError(f"chunk_size must be an integer >= 1 and at most {MAX_POINTS} (MAX_POINTS); got {chunk_size}")
    if client is not None and not callable(getattr(client, "submit", None)):
        raise ValueError(f"client must be a dask.distributed.Client or None; got {client!r}")
    _validate.optional(_validate.boolean, "progress", progress)
    _validate.optional(_validate.integer, "max_in_flight", max_in_flight, 1)
    if isinstance(points, Grid):
        check_memory(points, chunk_size)
    return _iter_evaluate(path, points, chunk_size, client, progress, max_in_flight)


def _check_points(points) -> None:
    """``points`` is a Grid or a mapping of equal-length 1-D columns (named in the error)."""
    _validate.instance("points", points, (Grid, Mapping), "a vcperf.sweep.Grid or a mapping of parameter columns")
    if isinstance(points, Grid):
        return
    for key, column in points.items():
        if not isinstance(key, str):
            raise ValueError(f"points must be keyed by parameter names (str); got key {key!r}")
        if isinstance(column, (str, bytes, Mapping)) or np.ndim(column) != 1:
            raise ValueError(f"points column {key!r} must be a 1-D array of values; got {column!r}")


def _iter_evaluate(path, points, chunk_size, client, progress, max_in_flight):
    import pandas as pd

    total = points.size if isinstance(points, Grid) else len(next(iter(points.values()), ()))
    from tqdm.auto import tqdm

    disable = _progress_disabled() if progress is None else not progress
    with tqdm(total=total, unit="pt", desc=path.rpartition(".")[2], disable=disable, file=sys.stderr) as bar:
        if client is None:
            for chunk in _chunks(points, chunk_size):
                table = evaluate_chunk(path, chunk)
                bar.update(len(next(iter(chunk.values()))))
                yield pd.DataFrame(table)
            return
        if max_in_flight is None:
            threads = sum(client.nthreads().values()) if hasattr(client, "nthreads") else 1
            max_in_flight = max(2, 2 * threads)
        pending = collections.deque()
        chunks = _chunks(points, chunk_size)
        for chunk in itertools.chain(chunks, [None]):
            if chunk is not None:
                pending.append(client.submit(evaluate_chunk, path, chunk, pure=False))
            while pending and (chunk is None or len(pending) >= max_in_flight):
                table = pending.popleft().result()
                bar.update(len(next(iter(table.values()))))
                yield pd.DataFrame(table)


def evaluate(model, points, chunk_size: int = 10_000, client=None, *, progress: bool | None = None):
    """Evaluate a model over design points and return a tidy table.

    Parameters
    ----------
    model : str or callable
        A public vcperf model function or its dotted path (see :func:`resolve_model`).
    points : Grid or mapping of str to array_like
        A :class:`Grid` (rows generated chunk by chunk) or equal-length parameter columns.
    chunk_size : int
        Points per model call (and per Dask task), >= 1.
    client : dask.distributed.Client, optional
        Run the chunks on this cluster; default in-process.
    progress : bool, optional
        Show a tqdm bar; default: on a terminal and not under CI.

    Returns
    -------
    pandas.DataFrame
        One row per point: the parameter columns, then one column per output.

    Raises
    ------
    ValueError
        On a bad model path or chunk size, or the model's own ValueError at a point (named).
    """
    import pandas as pd

    frames = list(iter_evaluate(model, points, chunk_size, client, progress=progress))
    if not frames:
        raise ValueError("points must hold at least one design point")
    return pd.concat(frames, ignore_index=True)
