"""`make bench`'s machinery, without timing anything: README's performance table generated from a sample
results.json, goals met/missed, and the load-aware repeat policy (fed fake load averages). No test here
asserts a wall-clock time."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from bench import measure, paths, report  # noqa: E402


def _rec(value, loads, others=0.3, busy_load=2.0):
    """A measurement record as bench.measure.measure writes it: one attempt per load, the last one kept."""
    attempts = [{"value": value, "load_1m_before": x, "load_1m_after": x, "others_cores": others, "wall_s": 1.0,
                 "busy": x > busy_load, "waited_s": 0.0, "detail": {}} for x in loads]
    return {"value": value, "busy": attempts[-1]["busy"], "kept": len(attempts) - 1, "attempts": attempts}


@pytest.fixture
def sample() -> dict:
    return {
        "machine": {"cpu_model": "Test CPU", "cores": 2, "python": "3.11.7", "versions": {"numpy": "2.4.6"},
                    "date_utc": "2026-11-23T01:00:00Z"},
        "policy": {"busy_load": 2.0, "attempts": 3, "wait_s": 30.0},
        "regenerate_warm_s": 18.5,
        "fidelity_cli_s": 2.6,
        "whatif_update_ms": {"robo.operations_update": 41.0, "vmotion.migration_whatif_update": 64.0},
        "browser_update_ms": {"robo_networks[0]": 120.0, "vcha_overhead[0]": 300.0},
        "dask_speedup": 1.6,
        "measurements": {
            "regenerate_warm_s": _rec(18.5, [3.1, 2.7, 1.4]),
            "fidelity_cli_s": _rec(2.6, [0.9]),
            "whatif_update_ms": {"robo.operations_update": _rec(41.0, [1.0]),
                                 "vmotion.migration_whatif_update": _rec(64.0, [2.5, 2.4, 2.2])},
            "browser_update_ms": {"robo_networks[0]": _rec(120.0, [1.2]), "vcha_overhead[0]": _rec(300.0, [1.3])},
            "dask_speedup": _rec(1.6, [1.1], others=0.8),
        },
        "table_markdown": "| hot path | measured | goal |\n|---|---:|---|\n| exact MVA N=256 | 0.374 ms | met |",
    }


def _row(table: str, needle: str) -> list[str]:
    lines = [line for line in table.splitlines() if needle in line]
    assert len(lines) == 1, (needle, lines)
    return [c.strip() for c in lines[0].strip("|").split("|")]


def test_headline_table_has_every_issue_key_with_goal_met_or_missed(sample):
    table = report.headline_table(sample)
    # measurement | measured | goal | previous | ratio | load | others | attempts
    assert _row(table, "warm cache, into") == [report.HEADLINE["regenerate_warm_s"][2], "18.5 s", "≤ 20 s: met",
                                               "—", "—", "1.40", "0.3", "3"]
    assert _row(table, "`vcperf fidelity`")[1:3] == ["2.6 s", "≤ 2 s: missed (1.3x)"]
    assert _row(table, "robo.operations_update")[1:3] == ["41 ms", "≤ 50 ms: met"]
    assert _row(table, "migration_whatif_update")[1:] == ["64 ms", "≤ 50 ms: missed (1.3x)", "—", "—", "2.20 (busy)",
                                                         "0.3", "3"]
    assert _row(table, "robo_networks[0]")[1:3] == ["120 ms", "≤ 150 ms: met"]
    assert _row(table, "vcha_overhead[0]")[1:3] == ["300 ms", "≤ 150 ms: missed (2.0x)"]
    assert _row(table, "Dask")[1:7] == ["1.60x", "> 1.00x: met", "—", "—", "1.10", "0.8"]
    # one row per panel plus one per scalar key (the paths of issues 31 and 41, `make test-fast` among them,
    # not measured here), nothing else
    assert len(table.splitlines()) == 2 + 7 + 2 + 2 + 5


def test_missing_measurements_are_shown_as_not_measured(sample):
    for key in ("regenerate_warm_s", "browser_update_ms", "dask_speedup"):
        sample.pop(key)
        sample["measurements"].pop(key)
    table = report.headline_table(sample)
    for needle in ("warm cache, into", "in the browser", "Dask", "empty calibration cache", "Voilà app", "set-up",
                   "`make test`", "`make test-fast`"):
        row = _row(table, needle)
        assert row[1] == "not measured" and "met" not in row[2] and "missed" not in row[2], row
    assert _row(table, "robo.operations_update")[2] == "≤ 50 ms: met"


@pytest.mark.parametrize(("value", "op", "goal", "expected"), [
    (50.0, "<=", 50.0, "met"), (50.1, "<=", 50.0, "missed (1.0x)"), (150.0, "<=", 50.0, "missed (3.0x)"),
    (1.01, ">", 1.0, "met"), (1.0, ">", 1.0, "missed (1.0x)"), (0.5, ">", 1.0, "missed (2.0x)"),
    (None, "<=", 1.0, "—"), (float("nan"), "<=", 1.0, "—"),
])
def test_goal_status(value, op, goal, expected):
    assert report.goal_status(value, op, goal) == expected


def test_readme_block_is_generated_from_results_json(sample, tmp_path):
    results = tmp_path / "results.json"
    results.write_text(json.dumps(sample))
    readme = tmp_path / "README.md"
    readme.write_text(f"# title\n\nprose before\n\n{report.README_START}\nold table\n{report.README_END}"
                      "\n\nprose after\n")
    assert report.main(["--results", str(results), "--readme", str(readme)]) == 0
    text = readme.read_text()
    assert text.startswith("# title\n\nprose before\n\n") and text.endswith("\n\nprose after\n")
    assert "old table" not in text
    block = text.split(report.README_START, 1)[1].split(report.README_END, 1)[0]
    assert block.strip() == report.readme_block(sample).strip()
    assert report.headline_table(sample) in block
    assert sample["table_markdown"] in block
    machine = block.strip().splitlines()[0]
    assert "Test CPU" in machine and "2026-11-23" in machine and "0.9–3.1" in machine, machine
    assert "exceeded 2 is repeated (up to 3 attempts)" in machine, machine
    # a second run over its own output changes nothing
    assert report.main(["--results", str(results), "--readme", str(readme)]) == 0
    assert readme.read_text() == text


def test_readme_without_markers_or_results_is_refused(sample, tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("# no markers\n")
    with pytest.raises(ValueError, match="bench:start"):
        report.write_readme(readme, sample)
    assert report.main(["--results", str(tmp_path / "missing.json"), "--readme", str(readme)]) == 1
    assert readme.read_text() == "# no markers\n"


def test_performance_page_has_one_bench_block_and_readme_none():
    """The benchmark tables live in docs/PERFORMANCE.md (``make bench-readme`` writes them there)."""
    assert report.README_START not in (REPO / "README.md").read_text(encoding="utf-8")
    assert "--readme docs/PERFORMANCE.md" in (REPO / "Makefile").read_text(encoding="utf-8")
    text = (REPO / "docs" / "PERFORMANCE.md").read_text(encoding="utf-8")
    assert text.count(report.README_START) == 1 and text.count(report.README_END) == 1
    assert text.index(report.README_START) < text.index(report.README_END)


# --------------------------------------------------------------------------------------------
# The load policy: busy attempts are repeated, the kept one is the first quiet one
# --------------------------------------------------------------------------------------------


@pytest.fixture
def fake_load(monkeypatch):
    """Feeds ``measure`` the given 1-min load averages, one per read; returns the list of reads left."""
    loads: list[float] = []

    def read():
        return loads.pop(0) if loads else 0.0

    monkeypatch.setattr(measure, "load_1m", read)
    monkeypatch.setattr(measure, "_busy_cpu_s", lambda: None)  # the real machine's others' CPU is not ours to test
    monkeypatch.setattr(measure, "MIN_WINDOW_S", 0.0)
    return loads


def test_busy_attempts_are_repeated_until_a_quiet_one(fake_load):
    # before/after of each attempt (no waiting: wait_s=0 reads no extra load)
    fake_load[:] = [3.5, 3.4, 2.5, 2.4, 1.5, 1.6, 0.1, 0.1]
    values = iter([10.0, 11.0, 12.0, 13.0])
    rec = measure.measure("x", lambda: next(values), measure.Policy(busy_load=2.0, attempts=5, wait_s=0), log=str)
    assert [a["load_1m_before"] for a in rec["attempts"]] == [3.5, 2.5, 1.5]
    assert [a["busy"] for a in rec["attempts"]] == [True, True, False]
    assert rec["kept"] == 2 and rec["value"] == 12.0 and rec["busy"] is False


def test_all_busy_keeps_the_least_loaded_attempt_and_says_busy(fake_load):
    fake_load[:] = [3.0, 3.0, 2.2, 2.2, 4.0, 4.0]
    values = iter([(1.0, {"k": 1}), (2.0, {"k": 2}), (3.0, {"k": 3})])
    rec = measure.measure("x", lambda: next(values), measure.Policy(busy_load=2.0, attempts=3, wait_s=0), log=str)
    assert len(rec["attempts"]) == 3
    assert rec["kept"] == 1 and rec["value"] == 2.0 and rec["busy"] is True
    assert rec["attempts"][1]["detail"] == {"k": 2}


def test_a_failing_attempt_is_recorded_and_not_repeated(fake_load):
    fake_load[:] = [5.0, 5.0]

    def broken():
        raise RuntimeError("no chromium")

    rec = measure.measure("x", broken, measure.Policy(busy_load=2.0, attempts=3, wait_s=0), log=str)
    assert rec["value"] is None and len(rec["attempts"]) == 1
    assert "no chromium" in rec["attempts"][0]["detail"]["error"]


def test_wait_for_quiet_sleeps_until_the_load_falls_and_no_longer_than_allowed():
    slept: list[float] = []
    loads = iter([3.0, 2.6, 2.1, 1.9, 1.0])
    policy = measure.Policy(busy_load=2.0, wait_s=30.0, poll_s=5.0)
    assert measure.wait_for_quiet(policy, sleep=slept.append, read_load=lambda: next(loads)) == 15.0
    assert slept == [5.0, 5.0, 5.0]
    slept.clear()
    policy = measure.Policy(busy_load=2.0, wait_s=12.0, poll_s=5.0)
    assert measure.wait_for_quiet(policy, sleep=slept.append, read_load=lambda: 9.0) == 12.0
    assert slept == [5.0, 5.0, 2.0]


def test_every_view_update_is_benchmarked():
    """Each ``*_update`` of vcperf.views runs with its defaults, so `make bench` times every panel."""
    from bench import user

    fns = user.update_functions()
    assert len(fns) >= 8, sorted(fns)
    not_timed = {k: v for k, v in fns.items() if isinstance(v, str)}
    assert not not_timed, not_timed


def test_update_keeps_earlier_parts_until_measured_again(sample):
    """`bench/run.py --only hotpaths --update`: the user-facing numbers of the earlier run stay in results.json."""
    from bench import run

    fresh = {"machine": {"cpu_model": "new"}, "policy": {"busy_load": 4.0, "attempts": 2, "wait_s": 0.0},
             "measurements": {}, "notes": {}}
    merged = run.start_from(sample, fresh)
    assert merged["machine"] == {"cpu_model": "new"} and merged["policy"]["busy_load"] == 4.0
    assert merged["whatif_update_ms"] == sample["whatif_update_ms"]
    assert merged["measurements"].keys() == sample["measurements"].keys()
    merged["measurements"]["dask_speedup"] = {"value": 2.0}
    assert sample["measurements"]["dask_speedup"]["value"] == 1.6  # the earlier results are not modified
    assert report.headline_table(merged) == report.headline_table({**sample, "measurements": {
        **sample["measurements"], "dask_speedup": {"value": 2.0}}})


def test_machine_line_states_the_policy_each_measurement_ran_under(sample):
    sample["measurements"]["fidelity_cli_s"]["policy"] = {"busy_load": 2.0, "attempts": 2}
    sample["measurements"]["dask_speedup"]["policy"] = {"busy_load": 2.0, "attempts": 3}
    line = report.machine_line(sample)
    assert "exceeded 2 is repeated (up to 2 attempts); a measurement started while the 1-min load exceeded 2 " \
           "is repeated (up to 3 attempts)" in line, line
    sample["measurements"]["dask_speedup"]["policy"]["busy_others"] = 0.5
    assert "exceeded 2 or during which other processes used more than 0.5 cores is repeated (up to 3 attempts)" \
        in report.machine_line(sample)


def test_other_processes_cpu_makes_an_attempt_busy_and_the_least_disturbed_is_kept():
    policy = measure.Policy(busy_load=2.0, busy_others=0.5)
    assert not policy.is_busy(1.0, 0.4) and not policy.is_busy(None, None)
    assert policy.is_busy(1.0, 0.6) and policy.is_busy(2.5, 0.0) and policy.is_busy(2.5, None)

    def attempt(value, load, others):
        return measure.Attempt(value=value, load_1m_before=load, load_1m_after=load, others_cores=others,
                               wall_s=1.0, busy=policy.is_busy(load, others))

    assert measure.pick([attempt(1.0, 0.5, 1.2), attempt(2.0, 1.5, 0.7), attempt(3.0, 3.0, 0.9)]) == 1
    assert measure.pick([attempt(1.0, 0.5, 1.2), attempt(2.0, 1.9, 0.1), attempt(3.0, 0.1, 0.0)]) == 1
    assert measure.pick([attempt(None, 0.1, 0.0), attempt(2.0, 3.0, 0.9)]) == 1


def test_notebook_finish_times_are_read_from_regenerate_output():
    from bench import user

    stderr = ("vcperf regenerate: [1/3] index done (2.5 s)\nsome warning\n"
              "vcperf regenerate: [2/3] vcha_overhead failed (17.0 s)\n"
              "vcperf regenerate: [3/3] robo_networks done (21.25 s)\n")
    assert user.notebooks_finished(stderr) == {
        "index": {"finished_at_s": 2.5, "status": "done"},
        "vcha_overhead": {"finished_at_s": 17.0, "status": "failed"},
        "robo_networks": {"finished_at_s": 21.25, "status": "done"},
    }


# --------------------------------------------------------------------------------------------
# Issue 31: cold regeneration, the app's first render, set-up, make test, and the previous release
# --------------------------------------------------------------------------------------------


@pytest.fixture
def with_paths(sample) -> dict:
    """``sample`` with the paths of issue 31 measured now and (some of them) at the previous release."""
    sample.update({"regenerate_cold_s": 52.0, "app_first_render_s": 1.5, "setup_s": 24.0, "make_test_s": 300.0})
    rec = sample["measurements"]
    rec["regenerate_cold_s"] = _rec(52.0, [1.0])
    rec["app_first_render_s"] = {**_rec(1.5, [1.2]), "selector": ".widget-html-content"}
    rec["app_first_render_s"]["attempts"][-1]["detail"] = {"samples_s": [1.4, 1.5, 1.9]}
    rec["setup_s"] = {**_rec(24.0, [0.8]), "installer": "uv", "cache_warm": True}
    rec["make_test_s"] = _rec(300.0, [1.9])
    rec["make_test_s"]["attempts"][-1]["detail"] = {"counts": {"passed": 1790, "skipped": 2}, "tests": 1792,
                                                    "mode": "parallel"}
    sample["previous"] = {"ref": "e84b8cd", "commit": "e84b8cd0123456789",
                          "values": {"regenerate_warm_s": 37.0, "regenerate_cold_s": 57.0, "app_first_render_s": 7.5,
                                     "setup_s": None, "browser_update_ms": {"robo_networks[0]": 100.0}}}
    rec["previous"] = {"regenerate_cold_s": _rec(57.0, [1.1])}
    return sample


def test_new_paths_have_their_goals_and_the_previous_release_beside_them(with_paths):
    table = report.headline_table(with_paths)
    assert _row(table, "empty calibration cache") == [
        report.HEADLINE["regenerate_cold_s"][2], "52 s", "≤ 40 s: missed (1.3x)", "57 s", "0.91", "1.00", "0.3", "1"]
    assert _row(table, "warm cache, into")[1:5] == ["18.5 s", "≤ 20 s: met", "37 s", "0.50"]
    assert _row(table, "Voilà app")[1:5] == ["1.5 s", "≤ 2 s: met", "7.5 s", "0.20"]
    assert "(median of 3 loads)" in _row(table, "Voilà app")[0]
    # measured now, not at the previous release: "—" in both columns
    assert _row(table, "set-up")[1:5] == ["24 s", "≤ 30 s: met", "—", "—"]
    assert "(uv, its cache warm)" in _row(table, "set-up")[0]
    assert _row(table, "`make test`")[1:5] == ["300 s", "≤ 360 s: met", "—", "—"]
    assert "(1,792 tests, parallel)" in _row(table, "`make test`")[0]
    # a panel measured at both, a panel only now
    assert _row(table, "robo_networks[0]")[1:5] == ["120 ms", "≤ 150 ms: met", "100 ms", "1.20"]
    assert _row(table, "vcha_overhead[0]")[3:5] == ["—", "—"]
    assert "release `e84b8cd` (e84b8cd) checked out beside it" in report.machine_line(with_paths)
    assert "release" not in report.machine_line({**with_paths, "previous": {}})
    # the previous release's records count in the load span of the machine line
    assert "0.8–3.1" in report.machine_line(with_paths)


def test_new_paths_missing_now_but_measured_before_show_the_previous_value(with_paths):
    for key in ("regenerate_cold_s", "make_test_s"):
        with_paths.pop(key)
        with_paths["measurements"].pop(key)
    table = report.headline_table(with_paths)
    assert _row(table, "empty calibration cache")[1:5] == ["not measured", "≤ 40 s", "57 s", "—"]
    assert _row(table, "`make test`")[1:5] == ["not measured", "≤ 360 s", "—", "—"]


@pytest.mark.parametrize(("now", "previous", "expected"), [
    (18.5, 37.0, "0.50"), (2.0, 1.0, "2.00"), (1.234, 1.0, "1.23"), (None, 1.0, "—"), (1.0, None, "—"),
    (1.0, 0.0, "—"), (float("nan"), 1.0, "—"), (1.0, float("inf"), "—"), (1.0, {}, "—"),
])
def test_ratio_cell(now, previous, expected):
    assert report.ratio_cell(now, previous) == expected


def test_pytest_summary_gives_the_test_count():
    from bench import paths

    out = ("....\n= 1772 passed, 3 skipped, 2 xfailed, 1 deselected, 1 warning in 681.20s (0:11:21) =\n")
    assert paths.pytest_counts(out) == {"passed": 1772, "skipped": 3, "xfailed": 2, "deselected": 1}
    assert paths.pytest_counts("1 failed, 10 passed, 2 errors in 3.1s") == {"failed": 1, "passed": 10, "error": 2}
    assert paths.pytest_counts("no summary here") == {}


def test_setup_recipe_is_the_makefiles(tmp_path):
    """The timed set-up runs the commands of the Makefile's $(STAMP) recipe (uv now, pip at the old release)."""
    from bench import paths

    make = (REPO / "Makefile").read_text(encoding="utf-8")
    tree = paths.Tree(root=REPO)
    uv = [" ".join(c[1:]) for c in paths.setup_commands(tree, tmp_path / "v", "uv")]
    assert uv[0] == f"-m venv {tmp_path / 'v'}" and "-r requirements/bootstrap.txt" in uv[1]
    # the lock with its bytecode, then the package's (issue 41: the recipe compiles; the timed set-up does too)
    assert uv[2].startswith("pip install --quiet --python")
    assert uv[2].endswith("-r requirements/lock.txt --compile-bytecode")
    assert uv[3].endswith("--no-deps -e .")
    assert uv[4] == "-m compileall -q -j 0 --invalidation-mode timestamp vcperf" and len(uv) == 5
    for piece in ("-r requirements/bootstrap.txt",
                  "uv pip install --quiet --python $(BIN)/python -r requirements/lock.txt --compile-bytecode",
                  "uv pip install --quiet --python $(BIN)/python --no-deps -e .",
                  "$(BIN)/python -m compileall -q -j 0 --invalidation-mode timestamp vcperf"):
        assert piece in make, piece
    pip = [" ".join(c[1:]) for c in paths.setup_commands(tree, tmp_path / "v", "pip")]
    assert len(pip) == 3 and pip[1].endswith("-r requirements/lock.txt") and pip[2].endswith("--no-deps -e .")
    assert all("uv" not in c for c in pip)


def test_tests_are_opt_in_and_the_baseline_is_a_git_ref():
    from bench import paths, run

    assert run.OPT_IN == {"tests"} and set(paths.PART_KEYS) <= set(run.PARTS)
    assert set(paths.PART_KEYS.values()) <= set(report.HEADLINE)
    assert paths.BASELINE_DIR.relative_to(REPO / "build")


def test_a_path_missing_or_failing_at_a_tree_is_not_measured_and_the_bench_goes_on(tmp_path, monkeypatch):
    from bench import paths

    def broken(*args, **kwargs):
        raise RuntimeError("no python3.11")

    monkeypatch.setattr(paths, "setup", broken)
    out = paths.measure_tree(lambda *a, **k: {}, paths.Tree(root=tmp_path, label="previous"), {"app", "setup"},
                             log=str)
    assert out["app_first_render_s"] == (None, {"status": "not measured: no vcperf/app.py"})
    assert out["setup_s"] == (None, {"status": "not measured: RuntimeError: no python3.11"})
    results = {"measurements": {}}
    from bench import run

    run.record_previous(results, paths.Tree(root=tmp_path, commit="abc", notes={"ref": "v1"}), out)
    assert results["previous"] == {"ref": "v1", "commit": "abc",
                                   "values": {"app_first_render_s": None, "setup_s": None}}
    assert report.ratio_cell(1.0, results["previous"]["values"]["setup_s"]) == "—"


def test_bytecode_rows_pair_each_path_with_its_unset_row_and_state_the_ratio(tmp_path, monkeypatch):
    """Issue 41: the plan, the warm regeneration and the app's first render with PYTHONDONTWRITEBYTECODE=1 set,
    each beside the same path measured with Python's default (the variable removed from every other command's
    environment), and their ratio against the 10 % goal."""
    from bench import paths, run

    assert set(paths.BYTECODE_KEYS) == set(report.DONT_WRITE_PAIRS) <= set(report.HEADLINE)
    assert paths.BYTECODE_KEYS == report.DONT_WRITE_PAIRS and {"plan", "bytecode", "imports"} <= set(run.PARTS)
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    tree = paths.Tree(root=tmp_path)
    assert "PYTHONDONTWRITEBYTECODE" not in tree.env()
    assert tree.env(**paths.DONT_WRITE)["PYTHONDONTWRITEBYTECODE"] == "1"
    line = report.dont_write_line({"plan_wall_s": 0.80, "plan_wall_dontwrite_s": 0.84, "regenerate_warm_s": 20.0,
                                   "regenerate_warm_dontwrite_s": 30.0, "app_first_render_s": None})
    assert "plan 1.05 (met)" in line and "regenerate 1.50 (missed)" in line and "app" not in line
    assert report.dont_write_line({}) == ""
    rows = {r["key"]: r for r in report.headline_rows({"plan_wall_s": 0.8, "plan_wall_dontwrite_s": 1.3})}
    assert rows["plan_wall_s"]["status"] == "met" and rows["plan_wall_dontwrite_s"]["status"] == "missed (1.3x)"


def test_bytecode_state_counts_the_modules_with_current_bytecode(tmp_path):
    """What a process with PYTHONDONTWRITEBYTECODE=1 can read: a .pyc whose header matches its source's mtime and
    size; an edited source's old .pyc does not count."""
    import compileall
    import os

    from bench import paths

    pkg = tmp_path / "vcperf"
    pkg.mkdir()
    (pkg / "a.py").write_text("A = 1\n")
    (pkg / "b.py").write_text("B = 2\n")
    assert paths.bytecode_state(paths.Tree(root=tmp_path)) == {"modules": 2, "with_current_pyc": 0}
    assert compileall.compile_dir(str(pkg), quiet=1)
    assert paths.bytecode_state(paths.Tree(root=tmp_path)) == {"modules": 2, "with_current_pyc": 2}
    (pkg / "b.py").write_text("B = 22\n")
    st = (pkg / "b.py").stat()
    os.utime(pkg / "b.py", (st.st_atime, st.st_mtime + 5))
    assert paths.bytecode_state(paths.Tree(root=tmp_path)) == {"modules": 2, "with_current_pyc": 1}


def test_importtime_lines_are_read_into_modules_and_time():
    from bench import hotpaths

    err = ("import time: self [us] | cumulative | imported package\n"
           "import time:      1000 |       1000 |     numpy._core\n"
           "import time:      3000 |       4000 |   numpy\n"
           "import time:       500 |       4500 | vcperf.site\n"
           "unrelated line\n")
    out = hotpaths.parse_importtime(err)
    assert out["modules"] == 3 and out["self_s"] == 0.0045
    assert out["slowest_self"][0] == ["numpy", 0.003] and out["heaviest_packages"] == [["vcperf", 0.0045]]


def test_make_test_fast_row_is_the_median_run_with_every_run_kept(tmp_path, monkeypatch):
    """`make bench`'s test-fast row: the median of its runs, that run's record (load, count) kept, every run beside
    it; a release without the tier is "not measured", never timed as something else."""
    values = iter([95.0, None, 80.0, 120.0])
    recs = []

    def fake_make_test(measure, tree, fast=False):
        assert fast
        v = next(values)
        rec = {"value": v, "attempts": [{"detail": {"tests": 3000}}], "kept": 0}
        recs.append(rec)
        return v, rec

    (tmp_path / "Makefile").write_text("FAST_MARKERS := not slow\n")
    tree = paths.Tree(root=tmp_path)
    monkeypatch.setattr(paths, "make_test", fake_make_test)
    value, rec = paths.make_test_fast(None, tree, runs=4)
    assert value == 95.0 and rec["runs_s"] == [80.0, 95.0, 120.0] and len(rec["runs"]) == 4
    assert rec["attempts"] == recs[0]["attempts"]
    (tmp_path / "Makefile").write_text("test:\n\tpytest\n")
    value, rec = paths.make_test_fast(None, tree)
    assert value is None and rec["status"].startswith("not measured")
