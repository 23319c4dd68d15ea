"""vCenter 6.7 in remote and branch offices (ROBO): mechanistic models of the study, calibrated to it.

The study: A. T. Mizrak, "Performance of VMware vCenter Server 6.7 in Remote Offices and Branch
Offices", Performance Study, VMware, Inc., Palo Alto, CA, September 20, 2019 (http://www.vmware.com);
transcribed in ``data/robo2019/`` (seed ``001_36d9adf7ffa34fcf.txt``).

The branch link is a :class:`vcperf.network.Link`; Table 1's eight network types are the test bed's
presets (:func:`preset`, :func:`preset_names`). The study's workloads are mechanisms in model files,
each a pure function of physical inputs and parameters:

* :mod:`~vcperf.robo.wire` -- bytes on the wire of a TCP message and its ACKs;
* :mod:`~vcperf.robo.hostsync` -- host-sync traffic (Figures 2-3);
* :mod:`~vcperf.robo.statistics` -- statistics uploads, their traffic and bursts over a shared link
  (Figures 4-7, processor sharing);
* :mod:`~vcperf.robo.operations` -- VCbench operations as stages of overlapping host calls (a critical
  path) and exact MVA (Figures 8-13);
* :mod:`~vcperf.robo.addhost` -- adding a host and the other host operations (Figures 14-15);
* :mod:`~vcperf.robo.branch` -- the one shared branch link on which every flow meets (host sync,
  statistics bursts, operations, template and library transfers), with one offered load, one verdict
  and the dominant flow.

The functions of the same names here (``vcbench``, ``host_sync_traffic``, ...) are those models at
the study's calibration and on its test bed (:mod:`~vcperf.robo.study`); :func:`plan` and
:func:`required_bandwidth_bps` answer the planner's questions (:mod:`~vcperf.robo.planner`), and
:func:`smallest_link_bps`, :func:`largest_rtt_s` and :func:`most_hosts` its reverse questions for a set of
targets, each naming the flow that binds (:mod:`~vcperf.robo.reverse`).
:mod:`~vcperf.robo.params` holds the six parameters, :mod:`~vcperf.robo.testbed` the test bed read
from ``data/robo2019/``, :mod:`~vcperf.robo.targets` the paper numbers with their models,
:mod:`~vcperf.robo.calibration` the fit and :mod:`~vcperf.robo.validation` the ledger.

Examples
--------
>>> from vcperf import robo
>>> bool(2.0 < robo.vcbench(robo.preset("dsl_512k")).mean_latency_s < 3.5)  # Figure 10: 2.7 s on DSL
True
>>> bool(robo.plan("satellite", 40, 2).operation_latency_s > robo.plan("satellite", 1, 2).operation_latency_s)
True
"""

from __future__ import annotations

from vcperf.robo import addhost, branch, hostsync, operations, statistics, wire
from vcperf.robo.addhost import ADD_HOST_REQUEST_BYTES, HOST_CONFIG_BYTES, HOST_OBJECTS, HOST_OPERATIONS
from vcperf.robo.calibration import calibrate
from vcperf.robo.hostsync import HEARTBEAT_BYTES, HEARTBEAT_INTERVAL_S, HostSyncTraffic
from vcperf.robo.operations import (
    CALL_REQUEST_BYTES,
    CALL_RESPONSE_BYTES,
    OPERATION_CALLS,
    QUICKSTATS_PROPERTIES,
    VM_STATE_PROPERTIES,
    HostCall,
    VcbenchResult,
    call_time_s,
    message_exchange_time_s,
)
from vcperf.robo.params import PARAM_DOCS, STUDY, AddHostParams, HostSyncParams, OpsParams, Params, StatsParams
from vcperf.robo.planner import QUANTITIES, branch_link, plan, quantity_s, required_bandwidth_bps
from vcperf.robo.readouts import LATENCY_TABLE, UPLOAD_TABLE
from vcperf.robo.reverse import BranchLimit, largest_rtt_s, most_hosts, smallest_link_bps
from vcperf.robo.statistics import (
    LEVELS,
    CounterModel,
    StatsLinkLoad,
    StatsSchedule,
    StatsTraffic,
    statistics_upload_time_s,
    transfer_time_grid_s,
)
from vcperf.robo.study import (
    add_host_time_s,
    add_host_traffic_bps,
    host_operation_time_s,
    host_sync_link_utilization,
    host_sync_traffic,
    operation_calls,
    operation_names,
    operation_network_time_s,
    operation_traffic_bytes,
    operation_transfer_floor_s,
    statistics_link_load,
    statistics_payload_bytes,
    statistics_traffic,
    testbed_powered_on_vms,
    vcbench,
    vcbench_host_traffic,
    vcbench_vs_clients,
    vm_state_bytes,
)
from vcperf.robo.targets import targets
from vcperf.robo.testbed import Testbed, preset, preset_names, testbed
from vcperf.robo.validation import fidelity_rows, leave_one_out, loo_by_network, network_table, parameter_table, predict
from vcperf.robo.wire import ACK_BYTES, PACKETS_PER_ACK, ack_bytes, wire_bytes

__all__ = [
    "LATENCY_TABLE", "UPLOAD_TABLE",
    "STUDY", "Params", "PARAM_DOCS", "Testbed", "targets", "calibrate", "predict", "testbed", "fidelity_rows",
    "leave_one_out", "parameter_table", "loo_by_network", "network_table", "preset", "preset_names",
    "addhost", "hostsync", "operations", "statistics", "wire", "branch",
    "LEVELS", "CounterModel", "StatsSchedule", "StatsParams", "StatsTraffic", "StatsLinkLoad", "HostSyncParams",
    "HostSyncTraffic", "OpsParams", "VcbenchResult", "HostCall", "AddHostParams", "OPERATION_CALLS",
    "VM_STATE_PROPERTIES", "QUICKSTATS_PROPERTIES", "vm_state_bytes", "HOST_OBJECTS",
    "HOST_CONFIG_BYTES", "CALL_REQUEST_BYTES", "CALL_RESPONSE_BYTES", "ADD_HOST_REQUEST_BYTES",
    "HEARTBEAT_BYTES", "HEARTBEAT_INTERVAL_S", "ACK_BYTES", "PACKETS_PER_ACK",
    "wire_bytes", "ack_bytes", "message_exchange_time_s", "call_time_s", "statistics_upload_time_s",
    "transfer_time_grid_s", "testbed_powered_on_vms", "host_sync_traffic", "host_sync_link_utilization",
    "statistics_payload_bytes", "statistics_traffic", "statistics_link_load", "operation_names", "operation_calls",
    "operation_network_time_s", "operation_transfer_floor_s", "operation_traffic_bytes", "vcbench",
    "vcbench_vs_clients", "vcbench_host_traffic", "add_host_time_s", "add_host_traffic_bps", "host_operation_time_s",
    "HOST_OPERATIONS", "plan", "required_bandwidth_bps", "branch_link", "QUANTITIES", "quantity_s", "BranchLimit",
    "smallest_link_bps", "largest_rtt_s", "most_hosts",
]
