"""No calibrated parameter or published interval bound outside its physical domain (issue 30).

Every parameter of every study is a non-negative physical quantity (a time, rate, size, count or
ratio); a share (unit ``fraction`` or a meaning "share of ...") lies in [0, 1]; a meaning that states
a floor (``(>= 1)``) is held to it. The value and both ends of its 90 % interval are checked, in the
parameter table (what ``build/`` publishes) and, for the ledger, every model band of a non-difference
target stays >= 0 and under the target's maximum."""

import math
import re

import pytest

from vcperf import protocol, studies


def domain(unit: str, name: str, meaning: str) -> tuple[float, float]:
    """[lo, hi] of a parameter from its unit, name and meaning."""
    lo, hi = 0.0, math.inf
    if unit == "fraction" or meaning.lower().startswith("share of") or \
            name.endswith(("_fraction", "_efficiency", "_utilization")):
        hi = 1.0
    floor = re.search(r"\(>=\s*([0-9.]+)\)", meaning)
    if floor:
        lo = float(floor.group(1))
    return lo, hi


def _rows(study):
    return [r for r in studies.module(study).parameter_table().itertuples()]


def _outside(study, r) -> list[str]:
    lo, hi = domain(r.unit, r.name, r.meaning)
    return [f"{study} {r.name} ({r.unit}, domain [{lo:g}, {hi:g}]): {col} = {getattr(r, col):g}"
            for col in ("value", "low_90", "high_90")
            if not (math.isnan(getattr(r, col)) and col != "value") and not lo <= getattr(r, col) <= hi]


def test_domain_rules_read_units_names_and_meanings():
    assert domain("fraction", "tpcx.peak_vm_utilization", "highest load") == (0.0, 1.0)
    assert domain("1", "nfc_efficiency", "share of the Ethernet line rate") == (0.0, 1.0)
    assert domain("1", "ops.round_trips_per_call", "round trips (>= 1)") == (1.0, math.inf)
    assert domain("B/s", "x", "a rate") == (0.0, math.inf)


@pytest.mark.parametrize("study", studies.names())
def test_calibrated_parameters_and_their_intervals_lie_in_their_physical_domain(study):
    rows = _rows(study)
    assert rows, f"{study}: no parameters"
    bad = [msg for r in rows for msg in _outside(study, r)]
    assert not bad, "\n".join(bad)



@pytest.mark.slow
def test_no_ledger_band_leaves_its_quantitys_domain():
    """The published ledger (what ``build/fidelity.csv`` holds): a model value and its band are >= 0
    unless the target is a signed difference, and never above the target's maximum."""
    from vcperf import fidelity

    df = fidelity.table()
    bad = []
    for study in studies.names():
        tmap = protocol.target_map(studies.module(study))
        for r in df[df["study"] == study].itertuples():
            t = tmap[r.key]
            lo = -math.inf if t.difference else 0.0
            for col in ("model_value", "model_low", "model_high"):
                x = getattr(r, col)
                if not math.isnan(x) and not lo <= x <= t.maximum * (1 + 1e-12):
                    bad.append(f"{study} {r.key} ({r.kind}): {col} = {x:g} outside [{lo:g}, {t.maximum:g}]")
    assert not bad, "\n".join(bad)
