"""Docs that run: no model number is typed by hand into a notebook's prose.

A refit changes every model number; prose that types them by hand silently goes wrong. So a
notebook's static prose (its markdown cells, and the constant text of any ``Markdown(...)`` it
renders) may state a number only when it is

* **structural** -- an integer that names a thing rather than measures it: after ``Table``,
  ``Figure``, ``Exp``, ``Section``, ``Eq``, ``step``, ``release`` ... (see :data:`STRUCTURAL_WORDS`;
  not when it carries ``%``, ``x``, ``s`` or ``ms``), a year (1990-2039), the 90 % of "90 % interval"
  (the interval level of :mod:`vcperf.protocol`), or a bare integer without a unit (a count: "Table 5
  has 4 rows"); or
* **printed by the paper** -- its value occurs in one of the study's ``data/<study>/*.csv`` tables
  (any column: values, printed text, conditions, notes), i.e. a paper number or a test-bed fact. A
  percentage must match a number the data state as a percentage and a ratio (``3x``) one stated as a
  ratio (:func:`data_numbers`), so a model error such as "-24 %" does not pass by coinciding with some
  other printed number; a time written ``m:ss`` is compared in seconds.

Every other number that is a decimal or carries a unit (``s``, ``%``, ``x``, ``GB``, ``clients`` ...,
see :data:`UNITS`) looks like a model result and must be rendered from the computed value (a code cell that displays
``Markdown(f"... {value:.1f} s ...")``): such a cell's text is not static, only the constant parts of
its f-string are checked. Inline code (backticks), links and identifiers with digits (``8GFC``,
``E7530``) are not prose numbers.

The scanner cannot pass vacuously: :func:`test_scanner_flags_typed_model_numbers` feeds it typed
model numbers and checks it flags them, and :func:`test_notebooks_state_checked_numbers` checks that
the notebooks' prose still states paper numbers the scanner accepted (it does look at the text).
"""

from __future__ import annotations

import ast
import csv
import functools
import re
from pathlib import Path

import pytest

from vcperf.params import read_notebook

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.py"))
DATA = ROOT / "data"

#: Which data/ folders a notebook's prose may quote (by notebook name prefix); ``index`` spans all.
STUDY_OF_PREFIX = {"contentlib": ["contentlib2015"], "vcha": ["vcha2016"], "robo": ["robo2019"],
                   "ft": ["ft2016"], "vmotion": ["vmotion2020"]}

#: Words after which an integer names a thing (a table, a figure, an experiment, a release ...).
STRUCTURAL_WORDS = (
    "table", "tables", "figure", "figures", "fig", "exp", "exps", "experiment", "experiments", "section",
    "sections", "§", "eq", "equation", "step", "steps", "phase", "case", "test", "row", "rows", "column",
    "columns", "release", "releases", "vsphere", "vcenter", "esxi", "update", "u", "and", "or", "to", "issue",
    "group", "run", "runs", "level", "levels", "stats",
)

#: Units that make a number a measured (or modelled) quantity. Longest first, matched case-sensitively.
UNITS = sorted([
    "%", "pp", "s", "ms", "us", "µs", "min", "minutes", "minute", "h", "hours", "hour", "seconds", "second",
    "x", "×", "times", "B", "KB", "kB", "MB", "GB", "TB", "KiB", "MiB", "GiB", "Kb", "Mb", "Gb", "bytes",
    "Kbps", "Mbps", "Gbps", "GbE", "Gb/s", "MB/s", "GB/s", "KB/s", "kB/s", "Mb/s", "Kb/s", "GHz", "MHz", "Hz",
    "ops/min", "ops/s", "ops", "operations", "vCPU", "vCPUs", "CPUs", "cores", "core", "VMs", "VM", "hosts",
    "clients", "threads", "IOPS", "ms/op", "s/op", "K", "k", "M", "W", "percent", "points",
], key=len, reverse=True)

_CODE = re.compile(r"`[^`]*`")
_LINK = re.compile(r"\]\([^)]*\)|https?://\S+|\S+\.(?:txt|csv|json|py|png|ipynb)\b")
_NUMBER = re.compile(r"(?<![\w.])(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)(?P<after>[^\s\d]*)")
_UNIT = re.compile(r"\s?(?:" + "|".join(re.escape(u) for u in UNITS) + r")(?![A-Za-z])")
_DATA_NUMBER = re.compile(r"(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(\s?[%x×]|\s?times|\s?percent)?")
_MINSEC = re.compile(r"(?<![\w.:])(\d{1,2}):([0-5]\d)(?![\w:])")
_WORD_BEFORE = re.compile(r"([A-Za-z§]+)\.?\s*(?:\d+(?:\.\d+)?\s*(?:,|and|or|to|-|–)\s*)*$")


def prose_numbers(text: str) -> list[tuple[str, float, str]]:
    """Numbers in ``text`` that look like quantities: (token, value, context); structural ones dropped.

    >>> [t for t, _, _ in prose_numbers("Exp 3 takes about 120 s; Table 5 has 4 rows; `k=3.5`")]
    ['120 s']
    """
    text = _LINK.sub(" ", _CODE.sub(" ", text))
    out = []
    for m in _MINSEC.finditer(text):  # a time printed m:ss ("2:45") is a number in seconds
        out.append((m.group(), 60.0 * int(m.group(1)) + int(m.group(2)), text[max(0, m.start() - 40):m.end() + 20]))
    text = _MINSEC.sub(lambda m: " " * len(m.group()), text)
    for m in _NUMBER.finditer(text):
        num, after = m["num"], m["after"]
        rest = text[m.end("num"):]
        unit = _UNIT.match(rest)
        if unit and unit.group().strip() in ("x", "×") and re.match(r"\s*\d", rest[unit.end():]):
            unit = None  # "8 x 4 MB": a product, not a ratio
        if after and after[0].isalpha() and not unit:
            continue  # an identifier such as 8GFC, 8b/10b, E7530, 2nd
        if after.startswith(".") and after[1:2].isalpha():
            continue
        value = float(num.replace(",", ""))
        decimal = "." in num
        if not decimal and not unit:
            continue  # a bare count
        if not decimal and 1990 <= value <= 2039:
            continue  # a year
        unit_text = unit.group().strip() if unit else ""
        before = _WORD_BEFORE.search(text[:m.start()])
        if (not decimal and before and before.group(1).lower() in STRUCTURAL_WORDS
                and unit_text not in ("%", "x", "×", "s", "ms")):
            continue  # Table 5, Exp 3, release 7, "Tables 12 and 13"
        token = num + (unit.group() if unit else "")
        near = text[max(0, m.start() - 60):m.end() + 60]
        if value == 90 and unit_text in ("%", "percent") and re.search(r"interval|band|level", near):
            continue  # the interval level of vcperf.protocol
        context = text[max(0, m.start() - 40):m.end() + 20].replace("\n", " ")
        out.append((token, value, context))
    return out


PERCENT_UNITS = {"%", "pp", "percent", "points"}
RATIO_UNITS = {"x", "×", "times", "ratio"}


def unit_class(unit: str | None) -> str:
    """``percent``, ``ratio`` or ``other``: a percentage or a ratio in prose must be one in the data too."""
    unit = (unit or "").strip()
    return "percent" if unit in PERCENT_UNITS else "ratio" if unit in RATIO_UNITS else "other"


@functools.cache
def data_numbers(studies: tuple[str, ...]) -> dict[str, frozenset[float]]:
    """Numbers printed in the studies' data/ CSV files, by :func:`unit_class`.

    A row's ``value`` is filed under its ``unit``; a number inside text (``printed``, ``note``,
    conditions) under the unit written after it ("about 20%" -> percent, "3x" -> ratio), else under
    ``other``. A prose percentage must match a data percentage, a prose ratio a data ratio; any other
    prose number may match any data number.
    """
    found: dict[str, set[float]] = {"percent": set(), "ratio": set(), "other": set()}
    for study in studies:
        for path in sorted((DATA / study).glob("*.csv")):
            with path.open(newline="") as f:
                for row in csv.DictReader(f):
                    for column, cell in row.items():
                        if not cell:
                            continue
                        if column == "value":
                            try:
                                found[unit_class(row.get("unit"))].add(round(abs(float(cell)), 9))
                            except ValueError:
                                pass
                            continue
                        for m in _MINSEC.finditer(cell):
                            found["other"].add(60.0 * int(m.group(1)) + int(m.group(2)))
                        for m in _DATA_NUMBER.finditer(cell):
                            value = round(float(m.group(1).replace(",", "")), 9)
                            found[unit_class(m.group(2))].add(value)
    found["other"] |= found["percent"] | found["ratio"]
    return {k: frozenset(v) for k, v in found.items()}


def studies_of(path: Path) -> tuple[str, ...]:
    name = path.stem
    for prefix, studies in STUDY_OF_PREFIX.items():
        if name.startswith(prefix):
            return tuple(studies)
    return tuple(sorted(d.name for d in DATA.iterdir() if d.is_dir()))


def static_prose(path: Path) -> list[str]:
    """The static prose of a notebook: markdown cells, and constant text of ``Markdown(...)`` calls."""
    out = []
    for cell in read_notebook(path).cells:
        if cell.cell_type == "markdown":
            out.append(cell.source)
            continue
        try:
            tree = ast.parse("\n".join(line for line in cell.source.splitlines() if not line.startswith("%")))
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) == "Markdown":
                for arg in node.args:
                    for sub in ast.walk(arg):
                        if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
                            out.append(sub.value)
    return out


def typed_model_numbers(path: Path) -> list[tuple[str, str]]:
    """(token, context) of every number in a notebook's static prose that is neither structural nor printed."""
    known = data_numbers(studies_of(path))
    flagged = []
    for text in static_prose(path):
        for token, value, context in prose_numbers(text):
            unit = token[len(re.match(r"[\d,.]+", token).group()):]
            if round(value, 9) not in known[unit_class(unit)]:
                flagged.append((token, context))
    return flagged


def test_scanner_flags_typed_model_numbers():
    text = ("The model predicts 1,310 s for Exp 4 (paper 1380 s), ~7.3x Exp 1; the fit leaves a 3.2 % error "
            "and the interval is 0.4 to 1.9 s wide. Table 5 lists 64 clients; see Figure 8 (2016); about 2:45.")
    tokens = [t for t, _, _ in prose_numbers(text)]
    assert tokens == ["2:45", "1,310 s", "1380 s", "7.3x", "3.2 %", "0.4", "1.9 s", "64 clients"], tokens
    known = data_numbers(("contentlib2015",))
    assert 1380.0 in known["other"] and 1310.0 not in known["other"]
    assert 20.0 in known["percent"] and 1380.0 not in known["percent"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_no_model_number_typed_in_prose(path):
    flagged = typed_model_numbers(path)
    listing = "\n".join(f"  {token!r} in ...{context}..." for token, context in flagged)
    assert not flagged, (f"{path.name}: {len(flagged)} number(s) in static prose are neither structural nor printed "
                         f"in data/{'|'.join(studies_of(path))}; render them from the computed value:\n{listing}")


def test_notebooks_state_checked_numbers():
    checked = sum(len(prose_numbers(t)) for p in NOTEBOOKS for t in static_prose(p))
    assert checked >= 20, f"the scanner saw only {checked} quantity-like numbers in all notebook prose"
