"""Validation of the Content Library model: the shared protocol functions bound to the study (ledger
rows, leave-one-out, parameter table, predictions) and the paper-vs-model table of the four
experiments for the notebook.
"""

from __future__ import annotations

import numpy as np

from vcperf import data, protocol
from vcperf.contentlib.calibration import calibrate
from vcperf.contentlib.params import STUDY
from vcperf.contentlib.paths import PATH_EXPERIMENT, PATH_LABELS, PATHS, deploy_time_s, path_stages
from vcperf.contentlib.testbed import FIGURE_TABLE, testbed

#: The shared protocol functions of the study (:class:`vcperf.protocol.StudyFunctions`).
FUNCTIONS = protocol.StudyFunctions(STUDY)
predict, leave_one_out = FUNCTIONS.predict, FUNCTIONS.leave_one_out
fidelity_rows, parameter_table = FUNCTIONS.fidelity_rows, FUNCTIONS.parameter_table


def experiments_table():
    """The four experiments, the paper's statements beside the model's time, ratio and bottleneck stage.

    One row per run (Experiments 1 and 2 on the hosts' network; 3 and 4 on 1 GbE and on 10 GbE),
    under the default calibration on the study's test bed.

    Returns
    -------
    pandas.DataFrame
        Columns: experiment, path, label, network_gbps, paper_printed (the verbatim statements of
        ``figure04_deploy_time.csv`` for that run), paper_ratio_vs_exp1, paper_time_s, model_time_s,
        model_ratio_vs_exp1, bottleneck (the slowest single stage of the path).

    Examples
    --------
    >>> from vcperf import contentlib
    >>> tab = contentlib.experiments_table()
    >>> list(tab["experiment"])
    [1, 2, 3, 3, 4, 4]
    >>> float(tab["model_ratio_vs_exp1"].iloc[0])
    1.0

    References
    ----------
    .. [1] J. Guan and D. Bergamasco, "How to Efficiently Deploy Virtual Machines from VMware vSphere
       Content Library", VMware VROOM! Blog, July 2015 (Experiments table, Figure 4).
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
              vcenter_vcpus=tb.vcenter_vcpus, params=calibrate())
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
