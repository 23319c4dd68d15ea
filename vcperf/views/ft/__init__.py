"""FT study views (vSphere 6 Fault Tolerance): the seed's Figures 2-14, the mechanism figures and the what-if
panel.

Split by concern: :mod:`~vcperf.views.ft.figures` (the paper's figures, :data:`FIGURES`),
:mod:`~vcperf.views.ft.mechanisms` (figures of the model's mechanisms, :data:`MECHANISM_FIGURES`),
:mod:`~vcperf.views.ft.panel` (the what-if panel on the pure :func:`whatif_update`) and
:mod:`~vcperf.views.ft.common` (axes, colours and drawing helpers they share).
"""

from vcperf.views.ft.common import INTERVAL_GRID_S, LINK_SPEEDS_BPS, RECEIVE_GRID_BPS
from vcperf.views.ft.figures import (
    FIGURES,
    database_figure,
    figure02_kernel_compile,
    figure03_netperf_throughput_1gbps,
    figure04_netperf_throughput_10gbps,
    figure05_netperf_latency,
    figure06_iometer_throughput,
    figure07_swingbench_throughput,
    figure08_swingbench_response_time,
    figure09_dvdstore_throughput,
    figure10_dvdstore_response_time,
    figure11_brokerage_throughput,
    figure12_vcenter_management_ops,
    figure13_web_client_browsing,
    figure14_vcenter_restart,
    netperf_throughput_figure,
)
from vcperf.views.ft.mechanisms import MECHANISM_FIGURES, logging_bandwidth_figure, sensitivity_figure
from vcperf.views.ft.panel import whatif, whatif_intervals, whatif_update

#: The what-if panels of the study, by tab title (the app's tabs: :func:`vcperf.views.panels`).
PANELS = {"FT": whatif}

__all__ = [
    "PANELS", "FIGURES", "MECHANISM_FIGURES", "INTERVAL_GRID_S", "LINK_SPEEDS_BPS", "RECEIVE_GRID_BPS",
    "database_figure", "netperf_throughput_figure", "figure02_kernel_compile", "figure03_netperf_throughput_1gbps",
    "figure04_netperf_throughput_10gbps", "figure05_netperf_latency", "figure06_iometer_throughput",
    "figure07_swingbench_throughput", "figure08_swingbench_response_time", "figure09_dvdstore_throughput",
    "figure10_dvdstore_response_time", "figure11_brokerage_throughput", "figure12_vcenter_management_ops",
    "figure13_web_client_browsing", "figure14_vcenter_restart", "logging_bandwidth_figure", "sensitivity_figure",
    "whatif", "whatif_intervals", "whatif_update",
]
