"""Issue 13: the FT notebook's headless what-if cell answers ``-p whatif_ft_link_gbps=...``.

``vcperf regenerate --only ft_checkpointing -p whatif_ft_link_gbps=25 --scenario x`` must write files that
differ from the default build (the what-if table and image), and the table must say what changed.
"""

import hashlib
import re
from pathlib import Path

import pandas as pd
import pytest

from vcperf import cli

pytestmark = pytest.mark.slow
NB = "ft_checkpointing"


def _digest(folder: Path) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def test_whatif_ft_link_scenario_differs_from_the_default_build(tmp_path, capfd):
    build = tmp_path / "build"
    assert cli.main(["regenerate", "--only", NB, "--output", str(build)]) == 0
    assert cli.main(["regenerate", "--only", NB, "-p", "whatif_ft_link_gbps=25", "--scenario", "x",
                     "--output", str(build)]) == 0
    assert re.search(rf"{NB} done", capfd.readouterr().err)
    scen = build / "scenarios" / "x"
    for sub in ("tables", "figures"):
        default, changed = _digest(build / sub / NB), _digest(scen / sub / NB)
        assert "whatif.csv" in default or "whatif.png" in default
        common = default.keys() & changed.keys()
        assert any(default[k] != changed[k] for k in common), sub
    assert _digest(build / "figures" / NB)["whatif.png"] != _digest(scen / "figures" / NB)["whatif.png"]
    base = pd.read_csv(build / "tables" / NB / "whatif.csv").set_index("quantity")["value"]
    fast = pd.read_csv(scen / "tables" / NB / "whatif.csv").set_index("quantity")["value"]
    assert base["ft_link_gbps"] == 10 and fast["ft_link_gbps"] == 25
    # a faster FT link ships the same dirty memory sooner: shorter stun, less added compile time, faster
    # FT-protected receive and a faster turn-on copy
    assert fast["kernel_compile_increase_4vcpu_s"] < base["kernel_compile_increase_4vcpu_s"]
    assert fast["netperf_10g_receive_gbps"] > base["netperf_10g_receive_gbps"]
    assert fast["turn_on_time_s (8 GB VM, 40 GB disk)"] < base["turn_on_time_s (8 GB VM, 40 GB disk)"]
    # the interval columns bracket the value in both builds
    for t in (base, fast):
        assert t["kernel_compile_increase_low_s"] < t["kernel_compile_increase_4vcpu_s"] < \
            t["kernel_compile_increase_high_s"]
