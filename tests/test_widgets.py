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
    readout, image = box.children[-2], box.children[-1]
    assert list(box.children[:2]) == [x, y]
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
        choose, bw, readout = box.children[0], box.children[1], box.children[-2]
        assert choose.value == "dsl_512k"  # starts on the preset, not "custom"
        first = readout.value
        assert "0.5 Mbps" in first
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
    assert vms.value == 150 and "150 VMs/host" in box.children[-2].value


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
