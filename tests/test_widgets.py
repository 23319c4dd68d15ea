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
