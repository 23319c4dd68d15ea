"""Content Library study views: figures and the what-if panel (``003_a39039efb1262c72.txt``).

Every number drawn comes from :mod:`vcperf.contentlib` (model) or :func:`vcperf.protocol.target_paper_value`
(the study's statements in ``data/contentlib2015/``). The what-if panel is built on the pure
:func:`deploy_whatif_update` (model + redraw -> readout text, PNG bytes).
"""

from __future__ import annotations

import numpy as np

from vcperf import contentlib as cl
from vcperf import plotting, protocol
from vcperf.plotting import PAPER_STYLE
from vcperf.views.format import fmt_band, fmt_bytes, fmt_bytes_per_s, fmt_duration
from vcperf.widgets import TYPED_FORMAT, PanelFigure, style_sliders, typed_step, whatif_panel

#: Data-network axis of the network figure: 100 Mbit/s .. 100 Gbit/s.
NETWORK_GRID_BPS = np.logspace(8, 11, 61)
#: Bar colours per path (model), fixed so figures are stable.
COLORS = {"vaai": "#4C72B0", "host_fc": "#55A868", "host_to_host": "#DD8452", "streaming": "#C44E52"}


def _paper(key: str) -> float:
    return protocol.target_paper_value(cl.STUDY, key)


def paper_implied_exp1_s() -> float:
    """Experiment 1's time implied by the paper alone: Exp 4's printed 1 GbE time / its ~7x ratio."""
    return _paper("exp4_1g_time") / _paper("exp4_1g_ratio")


def figure4_figure():
    """Figure 4 of the study: deployment time of the four experiments, model bars beside the paper.

    Left: time relative to Experiment 1 (the paper states ~1.2x, ~3x, ~7x; Exp 3 on 10 GbE ~ Exp 2).
    Right: absolute time (s); the paper prints only Experiment 4's (on 1 GbE and on 10 GbE).
    Solid bars: 1 GbE data network; hatched: the 10 GbE re-runs of Experiments 3 and 4.
    """
    plt = plotting.pyplot()
    tab = cl.experiments_table()
    paper_ratio = {
        (1, 1.0): 1.0,
        (2, 1.0): _paper("exp2_ratio"),
        (3, 1.0): _paper("exp3_1g_ratio"),
        (3, 10.0): _paper("exp3_10g_ratio"),
        (4, 1.0): _paper("exp4_1g_ratio"),
    }
    paper_time = {(4, 1.0): _paper("exp4_1g_time"), (4, 10.0): _paper("exp4_10g_time")}
    fig, axes = plt.subplots(1, 2, figsize=(8.6, 3.6))
    labels = []
    for i, r in enumerate(tab.itertuples()):
        gbps = 1.0 if np.isnan(r.network_gbps) else float(r.network_gbps)
        ten = gbps > 1.0
        labels.append(f"Exp {r.experiment}" + ("\n10 GbE" if ten else ("\n1 GbE" if r.experiment >= 3 else "")))
        for ax, val in ((axes[0], r.model_ratio_vs_exp1), (axes[1], r.model_time_s)):
            ax.bar(i, val, color=COLORS[r.path], hatch="//" if ten else None, edgecolor="white" if ten else None,
                   label="model (colour = path, hatched = 10 GbE)" if i == 0 else None)
            ax.annotate(f"{val:.3g}" if ax is axes[0] else f"{val:.0f}", (i, val), ha="center", va="bottom",
                        fontsize=7, xytext=(0, 2), textcoords="offset points")
        key = (r.experiment, gbps)
        if key in paper_ratio:
            axes[0].plot([i], [paper_ratio[key]], label="paper (~)" if key == (1, 1.0) else None, **PAPER_STYLE)
        if key in paper_time:
            axes[1].plot([i], [paper_time[key]], label="paper" if key == (4, 1.0) else None, **PAPER_STYLE)
    for ax in axes:
        ax.set_xticks(range(len(labels)), labels, fontsize=7.5)
        ax.legend(fontsize=7, frameon=False, loc="upper left")
    axes[0].set_ylabel("deployment time / Experiment 1")
    axes[1].set_ylabel(f"deployment time (s), {cl.testbed().template_size_bytes / 1e9:.3g} GB template")
    axes[0].set_title("relative to Experiment 1", fontsize=9)
    axes[1].set_title("absolute (paper prints Exp 4 only)", fontsize=9)
    plotting.finish(fig)
    return fig


def network_figure(size_bytes: float | None = None):
    """Deployment time vs data-network speed for every path (10 GbE vs 1 GbE discussion).

    The data network is host to host (Exp 3) or NFS server to vCenter (Exp 4); the management network
    to the hosts stays at the testbed's 1 GbE, as in the study's Exp 4 re-run. Paper markers: Exp 4's
    printed times and Exp 3's ratios scaled by the paper-implied Exp 1 time (Exp 4 time / 7).
    """
    plt = plotting.pyplot()
    tb = cl.testbed()
    size = tb.template_size_bytes if size_bytes is None else size_bytes
    kw = dict(fc_bandwidth_bps=tb.fc_bandwidth_bps, mgmt_network_bps=tb.nic_bandwidth_bps,
              vcenter_vcpus=tb.vcenter_vcpus)
    fig, ax = plt.subplots(figsize=(6.4, 3.8))
    x = NETWORK_GRID_BPS / 1e9
    for path in cl.PATHS:
        t = np.broadcast_to(cl.deploy_time_s(path, size, network_bps=NETWORK_GRID_BPS, **kw), x.shape)
        dashed = path == "host_fc"  # Exp 3 on fast Ethernet lies on top of Exp 2
        ax.semilogx(x, t, color=COLORS[path], lw=1.6, ls="--" if dashed else "-", zorder=3 if dashed else 2,
                    label=f"model: {cl.PATH_LABELS[path]}")
    t1 = paper_implied_exp1_s()
    g1, g10 = tb.nic_bandwidth_bps / 1e9, tb.alt_network_bps / 1e9
    pts = [(g1, _paper("exp4_1g_time")), (g10, _paper("exp4_10g_time")),
           (g1, _paper("exp3_1g_ratio") * t1), (g10, _paper("exp3_10g_ratio") * t1)]
    ax.plot([p[0] for p in pts[:2]], [p[1] for p in pts[:2]],
            label=f"paper: Exp 4 ({pts[0][1]:.0f} s, {pts[1][1]:.0f} s)", **PAPER_STYLE)
    style = {**PAPER_STYLE, "marker": "s", "markerfacecolor": "white"}
    ax.plot([p[0] for p in pts[2:]], [p[1] for p in pts[2:]],
            label=f"paper: Exp 3 ratios x implied Exp 1 ({t1:.0f} s)", **style)
    ax.set_xlabel("data network speed (Gbit/s)")
    ax.set_ylabel(f"deployment time (s), {size / 1e9:.3g} GB")
    ax.set_yscale("log")
    ax.legend(fontsize=7, frameon=False, loc="upper right")
    plotting.finish(fig)
    return fig


class _WhatifPanel(PanelFigure):
    """The what-if figure (one horizontal bar per path), built once; :meth:`draw` sets the bars and labels.

    A path the layout forbids has no bar and a grey "not available" label.
    """

    def __init__(self):
        super().__init__((6.4, 2.9))
        fig, ax = self.fig, self.ax = self.fig, self.axes
        self.bars, self.labels = [], []
        for i, path in enumerate(cl.PATHS):
            self.bars.append(ax.barh(i, 1.0, color=COLORS[path], edgecolor=None, lw=0)[0])
            self.labels.append(ax.annotate("", (0, i), va="center", xytext=(3, 0), textcoords="offset points",
                                           fontsize=7.5, annotation_clip=False))
        self.default_color = self.labels[0].get_color()
        ax.set_yticks(range(len(cl.PATHS)), [cl.PATH_LABELS[p] for p in cl.PATHS], fontsize=7.5)
        ax.invert_yaxis()
        ax.set_xlabel(" ")
        # room on the left for the longest path name, below for the x label (fixed: no tight_layout per redraw)
        plotting.fast_layout(fig, left=0.26, right=0.97, bottom=0.16, top=0.97)
        self.keep_background(self.bars)

    def draw(self, rec: cl.Recommendation, size_bytes: float, streaming_note: str = "") -> bytes:
        ax = self.ax
        finite = [t for t in rec.times_s.values() if np.isfinite(t)]
        top = max(finite) if finite else 1.0
        for i, (path, bar, label) in enumerate(zip(cl.PATHS, self.bars, self.labels, strict=True)):
            t = rec.times_s[path]
            available = path in rec.available
            bar.set_visible(available)
            if available:
                best = path == rec.path
                bar.set_width(t)
                bar.set_edgecolor("black" if best else None)
                bar.set_linewidth(1.8 if best else 0)
                label.xy = (t, i)
                note = f"\n{streaming_note}" if path == "streaming" and streaming_note else ""
                label.set_text(fmt_duration(t) + ("  ← recommended" if best else "") + note)
                label.set_color(self.default_color)
            else:
                label.xy = (0, i)
                label.set_text("not available in this layout")
                label.set_color("grey")
        ax.set_ylim(len(cl.PATHS) - 0.5, -0.5)  # every row whole, whatever is drawn (inverted: Exp 1 on top)
        # the longest bar ends at 55 % of the axis: its label (time, mark, note) fits to its right
        ax.set_xlim(0, top / 0.55)
        xlabel = f"predicted deployment time (s), {fmt_bytes(size_bytes)} template"
        ax.set_xlabel(xlabel)
        return self.png(key=xlabel)


def deploy_whatif_update(size_bytes: float | None = None, layout: str = "different_hosts",
                         network_bps: float = cl.DEFAULT_NETWORK_BPS,
                         mgmt_network_bps: float = cl.DEFAULT_MGMT_NETWORK_BPS,
                         vcenter_vcpus: int = cl.DEFAULT_VCENTER_VCPUS,
                         decompression_streams: int = cl.DEFAULT_DECOMPRESSION_STREAMS):
    """Model + redraw for the deployment what-if: returns ``(readout, png_bytes)``.

    Bars: predicted time per path (greyed where the ``layout`` forbids the path); the readout names
    the recommended (fastest available) path, from :func:`vcperf.contentlib.recommend_path`. The
    figure is kept between calls; only the bars, their labels and the x axis change.
    ``size_bytes`` defaults to the study's template (``data/contentlib2015/figure04_deploy_time.csv``).
    """
    if size_bytes is None:
        size_bytes = cl.testbed().template_size_bytes
    rec = cl.recommend_path(layout, size_bytes, network_bps=network_bps, mgmt_network_bps=mgmt_network_bps,
                            vcenter_vcpus=vcenter_vcpus, decompression_streams=decompression_streams)
    st = cl.path_stages(rec.path, network_bps=network_bps, mgmt_network_bps=mgmt_network_bps,
                        vcenter_vcpus=vcenter_vcpus, decompression_streams=decompression_streams)
    rates = {**st.pipelined, **st.serial}
    slowest = min(rates, key=lambda k: float(rates[k]))
    iv = protocol.with_interval(cl.deploy_time_s, rec.path, size_bytes, network_bps=network_bps,
                                mgmt_network_bps=mgmt_network_bps, vcenter_vcpus=vcenter_vcpus,
                                decompression_streams=decompression_streams)
    cores = min(int(vcenter_vcpus), int(decompression_streams))
    note = (f"{decompression_streams} disk{'s' if decompression_streams != 1 else ''} decompressed on "
            f"{cores} of {vcenter_vcpus} vCPUs")
    readout = (
        f"{cl.LAYOUT_LABELS.get(rec.layout, rec.layout)}: recommended {cl.PATH_LABELS[rec.path]} — "
        f"{fmt_band(rec.time_s, float(iv.low), float(iv.high), interval=iv.interval)}; slowest stage "
        f"{slowest.replace('_', ' ')} ({fmt_bytes_per_s(float(rates[slowest]))}); streaming: {note}"
    )
    return readout, _WhatifPanel.shared().draw(rec, size_bytes, note)


def deploy_whatif(size_bytes: float | None = None, layout: str = "different_hosts",
                  network_bps: float = cl.DEFAULT_NETWORK_BPS, mgmt_network_bps: float = cl.DEFAULT_MGMT_NETWORK_BPS,
                  vcenter_vcpus: int = cl.DEFAULT_VCENTER_VCPUS,
                  decompression_streams: int = cl.DEFAULT_DECOMPRESSION_STREAMS):
    """The what-if panel: template size, storage layout, network speeds, vCenter vCPUs, parallel disks.

    ``size_bytes`` defaults to the study's template (``data/contentlib2015/figure04_deploy_time.csv``).
    """
    import ipywidgets as w

    size_bytes = cl.testbed().template_size_bytes if size_bytes is None else size_bytes
    cl.recommend_path(layout, size_bytes, network_bps=network_bps, mgmt_network_bps=mgmt_network_bps,
                      vcenter_vcpus=vcenter_vcpus, decompression_streams=decompression_streams)  # validates

    lay = w.Dropdown(options=[(cl.LAYOUT_LABELS[k], k) for k in cl.LAYOUTS], value=layout, description="layout")
    size = w.FloatLogSlider(value=size_bytes / 1e9, base=10, min=-1, max=4, step=typed_step(),
                            description="template GB", readout_format=TYPED_FORMAT)
    net = w.FloatLogSlider(value=network_bps / 1e9, base=10, min=-1, max=2, step=typed_step(),
                           description="data net Gbit/s", readout_format=TYPED_FORMAT)
    mgmt = w.FloatLogSlider(value=mgmt_network_bps / 1e9, base=10, min=-1, max=2, step=typed_step(),
                            description="mgmt net Gbit/s", readout_format=TYPED_FORMAT)
    vcpus = w.IntSlider(value=vcenter_vcpus, min=1, max=64, description="vCenter vCPUs")
    streams = w.IntSlider(value=decompression_streams, min=1, max=16, description="disks in parallel")
    style_sliders(size, net, mgmt, vcpus, streams)
    lay.style.description_width = "110px"
    lay.layout.width = "460px"  # as the sliders: the longest layout's label whole, not cut ("...different hos")
    return whatif_panel(
        [lay, size, net, mgmt, vcpus, streams],
        lambda layout, size_gb, net_gbps, mgmt_gbps, n_vcpus, n_streams: deploy_whatif_update(
            size_gb * 1e9, layout, net_gbps * 1e9, mgmt_gbps * 1e9, n_vcpus, n_streams),
    )


#: The what-if panels of the study, by tab title (the app's tabs: :func:`vcperf.views.panels`).
PANELS = {"Content Library": deploy_whatif}
