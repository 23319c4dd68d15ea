"""Shared what-if panel wiring: controls' values reach the update in order; every change redraws."""

import ipywidgets as w

from vcperf import widgets


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
    import numpy as np

    views = _robo_views()
    for make in (views.capacity_planner, views.operations_whatif):
        box = make("dsl_512k")
        choose, bw, readout = box.children[0], box.children[1], box.children[-3]
        assert choose.value == "dsl_512k"  # starts on the preset, not "custom"
        first = readout.value
        assert "0.5 Mbps" in first  # exactly, not the slider's 0.501
        bw.value = 10 ** round(float(np.log10(0.5)), 2)  # the browser echoes the rounded 0.501
        assert choose.value == "dsl_512k" and readout.value == first  # an echo is not the user
        bw.value = 2.0  # a real move
        assert choose.value == "custom" and "2 Mbps" in readout.value
        choose.value = "satellite"
        assert choose.value == "satellite" and "10 Mbps" in readout.value


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
    from vcperf.views import contentlib, ft, robo, vcha, vmotion

    return {"robo network": robo.network_whatif, "robo capacity": robo.capacity_planner,
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
    assert widgets.fmt_num(1234567) == "1,230,000" and widgets.fmt_num(0.000123) == "0.000123"
    assert widgets.fmt_num(3.5) == "3.5" and widgets.fmt_num(9.996) == "10" and widgets.fmt_num(float("nan")) == "n/a"
    assert [widgets.fmt_duration(t) for t in (0.85, 12.34, 130, 599.8, 33177, 200000)] == [
        "850 ms", "12.3 s", "2 min 10 s", "10 min 00 s", "9 h 13 min", "2.31 days"]
    assert widgets.fmt_bps(64e3) == "64 kbps" and widgets.fmt_bps(512e3) == "0.512 Mbps"
    assert widgets.fmt_bps(1e9) == "1 Gbps"
    assert widgets.fmt_bytes(3.5e6) == "3.5 MB"


def test_planner_readout_and_required_bandwidth_agree_with_the_model():
    """The planner's vectorised host grid and cached required bandwidth give the model's own numbers."""
    from vcperf import robo

    views = _robo_views()
    text, _ = views.capacity_update(n_hosts=37, level=2, target_s=20.0)
    link = robo.preset(views.START_PRESET)
    here = robo.plan(link, 37, 2, "clone_vm")
    assert f"clone_vm during the burst {widgets.fmt_duration(float(here.operation_latency_s))}" in text
    need = robo.required_bandwidth_bps(20.0, 37, link.rtt_s, link.loss, 2, "operation_latency", "clone_vm")
    assert widgets.fmt_bps(need) in text
