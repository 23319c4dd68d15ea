"""data/: every table valid, every study present, malformed files rejected with file and row named."""

import csv
import json
import math
import shutil

import numpy as np
import pytest

from vcperf import data


def test_every_table_and_sidecar_is_valid():
    summary = data.validate_all()
    assert summary.endswith("rows valid")
    assert int(summary.split()[0]) >= 30


@pytest.mark.parametrize("study", data.STUDIES)
def test_every_study_has_tables_and_a_testbed(study):
    names = data.table_names(study)
    assert names, f"no tables for {study}"
    assert f"{study}/testbed" in names


def test_load_gives_float_values_and_provenance():
    for name in data.table_names():
        df = data.load(name)
        meta = df.attrs["provenance"]
        assert meta["seed"] == data.SEEDS[name.split("/")[0]]
        numeric = df[df["unit"] != "text"]
        assert np.isfinite(numeric["value"].to_numpy(dtype=float)).all()
        assert df[df["unit"] == "text"]["value"].isna().all()


def test_ambiguous_vcha_prints_are_kept_verbatim_and_flagged():
    # 000_bf7f1144753162c9.txt Tables 9 and 10 print "2,29.5" and "1,70.1".
    printed = set()
    for name in ("vcha2016/table09_io_64clients", "vcha2016/table10_io_256clients"):
        df = data.load(name)
        amb = df[df["flag"] == "ambiguous"]
        assert len(amb) >= 1
        assert (amb["note"].str.len() > 0).all()
        printed |= set(amb["printed"])
    assert {"2,29.5", "1,70.1"} <= printed


def test_times_printed_as_mss_are_stored_in_seconds():
    df = data.load("vcha2016/table02_vpxd_ready_time")
    mss = df[df["printed"].str.fullmatch(r"\d+:\d\d")]
    assert len(mss) > 0
    for printed, value, unit in zip(mss["printed"], mss["value"], mss["unit"], strict=True):
        m, s = printed.split(":")
        assert unit == "s"
        assert value == pytest.approx(60 * int(m) + int(s))


def test_value_lookup_and_si_conversion():
    assert data.to_si(1.5, "Mbps") == pytest.approx(1.5e6)
    assert data.to_si(2, "min") == 120
    assert data.to_si(-9, "percent") == pytest.approx(-0.09)
    with pytest.raises(ValueError, match="unit"):
        data.to_si(1, "furlongs")


def test_unknown_table_name_lists_known_tables():
    with pytest.raises(ValueError, match="name must be") as err:
        data.load("vcha2016/no_such_table")
    assert "vcha2016/table05_throughput" in str(err.value)


@pytest.fixture
def scratch_data(tmp_path, monkeypatch):
    """A copy of one small table in a scratch data/ tree, to corrupt."""
    study = tmp_path / "data" / "vcha2016"
    study.mkdir(parents=True)
    src = data.DATA_DIR / "vcha2016" / "table05_throughput"
    shutil.copy(src.with_suffix(".csv"), study / "t.csv")
    shutil.copy(src.with_suffix(".json"), study / "t.json")
    monkeypatch.setattr(data, "DATA_DIR", tmp_path / "data")
    data._read.cache_clear()
    yield study / "t.csv"
    data._read.cache_clear()


def _corrupt_row(path, column, new):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    rows[1][rows[0].index(column)] = new
    with open(path, "w", newline="") as f:
        csv.writer(f).writerows(rows)


@pytest.mark.parametrize(
    ("column", "bad", "message"),
    [
        ("value", "abc", "not a number"),
        ("value", "nan", "not finite"),
        ("value", "-5", "below the smallest"),
        ("unit", "parsecs", "unknown unit"),
        ("read_from", "dream", "read_from"),
        ("flag", "maybe", "flag"),
        ("printed", "", "printed"),
    ],
)
def test_malformed_row_names_file_and_line(scratch_data, column, bad, message):
    _corrupt_row(scratch_data, column, bad)
    with pytest.raises(data.DataError, match=message) as err:
        data.load("vcha2016/t")
    assert "vcha2016/t.csv, line 2" in str(err.value)


def test_missing_sidecar_and_undocumented_condition_are_rejected(scratch_data):
    side = scratch_data.with_suffix(".json")
    meta = json.loads(side.read_text())
    meta["conditions"] = {}
    side.write_text(json.dumps(meta))
    with pytest.raises(data.DataError, match="not described"):
        data.load("vcha2016/t")
    side.unlink()
    data._read.cache_clear()
    with pytest.raises(data.DataError, match="sidecar missing"):
        data.load("vcha2016/t")


def test_units_table_is_consistent():
    for unit, (si, factor, lo) in data.UNITS.items():
        if unit == "text":
            continue
        assert factor > 0 and math.isfinite(factor), unit
        assert si
        assert lo <= 0


def test_value_must_agree_with_a_pure_number_print(scratch_data):
    _corrupt_row(scratch_data, "value", "2700")  # printed "2,696"
    with pytest.raises(data.DataError, match=r"column value: 2700 disagrees with column printed '2,696'") as err:
        data.load("vcha2016/t")
    assert "vcha2016/t.csv, line 2" in str(err.value)


@pytest.mark.parametrize(("bad_unit", "dim"), [("MB", "B"), ("Gbps", "bit/s"), ("count", "1")])
def test_a_unit_of_the_wrong_dimension_is_rejected_by_vcperf_data_validate(tmp_path, monkeypatch, capsys,
                                                                          bad_unit, dim):
    """An RTT in MB (the adversarial report: results changed silently) fails validation, naming file,
    line and column."""
    from vcperf import cli

    study = tmp_path / "data" / "vcha2016"
    study.mkdir(parents=True)
    src = data.DATA_DIR / "vcha2016" / "table06_operation_latency"
    shutil.copy(src.with_suffix(".csv"), study / "t.csv")
    shutil.copy(src.with_suffix(".json"), study / "t.json")
    monkeypatch.setattr(data, "DATA_DIR", tmp_path / "data")
    monkeypatch.setattr(data, "STUDIES", ("vcha2016",))
    data._read.cache_clear()
    _corrupt_row(study / "t.csv", "unit", bad_unit)
    try:
        assert cli.main(["data", "validate"]) == 2
    finally:
        data._read.cache_clear()
        data._load.cache_clear()
        data._value.cache_clear()
        data._row.cache_clear()
    err = capsys.readouterr().err
    assert "vcha2016/t.csv, line 2: column unit" in err and "measured in s" in err


def test_dimension_rules_read_names():
    assert data.expected_dimensions("vpxd_ready_time") == ("s",)
    assert data.expected_dimensions("rtt") == ("s",)
    assert data.expected_dimensions("stats_data_size_per_sync") == ("B",)
    assert data.expected_dimensions("network_adapter_speed") == ("bit/s", "B/s")
    assert data.expected_dimensions("migration_time_ratio_70u1_over_67") is None  # relative: exempt
    assert data.printed_number("1:36") == 96 and data.printed_number("2,696") == 2696
    assert data.printed_number("-0.9%") == -0.9 and data.printed_number("about 3x") is None
