"""Evaluating a model over design points, chunk by chunk, in-process or on a Dask cluster.

:func:`evaluate` calls the model with one array per parameter per chunk (models are vectorized
numpy functions); a model that cannot take arrays is called point by point. The result is a tidy
table: one column per parameter and one per output. With a ``dask.distributed`` client the chunks
run on the cluster's workers (:func:`connect`, :func:`local_cluster`: loopback only, mutual TLS); rows come
back in design order either way. Before the first point of a cartesian grid, every value of every
axis is evaluated once (:func:`spanning_points`), so a value the model rejects fails the sweep at
once, not after hours.
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import itertools
import numbers
import os
import sys
from collections.abc import Iterator, Mapping

import numpy as np

from vcperf import _validate
from vcperf.sweep.design import cartesian_rows, check_memory, latin_hypercube
from vcperf.sweep.grid import MAX_POINTS, Grid, as_array
from vcperf.sweep.model import resolve_model
from vcperf.sweep.parse import integer

__all__ = ["evaluate", "iter_evaluate"]

#: Interface every socket of a local cluster listens on.
LOOPBACK = "127.0.0.1"
#: Most worker processes of a local cluster per core (a typo such as ``--workers 4000`` is refused).
WORKERS_PER_CORE = 4
#: A sweep of more design points than this needs an explicit ``large=True`` (``vcperf sweep --large``):
#: at ~60 bytes a row, 10 million points are ~600 MB of table and minutes to hours of CPU.
LARGE_POINTS = 10_000_000


def max_workers() -> int:
    """The most worker processes :func:`local_cluster` starts: :data:`WORKERS_PER_CORE` per core.

    Examples
    --------
    >>> max_workers() >= WORKERS_PER_CORE
    True
    """
    return WORKERS_PER_CORE * (os.cpu_count() or 1)


def check_size(grid: Grid, large: bool = False) -> None:
    """Raise ValueError when ``grid`` has more than :data:`LARGE_POINTS` points and ``large`` is not set.

    Examples
    --------
    >>> from vcperf.sweep import parse_grid
    >>> grid = parse_grid({"parameters": {"arrival_rate_per_s": {"lo": 0.1, "hi": 0.5, "n": 20_000_000},
    ...                                   "service_rate_per_s": [5.0]}}, "vcperf.queueing.mm1")
    >>> check_size(grid)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: the sweep has 20000000 points (more than 10000000): a table of ~1.2 GB; confirm with ...
    """
    if not isinstance(large, bool):
        raise TypeError(f"large must be a bool; got {type(large).__name__}")
    if grid.size > LARGE_POINTS and not large:
        raise ValueError(f"the sweep has {grid.size} points (more than {LARGE_POINTS}): a table of "
                         f"~{grid.size * 60 / 1e9:.1f} GB; confirm with --large (large=True)")


def _quiet_dask() -> None:
    os.environ.setdefault("DASK_LOGGING__DISTRIBUTED", "warning")  # before distributed is imported


def connect(address: str):
    """A ``dask.distributed.Client`` of an existing cluster (a context manager)."""
    _quiet_dask()
    from dask.distributed import Client

    return Client(address)


def local_cluster(workers: int, *, dashboard: bool = False):
    """A context manager giving a Client of a new local cluster of ``workers`` processes.

    Scheduler, workers and nannies listen on 127.0.0.1 only, and only over mutual TLS with a certificate
    made for this cluster (``distributed.security.Security.temporary()``, held in memory by this process
    and handed to its workers): another local process, even of the same user, cannot connect to the
    scheduler and run code on the workers (Dask's TCP has no authentication). The dashboard is off (no
    port) unless ``dashboard`` (then on 127.0.0.1, a free port, whose link is printed on stderr; it shows
    the cluster, it runs no code). ``workers`` is at most :func:`max_workers`.
    """
    workers = integer("workers", workers, 1)
    if workers > max_workers():
        raise ValueError(f"workers must be at most {max_workers()} ({WORKERS_PER_CORE} per core of this "
                         f"machine); got {workers}")
    if not isinstance(dashboard, bool):
        raise TypeError(f"dashboard must be a bool; got {type(dashboard).__name__}")
    _quiet_dask()
    import dask
    from dask.distributed import Client, LocalCluster
    from distributed.security import Security

    @contextlib.contextmanager
    def _cm():
        security = Security.temporary()  # a fresh CA, key and certificate, in memory only
        # The scheduler always serves HTTP (on 8787 when no dashboard is asked for): without the dashboard,
        # a free loopback port with the health check only.
        http = {} if dashboard else {"distributed.scheduler.http.routes": ["distributed.http.health"]}
        with dask.config.set(http), \
                LocalCluster(n_workers=workers, processes=True, threads_per_worker=1, host=LOOPBACK,
                             protocol="tls://", security=security,
                             dashboard_address=f"{LOOPBACK}:0" if dashboard else None,
                             scheduler_kwargs=None if dashboard else {"dashboard": False,
                                                                      "dashboard_address": f"{LOOPBACK}:0"},
                             worker_dashboard_address=None) as cluster, \
                Client(cluster, security=security) as client:
            if dashboard:
                print(f"vcperf sweep: Dask dashboard at {cluster.dashboard_link}", file=sys.stderr)
            yield client

    return _cm()


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
        axes = [p.axis() for p in grid_or_points.params]  # once per sweep (design_bytes counts them held)
        for start in range(0, grid_or_points.size, chunk_size):
            yield cartesian_rows(grid_or_points, axes, start, min(start + chunk_size, grid_or_points.size))
        return
    if isinstance(grid_or_points, Grid):  # a Latin hypercube is drawn once (its size is `samples`)
        grid_or_points = latin_hypercube(grid_or_points)
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
    chunk_size = integer("chunk_size", chunk_size, 1)
    if chunk_size > MAX_POINTS:
        raise ValueError(f"chunk_size must be an integer >= 1 and at most {MAX_POINTS} (MAX_POINTS); got {chunk_size}")
    if client is not None and not callable(getattr(client, "submit", None)):
        raise ValueError(f"client must be a dask.distributed.Client or None; got {client!r}")
    _validate.optional(_validate.boolean, "progress", progress)
    _validate.optional(_validate.integer, "max_in_flight", max_in_flight, 1)
    if isinstance(points, Grid):
        check_memory(points, chunk_size)
        if points.design == "cartesian":  # the whole grid, value by value, before the first point
            for chunk in _chunks(spanning_points(points), chunk_size):
                evaluate_chunk(path, chunk)
    return _iter_evaluate(path, points, chunk_size, client, progress, max_in_flight)


def spanning_points(grid: Grid) -> dict[str, np.ndarray]:
    """Points of a cartesian grid that take every listed value and both ends of every range, each
    with the other parameters at their first value: every value of every axis is checked by the
    model (its own range checks) before a sweep starts, and each such point is a point of the grid.
    """
    values = {p.name: (as_array(p.values) if p.values is not None else
                       np.array([p.lo] if p.n == 1 else [p.lo, p.hi])) for p in grid.params}
    return {q: np.concatenate([values[q] if p == q else np.full(len(values[p]), values[q][0], values[q].dtype)
                               for p in values]) for q in values}


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
