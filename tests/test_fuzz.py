"""Property-based fuzzing of every public model function (issue 18: "every bad input a clear error").

Functions are discovered by introspection (:func:`discover`): every public function (and every
input class that validates itself in ``__post_init__``) defined in the modules of :data:`MODULES`,
submodules of packages included, so a new public function is fuzzed without touching this file --
it only needs a valid baseline value for each required parameter (:data:`BASELINE_BY_NAME`,
:data:`BASELINE_BY_TYPE` or :data:`BASELINE_OVERRIDES`); a function without one fails
:func:`test_every_function_has_a_valid_baseline`.

For each parameter, Hypothesis draws bad and extreme values (bools, strings such as ``"no"``,
``None``, complex numbers, object arrays, NaN, +-inf, negative, zero, huge, subnormal, wrong-shape
and empty arrays, unknown choices, wrong object types), substitutes it into a valid baseline call and
classifies the outcome:

* ``ValueError`` whose message names the fuzzed parameter -- handled as promised;
* ``ValueError`` naming another parameter of the function -- **wrong-parameter**;
* any other exception, or a ``ValueError`` naming no parameter -- **raw/deep**;
* a result although the value was of a type the parameter never takes (bool/str/None/complex as a
  number, a number as a choice, a string as a boolean, a wrong object) or was NaN -- **silent
  coercion**;
* a result holding NaN/inf from finite inputs (outside :data:`ALLOWED_NONFINITE`) -- **nan/inf**.

A second property gives two array parameters disagreeing shapes ``(2,)`` and ``(3,)``: the error
must name one of them.

A third, deterministic pass (:func:`test_fuzz_hostile_inputs`, issue 42) gives every parameter of every
public callable the values no parameter takes (:data:`HOSTILE_INVALID`: a ragged nesting, a 0-d object
array, ``10**400``, a timedelta, a datetime, a complex number, ``np.longdouble(1e4000)`` where the platform
holds it) and the edges of float (:data:`HOSTILE_EDGES`); it counts raw errors (anything but a
ValueError/TypeError naming the parameter), wrong-name errors (naming another parameter or a derived
quantity) and silent acceptances, and fails on any (``python tests/test_fuzz.py --hostile [module ...]``
lists them).

Every call is counted; pytest prints the total at the end (tests/conftest.py) (the number the issue's note
reports). Run ``python tests/test_fuzz.py [module ...]`` for a per-category report of any module,
e.g. ``python tests/test_fuzz.py vcperf.vmotion``. Adding a module is one line in :data:`MODULES`.
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import functools
import importlib
import inspect
import math
import os
import pkgutil
import re
import signal
import sys
import time
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

#: Modules whose public functions are fuzzed (packages include their submodules). Adding a study is
#: one line here (plus its baselines in :data:`STUDY_BASELINES`).
MODULES = (
    "vcperf.network",
    "vcperf.queueing",
    "vcperf.robo",
    "vcperf.contentlib",
    "vcperf.sweep",
    "vcperf.params",
    "vcperf.data",
    "vcperf.vmotion",
    "vcperf.vcha",
    "vcperf.ft",
    "vcperf.site",
    "vcperf.traffic",
)

#: Submodules and names that are the ledger's plumbing (paper numbers, fits), not model inputs.
#: ``readouts`` (vcperf.robo.readouts) is the ROBO panels' interval plumbing: called with the panels'
#: already validated inputs; the entry points it mirrors (robo.plan, robo.vcbench, protocol.with_interval)
#: are fuzzed where they are defined.
LEDGER_SUBMODULES = ("calibration", "validation", "targets", "readouts")
LEDGER_NAMES = frozenset({
    "calibrate", "predict", "targets", "testbed", "fidelity_rows", "leave_one_out", "parameter_table",
    "paper_vs_model", "loo_by_network", "network_table", "experiments_table", "paper_value",
    "testbed_powered_on_vms", "operation_names", "preset_names",
})

#: Examples per parameter (derandomized: the same values every run).
EXAMPLES_PER_PARAM = 40
FUZZ_SETTINGS = settings(max_examples=EXAMPLES_PER_PARAM, derandomize=True, deadline=None, database=None,
                         suppress_health_check=list(HealthCheck), print_blob=False)

CALLS = collections.Counter()  # function -> fuzzed calls


# --------------------------------------------------------------------------------------------
# Discovery
# --------------------------------------------------------------------------------------------


def _public_modules(root: str):
    mod = importlib.import_module(root)
    yield mod
    if hasattr(mod, "__path__"):
        for info in pkgutil.iter_modules(mod.__path__, root + "."):
            last = info.name.rsplit(".", 1)[-1]
            if last.startswith("_") or last in LEDGER_SUBMODULES:
                continue
            yield from _public_modules(info.name)


def _fuzzable(obj, modname: str) -> bool:
    if getattr(obj, "__module__", None) is None or not obj.__module__.startswith(modname.split(".")[0] + "."):
        return False
    if inspect.isfunction(obj) or inspect.isfunction(getattr(obj, "__wrapped__", None)):
        return True  # a function, or one wrapped in a cache (functools.lru_cache)
    # Input classes that promise validation; plain result/parameter containers are not entry points.
    return inspect.isclass(obj) and dataclasses.is_dataclass(obj) and "__post_init__" in vars(obj)


@functools.cache
def discover(modules: tuple = MODULES) -> tuple:
    """``(qualified name, callable)`` of every public function of ``modules``, each once."""
    found: dict[int, tuple] = {}
    for root in modules:
        for mod in _public_modules(root):
            names = getattr(mod, "__all__", None) or [n for n in vars(mod) if not n.startswith("_")]
            for name in names:
                obj = getattr(mod, name, None)
                if name in LEDGER_NAMES or name.startswith(("_", "checked_")) or not _fuzzable(obj, root):
                    continue
                if not inspect.isclass(obj) and obj.__module__ != mod.__name__ and name not in getattr(
                        mod, "__all__", ()):
                    continue  # imported helper, fuzzed where it is defined
                if f"{mod.__name__}.{name}" in NOT_ENTRY_POINTS:
                    continue
                found.setdefault(id(obj), (f"{mod.__name__}.{name}", obj))
    return tuple(sorted(found.values()))


# --------------------------------------------------------------------------------------------
# Valid baselines
# --------------------------------------------------------------------------------------------


@functools.cache
def _robo():
    from vcperf import robo

    return robo, robo.calibrate(), robo.testbed()


def _link():
    from vcperf import robo

    return robo.preset("satellite")


def _by_type():
    robo, p, tb = _robo()
    from vcperf import contentlib

    return {
        "Link": _link, "network.Link": _link,
        "HostSyncParams": lambda: p.hostsync, "StatsParams": lambda: p.stats, "OpsParams": lambda: p.ops,
        "AddHostParams": lambda: p.addhost, "operations.OpsParams": lambda: p.ops,
        "StatsSchedule": lambda: tb.schedule, "CounterModel": lambda: tb.counters,
        "HostCall": lambda: robo.HostCall("Call"), "VcbenchResult": lambda: robo.vcbench(_link()),
        "HostSyncTraffic": lambda: robo.host_sync_traffic(24),
        "contentlib.Params": lambda: contentlib.calibrate(),
        "dict[str, network.Link]": lambda: {"satellite": robo.preset("satellite")},
    }


#: Valid value of a required parameter, by name (physical, mid-range).
BASELINE_BY_NAME = {
    "size_bytes": 1e6, "payload_bytes": 1e6, "request_bytes": 2e3, "response_bytes": 4e3, "item_bytes": 1e8,
    "message_bytes": 4e3, "template_bytes": 1e9, "bandwidth_bps": 1e7, "offered_bps": 1e6, "capacity_bps": 1e7,
    "line_rate_bps": 1e9, "payload_bps": 9e8,
    "up_free_bps": 1e6, "rtt_s": 0.05, "loss": 1e-3, "round_trips": 3.0, "segments": 10.0,
    "demands_s": [0.1, 0.2, 0.05], "n_customers": 5, "populations": [2, 3],
    "arrival_rate_per_s": 1.0, "service_rate_per_s": 2.0, "mean_service_s": 0.5, "service_scv": 1.0,
    "job_s": 1.0, "utilization": 0.5, "n_flows": 2.0, "powered_on_vms": 24.0, "registered_vms": 30.0,
    "n_hosts": 10.0, "level": 1, "operation": "clone_vm", "target_s": 100.0, "round_trips_per_call": 2.0,
    "bytes_per_change": 200.0, "vm_state_bytes_": 1e4, "change_period_s": 20.0, "background_bps": 1e4,
    "path": "host_to_host", "layout": "different_hosts", "n_deployments": 4, "name": "satellite",
    "clients": 8, "max_clients": 8, "vcenter_vcpus": 16, "n_flows_": 2.0,
    "sample_interval_s": 300.0, "upload_interval_s": 1800.0, "stagger_interval_s": 300.0,
    "down_bps": 1e7, "up_bps": 1e6,
    "bytes_per_sample": 150.0, "vcenter_demand_per_step_s": 0.2, "local_s": 14.0, "round_trips_per_object": 26.0,
    "line_bps": 1e9, "sizes_bytes": [1e6, 2e6], "memory_bytes": 4e9,
    "targets": {"operation_latency": 30.0}, "vmotion_bps": 10e9, "quantity": "operation_latency",
}


def _by_name_objects():
    robo, p, tb = _robo()
    return {
        "link": _link, "stages": lambda: robo.operation_calls("clone_vm"),
        "stage": lambda: robo.operation_calls("clone_vm")[1], "mix": lambda: tb.mix,
        "call": lambda: robo.HostCall("Call"), "hostsync": lambda: p.hostsync, "stats": lambda: p.stats,
        "ops": lambda: p.ops, "schedule": lambda: tb.schedule, "counters": lambda: tb.counters,
        "evaluate": lambda: (lambda down, up: 1e6 / np.asarray(down)),
        "result": lambda: robo.vcbench(_link()), "background": lambda: robo.host_sync_traffic(24),
        "messages": lambda: ("ReserveName request", "Get-Changes"),
        "load": lambda: robo.plan("t1", 10, transfers_bytes=[1e8]),
    }


#: A small valid sweep grid (3 points) of a vectorised model.
SWEEP_MODEL = "vcperf.network.transfer_time_s"
SWEEP_SPEC = {"parameters": {"size_bytes": [1e6, 2e6, 4e6], "bandwidth_bps": [1e7], "rtt_s": [0.05]}}
#: A notebook with a parameters cell, and a valid override of one of its parameters.
NOTEBOOK = "notebooks/robo_networks.py"
NOTEBOOK_OVERRIDES = {"whatif_payload_bytes": 1e6}
#: A paper number selected by its quantity alone (no condition columns needed).
DATA_TABLE, DATA_QUANTITY = "vcha2016/text_private_network", "max_supported_vcha_network_latency"


def _repo_path(rel: str):
    from pathlib import Path

    return Path(__file__).resolve().parents[1] / rel


@functools.cache
def _grid_file():
    """A valid grid YAML file (written once per process to a temporary directory)."""
    import tempfile
    from pathlib import Path

    import yaml

    path = Path(tempfile.mkdtemp(prefix="vcperf-fuzz-")) / "grid.yaml"
    path.write_text(yaml.safe_dump(SWEEP_SPEC))
    return path


def _grid():
    from vcperf import sweep

    return sweep.parse_grid(SWEEP_SPEC, SWEEP_MODEL)


def _lazy_overrides(qualname: str) -> dict:
    """Baselines that are objects built on demand (a Grid, a file path)."""
    from vcperf import params

    nb = _repo_path(NOTEBOOK)
    table = {
        "vcperf.sweep.load_grid": {"path": _grid_file},
        "vcperf.sweep.design_points": {"grid": _grid},
        "vcperf.sweep.evaluate": {"points": _grid},
        "vcperf.sweep.iter_evaluate": {"points": _grid},
        "vcperf.params.read_notebook": {"path": lambda: nb},
        "vcperf.params.parameters_cell": {"path": lambda: nb},
        "vcperf.params.read_parameters": {"path": lambda: nb},
        "vcperf.params.check_overrides": {"path": lambda: nb, "overrides": lambda: dict(NOTEBOOK_OVERRIDES)},
        "vcperf.params.check_notebook_parameters": {
            "namespace": lambda: {n: p.default for n, p in params.read_parameters(nb).items()}, "notebook": lambda: nb},
        "vcperf.site.load": {"path": _site_plan_file},
        "vcperf.site.plan.load": {"path": _site_plan_file},
        "vcperf.site.from_dict": {"plan": lambda: dict(SITE_PLAN)},
        "vcperf.site.plan.from_dict": {"plan": lambda: dict(SITE_PLAN)},
        "vcperf.site.quantities.choice": {"value": lambda: "a"},
    }
    return {k: f() for k, f in table.get(qualname, {}).items()}


#: Per-function valid values where the name alone is not enough.
BASELINE_OVERRIDES = {
    "vcperf.sweep.resolve_model": {"model": SWEEP_MODEL},
    "vcperf.sweep.parse_grid": {"spec": SWEEP_SPEC, "model": SWEEP_MODEL},
    "vcperf.sweep.evaluate": {"model": SWEEP_MODEL, "chunk_size": 2},
    "vcperf.sweep.iter_evaluate": {"model": SWEEP_MODEL, "chunk_size": 2},
    "vcperf.params.parse_assignment": {"text": "rtt_s=0.1"},
    "vcperf.data.expected_dimensions": {"quantity": "failover_time"},
    "vcperf.data.printed_number": {"printed": "2,696"},
    "vcperf.data.printed_quantities": {"printed": "52-89 ms (ATT 4G)"},
    "vcperf.data.to_si": {"value": 1.5, "unit": "ms"},
    "vcperf.data.load": {"name": DATA_TABLE},
    "vcperf.data.value": {"name": DATA_TABLE, "quantity": DATA_QUANTITY},
    "vcperf.data.row": {"name": DATA_TABLE, "quantity": DATA_QUANTITY},
    "vcperf.robo.branch.concurrent_uploads": {"payload_bytes": 1e6},
    "vcperf.network.Link": {"name": "x"},
    **{f"vcperf.{m}.Flag": {"kind": "limit", "message": "limit: x", "source": "s"} for m in ("site", "traffic")},
    **{f"vcperf.{m}.Flow": {"name": "f", "workload": "w", "link": "wan", "direction": "down", "demand_bps": 1e6,
                            "kind": "paced"} for m in ("site", "traffic")},
    "vcperf.traffic.Flag.from_text": {"text": "unsupported: x", "source": "s"},
    "vcperf.traffic.as_flags": {"flags": ("extrapolated: x",), "source": "s"},
    "vcperf.traffic.direction_load": {"link": "wan", "direction": "down", "capacity_bps": 1e7, "flows": [],
                                      "rtt_s": 0.08, "queue": "fifo", "buffer_bytes": None},
    "vcperf.traffic.water_fill": {"capacity_bps": 1e7, "demands": [1e6, 2e6]},
    "vcperf.traffic.standing_queue_s": {"capacity_bps": 1e7, "rtt_s": 0.08, "queue": "fifo", "buffer_bytes": None,
                                        "filled": True},
    "vcperf.traffic.elastic_time_s": {"size_bytes": 1e6, "wire_rate_bps": 1e7, "rtt_s": 0.08, "loss": 0.001},
    "vcperf.traffic.elastic_wire_rate_bps": {"line_rate_bps": 1e7, "rtt_s": 0.08, "loss": 0.001},
    "vcperf.robo.operations.HostCall": {"name": "x"},
    "vcperf.robo.operations.get_changes": {"name": "Get-Changes"},
    "vcperf.robo.host_operation_time_s": {"operation": "add_host"},
    "vcperf.contentlib.Params": {"array_copy_rate_bytes_per_s": 2e8, "nfc_efficiency": 0.5, "compression_gain": 1.0,
                                 "decompression_rate_bytes_per_s": 6e7},
}


# --------------------------------------------------------------------------------------------
# Phase 2: the study packages vmotion, vcha, ft (a parameter name such as vcpus, name or params
# means a different thing in each study, so their baselines are looked up per package first).
# --------------------------------------------------------------------------------------------


class _Lazy:
    """A baseline built on first use (a calibration, a model result), cached."""

    def __init__(self, make):
        self.make = functools.cache(make)

    def __call__(self):
        return self.make()


def _vmotion():
    from vcperf import vmotion

    return vmotion


def _vcha_params():
    from vcperf import vcha

    return vcha.calibrate()


def _vcha_field_baselines() -> dict:
    """Every field of the VCHA parameter sets (validated in ``__post_init__``): its calibrated value."""
    from vcperf.vcha import params as vp

    parts = (("vcbench", vp.VcbenchParams), ("wal", vp.WalParams), ("enable", vp.EnableParams),
             ("failover", vp.FailoverParams), ("disk", vp.DiskParams), ("memory", vp.MemoryParams))
    return {f.name: _Lazy(lambda sub=sub, name=f.name: getattr(getattr(_vcha_params(), sub), name))
            for sub, cls in parts for f in dataclasses.fields(cls)}


def _vm_precopy():
    vm = _vmotion()
    return vm.precopy(64 * 2**30, 1e8, 40e9, 25 * 2**30, 12, "7.0u1", params=vm.calibrate(),
                      settings=vm.settings())


#: A small site plan (one link, one branch, one target): the planner's baseline.
SITE_PLAN = {"name": "fuzz", "links": [{"name": "wan", "bandwidth": 10e6, "rtt": 0.08}],
             "branches": [{"name": "shop", "link": "wan", "hosts": 4}], "targets": {"statistics_delay_s": 60.0}}


def _site_plan():
    from vcperf import site

    return site.from_dict(SITE_PLAN)


@functools.cache
def _site_plan_file():
    """The baseline plan as a YAML file (written once per process to a temporary directory)."""
    import tempfile
    from pathlib import Path

    import yaml

    path = Path(tempfile.mkdtemp(prefix="vcperf-fuzz-")) / "site.yaml"
    path.write_text(yaml.safe_dump(SITE_PLAN))
    return path


def _contentlib():
    from vcperf import contentlib

    return contentlib


def _contentlib_output(p):
    from vcperf import contentlib

    return contentlib.deploy_time_s("streaming", 39e9, params=p)


#: Per study package: valid values by parameter name or by annotation (``_Lazy`` = built on use).
STUDY_BASELINES = {
    # the Content Library's model files take its Params explicitly (its facade, contentlib.study, defaults them)
    "vcperf.contentlib": {"type": {"Params": _Lazy(lambda: _contentlib().calibrate())}, "name": {}},
    "vcperf.site": {
        "type": {"Plan": _Lazy(_site_plan)},
        "name": {
            "plan": _Lazy(_site_plan), "link": "wan", "path": "links[0].bandwidth", "value": "10 Mbit/s",
            "kind": "rate", "lo": 0.0, "hi": 1e12, "choices": ("a", "b"), "capacity_bps": 1e7,
            "demands": [1e6, 2e6], "direction": "down", "flows": [], "study": "contentlib2015",
            "fn": _contentlib_output,
        },
    },
    "vcperf.vmotion": {
        "type": {
            "Params": _Lazy(lambda: _vmotion().calibrate()), "Settings": _Lazy(lambda: _vmotion().settings()),
            "TpcxSetup": _Lazy(lambda: _vmotion().tpcx_setup()), "PrecopyResult": _Lazy(_vm_precopy),
            "Migration": _Lazy(lambda: _vmotion().migrate_workload("typical", "7.0u1")),
            "TpcxParams": _Lazy(lambda: _vmotion().calibrate().tpcx),
        },
        "name": {
            "n_vms": 8, "concurrent": 2, "migration_time_s_at": lambda j: 10.0 * np.asarray(j, dtype=float),
            "target_downtime_s": 1.0, "memory_bytes": 64.0 * 2**30, "mem": 64.0 * 2**30, "vcpus": 12,
            "working_set_bytes": 25.0 * 2**30, "baseline_tps": 4500.0, "release": "7.0u1", "link_bps": 40e9,
            "metadata_bytes": 1e6, "name": "typical", "dirty_rate_bytes_per_s": 1e8, "utilization": 0.5,
            "peak_utilization": 0.5, "remaining_bytes": 1e8, "precopy_time_s": 10.0, "rate": 1e9,
            "sample_s": 1.0, "start_s": 5.0, "end_s": 60.0, "transfer_rate_bytes_per_s": 1e9,
            "value": 64.0, "unit": "GB", "bound": 2.0,
            "pc": _Lazy(_vm_precopy), "p": _Lazy(lambda: _vmotion().calibrate()),
            "params": _Lazy(lambda: _vmotion().calibrate()), "s": _Lazy(lambda: _vmotion().settings()),
            "settings": _Lazy(lambda: _vmotion().settings()), "setup": _Lazy(lambda: _vmotion().tpcx_setup()),
            "m": _Lazy(lambda: _vmotion().migrate_workload("typical", "7.0u1")),
            # the fields of Params and TpcxParams (about their calibrated values)
            "vcpu_stop_cost_s": 2e-5, "trace_install_cost_s_per_page": 1.3e-7, "trace_fire_cost_s": 1.6e-6,
            "dirty_bytes_per_transaction": 1e6, "zero_bytes": 0.0,
            "metadata_cost_s_per_entry": 1e-8, "checkpoint_time_s": 0.1, "trace_pages_per_install_phase": 7e3,
            "zeroing_cpu_s_per_byte": 5e-11, "peak_vm_utilization": 0.5, "dirty_scale": 0.4,
        },
    },
    "vcperf.vcha": {
        "type": {
            "EnableParams": _Lazy(lambda: _vcha_params().enable), "DiskParams": _Lazy(lambda: _vcha_params().disk),
            "WalParams": _Lazy(lambda: _vcha_params().wal), "MemoryParams": _Lazy(lambda: _vcha_params().memory),
            "VcbenchParams": _Lazy(lambda: _vcha_params().vcbench),
            "FailoverParams": _Lazy(lambda: _vcha_params().failover),
        },
        "name": {
            **_vcha_field_baselines(),
            "size": "small", "registered_vms": 1440.0, "commit_bytes": 1e4, "bandwidth_bps": 1e10, "rtt_s": 2e-4,
            "throughput_per_s": 20.0, "node": "active", "wal_flushes_per_s": 10.0, "vcpus": 16, "clients": 64,
            "hosts": 2000.0, "powered_on_vms": 25000.0, "wal_bytes_per_op": 1e4, "flush_wait_s": 1e-3,
            "active_flushes_per_s": 1500.0, "cycle_s": 5e-4, "wal_bytes_per_cycle": 8e3,
            "p": _Lazy(lambda: _vcha_params().vcbench), "params": _Lazy(_vcha_params),
            "params_list": _Lazy(lambda: [_vcha_params()]),
        },
    },
    "vcperf.ft": {
        "type": {},
        "name": {
            "name": "swingbench", "workload": "swingbench_oracle11g", "direction": "receive", "ft_enabled": True,
            "uplink_bps": 1e9, "streams": 8.0, "socket_bytes": 4e6, "checkpoint_interval_s": 0.005,
            "dirty_rate_bytes_per_s": 1e8, "exchanges": 10.0, "duration_off_s": 10.0, "vcpus": 4, "n_clients": 8,
            "think_time_s": 0.1, "cpu_demand_s": 0.01, "exchanges_per_op": 2.0, "cpu_utilization": 0.5,
            "message_bytes": 64e3, "lun_disks": 6.0, "cpu_work_s": 600.0, "dirty_bytes": 6e9, "rate_per_s": 3.0,
            "cpu_s": 0.5, "host_s": 1.0, "distance_m": 1e4, "receive_rate_bps": 1e9, "detection_s": 1.0,
            "latency_ratio": 2.0, "throughput_per_s": 100.0, "dirty_bytes_per_op": 1e5,
            "background_dirty_rate_bytes_per_s": 1e6, "disk_bytes": 1e10, "memory_bytes": 4e9,
            "exchange_rate_per_s": 48.0, "cpu_demand_per_op_s": 1.0, "load_a_per_s": 0.45, "load_b_per_s": 3.3,
            "browse_off_s": 1.1, "external_delay_s": 0.05, "ft_link_bps": 10e9, "n_ft_vms": 1.0,
        },
    },
}
BASELINE_OVERRIDES.update({
    "vcperf.vmotion.core.check_le": {"name": "memory_bytes", "value": 1.0, "bound": 2.0},
    "vcperf.vmotion.contention_from_rates": {"one_stream_bps": 18e9, "two_streams_bps": 28e9},
    "vcperf.vmotion.nic_stream_factor": {"streams_per_nic": 2.0},
    "vcperf.ft.workload_vcpus": {"workload": "swingbench_oracle11g"},
    "vcperf.ft.interval_from_latency_ratio": {"latency_ratio": 3.0},
    "vcperf.ft.Params": {"checkpoint_interval_s": 0.005, "vcenter_dirty_rate_bytes_per_s": 2.4e8,
                         "vcenter_exchange_rate_per_s": 49.0, "kernel_compile_dirty_bytes": 6.4e9},
    # **kw passed on to vcbench, which needs the appliance (required keyword arguments there)
    # documented "float or array_like": a linear model of the client count (no population solved)
    "vcperf.vcha.memory.peak_memory_bytes": {"clients": 64.0},
    "vcperf.vcha.vcbench_curve": {"max_clients": 64, "vcpus": 16.0, "hosts": 2000.0, "powered_on_vms": 25000.0},
    # one demand / dirty rate per VM sharing the FT logging link (the last axis: the flows)
    "vcperf.ft.max_min_shares_bps": {"demands_bps": [1e9, 2e9, 5e9], "capacity_bps": 4e9},
    "vcperf.ft.share_ft_link": {"dirty_rates_bytes_per_s": [1e8, 1e7, 0.0], "checkpoint_interval_s": 0.005},
    "vcperf.vcha.background_wal_bytes_per_s": {"hosts": 2000.0, "powered_on_vms": 25000.0},
    "vcperf.vcha.extrapolation.off_testbed_spread": {"clients": 64, "vcpus": 16.0, "hosts": 1024.0,
                                                     "powered_on_vms": 10240.0},
    "vcperf.vcha.limits.pool_provenance": {"db_connections": 50.0},
    "vcperf.vcha.replication_wakeup_s": {"throughput_per_s": 100.0, "fitted_flush_s": 1.1e-3},
    "vcperf.vcha.passive_commit_flush_s": {"storage_s": 5e-4, "throughput_per_s": 100.0, "fitted_flush_s": 1.1e-3},
    "vcperf.vcha.extrapolation.widen_band": {"value": 100.0, "low": 90.0, "high": 110.0, "spread": 0.2},
})

#: Examples per parameter for functions whose one call is slow (a Monte Carlo, a bisection over
#: whole migrations): a fixed, smaller count keeps the run deterministic and bounded. Functions not
#: listed get :data:`EXAMPLES_PER_PARAM`.
EXAMPLES_BY_FUNCTION = {}


def _study_tables(qualname: str) -> tuple[dict, dict]:
    for prefix, tables in STUDY_BASELINES.items():
        if qualname == prefix or qualname.startswith(prefix + "."):
            return tables["type"], tables["name"]
    return {}, {}


def _resolve(value):
    return value() if isinstance(value, _Lazy) else value


def _annotation(param: inspect.Parameter) -> str:
    a = param.annotation
    return a if isinstance(a, str) else getattr(a, "__name__", "")


def baseline(qualname: str, func) -> dict:
    """Valid keyword arguments for every parameter of ``func`` (defaults kept)."""
    out = {}
    by_type, by_name = _by_type(), _by_name_objects()
    overrides = {**BASELINE_OVERRIDES.get(qualname, {}), **_lazy_overrides(qualname)}
    study_type, study_name = _study_tables(qualname)
    for name, param in inspect.signature(func).parameters.items():
        if param.kind in (param.VAR_KEYWORD, param.VAR_POSITIONAL):
            continue
        ann = _annotation(param)
        if name in overrides:
            out[name] = overrides[name]
        elif param.default is not inspect.Parameter.empty:
            out[name] = param.default
        elif ann in study_type:
            out[name] = _resolve(study_type[ann])
        elif name in study_name:
            out[name] = _resolve(study_name[name])
        elif ann in by_type:
            out[name] = by_type[ann]()
        elif name in by_name:
            out[name] = by_name[name]()
        elif name in BASELINE_BY_NAME:
            out[name] = BASELINE_BY_NAME[name]
        else:
            raise LookupError(f"no valid baseline for {qualname}({name}): add one to tests/test_fuzz.py")
    if _takes_kwargs(func):  # overrides for keywords the function passes on through **kw
        out.update({k: v for k, v in overrides.items() if k not in out})
    return out


def _takes_kwargs(func) -> bool:
    return any(p.kind == p.VAR_KEYWORD for p in inspect.signature(func).parameters.values())


def call(func, kwargs: dict):
    sig = inspect.signature(func)
    args, kw = [], {}
    for name, param in sig.parameters.items():
        if name not in kwargs:
            continue
        if param.kind == param.POSITIONAL_ONLY:
            args.append(kwargs[name])
        else:
            kw[name] = kwargs[name]
    if _takes_kwargs(func):
        kw.update({k: v for k, v in kwargs.items() if k not in sig.parameters})
    with warnings.catch_warnings(), np.errstate(all="ignore"), _time_limit(CALL_TIME_LIMIT_S), _memory_limit(
            CALL_MEMORY_LIMIT_BYTES):
        warnings.simplefilter("ignore")
        return func(*args, **kw)


class CallTimeout(Exception):
    """A fuzzed call ran longer than :data:`CALL_TIME_LIMIT_S` (a hang or a resource blow-up)."""


#: A fuzzed call taking longer than this is a finding (an unbounded loop or allocation), not a wait.
#: Every valid baseline call takes well under 0.5 s; the slowest valid call drawn, an MVA at
#: ``queueing.MAX_MVA_CUSTOMERS`` (1 million clients), takes ~2 s, 4 s on a loaded machine, so the
#: limit sits well above it (at 10 million clients, the old limit, it took 5 to 37 s).
CALL_TIME_LIMIT_S = float(os.environ.get("VCPERF_FUZZ_CALL_LIMIT_S", "15"))


#: Address space a fuzzed call may add (an allocation beyond it is a MemoryError, i.e. a raw/deep
#: finding, instead of the kernel's OOM killer ending the whole run).
CALL_MEMORY_LIMIT_BYTES = int(float(os.environ.get("VCPERF_FUZZ_CALL_MEMORY_BYTES", 2 * 2**30)))


def _vm_size_bytes() -> int | None:
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except OSError:  # pragma: no cover - not Linux
        return None
    return None


@contextlib.contextmanager
def _memory_limit(extra_bytes: int):
    try:
        import resource
    except ImportError:  # pragma: no cover - Windows: no limit
        yield
        return
    used = _vm_size_bytes()
    if used is None:  # pragma: no cover
        yield
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = used + extra_bytes
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


@contextlib.contextmanager
def _time_limit(seconds: float):
    if not hasattr(signal, "setitimer"):  # pragma: no cover - Windows: no limit
        yield
        return

    def expire(signum, frame):
        raise CallTimeout(f"call took longer than {seconds:g} s")

    old = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


# --------------------------------------------------------------------------------------------
# Kinds of parameters and the values drawn for them
# --------------------------------------------------------------------------------------------


def kind_of(value) -> str:
    if value is None:
        return "none"
    if isinstance(value, (bool, np.bool_)):
        return "bool"
    if isinstance(value, str):
        return "str"
    if isinstance(value, (int, np.integer)):
        return "int"
    if isinstance(value, (float, np.floating)) or (isinstance(value, (list, tuple, np.ndarray)) and np.asarray(
            value).dtype.kind in "iuf" and len(value) > 0 and not isinstance(np.asarray(value).flat[0], bool)):
        return "real"
    if callable(value) and not isinstance(value, type) and not dataclasses.is_dataclass(value):
        return "callable"
    return "object"


class _Opaque:
    def __repr__(self):
        return "<opaque object>"


BAD_TYPES = (True, False, "1", "no", "", None, 1j, _Opaque(), np.array(["a"]), [1, "a"], np.array([None]),
             {"a": 1}, b"1", np.bool_(True), np.array([True, False]))
SPECIAL_NUMBERS = (math.nan, math.inf, -math.inf, -1.0, -1e300, 0.0, -0.0, 5e-324, 1e-300, 1e300, 1e18, 0.5, 1, 2,
                   3, 10**9, 10**20, -(10**9), 1.5, 2.5, np.float64(1.0), np.int64(7), 1e6)


def _arrays(base):
    b = float(np.asarray(base, dtype=float).ravel()[0]) if np.size(base) else 1.0
    return st.sampled_from([np.full(3, b), np.full((2, 3), b), np.array([]), np.array([b, math.nan]),
                            np.array([b, -1.0]), [b, b], np.full((3, 1), b), np.array([b, math.inf])])


def strategy(kind: str, base):
    common = st.sampled_from(BAD_TYPES) | st.sampled_from(SPECIAL_NUMBERS)
    if kind in ("real", "int"):
        return (common | st.floats(allow_nan=True, allow_infinity=True) | st.integers(-10**6, 10**13)
                | _arrays(base))
    if kind == "str":
        return common | st.text(max_size=8) | st.just([base]) | st.just(np.array([base])) | st.just(base.upper())
    return common | st.just(np.array([1.0, 2.0])) | st.just(_link()) | st.just("satellite") | st.just(())


# --------------------------------------------------------------------------------------------
# Outcome classification
# --------------------------------------------------------------------------------------------

#: Results that may be non-finite from finite inputs, with the documented reason.
ALLOWED_NONFINITE = {
    "vcperf.site.schema.fields": "a field's open range ends at inf (the plan format's description, not a model)",
    "vcperf.queueing.ps_response_time_s": "inf at utilization >= 1 with the default backlog_s = inf (no cap)",
    "vcperf.network.utilization": "offered / bandwidth of a subnormal bandwidth is inf",
    "vcperf.robo.required_bandwidth_bps": "inf when no rate meets the target (documented)",
    "vcperf.robo.branch.required_bandwidth_bps": "inf when no rate meets the target (documented)",
    "vcperf.robo.branch.branch_load": "inf delays when the flows overload the link (documented: never a floor)",
    "vcperf.robo.plan": "inf delays when the flows overload the link (documented: overload, never a floor)",
    "vcperf.robo.quantity_s": "inf when the flows overload the link (documented)",
    "vcperf.robo.smallest_link_bps": "inf when no rate meets the targets (documented)",
    "vcperf.robo.largest_rtt_s": "-inf when even RTT 0 misses the targets (documented)",
    "vcperf.network.shared_transfer_times_s": "inf when other traffic leaves no capacity (documented: overload)",
    "vcperf.network.bulk_transfer_time_s": "inf when other traffic leaves no capacity (documented: overload)",
    "vcperf.contentlib.deploy_time_s": "inf when other traffic leaves a hop no capacity (documented)",
    "vcperf.contentlib.subscription_sync_time_s": "inf when other traffic leaves the link no capacity (documented)",
    "vcperf.contentlib.recommend_path": "times_s holds NaN for the paths the layout does not offer",
    # the Content Library's model files behind its facade (vcperf.contentlib.study): the same documented values
    "vcperf.contentlib.paths.deploy_time_s": "inf when other traffic leaves a hop no capacity (documented)",
    "vcperf.contentlib.layouts.recommend_path": "times_s holds NaN for the paths the layout does not offer",
    "vcperf.vmotion.link_for_downtime_bps": "nan when even hi_bps does not meet the target (documented)",
    "vcperf.vmotion.link_for_downtime": "link_bps nan when even hi_bps does not meet the target (documented, with "
                                        "the named bottleneck)",
    "vcperf.site.evaluate": "an answer without a target has target NaN; without intervals low/high are NaN",
    "vcperf.site.smallest_bandwidth": "inf when no rate meets every target (documented); its evaluation's NaN targets",
    "vcperf.site.largest_rtt": "nan when even an RTT of 0 misses a target (documented); its evaluation's NaN targets",
    "vcperf.site.most_hosts": "its evaluation's NaN targets (answers without a target)",
}

#: Study-local validation helpers: they raise on behalf of their caller, naming the caller's
#: parameter (``check_le("working_set_bytes", ws, memory_bytes)``), so their own argument names never
#: appear in the message by design. Their callers are fuzzed.
#: ``params.did_you_mean`` is a hint appended while raising another error (any key a user typed, of
#: any type): it never raises itself, so that it cannot mask the error it decorates.
#: A ``checked_*`` function is the core of a public one on values its caller has checked (shared between
#: the modules of a study, so not private); it is fuzzed through the public function that checks them.
NOT_ENTRY_POINTS = frozenset({"vcperf.vmotion.core.check_le", "vcperf.network.check_link",
                              "vcperf.params.did_you_mean",
                              # the calibration default of a study's model functions (plumbing, not a model input)
                              "vcperf.contentlib.paths.resolved_params", "vcperf.robo.study.calibrated_params",
                              "vcperf.robo.study.given_or_default"})


def _floats(obj, depth=0):
    if depth > 4:
        return
    if isinstance(obj, (bool, np.bool_, str)) or obj is None:
        return
    if isinstance(obj, (int, float, np.number)):
        yield float(obj)
    elif isinstance(obj, np.ndarray):
        if obj.dtype.kind in "fc":
            yield from obj.ravel().astype(float)[:10_000]
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        for f in dataclasses.fields(obj):
            if not f.name.startswith("_"):
                yield from _floats(getattr(obj, f.name), depth + 1)
    elif isinstance(obj, dict):
        for x in obj.values():
            yield from _floats(x, depth + 1)
    elif isinstance(obj, (tuple, list)):
        for x in obj[:1000]:
            yield from _floats(x, depth + 1)


def _names(message: str, name: str) -> bool:
    return re.search(rf"(?<![\w.]){re.escape(name.rstrip('_'))}_?(?!\w)", message) is not None


def _contains_nonfinite_input(value) -> bool:
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        return False
    return bool(np.any(~np.isfinite(arr)))


#: Parameters documented as real numbers although their default is an int (module, name).
REAL_DESPITE_INT_DEFAULT = {
    ("vcperf.contentlib", "vcenter_vcpus"): "real", ("vcperf.contentlib", "decompression_streams"): "real",
}

#: Object parameters that also take a name (a preset) as a string.
TAKES_A_NAME = {("vcperf.robo.plan", "link"), ("vcperf.robo.branch_link", "link"),
                ("vcperf.robo.largest_rtt_s", "link"), ("vcperf.robo.most_hosts", "link")}


def _never_valid(kind: str, value, default, base=None) -> bool:
    """True if ``value`` is of a type a ``kind`` parameter never takes."""
    if value is None:
        return default is not None
    if kind in ("real", "int"):
        if isinstance(value, (bool, np.bool_, str, bytes, complex, dict, _Opaque)):
            return True
        try:
            arr = np.asarray(value)
        except (TypeError, ValueError):
            return True
        if arr.dtype.kind not in "iuf":
            return True
        if kind == "int" and not isinstance(value, (list, tuple, np.ndarray)):
            return not float(value).is_integer() if math.isfinite(float(value)) else True
        return bool(np.any(np.isnan(arr)))
    if kind == "str":
        return not isinstance(value, str)
    if kind == "bool":
        return not isinstance(value, (bool, np.bool_)) and not (isinstance(value, int) and value in (0, 1))
    if kind == "object":
        if isinstance(base, (tuple, list)) and isinstance(value, np.ndarray) and value.dtype.kind == "U":
            return False  # a sequence of names as an array of str
        return isinstance(value, (bool, np.bool_, int, float, complex, bytes, _Opaque, np.ndarray)) or (
            isinstance(value, str) and not isinstance(default, str))
    return False


def classify(qualname: str, func, kwargs: dict, fuzzed: dict, default=None, kinds=None, base=None):
    """``None`` if the call behaved as promised, else ``(category, detail)``."""
    CALLS[qualname] += 1
    try:
        result = call(func, kwargs)
    except ValueError as exc:
        msg = str(exc)
        if any(_names(msg, p) for p in fuzzed):
            return None
        others = [p for p in kwargs if p not in fuzzed and _names(msg, p)]
        lead = re.match(r"(\w+) must", msg)
        others += [lead.group(1)] if lead and lead.group(1) not in fuzzed else []
        cat = "wrong-parameter" if others else "raw/deep"
        return cat, f"{type(exc).__name__}: {msg[:160]}"
    except MemoryError:
        return "raw/deep", "MemoryError"
    except Exception as exc:  # noqa: BLE001 - every other type is a finding
        return "raw/deep", f"{type(exc).__name__}: {str(exc)[:160]}"
    for p, value in fuzzed.items():
        if (qualname, p) in TAKES_A_NAME and isinstance(value, str):
            continue
        if kinds and _never_valid(kinds[p], value, default, (base or {}).get(p)):
            return "silent-coercion", f"{p}={value!r} accepted"
    if any(_contains_nonfinite_input(x) for x in fuzzed.values()) or qualname in ALLOWED_NONFINITE:
        return None
    if any(not math.isfinite(x) for x in _floats(result)):
        return "nan/inf", "non-finite value in the result"
    return None


# --------------------------------------------------------------------------------------------
# The properties
# --------------------------------------------------------------------------------------------


def _cases(modules=MODULES):
    for qualname, func in discover(modules):
        try:
            base = baseline(qualname, func)
        except LookupError:
            continue
        for name in base:
            yield qualname, name


def _fuzz_parameter(qualname: str, param: str, modules=MODULES) -> list:
    func = dict(discover(modules))[qualname]
    base = baseline(qualname, func)
    kinds = {p: REAL_DESPITE_INT_DEFAULT.get((qualname.rsplit(".", 1)[0], p), kind_of(x)) for p, x in base.items()}
    sig_param = inspect.signature(func).parameters.get(param)
    sig_default = inspect.Parameter.empty if sig_param is None else sig_param.default
    default = None if sig_default is inspect.Parameter.empty else sig_default
    findings = []

    examples = EXAMPLES_BY_FUNCTION.get(qualname, EXAMPLES_PER_PARAM)

    @settings(FUZZ_SETTINGS, max_examples=examples)
    @given(value=strategy(kinds[param], base[param]))
    def run(value):
        out = classify(qualname, func, {**base, param: value}, {param: value}, default, kinds, base)
        if out is not None:
            findings.append((out[0], f"{qualname}({param}={value!r}): {out[1]}"))

    run()
    return findings


def _array_params(qualname: str, func, base: dict) -> list:
    out = []
    for name, value in base.items():
        if kind_of(value) != "real" or np.ndim(value) > 0:
            continue
        try:
            call(func, {**base, name: np.full(3, value, dtype=float)})
        except Exception:  # noqa: BLE001 - scalar-only parameter
            continue
        out.append(name)
    return out


def _fuzz_shapes(qualname: str, modules=MODULES) -> list:
    func = dict(discover(modules))[qualname]
    base = baseline(qualname, func)
    arrays = _array_params(qualname, func, base)
    findings = []
    for a, b in zip(arrays, arrays[1:], strict=False):
        kw = {**base, a: np.full(2, base[a], dtype=float), b: np.full(3, base[b], dtype=float)}
        out = classify(qualname, func, kw, {a: kw[a], b: kw[b]})
        if out is not None:
            findings.append((out[0], f"{qualname}({a}: shape (2,), {b}: shape (3,)): {out[1]}"))
    return findings


def _report(findings: list) -> str:
    by = collections.Counter(c for c, _ in findings)
    lines = [f"{len(findings)} findings: {dict(by)}"] + [f"  [{c}] {d}" for c, d in findings[:40]]
    return "\n".join(lines)


def test_every_function_has_a_valid_baseline():
    """Every discovered function has valid baseline arguments, and the baseline call is finite."""
    problems = []
    for qualname, func in discover():
        try:
            base = baseline(qualname, func)
            result = call(func, base)
        except Exception as exc:  # noqa: BLE001
            problems.append(f"{qualname}: {type(exc).__name__}: {exc}")
            continue
        if qualname not in ALLOWED_NONFINITE and any(not math.isfinite(x) for x in _floats(result)):
            problems.append(f"{qualname}: non-finite result from the baseline")
    assert not problems, "\n".join(problems)
    assert len(discover()) >= 150  # the introspection finds the public API (not a silently empty list)
    per_package = collections.Counter(q.split(".")[1] for q, _ in discover())
    for study, at_least in (("vmotion", 25), ("vcha", 15), ("ft", 30)):
        assert per_package[study] >= at_least, (study, per_package[study])


@pytest.mark.parametrize(("qualname", "param"), list(_cases()))
def test_fuzz_parameter(qualname, param):
    findings = _fuzz_parameter(qualname, param)
    assert not findings, _report(findings)


@pytest.mark.parametrize("qualname", [q for q, _ in discover()])
def test_fuzz_disagreeing_shapes(qualname):
    findings = _fuzz_shapes(qualname)
    assert not findings, _report(findings)


# --------------------------------------------------------------------------------------------
# Hostile inputs (issue 42): one deterministic pass over every parameter of every public callable
# --------------------------------------------------------------------------------------------


def _longdouble_overflow():
    """``np.longdouble(1e4000)`` where the platform's long double holds it (x86: 80-bit), else None."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        x = np.longdouble("1e4000")
    return x if np.isfinite(x) else None


#: Values no parameter of the package takes (never a number, a name, a flag or a model object):
#: each must be refused with a ValueError/TypeError naming the parameter.
HOSTILE_INVALID = tuple(x for x in (
    [[1.0], [2.0, 3.0]],                      # ragged nesting ("setting an array element with a sequence")
    np.array(1.0, dtype=object),              # a 0-d object array
    10**400,                                  # an int beyond float range (OverflowError in float())
    __import__("datetime").timedelta(seconds=5),
    __import__("datetime").datetime(2026, 1, 1),
    1 + 0j,
    _longdouble_overflow(),                   # finite as long double, inf as float
) if x is not None)
#: Values of a valid type at the edges of float: an error, if any, must name the parameter (never a
#: quantity derived from it), and nothing but a ValueError/TypeError may escape.
HOSTILE_EDGES = (5e-324, 1.7e308, -1.0, math.nan, math.inf, True, "abc", "")
#: Share of the (function, parameter) pairs the hostile pass covers in the suite (deterministic sample
#: by a hash of the name; ``python tests/test_fuzz.py --hostile`` runs them all).
HOSTILE_SHARE = float(os.environ.get("VCPERF_FUZZ_HOSTILE_SHARE", "1.0"))


def _hostile_silent(kind: str, value, default) -> bool:
    """True if accepting ``value`` for a parameter of ``kind`` is a silent acceptance."""
    if any(value is x for x in HOSTILE_INVALID):
        return True
    if isinstance(value, float) and math.isnan(value):
        return kind in ("real", "int", "none")
    if value is True or isinstance(value, str):
        return kind in ("real", "int") or (kind == "none" and default is None and isinstance(value, str))
    if isinstance(value, float) and math.isinf(value):
        return kind == "int"  # a count, an index or a vCPU number is never infinite
    return False


def _hostile_classify(qualname: str, func, base: dict, param: str, value, kind: str, default):
    CALLS[qualname] += 1
    try:
        result = call(func, {**base, param: value})
    except (ValueError, TypeError) as exc:
        msg = str(exc)
        if _names(msg, param):
            return None
        others = [p for p in base if p != param and _names(msg, p)]
        lead = re.match(r"(\w+) must", msg)
        others += [lead.group(1)] if lead and lead.group(1) != param else []
        return ("wrong-name" if others else "raw"), f"{type(exc).__name__}: {msg[:160]}"
    except MemoryError:
        return "raw", "MemoryError"
    except Exception as exc:  # noqa: BLE001 - every other type is a finding
        return "raw", f"{type(exc).__name__}: {str(exc)[:160]}"
    del result
    if (qualname, param) in TAKES_A_NAME and isinstance(value, str):
        return None
    return ("silent", "accepted") if _hostile_silent(kind, value, default) else None


def _sampled(qualname: str, param: str, share: float) -> bool:
    import zlib

    return share >= 1.0 or zlib.crc32(f"{qualname}:{param}".encode()) % 10_000 < share * 10_000


def hostile_findings(modules=MODULES, share: float = 1.0) -> list:
    """Every finding of the hostile pass: ``(category, "qualname(param=value): detail")``."""
    findings = []
    funcs = dict(discover(modules))
    for qualname, param in _cases(modules):
        if not _sampled(qualname, param, share):
            continue
        func = funcs[qualname]
        base = baseline(qualname, func)
        kind = REAL_DESPITE_INT_DEFAULT.get((qualname.rsplit(".", 1)[0], param), kind_of(base[param]))
        sig_param = inspect.signature(func).parameters.get(param)
        default = None if sig_param is None or sig_param.default is inspect.Parameter.empty else sig_param.default
        for value in HOSTILE_INVALID + HOSTILE_EDGES:
            out = _hostile_classify(qualname, func, base, param, value, kind, default)
            if out is not None:
                findings.append((out[0], f"{qualname}({param}={_short_repr(value)}): {out[1]}"))
    return findings


def _short_repr(value) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def test_fuzz_hostile_inputs():
    """Ragged and 0-d object arrays, 10**400, timedelta/datetime, complex, long double beyond float and
    the edges of float, over every parameter of every public callable: 0 raw, 0 wrong-name, 0 silent."""
    before = sum(CALLS.values())
    start = time.perf_counter()
    findings = hostile_findings(share=HOSTILE_SHARE)
    calls = sum(CALLS.values()) - before
    print(f"hostile fuzz: {calls} calls in {time.perf_counter() - start:.1f} s, {len(findings)} findings")
    assert calls >= 5_000  # the pass ran over the public API, not an empty discovery
    assert not findings, f"hostile fuzz: {calls} calls; " + _report(findings)


def _raises(func, *args, **kw) -> str:
    with pytest.raises(ValueError) as info:
        func(*args, **kw)
    return str(info.value)


def test_issue_cases_of_the_study_packages():
    """The cases issue 18 names: finite physics at the ends of the valid ranges, clear errors past them."""
    from vcperf import ft, vmotion
    from vcperf.ft.checkpoint import MAX_CHECKPOINT_INTERVAL_S

    p, s = vmotion.calibrate(), vmotion.settings()
    # 1 vCPU on 7.0 U1: the loose trace install leaves the vCPU to the guest between batches
    tr = vmotion.trace_phase(64 * 2**30, 1, "7.0u1", params=p, settings=s)
    assert 0.0 < float(tr.throughput_loss) < 1.0
    assert math.isfinite(float(vmotion.migration_delay_area_s2(64 * 2**30, 1, 0.5, "7.0u1", 40e9, params=p,
                                                                 settings=s)))
    # the checkpoint interval has a physical range: finite logging bandwidth at its top, an error past it
    cyc = ft.checkpoint_cycle(1e8, MAX_CHECKPOINT_INTERVAL_S)
    assert 0.0 < float(cyc.logging_bandwidth_bps) < 10e9
    assert "checkpoint_interval_s" in _raises(ft.checkpoint_cycle, 1e8, 1e300)
    # resource guards state their limit before allocating
    msg = _raises(vmotion.throughput_series, vmotion.migrate_workload("typical", "7.0u1"), 1e-9, 0.0, 1e9)
    assert "sample_s" in msg and "10,000,000" in msg
    assert "n_clients" in _raises(ft.closed_loop, 10**7, 0.1, 0.01, checkpoint_interval_s=0.005)
    assert "link_bps" in _raises(vmotion.precopy, 64 * 2**30, 1e8, 1e-300, params=p, settings=s)
    # a constraint between parameters names every parameter in it
    msg = _raises(ft.interval_from_latency_ratio, 3.0, ft_ack_rtt_s=1.0)
    assert "latency_ratio" in msg and "ft_ack_rtt_s" in msg


def main(modules) -> int:
    """Per-category report for ``modules`` (default :data:`MODULES`); ``--hostile``: the hostile pass only."""
    modules = tuple(modules)
    if "--hostile" in modules:
        modules = tuple(m for m in modules if m != "--hostile") or MODULES
        found = hostile_findings(modules)
        print(_report(found).splitlines()[0])
        for c, d in found:
            print(f"  [{c}] {d}")
        print(f"fuzz: {sum(CALLS.values())} calls over {len(CALLS)} public functions")
        return 1 if found else 0
    modules = modules or MODULES
    findings = []
    for qualname, param in _cases(modules):
        start = time.perf_counter()
        findings += _fuzz_parameter(qualname, param, modules)
        print(f"{time.perf_counter() - start:7.2f} s  {qualname}({param})", file=sys.stderr, flush=True)
    for qualname, _ in discover(modules):
        findings += _fuzz_shapes(qualname, modules)
    missing = [q for q, f in discover(modules) if not _try_baseline(q, f)]
    print(_report(findings).splitlines()[0])
    by_func = collections.Counter((c, d.split("=")[0]) for c, d in findings)
    for (c, q), n in sorted(by_func.items()):
        example = next(d for cc, d in findings if cc == c and d.split("=")[0] == q)
        print(f"  {n:5d} {c:16s} {example[:230]}")
    print(f"no baseline: {missing}")
    print(f"fuzz: {sum(CALLS.values())} calls over {len(CALLS)} public functions")
    return 1 if findings or missing else 0


def _try_baseline(qualname, func) -> bool:
    try:
        baseline(qualname, func)
    except LookupError:
        return False
    return True


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
