"""The vMotion test beds: their physical facts read from ``data/vmotion2020``.

The Oracle/HammerDB test bed (links, vmknics, Table 1's VMs and the 72 vCPU / 1 TB VM), the TPCx-HCI
cluster (:func:`tpcx_setup`) and vMotion's printed settings (:func:`settings`). The model run on them at
the calibration (:func:`~vcperf.vmotion.migrate_workload`, :func:`~vcperf.vmotion.precopy_testbed`,
:func:`~vcperf.vmotion.migrate_testbed`) is the facade's, :mod:`vcperf.vmotion.study`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from vcperf import _frozen, data
from vcperf.vmotion.core import RELEASES, Settings, Workload, vm_memory_bytes
from vcperf.vmotion.limits import Limits
from vcperf.vmotion.params import STUDY
from vcperf.vmotion.tpcx import TpcxSetup
from vcperf.vmotion.transfer import contention_from_rates


@dataclass(frozen=True)
class Testbed:
    """Physical facts of the Oracle/HammerDB test bed (``testbed.csv``, ``text_page_tracing.csv``), SI.

    Attributes
    ----------
    link_bps : float
        Aggregate vMotion line rate: vmknics x NIC speed (bit/s).
    vmknics : int
        vMotion vmknics (one stream each).
    largest_67_vm_bytes : float
        Memory of the largest VM vSphere 6.7 migrates (6 TB, binary; the page-tracing section).
    fewest_vcpus : float
        The study's fewest vCPUs of a VM (12).
    """

    link_bps: float
    vmknics: int
    largest_67_vm_bytes: float
    fewest_vcpus: float


@_frozen.cache
def testbed() -> Testbed:
    """The Oracle/HammerDB test bed's facts (read once from ``data/vmotion2020``).

    Examples
    --------
    >>> from vcperf import vmotion as vm
    >>> vm.testbed().vmknics, vm.testbed().link_bps / 1e9
    (4, 160.0)
    """
    def net(quantity):
        return data.value(f"{STUDY}/testbed", quantity, "si", testbed="oracle_hammerdb", component="network")

    nics = net("vmotion_vmknics")
    biggest = data.value(f"{STUDY}/text_page_tracing", "max_vm_memory", "si", release="6.7")
    return Testbed(
        link_bps=nics * net("nic_speed"),
        vmknics=int(nics),
        largest_67_vm_bytes=vm_memory_bytes(biggest / 1e12, "TB"),
        fewest_vcpus=data.value(f"{STUDY}/testbed", "vm_vcpus_min", "si", testbed="oracle_hammerdb", component="vm"),
    )


def testbed_link_bps() -> float:
    """Aggregate vMotion line rate of the Oracle test bed (bit/s): vmknics x NIC speed (``testbed.csv``).

    Examples
    --------
    >>> from vcperf import vmotion as vm
    >>> vm.testbed_link_bps() / 1e9
    160.0
    """
    return testbed().link_bps


def testbed_vmknics() -> int:
    """vMotion vmknics of the Oracle test bed (one stream each; ``testbed.csv``).

    Examples
    --------
    >>> from vcperf import vmotion as vm
    >>> vm.testbed_vmknics()
    4
    """
    return testbed().vmknics


@_frozen.cache
def settings() -> Settings:
    """Printed settings: page goal 0.5 s, switch-over goal 1 s, 6.7 guest slice 1 ms; stream ceiling (external).

    The stream ceiling is an external number: one vMotion worker thread saturates its core at 18 Gb/s
    (``external_vmotion_streams.csv``, VMware KB 323379). The KB's two vmknics on one 40GbE NIC (28 Gb/s)
    calibrate how streams sharing a NIC contend (:func:`vcperf.vmotion.contention_from_rates`); its
    three-vmknic row (36 Gb/s) is a predicted ledger row.

    Examples
    --------
    >>> from vcperf import vmotion as vm
    >>> vm.settings().switchover_goal_s, vm.settings().switchover_time_goal_s
    (0.5, 1.0)
    """
    return Settings(
        switchover_goal_s=data.value(f"{STUDY}/text_switchover", "dirty_page_send_goal", "si"),
        guest_slice_s=data.value(f"{STUDY}/figure07_oracle_large_67_phases", "trace_install_alternation_interval", "si",
                                 release="6.7", phase="trace"),
        switchover_time_goal_s=data.value(f"{STUDY}/text_switchover", "switchover_time_goal", "si"),
        stream_bytes_per_cpu_s=data.value(f"{STUDY}/external_vmotion_streams", "vmotion_stream_throughput", "si",
                                          vmknics="1", nics="1") / 8.0,
        socket_buffer_bytes=data.value(f"{STUDY}/external_vmotion_streams", "vmotion_socket_buffer", "si"),
        stream_contention=contention_from_rates(*(data.value(f"{STUDY}/external_vmotion_streams",
                                                             "vmotion_stream_throughput", "si", vmknics=str(k),
                                                             nics="1") for k in (1, 2))),
        limits=limits(),
    )


@_frozen.cache
def limits() -> Limits:
    """VMware's documented vMotion limits (``external_vmotion_limits.csv``, ``external_vmotion_streams.csv``)
    and the calibrated ranges (the study's VMs, :func:`workloads`).

    Examples
    --------
    >>> from vcperf import vmotion as vm
    >>> lim = vm.limits()
    >>> lim.min_bps_per_vmotion, lim.max_rtt_s, lim.max_vcpus["7.0u1"]
    (250000000.0, 0.15, 768)
    """
    src = f"{STUDY}/external_vmotion_limits"
    tib = 2.0**40 / 1e12  # the study's VM sizes are binary
    vms = workloads().values()
    return Limits(
        min_bps_per_vmotion=data.value(src, "min_bandwidth_per_vmotion", "si"),
        max_rtt_s=data.value(f"{STUDY}/external_vmotion_streams", "max_rtt", "si"),
        max_concurrent_per_nic_1g=int(data.value(src, "max_concurrent_vmotions_per_nic", "si", nic_speed="1")),
        max_concurrent_per_nic_10g=int(data.value(src, "max_concurrent_vmotions_per_nic", "si", nic_speed="10")),
        max_concurrent_per_host={r: int(data.value(src, "max_concurrent_vmotions_per_host", "si", release=r))
                                 for r in RELEASES},
        max_vcpus={r: int(data.value(src, "max_vcpus_per_vm", "si", release=r)) for r in RELEASES},
        max_memory_bytes={r: data.value(src, "max_vm_memory", "si", release=r) * tib for r in RELEASES},
        calibrated_memory_bytes=(min(w.memory_bytes for w in vms), max(w.memory_bytes for w in vms)),
        calibrated_vcpus=(float(min(w.vcpus for w in vms)), float(max(w.vcpus for w in vms))),
    )


@_frozen.cache
def workloads() -> dict[str, Workload]:
    """Table 1's five VMs, the 72 vCPU / 1 TB VM of Figures 6-8 and Test 1's freshly booted typical VM.

    Table 1's VMs and the 1 TB VM were pre-touched: "we ran a microbenchmark that ensures the guest
    memory that is not allocated to Oracle DB had been touched and modified before vMotion is
    initiated. In other words, this scenario is different from a freshly booted VM that is assigned
    zero pages ... vSphere has optimizations to reduce the amount of data transferred for zero
    pages" (seed, Figure 6 text; Table 1 text). Test 1's typical VM (Figures 5 and 10, ``"typical_fresh"``:
    12 vCPUs, 64 GB, the same workload) was not: its memory beyond what Oracle touched is zero pages,
    which vMotion does not send. The paper prints no touched size; the model takes the Oracle SGA
    (25 GB, Table 1), the memory the database writes (modelling assumption: the least it can be). The
    assumption is a range, up to all 64 GB; Figure 10's throughputs and halved time constrain it, and
    the fit at the other end (:func:`vcperf.vmotion.calibration.calibrate_touched`) is what the what-if
    bands also cover.

    Examples
    --------
    >>> from vcperf import vmotion as vm
    >>> w = vm.workloads()["typical"]
    >>> w.vcpus, w.memory_bytes / 2**30, round(w.baseline_tps * 60)
    (12, 64.0, 270000)
    >>> vm.workloads()["typical_fresh"].zero_bytes / 2**30  # 64 GB less the 25 GB SGA: zero pages
    39.0
    """
    t1 = data.load(f"{STUDY}/table01_vm_sizes")
    out = {}
    for cfg in t1["config"].unique():
        rows = t1[t1["config"] == cfg].set_index("quantity")
        out[cfg] = Workload(
            name=cfg,
            vcpus=int(rows.loc["vcpus", "value"]),
            memory_bytes=vm_memory_bytes(rows.loc["memory", "value"], rows.loc["memory", "unit"]),
            working_set_bytes=vm_memory_bytes(rows.loc["oracle_sga", "value"], rows.loc["oracle_sga", "unit"]),
            baseline_tps=float(data.to_si(rows.loc["hammerdb_throughput_before_vmotion", "value"],
                                          rows.loc["hammerdb_throughput_before_vmotion", "unit"])),
        )
    f6 = data.load(f"{STUDY}/figure06_oracle_large_67").set_index("quantity")
    out["large_1tb"] = replace(
        out["typical"], name="large_1tb", vcpus=int(f6.loc["vm_vcpus", "value"]),
        memory_bytes=vm_memory_bytes(f6.loc["vm_memory", "value"], f6.loc["vm_memory", "unit"]),
    )
    typ = out["typical"]
    out["typical_fresh"] = replace(typ, name="typical_fresh", zero_bytes=typ.memory_bytes - typ.working_set_bytes)
    return out


@_frozen.cache
def tpcx_setup() -> TpcxSetup:
    """The TPCx-HCI experiment from ``data/vmotion2020`` (``text_tpcx_hci.csv``, ``testbed.csv``, Figure 11).

    The twelve VM types of a tile are spread geometrically over the printed ranges (2-28 vCPUs,
    2-98 GB), vCPUs and memory rising together (the paper prints only the ranges). The 2,000 checks
    are spread evenly over VMs and phases (3 or 4 transaction types per VM and phase).

    Each VM dirties memory like the study's OLTP database (modelling assumption: PostgreSQL under
    TPCx-HCI writes as Oracle under HammerDB does per unit of CPU): the typical Oracle VM's
    transactions per busy vCPU (270,000 TPM on 12 vCPUs at "close to 65 %" CPU, Table 1 and
    Figure 5) times the calibrated bytes per transaction, with the writable working set the same
    share of memory as the typical VM's SGA (25 of 64 GB).

    Examples
    --------
    >>> from vcperf import vmotion as vm
    >>> s = vm.tpcx_setup()
    >>> s.runs, s.migrations_per_run
    (18, 158)
    """
    t, tb = f"{STUDY}/text_tpcx_hci", f"{STUDY}/testbed"
    vm = {"testbed": "tpcx_hci", "component": "vm"}
    net = {"testbed": "tpcx_hci", "component": "network"}
    per_tile = int(data.value(tb, "vms_per_tile", "si", **vm))
    tiles = int(data.value(tb, "tiles", "si", **vm))
    vcpus = np.round(np.geomspace(data.value(tb, "vm_vcpus_min", "si", **vm),
                                  data.value(tb, "vm_vcpus_max", "si", **vm), per_tile))
    mem = np.geomspace(data.value(tb, "vm_memory_min", "si", **vm), data.value(tb, "vm_memory_max", "si", **vm),
                       per_tile) / 1e9
    vms = per_tile * tiles
    phases = int(data.value(t, "phases", "si"))
    checks = int(data.value(t, "response_time_checks", "si"))
    base, extra = divmod(checks, vms * phases)
    typ = workloads()["typical"]
    cpv = np.full(vms, float(base))
    cpv[: extra // phases] += 1.0  # VMs with one more transaction type checked in every phase
    return TpcxSetup(
        vms=vms,
        vcpus=np.tile(vcpus, tiles),
        memory_bytes=np.array([vm_memory_bytes(m, "GB") for m in np.tile(mem, tiles)]),
        checks_per_vm_phase=cpv,
        phases=phases,
        phase_s=data.value(t, "phase_duration", "si"),
        migrations_per_run=int(data.value(f"{STUDY}/figure11_tpcx_hci_profile", "migrations", "si", phase="run")),
        runs=int(data.value(t, "runs_per_data_point", "si")),
        load_variation=data.value(t, "per_vm_load_variation", "si"),
        response_time_s=data.value(t, "example_response_time", "si"),
        link_bps=data.value(tb, "vmotion_ports", "si", **net) * data.value(tb, "nic_speed", "si", **net),
        tps_per_busy_vcpu=typ.baseline_tps / (typ.vcpus * data.value(
            f"{STUDY}/figure05_oracle_typical_67", "vm_cpu_utilization_at_vmotion_start", "si")),
        working_set_fraction=typ.working_set_bytes / typ.memory_bytes,
        warmup_migrations=int(data.value(f"{STUDY}/figure11_tpcx_hci_profile", "migrations", "si", phase="warmup")),
        nodes=int(data.value(f"{STUDY}/figure11_tpcx_hci_profile", "nodes", "si")),
    )
