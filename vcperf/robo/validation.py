"""Paper vs model for the ROBO study (``001_36d9adf7ffa34fcf.txt``): the protocol's prediction,
leave-one-out, ledger rows and parameter table bound to the study, plus the tables the notebooks show
(:func:`loo_by_network`, :func:`network_table`)."""

from __future__ import annotations

from vcperf import _validate as v
from vcperf import data, protocol
from vcperf.robo.params import STUDY
from vcperf.robo.testbed import preset, preset_names

#: The shared protocol functions of the study (:class:`vcperf.protocol.StudyFunctions`).
FUNCTIONS = protocol.StudyFunctions(STUDY)
predict, leave_one_out = FUNCTIONS.predict, FUNCTIONS.leave_one_out
fidelity_rows, parameter_table = FUNCTIONS.fidelity_rows, FUNCTIONS.parameter_table


def loo_by_network(prefix: str) -> dict:
    """Leave-one-out model values of the fitted keys ``<prefix><network>``: network -> value (SI).

    For the figures' open circles; NaN where the refit could not determine the number.

    Parameters
    ----------
    prefix : str
        ``"op_latency_"`` (Figure 10, VCbench latency in s) or ``"add_host_"`` (Figure 14, add-host
        time in s).

    Returns
    -------
    dict
        Table 1 network id -> leave-one-out model value (s).

    Examples
    --------
    >>> from vcperf import robo
    >>> sorted(robo.loo_by_network("add_host_"))
    ['dsl_512k', 'lan', 'satellite', 't1']
    """
    prefix = v.choice("prefix", prefix, ("op_latency_", "add_host_"))
    loo = leave_one_out()
    rows = loo[loo["key"].str.startswith(prefix) & ~loo["key"].str.startswith("op_latency_ratio")]
    return {k[len(prefix):]: float(m) for k, m in zip(rows["key"], rows["model_value"], strict=True)}


def network_table(payload_bytes=None):
    """Table 1 of the study (testbed settings) beside what the model derives from each link.

    Columns: the printed bandwidth, RTT and loss (from ``data/robo2019/table01_networks.csv``) and
    the model's steady TCP throughput and time to move ``payload_bytes`` host -> vCenter with the one
    loss model (:func:`vcperf.network.message_time_s`).

    Parameters
    ----------
    payload_bytes : float, optional
        Payload moved over each link (B), >= 0; default the study's Level-4 statistics upload
        (``stats_data_size_per_sync`` of ``figure06_stats_data_size.csv``, ~3.5 MB).

    Returns
    -------
    pandas.DataFrame
        One row per network: ``network``, ``bandwidth_Mbps``, ``rtt_ms``, ``loss_percent``,
        ``model_tcp_throughput_Mbps``, ``model_transfer_time_s``.

    Examples
    --------
    >>> from vcperf import robo
    >>> t = robo.network_table(1e6)
    >>> len(t), bool((t["model_transfer_time_s"] > 0).all())
    (8, True)
    """
    import pandas as pd

    if payload_bytes is None:
        payload_bytes = data.value(f"{STUDY}/figure06_stats_data_size", "stats_data_size_per_sync", "si",
                                   stats_level=4)
    v.nonneg("payload_bytes", payload_bytes)
    records = []
    for net in preset_names():
        link = preset(net)
        records.append({
            "network": link.name,
            "bandwidth_Mbps": link.bandwidth_bps / 1e6,
            "rtt_ms": link.rtt_s * 1e3,
            "loss_percent": link.loss * 100,
            "model_tcp_throughput_Mbps": link.tcp_throughput_bps() / 1e6,
            "model_transfer_time_s": float(link.message_time_s(payload_bytes, "up")),
        })
    return pd.DataFrame(records)
