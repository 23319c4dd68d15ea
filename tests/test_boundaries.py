"""Module boundaries: no module uses another module's private (underscore) names, ``__all__`` lists public
names only, and a study's model module is not shadowed by a function of its name.

A helper shared between modules is public (no underscore, a docstring; a ``checked_*`` function is the
core of a public one on values its caller has checked, see ``docs/ARCHITECTURE.md``); a private name
is used only in the module that defines it. Tests are not scanned (they may reach into a module).
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "vcperf"

#: Modules still allowed to use another module's private names (none: keep it so).
ALLOWED_USERS: frozenset = frozenset()
#: Modules whose ``__all__`` may still list private names (none: keep it so).
ALLOWED_PRIVATE_EXPORTS: frozenset = frozenset()


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _resolve(module: str, path: Path, node: ast.ImportFrom) -> str:
    """The absolute module an ``ImportFrom`` reads from."""
    if not node.level:
        return node.module or ""
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    base = package[:len(package) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def private_uses(module: str, path: Path, text: str | None = None) -> list[str]:
    """``from vcperf.x import _y`` and ``x._y`` (``x`` a vcperf module other than ``module``) in ``module``.

    A private *module* (``vcperf._validate``, ``vcperf._yaml``) is the package's own shared layer and is
    not a private name of another module.
    """
    tree = ast.parse(path.read_text(encoding="utf-8") if text is None else text)
    aliases, found = {}, []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = _resolve(module, path, node)
            if not base.startswith("vcperf"):
                continue
            for a in node.names:
                if f"{base}.{a.name}" in MODULES:
                    aliases[a.asname or a.name] = f"{base}.{a.name}"
                elif _private(a.name):
                    found.append(f"line {node.lineno}: from {base} import {a.name}")
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("vcperf"):
                    aliases[a.asname or a.name] = a.name if a.asname else "vcperf"
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Attribute) and _private(node.attr)):
            continue
        chain, value = [], node.value
        while isinstance(value, ast.Attribute):
            chain.append(value.attr)
            value = value.value
        if not isinstance(value, ast.Name) or value.id not in aliases:
            continue
        target = ".".join([aliases[value.id], *reversed(chain)])
        if target in MODULES and target != module:
            found.append(f"line {node.lineno}: {target}.{node.attr}")
    return found


def test_the_scan_finds_both_forms():
    """The scan is not vacuous: it reports a private import and a private attribute of another module, and
    neither a private module nor a module's own private names."""
    text = ("from vcperf.robo.branch import _hidden\nfrom vcperf import network\nfrom vcperf import _validate as v\n"
            "from . import plan\nx = network._core(v.real('a', 1))\ny = plan._inner\nz = _own()\n")
    found = private_uses("vcperf.site.probe", PACKAGE / "site" / "probe.py", text)
    assert sorted(found) == ["line 1: from vcperf.robo.branch import _hidden", "line 5: vcperf.network._core",
                     "line 6: vcperf.site.plan._inner"]


@pytest.mark.parametrize("module", sorted(set(MODULES) - ALLOWED_USERS))
def test_no_module_uses_another_modules_private_names(module):
    assert private_uses(module, MODULES[module]) == [], (
        f"{module} uses private names of other modules: make the helper public (no underscore, a docstring) "
        "or move it where it is used")


def test_the_allowance_is_still_needed():
    """Each allowed module still has a private use (else drop it from the allowance); today there is none."""
    assert all(private_uses(m, MODULES[m]) for m in ALLOWED_USERS)
    assert not ALLOWED_USERS and not ALLOWED_PRIVATE_EXPORTS


@pytest.mark.parametrize("module", sorted(MODULES))
def test_all_lists_public_names_only(module):
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            names = [e.value for e in getattr(node.value, "elts", []) if isinstance(e, ast.Constant)]
            private = [n for n in names if _private(n)]
            if module in ALLOWED_PRIVATE_EXPORTS:
                assert private, f"{module} exports no private name any more: drop it from ALLOWED_PRIVATE_EXPORTS"
            else:
                assert private == [], f"{module}.__all__ lists private names {private}"


def test_the_vcbench_model_module_is_not_shadowed_by_its_function():
    """``vcperf.vcha.vcbench`` is the module (the function is :func:`vcperf.vcha.run_vcbench`)."""
    vcha = importlib.import_module("vcperf.vcha")
    assert vcha.vcbench is importlib.import_module("vcperf.vcha.vcbench")
    assert callable(vcha.run_vcbench) and "vcbench" not in vcha.__all__
