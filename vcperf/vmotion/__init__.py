"""vMotion in vSphere 7.0 U1 versus 6.7: ``004_ea13268657e6b3b0.txt``.

Split by concern, as every vcperf study (all model functions are vectorised numpy functions of
physical inputs):

- :mod:`~vcperf.vmotion.transfer`: streams (CPU-bound workers), NIC line rate, TCP window at an RTT, sharing.
- :mod:`~vcperf.vmotion.memory`: iterative pre-copy with a hot working set, SDPS, the budgeted stop rule.
- :mod:`~vcperf.vmotion.trace`: 6.7 stop-based 4 KB tracing vs 7.0 U1 loose 1 GB tracing; trace fires.
- :mod:`~vcperf.vmotion.switchover`: full bitmaps (6.7) vs compacted page lists (7.0 U1).
- :mod:`~vcperf.vmotion.migration`: one migration and the guest's throughput through it.
- :mod:`~vcperf.vmotion.tpcx`: TPCx-HCI response-time checks (Monte Carlo and expectation).
- :mod:`~vcperf.vmotion.calibration`: testbed facts, targets, :func:`calibrate`, :func:`predict`.
- :mod:`~vcperf.vmotion.validation`: ledger rows, leave-one-out, parameter and paper-vs-model tables.

Examples
--------
>>> from vcperf import vmotion as vm
>>> p, s = vm.calibrate(), vm.settings()
>>> r = vm.precopy(64 * 2**30, 0.0, 160e9, release="7.0u1", params=p, settings=s)
>>> bool(r.converged)
True
"""

from vcperf.vmotion.calibration import (
    FIT_KEYS,
    TARGETS,
    calibrate,
    calibrate_tpcx,
    calibrated,
    migrate_testbed,
    migrate_workload,
    precopy_testbed,
    predict,
    sampling_variances,
    settings,
    targets,
    testbed_link_bps,
    testbed_vmknics,
    tpcx_setup,
    workloads,
)
from vcperf.vmotion.core import (
    BITMAPS_AT_SWITCHOVER,
    PAGE_BYTES,
    PAGE_NUMBER_BYTES,
    PAGES_PER_1GB,
    PAGES_PER_2MB,
    PARAM_DOCS,
    PTES_PER_TABLE,
    RELEASES,
    SEED,
    STUDY,
    Params,
    Settings,
    TpcxParams,
    Workload,
    vm_memory_bytes,
)
from vcperf.vmotion.memory import (
    DEFAULT_MAX_ROUNDS,
    DEFAULT_SDPS_FRACTION,
    MIN_BUDGET_FRACTION,
    PrecopyResult,
    precopy,
    stop_threshold_bytes,
)
from vcperf.vmotion.migration import Migration, link_for_downtime_bps, migrate, throughput_series, times_s
from vcperf.vmotion.switchover import metadata_entries, post_switchover_phase, switchover_metadata_bytes
from vcperf.vmotion.tpcx import (
    TpcxExpectation,
    TpcxProfile,
    TpcxResult,
    TpcxSetup,
    migration_delay_area_s2,
    tpcx_expected,
    tpcx_longest_delay_s,
    tpcx_monte_carlo,
    tpcx_profile,
)
from vcperf.vmotion.trace import TracePhase, precopy_trace_loss, trace_phase
from vcperf.vmotion.transfer import (
    DEFAULT_STREAMS_PER_VMKNIC,
    MAX_SUPPORTED_RTT_S,
    evacuation_time_s,
    stream_rate_bytes_per_s,
    streams,
    transfer_rate_bytes_per_s,
)
from vcperf.vmotion.validation import bound_checks, fidelity_rows, leave_one_out, parameter_table, table1_model

__all__ = [
    "BITMAPS_AT_SWITCHOVER", "DEFAULT_MAX_ROUNDS", "DEFAULT_STREAMS_PER_VMKNIC", "MAX_SUPPORTED_RTT_S",
    "MIN_BUDGET_FRACTION", "evacuation_time_s", "link_for_downtime_bps",
    "post_switchover_phase", "TpcxProfile", "tpcx_profile",
    "stop_threshold_bytes",
    "stream_rate_bytes_per_s", "streams",
    "testbed_vmknics", "DEFAULT_SDPS_FRACTION", "FIT_KEYS", "Migration",
    "PAGES_PER_1GB", "PAGES_PER_2MB", "PAGE_BYTES", "PAGE_NUMBER_BYTES", "PARAM_DOCS", "PTES_PER_TABLE", "Params",
    "PrecopyResult", "RELEASES", "SEED", "STUDY", "Settings", "TARGETS", "TpcxExpectation", "TpcxParams",
    "TpcxResult", "TpcxSetup", "TracePhase", "Workload", "bound_checks", "calibrate", "calibrate_tpcx",
    "calibrated", "fidelity_rows", "leave_one_out", "metadata_entries", "migrate", "migrate_testbed",
    "migrate_workload", "migration_delay_area_s2", "parameter_table", "precopy", "precopy_testbed",
    "precopy_trace_loss", "predict", "sampling_variances", "settings", "switchover_metadata_bytes", "table1_model",
    "targets",
    "testbed_link_bps", "throughput_series", "times_s", "tpcx_expected", "tpcx_longest_delay_s", "tpcx_monte_carlo",
    "tpcx_setup", "trace_phase", "transfer_rate_bytes_per_s", "vm_memory_bytes", "workloads",
]
