"""The command line as a person uses it: --version, notebook names with or without .ipynb, a ledger
that fits a 100-column terminal or a pipe, errors as one line."""

import re

import pytest

from vcperf import __version__, cli


def test_version(capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.strip() == f"vcperf {__version__}"


@pytest.mark.parametrize("name", ["robo_networks", "robo_networks.ipynb", "notebooks/robo_networks.py"])
def test_params_accepts_a_notebook_name_with_or_without_suffix(name, capsys):
    assert cli.main(["params", name]) == 0
    assert "whatif_network" in capsys.readouterr().out


def test_params_unknown_notebook_is_one_error_line(capsys):
    assert cli.main(["params", "nope.ipynb"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("vcperf: error: notebook must be one of") and err.count("\n") == 1


def test_fidelity_text_fits_100_columns_and_shows_every_row(capsys, monkeypatch):
    from vcperf import fidelity

    monkeypatch.delenv("COLUMNS", raising=False)  # output not a terminal: 100 columns (pytest-xdist sets COLUMNS)
    assert cli.main(["fidelity", "--study", "contentlib2015", "--study", "robo2019"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert max(len(line) for line in out) <= 100
    n_rows = len(fidelity.table(["contentlib2015", "robo2019"]))
    body = [line for line in out if line.startswith(("contentlib2015 ", "robo2019 "))]
    assert len(body) == n_rows
    assert any("%" in line for line in body) and not any("e-1" in line for line in body)
    assert any(line.startswith("robo2019: loo") for line in out)  # the summary, four lines per study


@pytest.mark.parametrize("value", ["１０", "1_000", "1e3", "2.0", "+-3"])
@pytest.mark.parametrize("option", [["regenerate", "--jobs"], ["sweep", "m", "--grid", "g.yaml", "--chunk-size"],
                                    ["sweep", "m", "--grid", "g.yaml", "--workers"],
                                    ["sweep", "m", "--grid", "g.yaml", "--seed"]])
def test_integer_options_take_ascii_digits_only(option, value, capsys):
    with pytest.raises(SystemExit) as exc:
        cli.build_parser().parse_args([*option, value])
    assert exc.value.code == 2
    assert f"must be an integer in ASCII digits; got {value!r}" in capsys.readouterr().err


def test_fidelity_wraps_in_a_narrow_terminal_without_losing_columns_or_text(capsys, monkeypatch):
    """At 80 columns every line fits, every row still starts with its study and shows its error, and no
    cell is cut (long text wraps onto continuation lines within its column)."""
    from vcperf import fidelity

    monkeypatch.setenv("COLUMNS", "80")
    assert cli.main(["fidelity", "--study", "robo2019"]) == 0
    out = capsys.readouterr().out.splitlines()
    table = out[:out.index("")]
    assert max(len(line) for line in table) <= 80
    rows = [line for line in table if line.startswith("robo2019 ")]
    df = fidelity.table(["robo2019"])
    assert len(rows) == len(df)
    assert all(line.rstrip().endswith(("%", "—", "pass", "FAIL")) for line in rows)
    assert "…" not in "\n".join(table)
    joined = "".join(line[32:46].strip() for line in table[1:])  # the quantity column, continuation lines joined
    assert "background_traffic" in joined
    assert not re.search(r"network=(\)|;|$)", "\n".join(table), re.M)  # empty conditions are not shown


def test_help_is_plain_text_with_examples(capsys):
    for argv in (["--help"], ["fidelity", "--help"], ["regenerate", "--help"]):
        with pytest.raises(SystemExit):
            cli.main(argv)
        out = capsys.readouterr().out
        assert "``" not in out and "examples:" in out, argv
    with pytest.raises(SystemExit):
        cli.main(["regenerate", "--help"])
    assert "whatif_bandwidth_mbps=10" in capsys.readouterr().out


def test_mistyped_names_get_did_you_mean(capsys, tmp_path):
    out = str(tmp_path / "build")
    with pytest.raises(SystemExit) as exc:
        cli.main(["fidelty"])
    assert exc.value.code == 2 and "did you mean 'fidelity'?" in capsys.readouterr().err
    assert cli.main(["params", "robo_netwrks"]) == 2
    assert "did you mean 'robo_networks'?" in capsys.readouterr().err
    assert cli.main(["regenerate", "--only", "robo_networks", "-p", "whatif_netwrk=lan", "--output", out]) == 2
    assert "did you mean 'whatif_network'" in capsys.readouterr().err
    assert cli.main(["regenerate", "-p", "whatif_bandwith_mbps=10", "--output", out]) == 2
    assert "did you mean 'whatif_bandwidth_mbps'" in capsys.readouterr().err
