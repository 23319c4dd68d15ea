"""Parameter sweeps: evaluate a public vcperf model function over a grid, in chunks, optionally on Dask (re-exports).

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

One module per concern: :mod:`~vcperf.sweep.model` (which functions are models),
:mod:`~vcperf.sweep.grid` (the Grid), :mod:`~vcperf.sweep.parse` (reading and validating a grid),
:mod:`~vcperf.sweep.design` (design points and their memory), :mod:`~vcperf.sweep.evaluation`
(evaluation in-process or on Dask).
"""

from vcperf.sweep.design import MAX_DESIGN_BYTES as MAX_DESIGN_BYTES
from vcperf.sweep.design import check_memory as check_memory
from vcperf.sweep.design import design_bytes as design_bytes
from vcperf.sweep.design import design_points
from vcperf.sweep.evaluation import LARGE_POINTS as LARGE_POINTS
from vcperf.sweep.evaluation import LOOPBACK as LOOPBACK
from vcperf.sweep.evaluation import check_size as check_size
from vcperf.sweep.evaluation import connect as connect
from vcperf.sweep.evaluation import evaluate, iter_evaluate
from vcperf.sweep.evaluation import evaluate_chunk as evaluate_chunk
from vcperf.sweep.evaluation import local_cluster as local_cluster
from vcperf.sweep.evaluation import max_workers as max_workers
from vcperf.sweep.grid import DESIGNS, Grid, ParamSpec
from vcperf.sweep.grid import MAX_POINTS as MAX_POINTS
from vcperf.sweep.model import resolve_model
from vcperf.sweep.parse import load_grid, parse_grid

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
# Also public, but not in ``__all__`` (which lists the entry points fuzzed by tests/test_fuzz.py; these
# start clusters or bound memory): MAX_DESIGN_BYTES, MAX_POINTS, LARGE_POINTS, LOOPBACK, check_memory,
# check_size, design_bytes, connect, local_cluster, max_workers, evaluate_chunk (imported above with
# ``as``, the explicit re-export form).
