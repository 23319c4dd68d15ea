"""Untrusted input and local neighbours (issue 43): the YAML loader, the calibration cache, cached results.

Each test plays an attacker on the same machine or a careless colleague: a file crafted to cost time
or memory, a forged cache file, a caller that mutates what a cache returned.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from vcperf import _yaml, cli, site, sweep  # noqa: F401 - imported here, so that timings are the loader's
from vcperf.regenerate import command  # noqa: F401
from vcperf.views import site as site_view  # noqa: F401

ROOT = Path(__file__).resolve().parent.parent
PLAN = "links:\n  - {name: wan, bandwidth: 2 Mbit/s, rtt: 30 ms}\nbranches:\n  - {name: b, link: wan}\n"
GRID = "parameters:\n  arrival_rate_per_s: [1.0]\n  service_rate_per_s: [5.0]\n"
#: A 9-level billion-laughs document: ~400 bytes, 9**9 strings once its aliases are expanded.
ALIAS_BOMB = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join([f'*{chr(97 + i)}'] * 9)}]\n" for i in range(8))


def _argv(kind: str, path: Path, tmp_path: Path) -> list[str]:
    return {"plan": ["plan", str(path)],
            "params": ["regenerate", "--only", "robo_networks", "--params", str(path), "--output",
                       str(tmp_path / "b")],
            "grid": ["sweep", "vcperf.queueing.mm1", "--grid", str(path), "--out", str(tmp_path / "t.csv")]}[kind]


def _one_line_error(kind: str, path: Path, tmp_path: Path, capsys) -> str:
    """Run the CLI on a hostile file: exit 2 within 1 s, one ``vcperf: error:`` line naming the file."""
    start = time.monotonic()
    assert cli.main(_argv(kind, path, tmp_path)) == 2
    elapsed = time.monotonic() - start
    err = capsys.readouterr().err
    assert elapsed < 1.0, f"{kind}: {elapsed:.2f} s"
    assert err.startswith("vcperf: error:") and err.count("\n") == 1 and "Traceback" not in err, err
    assert len(err) < 400, err
    assert not (tmp_path / "b").exists() and not (tmp_path / "t.csv").exists()
    return err


KINDS = ["plan", "params", "grid"]


@pytest.mark.parametrize("kind", KINDS)
def test_alias_bomb_is_refused_at_once(kind, tmp_path, capsys):
    path = tmp_path / "bomb.yaml"
    path.write_text(ALIAS_BOMB)
    assert len(ALIAS_BOMB) < 600
    err = _one_line_error(kind, path, tmp_path, capsys)
    assert "anchors and aliases are not allowed" in err and "bomb.yaml" in err
    assert "lol, lol" not in err  # never the expanded value


@pytest.mark.parametrize("kind", KINDS)
def test_string_alias_bomb_is_refused(kind, tmp_path, capsys):
    path = tmp_path / "s.yaml"
    path.write_text('a: &a "' + "x" * 1000 + '"\n' + "".join(f"k{i}: *a\n" for i in range(1000)))
    assert "aliases are not allowed" in _one_line_error(kind, path, tmp_path, capsys)


@pytest.mark.parametrize("kind", KINDS)
def test_ten_megabyte_file_is_refused_before_reading(kind, tmp_path, capsys):
    path = tmp_path / "big.yaml"
    path.write_text(PLAN + "#" + "x" * (10 * 2**20) + "\n")
    err = _one_line_error(kind, path, tmp_path, capsys)
    assert f"is too large: {path.stat().st_size} bytes (at most {_yaml.MAX_BYTES})" in err


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("text", ["[" * 20000 + "]" * 20000, "x:\n" + "- " * 20000 + "1\n",
                                  "x: " + "{a: " * 20000 + "1" + "}" * 20000])
def test_deep_nesting_is_refused_without_recursion_error(kind, text, tmp_path, capsys):
    path = tmp_path / "deep.yaml"
    path.write_text(text)
    assert f"nested deeper than {_yaml.MAX_DEPTH} levels" in _one_line_error(kind, path, tmp_path, capsys)


@pytest.mark.parametrize("kind", ["params", "grid"])  # a plan path must be an existing file (is_file)
def test_dev_zero_and_a_fifo_are_refused_without_blocking(kind, tmp_path, capsys):
    fifo = tmp_path / "fifo.yaml"
    os.mkfifo(fifo)
    for path, what in ((Path("/dev/zero"), "a character device"), (fifo, "a FIFO")):
        err = _one_line_error(kind, path, tmp_path, capsys)
        assert f"cannot be read: {what}, not a regular file" in err or "must be the path of" in err, err


@pytest.mark.parametrize("path", ["/dev/zero", "fifo"])
def test_plan_of_a_device_or_fifo_is_one_line(path, tmp_path, capsys):
    if path == "fifo":
        path = tmp_path / "fifo.yaml"
        os.mkfifo(path)
    err = _one_line_error("plan", Path(path), tmp_path, capsys)
    assert "path must be an existing plan file" in err


def test_loader_refuses_a_fifo_and_a_device_itself(tmp_path):
    """The loader's own check, whatever its caller checked before (a FIFO is never opened for reading)."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    start = time.monotonic()
    with pytest.raises(ValueError, match=r"^file '.*fifo' cannot be read: a FIFO, not a regular file$"):
        _yaml.load_file(fifo)
    with pytest.raises(ValueError, match="cannot be read: a character device, not a regular file"):
        _yaml.load_file("/dev/zero")
    with pytest.raises(ValueError, match="cannot be read: a folder, not a regular file"):
        _yaml.load_file(tmp_path)
    assert time.monotonic() - start < 1.0


@pytest.mark.parametrize(("text", "match"), [
    ("n: " + "9" * 500 + "\n", r"integer too large .* at n \(line 1"),
    ("x: [1, -" + "1" * 400 + "]\n", r"integer too large .* at x\[1\]"),
    ("x: 1.0e+999\n", r"number too large for a float; got '1.0e\+999' at x"),
    ("a: 1\nb: {c: 1, c: 2}\n", r"found duplicate key 'c' at b \(line 2"),
    ("a: !!python/object/apply:os.system ['true']\n", "is not valid YAML"),
    ("a: [1, 2\nb: {\n", r"is not valid YAML: .* \(line 2, column 2\)"),
])
def test_loader_refuses_in_one_line_naming_the_field(text, match):
    with pytest.raises(ValueError, match=match) as info:
        _yaml.loads(text, "plan 'p.yaml'")
    message = str(info.value)
    assert message.startswith("plan 'p.yaml'") and "\n" not in message and len(message) < 300


def test_loader_keeps_ordinary_yaml():
    assert _yaml.loads("a: .inf\nb: -3\nc: 9223372036854775807\nd: 'x'\n") == {
        "a": float("inf"), "b": -3, "c": 2**63 - 1, "d": "x"}


def test_huge_integer_in_a_sweep_grid_is_one_line(tmp_path, capsys):
    path = tmp_path / "g.yaml"
    path.write_text("parameters:\n  arrival_rate_per_s: {lo: 0.1, hi: 0.5, n: " + "7" * 400 + "}\n"
                    "  service_rate_per_s: [5.0]\n")
    assert "parameters.arrival_rate_per_s.n" in _one_line_error("grid", path, tmp_path, capsys)


def test_plan_link_given_as_a_list_names_the_field(tmp_path, capsys):
    path = tmp_path / "p.yaml"
    path.write_text(PLAN.replace("link: wan", "link: [wan]"))
    err = _one_line_error("plan", path, tmp_path, capsys)
    assert "branches[0].link must name one of the plan's links ['wan']; got ['wan']" in err


def test_console_script_prints_one_line_for_a_bomb(tmp_path):
    path = tmp_path / "bomb.yaml"
    path.write_text(ALIAS_BOMB)
    exe = Path(sys.executable).parent / "vcperf"
    proc = subprocess.run([str(exe), "plan", str(path)], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("vcperf: error: plan bomb.yaml: YAML anchors")


# -- the calibration disk cache: nothing unpickled unless signed by this installation ---------------------------------

CACHE_STUDY = "contentlib2015"  # the fastest fit


class _Exploit:
    """A pickle that runs a command when loaded."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """A private cache folder with the honest calibration of CACHE_STUDY written in it."""
    from vcperf import protocol

    folder = tmp_path / "cache"
    monkeypatch.setenv("VCPERF_CACHE_DIR", str(folder))
    monkeypatch.delenv("VCPERF_NO_CACHE", raising=False)
    mod = protocol.study_module(CACHE_STUDY)
    protocol.clear_caches()
    honest = mod.calibrate()
    (path,) = folder.glob(f"{CACHE_STUDY}-calibrate-*.pickle")
    protocol.clear_caches()
    yield mod, honest, path
    protocol.clear_caches()


def _reread(mod, path, reason):
    """``calibrate()`` in a fresh process state: a warning naming the file and ``reason``, a recomputed fit."""
    from vcperf import protocol

    protocol.clear_caches()
    with pytest.warns(RuntimeWarning, match=f"ignored the cache file .*{path.name}: {reason}"):
        got = mod.calibrate()
    protocol.clear_caches()
    return got


def test_cache_files_are_private(cache):
    _, _, path = cache
    folder = path.parent
    assert folder.stat().st_mode & 0o777 == 0o700
    assert (folder / ".key").stat().st_mode & 0o777 == 0o600 and (folder / ".key").stat().st_size == 32
    assert path.stat().st_mode & 0o777 == 0o600
    assert path.with_suffix(".lock").stat().st_mode & 0o777 == 0o600


def test_a_crafted_pickle_is_never_unpickled(cache, tmp_path):
    import pickle

    from vcperf import protocol

    mod, honest, path = cache
    marker = tmp_path / "pwned"
    path.write_bytes(pickle.dumps(_Exploit(marker)))  # a plain pickle, as the old cache read
    assert _reread(mod, path, "its signature does not verify") == honest
    # with the header but a forged signature
    path.write_bytes(protocol.cache.MAGIC + b"\0" * 32 + pickle.dumps(_Exploit(marker)))
    assert _reread(mod, path, "its signature does not verify") == honest
    assert not marker.exists()
    assert protocol.cache._read(path) == honest  # replaced by the recomputed, signed fit


def test_forged_values_are_ignored_and_reported(cache):
    import pickle

    from vcperf import protocol

    mod, honest, path = cache
    forged = protocol.with_values(honest, {"nfc_efficiency": 0.01})
    blob = path.read_bytes()
    head = len(protocol.cache.MAGIC) + 32
    path.write_bytes(blob[:head] + pickle.dumps(forged))  # a real signature over other bytes
    assert _reread(mod, path, "its signature does not verify") == honest
    other = path.with_name(path.name.replace("calibrate", "refit-0123456789abcdef"))
    protocol.cache._write(other, forged)  # signed, but for another entry: not valid under this name
    other.replace(path)
    assert _reread(mod, path, "its signature does not verify") == honest


def test_a_signed_calibration_still_passes_the_parameter_checks(cache):
    """A loaded calibration passes the checks of a fitted one (its constructors run again)."""
    import copy

    from vcperf import protocol

    mod, honest, path = cache
    bad = copy.copy(honest)
    object.__setattr__(bad, "nfc_efficiency", -150.0)  # built around the constructor's check
    protocol.cache._write(path, bad)
    assert _reread(mod, path, "its parameters fail their checks .*nfc_efficiency") == honest
    protocol.cache._write(path, {"nfc_efficiency": 0.5})  # a dict is not a calibration
    assert _reread(mod, path, "it holds a dict, not a Params") == honest


def test_a_truncated_cache_file_is_recomputed(cache):
    from vcperf import protocol

    mod, honest, path = cache
    path.write_bytes(path.read_bytes()[:-20])
    assert _reread(mod, path, "its signature does not verify") == honest
    assert protocol.cache._read(path) == honest


def test_a_cache_key_readable_by_others_disables_the_disk_cache(cache):
    from vcperf import protocol

    mod, honest, path = cache
    (path.parent / ".key").chmod(0o644)
    protocol.clear_caches()
    with pytest.warns(RuntimeWarning, match="is not a private 32-byte file"):
        assert mod.calibrate() == honest
    protocol.clear_caches()
