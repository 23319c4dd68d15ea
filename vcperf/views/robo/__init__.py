"""ROBO study views (vCenter 6.7 in remote and branch offices): figures and the three what-if panels.

Split by panel: :mod:`~vcperf.views.robo.transfer` (transfer time over Table 1's networks, the network
what-if), :mod:`~vcperf.views.robo.background` (host sync and statistics traffic, Figures 2-7),
:mod:`~vcperf.views.robo.planner` (the branch-link planner) and :mod:`~vcperf.views.robo.operations`
(VCbench and host operations, Figures 8-15, the operations what-if); what they share is in
:mod:`~vcperf.views.robo.common`. The readouts' intervals are computed beside the model
(:mod:`vcperf.robo.readouts`). Each what-if panel has a pure *update* function (model + redraw ->
readout text, PNG bytes) that the widget calls on every change and that ``make bench`` times headless.
"""

from vcperf.robo.readouts import LATENCY_TABLE, UPLOAD_TABLE
from vcperf.views.robo.background import (
    VM_GRID,
    VM_SERIES,
    burst_figure,
    hostsync_figure,
    hostsync_sharing_figure,
    stats_reverse_figure,
    stats_size_figure,
    stats_traffic_figure,
)
from vcperf.views.robo.common import START_PRESET
from vcperf.views.robo.operations import (
    add_host_figure,
    distinct_curves,
    latency_vs_rtt_figure,
    operation_intervals,
    operation_split,
    operations_update,
    operations_whatif,
    per_operation_figure,
    sequence_figure,
    vcbench_figure,
    vcbench_traffic_figure,
)
from vcperf.views.robo.planner import (
    PLANNER_MAX_VMS,
    capacity_figure,
    capacity_planner,
    capacity_update,
    plan_intervals,
)
from vcperf.views.robo.transfer import (
    PAYLOAD_GRID_BYTES,
    START_PAYLOAD_BYTES,
    network_whatif,
    network_whatif_update,
    transfer_time_figure,
)

#: The what-if panels of the study, by tab title (the app's tabs: :func:`vcperf.views.panels`).
PANELS = {"ROBO network": network_whatif, "ROBO capacity": capacity_planner, "ROBO operations": operations_whatif}

__all__ = [
    "PANELS", "START_PRESET", "PAYLOAD_GRID_BYTES", "START_PAYLOAD_BYTES", "PLANNER_MAX_VMS", "VM_GRID", "VM_SERIES",
    "LATENCY_TABLE", "UPLOAD_TABLE",
    "network_whatif", "network_whatif_update", "transfer_time_figure",
    "hostsync_figure", "hostsync_sharing_figure", "stats_traffic_figure", "stats_size_figure", "stats_reverse_figure",
    "burst_figure",
    "capacity_figure", "capacity_update", "capacity_planner", "plan_intervals",
    "sequence_figure", "vcbench_figure", "latency_vs_rtt_figure", "distinct_curves", "per_operation_figure",
    "vcbench_traffic_figure", "add_host_figure", "operation_split", "operation_intervals", "operations_update",
    "operations_whatif",
]
