"""ROBO branch-link planner (notebook robo_background_and_statistics): hosts behind one shared link --
the offered load of every flow and its verdict (:func:`vcperf.robo.plan`), an operation's latency
during a statistics burst, the smallest link for a target -- as a figure and as the capacity panel."""

from __future__ import annotations

import functools

import numpy as np

from vcperf import network, plotting, robo
from vcperf.robo import readouts
from vcperf.views.format import fmt_bps, fmt_bytes, fmt_duration, fmt_num, fmt_percent
from vcperf.views.robo.common import (
    LEVEL_LABELS,
    START_PRESET,
    band,
    lean_axes,
    link_controls,
    start_link,
    testbed_vms,
)
from vcperf.widgets import (
    TYPED_FORMAT,
    PanelFigure,
    fast_redraw,
    readout_label,
    readout_style,
    style_sliders,
    typed_step,
)

#: Data tables whose misfit the planner's bands carry (:mod:`vcperf.robo.readouts`).
LATENCY_TABLE, UPLOAD_TABLE = readouts.LATENCY_TABLE, readouts.UPLOAD_TABLE

#: Largest VMs per host of the planner (the slider's max and the notebook parameter's range).
PLANNER_MAX_VMS = 200
#: The statistics level the planner starts on: the notebook's ``planner_level`` (the paper's Level-4 case).
START_LEVEL = 4


def _planner_curves(link, level, powered_on_vms, max_hosts, operation="clone_vm"):
    hosts = np.unique(np.round(np.logspace(0, np.log10(max_hosts), 60)))
    return hosts, robo.plan(link, hosts, level, operation, powered_on_vms)


def _finite(values):
    """``values`` as floats with the overload's infinite times as NaN (a gap in the plotted curve)."""
    v = np.asarray(values, dtype=float)
    return np.where(np.isfinite(v), v, np.nan)


def _at(load, name: str, i: int):
    """Entry ``i`` of field ``name`` of a :func:`vcperf.robo.plan` result, broadcast to its offered load
    (a scalar result has one entry)."""
    return np.ravel(np.broadcast_to(getattr(load, name), np.shape(load.offered_load)))[i]


def verdict_text(load, i=-1) -> str:
    """"offered load 160 % of the uplink: overloaded (host sync dominates)" for entry ``i`` of a
    :func:`vcperf.robo.plan` result: every flow counted, the busier direction, the model's verdict and
    dominant flow."""
    direction = "uplink" if float(_at(load, "offered_load_up", i)) >= float(_at(load, "offered_load_down", i)) \
        else "downlink"
    dominant = str(_at(load, "dominant_flow", i)).replace("_", " ")
    return (f"offered load {fmt_percent(float(_at(load, 'offered_load', i)))} of the {direction}: "
            f"{_at(load, 'verdict', i)} ({dominant} dominates)")


@functools.lru_cache(maxsize=64)
def _required_bps(target_s, n_hosts, rtt_s, loss, level, powered_on_vms, operation):
    """:func:`vcperf.robo.required_bandwidth_bps` (a bisection over the model, ~40 ms), cached: it does not
    depend on the link's bandwidth, so moving the bandwidth slider reuses it."""
    return float(robo.required_bandwidth_bps(target_s, n_hosts, rtt_s, loss, level, "operation_latency", operation,
                                             powered_on_vms))


@functools.lru_cache(maxsize=64)
def _latency_floor_s(n_hosts, rtt_s, loss, level, powered_on_vms, operation):
    return float(robo.plan(network.Link(1e12, rtt_s, loss), n_hosts, level, operation,
                           powered_on_vms).operation_latency_s)


def _required_text(target_s, link, n_hosts, level, powered_on_vms, operation):
    key = (float(n_hosts), float(link.rtt_s), float(link.loss), int(level), float(powered_on_vms), operation)
    need = _required_bps(float(target_s), *key)
    if need <= robo.branch.SEARCH_RANGE_BPS[0]:
        return f"{operation} stays under {fmt_duration(target_s)} on any link (from {fmt_bps(need)})"
    if not np.isfinite(need):
        return (f"no bandwidth keeps {operation} under {fmt_duration(target_s)} at this RTT/loss "
                f"(at least {fmt_duration(_latency_floor_s(*key))})")
    return f"smallest link for {operation} <= {fmt_duration(target_s)}: {fmt_bps(need)}"


def capacity_figure(link, n_hosts, level, powered_on_vms, powered_on_vms_sd=0.0, max_hosts=500,
                    operation="clone_vm"):
    """Branch planner: the shared link's offered load (every flow, busier direction) and an operation's
    latency during a statistics burst, vs hosts behind ``link`` (:func:`vcperf.robo.plan`); an
    overloaded link has no finite time (a gap in the curve). ``powered_on_vms_sd`` moves nothing
    (:data:`vcperf.robo.statistics.SD_NOTE`)."""
    plt = plotting.pyplot()
    hosts, shared = _planner_curves(link, level, powered_on_vms, max_hosts, operation)
    here = robo.plan(link, n_hosts, level, operation, powered_on_vms)
    fig, axes = plt.subplots(1, 2, figsize=(9.0, 3.4))
    axes[0].loglog(hosts, 100 * np.asarray(shared.offered_load), label="offered load (every flow)")
    axes[0].axhline(100, color="k", ls=":", lw=0.8)
    axes[0].plot([n_hosts], [100 * float(here.offered_load)], "o", color="C3", label=f"{n_hosts:g} hosts")
    axes[0].set_ylabel("load of the busier direction (%)")
    axes[1].loglog(hosts, _finite(shared.operation_latency_s), label=f"{operation} during a burst")
    axes[1].loglog(hosts, _finite(np.broadcast_to(shared.operation_latency_idle_s, hosts.shape)), ls="--",
                   color="C1", lw=0.8, label=f"{operation}, no burst")
    axes[1].plot([n_hosts], [float(_finite(here.operation_latency_s))], "o", color="C3")
    axes[1].set_ylabel("time (s)")
    for ax in axes:
        ax.set_xlabel("hosts behind the link")
        ax.legend(fontsize=7, frameon=False)
    fig.suptitle(f"{link.name}: Level-{level}, {powered_on_vms:g} VMs/host, {verdict_text(here)}", fontsize=9)
    plotting.finish(fig)
    return fig


@fast_redraw
def capacity_update(bandwidth_bps=None, rtt_s=None, loss=None, n_hosts=10, level=START_LEVEL, powered_on_vms=None,
                    powered_on_vms_sd=0.0, name="what-if", operation="clone_vm", target_s=10.0):
    """Model + redraw for the branch-link planner: returns ``(readout, png_bytes)``.

    Defaults are the panel's starting values: the :data:`START_PRESET` link, 10 hosts, Level-4 (:data:`START_LEVEL`),
    the testbed's powered-on VMs per host (:func:`vcperf.robo.testbed_powered_on_vms`), ``clone_vm``
    and a 10 s target. The verdict, offered load (every flow, busier direction) and dominant flow are
    :func:`vcperf.robo.plan`'s; an overloaded link is said to be so (no time, no band). Otherwise the
    operation's latency during the burst and one upload's time carry their 90 % intervals
    (:func:`plan_intervals`). ``powered_on_vms_sd`` moves no number: the readout says why (the
    ``notes`` of :func:`vcperf.robo.statistics_link_load`).

    Examples
    --------
    >>> text, png = capacity_update(0.5e6, n_hosts=128, level=1)
    >>> "overloaded (host sync dominates)" in text
    True
    """
    bandwidth_bps, rtt_s, loss = start_link(bandwidth_bps, rtt_s, loss)
    powered_on_vms = testbed_vms() if powered_on_vms is None else powered_on_vms
    link = network.Link(bandwidth_bps, rtt_s, loss, name=name)
    notes = robo.statistics_link_load(n_hosts, link, level, powered_on_vms, powered_on_vms_sd).notes
    # one vectorised model call: the figure's host axis and the chosen hosts (last), with the parameters
    # stacked for the readout's intervals (:func:`plan_intervals`)
    grid = np.append(_PLANNER_HOSTS, float(n_hosts))
    with np.errstate(invalid="ignore"):  # an overloaded answer (inf) has no gradient: its band is NaN
        both, lat_iv, delay_iv = plan_intervals(link, grid, level, operation, powered_on_vms)
    lat = _finite(np.broadcast_to(both.operation_latency_s, grid.shape))  # folder operations: a scalar
    idle = _finite(np.broadcast_to(both.operation_latency_idle_s, grid.shape))
    load = np.asarray(np.broadcast_to(both.offered_load, grid.shape), dtype=float)
    k = np.broadcast_to(both.concurrent_uploads, grid.shape)[-1]
    payload = float(np.broadcast_to(both.payload_bytes, grid.shape)[-1])
    if bool(np.broadcast_to(both.overloaded, grid.shape)[-1]):
        times = (f"the link cannot carry its offered load: the burst's uploads and {operation} never finish "
                 f"(no time, no band)")
    else:
        times = (f"{int(float(k))} uploads in a burst, each {band(delay_iv)}; {operation} during the burst "
                 f"{band(lat_iv)} (no burst {fmt_duration(float(idle[-1]))})")
    readout = (
        f"{fmt_num(n_hosts)} hosts, Level-{level}, {fmt_num(powered_on_vms)} VMs/host on {fmt_bps(bandwidth_bps)} / "
        f"{fmt_num(rtt_s * 1e3)} ms: {verdict_text(both)}; upload {fmt_bytes(payload)}; {times}; "
        + _required_text(target_s, link, n_hosts, level, powered_on_vms, operation)
        + "".join(f"; note: {n}" for n in notes)
    )
    panel = _CapacityPanel.shared()
    panel.draw(_PLANNER_HOSTS, load[:-1], lat[:-1], idle[:-1], n_hosts, float(load[-1]), float(lat[-1]), target_s,
               f"{link.name}: Level-{level}, {fmt_num(powered_on_vms)} VMs/host, {operation} (one shared link)")
    return readout, panel.png(key=panel.title.get_text())


def plan_intervals(link, hosts, level=1, operation="clone_vm", powered_on_vms=None):
    """:func:`vcperf.robo.plan` over ``hosts`` and the 90 % intervals of the last host count's operation
    latency during the burst and statistics upload time: ``(BranchLoad, (value, low, high), (value, low,
    high))``, :func:`vcperf.robo.readouts.plan_intervals` at the study's calibration and test bed.

    ``link`` is a :class:`vcperf.network.Link` or a Table 1 preset name; ``powered_on_vms`` defaults to
    the test bed's.
    """
    tb = robo.testbed()
    link = robo.preset(link) if isinstance(link, str) else network.check_link("link", link)
    vms = tb.powered_on_vms_per_host if powered_on_vms is None else powered_on_vms
    return readouts.plan_intervals(link, hosts, level, vms, tb.calls(operation), schedule=tb.schedule,
                                   counters=tb.counters, change_period_s=tb.change_period_s,
                                   params=robo.calibrate())


#: Host axis of the planner figure (1 .. 500, log spaced, whole hosts).
_PLANNER_HOSTS = np.unique(np.round(np.logspace(0, np.log10(500), 60)))


def _decade_limits(values, floor=1e-6):
    """Log-axis limits snapped to whole decades around the finite positive ``values``: the limits (and
    so the cached background of the panel) change only when the data cross a decade."""
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v) & (v > 0)]
    if v.size == 0:
        return 0.1, 10.0
    lo = max(float(v.min()), floor)
    return 10.0 ** np.floor(np.log10(lo) - 0.05), 10.0 ** np.ceil(np.log10(float(v.max())) + 0.05)


class _CapacityPanel(PanelFigure):
    """The branch planner as :func:`capacity_figure` draws it, updated in place: a persistent figure
    whose axes snap to decades, its background kept (redrawn only when a limit or the title moves)."""

    def __init__(self):
        super().__init__((9.0, 3.6), ncols=2)
        busy_ax, wait_ax = self.axes
        for ax in self.axes:
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlim(1, 500)
            ax.set_ylim(0.1, 100)  # set by every draw (decades); never autoscaled
            ax.set_autoscale_on(False)
            ax.set_xlabel("hosts behind the link")
        (self.busy,) = busy_ax.plot([], [], label="offered load (every flow)")
        busy_ax.axhline(100, color="k", ls=":", lw=0.8)
        (self.busy_here,) = busy_ax.plot([], [], "o", color="C3", label="chosen hosts")
        busy_ax.set_ylabel("load of the busier direction (%)")
        (self.op,) = wait_ax.plot([], [], label="operation during a burst")
        (self.op_idle,) = wait_ax.plot([], [], ls="--", lw=0.8, color="C1", label="operation, no burst")
        self.target = wait_ax.axhline(1.0, color="C2", ls="-.", lw=1.0, label="target")
        (self.wait_here,) = wait_ax.plot([], [], "o", color="C3")
        wait_ax.set_ylabel("time (s)")
        for ax in self.axes:  # static legends: below the lines, so they stay in the cached background
            ax.legend(fontsize=7, frameon=False, loc="upper left").set_zorder(1.9)
        self.title = self.fig.suptitle("", fontsize=9)
        self.fig.subplots_adjust(left=0.08, right=0.98, bottom=0.13, top=0.9, wspace=0.25)
        lean_axes(self.fig)
        self.keep_background([self.busy, self.busy_here, self.op, self.op_idle, self.target, self.wait_here])

    def draw(self, hosts, load, latency_s, idle_s, n_hosts, here_load, here_latency_s, target_s, title):
        """Offered load (fraction, busier direction) and times (s, NaN when overloaded) vs ``hosts``."""
        busy = 100 * np.asarray(load, dtype=float)
        self.busy.set_data(hosts, busy)
        here_busy = 100 * float(here_load)
        self.busy_here.set_data([n_hosts], [here_busy])
        self.op.set_data(hosts, latency_s)
        self.op_idle.set_data(hosts, idle_s)
        self.target.set_ydata([target_s, target_s])
        self.wait_here.set_data([n_hosts], [here_latency_s])
        self.title.set_text(title)
        self.axes[0].set_ylim(*_decade_limits(np.append(busy, [here_busy, 100.0]), floor=1e-4))
        lo, hi = _decade_limits(np.concatenate([latency_s, idle_s, [target_s]]))
        self.axes[1].set_ylim(lo, hi * 100)  # two empty decades on top hold the legend clear of the curves
        return self


def capacity_planner(preset=START_PRESET, n_hosts=10, level=START_LEVEL, powered_on_vms=None, operation="clone_vm",
                     target_s=10.0):
    """Branch-link planner: H hosts on a chosen link -- statistics load, an operation's latency during
    the burst, and the smallest link that keeps it under a target."""
    import ipywidgets as w

    powered_on_vms = robo.testbed_powered_on_vms() if powered_on_vms is None else powered_on_vms
    hosts = w.IntSlider(value=n_hosts, min=1, max=500, description="hosts")
    lvl = w.Dropdown(options=[(LEVEL_LABELS[x], x) for x in robo.LEVELS], value=level, description="stats level")
    vms = w.FloatSlider(value=powered_on_vms, min=0, max=PLANNER_MAX_VMS, step=1, description="VMs per host",
                        readout_format=TYPED_FORMAT)
    op = w.Dropdown(options=[*robo.operation_names(), "create_vm"], value=operation, description="operation")
    target = w.FloatLogSlider(value=target_s, base=10, min=0, max=3, step=typed_step(), description="target s",
                              readout_format=TYPED_FORMAT)
    readout = readout_label()
    image = w.Image(format="png")

    def redraw(*_):
        s = exact.state
        readout.value, image.value = capacity_update(s["bw"] * 1e6, s["rtt"] / 1e3, s["loss"] / 100, hosts.value,
                                                     lvl.value, vms.value, 0.0, operation=op.value,
                                                     target_s=target.value)

    (choose, bw, rtt, loss), exact = link_controls(preset, redraw)
    style_sliders(bw, rtt, loss, hosts, vms, target, description_width="130px")
    for c in (hosts, lvl, vms, op, target):
        c.observe(lambda _: redraw(), names="value")
    redraw()
    return w.VBox([choose, bw, rtt, loss, hosts, lvl, vms, op, target, readout, image, readout_style()])
