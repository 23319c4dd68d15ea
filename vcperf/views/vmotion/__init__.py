"""vMotion study views: figures and the what-if panel (``004_ea13268657e6b3b0.txt``).

Split by concern: :mod:`~vcperf.views.vmotion.figures` (the paper's figures as a model: every figure
draws the model's lines and the paper's stated numbers as black markers), :mod:`~vcperf.views.vmotion.whatif`
(the what-if panel on the pure :func:`migration_whatif_update`) and :mod:`~vcperf.views.vmotion.common`
(release labels and colours they share).
"""

from vcperf.views.vmotion.common import RELEASE_COLOR, RELEASE_LABEL
from vcperf.views.vmotion.figures import (
    precopy_grid_figure,
    series_figure,
    sizes_figure,
    switchover_figure,
    tpcx_figure,
    tpcx_profile_figure,
    trace_figure,
)
from vcperf.views.vmotion.whatif import migration_whatif, migration_whatif_readout, migration_whatif_update

#: The what-if panels of the study, by tab title (the app's tabs: :func:`vcperf.views.panels`).
PANELS = {"vMotion": migration_whatif}

__all__ = [
    "PANELS", "RELEASE_COLOR", "RELEASE_LABEL", "migration_whatif", "migration_whatif_readout",
    "migration_whatif_update", "precopy_grid_figure", "series_figure", "sizes_figure", "switchover_figure",
    "tpcx_figure", "tpcx_profile_figure", "trace_figure",
]
