"""Validation of the Content Library model: the study's ledger rows and paper-vs-model tables.

Seed ``003_a39039efb1262c72.txt``. The protocol functions are the shared ones of
:mod:`vcperf.protocol`, so this study is judged like every other.
"""

from __future__ import annotations

import sys

import numpy as np

from vcperf import _validate as v
from vcperf import data, protocol
from vcperf.contentlib.calibration import FIGURE_TABLE, TARGET_KEYS, TARGETS, testbed
from vcperf.contentlib.paths import PATH_EXPERIMENT, PATH_LABELS, PATHS, deploy_time_s, path_stages


def _study():
    return sys.modules["vcperf.contentlib"]


def fidelity_rows():
    """The study's ledger rows (:func:`vcperf.protocol.fidelity_rows`)."""
    return protocol.fidelity_rows(_study())


def leave_one_out():
    """Leave-one-out of every fitted statement (:func:`vcperf.protocol.leave_one_out`)."""
    return protocol.leave_one_out(_study())


def parameter_table():
    """Calibrated parameters with unit, meaning and the statements that move each."""
    return protocol.parameter_table(_study())


def paper_value(key: str) -> float:
    """The paper's value of target ``key`` in SI (ratios and percents as plain fractions)."""
    v.choice("key", key, TARGET_KEYS)
    return TARGETS[TARGET_KEYS.index(key)].paper_value()


def experiments_table():
    """The four experiments, the paper's statements beside the model's time, ratio and bottleneck stage.

    Columns: experiment, path, label, network_gbps, paper_printed (the verbatim statements of
    ``figure04_deploy_time.csv`` for that run), paper_ratio_vs_exp1, paper_time_s, model_time_s,
    model_ratio_vs_exp1, bottleneck (the slowest single stage of the path).
    """
    import pandas as pd

    fig4 = data.load(FIGURE_TABLE)

    def paper(exp: int, gbps: float):
        net = "" if exp <= 2 else f"{gbps:g}"
        rows = fig4[(fig4["experiment"] == str(exp)) & (fig4["network_gbps"] == net)]
        ratio = rows[rows["quantity"] == "deploy_time_ratio_vs_exp1"]["value"]
        time = rows[rows["quantity"] == "deploy_time"]
        printed = "; ".join(dict.fromkeys(rows[rows["flag"] != "derived"]["printed"])) or "; ".join(
            dict.fromkeys(rows["printed"]))
        return (printed, float(ratio.iloc[0]) if len(ratio) else np.nan,
                float(data.to_si(time["value"].iloc[0], time["unit"].iloc[0])) if len(time) else np.nan)

    tb = testbed()
    kw = dict(fc_bandwidth_bps=tb.fc_bandwidth_bps, mgmt_network_bps=tb.nic_bandwidth_bps,
              vcenter_vcpus=tb.vcenter_vcpus)
    t1 = float(deploy_time_s("vaai", tb.template_size_bytes, **kw))
    recs = []
    for path in PATHS:
        for net in (tb.nic_bandwidth_bps, tb.alt_network_bps):
            if path in ("vaai", "host_fc") and net != tb.nic_bandwidth_bps:
                continue  # no Ethernet on these paths
            st = path_stages(path, network_bps=net, **kw)
            t = float(deploy_time_s(path, tb.template_size_bytes, network_bps=net, **kw))
            rates = {**st.pipelined, **st.serial}
            slowest = min(rates, key=lambda k: float(rates[k]))
            exp = PATH_EXPERIMENT[path]
            printed, p_ratio, p_time = paper(exp, net / 1e9)
            recs.append({"experiment": exp, "path": path, "label": PATH_LABELS[path],
                         "network_gbps": net / 1e9 if path in ("host_to_host", "streaming") else np.nan,
                         "paper_printed": printed, "paper_ratio_vs_exp1": p_ratio, "paper_time_s": p_time,
                         "model_time_s": t, "model_ratio_vs_exp1": t / t1, "bottleneck": slowest})
    return pd.DataFrame(recs)
