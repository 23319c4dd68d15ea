"""vcperf: open, mechanistic models of vCenter and vSphere performance studies.

Submodules are imported lazily (``vcperf.network``, ``vcperf.queueing``, ``vcperf.data``, ...)
so that ``import vcperf`` stays fast.
"""

import importlib

__version__ = "0.1.0"

_SUBMODULES = (
    "network",
    "queueing",
    "data",
    "fidelity",
    "plotting",
    "widgets",
    "robo",
)


def __getattr__(name):
    if name in _SUBMODULES:
        return importlib.import_module(f"vcperf.{name}")
    raise AttributeError(f"module 'vcperf' has no attribute {name!r}")


def __dir__():
    return sorted(list(globals()) + list(_SUBMODULES))
