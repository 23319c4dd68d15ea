"""Queueing models: exact MVA for closed networks, M/M/1, M/G/1 and processor sharing.

vCenter under a benchmark such as VCbench is a *closed* system: a fixed number of clients each
issue an operation, wait for it, think, and issue the next. Its natural model is a closed
product-form queueing network solved by Mean Value Analysis [1]_, [2]_: queueing stations
(FCFS with exponential service, or processor sharing; load-independent) for CPU, database and
disks, delay (infinite-server) stations for fixed latencies such as network round trips, and a
client think time. Open components (a single server fed by Poisson arrivals) use M/M/1 and the
Pollaczek-Khinchine formula for M/G/1 [3]_.

Conventions: a station's *service demand* ``D_k`` is the total service time one customer needs
there per cycle (visits x service time per visit). Response times exclude the think time.
All functions are vectorized with numpy; scalar inputs give numpy scalars.

References
----------
.. [1] M. Reiser, S. S. Lavenberg, "Mean-Value Analysis of Closed Multichain Queuing Networks",
   Journal of the ACM 27(2), 313-322, 1980.
.. [2] E. D. Lazowska, J. Zahorjan, G. S. Graham, K. C. Sevcik, *Quantitative System Performance:
   Computer System Analysis Using Queueing Network Models*, Prentice-Hall, 1984, ch. 6 (single-class
   MVA).
.. [3] L. Kleinrock, *Queueing Systems, Volume 1: Theory*, Wiley, 1975, sec. 3.2 (M/M/1) and
   ch. 5 (M/G/1, Pollaczek-Khinchine mean-value formula).
"""

from __future__ import annotations

import functools
import math
import numbers
from dataclasses import dataclass, field

import numpy as np

from vcperf import _validate as v

__all__ = [
    "MAX_MVA_CUSTOMERS",
    "MAX_RESULT_BYTES",
    "MvaResult",
    "QueueResult",
    "mg1",
    "mm1",
    "mva",
    "ps_response_time_s",
]

#: Largest population exact MVA solves: the recursion visits every population 1..N (O(N K) steps, ~2 s
#: at this limit on one core).
MAX_MVA_CUSTOMERS = 1_000_000
#: Largest result an MVA may allocate (throughput, response and residence times for every
#: population and network), checked before any work: 1 GiB.
MAX_RESULT_BYTES = 2**30
#: Bytes one stored value costs on the Python-float path (a float object plus its list slot).
_PY_FLOAT_BYTES = 32
# Below this many stations an unbatched MVA runs faster on Python floats than on tiny arrays.
_SCALAR_PATH_MAX_STATIONS = 16
# Networks solved together per block of the batched recursion: (K, block) work arrays stay in cache.
_BATCH_BLOCK = 4096


# --------------------------------------------------------------------------------------------
# Result types
# --------------------------------------------------------------------------------------------
# eq=False: the fields are arrays, so the generated __eq__/__hash__ would be meaningless.


@dataclass(frozen=True, eq=False)
class MvaResult:
    """Single-class MVA solution for every population ``1..N``.

    ``...`` is the batch shape (the broadcast of ``demands_s.shape[:-1]`` and
    ``think_time_s.shape``); ``N`` is the population axis, ``K`` the station axis.

    Attributes
    ----------
    n : ndarray of int, shape (N,)
        Populations ``1..N``.
    throughput_per_s : ndarray, shape (..., N)
        System throughput X(n) in cycles per second.
    response_time_s : ndarray, shape (..., N)
        Response time R(n) per cycle in seconds, excluding the think time.
    residence_time_s : ndarray, shape (..., N, K)
        Residence time per cycle at each station (queueing + service), seconds.
    queue_length : ndarray, shape (..., N, K)
        Mean number of customers at each station (waiting or in service).
    utilization : ndarray, shape (..., N, K)
        ``X * D``: busy fraction of a queueing station; for a delay station the mean number of
        its servers busy (may exceed 1).
    method : str
        ``"exact-mva"``.

    Notes
    -----
    The three per-station arrays are computed on first access (for a batch, by re-running the
    same recursion with storage, so the values are identical): a sweep that needs only X(n) and
    R(n) does not pay for writing ``N * K`` values per network.
    """

    n: np.ndarray
    throughput_per_s: np.ndarray
    response_time_s: np.ndarray
    method: str = "exact-mva"
    # Residence times if already computed, else what the recursion needs to compute them.
    _residence: np.ndarray | None = field(default=None, repr=False)
    _inputs: tuple | None = field(default=None, repr=False)

    @functools.cached_property
    def residence_time_s(self) -> np.ndarray:
        if self._residence is not None:
            return self._residence
        d, delay, z, batch, n_max = self._inputs
        return _mva_batched(d, delay, z, batch, n_max, keep_residence=True)[2]

    @functools.cached_property
    def queue_length(self) -> np.ndarray:
        return self.throughput_per_s[..., None] * self.residence_time_s  # Little's law per station

    @functools.cached_property
    def utilization(self) -> np.ndarray:
        d, batch = self._inputs[0], self._inputs[3]
        n_stations = d.shape[-1]
        return self.throughput_per_s[..., None] * np.broadcast_to(d, batch + (n_stations,))[..., None, :]


@dataclass(frozen=True, eq=False)
class QueueResult:
    """Steady-state means of a single-server open queue (M/M/1 or M/G/1).

    Attributes
    ----------
    utilization : ndarray or float
        Server busy fraction rho = lambda * E[S].
    number_in_system : ndarray or float
        Mean number of customers present (waiting + in service).
    number_waiting : ndarray or float
        Mean number of customers waiting (not in service).
    response_time_s : ndarray or float
        Mean time in system (waiting + service), seconds.
    waiting_time_s : ndarray or float
        Mean time waiting before service starts, seconds.
    method : str
        ``"M/M/1"`` or ``"M/G/1"``.
    """

    utilization: np.ndarray
    number_in_system: np.ndarray
    number_waiting: np.ndarray
    response_time_s: np.ndarray
    waiting_time_s: np.ndarray
    method: str


# --------------------------------------------------------------------------------------------
# Input checks specific to this module (the generic ones are in vcperf._validate)
# --------------------------------------------------------------------------------------------


def _scalar(x):
    """0-d arrays become numpy scalars; other arrays are returned unchanged."""
    return np.asarray(x)[()]


def _count(name: str, value, lo: int, hi: int) -> int:
    """A scalar integer in [lo, hi] (rejects arrays, bools, NaN and non-integers)."""
    if not isinstance(value, numbers.Real) and not (isinstance(value, np.ndarray) and value.ndim == 0):
        raise ValueError(f"{name} must be an integer in [{lo}, {hi}]; got {value!r}")
    return v.integer(name, value, lo, hi)


def _demands(demands_s, ndim: int | None = None) -> np.ndarray:
    d = v.nonneg("demands_s", demands_s)
    if d.ndim == 0 or d.shape[-1] == 0 or (ndim is not None and d.ndim != ndim):
        want = "shape (C, K)" if ndim == 2 else "shape (..., K) with K >= 1 stations"
        raise ValueError(f"demands_s must have {want}; got shape {d.shape}")
    return d


def _delay_mask(delay_stations, n_stations: int) -> np.ndarray:
    if delay_stations is None:
        return np.zeros(n_stations, dtype=bool)
    mask = v.array("delay_stations", delay_stations)
    if mask.shape != (n_stations,):
        raise ValueError(
            f"delay_stations must be a boolean mask of length K={n_stations} (one per station in "
            f"demands_s); got shape {mask.shape}"
        )
    if mask.dtype != bool:
        if not np.issubdtype(mask.dtype, np.number) or not np.all((mask == 0) | (mask == 1)):
            raise ValueError(f"delay_stations must hold booleans (or 0/1); got {delay_stations!r}")
        mask = mask.astype(bool)
    return mask


def _broadcast_shape(**named_shapes) -> tuple[int, ...]:
    """Broadcast shapes, naming the parameters if they do not fit."""
    try:
        return np.broadcast_shapes(*named_shapes.values())
    except ValueError:
        listed = ", ".join(f"{k} {s}" for k, s in named_shapes.items())
        raise ValueError(f"shapes must broadcast against each other; got {listed}") from None


def _require_positive_cycle(cycle_s: np.ndarray, what: str) -> None:
    """A cycle of zero length would give infinite throughput."""
    if np.any(cycle_s <= 0):
        raise ValueError(
            f"sum of demands_s plus think_time_s must be in (0, inf) {what}; got {float(cycle_s.min()):g}"
        )


# --------------------------------------------------------------------------------------------
# Single-class exact MVA
# --------------------------------------------------------------------------------------------


def mva(demands_s, n_customers, think_time_s=0.0, delay_stations=None) -> MvaResult:
    """Exact single-class Mean Value Analysis of a closed product-form network.

    Solves populations ``n = 1..N`` with the recursion (Reiser & Lavenberg [1]_; Lazowska et
    al. [2]_ ch. 6)::

        R_k(n) = D_k * (1 + Q_k(n-1))   queueing station
        R_k(n) = D_k                    delay station
        X(n)   = n / (Z + sum_k R_k(n))
        Q_k(n) = X(n) * R_k(n)

    Parameters
    ----------
    demands_s : array_like, shape (..., K)
        Service demand per cycle at each of K stations, seconds, >= 0. Leading dimensions are a
        batch of independent networks solved together (numpy over the batch, a Python loop only
        over the population).
    n_customers : int
        Largest population N, in [1, MAX_MVA_CUSTOMERS]; every population 1..N is solved.
    think_time_s : float or array_like, optional
        Think time Z per cycle, seconds, >= 0; broadcast against the batch shape
        ``demands_s.shape[:-1]`` (so one network can be swept over think times).
    delay_stations : array_like of bool, shape (K,), optional
        True for delay (infinite-server) stations; default: all stations queue.

    Returns
    -------
    MvaResult
        Throughput, response time (without Z), residence times, queue lengths and utilizations
        for every population, with the population axis before the station axis.

    Raises
    ------
    ValueError
        On negative, NaN or infinite demands or think times, ``n_customers`` not an integer in
        range, a malformed ``delay_stations``, shapes that do not broadcast, or a network whose
        cycle takes no time (all demands and the think time zero).

    Notes
    -----
    Exact for load-independent FCFS (exponential service), PS or LCFS-PR queueing stations and
    infinite-server stations (BCMP product form). Cost O(N K) per network. Without a batch and
    for few stations the recursion runs on Python floats, which is faster than numpy on tiny
    arrays.

    References
    ----------
    .. [1] M. Reiser, S. S. Lavenberg, "Mean-Value Analysis of Closed Multichain Queuing
       Networks", JACM 27(2), 313-322, 1980.
    .. [2] E. D. Lazowska et al., *Quantitative System Performance*, Prentice-Hall, 1984,
       ch. 6 (exact single-class MVA).

    Examples
    --------
    >>> res = mva([0.605, 2.1, 1.35], 3, think_time_s=15.0)   # Lazowska et al. ch. 6 example
    >>> res.queue_length[-1].round(4)
    array([0.0976, 0.3947, 0.235 ])
    """
    d = _demands(demands_s)
    n_max = _count("n_customers", n_customers, 1, MAX_MVA_CUSTOMERS)
    z = v.nonneg("think_time_s", think_time_s)
    n_stations = d.shape[-1]
    delay = _delay_mask(delay_stations, n_stations)
    batch = _broadcast_shape(**{"demands_s batch": d.shape[:-1], "think_time_s": z.shape})
    _require_positive_cycle(d.sum(axis=-1) + z, "for every network in the batch")

    scalar_path = batch == () and n_stations <= _SCALAR_PATH_MAX_STATIONS
    values = int(np.prod(batch, dtype=float)) * n_max * (n_stations + 2)
    need = values * (_PY_FLOAT_BYTES if scalar_path else 8)
    if need > MAX_RESULT_BYTES:
        raise ValueError(f"n_customers x networks x (stations + 2) is too large: the solution would hold {values:,} "
                         f"values (~{need / 2**30:.1f} GiB), above the {MAX_RESULT_BYTES / 2**30:g} GiB limit; "
                         f"solve fewer populations (n_customers = {n_max:,}) or a smaller batch")
    if scalar_path:
        x, r, res = _mva_unbatched(d.tolist(), delay.tolist(), float(z), n_max)
    else:
        x, r, res = _mva_batched(d, delay, z, batch, n_max)

    return MvaResult(
        n=np.arange(1, n_max + 1),
        throughput_per_s=x,
        response_time_s=r,
        _residence=res,
        _inputs=(d, delay, z, batch, n_max),
    )


def _mva_unbatched(d: list, delay: list, z: float, n_max: int):
    """MVA recursion on Python floats: X, R of shape (N,) and residence times (N, K)."""
    dq = [0.0 if is_delay else dk for dk, is_delay in zip(d, delay, strict=True)]
    dd = [dk if is_delay else 0.0 for dk, is_delay in zip(d, delay, strict=True)]
    q = [0.0] * len(d)
    xs = [0.0] * n_max
    rts = [0.0] * n_max
    rows = [None] * n_max
    for i in range(n_max):
        r = [a * (1.0 + b) + c for a, b, c in zip(dq, q, dd, strict=True)]
        rt = sum(r)
        x = (i + 1) / (z + rt)
        q = [x * rk for rk in r]
        xs[i], rts[i], rows[i] = x, rt, r
    return np.array(xs), np.array(rts), np.array(rows)


def _station_runs(queueing: np.ndarray) -> list[slice]:
    """Slices of consecutive queueing stations (the recursion updates each run in one call)."""
    runs, k, n_stations = [], 0, len(queueing)
    while k < n_stations:
        if queueing[k]:
            j = k
            while j < n_stations and queueing[j]:
                j += 1
            runs.append(slice(k, j))
            k = j
        else:
            k += 1
    return runs


def _mva_batched(d, delay, z, batch, n_max, keep_residence=False):
    """MVA recursion with numpy over the batch: X, R of shape (..., N), residences (..., N, K).

    The batch is flattened to B networks and solved in blocks of ``_BATCH_BLOCK`` with
    station-major (K, block) work arrays, so each step is a few calls on contiguous data that
    stays in cache. Only queueing stations are updated per step; a delay station's residence is
    its demand. Residence times for every population (N * K * B values) are stored only with
    ``keep_residence`` (else None is returned for them). The arithmetic is the same, operation for
    operation, whatever the block size or ``keep_residence``, so results are identical.
    """
    n_stations = d.shape[-1]
    n_nets = math.prod(batch)
    d_t = np.ascontiguousarray(np.broadcast_to(d, batch + (n_stations,)).reshape(n_nets, n_stations).T)
    z_flat = np.ascontiguousarray(np.broadcast_to(z, batch).reshape(n_nets))
    runs = _station_runs(~delay)
    # Population-major buffers so each step writes one contiguous row.
    x = np.empty((n_max, n_nets))
    rt = np.empty((n_max, n_nets))
    res = np.empty((n_max, n_stations, n_nets)) if keep_residence else None
    if keep_residence:
        res[:, delay, :] = d_t[delay]
    for start in range(0, n_nets, _BATCH_BLOCK):
        cols = slice(start, min(start + _BATCH_BLOCK, n_nets))
        dq = np.ascontiguousarray(d_t[:, cols])
        zb = z_flat[cols]
        q = np.zeros_like(dq)
        work = dq.copy()  # delay rows keep D_k; queueing rows are overwritten every step
        total = np.empty(dq.shape[1])
        for i in range(n_max):
            r = res[i, :, cols] if keep_residence else work
            for s in runs:  # R_k = D_k * (1 + Q_k), as D_k * Q_k + D_k
                np.multiply(dq[s], q[s], out=r[s])
                r[s] += dq[s]
            rt_i = rt[i, cols]
            np.add.reduce(r, axis=0, out=rt_i)
            np.add(zb, rt_i, out=total)
            np.divide(i + 1, total, out=x[i, cols])
            for s in runs:
                np.multiply(r[s], x[i, cols], out=q[s])
    shape = batch + (n_max,)
    x_out, rt_out = x.T.reshape(shape), rt.T.reshape(shape)
    if keep_residence:
        res = np.moveaxis(res.reshape((n_max, n_stations) + batch), (0, 1), (-2, -1))
    return x_out, rt_out, res


# --------------------------------------------------------------------------------------------
# Multi-class exact MVA
# --------------------------------------------------------------------------------------------


# --------------------------------------------------------------------------------------------
# Bounds
# --------------------------------------------------------------------------------------------


# --------------------------------------------------------------------------------------------
# Open single-server queues
# --------------------------------------------------------------------------------------------


def _require_stable(rho: np.ndarray, **named) -> None:
    if np.any(rho >= 1):
        i = np.flatnonzero(np.asarray(rho >= 1).ravel())[0]
        shape = np.shape(rho)
        got = ", ".join(f"{k}={np.broadcast_to(a, shape).flat[i]:g}" for k, a in named.items())
        names = " and ".join(named)
        raise ValueError(
            f"utilization (from {names}) must be in [0, 1) for a stable queue; "
            f"got utilization {np.asarray(rho).flat[i]:g} ({got})"
        )


def mm1(arrival_rate_per_s, service_rate_per_s) -> QueueResult:
    """M/M/1 queue: Poisson arrivals, exponential service, one FCFS server.

    ``rho = lambda / mu``, ``L = rho / (1 - rho)``, ``R = 1 / (mu - lambda)``,
    ``W = rho / (mu - lambda)``, ``Lq = rho^2 / (1 - rho)`` (Kleinrock [1]_ sec. 3.2).

    Parameters
    ----------
    arrival_rate_per_s : float or array_like
        Arrival rate lambda, per second, >= 0.
    service_rate_per_s : float or array_like
        Service rate mu, per second, > 0. Broadcast against ``arrival_rate_per_s``.

    Returns
    -------
    QueueResult
        Utilization, mean numbers in system and waiting, mean response and waiting times.

    Raises
    ------
    ValueError
        On negative/NaN/infinite rates, a zero service rate, shapes that do not broadcast, or
        ``rho >= 1`` (no steady state).

    References
    ----------
    .. [1] L. Kleinrock, *Queueing Systems, Volume 1: Theory*, Wiley, 1975, sec. 3.2.
    """
    lam = v.nonneg("arrival_rate_per_s", arrival_rate_per_s)
    mu = v.positive("service_rate_per_s", service_rate_per_s)
    _broadcast_shape(arrival_rate_per_s=lam.shape, service_rate_per_s=mu.shape)
    rho = lam / mu
    _require_stable(rho, arrival_rate_per_s=lam, service_rate_per_s=mu)
    response = 1.0 / (mu - lam)
    return QueueResult(
        utilization=_scalar(rho),
        number_in_system=_scalar(rho / (1.0 - rho)),
        number_waiting=_scalar(rho**2 / (1.0 - rho)),
        response_time_s=_scalar(response),
        waiting_time_s=_scalar(rho * response),
        method="M/M/1",
    )


def mg1(arrival_rate_per_s, mean_service_s, service_scv) -> QueueResult:
    """M/G/1 queue via the Pollaczek-Khinchine mean-value formula.

    ``rho = lambda E[S]``, ``W = rho E[S] (1 + scv) / (2 (1 - rho))``, ``R = W + E[S]``, and
    by Little's law ``L = lambda R``, ``Lq = lambda W`` (Kleinrock [1]_ ch. 5).

    Parameters
    ----------
    arrival_rate_per_s : float or array_like
        Poisson arrival rate lambda, per second, >= 0.
    mean_service_s : float or array_like
        Mean service time E[S], seconds, >= 0.
    service_scv : float or array_like
        Squared coefficient of variation of the service time, Var[S] / E[S]^2, >= 0:
        1 exponential (M/M/1), 0 deterministic (M/D/1). All three inputs broadcast together.

    Returns
    -------
    QueueResult
        Utilization, mean numbers in system and waiting, mean response and waiting times.

    Raises
    ------
    ValueError
        On negative/NaN/infinite input, shapes that do not broadcast, or ``rho >= 1``.

    References
    ----------
    .. [1] L. Kleinrock, *Queueing Systems, Volume 1: Theory*, Wiley, 1975, ch. 5
       (Pollaczek-Khinchine mean-value formula).
    """
    lam = v.nonneg("arrival_rate_per_s", arrival_rate_per_s)
    es = v.nonneg("mean_service_s", mean_service_s)
    scv = v.nonneg("service_scv", service_scv)
    _broadcast_shape(arrival_rate_per_s=lam.shape, mean_service_s=es.shape, service_scv=scv.shape)
    rho = lam * es
    _require_stable(rho, arrival_rate_per_s=lam, mean_service_s=es)
    wait = rho * es * (1.0 + scv) / (2.0 * (1.0 - rho))
    response = wait + es
    return QueueResult(
        utilization=_scalar(np.broadcast_to(rho, wait.shape).copy()),
        number_in_system=_scalar(lam * response),
        number_waiting=_scalar(lam * wait),
        response_time_s=_scalar(response),
        waiting_time_s=_scalar(wait),
        method="M/G/1",
    )


def ps_response_time_s(job_s, utilization, backlog_s=np.inf):
    """Mean time a job needs at a processor-sharing server (TCP flows sharing a bottleneck link).

    M/G/1-PS is insensitive to the job-size distribution: a job that alone needs ``job_s`` takes
    ``job_s / (1 - rho)`` on average when the server is busy a fraction ``rho`` with other work
    (Kleinrock [1]_ sec. 4.4). Unlike FCFS M/G/1 (:func:`mg1`), a short job never waits behind a
    whole long one: it shares the server with it. The result is capped at ``job_s + backlog_s``,
    the time to serve the job and everything queued with it, so it stays finite when ``rho >= 1``
    (a finite set of flows, not a growing queue).

    Parameters
    ----------
    job_s : float or array_like
        Service time of the job alone (e.g. bits / link rate), >= 0.
    utilization : float or array_like
        Busy fraction of the server with other work, >= 0 (may be >= 1: the cap applies).
    backlog_s : float or array_like
        Service time of everything queued with the job (default inf: no cap), >= 0.

    Returns
    -------
    ndarray
        Mean time (s), broadcast over the three inputs.

    References
    ----------
    .. [1] L. Kleinrock, *Queueing Systems, Volume 2: Computer Applications*, Wiley, 1976, sec. 4.4.

    Examples
    --------
    >>> ps_response_time_s(2.0, [0.0, 0.5, 1.5], backlog_s=10.0).tolist()  # alone, half busy, overloaded: capped
    [2.0, 4.0, 12.0]
    """
    x = v.nonneg("job_s", job_s)
    rho = v.nonneg("utilization", utilization)
    backlog = v.check_range("backlog_s", backlog_s, 0.0, math.inf)
    v.broadcast(job_s=x, utilization=rho, backlog_s=backlog)
    cap = x + backlog
    with np.errstate(divide="ignore"):
        ps = np.where(rho < 1, x / np.where(rho < 1, 1.0 - rho, 1.0), np.inf)
    return np.minimum(ps, cap)


