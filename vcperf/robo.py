"""vCenter 6.7 in remote and branch offices (ROBO): ``001_36d9adf7ffa34fcf.txt``.

The branch link is a :class:`vcperf.network.Link`; Table 1's eight network types are the presets of
:func:`vcperf.network.preset`. This module turns the study's workloads (host sync, statistics
uploads, VCbench operations, host operations) into traffic and times over such a link.
"""

from __future__ import annotations

import numpy as np

from vcperf import _validate as v
from vcperf import network

STUDY = "robo2019"


def statistics_upload_time_s(payload_bytes, link: network.Link):
    """Time (s) one host needs to upload a statistics payload over its branch link.

    The upload is one bulk TCP transfer (:func:`vcperf.network.transfer_time_s`): on a slow link it
    saturates the link for the whole time, which the study calls a statistics burst.

    Parameters
    ----------
    payload_bytes : float or array_like
        Statistics payload of one upload (bytes). The study's Level-4 example is about 3.5 MB
        (``data/robo2019/figure06_stats_data_size.csv``).
    link : vcperf.network.Link
        The branch link.
    """
    v.nonneg("payload_bytes", payload_bytes)
    return link.transfer_time_s(payload_bytes)


def transfer_time_grid_s(payload_bytes, links: dict[str, network.Link]) -> dict[str, np.ndarray]:
    """:func:`statistics_upload_time_s` for several payloads over each named link."""
    sizes = v.nonneg("payload_bytes", payload_bytes)
    return {name: statistics_upload_time_s(sizes, link) for name, link in links.items()}


def fidelity_rows():
    """Paper-vs-model rows for the statements this module predicts (see :mod:`vcperf.fidelity`)."""
    from vcperf import data
    from vcperf.fidelity import FidelityRow

    df = data.load("robo2019/figure06_stats_data_size")
    size = df[(df["quantity"] == "stats_data_size_per_sync") & (df["stats_level"] == "4")].iloc[0]
    t = df[(df["quantity"] == "transfer_time") & (df["network"] == "dsl_512k")].iloc[0]
    link = network.preset("dsl_512k")
    model_s = float(statistics_upload_time_s(data.to_si(size["value"], size["unit"]), link))
    paper_s = float(data.to_si(t["value"], t["unit"]))
    return [
        FidelityRow(
            study=STUDY,
            source="robo2019/figure06_stats_data_size",
            locator="Statistics Data Size (text)",
            quantity="level4_statistics_upload_time",
            conditions=f"stats level 4; payload {size['value']:g} {size['unit']}; network dsl_512k",
            unit="s",
            paper_value=paper_s,
            model_value=model_s,
            fitted=False,
            relation=t["relation"],
        )
    ]


def network_table(payload_bytes=3.5e6):
    """Table 1 of the study (testbed settings) beside what the model derives from each link.

    Columns: the printed bandwidth, RTT and loss (from ``data/robo2019/table01_networks.csv``) and
    the model's steady TCP throughput and time to move ``payload_bytes`` (default: the study's
    ~3.5 MB Level-4 statistics upload).
    """
    import pandas as pd

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
            "model_transfer_time_s": float(link.transfer_time_s(payload_bytes)),
        })
    return pd.DataFrame(records)
