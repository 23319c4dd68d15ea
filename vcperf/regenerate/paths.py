"""Where a regeneration may write: the build, scenario and notebook paths, and their checks.

A scenario is a plain name (:data:`SCENARIO_NAME`); a target that is a filesystem root, the
checkout, the home or current folder (or one of their parents), or an existing folder that does not
look like a build is refused (:func:`check_target`). Every path written under a build is resolved
and must stay inside it (:func:`inside`): a symbolic link out of the build is an error
(:class:`UnsafePath`), never followed.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
#: The notebook sources (``<name>.py``); tests point it at a temporary folder.
NOTEBOOK_DIR = ROOT / "notebooks"
BUILD = ROOT / "build"
#: A scenario is a plain folder name under ``build/scenarios/`` (no separators, not ``.``/``..``).
SCENARIO_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
#: What a build folder may hold; an existing target with anything else is not replaced.
BUILD_ENTRIES = {"notebooks", "figures", "tables", "scenarios", "bench", "report", "app", "screenshots",
                 "fidelity.csv", "index.html", "scenario.json"}


def notebooks() -> dict[str, Path]:
    """Notebook name -> path of its source, for every notebook in :data:`NOTEBOOK_DIR`.

    The source of a notebook is its jupytext percent file ``notebooks/<name>.py``; regeneration
    builds the ``.ipynb`` from it (:func:`vcperf.params.read_notebook`), so what a user edits is what runs.
    """
    return {p.stem: p for p in sorted(NOTEBOOK_DIR.glob("*.py"))}


def check_scenario(name: str) -> str:
    """``name`` if it is a plain scenario name, else ValueError."""
    if not isinstance(name, str) or not SCENARIO_NAME.fullmatch(name):
        raise ValueError(f"--scenario must be a plain name (letters, digits, '_', '.', '-'; up to 64 characters, "
                         f"starting with a letter or digit); got {name!r}")
    return name


def check_target(target: Path) -> Path:
    """The resolved ``target``, or ValueError if replacing it could destroy anything but a build.

    Refused: a filesystem root; the checkout, its ``notebooks/`` or ``vcperf/`` folder, the home
    folder, or a parent of any of these; an existing non-folder; an existing folder holding
    anything a build does not (see :data:`BUILD_ENTRIES`; dot files are allowed).
    """
    raw = target
    target = Path(target).expanduser().resolve()
    if target.parent == target:
        raise ValueError(f"--output must not be a filesystem root; got {str(raw)!r}")
    protected = {ROOT, NOTEBOOK_DIR.resolve(), ROOT / "vcperf", Path.home().resolve()}
    for p in protected:
        if target == p or target in p.parents:
            raise ValueError(f"--output {str(raw)!r} is (or contains) {p}: refusing to replace it; "
                             "give a build folder such as build/")
    if target.exists() and not target.is_dir():
        raise ValueError(f"--output {str(raw)!r} exists and is not a folder")
    build = BUILD.resolve()
    if target.is_dir() and not (target == build or build in target.parents):
        foreign = sorted(p.name for p in target.iterdir() if p.name not in BUILD_ENTRIES and not p.name.startswith("."))
        if foreign:
            shown = ", ".join(foreign[:5]) + (", ..." if len(foreign) > 5 else "")
            raise ValueError(f"--output {target} is not a vcperf build (it holds {shown}): refusing to replace it; "
                             "give an empty or new folder, or a previous build")
    return target


def lock_root(target: Path) -> Path:
    """The build root whose lock covers ``target``: the build holding a scenario, else the target.

    A scenario ``<build>/scenarios/<name>`` shares the lock of ``<build>``, whose staging copy
    includes it.
    """
    build = BUILD.resolve()
    if build in target.parents:
        return build
    return target.parent.parent if target.parent.name == "scenarios" else target
