"""The FT tab: "can this VM run FT on this link?" -- the VM's vCPUs and uplink, the FT logging link and how
many FT VMs share it, the checkpoint interval, receive and dirty rates -> the VM's throughput with FT on
and off, the share of time it is stunned, the logging link's load, added latency per packet, FT-on/off
throughput of reference workloads (each with its 90 % interval) and the flags (the pure
:func:`whatif_update` and :func:`whatif_intervals`; :func:`whatif` wires the widgets)."""

from __future__ import annotations

import numpy as np

from vcperf import _validate as v
from vcperf import ft, plotting, protocol
from vcperf.views.format import fmt_band, fmt_bps, fmt_duration, fmt_percent
from vcperf.views.ft.common import INTERVAL_GRID_S, LOG, ON, RECEIVE_GRID_BPS
from vcperf.widgets import TYPED_FORMAT, PanelFigure, style_sliders, typed_step, whatif_panel, within_steps


class _WhatifPanel(PanelFigure):
    """The what-if figure, built once; :meth:`draw` moves its curves, points and the link-rate line."""

    def __init__(self):
        from matplotlib.ticker import FuncFormatter

        super().__init__((9.6, 3.6), 2)
        fig, (ax, ax2) = self.fig, self.axes
        (self.delay,) = ax.loglog(INTERVAL_GRID_S * 1e3, np.ones_like(INTERVAL_GRID_S), color=ON, label="model")
        (self.delay_here,) = ax.plot([1.0], [1.0], "o", color=LOG, label="this setting")
        ax.set_xlabel("checkpoint interval (ms)")
        ax.set_ylabel("added latency per packet (ms)")
        ax.set_title("output-commit delay", fontsize=9)
        plain = FuncFormatter(lambda x, _: f"{x:g}")  # 0.1, 1, 10 rather than powers of ten
        ax.xaxis.set_major_formatter(plain)
        ax.yaxis.set_major_formatter(plain)
        (self.traffic,) = ax2.plot(RECEIVE_GRID_BPS / 1e9, np.zeros_like(RECEIVE_GRID_BPS), color=ON)
        (self.traffic_here,) = ax2.plot([0.0], [0.0], "o", color=LOG)
        self.link = ax2.axhline(0.0, color="grey", ls="--", lw=1, label="FT link rate")
        ax2.set_xlabel("data received while running (Gbit/s)")
        ax2.set_ylabel("FT logging traffic (Gbit/s)")
        ax2.set_title("FT link load", fontsize=9)
        # one legend for both panels, above the right panel's frame: never over a curve. It belongs to an
        # Axes and sits, like the titles, below the moving artists' z-order, so PanelCanvas keeps it in the
        # cached background instead of redrawing its text on every update.
        leg = ax2.legend([self.delay, self.delay_here, self.link], ["model", "this setting", "FT link rate"],
                         loc="upper right", ncol=3, frameon=False, fontsize=7, bbox_to_anchor=(0.985, 1.0),
                         bbox_transform=fig.transFigure)
        leg.set_zorder(3)
        for a in (self.delay, self.delay_here, self.traffic, self.traffic_here, self.link):
            a.set_zorder(4)
        plotting.fast_layout(fig, left=0.075, right=0.985, bottom=0.15, top=0.84)
        fig.subplots_adjust(wspace=0.28)
        self.keep_background([self.delay, self.delay_here, self.traffic, self.traffic_here, self.link])

    def draw(self, total, e, link, rx, d, cyc, vm=None) -> bytes:
        vm = vm or {}
        self.delay.set_ydata(ft.output_commit_delay_s(total, INTERVAL_GRID_S, link, **vm) * 1e3)
        self.delay_here.set_data([e * 1e3], [float(cyc.output_commit_delay_s) * 1e3])
        self.traffic.set_ydata(ft.ft_logging_bandwidth_bps(RECEIVE_GRID_BPS, d, e, link, **vm) / 1e9)
        self.traffic_here.set_data([rx / 1e9], [float(cyc.logging_bandwidth_bps) / 1e9])
        self.link.set_ydata([link / 1e9, link / 1e9])
        # limits snapped to a coarse grid (quarter decades; halves of a decade step): a small move of a
        # control keeps the axes, so the canvas reuses its cached background (ticks, labels, legend)
        ax, ax2 = self.axes
        delay_ms = np.append(self.delay.get_ydata(), float(cyc.output_commit_delay_s) * 1e3)
        q = 4.0
        ax.set_xlim(INTERVAL_GRID_S[0] * 1e3 / 1.25, max(INTERVAL_GRID_S[-1], e) * 1e3 * 1.25)
        ax.set_ylim(10 ** (np.floor(np.log10(delay_ms.min() / 1.1) * q) / q),
                    10 ** (np.ceil(np.log10(delay_ms.max() * 1.1) * q) / q))
        top = max(float(np.max(self.traffic.get_ydata())), link / 1e9, float(cyc.logging_bandwidth_bps) / 1e9) * 1.05
        step = 10 ** np.floor(np.log10(top)) / 2.0
        ax2.set_xlim(-0.5, max(RECEIVE_GRID_BPS[-1], rx) / 1e9 + 0.5)
        ax2.set_ylim(0.0, np.ceil(top / step) * step)
        return self.png()


def _whatif_values(e, link, rx, d, vcpus=1, n_ft_vms=1):
    """The readout quantities at checkpoint interval ``e`` (array of 5) and the cycle at this setting: a VM
    of ``vcpus`` among ``n_ft_vms`` identical FT VMs on the logging link (shared work-conservingly)."""
    total = d + ft.DEFAULT_LOGGED_BYTES_PER_RECEIVED_BYTE * rx / 8.0
    vm = {"vcpus": vcpus, "n_ft_vms": n_ft_vms}
    cyc = ft.checkpoint_cycle(total, e, link, **vm)
    rr = ft.tcp_rr(e, ft_link_bps=link, guest_dirty_rate_bytes_per_s=total, **vm)
    ds = ft.database_workload("dvdstore", checkpoint_interval_s=e, ft_link_bps=link,
                              background_dirty_rate_bytes_per_s=total, n_ft_vms=n_ft_vms)
    vals = np.array([float(cyc.logging_bandwidth_bps), float(cyc.output_commit_delay_s), 1.0 / rr.rate_ratio,
                     float(cyc.run_fraction), ds.throughput_ratio])
    return vals, total, cyc, tuple(dict.fromkeys(cyc.flags + tuple(ds.flags)))


def whatif_intervals(ft_link_bps: float = 10e9, checkpoint_interval_s: float | None = None,
                     receive_rate_bps: float = 1e9, dirty_rate_bytes_per_s: float = 100e6,
                     interval: float = protocol.INTERVAL, vcpus: int = 1, n_ft_vms: int = 1):
    """The what-if readout quantities with their predictive intervals: ``(value, low, high)`` arrays of 5.

    Order: FT logging bandwidth (bit/s), added latency per packet (s), and FT-on/off throughput of TCP_RR,
    a CPU-bound job and the DVD Store closed loop. :meth:`vcperf.protocol.Calibration.interval`'s delta
    method: the readouts depend on the calibration only through the checkpoint interval, so with the
    calibrated one (``None``) its covariance propagates through each readout's sensitivity (two extra
    model calls); a checkpoint interval set by hand is an
    input without calibration uncertainty, so only the study's model-form misfit remains. ``vcpus``: the
    VM's (1..the release's SMP-FT limit); ``n_ft_vms``: FT VMs like it on the logging link (>= 1).
    """
    link = float(v.positive("ft_link_bps", ft_link_bps))
    vcpus = ft.check_ft_vcpus(vcpus)
    n_ft_vms = v.integer("n_ft_vms", n_ft_vms, 1, 64)
    rx = float(v.nonneg("receive_rate_bps", receive_rate_bps))
    d = float(v.nonneg("dirty_rate_bytes_per_s", dirty_rate_bytes_per_s))
    v.check_range("interval", interval, 0.0, 1.0, lo_open=True, hi_open=True)
    calibrated = checkpoint_interval_s is None
    cal = protocol.calibration(ft.STUDY)
    e = cal.params.checkpoint_interval_s if calibrated else float(
        v.positive("checkpoint_interval_s", checkpoint_interval_s))
    vals, total, cyc, flags = _whatif_values(e, link, rx, d, vcpus, n_ft_vms)
    if calibrated:  # the readouts read the calibration through the checkpoint interval alone
        vals, g = cal.gradient(lambda q: vals if q is cal.params else _whatif_values(
            q.checkpoint_interval_s, link, rx, d, vcpus, n_ft_vms)[0], reads=("checkpoint_interval_s",))
    else:  # an interval set by hand is an input without calibration uncertainty: the misfit alone
        g = np.zeros(vals.shape + (len(cal.param_names),))
    iv = cal.band(vals, g, interval=interval)
    high = np.asarray(iv.high, dtype=float).copy()
    high[3:] = np.minimum(high[3:], 1.0)  # FT on/off throughput ratios: FT never speeds a VM up
    return vals, iv.low, high, (e, total, cyc, flags)


#: Above this share of time stunned the logging link's load is no headroom: the link's rate, not its spare
#: capacity, sets the VM's pace (a presentation threshold of the readout, not a model parameter).
STUNNED_NO_HEADROOM = 0.25


def vm_throughput_bps(uplink_bps: float, checkpoint_interval_s: float, ft_link_bps: float, vcpus: int = 1,
                      n_ft_vms: int = 1, dirty_rate_bytes_per_s: float = 0.0) -> tuple:
    """``(FT off, FT on)`` receive throughput (payload bit/s) the VM reaches on its uplink: the netperf
    model of Figures 3-4 (:func:`vcperf.ft.netperf_throughput_bps`, the seed's 8 streams x 4 MB) with
    the guest stack's assumed :data:`vcperf.ft.DEFAULT_GUEST_STACK_BPS_PER_VCPU` per vCPU, the FT link
    shared with ``n_ft_vms - 1`` VMs receiving as hard (each its fair share)."""
    kw = dict(ft.netperf_setup())
    kw.pop("message_bytes", None)
    off, on = (float(ft.netperf_throughput_bps(uplink_bps, "receive", fe, checkpoint_interval_s, ft_link_bps,
                                               guest_dirty_rate_bytes_per_s=dirty_rate_bytes_per_s, vcpus=vcpus,
                                               n_ft_vms=n_ft_vms, **kw)) for fe in (False, True))
    return off, on


def whatif_update(ft_link_bps: float = 10e9, checkpoint_interval_s: float | None = None, receive_rate_bps: float = 1e9,
                  dirty_rate_bytes_per_s: float = 100e6, vcpus: int = 1, uplink_bps: float = 10e9,
                  n_ft_vms: int = 1):
    """Model + redraw for the FT tab: returns ``(readout, png_bytes)``.

    Answers "can this VM run FT on this link": the VM (``vcpus``, ``uplink_bps``) among ``n_ft_vms``
    identical FT VMs on the logging link (``ft_link_bps``, shared work-conservingly). Readout (sentences
    separated by "; ", formatted for people): the VM's receive throughput with FT off and on on its
    uplink (:func:`vm_throughput_bps`, the guest stack's assumed rate per vCPU stated); at the offered
    receive and dirty rates, the share of time it is stunned, its FT logging bandwidth and the logging
    link's load from all the FT VMs (as headroom only when the VM is stunned less than
    :data:`STUNNED_NO_HEADROOM`), the added latency per packet, and the FT-on/off throughput of the
    TCP_RR benchmark, a CPU-bound job and the DVD Store closed loop (with this memory load) -- those
    five with their 90 % predictive interval "x (lo–hi, 90 %)" (:func:`whatif_intervals`) -- then the
    flags. The figure (added latency vs checkpoint interval, FT logging traffic vs received data) is kept
    between calls; only its curves, points and the link-rate line move.
    """
    link = float(v.positive("ft_link_bps", ft_link_bps))
    rx = float(v.nonneg("receive_rate_bps", receive_rate_bps))
    d = float(v.nonneg("dirty_rate_bytes_per_s", dirty_rate_bytes_per_s))
    up = float(v.positive("uplink_bps", uplink_bps))
    val, lo, hi, (e, total, cyc, flags) = whatif_intervals(link, checkpoint_interval_s, rx, d, vcpus=vcpus,
                                                           n_ft_vms=n_ft_vms)
    hi_share = np.minimum(hi[2:], 1.0)  # a share of FT-off throughput never exceeds 1

    def band(fmt, i, high):
        return fmt_band(val[i], lo[i], high, fmt=fmt, interval=protocol.INTERVAL)

    off, on = vm_throughput_bps(up, e, link, vcpus, n_ft_vms, d)
    stack = min(vcpus, ft.netperf_setup()["streams"]) * ft.DEFAULT_GUEST_STACK_BPS_PER_VCPU
    stunned = 1.0 - float(cyc.run_fraction)
    logging, load = val[0], n_ft_vms * val[0] / link
    vms = f"{n_ft_vms} FT VMs" if n_ft_vms > 1 else "1 FT VM"
    if stunned < STUNNED_NO_HEADROOM:
        link_note = (f"the FT link carries {fmt_bps(n_ft_vms * logging)} for {vms} ({fmt_percent(load)} busy: "
                     f"headroom {fmt_bps(max(link - n_ft_vms * logging, 0.0))})")
    else:
        link_note = (f"\u26a0 the VM is stunned {fmt_percent(stunned)} of the time: the FT link's rate, not spare "
                     f"capacity, sets its pace (the link carries {fmt_bps(n_ft_vms * logging)} for {vms}, "
                     f"{fmt_percent(load)} of its rate; no headroom)")
    readout = (
        f"{vcpus} vCPU{'s' if vcpus > 1 else ''}, {fmt_bps(up)} uplink, {fmt_bps(link)} FT link shared by {vms}: "
        f"the VM receives at most {fmt_bps(off)} FT off and {fmt_bps(on)} FT on ({fmt_percent(on / off)} of FT off; "
        f"guest stack assumed {fmt_bps(ft.DEFAULT_GUEST_STACK_BPS_PER_VCPU)} per vCPU, {fmt_bps(stack)} here); "
        f"at {fmt_bps(rx)} received and {d / 1e6:.0f} MB/s dirtied: stunned {fmt_percent(stunned)} of the time, "
        f"FT logging {band(fmt_bps, 0, hi[0])}; {link_note}; "
        f"added latency per packet {band(fmt_duration, 1, hi[1])}; "
        f"throughput with FT, as a share of FT off: TCP_RR {band(fmt_percent, 2, hi_share[0])}, "
        f"CPU-bound job {band(fmt_percent, 3, hi_share[1])}, DVD Store {band(fmt_percent, 4, hi_share[2])}"
        + (f"; \u26a0 {fmt_bps(rx)} offered is more than the VM receives with FT on" if rx > on else "")
        + "".join(f"; \u26a0 {flag}" for flag in flags)  # inputs beyond VMware's documented FT limits
    )
    return readout, _WhatifPanel.shared().draw(total, e, link, rx, d, cyc, {"vcpus": vcpus, "n_ft_vms": n_ft_vms})


def _wrapping(panel):
    """``panel`` (a :func:`vcperf.widgets.whatif_panel` VBox) with its readout shown so that it wraps.

    The shared panel's Label does not wrap; an HTML widget mirrors it (the Label stays, hidden) and
    breaks lines at the panel's width.
    """
    import html

    import ipywidgets as w

    label = next(c for c in panel.children if isinstance(c, w.Label))
    box = w.HTML(layout=w.Layout(width="100%", max_width="960px"))

    def mirror(*_):
        box.value = f'<div style="white-space: normal; line-height: 1.4">{html.escape(label.value)}</div>'

    label.observe(mirror, names="value")
    mirror()
    label.layout.display = "none"
    children = list(panel.children)
    children.insert(children.index(label) + 1, box)
    panel.children = tuple(children)
    return panel


def whatif(ft_link_bps: float = 10e9, checkpoint_interval_s: float | None = None,
           receive_rate_bps: float = 1e9, dirty_rate_bytes_per_s: float = 100e6, vcpus: int | None = None,
           uplink_bps: float = 10e9, n_ft_vms: int = 1):
    """The FT tab: the VM's vCPUs and uplink, the FT link's speed and its FT-VM count, checkpoint
    interval, receive rate, dirty rate (``vcpus`` None: the seed's netperf VM, 4)."""
    import ipywidgets as w

    e = ft.calibrate().checkpoint_interval_s if checkpoint_interval_s is None else checkpoint_interval_s
    cpus = w.IntSlider(value=ft.testbed().netperf_vcpus if vcpus is None else vcpus, min=1,
                       max=ft.FT_MAX_VCPUS[ft.DEFAULT_RELEASE], step=1, description="VM vCPUs")
    uplink = w.FloatLogSlider(value=uplink_bps / 1e9, base=10, min=-1, max=2, step=typed_step(),
                              description="uplink Gbit/s", readout_format=TYPED_FORMAT)
    link = w.FloatLogSlider(value=ft_link_bps / 1e9, base=10, min=0, max=2, step=typed_step(),
                            description="FT link Gbit/s", readout_format=TYPED_FORMAT)
    vms = w.IntSlider(value=n_ft_vms, min=1, max=8, step=1, description="FT VMs on link")
    interval = w.FloatLogSlider(value=e * 1e3, base=10, min=-0.5, max=2, step=typed_step(), description="interval ms",
                                readout_format=TYPED_FORMAT)
    rx = w.FloatSlider(value=receive_rate_bps / 1e9, min=0, max=10, step=0.05, description="receive Gbit/s",
                       readout_format=TYPED_FORMAT)
    dirty = w.FloatSlider(value=dirty_rate_bytes_per_s / 1e6, min=0, max=2000, step=10, description="dirty MB/s",
                          readout_format=TYPED_FORMAT)
    style_sliders(cpus, uplink, link, vms, interval, rx, dirty)
    start_ms = interval.value  # the slider at its start: the calibrated interval, with its uncertainty
    calibrated = checkpoint_interval_s is None

    def at_start(interval_ms):  # within half a slider step (a front end may snap the start value)
        return calibrated and within_steps(interval, start_ms, interval_ms, 0.5)

    return _wrapping(whatif_panel(
        [cpus, uplink, link, vms, interval, rx, dirty],
        lambda n_cpus, uplink_gbps, link_gbps, n_vms, interval_ms, rx_gbps, dirty_mb_s: whatif_update(
            link_gbps * 1e9, None if at_start(interval_ms) else interval_ms / 1e3, rx_gbps * 1e9, dirty_mb_s * 1e6,
            vcpus=int(n_cpus), uplink_bps=uplink_gbps * 1e9, n_ft_vms=int(n_vms)),
    ))
