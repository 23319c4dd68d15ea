"""vCenter 6.5 High Availability (VCHA): the performance study rebuilt as calibrated models.

The study: A. T. Mizrak, P. Saxena, "VMware vCenter Server High Availability Performance and Best
Practices" (VMware vCenter Server 6.5), performance white paper, VMware, Inc., 2016; comments page
https://communities.vmware.com/docs/DOC-33044 (seed ``000_bf7f1144753162c9.txt``).

Four model families, one calibrated :class:`Params` (nesting one parameter set per family, plus
the disks and memory of the overhead runs):

1. :mod:`~vcperf.vcha.vcbench` -- vCenter under VCbench as a closed queueing network solved by exact
   MVA: vpxd CPU, the PostgreSQL connection pool (held while commits wait for the Passive with VCHA
   on), host delay and think time (Tables 5-7, 12-15; Figures 5-11).
2. :mod:`~vcperf.vcha.wal`, :mod:`~vcperf.vcha.disk`, :mod:`~vcperf.vcha.memory` -- replication
   traffic, WAL and database disk writes, peak memory (Tables 8, 9, 10, 11).
3. :mod:`~vcperf.vcha.enable` -- enabling VCHA: two clones plus configuration (Table 4).
4. :mod:`~vcperf.vcha.failover` -- failover/RTO: take-over, PSC start, vpxd and Web Client start-up
   (Tables 2, 3, 16, 17).

Model files are pure functions of physical inputs and :mod:`~vcperf.vcha.params`;
:mod:`~vcperf.vcha.testbed` reads the test bed, :mod:`~vcperf.vcha.targets` names every paper
number with its model, :mod:`~vcperf.vcha.calibration` fits, :mod:`~vcperf.vcha.validation`
binds the ledger functions.

Examples
--------
>>> from vcperf import vcha
>>> s = vcha.run_vcbench(256, True, params=vcha.calibrate(), **vcha.appliance("x-large"))
>>> bool(s.throughput_per_s > 0)
True
"""

from vcperf.vcha.calibration import calibrate
from vcperf.vcha.disk import passive_commit_flush_s, replication_wakeup_s
from vcperf.vcha.enable import EnableTimes, clone_bytes, enable_vcha_times
from vcperf.vcha.failover import FailoverTimes, failover_times
from vcperf.vcha.limits import BOTTLENECK_SOURCES, MAX_SUPPORTED_RTT_S, MIN_SUPPORTED_VCPUS
from vcperf.vcha.params import (
    PARAM_DOCS,
    SEED,
    STUDY,
    EnableParams,
    FailoverParams,
    Params,
    VcbenchParams,
    WalParams,
)
from vcperf.vcha.targets import HOLDOUTS, SCREENS, targets
from vcperf.vcha.testbed import (
    INVENTORIES,
    Testbed,
    appliance,
    clone_bandwidth_bps,
    inventory_sizes,
    testbed,
)
from vcperf.vcha.validation import fidelity_rows, leave_one_out, parameter_table, predict
from vcperf.vcha.vcbench import (
    DEFAULT_DB_CONNECTIONS,
    DEFAULT_REPLICATION_BANDWIDTH_BPS,
    LAN_RTT_S,
    STATS_LEVEL_HIGH,
    VcbenchResult,
    commit_exchange_s,
    replication_sync_wait_s,
    run_vcbench,
    standby_flush_s,
    vcbench_curve,
)
from vcperf.vcha.wal import (
    WAL_PAGE_BYTES,
    background_wal_bytes_per_s,
    management_traffic_bytes_per_s,
    replication_traffic_bytes_per_s,
    wal_disk_write_bytes_per_s,
)

__all__ = [
    "STUDY", "SEED", "INVENTORIES", "SCREENS", "HOLDOUTS", "Params", "PARAM_DOCS", "Testbed", "testbed",
    "inventory_sizes",
    "clone_bandwidth_bps", "appliance", "targets", "calibrate", "predict",
    "fidelity_rows", "leave_one_out", "parameter_table",
    "VcbenchParams", "VcbenchResult", "run_vcbench", "vcbench_curve", "DEFAULT_DB_CONNECTIONS", "STATS_LEVEL_HIGH",
    "DEFAULT_REPLICATION_BANDWIDTH_BPS", "commit_exchange_s", "replication_sync_wait_s", "standby_flush_s",
    "WalParams", "WAL_PAGE_BYTES", "management_traffic_bytes_per_s", "replication_traffic_bytes_per_s",
    "wal_disk_write_bytes_per_s", "background_wal_bytes_per_s",
    "EnableParams", "EnableTimes", "enable_vcha_times", "clone_bytes", "LAN_RTT_S",
    "FailoverParams", "FailoverTimes", "failover_times", "BOTTLENECK_SOURCES", "MAX_SUPPORTED_RTT_S",
    "MIN_SUPPORTED_VCPUS", "replication_wakeup_s", "passive_commit_flush_s",
]
