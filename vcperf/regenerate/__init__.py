"""``vcperf regenerate``: execute every notebook with papermill into ``build/``, safely (re-exports only).

Layout of the output::

    build/notebooks/<nb>.ipynb           executed copies (normalised: no timings, no absolute paths)
    build/figures/<nb>/<figure>.png|svg  written by the notebooks (vcperf.plotting.save_figure)
    build/tables/<nb>/<table>.csv        written by the notebooks (vcperf.plotting.save_table)
    build/fidelity.csv                   vcperf.fidelity.table(), the same as `vcperf fidelity`
    build/report/<page>.html             each executed notebook rendered by nbconvert (code hidden), a nav
    build/report/index.html, index.html  the report's index: ledger summary, misses, links (vcperf.report)
    build/scenarios/<name>/              what-if scenarios (``-p``/``--params`` with ``--scenario``)

Safety: everything is written into a staging folder beside the target, swapped in only when every
notebook succeeded (on failure the target is untouched and the failing executed notebook kept in
``<target>-failed/``); one run per build root at a time (a ``flock`` the kernel releases when the
run ends, however it ends); SIGINT/SIGTERM/SIGHUP kill the workers and kernels and leave the target
as it was; a run killed outright takes its workers with it, and the next run cleans what it left;
nothing is written through a symbolic link out of the build; two runs give a byte-identical build.

One module per concern:

* :mod:`~vcperf.regenerate.paths`: where a run may write (targets, scenario names, the notebook
  folder; tests point ``paths.NOTEBOOK_DIR`` at a temporary folder);
* :mod:`~vcperf.regenerate.lock`: one run per build root at a time;
* :mod:`~vcperf.regenerate.processes`: signals, pool workers, killing process trees;
* :mod:`~vcperf.regenerate.forkserver`: kernels forked from a process with the notebooks' imports done;
* :mod:`~vcperf.regenerate.notebook`: one notebook (or the fidelity table) in a worker;
* :mod:`~vcperf.regenerate.schedule`: the order notebooks start in (the costliest first, timed last run);
* :mod:`~vcperf.regenerate.execute`: a run (staging copy, worker pool, swap);
* :mod:`~vcperf.regenerate.command`: the ``vcperf regenerate`` command line.
"""

from vcperf.regenerate import command, execute, forkserver, lock, notebook, paths, processes, schedule
from vcperf.regenerate.command import load_params_file, main, target_of
from vcperf.regenerate.execute import (
    RESERVED_PARAMETERS,
    SKIPPED,
    route_overrides,
    run,
    write_scenario_index,
)
from vcperf.regenerate.lock import BuildLocked
from vcperf.regenerate.notebook import Failure, normalise_notebook
from vcperf.regenerate.paths import check_scenario, check_target, notebooks
from vcperf.regenerate.processes import Interrupted, kill_tree

__all__ = [
    "RESERVED_PARAMETERS", "SKIPPED", "BuildLocked", "Failure", "Interrupted", "check_scenario", "check_target",
    "command", "execute", "forkserver", "kill_tree", "load_params_file", "lock", "main", "normalise_notebook",
    "notebook", "notebooks", "paths", "processes", "schedule", "route_overrides", "run", "target_of",
    "write_scenario_index",
]
