"""vSphere Content Library VM deployment paths: ``003_a39039efb1262c72.txt``.

The study (Guan and Bergamasco, VMware VROOM! blog, July 2015) deploys one 39 GB OVF template from a
Content Library item under four storage layouts and compares completion times (Figure 4). Split by
concern, as every vcperf study:

- :mod:`~vcperf.contentlib.paths`: the model -- bytes through the stages of each data path.
- :mod:`~vcperf.contentlib.layouts`: which paths a storage layout allows, and the fastest one.
- :mod:`~vcperf.contentlib.concurrency`: several deployments at once (MVA), a subscribed library
  syncing over a branch link.
- :mod:`~vcperf.contentlib.calibration`: testbed facts, the paper's statements (targets), the fit.
- :mod:`~vcperf.contentlib.validation`: ledger rows, leave-one-out, parameter and experiment tables.

Examples
--------
>>> from vcperf import contentlib
>>> t = contentlib.deploy_time_s("host_to_host", 39e9, network_bps=10e9)
>>> bool(t < contentlib.deploy_time_s("host_to_host", 39e9, network_bps=1e9))
True
"""

from vcperf.contentlib.calibration import TARGET_KEYS, TARGETS, Testbed, calibrate, predict, targets, testbed
from vcperf.contentlib.concurrency import (
    MAX_DEPLOYMENTS,
    ConcurrentDeploy,
    concurrent_deploy_time_s,
    subscription_sync_time_s,
)
from vcperf.contentlib.layouts import LAYOUT_LABELS, LAYOUTS, Layout, Recommendation, recommend_path
from vcperf.contentlib.paths import (
    DEFAULT_DECOMPRESSION_STREAMS,
    DEFAULT_FC_BANDWIDTH_BPS,
    DEFAULT_MGMT_NETWORK_BPS,
    DEFAULT_NETWORK_BPS,
    DEFAULT_VCENTER_VCPUS,
    FC_ENCODING_EFFICIENCY,
    PARAM_DOCS,
    PATH_EXPERIMENT,
    PATH_LABELS,
    PATHS,
    SEED,
    STUDY,
    Params,
    Stages,
    deploy_time_s,
    path_stages,
)
from vcperf.contentlib.validation import (
    experiments_table,
    fidelity_rows,
    leave_one_out,
    paper_value,
    parameter_table,
)

__all__ = [
    "DEFAULT_DECOMPRESSION_STREAMS", "DEFAULT_FC_BANDWIDTH_BPS", "DEFAULT_MGMT_NETWORK_BPS", "DEFAULT_NETWORK_BPS",
    "DEFAULT_VCENTER_VCPUS", "FC_ENCODING_EFFICIENCY", "MAX_DEPLOYMENTS", "ConcurrentDeploy",
    "concurrent_deploy_time_s", "subscription_sync_time_s", "LAYOUTS", "LAYOUT_LABELS", "PARAM_DOCS", "PATHS",
    "PATH_EXPERIMENT", "PATH_LABELS", "SEED", "STUDY", "TARGETS", "TARGET_KEYS", "Layout", "Params",
    "Recommendation", "Stages", "Testbed", "calibrate", "deploy_time_s", "experiments_table", "fidelity_rows",
    "leave_one_out", "paper_value", "parameter_table", "path_stages", "predict", "recommend_path", "targets",
    "testbed",
]
