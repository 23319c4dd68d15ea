"""The FT study's paper numbers as :class:`~vcperf.protocol.Target` objects, each carrying its model
on the seed's test bed, and the test-bed scenarios those models evaluate (the model functions fed with
the facts of :func:`vcperf.ft.testbed`: Swingbench, DVD Store, IOMeter, brokerage, vCenter, kernel compile).

Every figure 2-14 of the seed contributes: Figure 2's about 7 s (fit: the compile's dirtied memory),
the netperf throughput statements of Figures 3-4 (bounds), Figure 5's 57x (fit: the checkpoint
timer), Figure 6's "nearly as much" per I/O size (predicted: mean over the Appendix B access
patterns), Figure 7 (predicted), the direction-only statements of Figures 8-11 (bounds: FT only adds
delay, so they hold for any parameters and test only the sign of the mechanism; they are not skill),
the brokerage floor read from the seed's summary (a bound that can fail) and the vCenter numbers of
Figures 12-14 (fit).
"""

from __future__ import annotations

import dataclasses
import functools

import numpy as np

from vcperf import _validate as v
from vcperf import protocol
from vcperf.ft.checkpoint import DEFAULT_FT_LINK_BPS
from vcperf.ft.kernelcompile import KERNEL_COMPILE_CPU_S, KernelCompile, kernel_compile
from vcperf.ft.netperf import netperf_throughput_bps, tcp_rr
from vcperf.ft.params import STUDY, Params
from vcperf.ft.testbed import Testbed, testbed
from vcperf.ft.vcenter import vcenter_predictions
from vcperf.ft.workloads import (
    BROKERAGE_DIRTY_BYTES_PER_TRANSACTION,
    BROKERAGE_EXCHANGES_PER_TRANSACTION,
    BROKERAGE_IO_S,
    DVDSTORE_FIXED_EXCHANGES_PER_ORDER,
    IOMETER_OUTSTANDING_IOS,
    SWINGBENCH_EXCHANGES_PER_TRANSACTION,
    ClosedLoopResult,
    closed_loop_at_utilization,
    iometer,
)

# --------------------------------------------------------------------------------------------
# Test-bed scenarios at explicit parameters (the facade vcperf.ft.study fills the defaults)
# --------------------------------------------------------------------------------------------

# --------------------------------------------------------------------------------------------
# Test-bed scenarios (model functions fed with the test-bed facts)
# --------------------------------------------------------------------------------------------


def database_at(t: Testbed, name, e, dirty_bytes_per_op=0.0, ft_link_bps=DEFAULT_FT_LINK_BPS, *,
                background_dirty_rate_bytes_per_s=0.0, vcpus=None, **link_kw) -> ClosedLoopResult:
    """:func:`vcperf.ft.database_workload` on the test bed ``t`` at the interval ``e`` (validated name)."""
    if name == "swingbench":
        n, z, k, c = t.swingbench_users, t.swingbench_think_s, SWINGBENCH_EXCHANGES_PER_TRANSACTION, t.swingbench_vcpus
    else:
        n, z, c = t.dvdstore_threads, t.dvdstore_think_s, t.dvdstore_vcpus
        k = DVDSTORE_FIXED_EXCHANGES_PER_ORDER + t.dvdstore_searches
    c = c if vcpus is None else vcpus
    return closed_loop_at_utilization(n, z, k, t.cpu_utilization, checkpoint_interval_s=e, vcpus=c,
                                      dirty_bytes_per_op=dirty_bytes_per_op,
                                      background_dirty_rate_bytes_per_s=background_dirty_rate_bytes_per_s,
                                      ft_link_bps=ft_link_bps, **link_kw)


def iometer_at(t: Testbed, message_bytes, write_fraction, e, *, outstanding_ios=IOMETER_OUTSTANDING_IOS,
               ft_link_bps=DEFAULT_FT_LINK_BPS, **link_kw) -> ClosedLoopResult:
    """:func:`vcperf.ft.testbed_iometer` on the test bed ``t`` at the interval ``e``."""
    return iometer(message_bytes, write_fraction, lun_disks=t.lun_disks, vcpus=t.iometer_vcpus,
                   checkpoint_interval_s=e, outstanding_ios=outstanding_ios, ft_link_bps=ft_link_bps, **link_kw)


def iometer_ratios_at(t: Testbed, e, **link_kw) -> dict:
    """:func:`vcperf.ft.iometer_ratios` on the test bed ``t`` at the interval ``e``."""
    return {(lab, w): iometer_at(t, size, w, e, **link_kw).throughput_ratio for lab, size, w in t.iometer_patterns}


def brokerage_at(t: Testbed, e, ft_link_bps=DEFAULT_FT_LINK_BPS, *,
                 dirty_bytes_per_op=BROKERAGE_DIRTY_BYTES_PER_TRANSACTION, **kw) -> ClosedLoopResult:
    """:func:`vcperf.ft.brokerage_workload` on the test bed ``t`` at the interval ``e`` (its ``assumed`` flag)."""
    r = closed_loop_at_utilization(t.brokerage_connections, 0.0, BROKERAGE_EXCHANGES_PER_TRANSACTION,
                                   t.cpu_utilization, checkpoint_interval_s=e,
                                   vcpus=t.brokerage_vcpus, external_delay_s=BROKERAGE_IO_S,
                                   dirty_bytes_per_op=dirty_bytes_per_op, ft_link_bps=ft_link_bps, **kw)
    mark = v.Flag(
        f"assumed: the brokerage transaction (BROKERAGE_EXCHANGES_PER_TRANSACTION = "
        f"{BROKERAGE_EXCHANGES_PER_TRANSACTION:g} exchanges, {dirty_bytes_per_op / 1024:g} KiB dirtied, "
        f"BROKERAGE_IO_S = {BROKERAGE_IO_S * 1e3:g} ms of disk) is not in the FT study; with {t.brokerage_connections} "
        f"connections and no think time the model runs {r.throughput_off_per_s:,.0f} transactions/s FT off on "
        f"{t.brokerage_vcpus} vCPUs, far above a TPC-E-class database on that VM: the FT ratio is a direction only",
        kind="assumed", name="throughput_off_per_s", value=float(r.throughput_off_per_s),
        source="vcperf.ft.workloads BROKERAGE_* constants (assumed; seed Appendix B gives only the VM and 80 "
               "connections)")
    return dataclasses.replace(r, flags=tuple(r.flags) + (mark,))


def vcenter_at(p: Params, t: Testbed) -> dict:
    """:func:`vcperf.ft.vcenter_values` of ``p`` on the test bed ``t``."""
    return vcenter_predictions(p.vcenter_dirty_rate_bytes_per_s, p.vcenter_exchange_rate_per_s,
                               checkpoint_interval_s=p.checkpoint_interval_s, **t.vcenter_kw())


def kernel_compile_at(p: Params, t: Testbed, vcpus=None, **cycle_kw) -> KernelCompile:
    """:func:`vcperf.ft.kernel_compile_values` of ``p`` on the test bed ``t``."""
    n = t.kernel_compile_vcpus if vcpus is None else vcpus
    return kernel_compile(np.asarray(n, dtype=float), KERNEL_COMPILE_CPU_S, p.kernel_compile_dirty_bytes,
                          p.checkpoint_interval_s, **cycle_kw)


# --------------------------------------------------------------------------------------------
# Target models: explicit params, the test bed read at call time (cached per (params, test bed))
# --------------------------------------------------------------------------------------------


def _kernel_compile_increase(p: Params) -> float:
    """Mean FT-on minus FT-off compile time over the test bed's configurations (s) under ``p``."""
    return float(np.mean(kernel_compile_at(p, testbed()).increase_s))


def _tcp_rr(p: Params):
    t = testbed()
    return tcp_rr(p.checkpoint_interval_s, t.vm_round_trip_s, vcpus=t.netperf_vcpus)


def _netperf(p: Params, uplink: str, direction: str) -> float:
    """FT-on netperf throughput (bit/s) on the slowest or fastest uplink."""
    t = testbed()
    u = (min if uplink == "slow" else max)(t.netperf_uplinks_bps)
    return float(netperf_throughput_bps(u, direction, True, p.checkpoint_interval_s, vcpus=t.netperf_vcpus,
                                        **t.netperf_kw()))


@functools.lru_cache(maxsize=64)
def _database_on(name: str, e: float, t: Testbed) -> ClosedLoopResult:
    return database_at(t, name, e)


@functools.lru_cache(maxsize=64)
def _iometer_on(e: float, t: Testbed) -> dict:
    return iometer_ratios_at(t, e)


def _iometer_mean(p: Params, size: str) -> float:
    ratios = _iometer_on(p.checkpoint_interval_s, testbed())
    return float(np.mean([r for (s_, _), r in ratios.items() if s_ == size]))


@functools.lru_cache(maxsize=64)
def _vcenter_on(p: Params, t: Testbed) -> dict:
    return vcenter_at(p, t)


#: vCenter target key -> its entry of :func:`vcenter_values` (the targets that fit the vCenter parameters).
VCENTER_KEYS = {"vcenter_load_a_ratio": "ratio_a", "vcenter_load_b_ratio": "ratio_b",
                "web_client_browse_on": "browse_on_s", "vcenter_restart_ratio": "restart_ratio"}


def _vc(key: str):
    return lambda p: float(_vcenter_on(p, testbed())[VCENTER_KEYS[key]])


_F03, _F04 = f"{STUDY}/figure03_netperf_throughput_1gbps", f"{STUDY}/figure04_netperf_throughput_10gbps"
_F05, _F06 = f"{STUDY}/figure05_netperf_latency", f"{STUDY}/figure06_iometer_throughput"
_F12 = f"{STUDY}/figure12_vcenter_management_ops"

#: Every paper number of ``data/ft2016`` the FT model speaks to, with its ledger role and model.
TARGETS = (
    protocol.Target("kernel_compile_increase", f"{STUDY}/figure02_kernel_compile", "compile_time_increase_ft",
                    role="fit", group="kernel compile",
                    note="mean FT-on minus FT-off time over the 1/2/4-vCPU configurations; fixes the compile's "
                         "dirtied memory (its only number: not estimable when left out), solved on [1 B, 1 PB]: when "
                         "the vCPU state alone adds more than the paper's increase the solve stops at the 1-byte "
                         "floor (a fit at its bound) and this row shows the miss",
                    model=_kernel_compile_increase),
    protocol.Target("tcp_rr_latency_ratio", _F05, "latency_ft_on_over_off", role="fit", group="netperf TCP_RR",
                    note="idle 4-vCPU guest: added latency E/2 + FT-link RTT + vCPU state transfer over the FT-off "
                         "round trip, a stated input (external_vm_round_trip: 'a few tens of microseconds', 50 us); "
                         "the interval scales with it (25 or 100 us: about 2.6 or 11 ms)",
                    model=lambda p: _tcp_rr(p).latency_ratio),
    protocol.Target("tcp_rr_rate_ratio", _F05, "transaction_rate_ft_off_over_on", role="derived",
                    depends_on=("tcp_rr_latency_ratio",),
                    note="'throughput drops identically': the 57x of the latency, carried over (flagged derived in "
                         "data/); one customer, so the model's rate ratio is the latency ratio",
                    model=lambda p: _tcp_rr(p).rate_ratio),
    protocol.Target("netperf_1g_reach", _F03, "throughput", (("network_gbps", "1"),), role="bound",
                    note="'can meet or exceed 1 Gbps' on the 1 Gbps uplink, direction not stated: model = best "
                         "direction (transmit) in TCP payload, which on a 1 Gbps line is at most 0.949 Gbps "
                         "(network.payload_rate_bps: Ethernet/IP/TCP framing), so the literal 1 Gbps is out of "
                         "reach by the framing; the model reaches the uplink's payload capacity (FT on = FT off)",
                    model=lambda p: max(_netperf(p, "slow", "receive"), _netperf(p, "slow", "transmit"))),
    protocol.Target("netperf_10g_reach", _F04, "throughput", (("direction", ""), ("network_gbps", "10")), role="bound",
                    note="'can meet or exceed 1 Gbps' on the 10 Gbps uplink: model = the worse direction (receive)",
                    model=lambda p: min(_netperf(p, "fast", "receive"), _netperf(p, "fast", "transmit"))),
    protocol.Target("netperf_10g_receive", _F04, "throughput", (("direction", "receive"),), role="bound",
                    note="receive on 10 Gbps stays under 3 Gbps: ~3 FT-link bytes per received byte",
                    model=lambda p: _netperf(p, "fast", "receive")),
    protocol.Target("iometer_2KB_ratio", _F06, "throughput_ft_on_over_off", (("message_size", "2KB"),),
                    role="predicted", direction_only=True,
                    note="direction-only (the paper: 'nearly as much throughput', read as about 1): "
                         "mean FT-on/off ratio over 2 KB read, write and 50/50 (one outstanding I/O; mirrored writes "
                         "wait the FT-link round trip and transfer)",
                    model=lambda p: _iometer_mean(p, "2KB")),
    protocol.Target("iometer_64KB_ratio", _F06, "throughput_ft_on_over_off", (("message_size", "64KB"),),
                    role="predicted", direction_only=True,
                    note="direction-only (the paper: 'nearly as much throughput', read as about 1): "
                         "mean FT-on/off ratio over 64 KB read and write",
                    model=lambda p: _iometer_mean(p, "64KB")),
    protocol.Target("swingbench_throughput_ratio", f"{STUDY}/figure07_swingbench_throughput",
                    "throughput_ft_on_over_off",
                    role="predicted", direction_only=True,
                    note="direction-only (the paper: 'nearly as much throughput', read as about 1): "
                         "closed loop at the FT study's 60 % vCPU, Appendix B users and think time, one exchange per "
                         "transaction, 4 vCPUs; churn not printed (0)",
                    model=lambda p: _database_on("swingbench", p.checkpoint_interval_s, testbed()).throughput_ratio),
    protocol.Target("swingbench_response_up", f"{STUDY}/figure08_swingbench_response_time",
                    "response_time_ft_on_over_off",
                    role="bound", note="response ratio of the Swingbench closed loop (mean over its actions)",
                    model=lambda p: _database_on("swingbench", p.checkpoint_interval_s, testbed()).response_ratio),
    protocol.Target("dvdstore_throughput_down", f"{STUDY}/figure09_dvdstore_throughput", "throughput_ft_on_over_off",
                    role="bound", note="64 threads, 0.4 s think, login + 5 searches + purchase per order",
                    model=lambda p: _database_on("dvdstore", p.checkpoint_interval_s, testbed()).throughput_ratio),
    protocol.Target("dvdstore_response_up", f"{STUDY}/figure10_dvdstore_response_time", "response_time_ft_on_over_off",
                    role="bound", note="response ratio of the DVD Store closed loop",
                    model=lambda p: _database_on("dvdstore", p.checkpoint_interval_s, testbed()).response_ratio),
    protocol.Target("brokerage_throughput_down", f"{STUDY}/figure11_brokerage_throughput", "throughput_ft_on_over_off",
                    (("reading", ""),), role="bound",
                    note="80 connections, 4 vCPUs at 60 %, large working set: every transaction's "
                         "buffer-pool pages ship (assumed 160 KiB, 3 exchanges)",
                    model=lambda p: brokerage_at(testbed(), p.checkpoint_interval_s).throughput_ratio),
    protocol.Target("brokerage_throughput_floor", f"{STUDY}/figure11_brokerage_throughput",
                    "throughput_ft_on_over_off", (("reading", "lower"),), role="bound",
                    note="the floor read from the FT study's summary (flagged derived in data/): the brokerage "
                         "model's ratio must stay above the largest loss the FT study prints (vCenter Load B, 40 %). "
                         "Its failure "
                         "traces to the assumed transaction constants (BROKERAGE_*: about 15,000 tx/s FT off on 4 "
                         "vCPUs, too light a transaction; brokerage_workload() flags them)",
                    model=lambda p: brokerage_at(testbed(), p.checkpoint_interval_s).throughput_ratio),
    protocol.Target("vcenter_load_a_ratio", _F12, "throughput_ft_on_over_off", (("load", "A"),), group="vCenter Load A",
                    note="one client back to back at ~27 ops/min", model=_vc("vcenter_load_a_ratio")),
    protocol.Target("vcenter_load_b_ratio", _F12, "throughput_ft_on_over_off", (("load", "B"),), group="vCenter Load B",
                    note="clients reaching ~200 ops/min FT off; the serial stun makes the heavy load lose more",
                    model=_vc("vcenter_load_b_ratio")),
    protocol.Target("web_client_browse_on", f"{STUDY}/figure13_web_client_browsing", "browse_latency_mean",
                    (("ft", "on"),), group="Web Client browsing",
                    note="the FT-off browse latency (same figure) is an input", model=_vc("web_client_browse_on")),
    protocol.Target("vcenter_restart_ratio", f"{STUDY}/figure14_vcenter_restart", "restart_time_ft_on_over_off",
                    group="vCenter restart", note="only the stun slows the restart",
                    model=_vc("vcenter_restart_ratio")),
)


def targets() -> tuple:
    """Every paper number of ``data/ft2016`` the FT model speaks to (:data:`TARGETS`), with its ledger role.

    Examples
    --------
    >>> from vcperf import ft
    >>> len(ft.targets()), sorted({t.role for t in ft.targets()})
    (18, ['bound', 'derived', 'fit', 'predicted'])
    """
    return TARGETS
