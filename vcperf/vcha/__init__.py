"""vCenter 6.5 High Availability (VCHA): ``000_bf7f1144753162c9.txt``.

Four model families, one calibrated :class:`Params` (nesting one parameter set per family):

1. :mod:`~vcperf.vcha.vcbench` -- vCenter under VCbench as a closed queueing network solved by exact
   MVA: vpxd CPU, the PostgreSQL connection pool (held while commits wait for the Passive with VCHA
   on), host delay and think time (Tables 5-7, 12-15; Figures 5-11).
2. :mod:`~vcperf.vcha.wal` -- replication traffic and WAL writes (Tables 9, 10, 11).
3. :mod:`~vcperf.vcha.enable` -- enabling VCHA: two clones plus configuration (Table 4).
4. :mod:`~vcperf.vcha.failover` -- failover/RTO: take-over, PSC start, vpxd and Web Client start-up
   (Tables 2, 3, 16, 17).

Model files are pure functions of physical inputs; :mod:`~vcperf.vcha.calibration` reads the paper
and the test bed (:func:`testbed`) and fits; :mod:`~vcperf.vcha.validation` builds the ledger.

Examples
--------
>>> from vcperf import vcha
>>> s = vcha.vcbench(256, True, params=vcha.calibrate(), **vcha.appliance("x-large"))
"""

from vcperf.vcha.calibration import (
    INVENTORIES,
    PARAM_DOCS,
    SCREENS,
    SEED,
    STUDY,
    Params,
    Testbed,
    appliance,
    calibrate,
    clone_bandwidth_bps,
    default_vcpus,
    inventory_sizes,
    paper_value,
    predict,
    targets,
    testbed,
)
from vcperf.vcha.enable import EnableParams, EnableTimes, clone_bytes, enable_vcha_times
from vcperf.vcha.failover import FailoverParams, FailoverTimes, failover_times
from vcperf.vcha.validation import fidelity_rows, leave_one_out, paper_vs_model, parameter_table
from vcperf.vcha.vcbench import (
    DEFAULT_DB_CONNECTIONS,
    DEFAULT_REPLICATION_BANDWIDTH_BPS,
    LAN_RTT_S,
    STATS_LEVEL_HIGH,
    VcbenchParams,
    VcbenchResult,
    commit_exchange_s,
    replication_sync_wait_s,
    standby_flush_s,
    vcbench,
    vcbench_curve,
)
from vcperf.vcha.wal import (
    WAL_PAGE_BYTES,
    WalParams,
    management_traffic_bytes_per_s,
    replication_traffic_bytes_per_s,
    wal_disk_write_bytes_per_s,
)

__all__ = [
    "STUDY", "SEED", "INVENTORIES", "SCREENS", "Params", "PARAM_DOCS", "Testbed", "testbed", "inventory_sizes",
    "default_vcpus", "clone_bandwidth_bps", "appliance", "paper_value", "targets", "calibrate", "predict",
    "fidelity_rows", "leave_one_out", "parameter_table", "paper_vs_model",
    "VcbenchParams", "VcbenchResult", "vcbench", "vcbench_curve", "DEFAULT_DB_CONNECTIONS", "STATS_LEVEL_HIGH",
    "DEFAULT_REPLICATION_BANDWIDTH_BPS", "commit_exchange_s", "replication_sync_wait_s", "standby_flush_s",
    "WalParams", "WAL_PAGE_BYTES", "management_traffic_bytes_per_s", "replication_traffic_bytes_per_s",
    "wal_disk_write_bytes_per_s",
    "EnableParams", "EnableTimes", "enable_vcha_times", "clone_bytes", "LAN_RTT_S",
    "FailoverParams", "FailoverTimes", "failover_times",
]
