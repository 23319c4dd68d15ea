"""Shared helpers for the what-if panels (ipywidgets); each study's panels are in ``vcperf.views``.

A panel is built from a pure *update* function (model + redraw -> readout text, PNG bytes) so that
the same path can be timed headless (``make bench``) and tested without a browser.
"""

from __future__ import annotations

import io


def png_bytes(fig) -> bytes:
    """Render a matplotlib figure to PNG bytes (no software tag) and close it."""
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    # Fast zlib level: the image lives for one redraw; size matters less than the ~10 ms saved.
    fig.savefig(buf, format="png", metadata={"Software": None}, pil_kwargs={"compress_level": 1})
    plt.close(fig)
    return buf.getvalue()


def style_sliders(*sliders, description_width: str = "110px", width: str = "460px") -> None:
    """Give sliders a uniform label width and length."""
    for s in sliders:
        s.style.description_width = description_width
        s.layout.width = width


def fast_redraw(update):
    """Decorate a panel's ``*_update`` function so its figure uses the cheap widget layout."""
    import functools

    from vcperf import plotting

    @functools.wraps(update)
    def wrapper(*args, **kwargs):
        with plotting.fast():
            return update(*args, **kwargs)

    return wrapper
