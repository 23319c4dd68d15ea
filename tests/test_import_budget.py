"""Imports a path needs, no more (issue 41): the first answer of ``import vcperf.site``, ``vcperf --help``,
``vcperf plan --help`` and ``vcperf plan site.yaml`` does not wait for modules it never uses.

Each path runs in a fresh interpreter that counts ``sys.modules`` when it is done. The heavy packages
(pandas, matplotlib, jupytext -> nbformat -> jsonschema: seconds of imports on a loaded 2-core machine, more
when no bytecode is cached) must be absent where the path does not use them, and the module count stays
under a budget: about 1.3x what the path imported when the budget was set (stated beside each), so
a new eager import of a large package fails here, while an ordinary new module does not.
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PLAN = ROOT / "examples" / "branch_20_hosts_10mbit.yaml"
HELP = "from vcperf import cli\ntry:\n    cli.main([{}])\nexcept SystemExit:\n    pass"
HEAVY = ("pandas", "matplotlib", "jupytext", "nbformat", "jsonschema", "IPython", "ipywidgets", "papermill")

#: path -> (Python run in a fresh interpreter, module budget, packages that must not be imported). Counts when
#: set (2026-11-28): import vcperf.site 310, vcperf --help and vcperf plan --help 84, vcperf plan 871 with the
#: calibration cache filled and 1127 without it (the fits import scipy.optimize), import vcperf.app 309 (675 with
#: the Jupyter server imported at the top).
PATHS = {
    "import vcperf.site": ("import vcperf.site", 400, HEAVY),
    "vcperf --help": (HELP.format("'--help'"), 120, (*HEAVY, "numpy", "scipy", "yaml")),
    "vcperf plan --help": (HELP.format("'plan', '--help'"), 120, (*HEAVY, "numpy", "scipy", "yaml")),
    # `make app` (python -m vcperf.app): the Jupyter server only in Voila's own process, for the kernel manager class
    "import vcperf.app": ("import vcperf.app", 400, (*HEAVY, "jupyter_server", "tornado")),
    # the plan reads the test bed's tables (pandas) and the Student-t quantile of its intervals (scipy): used
    "vcperf plan site.yaml": (f"from vcperf import cli\nassert cli.main(['plan', {str(PLAN)!r}]) == 0", 1400,
                              tuple(h for h in HEAVY if h != "pandas")),
}


def _imported(code: str) -> list[str]:
    script = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)), file=sys.stderr)"
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stderr.strip().splitlines()[-1])


@pytest.mark.parametrize("path", list(PATHS))
def test_a_path_imports_what_it_uses_within_its_budget(path):
    code, budget, absent = PATHS[path]
    modules = _imported(code)
    tops = {m.split(".")[0] for m in modules}
    assert not tops & set(absent), f"{path} imports {sorted(tops & set(absent))}"
    assert len(modules) <= budget, f"{path} imports {len(modules)} modules (budget {budget})"
