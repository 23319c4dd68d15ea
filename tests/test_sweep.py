"""Tests of vcperf.sweep and `vcperf sweep`: designs, chunking, Dask equivalence, bad grids."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from deadlines import WAIT_S

from vcperf import cli, network, queueing, sweep
from vcperf.sweep.evaluation import spanning_points

ROOT = Path(__file__).resolve().parent.parent

TRANSFER = "vcperf.network.transfer_time_s"
SMALL = {
    "parameters": {
        "size_bytes": [1.0e6, "1e9"],  # YAML reads 1e9 (no dot) as a string: accepted as a number
        "rtt_s": {"lo": 0.001, "hi": 0.3, "n": 3, "scale": "log"},
        "bandwidth_bps": {"lo": 1.0e7, "hi": 1.0e10, "n": 4},
    }
}


def _grid(**kw):
    spec = {"parameters": dict(SMALL["parameters"])}
    spec.update(kw)
    return spec


# --------------------------------------------------------------------------------------------
# Designs
# --------------------------------------------------------------------------------------------


def test_cartesian_design_is_the_full_product_last_parameter_fastest():
    grid = sweep.parse_grid(SMALL, TRANSFER)
    assert grid.size == 2 * 3 * 4
    pts = sweep.design_points(grid)
    assert set(pts) == {"size_bytes", "rtt_s", "bandwidth_bps"}
    np.testing.assert_array_equal(pts["bandwidth_bps"][:4], np.linspace(1e7, 1e10, 4))
    np.testing.assert_allclose(pts["rtt_s"][::4][:3], np.geomspace(0.001, 0.3, 3))
    np.testing.assert_array_equal(pts["size_bytes"], np.repeat([1e6, 1e9], 12))
    combos = set(zip(*(pts[k] for k in ("size_bytes", "rtt_s", "bandwidth_bps")), strict=True))
    assert len(combos) == grid.size  # every combination exactly once


def test_design_rows_do_not_depend_on_the_slice():
    grid = sweep.parse_grid(SMALL, TRANSFER)
    full = sweep.design_points(grid)
    part = sweep.design_points(grid, 5, 11)
    for k in full:
        np.testing.assert_array_equal(part[k], full[k][5:11])


def test_latin_hypercube_is_seeded_reproducible_stratified_and_within_bounds():
    spec = {
        "design": "latin_hypercube",
        "samples": 200,
        "seed": 7,
        "parameters": {
            "arrival_rate_per_s": {"lo": 0.1, "hi": 0.9},
            "service_rate_per_s": {"lo": 1.0, "hi": 100.0, "scale": "log"},
        },
    }
    a = sweep.design_points(sweep.parse_grid(spec, "vcperf.queueing.mm1"))
    b = sweep.design_points(sweep.parse_grid(spec, "vcperf.queueing.mm1"))
    c = sweep.design_points(sweep.parse_grid(spec, "vcperf.queueing.mm1", seed=8))
    for k in a:
        np.testing.assert_array_equal(a[k], b[k])
        assert not np.array_equal(a[k], c[k])
    lam, mu = a["arrival_rate_per_s"], a["service_rate_per_s"]
    assert lam.min() >= 0.1 and lam.max() <= 0.9
    assert mu.min() >= 1.0 and mu.max() <= 100.0
    # One point in each of the 200 equal strata of every dimension (uniform in log for a log range).
    assert np.array_equal(np.sort(((lam - 0.1) / 0.8 * 200).astype(int)), np.arange(200))
    assert np.array_equal(np.sort((np.log(mu) / np.log(100.0) * 200).astype(int)), np.arange(200))


def test_latin_hypercube_over_a_list_uses_every_value_equally():
    spec = {"design": "latin_hypercube", "samples": 30, "parameters": {
        "arrival_rate_per_s": [0.1, 0.2, 0.3], "service_rate_per_s": {"lo": 1.0, "hi": 2.0}}}
    pts = sweep.design_points(sweep.parse_grid(spec, "vcperf.queueing.mm1"))
    values, counts = np.unique(pts["arrival_rate_per_s"], return_counts=True)
    np.testing.assert_array_equal(values, [0.1, 0.2, 0.3])
    np.testing.assert_array_equal(counts, [10, 10, 10])


def test_grid_yaml_file(tmp_path):
    path = tmp_path / "grid.yaml"
    path.write_text("parameters:\n  size_bytes: [1.0e6, 1e9]\n  rtt_s: {lo: 0.01, hi: 0.1, n: 2}\n"
                    "  bandwidth_bps: [1.0e9]\n")
    grid = sweep.parse_grid(path, TRANSFER)
    assert grid.size == 4 and grid.names == ["size_bytes", "rtt_s", "bandwidth_bps"]


# --------------------------------------------------------------------------------------------
# Evaluation
# --------------------------------------------------------------------------------------------


def test_sweep_values_equal_direct_model_calls():
    grid = sweep.parse_grid(SMALL, TRANSFER)
    df = sweep.evaluate(TRANSFER, grid, chunk_size=5)
    assert list(df.columns) == ["size_bytes", "rtt_s", "bandwidth_bps", "transfer_time_s"]
    assert len(df) == grid.size
    for row in df.itertuples(index=False):
        direct = network.transfer_time_s(row.size_bytes, row.bandwidth_bps, row.rtt_s)
        assert row.transfer_time_s == pytest.approx(float(direct), rel=1e-12)


def test_chunking_gives_the_same_table_as_one_chunk():
    grid = sweep.parse_grid(SMALL, TRANSFER)
    one = sweep.evaluate(TRANSFER, grid, chunk_size=10_000)
    for k in (1, 5, 7, 24):
        pd.testing.assert_frame_equal(sweep.evaluate(TRANSFER, grid, chunk_size=k), one)


def test_dataclass_result_is_flattened_into_numeric_scalar_fields():
    spec = {"parameters": {"arrival_rate_per_s": [1.0, 2.0], "service_rate_per_s": [4.0, 5.0]}}
    df = sweep.evaluate("vcperf.queueing.mm1", sweep.parse_grid(spec, "vcperf.queueing.mm1"), chunk_size=3)
    assert list(df.columns) == ["arrival_rate_per_s", "service_rate_per_s", "utilization", "number_in_system",
                                "number_waiting", "response_time_s", "waiting_time_s"]  # no "method" string
    direct = queueing.mm1(df.arrival_rate_per_s.to_numpy(), df.service_rate_per_s.to_numpy())
    np.testing.assert_allclose(df.response_time_s, direct.response_time_s, rtol=1e-15)
    # Little's law holds row by row in the table.
    np.testing.assert_allclose(df.number_in_system, df.arrival_rate_per_s * df.response_time_s, rtol=1e-12)


def test_model_error_at_a_point_names_the_point():
    spec = {"parameters": {"arrival_rate_per_s": [1.0, 6.0], "service_rate_per_s": [5.0]}}
    with pytest.raises(ValueError, match=r"arrival_rate_per_s': 6\.0.*utilization"):
        sweep.evaluate("vcperf.queueing.mm1", sweep.parse_grid(spec, "vcperf.queueing.mm1"))


@pytest.mark.slow
def test_two_worker_local_cluster_equals_in_process_row_for_row(tmp_path):
    distributed = pytest.importorskip("distributed")
    grid = sweep.parse_grid(SMALL, TRANSFER)
    local = sweep.evaluate(TRANSFER, grid, chunk_size=5)
    grid_file = tmp_path / "grid.yaml"
    grid_file.write_text(yaml.safe_dump(SMALL, sort_keys=False))
    out = tmp_path / "table.csv"
    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                                  dashboard_address=":0") as cluster, distributed.Client(cluster) as client:
        assert len(client.nthreads()) == 2
        remote = sweep.evaluate(TRANSFER, grid, chunk_size=5, client=client)
        # The command line on the same, existing cluster (--scheduler tcp://HOST:PORT).
        argv = ["sweep", TRANSFER, "--grid", str(grid_file), "--scheduler", cluster.scheduler_address,
                "--chunk-size", "4", "--out", str(out)]
        assert cli.main(argv) == 0
    pd.testing.assert_frame_equal(remote, local, check_exact=True)
    pd.testing.assert_frame_equal(pd.read_csv(out), local, check_exact=False, rtol=1e-15)


@pytest.mark.slow
def test_cli_sweep_on_its_own_local_cluster(tmp_path):
    pytest.importorskip("distributed")
    grid_file = tmp_path / "grid.yaml"
    grid_file.write_text(yaml.safe_dump(SMALL, sort_keys=False))
    out = tmp_path / "table.csv"
    assert cli.main(["sweep", TRANSFER, "--grid", str(grid_file), "--workers", "2", "--chunk-size", "6",
                     "--out", str(out)]) == 0
    local = sweep.evaluate(TRANSFER, sweep.parse_grid(SMALL, TRANSFER))
    pd.testing.assert_frame_equal(pd.read_csv(out), local, check_exact=False, rtol=1e-15)


# --------------------------------------------------------------------------------------------
# Bad grids and models: rejected before any work, naming the parameter
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("params", "match"),
    [
        ({"rtt_ms": [1.0]}, "'rtt_ms' is not an argument of vcperf.queueing.mm1"),
        ({"arrival_rate_per_s": []}, "arrival_rate_per_s: empty list"),
        ({"arrival_rate_per_s": {"lo": 0.5, "hi": 0.1, "n": 3}}, r"arrival_rate_per_s: empty range.*lo=0\.5 > hi=0\.1"),
        ({"arrival_rate_per_s": {"lo": 0.5, "hi": 0.5, "n": 3}}, "arrival_rate_per_s: empty range"),
        ({"arrival_rate_per_s": {"lo": 0.1, "hi": 0.5, "n": 0}}, "arrival_rate_per_s: n must be an integer >= 1"),
        ({"arrival_rate_per_s": {"lo": 0.1, "hi": 0.5, "n": 2.5}}, "arrival_rate_per_s: n must be an integer"),
        ({"arrival_rate_per_s": {"lo": 0.1, "hi": 0.5}}, "arrival_rate_per_s: a cartesian range needs n"),
        ({"arrival_rate_per_s": {"lo": "fast", "hi": 0.5, "n": 2}}, "arrival_rate_per_s: lo must be a number"),
        ({"arrival_rate_per_s": [0.1, "fast"]}, "arrival_rate_per_s: value must be a number; got 'fast'"),
        ({"arrival_rate_per_s": [0.1, True]}, "arrival_rate_per_s: value must be a number"),
        ({"arrival_rate_per_s": {"lo": 0.0, "hi": 0.5, "n": 2, "scale": "log"}}, "arrival_rate_per_s: a log range"),
        ({"arrival_rate_per_s": {"lo": 0.1, "hi": 0.5, "n": 2, "scale": "cubic"}}, "arrival_rate_per_s: scale"),
        ({"arrival_rate_per_s": {"lo": 0.1, "hi": 0.5, "n": 2, "step": 1}}, "arrival_rate_per_s: unknown range"),
    ],
)
def test_bad_parameter_fails_naming_it(params, match):
    spec = {"parameters": {"service_rate_per_s": [1.0], **params}}
    with pytest.raises(ValueError, match=match):
        sweep.parse_grid(spec, "vcperf.queueing.mm1")


@pytest.mark.parametrize(
    ("extra", "match"),
    [
        ({"design": "sobol"}, r"design must be one of \['cartesian', 'latin_hypercube'\]; got 'sobol'"),
        ({"design": "latin_hypercube"}, "samples must be given"),
        ({"design": "latin_hypercube", "samples": 0}, "samples must be an integer >= 1"),
        ({"samples": 10}, "samples is only used by design latin_hypercube"),
        ({"seeds": 1}, r"unknown keys \['seeds'\]"),
    ],
)
def test_bad_design_fails(extra, match):
    with pytest.raises(ValueError, match=match):
        sweep.parse_grid(_grid(**extra), TRANSFER)


def test_unknown_keyword_of_a_model_with_kwargs_is_rejected_up_front():
    spec = _grid()
    spec["parameters"]["rwnd_bytez"] = [1.0e6]  # transfer_time_s takes **tcp_kw
    with pytest.raises(ValueError, match="rwnd_bytez"):
        sweep.parse_grid(spec, TRANSFER)
    spec["parameters"]["rwnd_bytes"] = spec["parameters"].pop("rwnd_bytez")  # a real tcp keyword is fine
    assert sweep.parse_grid(spec, TRANSFER).size == 24


def test_required_model_argument_missing_from_the_grid():
    with pytest.raises(ValueError, match=r"\['service_rate_per_s'\].*no default"):
        sweep.parse_grid({"parameters": {"arrival_rate_per_s": [1.0]}}, "vcperf.queueing.mm1")


@pytest.mark.parametrize(
    ("model", "match"),
    [
        ("numpy.linalg.solve", "inside the vcperf package"),
        ("os.system", "inside the vcperf package"),
        ("vcperf.cli.main", "not from vcperf.cli"),
        ("vcperf.queueing._mva_batched", "public"),
        ("vcperf.nosuchmodule.f", "cannot be imported"),
        ("vcperf.queueing.MAX_MVA_CUSTOMERS", "not a function"),
        ("vcperf.queueing.np", "not a function"),
    ],
)
def test_only_public_vcperf_model_functions(model, match):
    with pytest.raises(ValueError, match=match):
        sweep.resolve_model(model)


def test_bad_chunk_size():
    grid = sweep.parse_grid(SMALL, TRANSFER)
    with pytest.raises(ValueError, match="chunk_size must be an integer >= 1"):
        sweep.evaluate(TRANSFER, grid, chunk_size=0)


# --------------------------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------------------------


def test_cli_sweep_writes_the_tidy_table(tmp_path):
    grid_file = tmp_path / "grid.yaml"
    grid_file.write_text("parameters:\n  size_bytes: [1.0e6, 1.0e9]\n  rtt_s: {lo: 0.001, hi: 0.3, n: 3, scale: log}\n"
                         "  bandwidth_bps: {lo: 1.0e7, hi: 1.0e10, n: 4}\n")
    out = tmp_path / "table.csv"
    assert cli.main(["sweep", TRANSFER, "--grid", str(grid_file), "--out", str(out), "--chunk-size", "7"]) == 0
    df = pd.read_csv(out)
    expected = sweep.evaluate(TRANSFER, sweep.parse_grid(grid_file, TRANSFER))
    pd.testing.assert_frame_equal(df, expected, check_exact=False, rtol=1e-15)


def test_cli_sweep_bad_grid_exits_2_naming_the_parameter(tmp_path, capsys):
    grid_file = tmp_path / "grid.yaml"
    grid_file.write_text("parameters:\n  size_bytes: [1.0e6]\n  rtt_s: {lo: 0.3, hi: 0.001, n: 3}\n"
                         "  bandwidth_bps: [1.0e9]\n")
    out = tmp_path / "table.csv"
    assert cli.main(["sweep", TRANSFER, "--grid", str(grid_file), "--out", str(out)]) == 2
    assert "rtt_s: empty range" in capsys.readouterr().err
    assert not out.exists()  # failed before any work


def test_cli_sweep_failing_point_leaves_no_table(tmp_path, capsys):
    grid_file = tmp_path / "grid.yaml"
    grid_file.write_text("parameters:\n  arrival_rate_per_s: [1.0, 2.0, 6.0]\n  service_rate_per_s: [5.0]\n")
    out = tmp_path / "table.csv"
    assert cli.main(["sweep", "vcperf.queueing.mm1", "--grid", str(grid_file), "--out", str(out),
                     "--chunk-size", "1"]) == 2
    assert "arrival_rate_per_s': 6.0" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == [grid_file]  # neither the table nor a partial file



@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_cli_sweep_stopped_by_a_signal_leaves_no_partial_table(signum, tmp_path):
    grid_file = tmp_path / "grid.yaml"
    grid_file.write_text("parameters:\n  arrival_rate_per_s: {lo: 0.1, hi: 0.9, n: 10000}\n"
                         "  service_rate_per_s: {lo: 1.0, hi: 2.0, n: 1000}\n")
    out = tmp_path / "table.csv"
    partial = tmp_path / "table.csv.partial"
    proc = subprocess.Popen([sys.executable, "-m", "vcperf.cli", "sweep", "vcperf.queueing.mm1", "--grid",
                             str(grid_file), "--out", str(out), "--chunk-size", "1000"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    deadline = time.monotonic() + WAIT_S  # tests/deadlines.py
    while not (partial.exists() and partial.stat().st_size > 0):  # the sweep is writing
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.05)
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 128 + signum, err
    assert err == "vcperf sweep: interrupted\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["grid.yaml"]  # neither the table nor the partial file


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("parameters:\n  arrival_rate_per_s: [1.0]\n  arrival_rate_per_s: [2.0]\n  service_rate_per_s: [5.0]\n",
         "found duplicate key 'arrival_rate_per_s'"),
        ("design: cartesian\ndesign: latin_hypercube\nparameters:\n  arrival_rate_per_s: [1.0]\n"
         "  service_rate_per_s: [5.0]\n", "found duplicate key 'design'"),
        ("parameters:\n  arrival_rate_per_s: {lo: 0.1, hi: 0.9, n: 2, n: 3}\n  service_rate_per_s: [5.0]\n",
         "found duplicate key 'n'"),
    ],
)
def test_duplicate_yaml_keys_are_an_error(text, match, tmp_path):
    path = tmp_path / "grid.yaml"
    path.write_text(text)
    with pytest.raises(ValueError, match=match):
        sweep.parse_grid(path, "vcperf.queueing.mm1")


@pytest.mark.parametrize(
    ("spec", "match"),
    [
        ({"arrival_rate_per_s": {"lo": 0.1, "hi": 0.5, "n": "1e6"}}, r"n must be an integer >= 1 written as a number"),
        ({"arrival_rate_per_s": {"lo": 0.1, "hi": 0.5, "n": "２"}}, r"n must be an integer >= 1 written as a number"),
        ({"arrival_rate_per_s": {"lo": 0.1, "hi": 0.5, "n": "2"}}, r"n must be an integer >= 1 written as a number"),
        ({"arrival_rate_per_s": {"lo": "０.1", "hi": 0.5, "n": 2}}, "lo must be a number"),
        ({"arrival_rate_per_s": [0.1, "1_000"]}, "value must be a number"),
        ({"arrival_rate_per_s": [0.1, "0x10"]}, "value must be a number"),
        ({"arrival_rate_per_s": [0.1, " 0.2"]}, "value must be a number"),
        ({"arrival_rate_per_s": [0.1, "nan"]}, "value must be a number"),
        ({"arrival_rate_per_s": [0.1, "١"]}, "value must be a number"),
    ],
)
def test_strict_number_parsing(spec, match):
    with pytest.raises(ValueError, match=match):
        sweep.parse_grid({"parameters": {"service_rate_per_s": [5.0], **spec}}, "vcperf.queueing.mm1")


def test_strict_integers_for_samples_seed_and_chunk_size():
    lhs = {"design": "latin_hypercube", "parameters": {"arrival_rate_per_s": {"lo": 0.1, "hi": 0.9},
                                                         "service_rate_per_s": [5.0]}}
    for key, value in [("samples", "1e3"), ("samples", "１０"), ("seed", "7")]:
        with pytest.raises(ValueError, match=f"{key} must be an integer >= [01] written as a number"):
            sweep.parse_grid({**lhs, "samples": 10, key: value}, "vcperf.queueing.mm1")
    grid = sweep.parse_grid({**lhs, "samples": 10.0, "seed": 3}, "vcperf.queueing.mm1")  # an integral float is fine
    assert grid.samples == 10
    with pytest.raises(ValueError, match="chunk_size must be an integer >= 1"):
        sweep.evaluate("vcperf.queueing.mm1", grid, chunk_size="1e3")


@pytest.mark.parametrize(
    ("spec", "chunk"),
    [
        ({"parameters": {"arrival_rate_per_s": {"lo": 0.1, "hi": 0.9, "n": 10**6}, "service_rate_per_s": [5.0, 6.0]}},
         10**5),
        ({"parameters": {"arrival_rate_per_s": {"lo": 0.1, "hi": 0.9, "n": 10},
                         "service_rate_per_s": {"lo": 1.0, "hi": 2.0, "n": 10**6, "scale": "log"}}}, 10**5),
        ({"parameters": {"arrival_rate_per_s": [float(x) for x in np.linspace(0.1, 0.9, 10**5)],
                         "service_rate_per_s": [5.0, 6.0, 7.0]}}, 2 * 10**5),
        ({"design": "latin_hypercube", "samples": 10**6, "parameters": {
            "arrival_rate_per_s": {"lo": 0.1, "hi": 0.9},
            "service_rate_per_s": {"lo": 1.0, "hi": 2.0, "scale": "log"}}}, 10**5),
        ({"design": "latin_hypercube", "samples": 10**6, "parameters": {
            "arrival_rate_per_s": [0.1, 0.2, 0.3], "service_rate_per_s": {"lo": 1.0, "hi": 2.0}}}, 10**5),
    ],
    ids=["lin-axis", "log-axis", "list-axis", "lhs", "lhs-list"],
)
def test_memory_estimate_bounds_the_measured_peak(spec, chunk):
    """The memory guard's estimate (design_bytes, summed as check_memory does) is at least the peak the
    design arrays really take (tracemalloc: the axes held while a chunk is built, or the whole hypercube),
    and at most twice it."""
    import tracemalloc

    grid = sweep.parse_grid(spec, "vcperf.queueing.mm1")
    estimate = sum(sweep.design_bytes(grid, chunk).values())
    tracemalloc.start()
    try:
        base, _ = tracemalloc.get_traced_memory()
        points = sweep.design_points(grid, 0, chunk)  # builds the axes (or the hypercube), then one chunk
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(next(iter(points.values()))) == chunk
    measured = peak - base
    assert measured <= estimate <= 2 * measured, (measured, estimate)


def test_the_whole_grid_is_validated_before_the_first_point(tmp_path):
    """A value the model rejects, last on its axis of a large grid, fails the sweep when it starts,
    naming the point, before any chunk is evaluated or written."""
    spec = {"parameters": {"arrival_rate_per_s": [1.0, 2.0, 6.0],
                           "service_rate_per_s": {"lo": 5.0, "hi": 9.0, "n": 10**6}}}
    grid = sweep.parse_grid(spec, "vcperf.queueing.mm1")
    t0 = time.perf_counter()
    with pytest.raises(ValueError, match=r"failed at \{'arrival_rate_per_s': 6\.0, 'service_rate_per_s': 5\.0\}"):
        sweep.iter_evaluate("vcperf.queueing.mm1", grid, chunk_size=1000)  # raised by the call, not a chunk
    assert time.perf_counter() - t0 < 5.0
    points = spanning_points(grid)
    assert sorted(zip(points["arrival_rate_per_s"], points["service_rate_per_s"], strict=True)) == [
        (1.0, 5.0), (1.0, 5.0), (1.0, 9.0), (2.0, 5.0), (6.0, 5.0)]
    grid_file = tmp_path / "grid.yaml"
    grid_file.write_text(yaml.safe_dump(spec))
    assert cli.main(["sweep", "vcperf.queueing.mm1", "--grid", str(grid_file), "--out", str(tmp_path / "t.csv")]) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["grid.yaml"]
