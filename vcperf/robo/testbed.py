"""The ROBO study's test bed, read from ``data/robo2019/`` (``001_36d9adf7ffa34fcf.txt``): inventory,
statistics schedule, VCbench clients and mix (:func:`testbed`), and the eight network types of Table 1
as :class:`vcperf.network.Link` presets (:func:`preset`, :func:`preset_names`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from vcperf import _frozen, data, network
from vcperf import _validate as v
from vcperf.robo import operations, statistics
from vcperf.robo.params import STUDY

#: Table 1 of the study: the testbed settings of its eight network types.
PRESET_TABLE = f"{STUDY}/table01_networks"


def _si(table: str, quantity: str, **cond) -> float:
    return data.value(f"{STUDY}/{table}", quantity, "si", **cond)


@dataclass(frozen=True)
class Testbed:
    """The study's test bed and workload, as the paper states them (read by :func:`testbed`).

    Attributes
    ----------
    powered_on_vms_per_host, registered_vms_per_host, esxi_hosts : float
        Inventory (``text_inventory.csv``): 24, 30 and 128.
    change_period_s : float
        Real-time statistics interval (20 s, ``text_statistics.csv``): a powered-on VM's quick
        statistics change once per interval (the host-sync change period).
    schedule : StatsSchedule
        5-minute samples, 30-minute uploads, 5-minute stagger (``text_statistics.csv``).
    counters : CounterModel
        Counter series per level, with the hosts' 72 logical CPUs (``testbed.csv``) as instances.
    clients, vcenter_vcpus : int
        VCbench clients (8, ``text_vcbench.csv``) and vCenter vCPUs (8, ``testbed.csv``).
    mix : dict
        The 19 Table 3 operations (``table03_vcbench_operations.csv``) -> their stages of host calls
        (:data:`vcperf.robo.operations.OPERATION_CALLS`).
    createvm_calls : tuple
        CreateVM's stages of host calls from Figure 8's step list (``figure08_createvm_sequence.csv``).
    """

    powered_on_vms_per_host: float
    registered_vms_per_host: float
    esxi_hosts: float
    change_period_s: float
    schedule: statistics.StatsSchedule
    counters: statistics.CounterModel
    clients: int
    vcenter_vcpus: int
    mix: dict = field(hash=False)
    createvm_calls: tuple = ()

    def calls(self, operation: str) -> tuple:
        """Stages of host calls of one operation (the Table 3 mix, or ``"create_vm"`` from Figure 8)."""
        if isinstance(operation, str) and operation == "create_vm":
            return self.createvm_calls
        return self.mix[v.choice("operation", operation, [*self.mix, "create_vm"])]


@_frozen.cache
def testbed() -> Testbed:
    """The study's test bed, read from ``data/robo2019/``.

    Returns
    -------
    Testbed
        Inventory, statistics schedule and counters, VCbench clients, vCenter vCPUs and the operation
        mix with its host calls.

    Examples
    --------
    >>> from vcperf import robo
    >>> tb = robo.testbed()
    >>> tb.powered_on_vms_per_host, tb.clients, len(tb.mix)
    (24.0, 8, 19)
    """
    ops = data.load(f"{STUDY}/table03_vcbench_operations")
    names = tuple(ops.loc[ops["quantity"] == "operation_description", "operation"])
    missing = set(names) ^ set(operations.OPERATION_CALLS)
    if missing:
        raise data.DataError(f"{STUDY}: Table 3 and OPERATION_CALLS disagree on {sorted(missing)}")
    seq = data.load(f"{STUDY}/figure08_createvm_sequence")
    steps = seq[(seq["quantity"] == "step") & (seq["sender"] == "vcenter") & (seq["receiver"] == "esxi_host")]
    return Testbed(
        powered_on_vms_per_host=_si("text_inventory", "powered_on_vms_per_host"),
        registered_vms_per_host=_si("text_inventory", "registered_vms_per_host"),
        esxi_hosts=_si("text_inventory", "esxi_hosts"),
        change_period_s=_si("text_statistics", "stats_interval", stats_tier="real_time"),
        schedule=statistics.StatsSchedule(
            sample_interval_s=_si("text_statistics", "stats_interval", stats_tier="historical_5min"),
            upload_interval_s=_si("text_statistics", "stats_upload_interval"),
            stagger_interval_s=_si("text_statistics", "stats_collection_stagger_interval"),
        ),
        counters=statistics.CounterModel(
            host_instances=_si("testbed", "logical_processors", component="physical_host")
            + statistics.HOST_OTHER_INSTANCES),
        clients=int(_si("text_vcbench", "clients")),
        vcenter_vcpus=int(_si("testbed", "vcpus", component="vcenter_server")),
        mix={n: operations.OPERATION_CALLS[n] for n in names},
        createvm_calls=operations.calls_from_sequence(steps["message"]),
    )


# --- Table 1: the eight network types -----------------------------------------------------------


@_frozen.cache
def _presets() -> dict[str, network.Link]:
    df = data.load(PRESET_TABLE)
    if "setting" in df:  # keep the testbed configuration, not the real-life observations
        df = df[df["setting"] == "testbed"]
    links = {}
    for net, rows in df.groupby("network", sort=False):
        def get(q, rows=rows, net=net):
            hit = rows[rows["quantity"] == q]
            if len(hit) != 1:
                raise data.DataError(f"{PRESET_TABLE}: need one {q!r} row for network {net!r}")
            return float(data.to_si(hit["value"].iloc[0], hit["unit"].iloc[0]))

        label = rows["network_label"].iloc[0] if "network_label" in rows else net
        links[net] = network.Link(get("bandwidth"), get("rtt"), get("loss"), name=label)
    return links


def preset_names() -> list[str]:
    """Ids of the eight network types of the study's Table 1 (testbed settings), in table order.

    Returns
    -------
    list of str
        Preset ids, e.g. ``"lan"``, ``"dsl_512k"``, ``"satellite"``.

    Examples
    --------
    >>> from vcperf import robo
    >>> len(robo.preset_names()), "satellite" in robo.preset_names()
    (8, True)
    """
    return list(_presets())


def preset(name: str) -> network.Link:
    """The testbed :class:`vcperf.network.Link` of one network type of the study's Table 1.

    Values come from ``data/robo2019/table01_networks.csv`` (the ``tc`` settings of the test bed,
    not the real-life observations beside them).

    Parameters
    ----------
    name : str
        A preset id of :func:`preset_names`.

    Returns
    -------
    vcperf.network.Link
        Bandwidth (bit/s), RTT (s) and loss (fraction) of that network type.

    Examples
    --------
    >>> from vcperf import robo
    >>> sat = robo.preset("satellite")
    >>> sat.bandwidth_bps, sat.rtt_s, sat.loss
    (10000000.0, 0.5, 0.001)
    """
    links = _presets()
    return links[v.choice("name", name, links)]
