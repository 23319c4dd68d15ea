"""The vMotion what-if panel (``004_ea13268657e6b3b0.txt``): the pure :func:`migration_whatif_update` (model and
redraw) and the widget :func:`migration_whatif` built on it.
"""

from __future__ import annotations

import dataclasses
import math
import textwrap

import numpy as np

from vcperf import _validate as v
from vcperf import plotting, protocol
from vcperf import vmotion as vm
from vcperf.views.format import fmt_band, fmt_bps, fmt_bytes_per_s, fmt_duration, fmt_percent
from vcperf.views.vmotion.common import AMBER, GIB, RELEASE_COLOR, RELEASE_LABEL, until_recovered_s
from vcperf.vmotion.calibration import calibrate_free_ranges, calibrate_touched
from vcperf.widgets import TYPED_FORMAT, PanelFigure, fast_redraw, style_sliders, typed_step, whatif_panel

#: What the paper leaves open, each read the other way: the fit under that reading (the bands cover both).
_ASSUMPTIONS = {"if the freshly booted typical VM touched all its memory": calibrate_touched,
                "if 'an order of magnitude' were any gain in 3.16-31.6x": calibrate_free_ranges}


def _whatif_inputs(memory_gib, vcpus, dirty_rate_mb_per_s, working_set_gib, link_speed_gbps, link_count,
                   streams_per_vmknic, rtt_ms, encryption_gb_per_core_s, concurrent):
    v.nonneg("dirty_rate_mb_per_s", dirty_rate_mb_per_s)
    v.nonneg("encryption_gb_per_core_s", encryption_gb_per_core_s)
    p = vm.calibrate()
    mem = memory_gib * GIB
    kw = {"n_vmknics": link_count, "streams_per_vmknic": streams_per_vmknic, "rtt_s": rtt_ms / 1e3,
          "encryption_cpu_s_per_byte": 1.0 / (encryption_gb_per_core_s * 1e9) if encryption_gb_per_core_s > 0 else 0.0,
          "concurrent": concurrent}
    return (mem, vcpus, min(working_set_gib * GIB, mem), dirty_rate_mb_per_s * 1e6 / p.dirty_bytes_per_transaction,
            link_speed_gbps * 1e9 * link_count, kw)


def migration_whatif_readout(memory_gib: float = 64.0, vcpus: int = 12, dirty_rate_mb_per_s: float = 1000.0,
                             working_set_gib: float = 25.0, link_speed_gbps: float = 40.0, link_count: int = 4,
                             release: str = "7.0u1", streams_per_vmknic: int = 1, rtt_ms: float = 0.0,
                             encryption_gb_per_core_s: float = 0.0, concurrent: int = 1,
                             downtime_target_s: float = 1.0, evacuate_vms: int = 8) -> dict:
    """The what-if numbers: migration time and downtime with 90 % intervals, and the link a target needs.

    Intervals: :func:`vcperf.protocol.with_interval` on :func:`vcperf.vmotion.times_s` (both readouts
    in one delta-method pass over the calibration's covariance), widened to cover the values under
    the fits to the other reading of what the paper leaves open (``assumption_s``, by reading):
    the freshly booted typical VM touching all its memory instead of its SGA
    (:func:`vcperf.vmotion.calibration.calibrate_touched`), and "an order of magnitude" as a pure range
    (:func:`vcperf.vmotion.calibration.calibrate_free_ranges`). ``link_for_target_gbps``: smallest
    aggregate line rate (same vmknics and streams) with a switch-over stall within
    ``downtime_target_s`` (NaN: no link rate reaches it; ``link_for_target``, the
    :class:`vcperf.vmotion.LinkAnswer` of :func:`vcperf.vmotion.link_for_downtime`, names why).
    ``evacuation_s``: ``evacuate_vms`` such VMs moved off the host ``concurrent`` at a time
    (:func:`vcperf.vmotion.evacuation_time_s`; the two wave sizes in one vectorised call).
    ``sdps_throttle_fraction``, ``throttled_s``: the guest's SDPS throttle (share of its pace stunned
    away, and for how long) on this link; the link answer reports its own at its rate, never below
    VMware's 250 Mbit/s per concurrent migration without its ``"limit"`` flag.
    """
    mem, cpus, ws, tps, link_bps, kw = _whatif_inputs(memory_gib, vcpus, dirty_rate_mb_per_s, working_set_gib,
                                                       link_speed_gbps, link_count, streams_per_vmknic, rtt_ms,
                                                       encryption_gb_per_core_s, concurrent)
    args = (mem, cpus, ws, tps, release, link_bps)
    p, s = vm.calibrate(), vm.settings()
    r = protocol.with_interval(vm.times_s, *args, settings=s, **kw)
    # what the paper leaves open, carried into the bands: the fits under the other reading of each
    alt = {why: np.ravel(vm.times_s(*args, params=fit(), settings=s, **kw)) for why, fit in _ASSUMPTIONS.items()}
    names = ("migration_time_s", "switchover_time_s")
    out = {name: (float(r.value[i]), min(float(r.low[i]), *(float(a[i]) for a in alt.values())),
                  max(float(r.high[i]), *(float(a[i]) for a in alt.values()))) for i, name in enumerate(names)}
    out["assumption_s"] = {why: dict(zip(names, map(float, a), strict=True)) for why, a in alt.items()}
    out["migration"] = vm.migrate(*args, params=p, settings=s, **kw)
    out["sdps_throttle_fraction"] = float(out["migration"].sdps_throttle_fraction)
    out["throttled_s"] = float(out["migration"].throttled_s)
    out["link_for_target"] = vm.link_for_downtime(downtime_target_s, mem, cpus, ws, tps, release, params=p,
                                                  settings=s, **kw)
    out["link_for_target_gbps"] = out["link_for_target"].link_bps / 1e9
    n = int(evacuate_vms)
    k = min(int(concurrent), n)
    waves = np.array(sorted({k, n % k} - {0}), dtype=float)
    t_waves = np.atleast_1d(vm.migrate(*args, params=p, settings=s, **{**kw, "concurrent": waves}).migration_time_s)
    by_size = dict(zip(waves.astype(int).tolist(), t_waves.tolist(), strict=True))
    out["evacuation_s"] = vm.evacuation_time_s(n, k, by_size.__getitem__)
    return out


class _WhatifPanel(PanelFigure):
    """The what-if figure (guest throughput of both releases), built once; :meth:`draw` moves the lines."""

    def __init__(self):
        super().__init__((6.4, 3.4))
        fig, ax = self.fig, self.ax = self.fig, self.axes
        self.lines = {r: ax.step([0.0, 1.0], [100.0, 100.0], where="post", color=RELEASE_COLOR[r],
                                 label=RELEASE_LABEL[r])[0] for r in vm.RELEASES}
        ax.set_xlabel("time (s)")
        ax.set_ylabel("guest throughput (% of before)")
        ax.set_ylim(0, 110)
        # above the axes, in one row: inside them it covered the switch-over dips of one release or the other
        ax.legend(fontsize=7, frameon=False, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=2)
        # the result's flags (inputs beyond VMware's limits or the calibrated ranges), in amber
        self.flags = ax.text(0.01, 0.03, "", transform=ax.transAxes, fontsize=7, color=AMBER, ha="left",
                             va="bottom", zorder=5, bbox={"facecolor": "white", "alpha": 0.85, "edgecolor": AMBER})
        # the chosen release's SDPS throttle: the span its guest is stunned, shaded, and how hard, written
        self.throttle = ax.axvspan(0.0, 0.0, color=AMBER, alpha=0.15, lw=0, zorder=0)
        self.throttle_text = ax.text(0.99, 0.97, "", transform=ax.transAxes, fontsize=7, color="black", ha="right",
                                     va="top", zorder=5)
        plotting.fast_layout(fig, top=0.91)
        self.keep_background([*self.lines.values(), self.flags, self.throttle, self.throttle_text])

    def draw(self, migs, tps, release, flags=()) -> bytes:
        self.flags.set_text("\n".join(f"\u26a0 {f}" for f in _wrapped(flags)))
        shown = max(until_recovered_s(m) for m in migs.values())
        lead = 0.1 * shown + 1.0
        end = 2 * lead + shown
        for r, m in migs.items():
            # as a share of the baseline (the series is linear in it): an idle VM (0 tps) has a share too
            t, x = vm.throughput_series(dataclasses.replace(m, baseline_tps=np.float64(1.0)), 0.5, lead, end)
            line = self.lines[r]
            line.set_data(np.concatenate([[0.0], t]), np.concatenate([[100.0], 100 * x]))
            line.set_linewidth(2.4 if r == release else 1.0)
            line.set_alpha(1.0 if r == release else 0.6)
        self.ax.set_xlim(0.0, end)
        m = migs[release]
        frac, secs = float(np.ravel(m.sdps_throttle_fraction)[0]), float(np.ravel(m.throttled_s)[0])
        # the throttled re-send rounds end with the pre-copy
        stop = lead + float(m.trace_time_s) + float(m.precopy_time_s)
        self.throttle.set_x(stop - secs if frac > 0 else 0.0)
        self.throttle.set_width(secs if frac > 0 else 0.0)
        self.throttle_text.set_text(f"SDPS: vCPUs stunned {fmt_percent(frac)} of the time for {fmt_duration(secs)}"
                                    if frac > 0 else "")
        return self.png(key=release)


def _assumption_note(alt: dict) -> str:
    """The downtime under each other reading of what the paper leaves open (:data:`_ASSUMPTIONS`)."""
    return "; ".join(f"{fmt_duration(a['switchover_time_s'])} {why}" for why, a in alt.items())


def _wrapped(flags, width: int = 110) -> list:
    """The flags' messages cut into lines of at most ``width`` characters (the figure's width)."""
    return ["\n  ".join(textwrap.wrap(str(f), width)) for f in flags]


def _release_order_note(migs) -> str:
    """The mechanism when 7.0 U1 reads worse than 6.7 (:func:`vcperf.vmotion.migrate`, "Release order")."""
    old, new = migs["6.7"], migs["7.0u1"]
    notes = []
    if float(new.average_loss) > float(old.average_loss) * (1 + 1e-9):
        notes.append("7.0 U1's average loss is higher here because its migration is shorter (no stop-based "
                     "trace phase, no destination zeroing), so the same switch-over stall weighs more in the "
                     "average; the work it loses is not larger")
    if float(new.switchover_time_s) > float(old.switchover_time_s) * (1 + 1e-9):
        notes.append("7.0 U1's downtime is longer here because its guest, slowed less by tracing, dirties "
                     "memory faster, so more is left at the last round boundary")
    return "".join(f"; {n}" for n in notes)


def _rounds(rounds) -> str:
    """The pre-copy's round count (-1: open-ended, no convergence)."""
    n = int(np.ravel(rounds)[0])
    return "open-ended rounds" if n < 0 else f"{n} round{'' if n == 1 else 's'}"


def _flags_note(flags) -> str:
    """The result's flags (``"unsupported: ..."``, ``"extrapolated: ..."``), one after another."""
    return "".join(f"; \u26a0 {f}" for f in flags)


def _throttle_note(m) -> str:
    """The guest's SDPS throttle of a scalar migration (``""`` when SDPS is not engaged)."""
    frac, secs = float(np.ravel(m.sdps_throttle_fraction)[0]), float(np.ravel(m.throttled_s)[0])
    return "" if frac <= 0.0 else (f", stun during page send (SDPS) engaged: it throttles the guest (vCPUs stunned "
                                   f"{fmt_percent(frac)} of the time) for {fmt_duration(secs)}")


def _link_note(ans, target: str, vcpus, mem, p) -> str:
    """What link a downtime target needs (:class:`vcperf.vmotion.LinkAnswer`) and what it costs there."""
    if not ans.feasible:
        if ans.bottleneck == "checkpoint":
            ckpt = float(vm.switchover_checkpoint_s(vcpus, mem, params=p))
            return (f"no link meets a stall under {target}: below the switch-over checkpoint "
                    f"({fmt_duration(ckpt)}: device state, {vcpus:g} vCPUs stopped and resumed and the memory mapped, "
                    f"whatever the link)")
        return f"no link rate brings the stall under {target}: {ans.reason.removeprefix('infeasible: ')}"
    limit = [f for f in ans.flags if f.kind == "limit"]
    if limit:
        head = (f"a stall under {target} needs {fmt_bps(ans.link_bps)} in all: VMware's minimum "
                f"({fmt_bps(limit[0].limit)}), the model alone would meet it with "
                f"{'at most ' if ans.target_only_bps <= 1e8 * (1 + 1e-9) else ''}{fmt_bps(ans.target_only_bps)}")
    else:
        head = f"a stall under {target} needs {fmt_bps(ans.link_bps)} in all"
    cost = f"migration {fmt_duration(ans.migration_time_s)} there"
    if ans.sdps_throttle_fraction > 0:
        cost += (f", guest throttled by SDPS {fmt_percent(ans.sdps_throttle_fraction)} for "
                 f"{fmt_duration(ans.throttled_s)}")
    return f"{head} ({cost})"


@fast_redraw
def migration_whatif_update(memory_gib: float = 64.0, vcpus: int = 12, dirty_rate_mb_per_s: float = 1000.0,
                            working_set_gib: float = 25.0, link_speed_gbps: float = 40.0, link_count: int = 4,
                            release: str = "7.0u1", streams_per_vmknic: int = 1, rtt_ms: float = 0.0,
                            encryption_gb_per_core_s: float = 0.0, concurrent: int = 1,
                            downtime_target_s: float = 1.0, evacuate_vms: int = 8):
    """Model + redraw for the migration what-if: returns ``(readout, png_bytes)``.

    Link rate and dirty rate are set separately (the dirty rate sets the guest's transactions/s
    through the calibrated bytes per transaction); vmknics (one NIC each), streams per vmknic, RTT,
    encryption (AES rate of one core, 0 = off), concurrent migrations sharing the NICs, and a
    downtime target. The guest's throughput is drawn as % of the undisturbed throughput for both
    releases (the chosen one thick), sampled every 0.5 s; the figure is kept between calls and only
    the two lines and the time axis move. Durations read in the unit people use (µs, ms, s, min, h)
    with their 90 % intervals.
    """
    mem, cpus, ws, tps, link_bps, kw = _whatif_inputs(memory_gib, vcpus, dirty_rate_mb_per_s, working_set_gib,
                                                       link_speed_gbps, link_count, streams_per_vmknic, rtt_ms,
                                                       encryption_gb_per_core_s, concurrent)
    p, s = vm.calibrate(), vm.settings()
    ro = migration_whatif_readout(memory_gib, vcpus, dirty_rate_mb_per_s, working_set_gib, link_speed_gbps,
                                  link_count, release, streams_per_vmknic, rtt_ms, encryption_gb_per_core_s,
                                  concurrent, downtime_target_s, evacuate_vms)
    other = [r for r in vm.RELEASES if r != release][0]
    migs = {release: ro["migration"],
            other: vm.migrate(mem, cpus, ws, tps, other, link_bps, params=p, settings=s, **kw)}
    migs = {r: migs[r] for r in vm.RELEASES}
    m = migs[release]
    png = _WhatifPanel.shared().draw(migs, tps, release, m.flags)
    pc = m.precopy
    conv = "converged" if bool(np.all(pc.converged)) else str(np.ravel(pc.reason)[0])
    sdps = _throttle_note(m)
    target = fmt_duration(downtime_target_s)
    need_txt = _link_note(ro["link_for_target"], target, cpus, mem, p)
    rtt_txt = (f"RTT {fmt_duration(rtt_ms / 1e3)}: the switch-over's 1.5 round trips and the remote-page fetch after "
               f"resume lengthen the downtime; the "
               f"socket buffers follow the bandwidth-delay product up to {s.max_socket_buffer_bytes / 2**20:g} MiB, "
               f"past which each stream is window-bound" if rtt_ms > 0 else "RTT 0 ms")
    aes_txt = ("no encryption" if encryption_gb_per_core_s <= 0 else
               f"AES {fmt_bytes_per_s(encryption_gb_per_core_s * 1e9)} per core")
    readout = (
        f"{RELEASE_LABEL[release]}: {memory_gib:.4g} GiB, {vcpus} vCPUs, "
        f"{link_count} x {fmt_bps(link_speed_gbps * 1e9)} "
        f"({link_count * streams_per_vmknic:g} stream{'' if link_count * streams_per_vmknic == 1 else 's'}"
        f"{', those on one NIC contend for it' if streams_per_vmknic > 1 else ''}, {rtt_txt}, {aes_txt}"
        f"; {fmt_bytes_per_s(float(pc.transfer_rate_bytes_per_s))}"
        f"): "
        f"migration {fmt_band(*ro['migration_time_s'], interval=protocol.INTERVAL)} "
        f"(trace {fmt_duration(float(m.trace_time_s))}, "
        f"pre-copy {fmt_duration(float(m.precopy_time_s))} in {_rounds(pc.rounds)}), "
        f"downtime {fmt_band(*ro['switchover_time_s'], interval=protocol.INTERVAL)} (the bands cover what the "
        f"paper leaves open: {_assumption_note(ro['assumption_s'])}), {conv}{sdps}; "
        f"average throughput loss {fmt_percent(float(m.average_loss))}; {need_txt}; evacuating {evacuate_vms} such "
        f"VMs {concurrent} at a time takes {fmt_duration(ro['evacuation_s'])}"
        f"{_release_order_note(migs)}{_flags_note(m.flags)}"
    )
    return readout, png


def migration_whatif(memory_gib: float = 64.0, vcpus: int = 12, dirty_rate_mb_per_s: float = 1000.0,
                     working_set_gib: float = 25.0, link_speed_gbps: float = 40.0, link_count: int = 4,
                     release: str = "7.0u1", streams_per_vmknic: int = 1, rtt_ms: float = 0.0,
                     encryption_gb_per_core_s: float = 0.0, concurrent: int = 1, downtime_target_s: float = 1.0,
                     evacuate_vms: int = 8):
    """The vMotion what-if panel: VM, dirty rate, links and streams, RTT, encryption, sharing, target."""
    import ipywidgets as w

    # the ranges of the notebook's parameters cell (notebooks/vmotion_precopy.py): 2 GiB - 6 TiB, 0 (idle) - 5 GB/s
    mem = w.FloatLogSlider(value=memory_gib, base=2, min=1, max=math.log2(6144), step=typed_step(2),
                           description="memory GiB", readout_format=TYPED_FORMAT)
    cpus = w.IntSlider(value=vcpus, min=1, max=1024, description="vCPUs")  # past 7.0 U1's 768: flagged
    dirty = w.FloatLogSlider(value=max(dirty_rate_mb_per_s, 0.1), base=10, min=-1, max=math.log10(5000),
                             step=typed_step(),
                             description="dirty MB/s", readout_format=TYPED_FORMAT)
    idle = w.Checkbox(value=dirty_rate_mb_per_s == 0, description="idle VM (dirty rate 0)")
    wset = w.FloatLogSlider(value=working_set_gib, base=2, min=-2, max=math.log2(6144), step=typed_step(2),
                            description="working set GiB", readout_format=TYPED_FORMAT)
    speed = w.Dropdown(options=[1.0, 10.0, 25.0, 40.0, 100.0], value=link_speed_gbps, description="link Gbit/s")
    count = w.IntSlider(value=link_count, min=1, max=8, description="vmknics")
    rel = w.Dropdown(options=[(RELEASE_LABEL[r], r) for r in vm.RELEASES], value=release, description="release")
    streams = w.IntSlider(value=streams_per_vmknic, min=1, max=8, description="streams/vmknic")
    rtt = w.FloatSlider(value=rtt_ms, min=0.0, max=2 * vm.MAX_SUPPORTED_RTT_S * 1e3, step=1.0, description="RTT ms",
                        readout_format=TYPED_FORMAT)
    enc = w.FloatSlider(value=encryption_gb_per_core_s, min=0.0, max=10.0, step=0.25,
                        description="AES GB/s/core (0 off)", readout_format=TYPED_FORMAT)
    conc = w.IntSlider(value=concurrent, min=1, max=8, description="concurrent")
    target = w.FloatSlider(value=downtime_target_s, min=0.1, max=5.0, step=0.05, description="downtime target s",
                           readout_format=TYPED_FORMAT)
    evac = w.IntSlider(value=evacuate_vms, min=1, max=64, description="VMs to evacuate")
    # wider labels: "AES GB/s/core (0 off)" and "downtime target s" were cut at the default 110 px
    style_sliders(mem, cpus, dirty, wset, count, streams, rtt, enc, conc, target, evac, description_width="150px",
                  width="470px")  # the app's control column (widgets.CONTROLS_WIDTH_PX)
    for d in (speed, rel):
        d.style.description_width = "150px"

    def update(m, c, d, is_idle, *rest):  # the checkbox sets the dirty rate to 0 (a log slider cannot)
        return migration_whatif_update(m, c, 0.0 if is_idle else d, *rest)

    return whatif_panel([mem, cpus, dirty, idle, wset, speed, count, rel, streams, rtt, enc, conc, target, evac],
                        update)
