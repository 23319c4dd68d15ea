"""The VCHA study's test bed, read from ``data/vcha2016``: the appliance and inventory of the
overhead runs (:class:`Testbed`), the Table 1 appliance sizes and the paper's numbers in SI.

Inputs of the models, never fitted.
"""

from __future__ import annotations

from dataclasses import dataclass

from vcperf import _frozen, data
from vcperf import _validate as v
from vcperf.vcha.params import STUDY

#: The appliance sizes of Table 1 that VCHA supports, smallest first.
INVENTORIES = ("small", "medium", "large", "x-large")


def _si(table: str, quantity: str, **conditions) -> float:
    return data.value(f"{STUDY}/{table}", quantity, "si", **conditions)


@_frozen.cache
def inventory_sizes() -> dict:
    """The Table 1 appliance sizes and their inventories.

    Returns
    -------
    dict
        ``{size: {"vcpus", "memory_bytes", "clusters", "hosts", "registered_vms", "powered_on_vms"}}``
        for each size of :data:`INVENTORIES`.

    Examples
    --------
    >>> from vcperf import vcha
    >>> vcha.inventory_sizes()["x-large"]["vcpus"]
    32.0
    """
    quantities = {"vcpus": "vcpus", "memory_bytes": "memory", "clusters": "clusters", "hosts": "hosts",
                  "registered_vms": "registered_vms", "powered_on_vms": "powered_on_vms"}
    return {size: {name: _si("table01_sizing", q, inventory=size) for name, q in quantities.items()}
            for size in INVENTORIES}


@dataclass(frozen=True)
class Testbed:
    """Facts of the study's test bed (inputs of the models, not fitted).

    Attributes
    ----------
    vcpus : float
        vCPUs of the appliance in the overhead experiments: the X-Large configuration (the runs use
        the largest supported inventory, ``testbed.csv``; the PSC section states 32 vCPUs).
    db_connections : float
        vpxd's database connection pool: vCenter's documented default maximum of 50 connections
        (``external_vcenter_limits.csv``, ``read_from: external``; the seed prints no pool size).
    clone_bandwidth_bps : float
        Clone network of the enabling experiments (10 Gbps, ``text_enable_vcha.csv``), bit/s.
    hosts, powered_on_vms, registered_vms : float
        Inventory of the overhead runs ("2,000 hosts, 25,000 powered-on and 35,000 registered VMs",
        ``testbed.csv``).
    replication_bandwidth_bps : float
        The VCHA private network (one dedicated 10 GbE port, ``testbed.csv``), bit/s.
    """

    vcpus: float
    db_connections: float
    clone_bandwidth_bps: float
    hosts: float
    powered_on_vms: float
    registered_vms: float
    replication_bandwidth_bps: float

    def appliance(self) -> dict:
        """Keyword arguments of :func:`~vcperf.vcha.vcbench.run_vcbench` for the test bed's appliance."""
        return {"vcpus": self.vcpus, "hosts": self.hosts, "powered_on_vms": self.powered_on_vms,
                "db_connections": self.db_connections}


@_frozen.cache
def testbed() -> Testbed:
    """The study's :class:`Testbed`, read from ``data/vcha2016``.

    Examples
    --------
    >>> from vcperf import vcha
    >>> tb = vcha.testbed()
    >>> tb.vcpus, tb.hosts
    (32.0, 2000.0)
    """
    def inv(q):
        return _si("testbed", q, component="default_inventory")

    return Testbed(vcpus=_si("text_psc", "test_appliance_vcpus"),
                   db_connections=_si("external_vcenter_limits", "max_db_connections"),
                   clone_bandwidth_bps=_si("text_enable_vcha", "clone_network_bandwidth"),
                   hosts=inv("hosts"), powered_on_vms=inv("powered_on_vms"), registered_vms=inv("registered_vms"),
                   replication_bandwidth_bps=_si("testbed", "nic_speed", component="vcha_private_network"))


def appliance(size: str) -> dict:
    """Keyword arguments of :func:`~vcperf.vcha.vcbench.run_vcbench` for a Table 1 appliance size.

    Parameters
    ----------
    size : {"small", "medium", "large", "x-large"}
        The appliance size (:data:`INVENTORIES`).

    Returns
    -------
    dict
        ``{"vcpus", "hosts", "powered_on_vms"}`` of that size's inventory.

    Examples
    --------
    >>> from vcperf import vcha
    >>> vcha.appliance("small")
    {'vcpus': 4.0, 'hosts': 96.0, 'powered_on_vms': 960.0}
    """
    v.choice("size", size, INVENTORIES)
    inv = inventory_sizes()[size]
    return {"vcpus": inv["vcpus"], "hosts": inv["hosts"], "powered_on_vms": inv["powered_on_vms"]}


def clone_bandwidth_bps() -> float:
    """Clone network of the study: 10 Gbps (:attr:`Testbed.clone_bandwidth_bps`), bit/s.

    Examples
    --------
    >>> from vcperf import vcha
    >>> vcha.clone_bandwidth_bps() / 1e9
    10.0
    """
    return testbed().clone_bandwidth_bps
