"""Per-study views: figures and what-if panels, one view module (or package) per registered study.

``vcperf.views.<study package name>`` (e.g. :mod:`vcperf.views.robo` for ``vcperf.robo``) holds a study's
figures and what-if panels; its ``PANELS`` maps tab titles to panel constructors. They are built on
:mod:`vcperf.plotting` (deterministic figures), :mod:`vcperf.widgets` (the panel toolkit: the persistent
figure, the slider-echo guard, the readout) and :mod:`vcperf.views.format` (the one set of formatters:
durations, rates, sizes, percents, intervals). The list of studies is the registry's
(:data:`vcperf.studies.STUDIES`).
"""

from __future__ import annotations

import importlib

from vcperf import studies


def module(study: str):
    """The view module of registered study ``study`` (``"robo2019"`` -> :mod:`vcperf.views.robo`).

    Parameters
    ----------
    study : str
        A study name of :func:`vcperf.studies.names`.

    Raises
    ------
    ValueError
        If ``study`` is not registered.

    Examples
    --------
    >>> module("vmotion2020").__name__
    'vcperf.views.vmotion'
    """
    if study not in studies.STUDIES:
        raise ValueError(f"study must be one of {list(studies.STUDIES)}; got {study!r}")
    return importlib.import_module(f"{__name__}.{studies.STUDIES[study].package.rsplit('.', 1)[-1]}")


def panels() -> dict:
    """Every what-if panel constructor, by tab title: the site planner first (:mod:`vcperf.views.site`,
    every study's flows on the links they share), then study by study in the registry's order.

    Each constructor returns an ipywidgets VBox (controls, readout, image), called with its defaults.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> "vMotion" in panels() and len(panels()) >= len(studies.names())
    True
    >>> next(iter(panels()))
    'Site planner'
    """
    out = dict(importlib.import_module(f"{__name__}.site").PANELS)
    for name in studies.names():
        out.update(module(name).PANELS)
    return out
