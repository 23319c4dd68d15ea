"""The one registry of the five studies: name, subpackage, seed file, title and full citation.

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
    full_title : str
        The paper's title as printed.
    authors : tuple of str
        The authors as printed (empty when the paper prints none).
    kind : str
        What the publication is, as printed ("Performance Study", "Technical White Paper", ...).
    publisher : str
        Who published it.
    year : int
        The year of publication.
    date : str
        The date as printed ("" when only the year is known).
    url : str
        Where the paper is found, as the paper prints it ("" when it prints none).
    """

    name: str
    package: str
    seed: str
    title: str
    full_title: str = ""
    authors: tuple[str, ...] = ()
    kind: str = ""
    publisher: str = ""
    year: int = 0
    date: str = ""
    url: str = ""

    def citation(self) -> str:
        """The full citation as plain text: authors, "title", kind, publisher, date, URL.

        Examples
        --------
        >>> STUDIES["contentlib2015"].citation()[:28]
        'J. Guan and D. Bergamasco, “'
        """
        who = _join_authors(self.authors)
        parts = [f"{who}, “{self.full_title}”" if who else f"“{self.full_title}”"]
        parts += [x for x in (self.kind, self.publisher, self.date or str(self.year)) if x]
        text = ", ".join(parts) + "."
        return f"{text} {self.url}" if self.url else text


def _join_authors(authors: tuple[str, ...]) -> str:
    if len(authors) <= 1:
        return "".join(authors)
    return ", ".join(authors[:-1]) + " and " + authors[-1]


#: name -> :class:`Study`, in the order the studies are presented.
STUDIES: dict[str, Study] = {s.name: s for s in (
    Study("vcha2016", "vcperf.vcha", "000_bf7f1144753162c9.txt", "vCenter 6.5 High Availability",
          full_title="VMware vCenter Server High Availability Performance and Best Practices "
                     "(VMware vCenter Server 6.5)",
          authors=("A. T. Mizrak", "P. Saxena"), kind="Performance white paper", publisher="VMware, Inc.",
          year=2016, url="https://communities.vmware.com/docs/DOC-33044"),
    Study("robo2019", "vcperf.robo", "001_36d9adf7ffa34fcf.txt", "vCenter 6.7 in remote and branch offices",
          full_title="Performance of VMware vCenter Server 6.7 in Remote Offices and Branch Offices",
          authors=("A. T. Mizrak",), kind="Performance Study", publisher="VMware, Inc., Palo Alto, CA",
          year=2019, date="September 20, 2019", url="http://www.vmware.com"),
    Study("ft2016", "vcperf.ft", "002_1123405df89c1006.txt", "vSphere 6 Fault Tolerance",
          full_title="VMware vSphere 6 Fault Tolerance: Architecture and Performance",
          kind="Technical White Paper", publisher="VMware, Inc.", year=2016, date="January 4, 2016",
          url="https://communities.vmware.com/docs/DOC-30054"),
    Study("contentlib2015", "vcperf.contentlib", "003_a39039efb1262c72.txt", "Content Library deployment paths",
          full_title="How to Efficiently Deploy Virtual Machines from VMware vSphere Content Library",
          authors=("J. Guan", "D. Bergamasco"), kind="VMware VROOM! Blog", publisher="VMware, Inc.",
          year=2015, date="July 2015", url="https://blogs.vmware.com/performance/2015/07/efficiently-deploy-vms-vmware-vsphere-content-library.html"),
    Study("vmotion2020", "vcperf.vmotion", "004_ea13268657e6b3b0.txt", "vMotion in vSphere 7.0 U1",
          full_title="vMotion Innovations in VMware vSphere 7.0 U1",
          authors=("S. Setty",), kind="Performance Study", publisher="VMware, Inc., Palo Alto, CA",
          year=2020, date="September 24, 2020", url="https://www.vmware.com/techpapers/2020/vmotion-7u1-perf.html"),
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
