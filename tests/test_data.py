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


# -- issue 30: the six corruptions `vcperf data validate` used to pass, each caught with file and row --

def _clear_caches():
    for cached in (data._read, data._load, data._value, data._row):
        cached.cache_clear()


@pytest.fixture
def data_copy(tmp_path, monkeypatch):
    """A full copy of data/ to corrupt; data.DATA_DIR points at it."""
    shutil.copytree(data.DATA_DIR, tmp_path / "data")
    monkeypatch.setattr(data, "DATA_DIR", tmp_path / "data")
    _clear_caches()
    yield tmp_path / "data"
    _clear_caches()


def _rewrite(path, edit):
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    rows = edit(rows)
    with open(path, "w", newline="", encoding="utf-8") as f:
        csv.writer(f, lineterminator="\n").writerows(rows)


def _set(rows, line, column, new):
    rows[line - 1][rows[0].index(column)] = new
    return rows


def _drop_column(rows, column):
    i = rows[0].index(column)
    return [r[:i] + r[i + 1:] for r in rows]


NETWORKS = "robo2019/table01_networks.csv"
CORRUPTIONS = {
    # name: (edit of data/robo2019/table01_networks.csv or None to delete it, what the error must name)
    "dropped condition column": (lambda rows: _drop_column(rows, "network"),
                                 f"data/{NETWORKS}, line 1: column 'network'"),
    "rtt in ms read as s": (lambda rows: _set(rows, 3, "unit", "s"), f"data/{NETWORKS}, line 3: columns value, unit"),
    "500 -> 50 under a printed '500 ms'": (lambda rows: _set(rows, 3, "value", "50"),
                                          f"data/{NETWORKS}, line 3: columns value, unit: 50 ms disagrees"),
    "Mbit/s -> Gbit/s": (lambda rows: _set(rows, 2, "unit", "Gbps"),
                         f"data/{NETWORKS}, line 2: columns value, unit: 10 Gbps disagrees"),
    "a duplicate row": (lambda rows: rows + [rows[2]], f"data/{NETWORKS}, line 26: columns quantity, value, unit"),
    "a deleted table": (None, f"data/{NETWORKS}: missing, but the code reads it (vcperf/robo/"),
}


@pytest.mark.parametrize("corruption", list(CORRUPTIONS))
def test_each_issue30_corruption_is_caught_by_vcperf_data_validate_with_file_and_row(data_copy, capsys,
                                                                                      corruption):
    from vcperf import cli

    assert cli.main(["data", "validate", "--study", "robo2019"]) == 0  # the clean copy passes
    capsys.readouterr()
    edit, message = CORRUPTIONS[corruption]
    path = data_copy / NETWORKS
    if edit is None:
        path.unlink()
        path.with_suffix(".json").unlink()
    else:
        _rewrite(path, edit)
    _clear_caches()
    assert cli.main(["data", "validate", "--study", "robo2019"]) == 2
    err = capsys.readouterr().err
    assert message in err, err
    _clear_caches()
    assert cli.main(["data", "validate", "--study", "vcha2016"]) == 0  # --study: another study is not judged
    with pytest.raises(data.DataError, match=message.split(":")[0].replace(".", r"\.")):
        data.validate_all()


def test_a_condition_column_dropped_with_its_sidecar_entry_is_caught_by_the_targets_that_select_by_it(
        data_copy, capsys):
    from vcperf import cli

    path = data_copy / "vcha2016" / "table05_throughput.csv"
    _rewrite(path, lambda rows: _drop_column(rows, "clients"))
    side = json.loads(path.with_suffix(".json").read_text())
    del side["conditions"]["clients"]
    path.with_suffix(".json").write_text(json.dumps(side))
    _clear_caches()
    assert cli.main(["data", "validate", "--study", "vcha2016"]) == 2
    err = capsys.readouterr().err
    assert "data/vcha2016/table05_throughput.csv, line 1: column 'clients' is missing, but target 't05_" in err, err


def test_a_duplicate_row_repeats_quantity_conditions_and_value_not_only_the_quantity():
    """Text tables state several prints of one quantity (``main_finding``), and a figure can print two
    numbers of one quantity: only a repeat of the number (or, for text, of the print) is a duplicate."""
    names = [n for n in data.table_names() if n.endswith(("text_overview", "figure12_vcenter_management_ops"))]
    assert len(names) == 2
    for name in names:
        df = data.load(name)
        assert df.duplicated(["quantity"] + [c for c in df.columns if c not in data.REQUIRED_COLUMNS
                                             + data.OPTIONAL_COLUMNS]).any()


def test_printed_quantities_read_numbers_with_units():
    said = {(round(v, 9), u) for v, u, _ in data.printed_quantities("500 Mbps – 10 Gbps")}
    assert said == {(5e8, "bit/s"), (1e10, "bit/s")}
    assert [round(v) for v, _, _ in data.printed_quantities("2 minutes and 10 seconds for DSL")] == [120, 10, 130]
    assert [(v, u) for v, u, _ in data.printed_quantities("1.92 TB")] == [(1.92e12, "B")]
    assert [(v, u) for v, u, _ in data.printed_quantities("40Gb")] == [(4e10, "bit/s")]  # bits, not bytes
    assert [(v, u) for v, u, _ in data.printed_quantities("40GB")] == [(4e10, "B")]
    assert data.printed_quantities("2 of 18 runs") == []


def test_every_table_the_code_reads_is_required_and_present():
    """The source scan finds the tables the studies' test beds read, and every target's table is there."""
    from vcperf import studies

    required = data.required_tables()
    assert {f"{s}/testbed" for s in data.STUDIES} <= set(required)
    assert {"robo2019/table01_networks", "vmotion2020/table01_vm_sizes", "contentlib2015/figure04_deploy_time",
            "ft2016/text_workload_details"} <= set(required)
    present = set(data.table_names())
    assert set(required) <= present
    for s in data.STUDIES:
        assert {t.table for t in studies.module(s).targets()} <= present


def test_a_lookup_miss_names_the_data_file():
    with pytest.raises(data.DataError, match=r"data/robo2019/table01_networks\.csv: 0 rows match"):
        data.value("robo2019/table01_networks", "rtt", network="mars")
    with pytest.raises(data.DataError, match=r"data/robo2019/table01_networks\.csv: condition 'planet'"):
        data.row("robo2019/table01_networks", "rtt", planet="mars")


def test_a_bom_and_crlf_table_reads_like_the_original(scratch_data):
    original = data.load("vcha2016/t")
    text = scratch_data.read_text(encoding="utf-8")
    scratch_data.write_bytes(b"\xef\xbb\xbf" + text.replace("\r\n", "\n").replace("\n", "\r\n").encode("utf-8"))
    side = scratch_data.with_suffix(".json")
    side.write_bytes(b"\xef\xbb\xbf" + side.read_bytes())
    data._read.cache_clear()
    data._load.cache_clear()
    again = data.load("vcha2016/t")
    assert list(again.columns) == list(original.columns) and again.equals(original)


def test_a_table_that_is_not_utf8_is_named(scratch_data):
    scratch_data.write_bytes(scratch_data.read_bytes().replace(b"quantity", b"quan\xfftity", 1))
    data._read.cache_clear()
    data._load.cache_clear()
    with pytest.raises(data.DataError, match=r"vcha2016/t\.csv: not UTF-8 text \(byte 0xff at offset \d+\)"):
        data.load("vcha2016/t")
    with pytest.raises(data.DataError, match=r"vcha2016/t\.csv: not UTF-8 text"):
        data.validate_all("vcha2016")
