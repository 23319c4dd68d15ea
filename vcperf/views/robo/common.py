"""What the ROBO views share: the starting link, Table 1's networks in order, lean widget axes, the link
controls (preset dropdown and echo-guarded sliders) and the readouts' band text."""

from __future__ import annotations

import functools

from vcperf import protocol, robo
from vcperf.views.format import fmt_band
from vcperf.widgets import TYPED_FORMAT, ExactSliders, typed_step

#: Table 1 network every what-if panel starts from (its link settings are the panels' defaults).
START_PRESET = "dsl_512k"
#: Range of the bandwidth sliders as log10(Mbit/s): 63 kbit/s (a 64 kbit/s ISDN channel fits) .. 10 Gbit/s.
BANDWIDTH_LOG10_MBPS = (-1.2, 4.0)
#: Statistics levels' labels.
LEVEL_LABELS = {lvl: f"Level-{lvl}" for lvl in robo.LEVELS}


def start_link(bandwidth_bps, rtt_s, loss) -> tuple:
    """Fill unset link settings from :data:`START_PRESET` (the panels' starting values)."""
    start = robo.preset(START_PRESET)
    return (start.bandwidth_bps if bandwidth_bps is None else bandwidth_bps,
            start.rtt_s if rtt_s is None else rtt_s,
            start.loss if loss is None else loss)


def ordered_presets() -> list:
    """Preset ids ordered by RTT, then bandwidth (LAN first, satellite last)."""
    links = {n: robo.preset(n) for n in robo.preset_names()}
    return sorted(links, key=lambda n: (links[n].rtt_s, -links[n].bandwidth_bps))


def preset_label(name: str) -> str:
    """The Table 1 label of preset ``name``."""
    return robo.preset(name).name


@functools.lru_cache(maxsize=1)
def testbed_vms() -> float:
    """Powered-on VMs per host of the study's test bed (cached)."""
    return robo.testbed_powered_on_vms()


def band(v3) -> str:
    """"x s (lo–hi s, 90 %)" of a ``(value, low, high)`` time."""
    return fmt_band(*v3, interval=protocol.INTERVAL)


def lean_axes(fig, nbins: int = 4) -> None:
    """Fewer, plain-text ticks for a widget redraw.

    On this kind of figure most of a redraw is tick-label text: every label is laid out by
    FreeType and a log axis's ``10^k`` labels go through the mathtext parser. A widget image keeps
    ``nbins`` major ticks per linear axis and decade ticks labelled as plain numbers on log axes.
    """
    from matplotlib.ticker import AutoLocator, FuncFormatter, LogLocator, MaxNLocator, NullLocator

    plain = FuncFormatter(lambda x, _pos: f"{x:g}")
    for ax in fig.axes:
        for axis, scale in ((ax.xaxis, ax.get_xscale()), (ax.yaxis, ax.get_yscale())):
            if scale == "log":
                axis.set_major_locator(LogLocator(base=10.0, numticks=nbins + 2))
                axis.set_major_formatter(plain)
                axis.set_minor_locator(NullLocator())
            elif type(axis.get_major_locator()) is AutoLocator:  # keep explicit (fixed) ticks
                axis.set_major_locator(MaxNLocator(nbins=nbins))


def link_controls(preset: str, redraw, extra: dict | None = None):
    """A Table 1 preset dropdown and bandwidth (Mbit/s), RTT (ms) and loss (%) sliders, wired.

    Picking a preset moves the three sliders to it; moving one of them (not an echo of the browser,
    :class:`vcperf.widgets.ExactSliders`) switches the dropdown to "custom". Sliders in ``extra``
    (key -> slider) are guarded the same way but never switch the dropdown. Every change calls
    ``redraw()``, which reads the exact values from the returned ``ExactSliders.state`` (keys ``bw``,
    ``rtt``, ``loss`` and those of ``extra``, in the sliders' units).

    Returns
    -------
    tuple
        ``((dropdown, bandwidth, rtt, loss), ExactSliders)``.
    """
    import ipywidgets as w

    start = robo.preset(preset)
    choose = w.Dropdown(options=[("custom", "custom")] + [(preset_label(n), n) for n in robo.preset_names()],
                        value=preset, description="network")
    bw = w.FloatLogSlider(value=start.bandwidth_bps / 1e6, base=10, min=BANDWIDTH_LOG10_MBPS[0],
                          max=BANDWIDTH_LOG10_MBPS[1], step=typed_step(),
                          description="bandwidth Mbit/s", readout_format=TYPED_FORMAT)
    rtt = w.FloatSlider(value=start.rtt_s * 1e3, min=0, max=1000, step=1, description="RTT ms",
                        readout_format=TYPED_FORMAT)
    loss = w.FloatSlider(value=start.loss * 100, min=0, max=5, step=0.01, description="loss %", readout_format=".2f")
    extra = dict(extra or {})

    def on_move(key):
        if key not in extra:
            choose.value = "custom"
        redraw()

    exact = ExactSliders({"bw": bw, "rtt": rtt, "loss": loss, **extra}, on_move,
                         state={"bw": start.bandwidth_bps / 1e6, "rtt": start.rtt_s * 1e3, "loss": start.loss * 100,
                                **{k: s.value for k, s in extra.items()}})

    def on_preset(change):
        if change["new"] == "custom":
            return
        link = robo.preset(change["new"])
        exact.set(bw=link.bandwidth_bps / 1e6, rtt=link.rtt_s * 1e3, loss=link.loss * 100)
        redraw()

    choose.observe(on_preset, names="value")
    return (choose, bw, rtt, loss), exact
