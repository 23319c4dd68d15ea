"""Shared what-if panel wiring: controls' values reach the update in order; every change redraws."""

import math

import ipywidgets as w
import pytest

from vcperf import widgets
from vcperf.views import format as fmt


def test_whatif_panel_passes_values_in_order_and_redraws_on_change():
    calls = []

    def update(a, b):
        calls.append((a, b))
        return f"{a}-{b}", bytes([a, len(b)])

    x = w.IntSlider(value=1, min=0, max=10)
    y = w.Dropdown(options=["p", "qq"], value="p")
    box = widgets.whatif_panel([x, y], update)
    readout, image, style = box.children[-3:]
    assert list(box.children[:2]) == [x, y]
    assert "vcperf-readout" in readout._dom_classes and "white-space: normal" in style.value  # readouts wrap
    assert style.layout.display == "none" and not isinstance(style, w.HTML)
    assert calls == [(1, "p")] and readout.value == "1-p" and image.value == bytes([1, 1])
    x.value = 7
    y.value = "qq"
    assert calls[-2:] == [(7, "p"), (7, "qq")]
    assert readout.value == "7-qq" and image.value == bytes([7, 2])


# --- ROBO panels (vcperf.views.robo): preset start, slider-echo guard, ranges, Figure 11 legend ---------


def _robo_views():
    import matplotlib

    matplotlib.use("Agg")
    from vcperf.views import robo as views

    return views


def test_robo_planner_and_operations_panels_start_on_the_preset_and_ignore_slider_echo():

    views = _robo_views()
    for make in (views.capacity_planner, views.operations_whatif):
        box = make("dsl_512k")
        choose, bw, readout = box.children[0], box.children[1], box.children[-3]
        assert choose.value == "dsl_512k"  # starts on the preset, not "custom"
        first = readout.value
        assert "500 kbit/s" in first  # exactly, not the slider's 0.501 Mbit/s
        bw.value = _snapped(bw, 0.5)  # the browser echoes the value rounded to the slider's step
        assert bw.value != 0.5 and choose.value == "dsl_512k" and readout.value == first  # an echo is not the user
        bw.value = 2.0  # a real move
        assert choose.value == "custom" and "2 Mbit/s" in readout.value
        choose.value = "satellite"
        assert choose.value == "satellite" and "10 Mbit/s" in readout.value


def _snapped(slider, value: float) -> float:
    """``value`` as a browser's slider shows it: snapped to the step grid (from ``min``; a log slider's, of
    its exponent)."""
    if hasattr(slider, "base"):
        k = round((math.log(value, slider.base) - slider.min) / slider.step)
        return slider.base ** (slider.min + k * slider.step)
    return slider.min + round((value - slider.min) / slider.step) * slider.step


def test_planner_bandwidth_reaches_64_kbps_and_a_one_step_move_is_not_an_echo():

    views = _robo_views()
    box = views.capacity_planner("dsl_512k")
    choose, bw, readout = box.children[0], box.children[1], box.children[-3]
    first = readout.value
    bw.value = _snapped(bw, 0.5) * bw.base ** -bw.step  # one step down from the shown (snapped) value
    assert choose.value == "custom"  # a move, not an echo (a step, 0.002 %, is too small for the readout to show)
    bw.value = 0.49  # typed: the model follows, exactly
    assert readout.value != first and "490 kbit/s" in readout.value
    bw.value = 0.064  # an ISDN channel
    assert bw.value == 0.064 and "on 64 kbit/s" in readout.value


def test_capacity_planner_vm_slider_reaches_the_parameter_range():
    views = _robo_views()
    box = views.capacity_planner("dsl_512k")
    vms = next(c for c in box.children if getattr(c, "description", "") == "VMs per host")
    assert vms.max == views.PLANNER_MAX_VMS == 200  # the notebook parameter's range is [0, 200]
    vms.value = 150
    assert vms.value == 150 and "150 VMs/host" in box.children[-3].value


def test_figure11_legend_lists_each_distinct_curve_once():
    from vcperf import robo

    views = _robo_views()
    fig = views.per_operation_figure()
    labels = fig.axes[0].get_legend_handles_labels()[1]
    names = [n for label in labels for n in label.replace("\n", ", ").split(", ")]
    assert sorted(names) == sorted(robo.operation_names())  # every operation once
    assert len(labels) < len(robo.operation_names())  # identical curves share one entry
    lines = [ln.get_ydata() for ln in fig.axes[0].get_lines()]
    for i in range(len(lines)):  # and the entries are distinct curves
        for j in range(i + 1, len(lines)):
            assert not __import__("numpy").allclose(lines[i], lines[j], rtol=1e-6)


# --- every control of every panel changes the readout or the picture (headless, no browser) ------------


def _panels():
    import matplotlib

    matplotlib.use("Agg")
    from vcperf.views import contentlib, ft, robo, site, vcha, vmotion

    return {"site planner": site.site_planner,
            "robo network": robo.network_whatif, "robo capacity": robo.capacity_planner,
            "robo operations": robo.operations_whatif, "content library": contentlib.deploy_whatif,
            "vcha vcbench": vcha.vcbench_whatif, "vcha lifecycle": vcha.lifecycle_whatif, "ft": ft.whatif,
            "vmotion": vmotion.migration_whatif}


def _widgets(box):
    """``box`` and every widget inside it (panels may nest their controls in boxes)."""
    return [box] + [d for c in getattr(box, "children", ()) for d in _widgets(c)]


def _state(box):
    found = _widgets(box)
    return ([c.value for c in found if isinstance(c, w.Label | w.HTML)],
            [c.value for c in found if isinstance(c, w.Image)])


def _new_values(control):
    """Values to move ``control`` to: the other options, the toggle, or points across the slider's range."""
    if isinstance(control, w.Checkbox):
        return [not control.value]
    if isinstance(control, w.Dropdown):
        values = [o[1] if isinstance(o, tuple) else o for o in control.options]
        return [v for v in values if v not in (control.value, "custom")]
    lo, hi = control.min, control.max
    if isinstance(control, w.FloatLogSlider):
        values = [control.base ** (lo + f * (hi - lo)) for f in (0.2, 0.7)]
    else:
        cast = int if isinstance(control, w.IntSlider) else float
        values = [cast(lo + f * (hi - lo)) for f in (0.2, 0.7, 0.0, 1.0)]
    return [v for v in values if v != control.value]  # setting the current value is no change


@pytest.mark.slow  # every control of every panel, or every planner input drawn twice: minutes
def test_every_control_of_every_panel_changes_readout_or_picture():
    """Each control of each what-if panel, moved from the panel's starting inputs to each of several values
    (every dropdown option) and back, changes the readout or the picture and raises nothing -- e.g. the
    planner's folder operations, the Content Library vCPUs, the VCHA appliance size and PSC mode, the FT
    receive rate, vMotion's streams, RTT, encryption, concurrency and downtime target. (From the starting
    inputs: elsewhere a knob can be rightly inert, e.g. encryption when a 150 ms RTT's TCP window, not the
    CPU, caps the streams, or replication loss with VCHA off.)"""
    import pytest

    for name, make in _panels().items():
        box = make()
        controls = [c for c in _widgets(box)[1:] if isinstance(c, w.ValueWidget)
                    and not isinstance(c, w.Label | w.HTML | w.HTMLMath | w.Image)]
        assert len(controls) >= 3, name
        for control in controls:
            start = control.value
            for value in _new_values(control):
                before = _state(box)
                control.value = value
                if _state(box) == before:
                    pytest.fail(f"{name}: {control.description} = {value!r} changed neither readout nor picture")
                control.value = start  # back to the starting inputs: the same readout and picture again
                assert _state(box) == before, (name, control.description, value)


def test_number_formats_for_people():
    """One unit family per quantity, the same in every panel (vcperf.views.format)."""
    assert fmt.fmt_num(1234567) == "1,230,000" and fmt.fmt_num(0.000123) == "0.000123"
    assert fmt.fmt_num(3.5) == "3.5" and fmt.fmt_num(9.996) == "10" and fmt.fmt_num(float("nan")) == "n/a"
    assert [fmt.fmt_duration(t) for t in (2e-5, 4.2e-4, 0.85, 12.34, 119.96, 130, 599.8, 33177, 200000)] == [
        "20 µs", "420 µs", "850 ms", "12.3 s", "2 min", "2.17 min", "10 min", "9.22 h", "55.6 h"]
    assert fmt.fmt_duration(-0.85) == "-850 ms" and fmt.fmt_duration(float("nan")) == "n/a"
    assert fmt.fmt_bps(64e3) == "64 kbit/s" and fmt.fmt_bps(512e3) == "512 kbit/s"
    assert fmt.fmt_bps(1e9) == "1 Gbit/s" and fmt.fmt_bps(2.85e9) == "2.85 Gbit/s"
    assert fmt.fmt_bps(999.9e6) == "1 Gbit/s"  # rounded first, then the unit is chosen
    assert fmt.fmt_bytes(3.5e6) == "3.5 MB" and fmt.fmt_bytes(420e3) == "420 kB" and fmt.fmt_bytes(39e9) == "39 GB"
    assert fmt.fmt_bytes_per_s(118e6) == "118 MB/s" and fmt.fmt_percent(0.283) == "28.3 %"


def test_views_print_units_from_the_one_formatter_module():
    """No view writes a unit its own way: the old spellings ("us", "Mbps", "Gb/s", "KB") are gone from the
    views' readouts, and no view module defines a formatter of its own."""
    import inspect
    import pkgutil
    import re
    from importlib import import_module

    import matplotlib

    matplotlib.use("Agg")
    import vcperf.views

    names = [m.name for m in pkgutil.walk_packages(vcperf.views.__path__, "vcperf.views.")]
    for name in names:
        mod = import_module(name)
        if name == "vcperf.views.format":
            continue
        own = [n for n, f in inspect.getmembers(mod, inspect.isfunction)
               if f.__module__ == name and re.match(r"_?(fmt|format)_", n)]
        assert not own, f"{name} defines its own formatters {own}"
    for text in [make()[0] for make in _update_defaults()]:
        assert not re.search(r"\d (us|[kKMG]bps|Gb/s|KB)\b", text), text


def _update_defaults():
    from vcperf.views import contentlib, ft, robo, vcha, vmotion

    return [robo.network_whatif_update, robo.capacity_update, robo.operations_update, contentlib.deploy_whatif_update,
            ft.whatif_update, vcha.vcbench_whatif_update, vcha.lifecycle_whatif_update,
            vmotion.migration_whatif_update]


def test_exact_sliders_ignore_the_browsers_echo_and_set_quietly():
    moves = []
    log = w.FloatLogSlider(value=0.5, base=10, min=-1, max=4, step=0.01)
    lin = w.FloatSlider(value=100.0, min=0, max=1000, step=1)
    exact = widgets.ExactSliders({"bw": log, "rtt": lin}, moves.append)
    log.value = 10 ** round(math.log10(0.5), 2)  # the rounded echo
    lin.value = 100.4
    assert moves == [] and exact.state == {"bw": 0.5, "rtt": 100.0}
    exact.set(bw=2.0)
    assert moves == [] and log.value == 2.0 and exact.state["bw"] == 2.0
    lin.value = 250.0
    assert moves == ["rtt"] and exact.state["rtt"] == 250.0
    log.value = 10 ** (round(math.log10(2.0), 2) - 0.01)  # one step down from the shown value: the user
    assert moves == ["rtt", "bw"] and exact.state["bw"] == log.value


def test_planner_readout_and_required_bandwidth_agree_with_the_model():
    """The planner's vectorised host grid and cached required bandwidth give the model's own numbers."""
    from vcperf import robo

    views = _robo_views()
    text, _ = views.capacity_update(n_hosts=37, level=2, target_s=20.0)
    link = robo.preset(views.START_PRESET)
    here = robo.plan(link, 37, 2, "clone_vm")
    assert f"clone_vm during the burst {fmt.fmt_duration(float(here.operation_latency_s))}" in text
    need = robo.required_bandwidth_bps(20.0, 37, link.rtt_s, link.loss, 2, "operation_latency", "clone_vm")
    assert fmt.fmt_bps(need) in text


def test_panels_start_where_their_notebooks_parameters_do():
    """One set of starting values: every app panel's own defaults (its constructor's, what the app opens
    with) equal its notebook's parameter defaults (what `vcperf params` lists and `vcperf regenerate -p`
    overrides), argument by argument through vcperf.views.NOTEBOOK_PARAMETERS -- e.g. the capacity
    planner's statistics level is the notebook's planner_level (4), not 1."""
    import inspect

    import matplotlib
    import pytest

    matplotlib.use("Agg")
    from vcperf import contentlib, params, robo, views
    from vcperf.views import site

    panels = views.panels()
    assert set(views.NOTEBOOK_PARAMETERS) == set(panels)
    # a None default means "the test bed's", documented by the constructor
    resolved = {("ROBO capacity", "powered_on_vms"): robo.testbed_powered_on_vms(),
                ("Content Library", "size_bytes"): contentlib.testbed().template_size_bytes}
    for title, (notebook, mapping) in views.NOTEBOOK_PARAMETERS.items():
        declared = params.read_parameters(params.NOTEBOOK_DIR / f"{notebook}.py")
        signature = inspect.signature(panels[title]).parameters
        for name, (arg, factor) in mapping.items():
            own = signature[arg].default
            own = resolved[(title, arg)] if own is None else own
            want = declared[name].default
            if isinstance(want, float) or factor != 1:
                assert own == pytest.approx(want * factor, rel=1e-12), (title, name, arg, own, want)
            else:
                assert own == want and type(own) is type(want), (title, name, arg, own, want)
        if notebook == "site_planner":  # the notebook's link is the plan's own first link
            link = site.example(declared["plan_name"].default).links[0]
            assert (link.bandwidth_bps, link.rtt_s) == (declared["link_bandwidth_bps"].default,
                                                        declared["link_rtt_s"].default)
    assert inspect.signature(panels["ROBO capacity"]).parameters["level"].default == 4


def test_log_sliders_show_typed_values_as_typed():
    """A value a person types into a log slider's readout comes back from the front end snapped to the
    slider's step and is shown in its readout format: 0.5 Mbit/s shows as 0.5 (not 0.501), 3.5 MB as 3.5
    (not 3.47), in every log slider of every panel."""
    import matplotlib

    matplotlib.use("Agg")
    for name, make in _panels().items():
        box = make()
        logs = [c for c in _widgets(box) if isinstance(c, w.FloatLogSlider)]
        for s in logs:
            assert s.readout_format == widgets.TYPED_FORMAT, (name, s.description)
            lo, hi = s.base ** s.min, s.base ** s.max
            for typed in (0.064, 0.5, 2.5, 3.5, 10.0, 25.0, 80.0, 123.0, 1000.0, 4096.0):
                if lo <= typed <= hi:
                    shown = float(f"{_snapped(s, typed):.4g}")  # d3-format ".4": 4 significant digits, trimmed
                    assert shown == typed, (name, s.description, typed, _snapped(s, typed))


def test_lazy_tabs_build_a_panel_once_when_its_tab_is_first_selected():
    calls = []

    def maker(title):
        def make():
            calls.append(title)
            return w.Label(title)
        return make

    tabs = widgets.lazy_tabs({t: maker(t) for t in ("first", "second", "third")})
    assert calls == ["first"] and tabs.titles == ("first", "second", "third") and tabs.selected_index == 0
    assert tabs.children[0].children[0].value == "first"
    assert "Building" in tabs.children[2].children[0].value  # a placeholder until it is opened
    tabs.selected_index = 2
    tabs.selected_index = 0
    tabs.selected_index = 2
    assert calls == ["first", "third"] and tabs.children[2].children[0].value == "third"


def test_side_by_side_shows_the_picture_at_its_width_for_the_screen_scale():
    """The app's layout: controls in the left column, the picture right (its CSS width = PNG pixels / screen
    scale: rendered at 2x for HiDPI screens, shown at the figure's own size), the readout across below."""
    import matplotlib

    matplotlib.use("Agg")
    from vcperf.views import vmotion

    headless = vmotion.migration_whatif_update()[1]
    widgets.set_screen_scale(2)
    try:
        box = widgets.side_by_side(vmotion.migration_whatif())
        sharp = next(c for c in box.children if isinstance(c, w.Image)).value
    finally:
        widgets.set_screen_scale(1)
    assert widgets.png_size(sharp) == tuple(2 * n for n in widgets.png_size(headless))  # 2x the pixels
    assert vmotion.migration_whatif_update()[1] == headless  # scale 1 again: the headless picture, unchanged
    image = next(c for c in box.children if isinstance(c, w.Image))
    assert image.layout.width == f"{widgets.png_size(headless)[0]}px" and image.layout.max_width == "100%"
    assert box.layout.display == "grid" and image.layout.grid_area.startswith("1 / 2 /")
    readout = next(c for c in box.children if isinstance(c, w.Label))
    assert readout.layout.grid_area == "auto / 1 / auto / 3"
    assert all(c.layout.grid_area == "auto / 1 / auto / 2" for c in box.children
               if isinstance(c, w.ValueWidget) and not isinstance(c, w.Label | w.HTML | w.HTMLMath | w.Image))


def test_app_voila_command_preheats_and_culls_idle_kernels():
    """`make app`'s Voila: 127.0.0.1 only, one pre-heated kernel (the first page at once), and a kernel whose
    page is closed is shut down after an idle timeout (not kept until the server stops)."""
    from pathlib import Path

    import pytest

    from vcperf import app

    cmd = app.voila_command(Path("app.ipynb"), 8866)
    assert "--Voila.ip=127.0.0.1" in cmd and "--preheat_kernel=True" in cmd and "--pool_size=1" in cmd
    assert f"--MappingKernelManager.cull_idle_timeout={app.CULL_IDLE_TIMEOUT_S}" in cmd
    assert f"--MappingKernelManager.cull_interval={app.CULL_INTERVAL_S}" in cmd
    assert "--MappingKernelManager.cull_connected=False" in cmd  # a page still open keeps its kernel
    assert 0 < app.CULL_INTERVAL_S <= app.CULL_IDLE_TIMEOUT_S <= 3600
    assert "--MappingKernelManager.cull_idle_timeout=5" in app.voila_command(Path("a.ipynb"), 1, 5, 1)
    with pytest.raises(ValueError, match="cull_idle_timeout_s"):
        app.voila_command(Path("a.ipynb"), 1, 0)


def test_app_kernel_manager_class_resolves_when_run_as_a_script():
    """`make app` runs ``python -m vcperf.app``, where the module's ``__name__`` is ``__main__``: the kernel
    manager class Voila is told to load must still be the importable ``vcperf.app.AppKernelManager`` (it
    once read ``__main__.AppKernelManager`` and Voila exited at start-up)."""
    import runpy
    from pathlib import Path

    from traitlets.utils.importstring import import_item

    script = runpy.run_module("vcperf.app", run_name="__vcperf_app_as_a_script__")
    cmd = script["voila_command"](Path("app.ipynb"), 8866)
    (path,) = [a.split("=", 1)[1] for a in cmd if a.startswith("--VoilaConfiguration.multi_kernel_manager_class=")]
    cls = import_item(path)
    assert cls.__name__ == "AppKernelManager" and cls.__module__ == "vcperf.app", path



def test_site_planner_figure_is_the_plans_own_whatever_came_before():
    """The planner's figure is built once per plan and redrawn over a kept background: a plan's picture,
    at its own link or a what-if, is the same bytes whatever was drawn before, and the same bytes as a
    figure built afresh for that input (nothing of an earlier plan or rate stays in it)."""
    import matplotlib

    matplotlib.use("Agg")
    from vcperf import site as model
    from vcperf.views import site

    a, b = site.example("branch_20_hosts_10mbit"), site.example("two_datacentres_vcha")
    own, what_if = site.site_update(a), site.site_update(a, "wan", 3e6, 0.2)
    site.site_update(b, "dci", 5e8, 0.001)
    assert site.site_update(a, "wan", 3e6, 0.2) == what_if
    assert site.site_update(a) == own

    kept = site._PlannerFigure()
    for plan, bw in ((a, 3e6), (b, 5e8), (a, 1e5)):
        e = model.evaluate(plan.with_link(plan.links[0].name, bandwidth_bps=bw))
        assert kept.draw(e) == site._PlannerFigure().draw(e)


@pytest.mark.slow  # every control of every panel, or every planner input drawn twice: minutes
def test_site_planner_kept_background_draws_what_a_fresh_panel_draws():
    """An update drawn over the cached background, after updates of other plans, rates and round
    trips (other axis limits, overloaded answers, another screen scale), is the same PNG as a fresh
    panel drawing the same input; and the bars, rates and answers it moves are this input's."""
    import matplotlib

    matplotlib.use("Agg")
    from vcperf import site as model
    from vcperf.views import site

    inputs = []
    for plan in (site.example(name) for name in site.example_names()):
        link = plan.links[0]
        for factor, rtt in ((1.0, link.rtt_s), (1.06, link.rtt_s), (0.03, link.rtt_s * 5), (30.0, link.rtt_s)):
            inputs.append(model.evaluate(plan.with_link(link.name, bandwidth_bps=link.bandwidth_bps * factor,
                                                        rtt_s=rtt)))
    assert any(not math.isfinite(a.value) for e in inputs for a in e.answers if a.ok is not None)
    kept = site._PlannerFigure()
    order = list(range(len(inputs)))
    try:
        for scale in (1, 2):
            widgets.set_screen_scale(scale)
            for i in order + order[::-1]:
                e = inputs[i]
                png = kept.draw(e)
                assert png == site._PlannerFigure().draw(e), (e.plan.name, scale)
                assert widgets.png_size(png) == (round(72 * 10 * scale), round(30 * 10 * scale))
                moving = [r.get_width() for bars in kept.bars for r in bars]
                assert moving == [s.share for d in e.loads if d.flows for s in d.flows]
                assert [t.get_text() for t in kept.rates] == [fmt.fmt_bps(d.capacity_bps) for d in e.loads if d.flows]
                rows = [a for a in e.answers if a.ok is not None]
                assert [p.get_visible() for p in kept.points] == [math.isfinite(a.value) for a in rows]
                for p, a in zip(kept.points, rows, strict=True):
                    if math.isfinite(a.value):
                        assert p.get_xdata()[0] == a.value / a.target
    finally:
        widgets.set_screen_scale(1)


def test_opaque_png_bytes_is_the_same_pixels_and_rejects_transparency():
    """The planner's PNG writer (RGB, unfiltered rows) decodes to the canvas' pixels; a transparent or
    malformed buffer is refused, naming the parameter."""
    import io

    import numpy as np
    import pytest
    from PIL import Image

    rng = np.random.default_rng(31)
    rgba = rng.integers(0, 256, size=(37, 53, 4), dtype=np.uint8)
    rgba[..., 3] = 255
    png = widgets.opaque_png_bytes(rgba)
    decoded = Image.open(io.BytesIO(png))
    assert decoded.mode == "RGB" and widgets.png_size(png) == (53, 37)
    assert np.array_equal(np.asarray(decoded), rgba[..., :3])
    rgba[3, 4, 3] = 254
    with pytest.raises(ValueError, match="rgba"):
        widgets.opaque_png_bytes(rgba)
    with pytest.raises(ValueError, match="rgba"):
        widgets.opaque_png_bytes(np.zeros((4, 4, 3), np.uint8))
