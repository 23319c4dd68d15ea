"""vMotion in vSphere 7.0 U1 versus 6.7: a mechanistic model of live migration, calibrated to the paper.

Study: Sreekanth Setty, "vMotion Innovations in VMware vSphere 7.0 U1", Performance Study, VMware,
Inc. (Palo Alto, CA), September 24, 2020, www.vmware.com (seed ``004_ea13268657e6b3b0.txt``). It
compares vSphere 6.7 and 7.0 U1 migrating Oracle VMs under HammerDB (12 vCPU / 64 GB up to
192 vCPU / 4 TB; Figures 5-10, Table 1) and a TPCx-HCI cluster whose DRS migrations fail
response-time checks (Figure 11).

Split by concern, as every vcperf study (all model functions are vectorised numpy functions of
physical inputs):

- :mod:`~vcperf.vmotion.params`: :data:`STUDY`, :class:`Params`, :class:`TpcxParams`, :data:`PARAM_DOCS`.
- :mod:`~vcperf.vmotion.core`: x86 paging constants, releases, :class:`Settings`, :class:`Workload`.
- :mod:`~vcperf.vmotion.transfer`: streams (CPU-bound workers), NIC line rate, the vMotion TCP window (sized
  for the bandwidth-delay product) at an RTT, sharing.
- :mod:`~vcperf.vmotion.memory`: pre-copy in closed form with a hot working set, SDPS, the budgeted stop rule
  decided at round boundaries, convergence and its reason.
- :mod:`~vcperf.vmotion.limits`: VMware's documented limits and the calibrated ranges; result flags.
- :mod:`~vcperf.vmotion.trace`: 6.7 stop-based 4 KB tracing vs 7.0 U1 loose 1 GB tracing; trace fires.
- :mod:`~vcperf.vmotion.switchover`: full bitmaps (6.7) vs compacted page lists (7.0 U1).
- :mod:`~vcperf.vmotion.migration`: one migration and the guest's throughput through it.
- :mod:`~vcperf.vmotion.tpcx`: TPCx-HCI response-time checks (Monte Carlo and expectation).
- :mod:`~vcperf.vmotion.testbed`: the test beds' facts from ``data/``; :mod:`~vcperf.vmotion.study` (the facade):
  the calibrated entry points on them.
- :mod:`~vcperf.vmotion.targets`: every paper number with its model function; :func:`sampling_variances`.
- :mod:`~vcperf.vmotion.calibration`: :func:`calibrate` (the fit).
- :mod:`~vcperf.vmotion.validation`: predict, ledger rows, leave-one-out, parameter and paper-vs-model tables.

Examples
--------
>>> from vcperf import vmotion as vm
>>> p, s = vm.calibrate(), vm.settings()
>>> r = vm.precopy(64 * 2**30, 0.0, 160e9, release="7.0u1", params=p, settings=s)
>>> bool(r.converged)
True
"""

from vcperf.vmotion.calibration import EXTRA_CALIBRATIONS, calibrate, calibrate_tpcx
from vcperf.vmotion.core import (
    BITMAPS_AT_SWITCHOVER,
    PAGE_BYTES,
    PAGE_NUMBER_BYTES,
    PAGES_PER_1GB,
    PAGES_PER_2MB,
    PTES_PER_TABLE,
    RELEASES,
    Settings,
    Workload,
    vm_memory_bytes,
)
from vcperf.vmotion.limits import LimitFlag, Limits
from vcperf.vmotion.memory import (
    DEFAULT_SDPS_FRACTION,
    MIN_BUDGET_FRACTION,
    PrecopyResult,
    precopy,
    stop_threshold_bytes,
)
from vcperf.vmotion.migration import (
    LinkAnswer,
    Migration,
    link_for_downtime,
    link_for_downtime_bps,
    migrate,
    throughput_series,
    times_s,
)
from vcperf.vmotion.params import PARAM_DOCS, STUDY, Params, TpcxParams
from vcperf.vmotion.study import migrate_testbed, migrate_workload, precopy_testbed
from vcperf.vmotion.switchover import (
    SWITCHOVER_ONE_WAY_TRIPS,
    metadata_entries,
    post_switchover_phase,
    switchover_checkpoint_s,
    switchover_metadata_bytes,
)
from vcperf.vmotion.targets import FIT_KEYS, HOLDOUTS, TARGETS, sampling_variances, targets
from vcperf.vmotion.testbed import (
    Testbed,
    limits,
    settings,
    testbed,
    testbed_link_bps,
    testbed_vmknics,
    tpcx_setup,
    workloads,
)
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
    contention_from_rates,
    evacuation_time_s,
    nic_stream_factor,
    stream_rate_bytes_per_s,
    streams,
    transfer_rate_bytes_per_s,
    vmotion_window_bytes,
)
from vcperf.vmotion.validation import (
    bound_checks,
    fidelity_rows,
    leave_one_out,
    parameter_table,
    predict,
    table1_model,
)

__all__ = [
    "EXTRA_CALIBRATIONS",
    "BITMAPS_AT_SWITCHOVER", "DEFAULT_SDPS_FRACTION", "DEFAULT_STREAMS_PER_VMKNIC", "FIT_KEYS", "HOLDOUTS",
    "MAX_SUPPORTED_RTT_S",
    "MIN_BUDGET_FRACTION", "SWITCHOVER_ONE_WAY_TRIPS",
    "PAGES_PER_1GB", "PAGES_PER_2MB", "PAGE_BYTES", "PAGE_NUMBER_BYTES", "PARAM_DOCS",
    "PTES_PER_TABLE", "RELEASES", "STUDY", "TARGETS", "LimitFlag", "LinkAnswer", "Limits", "Migration", "Params",
    "PrecopyResult",
    "Settings", "Testbed", "TpcxExpectation", "TpcxParams", "TpcxProfile", "TpcxResult", "TpcxSetup", "TracePhase",
    "Workload", "bound_checks", "calibrate", "calibrate_tpcx", "contention_from_rates", "evacuation_time_s",
    "fidelity_rows", "leave_one_out", "limits", "link_for_downtime", "link_for_downtime_bps", "metadata_entries",
    "migrate",
    "migrate_testbed", "migrate_workload", "migration_delay_area_s2", "nic_stream_factor", "parameter_table",
    "post_switchover_phase",
    "precopy", "precopy_testbed", "precopy_trace_loss", "predict", "sampling_variances", "settings",
    "stop_threshold_bytes", "stream_rate_bytes_per_s", "streams", "switchover_checkpoint_s",
    "switchover_metadata_bytes", "table1_model",
    "targets", "testbed", "testbed_link_bps", "testbed_vmknics", "throughput_series", "times_s", "tpcx_expected",
    "tpcx_longest_delay_s", "tpcx_monte_carlo", "tpcx_profile", "tpcx_setup", "trace_phase",
    "transfer_rate_bytes_per_s", "vm_memory_bytes", "vmotion_window_bytes", "workloads",
]
