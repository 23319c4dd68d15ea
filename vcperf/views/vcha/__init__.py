"""VCHA study views (vCenter 6.5 High Availability): figures and the two what-if panels.

Split by concern: :mod:`~vcperf.views.vcha.figures` (the paper's tables and figures against the model),
:mod:`~vcperf.views.vcha.overhead` (the VCbench overhead what-if), :mod:`~vcperf.views.vcha.lifecycle`
(the enabling/failover what-if) and :mod:`~vcperf.views.vcha.common` (the what-if scenario and the
helpers they share). Each what-if panel has a pure *update* function (model + redraw -> readout text,
PNG bytes) that the widget calls on every change.
"""

from vcperf.views.vcha.common import APPLIANCES, panel_max_clients, scenario
from vcperf.views.vcha.figures import (
    clients_figure,
    enable_figure,
    failover_figure,
    paper_model_bars,
    periodic_throughput_figure,
    rtt_figure,
    stats_level_figure,
)
from vcperf.views.vcha.lifecycle import lifecycle_whatif, lifecycle_whatif_table, lifecycle_whatif_update
from vcperf.views.vcha.overhead import THROUGHPUT_TABLE, vcbench_whatif, vcbench_whatif_table, vcbench_whatif_update

#: The what-if panels of the study, by tab title (the app's tabs: :func:`vcperf.views.panels`).
PANELS = {"VCHA overhead": vcbench_whatif, "VCHA failover": lifecycle_whatif}

__all__ = [
    "PANELS", "APPLIANCES", "THROUGHPUT_TABLE", "scenario", "panel_max_clients",
    "paper_model_bars", "periodic_throughput_figure", "clients_figure", "rtt_figure", "stats_level_figure",
    "enable_figure", "failover_figure",
    "vcbench_whatif", "vcbench_whatif_table", "vcbench_whatif_update",
    "lifecycle_whatif", "lifecycle_whatif_table", "lifecycle_whatif_update",
]
