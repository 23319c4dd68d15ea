"""vSphere Content Library VM deployment paths: the deployment model, its calibration to the study's
Figure 4 and its ledger rows.

The study: J. Guan and D. Bergamasco, "How to Efficiently Deploy Virtual Machines from VMware vSphere
Content Library", VMware VROOM! Blog (VMware, Inc.), July 2015. It deploys one 39 GB OVF template from
a Content Library item under four storage layouts and compares completion times (Figure 4). Split by
concern, as every vcperf study:

- :mod:`~vcperf.contentlib.params`: the study name, the calibrated rates (:class:`Params`), their docs.
- :mod:`~vcperf.contentlib.paths`: the model -- bytes through the stages of each data path.
- :mod:`~vcperf.contentlib.layouts`: which paths a storage layout allows, and the fastest one.
- :mod:`~vcperf.contentlib.concurrency`: several deployments at once (MVA), a subscribed library
  syncing over a branch link.
- :mod:`~vcperf.contentlib.testbed`: the test bed's facts, read from ``data/contentlib2015/``.
- :mod:`~vcperf.contentlib.targets`: the paper's statements, each with its model function.
- :mod:`~vcperf.contentlib.calibration`: the fit.
- :mod:`~vcperf.contentlib.validation`: ledger rows, leave-one-out, parameter and experiment tables.

Examples
--------
>>> from vcperf import contentlib
>>> t = contentlib.deploy_time_s("host_to_host", 39e9, network_bps=10e9)
>>> bool(t < contentlib.deploy_time_s("host_to_host", 39e9, network_bps=1e9))
True
"""

from vcperf.contentlib.calibration import calibrate
from vcperf.contentlib.concurrency import (
    MAX_DEPLOYMENTS,
    ConcurrentDeploy,
    subscription_sync_time_s,
)
from vcperf.contentlib.layouts import LAYOUT_LABELS, LAYOUTS, Layout, Recommendation
from vcperf.contentlib.params import PARAM_DOCS, SEED, STUDY, Params
from vcperf.contentlib.paths import (
    DEFAULT_DECOMPRESSION_STREAMS,
    DEFAULT_FC_BANDWIDTH_BPS,
    DEFAULT_MGMT_NETWORK_BPS,
    DEFAULT_NETWORK_BPS,
    DEFAULT_VCENTER_VCPUS,
    FC_ENCODING_EFFICIENCY,
    PATH_EXPERIMENT,
    PATH_LABELS,
    PATHS,
    WAN_HOP,
    Stages,
    network_rate_bytes_per_s,
)
from vcperf.contentlib.study import concurrent_deploy_time_s, deploy_time_s, path_stages, recommend_path
from vcperf.contentlib.targets import TARGET_KEYS, TARGETS, targets
from vcperf.contentlib.testbed import Testbed, testbed
from vcperf.contentlib.validation import (
    experiments_table,
    fidelity_rows,
    leave_one_out,
    parameter_table,
    predict,
)

__all__ = [
    "DEFAULT_DECOMPRESSION_STREAMS", "DEFAULT_FC_BANDWIDTH_BPS", "DEFAULT_MGMT_NETWORK_BPS", "DEFAULT_NETWORK_BPS",
    "DEFAULT_VCENTER_VCPUS", "FC_ENCODING_EFFICIENCY", "MAX_DEPLOYMENTS", "ConcurrentDeploy",
    "concurrent_deploy_time_s", "subscription_sync_time_s", "LAYOUTS", "LAYOUT_LABELS", "PARAM_DOCS", "PATHS",
    "PATH_EXPERIMENT", "PATH_LABELS", "WAN_HOP", "SEED", "STUDY", "TARGETS", "TARGET_KEYS", "Layout", "Params",
    "Recommendation", "Stages", "Testbed", "calibrate", "deploy_time_s", "experiments_table", "fidelity_rows",
    "leave_one_out", "network_rate_bytes_per_s", "parameter_table",
    "path_stages", "predict", "recommend_path", "targets",
    "testbed",
]
