"""The VCHA enabling/failover what-if panel: registered VMs, vCPUs, clone bandwidth and PSC mode -> time to
enable VCHA and to be back after a failover, with their 90 % intervals (the pure
:func:`lifecycle_whatif_update`; :func:`lifecycle_whatif_table` gives the same as a table)."""

from __future__ import annotations

import numpy as np

from vcperf import plotting, protocol, vcha
from vcperf.plotting import PAPER_STYLE
from vcperf.views.format import fmt_band, fmt_bps, fmt_bytes, fmt_duration
from vcperf.views.vcha.common import enable_bars, rescale_from_zero, study_enable_times, study_failover_times
from vcperf.widgets import TYPED_FORMAT, PanelFigure, style_sliders, typed_step, whatif_panel


class _LifecyclePanel(PanelFigure):
    """:func:`~vcperf.views.vcha.figures.enable_figure` built once; :meth:`draw` moves the what-if bandwidth
    curve and the VM marker. The left panel (stacked bars at the study's inventories) does not depend on
    the inputs.
    """

    def __init__(self):
        super().__init__((9.6, 3.6), 2)
        fig, (ax, ax2) = self.fig, self.axes
        paper_vms, totals = enable_bars(ax)
        self.vms = np.linspace(0, 40000, 81)
        ax2.plot(self.vms, study_enable_times(self.vms, None).total_s / 60, "-", color="tab:orange",
                 label=f"model, {fmt_bps(vcha.testbed().clone_bandwidth_bps)}")
        (self.whatif,) = ax2.plot(self.vms, np.zeros_like(self.vms), "--", color="tab:orange", label="model, what-if")
        ax2.plot(paper_vms, totals, **PAPER_STYLE, label="paper total")
        (self.ready,) = ax2.plot(self.vms, np.zeros_like(self.vms), ":", color="tab:red", label="vpxd ready")
        self.mark = ax2.axvline(0.0, color="0.3", lw=0.8)
        ax2.set_xlabel("registered VMs")
        ax2.set_ylabel("enable VCHA, total (min)")
        texts = ax2.legend(frameon=False, fontsize=7).get_texts()
        self.legend_text, self.ready_text = texts[1], texts[3]
        plotting.fast_layout(fig)
        self.keep_background([self.whatif, self.ready, self.mark])

    def draw(self, bandwidth_bps: float, whatif_vms: float, vcpus: float, psc_mode: str) -> bytes:
        self.whatif.set_ydata(study_enable_times(self.vms, bandwidth_bps).total_s / 60)
        self.legend_text.set_text(f"model, {fmt_bps(bandwidth_bps)}")
        self.ready.set_ydata(study_failover_times(vcpus, self.vms, psc_mode).vpxd_ready_s / 60)
        self.ready_text.set_text(f"model, vpxd ready after failover, {vcpus:g} vCPUs, {psc_mode} PSC")
        self.mark.set_xdata([whatif_vms, whatif_vms])
        rescale_from_zero(self.axes[1])
        return self.png()


def _band(iv) -> str:
    """A duration with its interval (:class:`vcperf.protocol.Interval` of one value, s)."""
    return fmt_band(*(float(np.asarray(a).flat[0]) for a in (iv.value, iv.low, iv.high)), interval=iv.interval)


def lifecycle_whatif_update(registered_vms: float = 36864.0, vcpus: float = 32.0, clone_bandwidth_gbps: float = 10.0,
                            psc_mode: str = "external"):
    """Model + redraw for the enabling/failover what-if: returns ``(readout, png_bytes)``.

    The image is :func:`enable_figure` with the widget layout, drawn on one figure kept between
    calls: only the what-if bandwidth curve, its legend entry and the VM marker move.
    """
    bw = clone_bandwidth_gbps * 1e9
    e = study_enable_times(registered_vms, bw)
    f = study_failover_times(vcpus, registered_vms, psc_mode)
    png = _LifecyclePanel.shared().draw(bw, registered_vms, vcpus, psc_mode)
    ei = protocol.with_interval(vcha.enable_vcha_times, registered_vms, bw, output="total_s")
    fi = protocol.with_interval(vcha.failover_times, vcpus, registered_vms, psc_mode, output="vpxd_ready_s")
    clone = float(vcha.clone_bytes(registered_vms, vcha.calibrate().enable))
    readout = (
        f"{registered_vms:,.0f} VMs on {vcpus:g} vCPUs, clone network {fmt_bps(bw)}, {psc_mode} "
        f"Platform Services Controller (PSC): enable VCHA {_band(ei)}; "
        f"each clone {fmt_duration(float(e.clone_secondary_s))}, {fmt_bytes(clone)}; "
        f"failover: vpxd ready {_band(fi)}, Web Client inventory {fmt_duration(float(f.inventory_screen_s))}"
        + "".join(f" \u26a0 {flag}." for flag in f.flags)
    )
    return readout, png


def lifecycle_whatif_table(registered_vms: float = 36864.0, vcpus: float = 32.0, clone_bandwidth_gbps: float = 10.0,
                           psc_mode: str = "external"):
    """The enabling/failover what-if as a table, with 90 % intervals (:func:`vcperf.protocol.with_interval`)."""
    import pandas as pd

    bw = clone_bandwidth_gbps * 1e9
    rows = []
    for name, fn, args, out in (
            ("clone (each)", vcha.enable_vcha_times, (registered_vms, bw), "clone_secondary_s"),
            ("configure VCHA", vcha.enable_vcha_times, (registered_vms, bw), "configure_s"),
            ("enable VCHA, total", vcha.enable_vcha_times, (registered_vms, bw), "total_s"),
            ("failover: in progress page", vcha.failover_times, (vcpus, registered_vms, psc_mode), "in_progress_s"),
            ("failover: vpxd ready", vcha.failover_times, (vcpus, registered_vms, psc_mode), "vpxd_ready_s"),
            ("failover: Web Client inventory", vcha.failover_times, (vcpus, registered_vms, psc_mode),
             "inventory_screen_s")):
        iv = protocol.with_interval(fn, *args, output=out)
        rows.append((name, float(iv.value), float(iv.low), float(iv.high), "s"))
    return pd.DataFrame(rows, columns=["quantity", "model", "low_90", "high_90", "unit"])


def lifecycle_whatif(registered_vms: float = 36864.0, vcpus: float = 32.0, clone_bandwidth_gbps: float = 10.0,
                     psc_mode: str = "external"):
    """The enabling/failover what-if panel: inventory, vCPUs, clone bandwidth, PSC mode."""
    import ipywidgets as w

    vms = w.FloatSlider(value=registered_vms, min=0, max=40000, step=100, description="registered VMs",
                        readout_format=",.0f")
    cpu = w.FloatSlider(value=vcpus, min=2, max=64, step=1, description="vCPUs", readout_format=".0f")
    bw = w.FloatLogSlider(value=clone_bandwidth_gbps, base=10, min=-1, max=1.6, step=typed_step(),
                          description="clone Gbit/s", readout_format=TYPED_FORMAT)
    psc = w.Dropdown(options=["external", "embedded"], value=psc_mode, description="Platform Services Controller (PSC)")
    style_sliders(vms, cpu, bw, description_width="230px")
    psc.style.description_width, psc.layout.width = "230px", "460px"  # the label and the choice both whole
    return whatif_panel([vms, cpu, bw, psc], lifecycle_whatif_update)
