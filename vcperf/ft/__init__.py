"""vSphere 6 Fault Tolerance (fast checkpointing): the FT study of vcperf.

Rebuilds *VMware vSphere 6 Fault Tolerance: Architecture and Performance*, Technical White Paper,
VMware, Inc., January 2016 (no authors printed; https://communities.vmware.com/docs/DOC-30054).
The mechanism (the paper's "vSphere FT Architecture" and "Transparent Failover"; VMware KB 406486):
the primary runs for one epoch, is stunned while the memory it dirtied ships over the FT logging
link, and holds its network output until the secondary acknowledges -- checkpoint replication as in
Remus (Cully et al., NSDI 2008). Every workload of the study follows from these few lines plus a
closed queueing network (exact MVA, Reiser & Lavenberg 1980) for the closed-loop benchmarks.

Modules, split by concern:

=================  ==========================================================================
``params``         :data:`STUDY`, :class:`Params` (the 4 calibrated parameters), :data:`PARAM_DOCS`
``testbed``        the seed's test bed (Appendices A/B, vCenter setup): :func:`testbed`
``checkpoint``     the checkpoint cycle: stun, run fraction, output commit, FT logging traffic
``sharing``        FT VMs of different loads on one logging link (max-min, work-conserving)
``kernelcompile``  a CPU-bound job under FT: the kernel compile (Figure 2)
``lifecycle``      turning FT on (the initial copy) and failing over
``netperf``        netperf throughput (Figures 3-4) and TCP_RR (Figure 5)
``workloads``      closed loops: databases, IOMeter, latency sensitivity (Figures 6-11)
``vcenter``        the vCenter appliance under FT (Figures 12-14)
``targets``        every paper number with its model on the test bed; the test-bed scenarios
``calibration``    :func:`calibrate` (fitting only)
``validation``     the ledger (fitted / loo / predicted / derived / bound) and qualitative checks
=================  ==========================================================================

Model functions take the checkpoint interval as an argument; the study's value is
``calibrate().checkpoint_interval_s``. The paper-vs-model table is
``vcperf.fidelity.paper_vs_model("ft2016")``.

Examples
--------
>>> from vcperf import ft
>>> p = ft.calibrate()
>>> r = ft.tcp_rr(p.checkpoint_interval_s, vcpus=ft.testbed().netperf_vcpus)
>>> round(r.latency_ratio)
57
"""

from vcperf.ft.calibration import calibrate
from vcperf.ft.checkpoint import (
    DEFAULT_DIRTY_BYTES_PER_TRANSMITTED_BYTE,
    DEFAULT_FT_ACK_RTT_S,
    DEFAULT_FT_LINK_BPS,
    DEFAULT_LOGGED_BYTES_PER_RECEIVED_BYTE,
    DEFAULT_RELEASE,
    DEFAULT_STUN_FIXED_S,
    FT_HOST_MAX_VCPUS,
    FT_HOST_MAX_VMS,
    FT_LOGGING_LINK_BPS,
    FT_MAX_VCPUS,
    VCPU_STATE_BYTES,
    CheckpointCycle,
    activity_time_s,
    check_ft_vcpus,
    checkpoint_cycle,
    ft_link_goodput_bps,
    ft_logging_bandwidth_bps,
    limit_flags,
    metro_rtt_s,
    output_commit_delay_s,
    run_fraction_at,
)
from vcperf.ft.kernelcompile import (
    KERNEL_COMPILE_CPU_S,
    KernelCompile,
    kernel_compile,
    kernel_compile_overhead_fraction,
)
from vcperf.ft.lifecycle import failover_time_s, turn_on_time_s
from vcperf.ft.netperf import (
    DEFAULT_GUEST_STACK_BPS_PER_VCPU,
    DEFAULT_VM_ROUND_TRIP_S,
    TcpRrResult,
    interval_from_latency_ratio,
    netperf_ft_logging_bps,
    netperf_throughput_bps,
    tcp_rr,
)
from vcperf.ft.params import PARAM_DOCS, SEED, STUDY, Params
from vcperf.ft.sharing import FtLinkShare, max_min_shares_bps, share_ft_link
from vcperf.ft.study import (
    brokerage_workload,
    database_workload,
    iometer_ratios,
    kernel_compile_values,
    testbed_iometer,
    vcenter_values,
)
from vcperf.ft.targets import (
    TARGETS,
    targets,
)
from vcperf.ft.testbed import Testbed, netperf_setup, netperf_uplinks_gbps, testbed, vcenter_setup, workload_vcpus
from vcperf.ft.validation import (
    fidelity_rows,
    implied_kernel_compile_baseline_s,
    iometer_paper_ratios,
    kernel_compile_increase_s,
    leave_one_out,
    model_values,
    parameter_table,
    predict,
    qualitative_checks,
)
from vcperf.ft.vcenter import HEAVY_LOAD_CPU_UTILIZATION, heavy_load_cpu_demand_s, load_clients, vcenter_predictions
from vcperf.ft.workloads import (
    DISK_RANDOM_IO_S,
    DVDSTORE_FIXED_EXCHANGES_PER_ORDER,
    IO_CPU_S,
    IOMETER_OUTSTANDING_IOS,
    SWINGBENCH_EXCHANGES_PER_TRANSACTION,
    ClosedLoopResult,
    closed_loop,
    closed_loop_at_utilization,
    cpu_for_utilization,
    iometer,
)

__all__ = [
    "STUDY", "SEED", "Params", "PARAM_DOCS", "Testbed", "testbed", "TARGETS", "targets", "calibrate", "predict",
    "fidelity_rows", "leave_one_out", "parameter_table", "model_values", "qualitative_checks",
    "implied_kernel_compile_baseline_s", "iometer_paper_ratios", "kernel_compile_increase_s", "database_workload",
    "testbed_iometer", "vcenter_values", "netperf_setup", "netperf_uplinks_gbps", "vcenter_setup",
    "workload_vcpus", "DEFAULT_FT_LINK_BPS", "DEFAULT_FT_ACK_RTT_S", "DEFAULT_STUN_FIXED_S",
    "DEFAULT_LOGGED_BYTES_PER_RECEIVED_BYTE", "CheckpointCycle", "checkpoint_cycle", "ft_logging_bandwidth_bps",
    "output_commit_delay_s", "run_fraction_at", "activity_time_s", "kernel_compile_overhead_fraction",
    "DEFAULT_VM_ROUND_TRIP_S",
    "DEFAULT_GUEST_STACK_BPS_PER_VCPU", "TcpRrResult", "tcp_rr", "netperf_throughput_bps", "netperf_ft_logging_bps",
    "interval_from_latency_ratio", "ClosedLoopResult", "closed_loop", "closed_loop_at_utilization",
    "cpu_for_utilization", "iometer", "DEFAULT_DIRTY_BYTES_PER_TRANSMITTED_BYTE", "DEFAULT_RELEASE", "FT_MAX_VCPUS",
    "VCPU_STATE_BYTES", "KernelCompile", "check_ft_vcpus", "failover_time_s", "ft_link_goodput_bps", "kernel_compile",
    "metro_rtt_s", "turn_on_time_s", "KERNEL_COMPILE_CPU_S", "brokerage_workload", "iometer_ratios",
    "kernel_compile_values", "SWINGBENCH_EXCHANGES_PER_TRANSACTION", "DVDSTORE_FIXED_EXCHANGES_PER_ORDER",
    "IOMETER_OUTSTANDING_IOS", "DISK_RANDOM_IO_S", "IO_CPU_S", "load_clients", "vcenter_predictions",
    "heavy_load_cpu_demand_s", "HEAVY_LOAD_CPU_UTILIZATION", "limit_flags", "FT_LOGGING_LINK_BPS", "FT_HOST_MAX_VMS",
    "FT_HOST_MAX_VCPUS", "FtLinkShare", "share_ft_link", "max_min_shares_bps",
]
