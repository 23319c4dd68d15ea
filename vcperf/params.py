"""Notebook parameters: read a notebook's ``parameters`` cell and check overrides before running it.

Every notebook in ``notebooks/`` has exactly one cell tagged ``parameters`` holding only literal
assignments, each with a comment that gives its unit and valid values::

    rtt_s = 0.1  # s, range [0, 10]: round-trip time of the what-if link
    network = "dsl"  # -, one of ["lan", "dsl"]: preset network type
    interactive = True  # -: show the what-if widgets

The comment grammar is ``# <unit>[, range [lo, hi] | , one of [...]]: <meaning>``. Overrides are
rejected before any execution when the name is unknown, the type differs from the default's, or the
value is outside the declared range or choices.

Files of parameters (``vcperf regenerate --params FILE.yaml``, the grids of ``vcperf sweep``) are
read with :class:`StrictLoader`: YAML's safe loader, with a key given twice an error (plain
``safe_load`` silently keeps the last one).
"""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import yaml

from vcperf import _validate


class StrictLoader(yaml.SafeLoader):
    """``yaml.SafeLoader`` that refuses a mapping with a key given twice (a ``yaml.YAMLError`` naming
    the key and its line); use as ``yaml.load(text, Loader=StrictLoader)``."""

    def construct_mapping(self, node, deep=False):
        seen = set()
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":  # ``<<: *anchor``: merged keys may be overridden
                continue
            key = self.construct_object(key_node, deep=deep)
            try:
                duplicate = key in seen
            except TypeError:  # an unhashable key: the base class reports it
                break
            if duplicate:
                raise yaml.constructor.ConstructorError(
                    "while constructing a mapping", node.start_mark,
                    f"found duplicate key {key!r}", key_node.start_mark)
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


_COMMENT = re.compile(
    r"#\s*(?P<unit>[^,:]+?)\s*(?:,\s*(?:range\s*(?P<range>\[[^\]]*\])|one of\s*(?P<choices>\[[^\]]*\])))?\s*:"
    r"\s*(?P<meaning>.*)$"
)


@dataclass(frozen=True)
class Parameter:
    """One notebook parameter: name, default, unit, optional range or choices, meaning."""

    name: str
    default: object
    unit: str
    meaning: str
    lo: float | None = None
    hi: float | None = None
    choices: tuple | None = None

    def check(self, value, notebook: str) -> object:
        """Return ``value`` (ints widened to float where the default is float) or raise ValueError."""
        where = f"notebook {notebook}: parameter {self.name}"
        d = self.default
        if isinstance(d, bool) or isinstance(value, bool):
            if not (isinstance(d, bool) and isinstance(value, bool)):
                raise ValueError(f"{where} must be {type(d).__name__}; got {value!r}")
        elif isinstance(d, int | float) and isinstance(value, int | float):
            if isinstance(d, int) and not isinstance(value, int):
                raise ValueError(f"{where} must be an integer; got {value!r}")
            if isinstance(value, float) and not math.isfinite(value):
                raise ValueError(f"{where} must be finite; got {value!r}")
            value = float(value) if isinstance(d, float) else value
        elif type(value) is not type(d):
            raise ValueError(f"{where} must be {type(d).__name__}; got {value!r}")
        if self.lo is not None and not (self.lo <= value <= self.hi):
            raise ValueError(f"{where} must be in [{self.lo:g}, {self.hi:g}] {self.unit}; got {value!r}")
        if self.choices is not None and value not in self.choices:
            raise ValueError(f"{where} must be one of {list(self.choices)}; got {value!r}")
        return value

    def describe(self) -> str:
        valid = ""
        if self.lo is not None:
            valid = f" in [{self.lo:g}, {self.hi:g}]"
        elif self.choices is not None:
            valid = f" one of {list(self.choices)}"
        return f"{self.name} = {self.default!r}  [{self.unit}]{valid}: {self.meaning}"


def read_notebook(path: Path):
    """The notebook at ``path`` as an nbformat node.

    Notebooks are kept as jupytext percent files (``notebooks/<name>.py``, the one source a user
    edits in JupyterLab); a ``.ipynb`` is read as is. Cell ids are set to ``cell-NN`` so that an
    executed notebook is the same from run to run.
    """
    import jupytext

    path = _validate.existing_file("path", path, "a notebook (.py or .ipynb)")
    nb = jupytext.read(path) if path.suffix == ".py" else jupytext.read(path, fmt="ipynb")
    for i, cell in enumerate(nb.cells):
        cell["id"] = f"cell-{i:02d}"
    return nb


def parameters_cell(path: Path) -> str:
    """Source of the single cell tagged ``parameters`` in a notebook."""
    _validate.existing_file("path", path, "a notebook (.py or .ipynb)")
    nb = read_notebook(path)
    cells = [c for c in nb["cells"] if "parameters" in c.get("metadata", {}).get("tags", [])]
    if len(cells) != 1:
        raise ValueError(f"notebook {Path(path).name} must have exactly one cell tagged 'parameters'")
    src = cells[0]["source"]
    return "".join(src) if isinstance(src, list) else src


def read_parameters(path: Path) -> dict[str, Parameter]:
    """Parse the ``parameters`` cell of a notebook into :class:`Parameter` objects, in order."""
    _validate.existing_file("path", path, "a notebook (.py or .ipynb)")
    name = Path(path).stem
    source = parameters_cell(path)
    lines = source.splitlines()
    out: dict[str, Parameter] = {}
    for node in ast.parse(source).body:
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)):
            raise ValueError(f"notebook {name}: parameters cell may only assign literals to names")
        pname = node.targets[0].id
        default = ast.literal_eval(node.value)
        line = lines[node.lineno - 1]
        m = _COMMENT.search(line[line.index("#"):]) if "#" in line else None
        if m is None:
            raise ValueError(f"notebook {name}: parameter {pname} needs a '# unit[, range [lo, hi]]: meaning' comment")
        lo = hi = choices = None
        if m["range"]:
            lo, hi = (float(x) for x in ast.literal_eval(m["range"]))
        if m["choices"]:
            choices = tuple(ast.literal_eval(m["choices"]))
        param = Parameter(pname, default, m["unit"].strip(), m["meaning"].strip(), lo, hi, choices)
        param.check(default, name)  # a notebook's own defaults must be valid
        out[pname] = param
    return out


def did_you_mean(name: str, choices) -> str:
    """`` (did you mean 'x'?)`` for the choices closest to a mistyped ``name`` (difflib), or ``""``.

    Examples
    --------
    >>> did_you_mean("whatif_netwrk", ["whatif_network", "whatif_payload_bytes"])
    " (did you mean 'whatif_network'?)"
    >>> did_you_mean("zzz", ["whatif_network"])
    ''
    """
    import difflib

    close = difflib.get_close_matches(str(name), [str(c) for c in choices], n=3, cutoff=0.6)
    return f" (did you mean {' or '.join(repr(c) for c in close)}?)" if close else ""


def check_overrides(path: Path, overrides: dict) -> dict:
    """Validate ``overrides`` against a notebook's parameters; return them with normalised types.

    Raises
    ------
    ValueError
        Unknown name (the message lists the notebook's parameters) or invalid value.
    """
    _validate.existing_file("path", path, "a notebook (.py or .ipynb)")
    _validate.instance("overrides", overrides, Mapping, "a dict of parameter name -> value")
    params = read_parameters(path)
    checked = {}
    for key, value in overrides.items():
        if key not in params:
            listing = "\n  ".join(p.describe() for p in params.values())
            raise ValueError(f"notebook {Path(path).stem} has no parameter {key!r}{did_you_mean(key, params)} "
                             f"(overrides); its parameters:\n  {listing}")
        checked[key] = params[key].check(value, Path(path).stem)
    return checked


def parse_assignment(text: str) -> tuple[str, object]:
    """Parse ``key=value`` from the command line; the value is a Python literal or a bare string."""
    _validate.text("text", text, "'key=value' (str)")
    key, sep, raw = text.partition("=")
    if not sep or not key.strip().isidentifier():
        raise ValueError(f"-p expects key=value (text); got {text!r}")
    try:
        value = ast.literal_eval(raw.strip())
    except (ValueError, SyntaxError):
        value = raw.strip()
    return key.strip(), value
