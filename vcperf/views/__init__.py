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


#: Which notebook parameter sets which argument of each what-if panel (tab title -> (notebook, {parameter:
#: (argument, factor)}): argument = parameter x factor). The panels' own defaults (their constructors'
#: signatures, what the app opens with) equal the notebooks' parameter defaults (what ``vcperf params`` lists
#: and ``vcperf regenerate -p`` overrides) through this map: one set of starting values (tests/test_widgets.py).
NOTEBOOK_PARAMETERS = {
    "Site planner": ("site_planner", {"plan_name": ("name", 1)}),
    "VCHA overhead": ("vcha_overhead", {
        "whatif_clients": ("clients", 1), "whatif_replication_rtt_ms": ("replication_rtt_ms", 1),
        "whatif_stats_level": ("stats_level", 1), "whatif_vcha_enabled": ("vcha_enabled", 1),
        "whatif_bandwidth_gbps": ("bandwidth_gbps", 1), "whatif_loss_percent": ("loss_percent", 1),
        "whatif_appliance": ("appliance", 1), "whatif_psc_mode": ("psc_mode", 1)}),
    "VCHA failover": ("vcha_failover", {
        "whatif_registered_vms": ("registered_vms", 1), "whatif_vcpus": ("vcpus", 1),
        "whatif_clone_bandwidth_gbps": ("clone_bandwidth_gbps", 1), "whatif_psc_mode": ("psc_mode", 1)}),
    "ROBO network": ("robo_networks", {"whatif_network": ("preset", 1), "whatif_payload_bytes": ("payload_bytes", 1)}),
    "ROBO capacity": ("robo_background_and_statistics", {
        "planner_network": ("preset", 1), "planner_hosts": ("n_hosts", 1), "planner_level": ("level", 1),
        "planner_vms_per_host": ("powered_on_vms", 1), "planner_operation": ("operation", 1),
        "planner_target_s": ("target_s", 1)}),
    "ROBO operations": ("robo_operations", {
        "whatif_network": ("preset", 1), "whatif_clients": ("clients", 1), "whatif_operation": ("operation", 1)}),
    "FT": ("ft_checkpointing", {
        "whatif_ft_link_gbps": ("ft_link_bps", 1e9), "whatif_receive_gbps": ("receive_rate_bps", 1e9),
        "whatif_dirty_mb_per_s": ("dirty_rate_bytes_per_s", 1e6)}),
    "Content Library": ("contentlib_deploy", {
        "whatif_template_size_bytes": ("size_bytes", 1), "whatif_layout": ("layout", 1),
        "whatif_network_bps": ("network_bps", 1), "whatif_mgmt_network_bps": ("mgmt_network_bps", 1),
        "whatif_vcenter_vcpus": ("vcenter_vcpus", 1), "whatif_decompression_streams": ("decompression_streams", 1)}),
    "vMotion": ("vmotion_precopy", {f"whatif_{name}": (name, 1) for name in (
        "memory_gib", "vcpus", "dirty_rate_mb_per_s", "working_set_gib", "link_speed_gbps", "link_count", "release",
        "streams_per_vmknic", "rtt_ms", "encryption_gb_per_core_s", "concurrent", "downtime_target_s",
        "evacuate_vms")}),
}


def panels() -> dict:
    """Every what-if panel constructor, by tab title: the site planner first (:mod:`vcperf.views.planner`,
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
    out = dict(importlib.import_module(f"{__name__}.planner").PANELS)
    for name in studies.names():
        out.update(module(name).PANELS)
    return out
