"""Notebook parameters: read a notebook's ``parameters`` cell and check overrides before running it.

Every notebook in ``notebooks/`` has exactly one cell tagged ``parameters`` holding only literal
assignments, each with a comment that gives its unit and valid values::

    rtt_s = 0.1  # s, range [0, 10]: round-trip time of the what-if link
    network = "dsl"  # -, one of ["lan", "dsl"]: preset network type
    interactive = True  # -: show the what-if widgets

The comment grammar is ``# <unit>[, range [lo, hi] | , one of [...]]: <meaning>``; a bound may name
an earlier parameter (``range [0.25, memory_gib]``: a working set no larger than the memory). Overrides
are rejected before any execution when the name is unknown, the type differs from the default's, or the
value is outside the declared range or choices; the notebook checks its values again when it runs
(:func:`check_notebook_parameters`).

Files of parameters (``vcperf regenerate --params FILE.yaml``, the grids of ``vcperf sweep``) are
read with :mod:`vcperf._yaml`: YAML's safe loader with a key given twice an error (plain ``safe_load``
silently keeps the last one), no anchors or aliases, and limits on size, depth and numbers.
"""

from __future__ import annotations

import ast
import json
import math
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from vcperf import _validate, _yaml

#: The package's one YAML loader (:class:`vcperf._yaml.Loader`), under its former name.
StrictLoader = _yaml.Loader


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
    lo: float | str | None = None
    hi: float | str | None = None
    choices: tuple | None = None

    def check(self, value, notebook: str, values: Mapping | None = None) -> object:
        """Return ``value`` (ints widened to float where the default is float) or raise ValueError.

        ``values`` (the other parameters' values) resolves a bound that names another parameter; a
        named bound is not checked without it."""
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
        if self.lo is not None:
            lo, hi = (values.get(b) if isinstance(b, str) and values is not None else b for b in (self.lo, self.hi))
            if not ((isinstance(lo, str | type(None)) or lo <= value) and (isinstance(hi, str | type(None))
                                                                            or value <= hi)):
                raise ValueError(f"{where} must be in [{_bound(self.lo, values)}, {_bound(self.hi, values)}] "
                                 f"{self.unit}; got {value!r}")
        if self.choices is not None and value not in self.choices:
            raise ValueError(f"{where} must be one of {list(self.choices)}; got {value!r}")
        return value

    def describe(self) -> str:
        valid = ""
        if self.lo is not None:
            valid = f" in [{_bound(self.lo)}, {_bound(self.hi)}]"
        elif self.choices is not None:
            valid = f" one of {list(self.choices)}"
        return f"{self.name} = {self.default!r}  [{self.unit}]{valid}: {self.meaning}"


def _bound(b, values: Mapping | None = None) -> str:
    """A range bound as messages print it: ``6144``, ``whatif_memory_gib`` or ``whatif_memory_gib = 4``."""
    if isinstance(b, str):
        return f"{b} = {values[b]!r}" if values is not None and b in values else b
    return f"{b:g}"


def _range(text: str, earlier: Mapping, where: str) -> tuple:
    """``[lo, hi]`` of a parameter comment: numbers, or names of earlier parameters."""
    items = [x.strip() for x in text.strip()[1:-1].split(",")]
    if len(items) != 2:
        raise ValueError(f"{where}: range must be [lo, hi]; got {text}")
    out = []
    for x in items:
        if x.isidentifier():
            if x not in earlier:
                raise ValueError(f"{where}: range bound {x!r} must name an earlier parameter")
            out.append(x)
        else:
            out.append(float(ast.literal_eval(x)))
    return tuple(out)


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


#: A jupytext percent cell marker (``# %%``, ``#%%``, ``# %% [markdown]``, ...) and the one form of it the
#: quick reader takes for a tagged code cell: ``# %%`` then, optionally, ``tags=[...]`` (a JSON list) alone.
_PERCENT_MARKER = re.compile(r"^\s*#\s*%%")
_PLAIN_MARKER = re.compile(r"# %%(?: tags=(?P<tags>\[[^\]]*\]))?")
#: A line jupytext would not read as it stands in a code cell (an escaped magic or shell command).
_ESCAPED = re.compile(r"^\s*#\s*[%!?]")


def _tagged_sources(path: Path) -> list[str] | None:
    """Sources of the cells tagged ``parameters``, read without jupytext/nbformat; ``None`` if the file is not
    in the plain form this reader knows (jupytext reads it then).

    Jupytext imports nbformat and jsonschema (seconds of imports in every kernel that checks its parameters).
    A ``.py`` is read here when its header says ``format_name: percent`` and every marker of a tagged cell is
    plain (``# %% tags=[...]``) and the cell holds no escaped magic; a ``.ipynb`` when it is nbformat 4 JSON.
    The sources equal jupytext's up to trailing blank lines (tests/test_notebook_params.py checks every notebook).
    """
    text = Path(path).read_text(encoding="utf-8")
    if path.suffix == ".ipynb":
        try:
            nb = json.loads(text)
        except ValueError:  # jupytext says what is wrong with it
            return None
        if not (isinstance(nb, dict) and nb.get("nbformat") == 4 and isinstance(nb.get("cells"), list)):
            return None
        return ["".join(src) if isinstance(src := c.get("source", ""), list) else src
                for c in nb["cells"] if "parameters" in c.get("metadata", {}).get("tags", [])]
    lines = text.splitlines()
    ends = [i for i, ln in enumerate(lines) if ln.rstrip() == "# ---"] if lines[:1] == ["# ---"] else []
    header = lines[:ends[1] + 1] if len(ends) > 1 else []  # jupytext's YAML header, between two "# ---"
    if not {"extension: .py", "format_name: percent"} <= {ln.lstrip("#").strip() for ln in header}:
        return None
    sources, body = [], None
    for line in lines[len(header):]:
        if _PERCENT_MARKER.match(line):
            body = None
            if "parameters" in line:
                m = _PLAIN_MARKER.fullmatch(line.rstrip())
                try:
                    tags = json.loads(m["tags"]) if m and m["tags"] else None
                except ValueError:
                    tags = None
                if not isinstance(tags, list):
                    return None
                if "parameters" in tags:
                    body = []
                    sources.append(body)
        elif body is not None:
            if _ESCAPED.match(line):
                return None
            body.append(line)
    return ["\n".join(b).rstrip() for b in sources]


def parameters_cell(path: Path) -> str:
    """Source of the single cell tagged ``parameters`` in a notebook (read without jupytext where the file
    is plain: :func:`_tagged_sources`)."""
    _validate.existing_file("path", path, "a notebook (.py or .ipynb)")
    sources = _tagged_sources(Path(path))
    if sources is None:
        nb = read_notebook(path)
        sources = ["".join(src) if isinstance(src := c["source"], list) else src
                   for c in nb["cells"] if "parameters" in c.get("metadata", {}).get("tags", [])]
    if len(sources) != 1:
        raise ValueError(f"notebook {Path(path).name} must have exactly one cell tagged 'parameters'")
    return sources[0]


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
            lo, hi = _range(m["range"], out, f"notebook {name}: parameter {pname}")
        if m["choices"]:
            choices = tuple(ast.literal_eval(m["choices"]))
        param = Parameter(pname, default, m["unit"].strip(), m["meaning"].strip(), lo, hi, choices)
        param.check(default, name, {k: p.default for k, p in out.items()})  # its own defaults must be valid
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
    values = {k: p.default for k, p in params.items()} | checked
    for key, p in params.items():  # ranges naming another parameter, with the overrides applied
        if isinstance(p.lo, str) or isinstance(p.hi, str):
            p.check(values[key], Path(path).stem, values)
    return checked


#: Where :func:`check_notebook_parameters` finds a notebook given by name (``notebooks/`` of the checkout).
NOTEBOOK_DIR = Path(__file__).resolve().parent.parent / "notebooks"


def check_notebook_parameters(namespace: Mapping, notebook) -> dict:
    """Check a running notebook's parameters against its ``parameters`` cell (inside the run).

    Every notebook calls this at the top of its second code cell, so a value given by papermill
    directly (``papermill -p planner_hosts 10000000 ...``), typed on Binder or passed by
    ``vcperf regenerate -p`` is range- and type-checked by the same rule before any model runs.
    Values are written back normalised (an int given for a float parameter becomes a float). An
    interactive run (``interactive = True``) left with the default ``output_dir`` gets ``output_dir = None``:
    it writes nothing into ``build/`` (the report's files stay the regeneration's); set ``output_dir`` to a
    folder to have it write there. Tables then show their text in full (no "..." cut).

    Parameters
    ----------
    namespace : dict
        The notebook's globals (``globals()``), holding the parameters cell's names after papermill's
        injected cell.
    notebook : str or path
        The notebook's name (``"robo_networks"``, looked up as ``<name>.py`` then ``<name>.ipynb`` in the
        working folder -- the notebook's own, as Jupyter and ``vcperf regenerate`` run it -- then in
        :data:`NOTEBOOK_DIR`) or the path of its source.

    Returns
    -------
    dict
        Parameter name -> checked value.

    Raises
    ------
    ValueError
        A parameter missing from ``namespace`` or invalid, naming the notebook, the parameter, the value
        and the valid range or choices.

    Examples
    --------
    >>> ns = {"interactive": False, "output_dir": "../build", "whatif_network": "mars",
    ...       "whatif_payload_bytes": 3.5e6}
    >>> check_notebook_parameters(ns, "robo_networks")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: notebook robo_networks: parameter whatif_network must be one of [...]; got 'mars'
    """
    _validate.instance("namespace", namespace, Mapping, "the notebook's globals() (a dict)")
    _validate.instance("notebook", notebook, (str, Path), "a notebook name or path (str)")
    path = Path(notebook)
    if path.suffix not in (".py", ".ipynb"):
        candidates = [d / f"{path.name}{ext}" for d in (Path.cwd(), NOTEBOOK_DIR) for ext in (".py", ".ipynb")]
        path = next((c for c in candidates if c.is_file()), candidates[0])
    declared = read_parameters(path)
    checked = {}
    for name, param in declared.items():
        if name not in namespace:
            raise ValueError(f"namespace must hold every parameter of notebook {path.stem}; {name} is not set "
                             "(run the parameters cell first)")
        checked[name] = param.check(namespace[name], path.stem, {**namespace, **checked})
    if checked.get("interactive") is True and "output_dir" in declared \
            and checked["output_dir"] == declared["output_dir"].default:
        checked["output_dir"] = None  # an interactive run writes nothing (vcperf.plotting's save_* skip None)
    _show_tables_in_full()
    if isinstance(namespace, dict):
        namespace.update(checked)
    return checked


def _show_tables_in_full() -> None:
    """A notebook's tables show their text and columns in full (pandas cuts a cell at 50 characters and leaves
    columns out past 20, with "..."): at once when
    pandas is imported (a regeneration's kernels have it), else before the first cell run after its import."""
    import sys

    def full(*_) -> bool:
        pandas = sys.modules.get("pandas")
        if pandas is None or not hasattr(pandas, "set_option"):
            return False
        pandas.set_option("display.max_colwidth", None)
        pandas.set_option("display.max_columns", None)  # no column left out as "..." either
        return True

    if full():
        return
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    if shell is None or not hasattr(shell, "events"):
        return

    def before_cell(*_):
        if full():
            shell.events.unregister("pre_run_cell", before_cell)

    shell.events.register("pre_run_cell", before_cell)


def parse_assignment(text: str) -> tuple[str, object]:
    """Parse ``key=value`` from the command line; the value is a Python literal or a bare string."""
    _validate.text("text", text, "'key=value' (str)")
    key, sep, raw = text.partition("=")
    if not sep or not key.strip().isidentifier():
        raise ValueError(f"-p expects key=value (text); got {text!r}")
    try:
        value = ast.literal_eval(raw.strip())
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return key.strip(), raw.strip()
    _strict_numbers(key.strip(), raw.strip())
    return key.strip(), value


#: A number on the command line: a plain decimal literal (``16``, ``-1.5``, ``2e-3``); Python's other
#: spellings (``0x10``, ``0o20``, ``1_000``, ``1j``) are refused, not read as numbers nobody meant.
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", re.ASCII)


def _strict_numbers(key: str, raw: str) -> None:
    """Refuse a ``-p`` value holding a number that is not a plain decimal literal (also inside a list)."""
    for node in ast.walk(ast.parse(raw, mode="eval")):
        if isinstance(node, ast.Constant) and isinstance(node.value, int | float | complex) and \
                not isinstance(node.value, bool):
            text = ast.get_source_segment(raw, node) or ""
            if not _DECIMAL.fullmatch(text):
                raise ValueError(f"-p {key}: a number must be a plain decimal literal (e.g. 16, 1.5 or 2e-3); "
                                 f"got {text!r}")


def skip_unused_format_checker() -> None:
    """Keep jsonschema from building the IRI format checker when nbformat first imports it.

    jsonschema compiles 38 grammars (``rfc3987_syntax``, about 1.2 s of CPU) at import for its
    ``iri`` format checks, which nbformat's validation never asks for (it passes no format checker).
    A run imports nbformat in its main process (the workers it forks inherit it) and the kernel server
    imports it (jupytext, :data:`vcperf.regenerate.forkserver.PRELOAD`) for the kernels it forks.
    """
    if "jsonschema" not in sys.modules:
        sys.modules.setdefault("rfc3987_syntax", None)  # an import of it raises ImportError: skipped
