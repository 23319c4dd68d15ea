"""Load, validate and convert the paper numbers kept in ``data/``.

Every number the five seed studies print lives in ``data/<study>/<name>.csv`` beside a provenance
sidecar ``<name>.json`` (format: ``data/README.md``). Model code never types a paper number; it
calls :func:`load` (to calibrate and to compare) and :func:`to_si` (to convert units).

Examples
--------
>>> from vcperf import data
>>> t = data.load("robo2019/table01_networks")
>>> t.attrs["provenance"]["seed"]
'001_36d9adf7ffa34fcf.txt'
"""

from __future__ import annotations

import ast
import csv
import functools
import importlib.resources
import json
import math
import re
from pathlib import Path

import numpy as np

from vcperf import _validate, studies


def _data_dir() -> Path:
    """The tables shipped in the installed package (``vcperf/_data``), else ``<repo>/data``."""
    shipped = Path(str(importlib.resources.files("vcperf") / "_data"))
    return shipped if shipped.is_dir() else Path(__file__).resolve().parent.parent / "data"


#: Root of the data tables. Installed from a wheel: ``vcperf/_data`` in site-packages (the wheel ships
#: the top-level ``data/`` folder as ``vcperf._data``); in a source checkout, plain or installed
#: editable: ``<repo>/data``. The tables are never downloaded.
DATA_DIR = _data_dir()

STUDIES = studies.names()

#: Seed file of each study (``../shared/seeds/``), from the registry :mod:`vcperf.studies`.
SEEDS = {s.name: s.seed for s in studies.STUDIES.values()}

#: unit -> (SI unit, factor to SI, smallest valid value). Sizes in KB/MB/GB/TB are decimal (the
#: papers do not say; decimal is the network convention), KiB..TiB binary. Rates in *bps are bits
#: per second, *Bps bytes per second. Percent may be negative (relative changes).
UNITS: dict[str, tuple[str, float, float]] = {
    "s": ("s", 1.0, 0.0),
    "ms": ("s", 1e-3, 0.0),
    "us": ("s", 1e-6, 0.0),
    "min": ("s", 60.0, 0.0),
    "h": ("s", 3600.0, 0.0),
    "count": ("1", 1.0, 0.0),
    "ops_per_min": ("1/s", 1 / 60, 0.0),
    "ops_per_s": ("1/s", 1.0, 0.0),
    "ops_per_hour": ("1/s", 1 / 3600, 0.0),
    "tps": ("1/s", 1.0, 0.0),
    "tpm": ("1/s", 1 / 60, 0.0),
    "iops": ("1/s", 1.0, 0.0),
    "percent": ("1", 0.01, -100.0),
    "ratio": ("1", 1.0, -math.inf),
    "B": ("B", 1.0, 0.0),
    "KB": ("B", 1e3, 0.0),
    "MB": ("B", 1e6, 0.0),
    "GB": ("B", 1e9, 0.0),
    "TB": ("B", 1e12, 0.0),
    "KiB": ("B", 2.0**10, 0.0),
    "MiB": ("B", 2.0**20, 0.0),
    "GiB": ("B", 2.0**30, 0.0),
    "TiB": ("B", 2.0**40, 0.0),
    "bps": ("bit/s", 1.0, 0.0),
    "Kbps": ("bit/s", 1e3, 0.0),
    "Mbps": ("bit/s", 1e6, 0.0),
    "Gbps": ("bit/s", 1e9, 0.0),
    "KBps": ("B/s", 1e3, 0.0),
    "MBps": ("B/s", 1e6, 0.0),
    "GBps": ("B/s", 1e9, 0.0),
    "GHz": ("1/s", 1e9, 0.0),
    "MHz": ("1/s", 1e6, 0.0),
    "text": ("", math.nan, math.nan),
}

REQUIRED_COLUMNS = ("quantity", "value", "unit", "printed", "read_from", "flag")
OPTIONAL_COLUMNS = ("relation", "locator", "note")
READ_FROM = ("table", "text", "figure_text", "external")
FLAGS = ("", "ambiguous", "derived")
RELATIONS = ("", "=", "~", "<", "<=", ">", ">=")
SIDECAR_KEYS = ("seed", "study", "locator", "title", "read_from", "conditions", "quantities")


#: What a quantity's name says about its dimension: a row whose unit has another SI dimension is
#: rejected (a bandwidth in ms, an RTT in MB). Names that describe a relative or counted quantity
#: (:data:`DIMENSIONLESS_NAME`) are exempt.
DIMENSION_RULES = (
    (re.compile(r"(^|_)(time|latency|duration|rtt|delay|stall|downtime|interval|period)(_|$)"), ("s",)),
    (re.compile(r"(^|_)(bandwidth|link_speed|adapter_speed|network_speed)(_|$)"), ("bit/s", "B/s")),
    (re.compile(r"(^|_)(size|bytes)(_|$)|(^|_)memory$|^peak_.*memory"), ("B",)),
)
DIMENSIONLESS_NAME = re.compile(r"(^|_)(ratio|change|reduction|improvement|over|fraction|percent|share|loss|drop|"
                                r"overhead|rank|count|utilization|efficiency|factors|checks|batch|percentile|criterion)(_|$)")
#: A print that is one number and nothing else (``2,696``, ``-0.9%``, ``1:36``): its value must agree.
_PURE_NUMBER = re.compile(r"\s*([-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|[-+]?\.\d+)\s*%?\s*")
_MMSS = re.compile(r"\s*(\d+):(\d\d)\s*")


#: Words a print may put after a number to state its unit -> (SI unit, factor to SI). Case matters
#: where it tells bits from bytes (``Gb`` gigabit, ``GB`` gigabyte).
_PRINTED_UNITS = (
    (r"ms|msec|milliseconds?", "s", 1e-3), (r"us|µs|microseconds?", "s", 1e-6), (r"s|secs?|seconds?", "s", 1.0),
    (r"mins?|minutes?", "s", 60.0), (r"h|hrs?|hours?", "s", 3600.0), (r"days?", "s", 86400.0),
    (r"Kbps|Kb/s|Kbit/s", "bit/s", 1e3), (r"Mbps|Mb/s|Mbit/s", "bit/s", 1e6),
    (r"Gbps|Gb/s|Gbit/s|Gb per second|GbE|Gbit|Gigabit|Gb", "bit/s", 1e9),
    (r"KBs?|kB", "B", 1e3), (r"MBs?", "B", 1e6), (r"GBs?", "B", 1e9), (r"TBs?", "B", 1e12),
    (r"KiB", "B", 2.0**10), (r"MiB", "B", 2.0**20), (r"GiB", "B", 2.0**30), (r"TiB", "B", 2.0**40),
    (r"bytes?", "B", 1.0), (r"[Gg][Hh]z", "1/s", 1e9), (r"[Mm][Hh]z", "1/s", 1e6), (r"%|percent", "%", 0.01),
)
_NUM = r"(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)"
_MENTION = re.compile(rf"(?<![\w.,]){_NUM}(?:\s*(?:-|–|to)\s*{_NUM})?(?:\s*(?P<mult>million|thousand))?[\s-]?"
                      rf"(?:{'|'.join(f'(?P<u{i}>{rx})' for i, (rx, _, _) in enumerate(_PRINTED_UNITS))})(?![\w/])")
_MIN_AND_S = re.compile(r"(?<![\w.,])(\d+)\s*minutes?\s*(?:and\s*)?(\d+)\s*seconds?(?!\w)")


def printed_quantities(printed: str) -> list[tuple[float, str, str]]:
    """Every number-with-unit a print states, in SI: ``(value, SI unit, text)``.

    A range (``52-89 ms``) gives both ends, ``2 minutes and 10 seconds`` gives 130 s as well as its
    parts, percentages give the SI unit ``"%"`` (so they are compared with ``percent`` rows only).

    Examples
    --------
    >>> [(round(v, 6), u) for v, u, _ in printed_quantities("52-89 ms (ATT 4G)")]
    [(0.052, 's'), (0.089, 's')]
    >>> printed_quantities("about three times")
    []
    """
    _validate.text("printed", printed, "the verbatim print (str)")
    out = []
    for m in _MENTION.finditer(printed):
        i = next(i for i in range(len(_PRINTED_UNITS)) if m.group(f"u{i}") is not None)
        _, si, factor = _PRINTED_UNITS[i]
        mult = {"million": 1e6, "thousand": 1e3, None: 1.0}[m.group("mult")]
        out += [(float(g.replace(",", "")) * mult * factor, si, m.group(0).strip())
                for g in (m.group(1), m.group(2)) if g]
    out += [(60.0 * int(m.group(1)) + int(m.group(2)), "s", m.group(0)) for m in _MIN_AND_S.finditer(printed)]
    return out


def expected_dimensions(quantity: str) -> tuple | None:
    """The SI units a quantity's name allows (None: the name does not say)."""
    _validate.text("quantity", quantity, "a quantity name (str)")
    if DIMENSIONLESS_NAME.search(quantity):
        return None
    for rx, dims in DIMENSION_RULES:
        if rx.search(quantity):
            return dims
    return None


def printed_number(printed: str) -> float | None:
    """The number a pure-number print states (``1,234`` -> 1234, ``1:36`` -> 96 s), else None."""
    _validate.text("printed", printed, "the verbatim print (str)")
    m = _MMSS.fullmatch(printed)
    if m:
        return 60.0 * int(m.group(1)) + int(m.group(2))
    m = _PURE_NUMBER.fullmatch(printed)
    return float(m.group(1).replace(",", "")) if m else None


class DataError(ValueError):
    """A data file breaks the format of ``data/README.md``; the message names file and row."""


def to_si(value, unit: str):
    """Convert ``value`` from a unit of :data:`UNITS` to SI (s, B, bit/s, 1/s, fraction).

    Parameters
    ----------
    value : float or array_like
        Value(s) in ``unit``.
    unit : str
        A key of :data:`UNITS` other than ``"text"``.
    """
    _validate.choice("unit", unit, sorted(set(UNITS) - {"text"}))
    _validate.check_range("value", value)  # real numbers (not bool/str), NaN rejected
    if unit not in UNITS or unit == "text":
        raise ValueError(f"unit must be one of {sorted(set(UNITS) - {'text'})}; got {unit!r}")
    return np.asarray(value, dtype=float) * UNITS[unit][1]


def table_names(study: str | None = None) -> list[str]:
    """Names (``"<study>/<file stem>"``) of every table, optionally for one study."""
    _validate.optional(_validate.choice, "study", study, STUDIES)
    chosen = STUDIES if study is None else (study,)
    return [f"{p.parent.name}/{p.stem}" for s in chosen for p in sorted((DATA_DIR / s).glob("*.csv"))]


def _path(name: str) -> Path:
    study, _, stem = name.partition("/")
    path = DATA_DIR / study / f"{stem}.csv"
    if study not in STUDIES or not stem or not path.exists():
        known = ", ".join(table_names()) or "(none)"
        raise ValueError(f"name must be '<study>/<table>' naming a file in data/; got {name!r}. Known: {known}")
    return path


def _check_row(path: Path, lineno: int, row: dict) -> None:
    def fail(msg: str):
        raise DataError(f"{path.relative_to(DATA_DIR.parent)}, line {lineno}: {msg}")

    for col in REQUIRED_COLUMNS:
        if row.get(col) is None:
            fail(f"missing cell for column {col!r}")
    if not row["quantity"].strip():
        fail("empty quantity")
    unit = row["unit"]
    if unit not in UNITS:
        fail(f"unknown unit {unit!r}; known units: {', '.join(UNITS)}")
    if row["read_from"] not in READ_FROM:
        fail(f"read_from must be one of {READ_FROM}; got {row['read_from']!r}")
    if row["flag"] not in FLAGS:
        fail(f"flag must be one of {FLAGS}; got {row['flag']!r}")
    if row.get("relation", "") not in RELATIONS:
        fail(f"relation must be one of {RELATIONS}; got {row['relation']!r}")
    if row["flag"] == "ambiguous" and not row.get("note", "").strip():
        fail("an ambiguous print needs a note explaining how it was read")
    if not row["printed"].strip():
        fail("empty 'printed': keep the verbatim print")
    if unit == "text":
        if row["value"].strip():
            fail(f"unit 'text' takes an empty value; got {row['value']!r}")
        return
    try:
        value = float(row["value"])
    except ValueError:
        fail(f"value {row['value']!r} is not a number")
    if not math.isfinite(value):
        fail(f"value {value} is not finite")
    if value < UNITS[unit][2]:
        fail(f"value {value} is below the smallest valid {unit} ({UNITS[unit][2]})")
    dims = expected_dimensions(row["quantity"])
    if dims is not None and UNITS[unit][0] not in dims:
        fail(f"column unit: {unit!r} is a {UNITS[unit][0] or 'text'} unit, but quantity {row['quantity']!r} "
             f"is measured in {' or '.join(dims)}")
    if row["flag"] == "" and unit not in ("count", "ratio"):  # derived/ambiguous values are not the print
        si, factor = ("%" if unit == "percent" else UNITS[unit][0]), UNITS[unit][1]
        said = [(v, text) for v, dim, text in printed_quantities(row["printed"]) if dim == si]
        if said and not any(math.isclose(abs(value) * factor, v, rel_tol=1e-6) for v, _ in said):
            fail(f"columns value, unit: {value:g} {unit} disagrees with column printed {row['printed']!r}, "
                 f"which states {' / '.join(t for _, t in said)}")
    stated = printed_number(row["printed"])
    if stated is not None and row["flag"] != "ambiguous" and not math.isclose(stated, value, rel_tol=1e-9,
                                                                              abs_tol=1e-12):
        fail(f"column value: {value:g} disagrees with column printed {row['printed']!r} ({stated:g})")


def _check_sidecar(path: Path, columns: list[str]) -> dict:
    side = path.with_suffix(".json")
    rel = side.relative_to(DATA_DIR.parent)
    if not side.exists():
        raise DataError(f"{rel}: provenance sidecar missing")
    try:
        meta = json.loads(side.read_text(encoding="utf-8-sig"))
    except json.JSONDecodeError as err:
        raise DataError(f"{rel}: not valid JSON ({err})") from None
    except UnicodeDecodeError as err:
        raise DataError(f"{rel}: not UTF-8 text (byte {err.object[err.start]:#04x} at offset {err.start})") from None
    missing = [k for k in SIDECAR_KEYS if k not in meta]
    if missing:
        raise DataError(f"{rel}: missing keys {missing}")
    study = path.parent.name
    if meta["study"] != study or meta["seed"] != SEEDS[study]:
        raise DataError(f"{rel}: study/seed must be {study!r}/{SEEDS[study]!r}")
    conditions = [c for c in columns if c not in REQUIRED_COLUMNS + OPTIONAL_COLUMNS]
    undocumented = [c for c in conditions if c not in meta["conditions"]]
    if undocumented:
        raise DataError(f"{rel}: condition columns {undocumented} are not described in 'conditions'")
    dropped = [c for c in meta["conditions"] if c not in columns]
    if dropped:
        raise DataError(f"{path.relative_to(DATA_DIR.parent)}, line 1: column {dropped[0]!r} (a condition "
                        f"described in {side.name}) is missing")
    return meta


@functools.cache
def _read(path: Path):
    """(columns, rows, sidecar) of a table file; a byte-order mark and CRLF line ends are accepted, a file
    that is not UTF-8 is a :class:`DataError` naming it."""
    try:
        return _read_table(path)
    except UnicodeDecodeError as err:
        raise DataError(f"{path.relative_to(DATA_DIR.parent)}: not UTF-8 text (byte {err.object[err.start]:#04x} "
                        f"at offset {err.start})") from None


def _read_table(path: Path):
    with open(path, newline="", encoding="utf-8-sig") as f:  # newline="": csv reads CRLF and LF alike
        reader = csv.DictReader(f)
        columns = list(reader.fieldnames or [])
        missing = [c for c in REQUIRED_COLUMNS if c not in columns]
        if missing:
            raise DataError(f"{path.relative_to(DATA_DIR.parent)}: missing required columns {missing}")
        conditions = [c for c in columns if c not in REQUIRED_COLUMNS + OPTIONAL_COLUMNS]
        rows, seen = [], {}
        for lineno, row in enumerate(reader, start=2):
            if None in row:
                raise DataError(f"{path.relative_to(DATA_DIR.parent)}, line {lineno}: more cells than columns")
            row = {k: (v or "").strip() for k, v in row.items()}
            _check_row(path, lineno, row)
            # the same measurement twice: quantity, conditions and number (text rows: the print) repeated
            key = (row["quantity"], row["unit"], row["printed"] if row["unit"] == "text" else float(row["value"]),
                   *(row[c] for c in conditions))
            if key in seen:
                raise DataError(f"{path.relative_to(DATA_DIR.parent)}, line {lineno}: columns quantity, value, unit"
                                f"{', ' if conditions else ''}{', '.join(conditions)} repeat line {seen[key]} "
                                "(a duplicate row)")
            seen[key] = lineno
            rows.append(row)
    if not rows:
        raise DataError(f"{path.relative_to(DATA_DIR.parent)}: no rows")
    meta = _check_sidecar(path, columns)
    return columns, rows, meta


def load(name: str):
    """Load a validated table as a pandas DataFrame.

    Parameters
    ----------
    name : str
        ``"<study>/<file stem>"``, e.g. ``"vcha2016/table05_throughput"`` (see :func:`table_names`).

    Returns
    -------
    pandas.DataFrame
        One row per measurement; ``value`` is float (NaN for ``unit == "text"``), condition columns
        are strings. ``df.attrs["provenance"]`` holds the sidecar, ``df.attrs["name"]`` the name.

    Raises
    ------
    ValueError
        Unknown name; :class:`DataError` (a ``ValueError``) when the file breaks the format.
    """
    _validate.text("name", name, "a table name '<study>/<table>' (str)")
    return _load(_path(name), name).copy(deep=True)


@functools.cache
def _load(path: Path, name: str):
    import pandas as pd  # lazy: keeps ``import vcperf`` light

    columns, rows, meta = _read(path)
    df = pd.DataFrame(rows, columns=columns)
    df["value"] = pd.to_numeric(df["value"].replace("", np.nan))
    for col in OPTIONAL_COLUMNS:
        if col not in df:
            df[col] = ""
    df["relation"] = df["relation"].replace("", "=")
    df.attrs["provenance"] = meta
    df.attrs["name"] = name
    return df


def value(name: str, quantity: str, unit: str | None = None, **conditions) -> float:
    """Return the single value of ``quantity`` matching ``conditions`` (in SI when ``unit='si'``).

    Parameters
    ----------
    name : str
        Table name, as for :func:`load`.
    quantity : str
        The ``quantity`` cell to select.
    unit : {None, "si"}
        ``None`` returns the value in the table's unit; ``"si"`` converts it with :func:`to_si`.
    **conditions
        Condition column values to match (compared as strings).

    Raises
    ------
    ValueError
        When no row or more than one row matches.
    """
    _check_lookup(name, quantity)
    _validate.optional(_validate.choice, "unit", unit, ("si",))
    return _value(name, quantity, unit, tuple(sorted((k, str(w)) for k, w in conditions.items())))


def row(name: str, quantity: str, **conditions):
    """The single row of table ``name`` with ``quantity`` and the given condition values.

    Returns a pandas Series (value, unit, printed, relation, locator, note and the conditions), the
    one place paper numbers are looked up by calibration and validation code.

    Raises
    ------
    ValueError
        When no row or more than one row matches, or a condition is not a column of the table.
    """
    _check_lookup(name, quantity)
    return _row(name, quantity, tuple(sorted((k, str(w)) for k, w in conditions.items()))).copy()


def _rel(name: str) -> str:
    """The file of table ``name`` as error messages name it (``data/robo2019/table01_networks.csv``)."""
    return str(_path(name).relative_to(DATA_DIR.parent))


def _check_lookup(name, quantity) -> None:
    _validate.text("name", name, "a table name '<study>/<table>' (str)")
    _validate.text("quantity", quantity, "a quantity name (str)")


@functools.cache
def _row(name: str, quantity: str, conditions: tuple):
    conditions = dict(conditions)
    df = _load(_path(name), name)  # read-only here: no copy
    mask = df["quantity"] == quantity
    for col, want in conditions.items():
        if col not in df:
            raise DataError(f"{_rel(name)}: condition {col!r} is not a column; columns: {list(df.columns)}")
        mask &= df[col] == want
    hits = df[mask]
    if len(hits) != 1:
        raise DataError(f"{_rel(name)}: {len(hits)} rows match quantity={quantity!r}, {conditions}; need exactly 1")
    return hits.iloc[0]


@functools.cache
def _value(name: str, quantity: str, unit: str | None, conditions: tuple) -> float:
    row = _row(name, quantity, conditions)
    if unit == "si":
        return float(to_si(row["value"], row["unit"]))
    if unit is not None:
        raise ValueError(f"unit must be None or 'si'; got {unit!r}")
    return float(row["value"])


#: A table name in the sources: ``"robo2019/table01_networks"`` or ``f"{STUDY}/table01_networks"``, or
#: inside a study's package a bare stem that follows the file-name convention (``"testbed"``) given to
#: a module constant or as the first argument of a reader (:data:`_READERS`).
_STEM = re.compile(r"(?:table|figure)\d\d_\w+|text_\w+|external_\w+|testbed")
_READERS = ("load", "value", "row", "paper_value", "_si", "_row", "_value")


def _bare_stems(tree) -> list:
    """String constants of ``tree`` in the places a study's helpers take a bare table stem."""
    out = [n.value for n in tree.body if isinstance(n, ast.Assign) and isinstance(n.value, ast.Constant)]
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant) and \
                getattr(node.func, "attr", getattr(node.func, "id", None)) in _READERS:
            out.append(node.args[0])
    return [n for n in out if isinstance(n.value, str) and _STEM.fullmatch(n.value)]


def required_tables(study: str | None = None) -> dict[str, str]:
    """The tables the code reads: table name -> the first source line naming it (``vcperf/ft/testbed.py:13``).

    Read from the package's sources (not by running them): quoted names ``"<study>/<table>"``,
    f-strings ``f"{STUDY}/<table>"`` in a study's package and, there, bare stems that follow the
    file-name convention of ``data/README.md`` (``"testbed"``, ``"text_workload_details"``), which the
    study's helpers join to its folder.

    Examples
    --------
    >>> "robo2019/table01_networks" in required_tables("robo2019")
    True
    """
    _validate.optional(_validate.choice, "study", study, STUDIES)
    pkg = Path(__file__).resolve().parent
    of_package = {s.package.split(".")[-1]: s.name for s in studies.STUDIES.values()}
    found: dict[str, str] = {}
    for src in sorted(pkg.rglob("*.py")):
        rel = src.relative_to(pkg.parent).as_posix()
        home = of_package.get(src.relative_to(pkg).parts[0]) if len(src.relative_to(pkg).parts) > 1 else None
        tree = ast.parse(src.read_text(encoding="utf-8"))
        bare = {id(n) for n in _bare_stems(tree)} if home else set()
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                st, _, stem = node.value.partition("/")
                if st in STUDIES and re.fullmatch(r"\w+", stem):
                    names.append(node.value)
                elif id(node) in bare:
                    names.append(f"{home}/{node.value}")
            elif isinstance(node, ast.JoinedStr) and home and len(node.values) >= 2:
                first, second = node.values[0], node.values[1]
                if isinstance(first, ast.FormattedValue) and isinstance(first.value, ast.Name) and \
                        first.value.id == "STUDY" and isinstance(second, ast.Constant):
                    m = re.fullmatch(rf"/({_STEM.pattern})", str(second.value))
                    if m and len(node.values) == 2:
                        names.append(f"{home}/{m.group(1)}")
            for name in names:
                found.setdefault(name, f"{rel}:{node.lineno}")
    return {n: w for n, w in sorted(found.items()) if study is None or n.startswith(f"{study}/")}


def validate_all(study: str | None = None, required: dict | None = None, columns: dict | None = None) -> str:
    """Validate every table and sidecar in ``data/`` (or one study's) and that every table the code
    reads (:func:`required_tables`) is there.

    Parameters
    ----------
    study : str, optional
        Only this study (a name of :data:`STUDIES`); default all.
    required : dict, optional
        More tables the code reads (name -> where), beyond :func:`required_tables`, e.g. the
        ``table`` of every study target (``vcperf data validate`` adds those).
    columns : dict, optional
        Table name -> {condition column -> where the code selects rows by it} (the conditions of every
        study target): each must be a column of its table, so a condition column dropped together
        with its sidecar entry is caught too.

    Returns
    -------
    str
        A one-line summary (``"N tables, M rows valid"``).

    Raises
    ------
    DataError
        Listing every problem found, one a line, each naming the file and, where it has one, the line
        and the column.

    Examples
    --------
    >>> validate_all("ft2016").endswith("rows valid")
    True
    """
    _validate.optional(_validate.choice, "study", study, STUDIES)
    if required is not None:
        _validate.instance("required", required, dict, "a dict of table name '<study>/<table>' -> where it is read")
        for name, where in required.items():
            if not (isinstance(name, str) and name.partition("/")[0] in STUDIES and name.partition("/")[2]
                    and isinstance(where, str)):
                raise ValueError(f"required must map table names '<study>/<table>' to str; got {name!r}: {where!r}")
    if columns is not None:
        _validate.instance("columns", columns, dict, "a dict of table name -> {column: where it is used}")
        for name, used in columns.items():
            if not (isinstance(name, str) and isinstance(used, dict)
                    and all(isinstance(c, str) and isinstance(w, str) for c, w in used.items())):
                raise ValueError(f"columns must map table names to {{column: where}} dicts of str; got {name!r}: "
                                 f"{used!r}")
    _read.cache_clear()
    _load.cache_clear()
    _value.cache_clear()
    _row.cache_clear()
    problems, n_rows = [], 0
    names = table_names(study)
    for name in names:
        try:
            n_rows += len(_read(_path(name))[1])
        except DataError as err:
            problems.append(str(err))
    chosen = STUDIES if study is None else (study,)
    orphans = [p for s in chosen for p in sorted((DATA_DIR / s).glob("*.json")) if not p.with_suffix(".csv").exists()]
    problems += [f"{p.relative_to(DATA_DIR.parent)}: a sidecar without its table" for p in orphans]
    wanted = {**required_tables(study), **{n: w for n, w in (required or {}).items()
                                           if study is None or n.startswith(f"{study}/")}}
    problems += [f"{DATA_DIR.name}/{name}.csv: missing, but the code reads it ({where})"
                 for name, where in sorted(wanted.items()) if name not in names]
    for name, used in sorted((columns or {}).items()):
        if name in names and (study is None or name.startswith(f"{study}/")):
            try:
                have = _read(_path(name))[0]
            except DataError:  # reported above
                continue
            problems += [f"{DATA_DIR.name}/{name}.csv, line 1: column {col!r} is missing, but {where} selects rows "
                         "by it" for col, where in sorted(used.items()) if col not in have]
    if problems:
        raise DataError(f"{len(problems)} problem(s) in {DATA_DIR}:\n" + "\n".join(problems))
    return f"{len(names)} tables, {n_rows} rows valid"
