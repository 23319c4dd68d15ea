"""The one registry of the five studies: name, subpackage, seed file and title.

Every list of studies in vcperf (``vcperf.data``, the protocol, the ledger, the views, the report)
is read from :data:`STUDIES`; adding a study is one entry here plus its subpackage and ``data/``
folder.

Examples
--------
>>> from vcperf import studies
>>> studies.names()
('vcha2016', 'robo2019', 'ft2016', 'contentlib2015', 'vmotion2020')
>>> studies.STUDIES["vmotion2020"].package
'vcperf.vmotion'
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass


@dataclass(frozen=True)
class Study:
    """One published study vcperf rebuilds.

    Parameters
    ----------
    name : str
        The ``data/`` folder, e.g. ``"vcha2016"``.
    package : str
        The subpackage implementing the study protocol, e.g. ``"vcperf.vcha"``.
    seed : str
        The file name of the study's text in the project's seed folder (cited in ``data/`` provenance).
    title : str
        A short human title.
    """

    name: str
    package: str
    seed: str
    title: str


#: name -> :class:`Study`, in the order the studies are presented.
STUDIES: dict[str, Study] = {s.name: s for s in (
    Study("vcha2016", "vcperf.vcha", "000_bf7f1144753162c9.txt", "vCenter 6.5 High Availability"),
    Study("robo2019", "vcperf.robo", "001_36d9adf7ffa34fcf.txt", "vCenter 6.7 in remote and branch offices"),
    Study("ft2016", "vcperf.ft", "002_1123405df89c1006.txt", "vSphere 6 Fault Tolerance"),
    Study("contentlib2015", "vcperf.contentlib", "003_a39039efb1262c72.txt", "Content Library deployment paths"),
    Study("vmotion2020", "vcperf.vmotion", "004_ea13268657e6b3b0.txt", "vMotion in vSphere 7.0 U1"),
)}


def names() -> tuple[str, ...]:
    """The study names, in order."""
    return tuple(STUDIES)


def module(name: str):
    """The subpackage implementing study ``name``.

    The registry's one dynamic import: shared layers (the protocol, the ledger) find a study's
    targets and calibration through it without importing any study statically, so the layering
    primitives < protocol < studies holds (``importlinter`` contracts in ``pyproject.toml``).

    Raises
    ------
    ValueError
        If ``name`` is not a registered study.
    """
    if name not in STUDIES:
        raise ValueError(f"study must be one of {list(STUDIES)}; got {name!r}")
    return importlib.import_module(STUDIES[name].package)


def of_module(module_name: str) -> str:
    """The study whose subpackage holds the module ``module_name`` (e.g. ``vcperf.vmotion.memory``).

    Raises
    ------
    ValueError
        If the module belongs to no study.
    """
    for s in STUDIES.values():
        if module_name == s.package or module_name.startswith(s.package + "."):
            return s.name
    raise ValueError(f"module must belong to one of the study packages "
                     f"{[s.package for s in STUDIES.values()]}; got {module_name!r}")
