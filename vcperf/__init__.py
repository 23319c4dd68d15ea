"""vcperf: open, mechanistic models of vCenter and vSphere performance studies.

Submodules and the study subpackages are imported lazily (``vcperf.network``, ``vcperf.data``,
``vcperf.robo``, ... on first use) so that ``import vcperf`` stays fast and light.
"""

import importlib

__version__ = "0.1.0"

#: Every public submodule and study subpackage, imported on first attribute access
#: (``vcperf.robo`` imports ``vcperf.robo``); ``import vcperf`` itself imports neither numpy nor pandas.
_SUBMODULES = (
    # primitives, the registry and data
    "studies",
    "prose",
    "network",
    "queueing",
    "traffic",
    "units",
    "data",
    # the study protocol and what reads it
    "fidelity",
    "protocol",
    "params",
    "sweep",
    # figures, panels, notebooks, reports
    "plotting",
    "widgets",
    "views",
    "regenerate",
    "report",
    "app",
    "cli",
    # the five studies
    "vcha",
    "robo",
    "ft",
    "contentlib",
    "vmotion",
    # the five studies on shared links
    "site",
)


def __getattr__(name):
    if name in _SUBMODULES:
        return importlib.import_module(f"vcperf.{name}")
    raise AttributeError(f"module 'vcperf' has no attribute {name!r}")


def __dir__():
    return sorted(list(globals()) + list(_SUBMODULES))
