"""Tests of vcperf.queueing: textbook results, published examples, simulation, bad input."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
import simpy
from scipy import stats

from vcperf.queueing import mg1, mm1, mva

# A vCenter-like closed network used throughout: two queueing stations (e.g. vpxd CPU and the
# database), one delay station (e.g. network round trips) and a client think time.
DEMANDS_S = np.array([0.05, 0.03, 0.10])
DELAY = np.array([False, False, True])
THINK_S = 1.0


# --------------------------------------------------------------------------------------------
# Open single-server queues
# --------------------------------------------------------------------------------------------


def test_mm1_textbook_formulas():
    res = mm1(3.0, 5.0)  # rho = 0.6
    assert res.utilization == pytest.approx(0.6)
    assert res.number_in_system == pytest.approx(0.6 / 0.4)
    assert res.number_waiting == pytest.approx(0.36 / 0.4)
    assert res.response_time_s == pytest.approx(1.0 / (5.0 - 3.0))
    assert res.waiting_time_s == pytest.approx(0.6 / (5.0 - 3.0))
    assert res.method == "M/M/1"


def test_mm1_vectorized_and_littles_law():
    lam = np.array([0.0, 1.0, 4.0, 9.9])
    res = mm1(lam, 10.0)
    assert res.utilization.shape == (4,)
    np.testing.assert_allclose(res.number_in_system, lam * res.response_time_s)
    np.testing.assert_allclose(res.number_waiting, lam * res.waiting_time_s)
    np.testing.assert_allclose(res.response_time_s - res.waiting_time_s, 0.1)


def test_mg1_pollaczek_khinchine_value():
    # rho = 0.5, scv = 2: W = 0.5 * 1 * 3 / (2 * 0.5) = 1.5 s
    res = mg1(0.5, 1.0, 2.0)
    assert res.waiting_time_s == pytest.approx(1.5)
    assert res.response_time_s == pytest.approx(2.5)
    assert res.number_in_system == pytest.approx(0.5 * 2.5)  # Little
    assert res.number_waiting == pytest.approx(0.5 * 1.5)
    assert res.utilization == pytest.approx(0.5)


def test_mg1_with_exponential_service_equals_mm1():
    lam = np.linspace(0.0, 19.0, 20)
    g, m = mg1(lam, 0.05, 1.0), mm1(lam, 20.0)
    for field in ("utilization", "number_in_system", "number_waiting", "response_time_s", "waiting_time_s"):
        np.testing.assert_allclose(getattr(g, field), getattr(m, field), rtol=1e-12, atol=1e-15)


def test_md1_waits_half_as_long_as_mm1():
    lam = np.array([0.1, 0.5, 0.9])
    np.testing.assert_allclose(mg1(lam, 1.0, 0.0).waiting_time_s, 0.5 * mm1(lam, 1.0).waiting_time_s)


def test_mg1_broadcasts_all_arguments():
    res = mg1(np.array([[0.2], [0.4]]), 1.0, np.array([0.0, 1.0, 4.0]))
    assert res.waiting_time_s.shape == res.utilization.shape == (2, 3)


# --------------------------------------------------------------------------------------------
# Single-class MVA: closed forms and operational laws
# --------------------------------------------------------------------------------------------


def machine_repairman_throughput(service_s: float, think_s: float, n: int) -> float:
    """Finite-source M/M/1//N (machine repairman), from its birth-death stationary law."""
    ratio = service_s / think_s
    terms = [math.factorial(n) / math.factorial(n - j) * ratio**j for j in range(n + 1)]
    p_idle = 1.0 / math.fsum(terms)
    return (1.0 - p_idle) / service_s


@pytest.mark.parametrize(("service_s", "think_s"), [(0.2, 1.0), (1.0, 0.5), (0.05, 3.0)])
def test_mva_single_station_equals_machine_repairman(service_s, think_s):
    res = mva([service_s], 30, think_time_s=think_s)
    expected_x = [machine_repairman_throughput(service_s, think_s, n) for n in range(1, 31)]
    np.testing.assert_allclose(res.throughput_per_s, expected_x, rtol=1e-10)
    np.testing.assert_allclose(res.response_time_s, res.n / np.array(expected_x) - think_s, rtol=1e-9)


def test_mva_one_customer_response_is_sum_of_demands():
    res = mva(DEMANDS_S, 1, THINK_S, DELAY)
    assert res.response_time_s[0] == pytest.approx(DEMANDS_S.sum())
    np.testing.assert_allclose(res.residence_time_s[0], DEMANDS_S)
    assert res.throughput_per_s[0] == pytest.approx(1.0 / (DEMANDS_S.sum() + THINK_S))
    assert res.method == "exact-mva"


def test_mva_large_population_throughput_tends_to_one_over_dmax():
    res = mva(DEMANDS_S, 2000, THINK_S, DELAY)
    assert res.throughput_per_s[-1] == pytest.approx(1.0 / 0.05, rel=1e-9)
    assert res.utilization[-1, 0] == pytest.approx(1.0, rel=1e-9)
    # Throughput never falls as N grows (up to rounding once saturated).
    assert np.all(np.diff(res.throughput_per_s) >= -1e-12 * res.throughput_per_s[1:])


def test_mva_littles_law_at_every_population():
    res = mva(DEMANDS_S, 200, THINK_S, DELAY)
    np.testing.assert_allclose(res.throughput_per_s * (res.response_time_s + THINK_S), res.n)
    np.testing.assert_allclose(res.queue_length, res.throughput_per_s[:, None] * res.residence_time_s)
    np.testing.assert_allclose(res.queue_length.sum(axis=1), res.n - res.throughput_per_s * THINK_S)
    np.testing.assert_allclose(res.residence_time_s.sum(axis=1), res.response_time_s)


def test_mva_utilization_law():
    res = mva(DEMANDS_S, 200, THINK_S, DELAY)
    np.testing.assert_allclose(res.utilization, res.throughput_per_s[:, None] * DEMANDS_S)
    assert np.all(res.utilization[:, ~DELAY] <= 1.0 + 1e-12)
    # A delay station is never queued at: its residence time is its demand.
    np.testing.assert_allclose(res.residence_time_s[:, DELAY], 0.10)
    np.testing.assert_allclose(res.queue_length[:, DELAY], res.utilization[:, DELAY])


def test_mva_lies_between_asymptotic_bounds():
    rng = np.random.default_rng(1)
    demands = rng.uniform(0.0, 0.2, size=(50, 4))
    think = rng.uniform(0.0, 2.0, size=50)
    delay = np.array([False, False, False, True])
    res = mva(demands, 300, think, delay)
    # Lazowska et al. (1984), ch. 5: X(N) in [N / (N D + Z), min(N / (D + Z), 1 / D_max)], queueing D only
    # in the N D and D_max terms (a delay station adds its demand once)
    n = res.n[None, :]
    d_q = np.where(delay, 0.0, demands).sum(axis=1)[:, None]
    d_all, d_max, z = demands.sum(axis=1)[:, None], np.where(delay, 0.0, demands).max(axis=1)[:, None], think[:, None]
    x_hi = np.minimum(n / (d_all + z), 1.0 / d_max)
    x_lo = n / (n * d_q + (d_all - d_q) + z)
    eps = 1e-12
    assert np.all(res.throughput_per_s <= x_hi * (1 + eps))
    assert np.all(res.throughput_per_s >= x_lo * (1 - eps))
    assert np.all(res.response_time_s >= np.maximum(d_all, n * d_max - z) * (1 - eps))
    assert np.all(res.response_time_s <= (n * d_q + (d_all - d_q)) * (1 + eps))


# --------------------------------------------------------------------------------------------
# Published worked examples
# --------------------------------------------------------------------------------------------


def test_mva_lazowska_ch6_timesharing_example():
    """Lazowska, Zahorjan, Graham & Sevcik (1984), *Quantitative System Performance*, ch. 6,
    p. 117: CPU 121 visits x 5 ms, disk 1 70 x 30 ms, disk 2 50 x 27 ms, Z = 15 s, N = 3.
    Queue lengths to 4 decimals as published (also the regression values of the LQN solver's
    libmva, test0.cc, Carleton University)."""
    demands = [121 * 0.005, 70 * 0.030, 50 * 0.027]
    res = mva(demands, 3, think_time_s=15.0)
    np.testing.assert_allclose(res.queue_length[-1], [0.0976, 0.3947, 0.2350], atol=5e-5)


# --------------------------------------------------------------------------------------------
# Batch evaluation
# --------------------------------------------------------------------------------------------


def test_batch_equals_one_by_one():
    rng = np.random.default_rng(7)
    demands = rng.uniform(0.0, 0.1, size=(2, 3, 4))
    think = rng.uniform(0.0, 1.0, size=(3,))  # broadcasts against the batch shape (2, 3)
    delay = [False, True, False, False]
    batch = mva(demands, 60, think, delay)
    assert batch.throughput_per_s.shape == (2, 3, 60)
    assert batch.residence_time_s.shape == (2, 3, 60, 4)
    for i in range(2):
        for j in range(3):
            one = mva(demands[i, j], 60, think[j], delay)
            for field in (
                "throughput_per_s",
                "response_time_s",
                "residence_time_s",
                "queue_length",
                "utilization",
            ):
                np.testing.assert_allclose(getattr(batch, field)[i, j], getattr(one, field), rtol=1e-12)


def test_think_time_sweep_with_one_network():
    think = np.array([0.0, 0.5, 2.0])
    swept = mva(DEMANDS_S, 10, think, DELAY)
    assert swept.throughput_per_s.shape == (3, 10)
    for i, z in enumerate(think):
        np.testing.assert_allclose(
            swept.queue_length[i], mva(DEMANDS_S, 10, z, DELAY).queue_length, rtol=1e-12
        )


def test_many_stations_unbatched():
    # More stations than the Python-float path handles: the numpy path is used without a batch.
    demands = np.linspace(0.001, 0.02, 40)
    res = mva(demands, 50, 1.0)
    np.testing.assert_allclose(res.throughput_per_s * (res.response_time_s + 1.0), res.n)
    batch = mva(demands[None, :], 50, 1.0)
    np.testing.assert_allclose(batch.throughput_per_s[0], res.throughput_per_s, rtol=1e-12)


# --------------------------------------------------------------------------------------------
# Discrete-event simulation (SimPy) of the same closed networks
# --------------------------------------------------------------------------------------------

# MVA must fall inside the 99 % confidence interval of the mean over independent replications,
# widened by a 3 % relative tolerance (for the simulation's finite-run bias).
SIM_CONFIDENCE = 0.99
SIM_REL_TOL = 0.03
SIM_REPLICATIONS = 8
SIM_COMPLETIONS = 8000  # measured cycles per replication, after...
SIM_WARMUP = 500  # ...this many discarded ones


def simulate_closed_network(service_s, routes, think_s, delay_s, populations, *, seed):
    """One replication of a closed multi-class network; per-class throughput and response time.

    Each customer of class c cycles: think (exponential, mean ``think_s[c]``); visit the FCFS
    single-server stations in ``routes[c]`` in order, each visit exponential with the station's
    mean ``service_s[k]`` (class-independent, as product form requires at FCFS); an exponential
    delay with mean ``delay_s[c]`` at an infinite-server station; complete. The response time runs
    from the end of the think time to completion. MVA demand: ``routes[c].count(k) * service_s[k]``.
    """
    rng = random.Random(seed)
    env = simpy.Environment()
    stations = [simpy.Resource(env, capacity=1) for _ in service_s]
    done = env.event()
    count, t_start = 0, 0.0
    completions = np.zeros(len(populations))
    response_sum = np.zeros(len(populations))

    def customer(c):
        nonlocal count, t_start
        while True:
            if think_s[c] > 0:
                yield env.timeout(rng.expovariate(1.0 / think_s[c]))
            t0 = env.now
            for k in routes[c]:
                with stations[k].request() as req:
                    yield req
                    yield env.timeout(rng.expovariate(1.0 / service_s[k]))
            yield env.timeout(rng.expovariate(1.0 / delay_s[c]))
            count += 1
            if count == SIM_WARMUP:
                t_start = env.now
            elif count > SIM_WARMUP:
                completions[c] += 1
                response_sum[c] += env.now - t0
                if count == SIM_WARMUP + SIM_COMPLETIONS:
                    done.succeed()

    for c, n_c in enumerate(populations):
        for _ in range(n_c):
            env.process(customer(c))
    env.run(until=done)
    return completions / (env.now - t_start), response_sum / completions


def replicate(base_seed, **network):
    """Arrays (replications, C) of throughput and response time from independent seeds."""
    runs = [simulate_closed_network(**network, seed=base_seed + i) for i in range(SIM_REPLICATIONS)]
    return np.array([r[0] for r in runs]), np.array([r[1] for r in runs])


def assert_within_ci(model, samples, what):
    """``model`` within the t confidence interval of the replication mean, plus SIM_REL_TOL."""
    mean = samples.mean(axis=0)
    half = stats.t.ppf(0.5 + SIM_CONFIDENCE / 2, len(samples) - 1) * samples.std(axis=0, ddof=1)
    half /= math.sqrt(len(samples))
    err = np.abs(np.asarray(model) - mean)
    assert np.all(err <= half + SIM_REL_TOL * np.abs(model)), (
        f"{what}: MVA {model} vs simulation {mean} +- {half} ({SIM_CONFIDENCE:.0%} CI) + {SIM_REL_TOL:.0%}"
    )


@pytest.mark.parametrize("n", [1, 4, 16, 64])
def test_mva_matches_simulation(n):
    # Stations: vpxd CPU 50 ms, database 30 ms (FCFS, exponential), 100 ms delay, Z = 1 s.
    # N* = (0.18 + 1) / 0.05 = 23.6, so N = 64 is saturated and N = 16 near the knee.
    x_sim, r_sim = replicate(
        1000 * n, service_s=[0.05, 0.03], routes=[[0, 1]], think_s=[THINK_S], delay_s=[0.10], populations=[n]
    )
    res = mva(DEMANDS_S, n, THINK_S, DELAY)
    assert_within_ci(res.throughput_per_s[-1:], x_sim, f"throughput at N={n}")
    assert_within_ci(res.response_time_s[-1:], r_sim, f"response time at N={n}")


# --------------------------------------------------------------------------------------------
# Bad input: ValueError naming the parameter, before any work
# --------------------------------------------------------------------------------------------

BAD_CALLS = [
    # mva
    (lambda: mva([0.1, -0.2], 5), "demands_s"),
    (lambda: mva([0.1, np.nan], 5), "demands_s"),
    (lambda: mva([], 5), "demands_s"),
    (lambda: mva(0.1, 5), "demands_s"),
    (lambda: mva([0.1, 0.2], 5, think_time_s=np.nan), "think_time_s"),
    (lambda: mva([0.1, 0.2], 5, think_time_s=-1.0), "think_time_s"),
    (lambda: mva([0.1, 0.2], 0), "n_customers"),
    (lambda: mva([0.1, 0.2], 2.5), "n_customers"),
    (lambda: mva([0.1, 0.2], -3), "n_customers"),
    (lambda: mva([0.1, 0.2], [3, 4]), "n_customers"),
    (lambda: mva([0.1, 0.2], True), "n_customers"),
    (lambda: mva(np.ones((4, 2)), 5, think_time_s=np.ones(3)), "think_time_s"),
    (lambda: mva([0.1, 0.2], 5, delay_stations=[True]), "delay_stations"),
    (lambda: mva([0.1, 0.2], 5, delay_stations=[2, 0]), "delay_stations"),
    (lambda: mva([0.0, 0.0], 5, think_time_s=0.0), "demands_s"),
    # mm1
    (lambda: mm1(-1.0, 2.0), "arrival_rate_per_s"),
    (lambda: mm1(np.nan, 2.0), "arrival_rate_per_s"),
    (lambda: mm1(1.0, 0.0), "service_rate_per_s"),
    (lambda: mm1([1.0, 2.0], [3.0, 4.0, 5.0]), "service_rate_per_s"),
    # mg1
    (lambda: mg1(-1.0, 0.1, 1.0), "arrival_rate_per_s"),
    (lambda: mg1(1.0, np.nan, 1.0), "mean_service_s"),
    (lambda: mg1(1.0, 0.1, -0.5), "service_scv"),
    (lambda: mg1([1.0, 2.0], 0.1, [1.0, 0.0, 2.0]), "service_scv"),
]


@pytest.mark.parametrize(("call", "name"), BAD_CALLS)
def test_bad_input_raises_value_error_naming_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()


@pytest.mark.parametrize(
    "call",
    [lambda: mm1(2.0, 2.0), lambda: mm1([0.5, 3.0], 2.0), lambda: mg1(10.0, 0.1, 1.0)],
)
def test_unstable_open_queue_names_both_parameters_and_utilization(call):
    with pytest.raises(ValueError) as info:
        call()
    msg = str(info.value)
    assert "arrival_rate_per_s" in msg
    assert "service_rate_per_s" in msg or "mean_service_s" in msg
    assert "utilization" in msg
    assert "[0, 1)" in msg


def test_error_message_gives_value_and_range():
    with pytest.raises(ValueError, match=r"demands_s must be in \[0, inf\); got -0.2"):
        mva([0.1, -0.2], 5)
    with pytest.raises(ValueError, match=r"n_customers must be .*in \[1, "):
        mva([0.1], 0)


def test_mva_refuses_a_solution_larger_than_memory_allows_before_any_work():
    """10^7 customers on the Python-float path held ~2.9 GB; a 1000 x 3 batch at that population 74.5 GiB.
    Both are refused at once with the limit stated."""
    from vcperf import queueing

    # 10^7 customers is now refused by its range (exact MVA stops at MAX_MVA_CUSTOMERS, ~2 s of recursion)
    with pytest.raises(ValueError, match=r"n_customers must be in \[1, 1000000\] \(an integer\); got 10000000"):
        queueing.mva([0.3, 0.05, 0.9], 10_000_000)
    with pytest.raises(ValueError, match=r"above the 1 GiB limit"):
        queueing.mva(np.full((300, 3), 0.1), queueing.MAX_MVA_CUSTOMERS)
    with pytest.raises(ValueError, match=r"n_customers x networks"):
        queueing.mva(np.full((1000, 3), 0.1), 1_000_000)
    assert queueing.mva([0.3, 0.05, 0.9], 1_000_000).throughput_per_s.shape == (1_000_000,)
