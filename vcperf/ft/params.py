"""The FT study's calibrated parameters: :data:`STUDY`, :class:`Params` and :data:`PARAM_DOCS`.

Pure: the values come from :func:`vcperf.ft.calibrate`; nothing here reads ``data/``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from vcperf import _validate as v
from vcperf import studies
from vcperf.ft.checkpoint import MAX_CHECKPOINT_INTERVAL_S

#: The study's ``data/`` folder.
STUDY = "ft2016"
#: The study's text in the project's seed folder.
SEED = studies.STUDIES[STUDY].seed


@dataclass(frozen=True)
class Params:
    """Calibrated parameters of the FT study (SI; see :data:`PARAM_DOCS`).

    Parameters
    ----------
    checkpoint_interval_s : float
        Run time between checkpoints (the epoch), s, in (0, 10].
    vcenter_dirty_rate_bytes_per_s : float
        Memory the vCenter appliance dirties per second of activity, B/s, >= 0.
    vcenter_exchange_rate_per_s : float
        Client-visible exchanges per second of vCenter activity, 1/s, >= 0.
    kernel_compile_dirty_bytes : float
        Memory one kernel compile dirties in all, B, >= 0.

    Raises
    ------
    ValueError
        Naming the field out of range.
    """

    checkpoint_interval_s: float
    vcenter_dirty_rate_bytes_per_s: float
    vcenter_exchange_rate_per_s: float
    kernel_compile_dirty_bytes: float

    def __post_init__(self):
        v.scalar("checkpoint_interval_s", self.checkpoint_interval_s, 0.0, MAX_CHECKPOINT_INTERVAL_S, lo_open=True)
        for name in ("vcenter_dirty_rate_bytes_per_s", "vcenter_exchange_rate_per_s", "kernel_compile_dirty_bytes"):
            v.scalar(name, getattr(self, name), 0.0, math.inf, hi_open=True)


PARAM_DOCS = {
    "checkpoint_interval_s": ("s", "mean run time between checkpoints (epoch E); closed form from Figure 5's "
                                   "TCP_RR latency ratio over the FT-off round trip (a stated input: "
                                   "external_vm_round_trip)"),
    "vcenter_dirty_rate_bytes_per_s": ("B/s", "memory the vCenter appliance dirties per second of activity "
                                              "(FT off); Figures 12-14"),
    "vcenter_exchange_rate_per_s": ("1/s", "client-visible network exchanges per second of vCenter activity, "
                                           "each waiting one output commit; Figures 12-14"),
    "kernel_compile_dirty_bytes": ("B", "memory one kernel compile dirties in all (page tables, heaps, object "
                                        "files); Figure 2's about 7 s"),
}
