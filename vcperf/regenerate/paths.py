"""Where a regeneration may write: the build, scenario and notebook paths, and their checks.

A scenario is a plain name (:data:`SCENARIO_NAME`); a target that is a filesystem root, the
checkout, the home or current folder (or one of their parents), or an existing folder that does not
look like a build is refused (:func:`check_target`). Every path written under a build is resolved
and must stay inside it (:func:`inside`): a symbolic link out of the build is an error
(:class:`UnsafePath`), never followed.
"""

from __future__ import annotations

import os
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


class UnsafePath(ValueError):
    """A write under a build would follow a symbolic link out of it (or through a link where a run
    keeps its own files): refused, nothing written."""


def inside(root: Path, path: Path, shown: str | Path | None = None) -> Path:
    """The resolved ``path``, or :class:`UnsafePath` if it resolves outside the resolved ``root``.

    ``shown`` is how the path is named in the error (default: ``path``).
    """
    real_root, real = Path(root).resolve(), Path(path).resolve()
    if real != real_root and real_root not in real.parents:
        raise UnsafePath(f"{shown or path} resolves to {real}, outside the build {real_root}: refusing to "
                         "follow a symbolic link out of the build")
    return real


def no_link(path: Path) -> Path:
    """``path`` if it is not a symbolic link, else :class:`UnsafePath` (a run's own files beside a build:
    the lock, the staging, old and failed copies, the kernels' folder, the scenario index)."""
    if Path(path).is_symlink():
        raise UnsafePath(f"{path} is a symbolic link (to {os.readlink(path)}): refusing to write through it; "
                         "remove the link")
    return Path(path)


def check_links(tree: Path, shown: Path | None = None) -> None:
    """:class:`UnsafePath` if any symbolic link under ``tree`` resolves outside it.

    A copied build is checked before anything is written into it, so no notebook output can land
    outside the build through a link; ``shown`` is the folder the error names (the build the copy
    was taken from).
    """
    tree = Path(tree)
    real_tree = tree.resolve()
    for folder, dirs, files in os.walk(tree):
        for name in dirs + files:
            path = Path(folder, name)
            if not path.is_symlink():
                continue
            real = path.resolve()
            if real != real_tree and real_tree not in real.parents:
                where = Path(shown or tree) / path.relative_to(tree)
                raise UnsafePath(f"{where} is a symbolic link to {os.readlink(path)}, outside the build "
                                 f"{shown or tree}: refusing to write through it; remove the link")


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
    anything a build does not (see :data:`BUILD_ENTRIES`; dot files are allowed). A target under a
    build (a scenario ``<build>/scenarios/<name>``, or anything under the default ``build/``) must
    resolve inside that build (:class:`UnsafePath`: a symbolic link out of it is not followed).
    """
    raw = target
    lexical = Path(os.path.abspath(Path(target).expanduser()))
    target = lexical.resolve()
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
    default = Path(os.path.abspath(BUILD))
    if default in lexical.parents:
        inside(default, target, f"--output {str(raw)!r}")
    if lexical.parent.name == "scenarios":
        inside(lexical.parent.parent, target, f"--output {str(raw)!r}")
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
