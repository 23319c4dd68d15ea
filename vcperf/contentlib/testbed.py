"""The Content Library study's test bed: its physical facts, read from ``data/contentlib2015/``.

The Experimental Testbed table (FC and Ethernet adapters of the ESXi hosts, the vCenter appliance's
vCPUs) and the template size of Figure 4. Targets and tables evaluate the model on these; the model
files never read them.
"""

from __future__ import annotations

from dataclasses import dataclass

from vcperf import _frozen, data

#: The Figure 4 table: the paper's statements about the four experiments, and the template size.
FIGURE_TABLE = "contentlib2015/figure04_deploy_time"
#: The Experimental Testbed table.
TESTBED_TABLE = "contentlib2015/testbed"


@dataclass(frozen=True)
class Testbed:
    """Physical inputs of the study's test bed, read from ``data/contentlib2015/``.

    Attributes
    ----------
    template_size_bytes : float
        Size of the deployed OVF template (bytes): 39 GB.
    fc_bandwidth_bps : float
        Nominal rate of the hosts' Fibre Channel adapters (bit/s).
    nic_bandwidth_bps : float
        Line rate of the hosts' Ethernet adapters (bit/s): the data and management networks.
    alt_network_bps : float
        The faster Ethernet of the re-runs of Experiments 3 and 4 (bit/s): 10 GbE.
    vcenter_vcpus : int
        vCPUs of the vCenter Server Appliance.
    """

    template_size_bytes: float
    fc_bandwidth_bps: float
    nic_bandwidth_bps: float
    alt_network_bps: float
    vcenter_vcpus: int

    def run_network_bps(self, gbps: float | None) -> float:
        """Data-network line rate (bit/s) of a Figure 4 run: its ``network_gbps`` condition (Gb/s, as
        the table states it) in SI, or the hosts' NICs when the run states none (Experiments 1 and 2).

        Parameters
        ----------
        gbps : float or None
            The run's ``network_gbps`` condition (Gb/s), or None.

        Examples
        --------
        >>> from vcperf import contentlib
        >>> tb = contentlib.testbed()
        >>> tb.run_network_bps(10), tb.run_network_bps(None)
        (10000000000.0, 1000000000.0)
        """
        if gbps is None:
            return self.nic_bandwidth_bps
        return float(data.to_si(float(gbps), "Gbps"))


@_frozen.cache
def testbed() -> Testbed:
    """The test bed (Experimental Testbed table; the 39 GB template from the Figure 4 table).

    Examples
    --------
    >>> from vcperf import contentlib
    >>> tb = contentlib.testbed()
    >>> tb.template_size_bytes / 1e9, tb.nic_bandwidth_bps / 1e9, tb.alt_network_bps / 1e9
    (39.0, 1.0, 10.0)
    """
    tb = TESTBED_TABLE
    return Testbed(
        template_size_bytes=data.value(FIGURE_TABLE, "template_size", "si"),
        fc_bandwidth_bps=data.value(tb, "storage_adapter_speed", "si", component="esxi_host"),
        nic_bandwidth_bps=data.value(tb, "network_adapter_speed", "si", component="esxi_host"),
        alt_network_bps=data.value(tb, "network_speed_alternative", "si", component="esxi_host"),
        vcenter_vcpus=int(data.value(tb, "vcpus", component="vcenter_appliance_vm")),
    )

