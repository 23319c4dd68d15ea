"""The site planner's readouts: the plan as text (Markdown, CSV, JSON: ``vcperf plan``), its figures
(per-link utilisation stacked by flow; each answer against its target) and the what-if panel where
the link is entered once (:func:`site_update`; the panel itself, with the plan's form, is
:func:`vcperf.views.planner.site_planner`); the reverse questions (:func:`solve`).

Numbers are written by :mod:`vcperf.views.format`; the model is :mod:`vcperf.site`.
"""

from __future__ import annotations

import html
import json
import math
from dataclasses import replace
from pathlib import Path

from vcperf import site
from vcperf.site.plan import TARGET_QUANTITIES
from vcperf.traffic import FLAG_KINDS
from vcperf.views.format import fmt_band, fmt_bps, fmt_duration, fmt_in_unit, fmt_percent
from vcperf.widgets import PanelFigure, fast_redraw, opaque_png_bytes

#: The example plans shipped with the repository (``examples/*.yaml``).
EXAMPLES_DIR = Path(__file__).resolve().parents[2] / "examples"
#: The plan the app's planner opens on.
DEFAULT_EXAMPLE = "branch_20_hosts_10mbit"
#: Readable names of the target quantities.
LABELS = {
    "operation_latency_s": "vCenter operation latency", "statistics_delay_s": "statistics upload delay",
    "migration_time_s": "migration time", "downtime_s": "vMotion downtime",
    "vmotion_throttle": "guest throttled by SDPS (stun during vMotion)", "deployment_time_s": "deployment time",
    "vcha_throughput_loss": "VCHA throughput loss", "vcha_latency_s": "latency with VCHA",
    "ft_overhead": "FT run-time overhead", "ft_output_delay_s": "FT output delay",
}


def example_names() -> list[str]:
    """Names of the example plans (``examples/<name>.yaml``).

    Examples
    --------
    >>> "metro_vmotion" in example_names()
    True
    """
    return sorted(p.stem for p in EXAMPLES_DIR.glob("*.yaml"))


def example(name: str) -> site.Plan:
    """The example plan ``name`` (:func:`example_names`).

    Examples
    --------
    >>> example("small_branch_dsl").links[0].name
    'dsl'
    """
    names = example_names()
    if name not in names:
        raise ValueError(f"example must be one of {names}; got {name!r}")
    return site.load(EXAMPLES_DIR / f"{name}.yaml")


def formatter(quantity: str):
    """The formatter of a target quantity's values (:func:`~vcperf.views.format.fmt_in_unit` in its unit).

    Examples
    --------
    >>> formatter("downtime_s")(0.5), formatter("ft_overhead")(0.21)
    ('500 ms', '21 %')
    """
    unit = TARGET_QUANTITIES[quantity][0]
    return lambda x: fmt_in_unit(x, unit)


def answer_text(a) -> str:
    """An answer with its 90 % interval, or why it has none: an infinite answer is an overloaded link.

    Examples
    --------
    >>> from types import SimpleNamespace as A
    >>> answer_text(A(quantity="downtime_s", value=float("inf"), low=float("nan"), high=float("nan")))
    '∞: the link is overloaded (no finite time, no band)'
    """
    if math.isinf(a.value):
        return "∞: the link is overloaded (no finite time, no band)"
    return fmt_band(a.value, a.low, a.high, fmt=formatter(a.quantity))


#: The mark of each :attr:`vcperf.site.Answer.status`.
MARKS = {"met": "✅", "met beyond a limit": "⚠️", "missed": "❌", "no target": "·"}
#: What a serious flag kind means for a met target, in words.
FLAG_WORDS = {"limit": "beyond a VMware documented limit", "backlog": "with a growing backlog",
              "fallback": "in an asynchronous fallback (RPO > 0)"}


def verdict(a) -> str:
    """``"meets"``, ``"meets, beyond a limit"``, ``"MISSES"`` or ``"no target"`` for a :class:`vcperf.site.Answer`."""
    return {"no target": "no target", "missed": "MISSES", "met": "meets",
            "met beyond a limit": "meets, beyond a limit"}[a.status]


def _link_line(spec) -> str:
    up = spec.up_bandwidth_bps or spec.bandwidth_bps
    return (f"{fmt_bps(spec.bandwidth_bps)} down / {fmt_bps(up)} up, RTT {fmt_duration(spec.rtt_s)}, "
            f"loss {fmt_percent(spec.loss)}")


def _rate(x: float) -> str:
    return "all it can get" if math.isinf(x) else fmt_bps(x)


def render_markdown(e: site.Evaluation, reverse=()) -> str:
    """The plan as Markdown: verdicts first, then a table per link and per workload, flags, reverse answers.

    Parameters
    ----------
    e : vcperf.site.Evaluation
    reverse : sequence of vcperf.site.Reverse

    Examples
    --------
    >>> text = render_markdown(site.evaluate(example("small_branch_dsl"), intervals=False))
    >>> text.splitlines()[0]
    '# Site plan: Small branch on DSL'
    """
    out = [f"# Site plan: {e.plan.name}", ""]
    with_t = [a for a in e.answers if a.ok is not None]
    out.append(f"**Verdict: {e.verdict}**" + (" (see flags)" if any(a.serious for a in with_t) else ""))
    out.append("")
    for a in with_t:
        out.append(f"- {MARKS[a.status]} {a.workload}: {LABELS[a.quantity]} "
                   f"{formatter(a.quantity)(a.value)} vs target {formatter(a.quantity)(a.target)}"
                   + ("" if a.ok else f" (binding flow: {a.flow} on {a.link})")
                   + (f" — {', '.join(sorted({FLAG_WORDS[f.kind] for f in a.serious}))}" if a.ok and a.serious
                      else ""))
    for r in reverse:
        out.append(f"- ↔ {r.question} of {r.subject}: {reverse_answer(r)}"
                   + (f", bound by {r.workload}'s {LABELS.get(r.quantity, r.quantity)} ({r.flow})" if r.workload
                      else "") + (f" — {r.note}" if r.note else ""))
        if r.alone:
            out.append("  - each workload alone on the link needs: " + "; ".join(
                f"{w} {reverse_answer(replace(r, value=x))}" for w, x in r.alone.items()))
        serious = [f for f in r.flags if f.kind in site.SERIOUS]
        if serious:
            out.append("  - at that answer: " + "; ".join(f"**{f.kind}** {f.message}" for f in serious))
    if e.flags:
        out += ["", "## Flags (VMware limits, backlogs, fallbacks, extrapolation)", ""] + [
            f"- **{f.kind}** {f.message}" for f in sorted(e.flags, key=lambda f: FLAG_KINDS.index(f.kind))]
    out += ["", "## Links", ""]
    for spec in e.plan.links:
        out += [f"### {spec.name}: {_link_line(spec)}", "",
                "| direction | flow | workload | asks | gets | available to it | share of the link |",
                "|---|---|---|---|---|---|---|"]
        rows = [(d, s) for d in e.loads if d.link == spec.name for s in d.flows]
        for d, s in rows:
            out.append(f"| {d.direction} | {s.flow.name} | {s.flow.workload} | {_rate(s.flow.demand_bps)} | "
                       f"{fmt_bps(s.allocated_bps)} | {fmt_bps(s.available_bps)} | {fmt_percent(s.share)} |")
        if not rows:
            out.append("| – | no flow | | | | | |")
        out.append("")
    out += ["## Workloads", "",
            "| workload | study | quantity | answer (90 % interval) | alone on the link | target | verdict "
            "| binding flow |",
            "|---|---|---|---|---|---|---|---|"]
    for a in e.answers:
        f = formatter(a.quantity)
        out.append(f"| {a.workload} | {a.study} | {LABELS[a.quantity]} | {fmt_band(a.value, a.low, a.high, fmt=f)} | "
                   f"{f(a.alone)} | {'–' if math.isnan(a.target) else f(a.target)} | {verdict(a)} | {a.flow} |")
    return "\n".join(out) + "\n"


def reverse_answer(r) -> str:
    """The value of a :class:`vcperf.site.Reverse` in its unit (or why there is none)."""
    if not math.isfinite(r.value):
        return "none is enough" if r.unit == "bit/s" else "none"
    return fmt_in_unit(r.value, r.unit)


def _records(e: site.Evaluation, reverse=()):
    answers = [{"workload": a.workload, "kind": a.kind, "study": a.study, "quantity": a.quantity, "value": a.value,
                "low": a.low, "high": a.high, "alone": a.alone, "target": a.target, "ok": a.ok, "status": a.status,
                "link": a.link, "flow": a.flow, "flags": "; ".join(f.message for f in a.serious)} for a in e.answers]
    flows = [{"link": d.link, "direction": d.direction, "capacity_bps": d.capacity_bps, "flow": s.flow.name,
              "workload": s.flow.workload, "flow_kind": s.flow.kind, "demand_bps": s.flow.demand_bps,
              "allocated_bps": s.allocated_bps, "available_bps": s.available_bps, "share": s.share,
              "backlog_bps": s.backlog_bps, "queue_delay_s": d.queue_delay_s} for d in e.loads for s in d.flows]
    rev = [{"question": r.question, "subject": r.subject, "value": r.value, "unit": r.unit, "workload": r.workload,
            "quantity": r.quantity, "flow": r.flow, "note": r.note,
            "flags": "; ".join(f"{f.kind}: {f.message}" for f in r.flags if f.kind in site.SERIOUS),
            "alone": "; ".join(f"{w}={x:.6g}" for w, x in (r.alone or {}).items())} for r in reverse]
    return answers, flows, rev


def render(e: site.Evaluation, fmt: str = "md", reverse=()) -> str:
    """The evaluated plan as ``"md"`` (:func:`render_markdown`), ``"csv"`` (one row per answer, flow and
    reverse answer, a ``table`` column) or ``"json"``.

    Examples
    --------
    >>> e = site.evaluate(example("metro_vmotion"), intervals=False)
    >>> render(e, "csv").splitlines()[0].split(",")[:3]
    ['table', 'workload', 'kind']
    >>> sorted(json.loads(render(e, "json")))
    ['answers', 'flags', 'flows', 'name', 'ok', 'reverse', 'verdict']
    """
    if fmt == "md":
        return render_markdown(e, reverse)
    answers, flows, rev = _records(e, reverse)
    if fmt == "json":
        def clean(x):
            return None if isinstance(x, float) and not math.isfinite(x) else x

        doc = {"name": e.plan.name, "ok": e.ok, "verdict": e.verdict,
               "flags": [{"kind": f.kind, "source": f.source, "message": f.message} for f in e.flags],
               "answers": [{k: clean(x) for k, x in r.items()} for r in answers],
               "flows": [{k: clean(x) for k, x in r.items()} for r in flows],
               "reverse": [{k: clean(x) for k, x in r.items()} for r in rev]}
        return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    if fmt == "csv":
        import csv
        import io

        cols = ["table"] + list(dict.fromkeys(k for r in answers + flows + rev for k in r))
        buf = io.StringIO()
        wr = csv.DictWriter(buf, cols, lineterminator="\n")
        wr.writeheader()
        for table, rows in (("answer", answers), ("flow", flows), ("reverse", rev)):
            for r in rows:
                wr.writerow({"table": table, **{k: (f"{x:.6g}" if isinstance(x, float) else x) for k, x in r.items()}})
        return buf.getvalue()
    raise ValueError(f"fmt must be one of ['md', 'csv', 'json']; got {fmt!r}")


def utilisation_figure(e: site.Evaluation, ax=None):
    """Per link and direction, each flow's share of the line rate, stacked (bulk flows: while they run).

    Returns the matplotlib Axes.
    """
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(8, 0.6 + 0.5 * len(e.loads)))
    loads = [d for d in e.loads if d.flows]
    names = sorted({s.flow.workload for d in loads for s in d.flows})
    colours = {n: plt.cm.tab10(i % 10) for i, n in enumerate(names)}
    seen = set()
    for y, d in enumerate(loads):
        left = 0.0
        for s in d.flows:
            w = s.flow.workload
            ax.barh(y, s.share, left=left, color=colours[w], edgecolor="white",
                    label=None if w in seen else w)
            seen.add(w)
            left += s.share
    ax.set_yticks(range(len(loads)), [f"{d.link} {d.direction}\n{fmt_bps(d.capacity_bps)}" for d in loads])
    ax.set_xlim(0, 1.0)
    ax.set_xlabel("share of the line rate (max-min fair; bulk transfers while they run)")
    ax.invert_yaxis()
    ax.legend(loc="lower right", fontsize="small", frameon=False)
    return ax


def answers_figure(e: site.Evaluation, ax=None):
    """Each answer with a target, as a ratio to its target, with its 90 % interval (log axis; < 1 meets it).

    Returns the matplotlib Axes.
    """
    import matplotlib.pyplot as plt

    rows = [a for a in e.answers if a.ok is not None and math.isfinite(a.value)]
    if ax is None:
        _, ax = plt.subplots(figsize=(8, 0.6 + 0.45 * max(len(rows), 1)))
    for y, a in enumerate(rows):
        r = a.value / a.target
        lo = a.low / a.target if math.isfinite(a.low) else r
        hi = a.high / a.target if math.isfinite(a.high) else r
        ax.errorbar(r, y, xerr=[[r - lo], [hi - r]], fmt="o", color="tab:green" if a.ok else "tab:red", capsize=3)
    from matplotlib.ticker import FuncFormatter, NullFormatter

    ax.axvline(1.0, color="black", lw=1)
    ax.set_xscale("log")
    ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{x:g}"))
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_yticks(range(len(rows)), [f"{a.workload}: {LABELS[a.quantity]}" for a in rows])
    ax.invert_yaxis()
    ax.set_xlabel("answer / target (90 % interval); right of 1 misses")
    return ax


#: The planner panel's figure size (inches, 100 CSS px each): the app shows it at its own size in the
#: picture column beside the controls on a 1280 x 800 screen (:func:`vcperf.widgets.side_by_side`).
PLANNER_FIGSIZE = (7.2, 3.0)
#: Font size of the planner panel's text (points).
_FONT = 8
#: Zorders of the planner panel: names and legend (kept in the background), then what moves.
_Z_KEPT, _Z_MOVING = 0.5, 2.0
#: Limits of the answers' axis snap to this fraction of a decade (a small move keeps the axes).
_SNAP_DECADES = 0.5
#: Plan shapes whose layout :class:`_PlannerFigure` keeps (the oldest is forgotten first).
_LAYOUTS_KEPT = 32
#: The widest capacity text a link's label reserves room for (the layout is computed once per plan).
_WIDEST_RATE = "88.8 Mbit/s"


def _figure_shape(e: site.Evaluation) -> tuple:
    """What the planner figure's structure depends on: its bars (link, direction, the flows' workloads)
    and its answer rows (workload, quantity of each answer with a target); not on the link's rate."""
    loads = tuple((d.link, d.direction, tuple(s.flow.workload for s in d.flows)) for d in e.loads if d.flows)
    return loads, tuple((a.workload, a.quantity) for a in e.answers if a.ok is not None)


def _snapped_log_limits(values) -> tuple[float, float]:
    """Log-axis limits around the positive finite ``values`` and 1 (the target), snapped outwards to
    :data:`_SNAP_DECADES` with at least 0.05 decade of margin.

    Examples
    --------
    >>> [round(x, 3) for x in _snapped_log_limits([0.5, 0.62, 1.8, float("inf"), 0.0])]
    [0.316, 3.162]
    """
    logs = [math.log10(x) for x in values if math.isfinite(x) and x > 0] + [0.0]
    q = 1.0 / _SNAP_DECADES
    return 10 ** (math.floor((min(logs) - 0.05) * q) / q), 10 ** (math.ceil((max(logs) + 0.05) * q) / q)


def _leading_digit(x: float) -> int:
    """The first significant digit of ``x`` > 0 (2 for 0.2 and 200)."""
    return round(x / 10 ** math.floor(math.log10(x) + 1e-9))


def _ratios(a) -> tuple[float, float, float]:
    """An answer over its target with its 90 % interval (the answer where the interval is not finite)."""
    r = a.value / a.target
    return (r, a.low / a.target if math.isfinite(a.low) else r, a.high / a.target if math.isfinite(a.high) else r)


class _PlannerFigure(PanelFigure):
    """The planner panel's figure: utilisation by flow (left) and answers against targets (right), the
    information of :func:`utilisation_figure` and :func:`answers_figure` drawn for the panel.

    Its structure (bars, answer rows, names, legend, layout) is built once per plan shape
    (:func:`_figure_shape`) and kept in a :class:`vcperf.widgets.PanelCanvas` background with the
    axes' frames and ticks; an update moves only the bars, the links' rates, the answers' points and
    intervals (an infinite answer: an arrow at the right edge, "∞ overloaded"). The answers' axis is
    snapped to half decades, so a small move keeps the background. The picture is a function of the
    evaluation only, whatever was drawn before.
    """

    def __init__(self):
        super().__init__(PLANNER_FIGSIZE, ncols=2)
        self.shape = None
        self._layouts: dict = {}

    def _build(self, shape: tuple) -> None:
        """Empty the Axes and build the artists and layout of a figure of ``shape``."""
        from matplotlib import colormaps
        from matplotlib.patches import Patch
        from matplotlib.ticker import FuncFormatter, NullFormatter
        from matplotlib.transforms import ScaledTranslation

        loads, rows = shape
        if self.canvas is not None:
            for a in self.canvas.foreground:
                a.set_animated(False)
        left, right = self.axes
        for ax in self.axes:
            ax.clear()
            ax.tick_params(which="both", labelsize=_FONT)
        # left: per link and direction, each flow's share of the line rate, stacked
        names = sorted({w for *_, ws in loads for w in ws})
        colours = {n: colormaps["tab10"](i % 10) for i, n in enumerate(names)}
        self.bars = [left.barh([y] * len(ws), [0.0] * len(ws), color=[colours[w] for w in ws], edgecolor="white")
                     for y, (*_, ws) in enumerate(loads)]
        # a link's label is two lines at its tick: its name (kept) over its rate (moving)
        left.set_yticks(range(len(loads)), [""] * len(loads))
        at = left.yaxis.get_major_ticks()[0].label1.get_transform() if loads else left.get_yaxis_transform()
        gap = _FONT * 0.2 / 72  # inches
        for y, (link, direction, _) in enumerate(loads):
            left.text(0, y, f"{link} {direction}", transform=at + ScaledTranslation(0, gap, self.fig.dpi_scale_trans),
                      ha="right", va="baseline", fontsize=_FONT, clip_on=False, zorder=_Z_KEPT)
        below = at + ScaledTranslation(0, -gap, self.fig.dpi_scale_trans)
        self.rates = [left.text(0, y, _WIDEST_RATE, transform=below, ha="right", va="top", fontsize=_FONT,
                                clip_on=False, zorder=_Z_MOVING) for y in range(len(loads))]
        left.set_xlim(0.0, 1.0)
        left.set_ylim(len(loads) - 0.5, -0.5)
        left.set_xlabel("share of the line rate\n(max-min fair; bulk transfers while they run)", fontsize=_FONT)
        seen = list(dict.fromkeys(w for *_, ws in loads for w in ws))
        leg = left.legend([Patch(facecolor=colours[w], edgecolor="white") for w in seen], seen, loc="upper left",
                          bbox_to_anchor=(0.005, 0.995), bbox_transform=self.fig.transFigure, ncol=max(len(seen), 1),
                          frameon=False, fontsize=_FONT - 1, handlelength=1.2, columnspacing=1.2, borderaxespad=0.0)
        leg.set_zorder(_Z_KEPT)
        leg.set_in_layout(False)
        # right: each answer with a target over its target, with its 90 % interval (log axis; < 1 meets it)
        right.set_xscale("log")
        right.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{x:g}"))
        # minor ticks at 2 and 5 labelled on a short axis (up to 2 decades), none on a longer one
        self.minor_labels = (FuncFormatter(lambda x, _: f"{x:g}" if _leading_digit(x) in (2, 5) else ""),
                             NullFormatter())
        right.axvline(1.0, color="black", lw=1, zorder=_Z_KEPT)
        right.set_yticks(range(len(rows)), [f"{w}: {LABELS[q]}" for w, q in rows])
        right.set_ylim(len(rows) - 0.5, -0.5)
        right.set_xlabel("answer / target (90 % interval)\nright of 1 misses", fontsize=_FONT)
        self.whiskers, self.caps, self.points, self.overloaded = [], [], [], []
        edge = right.get_yaxis_transform()  # x in Axes fractions, y in data
        for y in range(len(rows)):
            self.whiskers.append(right.plot([1, 1], [y, y], lw=1.5, zorder=_Z_MOVING)[0])
            self.caps.append(right.plot([1, 1], [y, y], ls="none", marker="|", ms=6, zorder=_Z_MOVING)[0])
            self.points.append(right.plot([1], [y], "o", zorder=_Z_MOVING)[0])
            arrow = right.plot([0.985], [y], ">", color="tab:red", transform=edge, clip_on=False, zorder=_Z_MOVING)[0]
            note = right.text(0.955, y, "∞ overloaded", transform=edge, ha="right", va="center", color="tab:red",
                              fontsize=_FONT, zorder=_Z_MOVING)
            self.overloaded.append((arrow, note))
        right.set_xlim(1e-2, 1e3)  # the layout leaves room for the widest tick labels at the edges
        self.fig.subplots_adjust(**self._layout(shape))
        self.keep_background([*(r for bars in self.bars for r in bars), *self.rates, *self.whiskers, *self.caps,
                              *self.points, *(a for pair in self.overloaded for a in pair)], opaque_png_bytes)
        self.shape = shape

    def _layout(self, shape: tuple) -> dict:
        """Subplot parameters of ``shape``: ``tight_layout`` below the legend, at screen scale 1, from
        the default parameters; computed once per shape (the same whatever was drawn before)."""
        if shape not in self._layouts:
            fig, dpi = self.fig, self.fig.dpi
            fig.set_dpi(self._dpi)
            try:
                fig.subplots_adjust(left=0.125, right=0.9, bottom=0.11, top=0.88, wspace=0.2, hspace=0.2)
                fig.tight_layout(pad=0.6, w_pad=1.5, rect=(0.0, 0.0, 1.0, 1.0 - 0.22 / PLANNER_FIGSIZE[1]))
            finally:
                fig.set_dpi(dpi)
            sp = fig.subplotpars
            if len(self._layouts) >= _LAYOUTS_KEPT:
                del self._layouts[next(iter(self._layouts))]
            self._layouts[shape] = {k: getattr(sp, k) for k in ("left", "right", "bottom", "top", "wspace")}
        return self._layouts[shape]

    def draw(self, e: site.Evaluation) -> bytes:
        """PNG bytes of ``e`` (at :func:`vcperf.widgets.screen_scale`)."""
        shape = _figure_shape(e)
        if shape != self.shape:
            self._build(shape)
        for bars, d in zip(self.bars, (d for d in e.loads if d.flows), strict=True):
            x = 0.0
            for rect, s in zip(bars, d.flows, strict=True):
                rect.set_x(x)
                rect.set_width(s.share)
                x += s.share
        for text, d in zip(self.rates, (d for d in e.loads if d.flows), strict=True):
            text.set_text(fmt_bps(d.capacity_bps))
        rows = [a for a in e.answers if a.ok is not None]
        finite = [_ratios(a) for a in rows if math.isfinite(a.value)]
        lo, hi = _snapped_log_limits([x for r in finite for x in r])
        self.axes[1].set_xlim(lo, hi)
        self.axes[1].xaxis.set_minor_formatter(self.minor_labels[math.log10(hi / lo) > 2.01])
        for y, a in enumerate(rows):
            shown = math.isfinite(a.value)
            colour = "tab:green" if a.ok else "tab:red"
            r, lo, hi = _ratios(a) if shown else (1.0, 1.0, 1.0)
            self.whiskers[y].set_xdata([lo, hi])
            self.caps[y].set_xdata([lo, hi])
            self.points[y].set_xdata([r])
            for line in (self.whiskers[y], self.caps[y], self.points[y]):
                line.set_color(colour)
                line.set_visible(shown)
            for artist in self.overloaded[y]:
                artist.set_visible(not shown)
        return self.png(key=shape)


def _operation(a, operations: dict) -> str:
    """`` (clone_vm)`` after a branch's operation latency: which vCenter operation it is."""
    op = operations.get(a.workload) if a.quantity == "operation_latency_s" else None
    return f" ({op})" if op else ""


def _readout_html(e: site.Evaluation, link: str = "", edited: bool = False) -> str:
    marks = {"met": "<span style='color:green'>meets</span>", "missed": "<b style='color:#c00'>MISSES</b>",
             "met beyond a limit": "<b style='color:#b60'>meets, beyond a limit</b>", "no target": "·"}
    operations = {b.name: b.operation for b in e.plan.branches}  # which operation a branch's latency is of
    rows = "".join(
        f"<tr><td>{marks[a.status]}</td><td>{html.escape(a.workload)}</td>"
        f"<td>{LABELS[a.quantity]}{_operation(a, operations)}</td><td>{answer_text(a)}</td>"
        f"<td>{'–' if math.isnan(a.target) else formatter(a.quantity)(a.target)}</td></tr>" for a in e.answers)
    ordered = sorted(e.flags, key=lambda f: FLAG_KINDS.index(f.kind))  # the most serious first
    items = {kind: "".join(f"<li><b>{f.kind}</b> {html.escape(f.message)}</li>" for f in ordered
                           if (f.kind == "extrapolation") == (kind == "extrapolation"))
             for kind in ("", "extrapolation")}
    flags = items[""] and f"<ul style='font-size:smaller'>{items['']}</ul>"
    n = sum(f.kind == "extrapolation" for f in ordered)
    if n:  # beyond a test bed: a widened band, not a verdict; folded under one line
        flags += (f"<details style='font-size:smaller'><summary>{n} extrapolation note{'s' * (n > 1)} (answers "
                  f"beyond a study's test bed)</summary><ul>{items['extrapolation']}</ul></details>")
    where = ""
    if link:  # the link as it is now (a plan's name may still tell the rate it was written with)
        spec = e.plan.link(link)
        where = f" — link {html.escape(link)} at {_link_line(spec)}"
    name = html.escape(e.plan.name) + (" (edited)" if edited else "")
    return (f"<b>{name}{where}: {e.verdict}</b><table><tr><th></th><th>workload</th><th>quantity</th>"
            f"<th>answer (90 %)</th><th>target</th></tr>{rows}</table>"
            + flags)


@fast_redraw
def show_evaluation(e: site.Evaluation, link: str | None = None, *, edited: bool = False):
    """Readout and picture of an evaluated plan ``e`` (its heading naming ``link`` as it is in ``e.plan``, and
    "(edited)" when ``edited``); returns ``(readout_html, png_bytes)``.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> e = site.evaluate(example("small_branch_dsl").with_link("dsl", bandwidth_bps=2e6), intervals=False)
    >>> text, png = show_evaluation(e, "dsl", edited=True)
    >>> "Small branch on DSL (edited) — link dsl at 2 Mbit/s down" in text
    True
    """
    return _readout_html(e, e.plan.links[0].name if link is None else link, edited), _PlannerFigure.shared().draw(e)


def site_update(plan: site.Plan | None = None, link: str | None = None, bandwidth_bps: float | None = None,
                rtt_s: float | None = None, *, intervals: bool = True):
    """Model + redraw for the planner: ``plan`` with ``link`` at ``bandwidth_bps`` (the uplink scaled with it)
    and ``rtt_s``; returns ``(readout_html, png_bytes)`` (:func:`show_evaluation`).

    Defaults: the app's first plan (:data:`DEFAULT_EXAMPLE`), its first link, that link's rate and RTT.
    The figure's frames, names, legend and layout are built once per plan (:class:`_PlannerFigure`) and
    kept as a background, so a what-if redraws only what it moves.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> html, png = site_update(example("small_branch_dsl"), "dsl", 8e6, 0.05, intervals=False)
    >>> png[:4] == b"\\x89PNG" and "shop" in html
    True
    """
    plan = example(DEFAULT_EXAMPLE) if plan is None else plan
    spec = plan.link(plan.links[0].name if link is None else link)
    link = spec.name
    bandwidth_bps = spec.bandwidth_bps if bandwidth_bps is None else bandwidth_bps
    rtt_s = spec.rtt_s if rtt_s is None else rtt_s
    up = None if spec.up_bandwidth_bps is None else spec.up_bandwidth_bps * bandwidth_bps / spec.bandwidth_bps
    what_if = plan.with_link(link, bandwidth_bps=bandwidth_bps, up_bandwidth_bps=up, rtt_s=rtt_s)
    return show_evaluation(site.evaluate(what_if, intervals=intervals), link)


#: The reverse questions, by ``vcperf plan --solve`` name.
QUESTIONS = {"bandwidth": "smallest bandwidth", "rtt": "largest RTT", "hosts": "most hosts"}


def solve(plan: site.Plan, question: str, link: str | None = None, branch: str | None = None) -> site.Reverse:
    """The reverse question ``question`` (a key of :data:`QUESTIONS`) of ``plan``: the smallest bandwidth or the
    largest RTT of ``link``, the most hosts at ``branch`` (default: the first); ``vcperf plan --solve`` and the
    planner panel both ask through here.

    Examples
    --------
    >>> r = solve(example("small_branch_dsl"), "hosts")
    >>> r.question, r.subject
    ('most hosts', 'shop')
    """
    if question not in QUESTIONS:
        raise ValueError(f"question must be one of {list(QUESTIONS)}; got {question!r}")
    if question in ("bandwidth", "rtt") and not link:
        raise ValueError(f"--solve {question} needs --link NAME (one of {[lk.name for lk in plan.links]})")
    if question == "bandwidth":
        return site.smallest_bandwidth(plan, link)
    if question == "rtt":
        return site.largest_rtt(plan, link)
    return site.most_hosts(plan, branch)


