"""Paper vs model for the ROBO study: the protocol's ledger, leave-one-out and parameter table, plus the
tables the notebooks show (``001_36d9adf7ffa34fcf.txt``)."""

from __future__ import annotations

from vcperf import _validate as v
from vcperf import data, fidelity, network, protocol


def _module():
    from vcperf import robo

    return robo


def fidelity_rows():
    """The study's ledger rows (:func:`vcperf.protocol.fidelity_rows`)."""
    return protocol.fidelity_rows(_module())


def leave_one_out():
    """Leave-one-out of every fitted number, by network-RTT group (:func:`vcperf.protocol.leave_one_out`)."""
    return protocol.leave_one_out(_module())


def parameter_table():
    """Calibrated parameters: name, value, unit, meaning, identifiable, fitted_from."""
    return protocol.parameter_table(_module())


def paper_vs_model(source: str | None = None, kinds=None):
    """The ledger in the paper's units (:func:`vcperf.fidelity.paper_vs_model`) for ``robo2019``."""
    return fidelity.paper_vs_model("robo2019", source, kinds)


def loo_by_network(prefix: str) -> dict:
    """Leave-one-out model values of the fitted keys ``<prefix><network>``: network -> value (SI).

    ``prefix`` is ``"op_latency_"`` (Figure 10) or ``"add_host_"`` (Figure 14); for the figures' open
    circles. NaN where the refit could not determine the number.
    """
    loo = leave_one_out()
    rows = loo[loo["key"].str.startswith(prefix) & ~loo["key"].str.startswith("op_latency_ratio")]
    return {k[len(prefix):]: float(m) for k, m in zip(rows["key"], rows["model_value"], strict=True)}


def network_table(payload_bytes=None):
    """Table 1 of the study (testbed settings) beside what the model derives from each link.

    Columns: the printed bandwidth, RTT and loss (from ``data/robo2019/table01_networks.csv``) and
    the model's steady TCP throughput and time to move ``payload_bytes`` host -> vCenter with the one
    loss model (:func:`vcperf.network.message_time_s`; default payload: the study's Level-4 statistics
    upload, ``stats_data_size_per_sync`` of ``figure06_stats_data_size.csv``).
    """
    import pandas as pd

    if payload_bytes is None:
        payload_bytes = data.value("robo2019/figure06_stats_data_size", "stats_data_size_per_sync", "si",
                                   stats_level=4)
    v.nonneg("payload_bytes", payload_bytes)
    records = []
    for net in network.preset_names():
        link = network.preset(net)
        records.append({
            "network": link.name,
            "bandwidth_Mbps": link.bandwidth_bps / 1e6,
            "rtt_ms": link.rtt_s * 1e3,
            "loss_percent": link.loss * 100,
            "model_tcp_throughput_Mbps": link.tcp_throughput_bps() / 1e6,
            "model_transfer_time_s": float(link.message_time_s(payload_bytes, "up")),
        })
    return pd.DataFrame(records)
