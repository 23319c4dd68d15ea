"""Constants and helpers the vMotion views share: release labels and colours, the paper's values."""

from __future__ import annotations

from vcperf import vmotion as vm

GIB = 2.0**30
RELEASE_LABEL = {"6.7": "vSphere 6.7", "7.0u1": "vSphere 7.0 U1"}
RELEASE_COLOR = {"6.7": "tab:red", "7.0u1": "tab:blue"}
AMBER = "#b8860b"  # flags: inputs beyond VMware's documented limits or the calibrated ranges


def paper_value(key):
    """The paper's value (SI) of a ledger target of :mod:`vcperf.vmotion`."""
    return {t.key: t for t in vm.targets()}[key].paper_value()


def model_kw():
    """The calibrated parameters and the settings, as keywords of the model functions."""
    return {"params": vm.calibrate(), "settings": vm.settings()}


def until_recovered_s(m) -> float:
    """Seconds from the start of a migration until the guest is back to full speed: the migration and
    its post-switch-over phase (a figure's time axis must show both)."""
    return float(m.migration_time_s) + float(m.post_switchover_time_s)
