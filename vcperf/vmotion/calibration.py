"""Calibration of the vMotion model: testbed facts, the paper's numbers (targets), the fit.

Seed ``004_ea13268657e6b3b0.txt``. Seven parameters of the Oracle migrations are fitted by least
squares (relative errors, log-scaled parameters) to the nine numbers the paper states for the
72 vCPU / 1 TB VM (Figures 7 and 8) and the typical 12 vCPU / 64 GB VM (Figure 10); the TPCx-HCI
peak VM load and dirty scale are then fitted to the 148 failed 6.7 U3 and 4 failed 7.0 U1 checks.
Everything else is ``predicted`` (Figure 9's 19x, the TPCx-HCI invalid runs of both releases),
``derived`` (restatements and ratios of other printed numbers) or a ``bound``.

Leave-one-out groups (numbers held out together): the 6.7 run of the large VM (trace and pre-copy
drops, six-second switch-over, 50 % loss), the large VM's 7.0 U1 run (its time and switch-over
compared with 6.7), the typical VM's 6.7 run, its 7.0 U1 run (average tps, halved time), the
TPCx-HCI 6.7 U3 runs and the TPCx-HCI 7.0 U1 runs.
"""

from __future__ import annotations

import functools
from dataclasses import replace

import numpy as np

from vcperf import _validate as v
from vcperf import data, protocol
from vcperf.protocol import Target
from vcperf.vmotion.core import RELEASES, STUDY, Params, Settings, TpcxParams, Workload, vm_memory_bytes
from vcperf.vmotion.memory import DEFAULT_MAX_ROUNDS, DEFAULT_SDPS_FRACTION, PrecopyResult, precopy
from vcperf.vmotion.migration import Migration, migrate, throughput_series
from vcperf.vmotion.switchover import metadata_entries
from vcperf.vmotion.tpcx import TpcxSetup, tpcx_expected, tpcx_longest_delay_s
from vcperf.vmotion.trace import trace_phase

# ------------------------------------------------------------------------------- testbed facts


@functools.lru_cache(maxsize=1)
def testbed_link_bps() -> float:
    """Aggregate vMotion line rate of the Oracle testbed: vmknics x NIC speed (``testbed.csv``)."""
    nics = data.value(f"{STUDY}/testbed", "vmotion_vmknics", "si", testbed="oracle_hammerdb", component="network")
    speed = data.value(f"{STUDY}/testbed", "nic_speed", "si", testbed="oracle_hammerdb", component="network")
    return nics * speed


@functools.lru_cache(maxsize=1)
def testbed_vmknics() -> int:
    """vMotion vmknics of the Oracle testbed (one stream each; ``testbed.csv``)."""
    return int(data.value(f"{STUDY}/testbed", "vmotion_vmknics", "si", testbed="oracle_hammerdb", component="network"))


@functools.lru_cache(maxsize=1)
def settings() -> Settings:
    """Printed settings: page goal 0.5 s, switch-over goal 1 s, 6.7 guest slice 1 ms; stream ceiling (external).

    The stream ceiling is the one external number of the study: one vMotion worker thread saturates
    its core at 18 Gb/s (``external_vmotion_streams.csv``, VMware KB 323379).
    """
    return Settings(
        switchover_goal_s=data.value(f"{STUDY}/text_switchover", "dirty_page_send_goal", "si"),
        guest_slice_s=data.value(f"{STUDY}/figure07_oracle_large_67_phases", "trace_install_alternation_interval", "si",
                             release="6.7", phase="trace"),
        switchover_time_goal_s=data.value(f"{STUDY}/text_switchover", "switchover_time_goal", "si"),
        stream_bytes_per_cpu_s=data.value(f"{STUDY}/external_vmotion_streams", "vmotion_stream_throughput", "si",
                                          vmknics="1", nics="1") / 8.0,
    )


@functools.lru_cache(maxsize=1)
def workloads() -> dict[str, Workload]:
    """Table 1's five VMs plus the 72 vCPU / 1 TB VM of Figures 6-8 (workload of the typical VM)."""
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
    return out


@functools.lru_cache(maxsize=1)
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


def migrate_workload(name: str, release: str, link_bps=None, *, params: Params | None = None) -> Migration:
    """:func:`~vcperf.vmotion.migrate` for a named VM of :func:`workloads` (Table 1 configs or ``"large_1tb"``).

    Defaults: the testbed's links (:func:`testbed_link_bps`) and the calibrated parameters.
    """
    w = workloads()
    v.choice("name", name, tuple(w))
    wl = w[name]
    return migrate(wl.memory_bytes, wl.vcpus, wl.working_set_bytes, wl.baseline_tps, release,
                   testbed_link_bps() if link_bps is None else link_bps,
                   params=calibrate() if params is None else params, settings=settings(),
                   n_vmknics=testbed_vmknics())


# ------------------------------------------------------------------------------------ targets

_LARGE_67 = "large VM (72 vCPU / 1 TB), 6.7 run"
_LARGE_70 = "large VM (72 vCPU / 1 TB), 7.0 U1 run vs 6.7"
_TYP_67 = "typical VM (12 vCPU / 64 GB), 6.7 run (Figure 10)"
_TYP_70 = "typical VM (12 vCPU / 64 GB), 7.0 U1 run vs 6.7 (Figure 10)"
_TPCX_67 = "TPCx-HCI 6.7 U3 runs"
_TPCX_70 = "TPCx-HCI 7.0 U1 runs"


def _t(key, table, quantity, role="fit", group=None, depends_on=(), note="", **cond):
    return Target(key, f"{STUDY}/{table}", quantity, tuple(cond.items()), role=role, group=group,
                  depends_on=depends_on, note=note)


F7, F8 = "figure07_oracle_large_67_phases", "figure08_oracle_large_67_vs_70u1"
F10 = "figure10_oracle_typical_halfsecond"

#: Every paper number the model speaks to (``data/vmotion2020``).
TARGETS = (
    # fitted: Figures 7, 8 (large VM) and 10 (typical VM)
    _t("trace_drop_large_67", F7, "throughput_drop", group=_LARGE_67, release="6.7", phase="trace",
       note="6.7 trace-phase loss of the 72 vCPU / 1 TB VM"),
    _t("precopy_drop_large_67", F7, "throughput_drop", group=_LARGE_67, release="6.7", phase="precopy",
       note="6.7 pre-copy loss (trace fires and re-installs)"),
    _t("switchover_stall_large_67", F7, "oracle_response_stall", group=_LARGE_67, release="6.7",
       phase="switchover", note="6.7 switch-over stall: checkpoint + last pages + two bitmaps"),
    _t("avg_loss_large_67", F8, "avg_throughput_loss_during_vmotion", group=_LARGE_67, release="6.7",
       note="time-weighted mean loss over trace, pre-copy and switch-over"),
    _t("migration_time_ratio_large", F8, "migration_time_ratio_70u1_over_67", group=_LARGE_70, vm="large",
       note="7.0 U1 / 6.7 migration time (trace phase + pre-copy + switch-over)"),
    _t("switchover_improvement_large", F8, "switchover_resume_time_improvement", group=_LARGE_70, vm="large",
       note="6.7 / 7.0 U1 switch-over stall"),
    _t("typical_tps_67", F10, "avg_throughput_during_vmotion", group=_TYP_67, release="6.7",
       note="average tps during vMotion, baseline 270,000 TPM (Table 1)"),
    _t("typical_tps_70u1", F10, "avg_throughput_during_vmotion", group=_TYP_70, release="7.0u1",
       note="average tps during vMotion, baseline 270,000 TPM (Table 1)"),
    _t("typical_migration_time_reduction", F10, "migration_time_reduction", group=_TYP_70,
       note="1 - 7.0 U1 / 6.7 migration time"),
    # fitted: TPCx-HCI peak VM load and dirty scale
    _t("failed_checks_67u3", "text_tpcx_hci", "failed_checks", group=_TPCX_67, release="6.7u3",
       note="expected failed checks over 18 runs (tpcx_expected); with the 7.0 U1 count sets the peak VM load"),
    _t("failed_checks_70u1", "text_tpcx_hci", "failed_checks", group=_TPCX_70, release="7.0u1",
       note="expected failed checks over 18 runs; with the 6.7 U3 count sets the TPCx-HCI dirty scale (how "
            "often SDPS throttles the largest VMs at their peak)"),
    # predicted: never fitted
    _t("monster_improvement", "figure09_oracle_sizes_67_vs_70u1", "max_throughput_improvement", role="predicted",
       vm="monster", note="192 vCPU / 4 TB: throughput during vMotion, 7.0 U1 / 6.7 (a known miss, see notebook)"),
    _t("invalid_runs_67u3", "text_tpcx_hci", "invalid_runs", role="predicted", release="6.7u3",
       note="expected invalid runs of 18 (a run with one failed check is invalid)"),
    _t("invalid_runs_70u1", "text_tpcx_hci", "invalid_runs", role="predicted", release="7.0u1",
       note="expected invalid runs of 18 (how the few failed checks fall on runs)"),
    # derived: functions or restatements of other printed numbers
    _t("typical_improvement", F10, "throughput_improvement", role="derived",
       depends_on=("typical_tps_70u1", "typical_tps_67"),
       note="'nearly 45 %' is the ratio of the two fitted Figure 10 throughputs, minus 1"),
    _t("conclusion_improvement", "text_conclusion", "throughput_improvement", role="derived",
       depends_on=("monster_improvement",), note="the 19x of Figure 9 restated in the Conclusion (model: largest "
                                                 "gain over Table 1's VMs)"),
    _t("conclusion_duration_reduction", "text_conclusion", "vmotion_duration_reduction", role="derived",
       depends_on=("migration_time_ratio_large", "typical_migration_time_reduction"),
       note="'in the range of 50 %' restates the halved times of Figures 8 and 10 (model: mean over Table 1)"),
    _t("invalid_run_reduction", "text_tpcx_hci", "invalid_run_reduction", role="derived", release="7.0u1",
       depends_on=("invalid_runs_67u3", "invalid_runs_70u1"), note="86 % = 1 - 2 / 14"),
    _t("failed_check_reduction", "text_tpcx_hci", "failed_check_reduction", role="derived", release="7.0u1",
       depends_on=("failed_checks_67u3", "failed_checks_70u1"), note="97 % = 1 - 4 / 148"),
    # bounds the paper states
    _t("avg_loss_large_70u1", F8, "avg_throughput_loss_during_vmotion", role="bound", release="7.0u1",
       note="7.0 U1 average loss of the 72 vCPU / 1 TB VM (fires bounded by the traced-or-selected invariant)"),
    _t("trace_install_typical_67", "text_page_tracing", "trace_install_duration_low", role="bound",
       note="6.7 trace install of the study's smallest VM (12 vCPU / 64 GB)"),
    _t("trace_install_6tb_67", "text_page_tracing", "trace_install_duration_high", role="bound",
       note="6.7 trace install of the largest 6.7 VM (6 TB) with the study's fewest vCPUs (12)"),
    _t("vcpu_stop_cost_typical_67", "text_page_tracing", "vcpu_stop_cost", role="bound",
       note="stopping the 12 vCPUs of the typical VM once"),
    _t("bitmap_transfer_large_67", "text_switchover", "bitmap_transfer_time_large_vm", role="bound", vm="large",
       note="processing the two bitmaps of the 1 TB VM at switch-over"),
    _t("migration_time_large_over_typical_67", "figure06_oracle_large_67", "migration_time_large_over_typical",
       role="bound", note="6.7 migration time, 72 vCPU / 1 TB over 12 vCPU / 64 GB"),
    _t("min_commits_typical_67", "figure05_oracle_typical_67", "oracle_commits_per_s_min", role="bound",
       note="lowest 1-s throughput of the typical VM during 6.7 vMotion (never zero)"),
    _t("tpcx_downtime_67u3", "text_tpcx_hci", "vmotion_downtime", role="bound", release="6.7u3",
       note="longest extra delay of one TPCx-HCI migration on 6.7 (several seconds)"),
)

_TPCX_KEYS = ("failed_checks_67u3", "invalid_runs_67u3", "failed_checks_70u1", "invalid_runs_70u1",
              "invalid_run_reduction", "failed_check_reduction", "tpcx_downtime_67u3")
_BY_KEY = {t.key: t for t in TARGETS}
#: Keys of the default fit.
FIT_KEYS = tuple(t.key for t in TARGETS if t.role == "fit")


def targets() -> tuple[Target, ...]:
    """Every paper number of the study the model speaks to (see :data:`TARGETS`).

    The invalid runs of TPCx-HCI cannot exceed the runs taken (18): their bands stop there.
    """
    runs = float(tpcx_setup().runs)
    capped = tuple(replace(t, maximum=runs) if t.quantity == "invalid_runs" else t for t in TARGETS)
    return protocol.mark_differences(capped, ("throughput_drop", "avg_throughput_loss_during_vmotion",
                                               "migration_time_reduction", "vmotion_duration_reduction",
                                               "invalid_run_reduction", "failed_check_reduction",
                                               "typical_improvement"))


# ------------------------------------------------------------------------------------ predict

_TABLE1 = ("typical", "medium", "large", "very_large", "monster")
_NAMES = ("typical", "large_1tb", "medium", "large", "very_large", "monster")


class _Model:
    """Lazily evaluated model quantities for one parameter set (what :func:`predict` reads)."""

    def __init__(self, p: Params):
        self.p, self.s = p, settings()
        self._mig = None
        self._tpcx = {}

    @property
    def mig(self):
        if self._mig is None:
            w = workloads()
            cols = {k: np.array([getattr(w[n], k) for n in _NAMES]) for k in
                    ("memory_bytes", "vcpus", "working_set_bytes", "baseline_tps")}
            self._mig = {r: migrate(cols["memory_bytes"], cols["vcpus"], cols["working_set_bytes"],
                                    cols["baseline_tps"], r, testbed_link_bps(), params=self.p, settings=self.s,
                                    n_vmknics=testbed_vmknics())
                         for r in RELEASES}
        return self._mig

    def at(self, release, quantity, name):
        return float(getattr(self.mig[release], quantity)[_NAMES.index(name)])

    def improvement(self, name):
        return (1.0 - self.at("7.0u1", "average_loss", name)) / (1.0 - self.at("6.7", "average_loss", name))

    def time_ratio(self, name):
        return self.at("7.0u1", "migration_time_s", name) / self.at("6.7", "migration_time_s", name)

    def tpcx(self, release):
        if release not in self._tpcx:
            self._tpcx[release] = tpcx_expected(release, self.p.tpcx.peak_vm_utilization, tpcx_setup(),
                                                params=self.p, settings=self.s)
        return self._tpcx[release]

    def failed(self, release):
        return self.tpcx(release).expected_failed_checks(tpcx_setup().runs)

    def invalid(self, release):
        return self.tpcx(release).expected_invalid_runs(tpcx_setup().runs)

    def typical_67_min_commits(self):
        m = migrate_workload("typical", "6.7", params=self.p)
        _, tps = throughput_series(m, 1.0, 0.0, float(m.migration_time_s) + 1.0)
        return float(tps.min())


def _biggest_67_trace_s(m: _Model) -> float:
    biggest = data.value(f"{STUDY}/text_page_tracing", "max_vm_memory", "si", release="6.7")
    fewest = data.value(f"{STUDY}/testbed", "vm_vcpus_min", "si", testbed="oracle_hammerdb", component="vm")
    return float(trace_phase(vm_memory_bytes(biggest / 1e12, "TB"), fewest, "6.7", params=m.p,
                             settings=m.s).duration_s)


_PREDICT = {
    "trace_drop_large_67": lambda m: m.at("6.7", "trace_loss", "large_1tb"),
    "precopy_drop_large_67": lambda m: m.at("6.7", "precopy_loss", "large_1tb"),
    "switchover_stall_large_67": lambda m: m.at("6.7", "switchover_time_s", "large_1tb"),
    "avg_loss_large_67": lambda m: m.at("6.7", "average_loss", "large_1tb"),
    "migration_time_ratio_large": lambda m: m.time_ratio("large_1tb"),
    "switchover_improvement_large": lambda m: (m.at("6.7", "switchover_time_s", "large_1tb")
                                               / m.at("7.0u1", "switchover_time_s", "large_1tb")),
    "typical_tps_67": lambda m: m.at("6.7", "average_throughput_tps", "typical"),
    "typical_tps_70u1": lambda m: m.at("7.0u1", "average_throughput_tps", "typical"),
    "typical_migration_time_reduction": lambda m: 1.0 - m.time_ratio("typical"),
    "failed_checks_67u3": lambda m: m.failed("6.7"),
    "monster_improvement": lambda m: m.improvement("monster"),
    "invalid_runs_67u3": lambda m: m.invalid("6.7"),
    "failed_checks_70u1": lambda m: m.failed("7.0u1"),
    "invalid_runs_70u1": lambda m: m.invalid("7.0u1"),
    "typical_improvement": lambda m: m.improvement("typical") - 1.0,
    "conclusion_improvement": lambda m: max(m.improvement(n) for n in _TABLE1),
    "conclusion_duration_reduction": lambda m: float(np.mean([1.0 - m.time_ratio(n) for n in _TABLE1])),
    "invalid_run_reduction": lambda m: 1.0 - m.invalid("7.0u1") / m.invalid("6.7"),
    "failed_check_reduction": lambda m: 1.0 - m.failed("7.0u1") / m.failed("6.7"),
    "avg_loss_large_70u1": lambda m: m.at("7.0u1", "average_loss", "large_1tb"),
    "trace_install_typical_67": lambda m: m.at("6.7", "trace_time_s", "typical"),
    "trace_install_6tb_67": _biggest_67_trace_s,
    "vcpu_stop_cost_typical_67": lambda m: m.p.vcpu_stop_cost_s * workloads()["typical"].vcpus,
    "bitmap_transfer_large_67": lambda m: float(metadata_entries(m.mig["6.7"].precopy.metadata_bytes, "6.7")
                                                [_NAMES.index("large_1tb")]) * m.p.metadata_cost_s_per_entry,
    "migration_time_large_over_typical_67": lambda m: (m.at("6.7", "migration_time_s", "large_1tb")
                                                       / m.at("6.7", "migration_time_s", "typical")),
    "min_commits_typical_67": lambda m: m.typical_67_min_commits(),
    "tpcx_downtime_67u3": lambda m: tpcx_longest_delay_s("6.7", m.p.tpcx.peak_vm_utilization, tpcx_setup(),
                                                         params=m.p, settings=m.s),
}


def predict(params: Params, keys=None) -> dict[str, float]:
    """Model value (SI; percent and ratios as fractions) of each target key under ``params``.

    Parameters
    ----------
    params : Params
    keys : iterable of str, optional
        Target keys (default: all of :func:`targets`).
    """
    keys = _check_keys(params, keys)
    m = _Model(params)
    return {k: float(_PREDICT[k](m)) for k in keys}


def _check_keys(params, keys) -> tuple:
    """Validated ``keys`` (default: every target) for a ``Params`` instance."""
    if not isinstance(params, Params):
        raise ValueError(f"params must be a vcperf.vmotion.Params; got {type(params).__name__}")
    if isinstance(keys, (str, bytes)):
        raise ValueError(f"keys must be an iterable of target keys of {STUDY}, not a single string; got {keys!r}")
    try:
        keys = tuple(_BY_KEY) if keys is None else tuple(keys)
    except TypeError:
        raise ValueError(f"keys must be an iterable of target keys of {STUDY}; got {type(keys).__name__}") from None
    unknown = [k for k in keys if not isinstance(k, str) or k not in _BY_KEY]
    if unknown:
        raise ValueError(f"keys must be target keys of {STUDY} ({sorted(_BY_KEY)}); got {unknown}")
    return keys


#: Counts the paper sums over its 18 TPCx-HCI runs: key -> (release, which count).
_TPCX_COUNT_KEYS = {"failed_checks_67u3": ("6.7", "failed"), "failed_checks_70u1": ("7.0u1", "failed"),
                    "invalid_runs_67u3": ("6.7", "invalid"), "invalid_runs_70u1": ("7.0u1", "invalid")}


def sampling_variances(params: Params, keys=None) -> dict[str, float]:
    """Variance of each printed TPCx-HCI count that its 18 runs alone give it (SI units squared).

    "Due to the elastic, non-deterministic nature of the benchmark, we took 18 runs at each data
    point" (``004_ea13268657e6b3b0.txt``, "Impact of vMotion Performance on TPCx-HCI"): even a perfect
    model sees the printed counts scatter. Invalid runs of 18 are binomial; the failed checks of a run
    are a sum over independent VM-phase cells, each failing its 3-4 checks together
    (:meth:`~vcperf.vmotion.TpcxExpectation.failed_checks_variance`; checked against the seeded
    Monte Carlo in the tests). Every other target: 0 (its noise is the protocol's run-to-run floor).
    Used by :func:`vcperf.protocol.sampling_variances` for the ledger's intervals.
    """
    keys = _check_keys(params, keys)
    runs = tpcx_setup().runs
    m = _Model(params)
    out = {}
    for k in keys:
        if k in _TPCX_COUNT_KEYS:
            release, what = _TPCX_COUNT_KEYS[k]
            e = m.tpcx(release)
            out[k] = e.failed_checks_variance(runs) if what == "failed" else e.invalid_runs_variance(runs)
        else:
            out[k] = 0.0
    return out


# ---------------------------------------------------------------------------------------- fit

_MAIN = ("vcpu_stop_cost_s", "trace_install_cost_s_per_page", "dirty_bytes_per_transaction",
         "metadata_cost_s_per_entry", "checkpoint_time_s", "trace_pages_per_install_phase", "zeroing_cpu_s_per_byte")
#: Start values of the fit (log-space search); orders of magnitude only. Parameters no chosen target
#: moves stay at these values.
_START = {
    "vcpu_stop_cost_s": 1e-5,
    "trace_install_cost_s_per_page": 1e-6,
    "dirty_bytes_per_transaction": 1e5,
    "metadata_cost_s_per_entry": 1e-8,
    "checkpoint_time_s": 0.3,
    "trace_pages_per_install_phase": 1e4,
    "zeroing_cpu_s_per_byte": 1e-10,
}
#: Start values of the bytes dirtied per transaction (a deterministic multi-start; the best fit wins):
#: half-decades from 100 B (only the log buffer: a dirty rate of MB/s, one pre-copy round) to 1 MB
#: (buffer-cache blocks too: GB/s, several rounds). The fit has a local minimum in each regime, and
#: which one is lowest depends on the rows fitted, so every fit (full and leave-one-out) searches the
#: same grid. Two starts (1 kB, 100 kB) were too few: refitting without the typical VM's 7.0 U1 run
#: they returned a minimum 2.4x costlier than the one at 600 B.
_DIRTY_STARTS = tuple(float(x) for x in np.logspace(2.0, 6.0, 9))
#: Start (and, without a TPCx-HCI target, final) peak VM load: inside the range where checks fail, so
#: that a refit without the TPCx-HCI numbers is reported as not determining them (at a load where no
#: check can fail the count would be flat and look "determined" at 0).
_START_PEAK = 0.8
_PEAK_RANGE = (0.05, 0.999)
#: Start (and, without both failed-check counts, final) TPCx-HCI dirty scale: the Oracle VM's dirty
#: rate per busy vCPU; and the range searched for it (1/1000 to 10 times the Oracle VM's).
_START_SCALE = 1.0
_SCALE_RANGE = (1e-3, 10.0)
#: The two failed-check counts (the TPCx-HCI numbers that are fitted).
_TPCX_COUNTS = ("failed_checks_67u3", "failed_checks_70u1")


def _paper(key: str) -> float:
    return _BY_KEY[key].paper_value()


def _fit_main(keys: tuple) -> dict:
    from scipy.optimize import least_squares

    if not keys:
        return dict(_START)
    paper = np.array([_paper(k) for k in keys])

    def make(x):
        return Params(**dict(zip(_MAIN, np.exp(x), strict=True)), tpcx=TpcxParams(_START_PEAK, _START_SCALE))

    def resid(x):
        pred = predict(make(x), keys)
        return (np.array([pred[k] for k in keys]) - paper) / np.abs(paper)

    best = None
    for dirty in _DIRTY_STARTS:  # the dirty rate has several basins (pre-copy rounds matter or not)
        x0 = np.log([dirty if k == "dirty_bytes_per_transaction" else _START[k] for k in _MAIN])
        sol = least_squares(resid, x0, method="trf", x_scale=1.0, diff_step=1e-4, max_nfev=400)
        if best is None or sol.cost < best.cost - 1e-12:
            best = sol
    return {k: float(val) for k, val in zip(_MAIN, np.exp(best.x), strict=True)}


def _fit_peak(main: dict, keys: tuple, scale: float) -> float:
    """Peak VM load fitting ``keys`` at a given TPCx-HCI dirty scale (a root when one count is fitted)."""
    from scipy.optimize import brentq, minimize_scalar

    if not keys:
        return _START_PEAK
    paper = np.array([_paper(k) for k in keys])

    def resid(peak):
        pred = predict(Params(**main, tpcx=TpcxParams(float(peak), scale)), keys)
        return (np.array([pred[k] for k in keys]) - paper) / np.abs(paper)

    lo, hi = _PEAK_RANGE
    if len(keys) == 1 and keys[0] in _TPCX_COUNTS:  # monotone in the peak: a root, or the nearer end
        r_lo, r_hi = resid(lo)[0], resid(hi)[0]
        if r_lo >= 0:
            return lo
        if r_hi <= 0:
            return hi
        return float(brentq(lambda u: resid(u)[0], lo, hi, xtol=1e-10, rtol=1e-10))
    res = minimize_scalar(lambda u: float(np.sum(resid(u) ** 2)), bounds=(lo, hi), method="bounded",
                          options={"xatol": 1e-8})
    return float(res.x)


def _fit_tpcx(main: dict, keys: tuple) -> TpcxParams:
    """Peak VM load and TPCx-HCI dirty scale given the migration parameters ``main``.

    With both failed-check counts: the dirty scale is the root (in log space, over
    :data:`_SCALE_RANGE`) of the 7.0 U1 count's error, the peak load re-solved from the 6.7 U3 count
    at every trial scale (two nested one-dimensional roots: robust where the 7.0 U1 count is flat
    at zero, which a joint Newton step is not). Otherwise the scale keeps its start value (the
    Oracle VM's dirty rate) and the peak load fits what is chosen.
    """
    from scipy.optimize import brentq

    both = all(k in keys for k in _TPCX_COUNTS)
    if not both:
        return TpcxParams(_fit_peak(main, keys, _START_SCALE), _START_SCALE)
    rest = tuple(k for k in keys if k != "failed_checks_70u1")
    target = _paper("failed_checks_70u1")

    def err(log_scale):
        scale = float(np.exp(log_scale))
        peak = _fit_peak(main, rest, scale)
        pred = predict(Params(**main, tpcx=TpcxParams(peak, scale)), ("failed_checks_70u1",))
        return (pred["failed_checks_70u1"] - target) / target

    lo, hi = np.log(_SCALE_RANGE)
    e_lo, e_hi = err(lo), err(hi)
    if e_lo >= 0:
        log_scale = lo
    elif e_hi <= 0:
        log_scale = hi
    else:
        log_scale = brentq(err, lo, hi, xtol=1e-9, rtol=1e-9)
    scale = float(np.exp(log_scale))
    return TpcxParams(_fit_peak(main, rest, scale), scale)


@functools.lru_cache(maxsize=64)
def _calibrate(fit_on: tuple) -> Params:
    main_keys = tuple(k for k in fit_on if k not in _TPCX_KEYS)
    tpcx_keys = tuple(k for k in fit_on if k in _TPCX_KEYS)
    main = _fit_main(main_keys)
    return Params(**main, tpcx=_fit_tpcx(main, tpcx_keys))


def calibrate(fit_on=None) -> Params:
    """Fit :class:`~vcperf.vmotion.Params` to the ``fit`` targets (or to the target keys ``fit_on``).

    The seven migration parameters: least squares on relative errors over log-scaled parameters from
    fixed start values (nine starts of the bytes per transaction, 100 B to 1 MB, the best fit kept;
    deterministic);
    then the TPCx-HCI peak VM load and dirty scale given them (roots of the expected 6.7 U3 and
    7.0 U1 failed checks, :func:`~vcperf.vmotion.tpcx_expected`). Parameters that no chosen target
    moves keep their start values (the protocol's estimability test then reports the predictions
    they set as not estimable).

    Parameters
    ----------
    fit_on : iterable of str, optional
        Target keys to fit to (default :data:`FIT_KEYS`: Figures 7, 8, 10 and both failed-check counts).

    Raises
    ------
    ValueError
        For an unknown key or a ``bound`` target (an inequality is checked, not fitted).
    """
    keys = protocol.resolve_fit_on(STUDY, _BY_KEY.values(), fit_on)
    return protocol.cached_calibration(STUDY, fit_on, _calibrate, keys)


def calibrated() -> Params:
    """The default calibration (:func:`calibrate` with no arguments; cached)."""
    return calibrate()


def calibrate_tpcx() -> float:
    """The calibrated TPCx-HCI peak VM load (``calibrate().tpcx.peak_vm_utilization``)."""
    return calibrate().tpcx.peak_vm_utilization


# ------------------------------------------------------------------ calibrated entry points (sweeps)


def precopy_testbed(memory_bytes, dirty_rate_bytes_per_s, link_bps=None, working_set_bytes=None, vcpus=None,
                    release="7.0u1", max_rounds: int = DEFAULT_MAX_ROUNDS, sdps: bool = True,
                    sdps_fraction: float = DEFAULT_SDPS_FRACTION, swapped_bytes=0.0, **transfer_kw) -> PrecopyResult:
    """:func:`~vcperf.vmotion.precopy` with the calibrated parameters and printed settings.

    For ``vcperf sweep`` and quick looks: ``link_bps`` defaults to the testbed's 4 x 40 GbE
    (:func:`testbed_link_bps`) and ``n_vmknics`` to its 4 vmknics; every other argument as in
    :func:`~vcperf.vmotion.precopy`.
    """
    transfer_kw.setdefault("n_vmknics", testbed_vmknics())
    return precopy(memory_bytes, dirty_rate_bytes_per_s, testbed_link_bps() if link_bps is None else link_bps,
                   working_set_bytes, vcpus, release, params=calibrate(), settings=settings(),
                   max_rounds=max_rounds, sdps=sdps, sdps_fraction=sdps_fraction, swapped_bytes=swapped_bytes,
                   **transfer_kw)


def migrate_testbed(memory_bytes, vcpus, working_set_bytes, baseline_tps, release="7.0u1",
                    link_bps=None, **precopy_kw) -> Migration:
    """:func:`~vcperf.vmotion.migrate` with the calibrated parameters (for ``vcperf sweep``).

    ``link_bps`` defaults to the testbed's 4 x 40 GbE (:func:`testbed_link_bps`), ``n_vmknics`` to
    its 4 vmknics; ``precopy_kw`` as in :func:`~vcperf.vmotion.migrate`.
    """
    precopy_kw.setdefault("n_vmknics", testbed_vmknics())
    return migrate(memory_bytes, vcpus, working_set_bytes, baseline_tps, release,
                   testbed_link_bps() if link_bps is None else link_bps, params=calibrate(), settings=settings(),
                   **precopy_kw)
