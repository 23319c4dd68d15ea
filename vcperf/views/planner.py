"""The site planner panel (the app's first tab, and the ``site_planner`` notebook's): a planner for your own site.

Start from an example (listed by its title) or load a plan file (YAML, read by the package's one strict
loader, :mod:`vcperf._yaml`); enter the link once with its rate and RTT sliders, or edit every field of
the plan in its form (:class:`vcperf.views.planner_form.PlanForm`, generated from the plan's schema);
ask the reverse questions (smallest bandwidth, largest RTT, most hosts: :func:`vcperf.views.site.solve`,
the same as ``vcperf plan --solve``) and download the edited plan (YAML, which ``vcperf plan`` reads)
and the answers (CSV, JSON: :func:`vcperf.views.site.render`, what ``vcperf plan --format`` prints). An
invalid plan or file is shown as the parser's one-line error; the last valid plan stays on screen.
"""

from __future__ import annotations

import base64
import html
from dataclasses import dataclass, field, replace

import ipywidgets as w

from vcperf import _yaml, site
from vcperf.views import site as view
from vcperf.views.planner_form import PlanForm, plan_yaml
from vcperf.widgets import TYPED_FORMAT, WIDE_CLASS, ExactSliders, readout_style, style_sliders, typed_step

#: Buttons of the reverse questions (keys of :data:`vcperf.views.site.QUESTIONS`, ``vcperf plan --solve``).
ASK = {"bandwidth": "smallest link", "rtt": "largest RTT", "hosts": "most hosts"}
#: Beside the file button (a file that cannot be loaded: its error instead).
NOTE = "<span style='color:#555'>or start from an example above</span>"
#: Names of the downloaded files.
PLAN_FILE, ANSWERS_FILE = "site.yaml", "site_answers"


def example_raw(name: str) -> dict:
    """Example plan ``name`` as written (its YAML document; :func:`vcperf.views.site.example_names`).

    Examples
    --------
    >>> example_raw("small_branch_dsl")["links"][0]["rtt"]
    '40 ms'
    """
    names = view.example_names()
    if name not in names:
        raise ValueError(f"example must be one of {names}; got {name!r}")
    return _yaml.load_file(view.EXAMPLES_DIR / f"{name}.yaml", f"plan {name}.yaml")


def example_titles() -> dict:
    """Each example's title (its plan's ``name``), by file name, as the planner lists them.

    Examples
    --------
    >>> example_titles()["small_branch_dsl"]
    'Small branch on DSL'
    """
    return {name: str(example_raw(name).get("name", name)) for name in view.example_names()}


def read_plan(content: bytes, filename: str) -> dict:
    """A plan file's document (``content``: its bytes), checked by the plan's parser; returns it as written.

    Raises
    ------
    ValueError
        One line: not UTF-8 text, not YAML the loader accepts, or the first bad field of the plan.

    Examples
    --------
    >>> read_plan(b"links: [{name: wan, bandwidth: 10 Mbit/s, rtt: 80}]", "x.yaml")
    Traceback (most recent call last):
    ...
    ValueError: links[0].rtt 80 has no unit and would be 80 s: did you mean '80 ms'?
    """
    try:
        text = bytes(content).decode("utf-8")
    except UnicodeDecodeError as err:
        raise ValueError(f"plan {filename!r} is not UTF-8 text ({err.reason} at byte {err.start})") from None
    raw = _yaml.loads(text, f"plan {filename!r}")
    site.from_dict(raw)
    return raw


def data_link(text: str, filename: str, mime: str, label: str) -> str:
    """An HTML anchor downloading ``text`` as ``filename`` (a ``data:`` URI: no server round trip).

    Examples
    --------
    >>> data_link("a: 1\\n", "p.yaml", "application/yaml", "plan").split(" class")[0]
    '<a download="p.yaml" href="data:application/yaml;charset=utf-8;base64,YTogMQo="'
    """
    b64 = base64.b64encode(text.encode("utf-8")).decode("ascii")
    return (f'<a download="{html.escape(filename)}" href="data:{mime};charset=utf-8;base64,{b64}" '
            f'class="vcperf-download" style="margin-right:1.2em">{html.escape(label)}</a>')


def reverse_html(r: site.Reverse) -> str:
    """A reverse answer for the page: the value, the binding workload, its quantity and flow, the note, the
    flags at the answer and (when none is enough) what each workload alone needs."""
    out = f"<b>{html.escape(r.question)} of {html.escape(r.subject)}: {view.reverse_answer(r)}</b>"
    if r.workload:
        out += (f", bound by <b>{html.escape(r.workload)}</b>'s {view.LABELS.get(r.quantity, r.quantity)} "
                f"(flow {html.escape(r.flow)})")
    if r.note:
        out += f" — {html.escape(r.note)}"
    serious = [f for f in r.flags if f.kind in site.SERIOUS]
    if serious:
        out += "<br>at that answer: " + "; ".join(f"<b>{f.kind}</b> {html.escape(f.message)}" for f in serious)
    if r.alone:
        out += "<br>each workload alone on the link needs: " + "; ".join(
            f"{html.escape(k)} {view.reverse_answer(replace(r, value=x))}" for k, x in r.alone.items())
    return out


@dataclass
class _State:
    """The panel's plan as edited (parsed from the form), as loaded, its evaluation and the questions asked of it."""

    plan: site.Plan
    loaded: site.Plan
    text: str = ""
    reverse: list = field(default_factory=list)
    evaluation: site.Evaluation | None = None


def site_planner(name: str = view.DEFAULT_EXAMPLE):
    """The planner panel: pick an example or load a plan file, edit it (its link's sliders, every field in the
    form), see every workload's answer, ask the reverse questions and download the plan and the answers.

    Parameters
    ----------
    name : str
        The example plan it opens on (:func:`vcperf.views.site.example_names`).
    """
    raw = example_raw(name)
    state = _State(site.from_dict(raw), site.from_dict(raw), plan_yaml(raw))
    titles = example_titles()
    sources = {n: example_raw(n) for n in titles}
    # narrow enough to sit beside each other in the app's control column (vcperf.widgets.side_by_side)
    pick = w.Dropdown(options=[(t, n) for n, t in titles.items()], value=name, description="plan",
                      layout=w.Layout(width="300px"), style={"description_width": "40px"})
    which = w.Dropdown(options=[lk.name for lk in state.plan.links], description="link",
                       layout=w.Layout(width="150px"), style={"description_width": "40px"})
    upload = w.FileUpload(accept=".yaml,.yml", multiple=False, description="load a plan file",
                          layout=w.Layout(width="160px"))
    upload.add_class("vcperf-upload")
    bw = w.FloatLogSlider(base=10, min=-1, max=5, step=typed_step(), description="rate Mbit/s",
                          readout_format=TYPED_FORMAT)
    rtt = w.FloatLogSlider(base=10, min=-2, max=3, step=typed_step(), description="RTT ms",
                           readout_format=TYPED_FORMAT)
    style_sliders(bw, rtt)
    message, status, readout, image = w.HTML(), w.HTML(), w.HTML(), w.Image(format="png")
    message.add_class("vcperf-plan-message")
    note = w.HTML(NOTE)
    note.add_class("vcperf-upload-note")
    branch = w.Dropdown(description="branch", layout=w.Layout(width="220px"), style={"description_width": "50px"})
    buttons = {q: w.Button(description=label, layout=w.Layout(width="auto")) for q, label in ASK.items()}
    prompt, answer, downloads, written = w.HTML(), w.HTML(), w.HTML(), w.HTML()
    answer.add_class("vcperf-reverse")
    downloads.add_class("vcperf-downloads")

    def link_spec():
        return state.plan.link(which.value)

    def show_prompt():
        prompt.value = (f"<b>Reverse questions</b> of this plan (bisection on every target met, as "
                        f"<code>vcperf plan --solve</code>): link <b>{html.escape(str(which.value))}</b>"
                        + (f", branch <b>{html.escape(str(branch.value))}</b>" if branch.value else ""))

    def redraw():
        e = site.evaluate(state.plan)
        state.evaluation = e
        changed = state.plan != state.loaded
        readout.value, image.value = view.show_evaluation(e, which.value, edited=changed)
        status.value = (f"<b>{html.escape(e.plan.name)}{' (edited)' if changed else ''}: {e.verdict}</b> "
                        "<span style='color:#555'>— a field applies on Enter or when you leave it; every field, its "
                        "unit and range: docs/PLAN.md</span>")
        show_downloads()

    def show_downloads():
        e, reverse, text = state.evaluation, state.reverse, state.text
        written.value = (f"<div style='font-size:smaller'>The plan as its file (<code>{PLAN_FILE}</code>, which "
                         f"<code>vcperf plan</code> reads):</div><pre style='font-size:smaller;line-height:1.3'>"
                         f"{html.escape(text)}</pre>")
        downloads.value = ("download: " + data_link(text, PLAN_FILE, "application/yaml", "plan (YAML)")
                           + data_link(view.render(e, "csv", reverse), f"{ANSWERS_FILE}.csv", "text/csv",
                                       "answers (CSV)")
                           + data_link(view.render(e, "json", reverse), f"{ANSWERS_FILE}.json", "application/json",
                                       "answers (JSON)"))

    def sync_link_controls():
        """The link and branch dropdowns and the sliders follow the plan (names, the chosen link's values)."""
        names = [lk.name for lk in state.plan.links]
        if list(which.options) != names:
            keep = which.value if which.value in names else names[0]
            which.unobserve(load_link, names="value")
            which.options = names
            which.value = keep
            which.observe(load_link, names="value")
        branches = [b.name for b in state.plan.branches]
        if list(branch.options) != branches:
            branch.unobserve(show_prompt_change, names="value")
            branch.options = branches
            branch.value = branches[0] if branches else None
            branch.observe(show_prompt_change, names="value")
        buttons["hosts"].disabled = not branches
        spec = link_spec()
        guard.set(bw=spec.bandwidth_bps / 1e6, rtt=max(spec.rtt_s * 1e3, 0.01))
        show_prompt()

    def edited(structure: bool = False):
        """The form changed: parse it with the plan's own parser; show its error, or the new plan."""
        try:
            plan = site.from_dict(form.raw)
        except (ValueError, TypeError) as err:  # the plan's one-line error (a wrong type is a TypeError)
            message.value = (f"<span style='color:#c00'><b>Not applied</b> (the last valid plan is shown): "
                             f"{html.escape(str(err))}</span>")
            return
        message.value = ""
        state.plan, state.text = plan, plan_yaml(form.raw)  # the file of the plan shown (never of a refused edit)
        if state.reverse:
            answer.value = "<i>The plan changed: ask again.</i>"
        state.reverse = []
        sync_link_controls()
        redraw()

    def slid(_key):
        """A slider moved: the link's rate (its uplink scaled with it) and RTT, written into the plan."""
        spec = link_spec()
        item = next((i for i in form.raw.get("links") or [] if isinstance(i, dict) and i.get("name") == spec.name),
                    None)
        if item is None:  # the link is being renamed in the form (its new name not applied yet)
            return
        scale = guard.state["bw"] * 1e6 / spec.bandwidth_bps
        item["bandwidth"] = f"{guard.state['bw']:.6g} Mbit/s"
        if spec.up_bandwidth_bps is not None:
            item["up_bandwidth"] = f"{spec.up_bandwidth_bps * scale / 1e6:.6g} Mbit/s"
        item["rtt"] = f"{guard.state['rtt']:.6g} ms"
        form.refresh()
        edited()

    guard = ExactSliders({"bw": bw, "rtt": rtt}, slid)

    def load_link(*_):
        sync_link_controls()
        redraw()

    def show_prompt_change(*_):
        show_prompt()

    def load(raw: dict):
        state.loaded = site.from_dict(raw)
        form.set_raw(raw)
        answer.value = ""
        edited(True)

    def picked(change):
        load(sources[change["new"]])

    def uploaded(change):
        files = change["new"]
        if not files:
            return
        f = files[0]
        upload.value = ()  # so the same file loaded again (after edits) is a change too
        try:
            raw = read_plan(f["content"], f["name"])
        except (ValueError, TypeError) as err:  # the plan's one-line error (a wrong type is a TypeError)
            note.value = f"<span style='color:#c00'><b>Not loaded</b>: {html.escape(str(err))}</span>"
            return
        note.value = NOTE
        key = f"upload:{f['name']}"
        sources[key] = raw
        title = f"{raw.get('name', f['name'])} ({f['name']})"
        options = [o for o in pick.options if o[1] != key] + [(title, key)]
        pick.unobserve(picked, names="value")
        pick.options = options
        pick.value = key
        pick.observe(picked, names="value")
        load(raw)

    def ask(question: str):
        if question == "hosts" and not branch.value:
            return
        answer.value = f"<i>Asking: {view.QUESTIONS[question]}…</i>"
        try:
            r = view.solve(state.plan, question, which.value, branch.value)
        except (ValueError, TypeError) as err:  # the plan's one-line error (a wrong type is a TypeError)
            answer.value = f"<span style='color:#c00'>{html.escape(str(err))}</span>"
            return
        state.reverse = [r]
        answer.value = reverse_html(r)
        show_downloads()

    form = PlanForm(raw, edited, site_extra=[written])
    for q, b in buttons.items():
        b.on_click(lambda _b, q=q: ask(q))
    pick.observe(picked, names="value")
    which.observe(load_link, names="value")
    branch.observe(show_prompt_change, names="value")
    upload.observe(uploaded, names="value")
    sync_link_controls()
    redraw()
    questions = w.VBox([prompt, w.HBox([branch, *buttons.values()]), answer, downloads],
                       layout=w.Layout(width="100%", margin="6px 0"))
    editor = w.VBox([status, message, form.tabs], layout=w.Layout(width="100%"))  # an edit's error beside it
    editor.add_class(WIDE_CLASS)
    questions.add_class(WIDE_CLASS)
    return w.VBox([w.HBox([pick, which]), w.HBox([upload, note]), bw, rtt, readout, image, questions, editor,
                   readout_style()])


#: The planner panel, by tab title (the app opens on it: :func:`vcperf.views.panels`).
PANELS = {"Site planner": site_planner}
