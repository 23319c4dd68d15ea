"""The VCHA overhead notebook's tables and sentences computed from the ledger (no model logic here).

The notebook ``vcha_overhead`` quotes ledger rows in its prose and shows paper-vs-model tables; the
helpers it used to define for that live here, tested and documented, so the notebook only calls them.
"""

from __future__ import annotations

from vcperf import fidelity, prose, vcha
from vcperf.views.vcha.common import paper_si

__all__ = ["COLUMNS", "STUDY", "paper_vs_model", "difference_text", "model_laws", "disk_io", "average_write_kb",
           "table12_throughput_per_s", "table12_spread"]

#: The study these tables read.
STUDY = "vcha2016"
#: The columns of a paper-vs-model table the notebook shows (after ``locator`` and ``quantity``).
COLUMNS = ["conditions", "kind", "unit", "paper", "model", "error_percent", "note"]


def paper_vs_model(*tables: str):
    """The paper-vs-model rows of the VCHA tables named (``"table14"``, ``"table09_io_64clients"``), in order.

    Parameters
    ----------
    *tables : str
        Names of VCHA data tables (or prefixes :func:`vcperf.fidelity.paper_vs_model` accepts), without
        the ``vcha2016/`` prefix.

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> t = paper_vs_model("table14", "table15")
    >>> sorted(set(t["locator"]))
    ['Table 14', 'Table 15']
    """
    import pandas as pd

    if not tables:
        raise ValueError("tables must name at least one VCHA table; got none")
    return pd.concat([fidelity.paper_vs_model(STUDY, f"{STUDY}/{name}") for name in tables])


def difference_text(ledger, key: str, decimals: int = 0) -> str:
    """``"model against the printed paper (missing the difference by e %)"`` for a Difference row.

    Parameters
    ----------
    ledger : pandas.DataFrame
        The ledger (:func:`vcperf.fidelity.table`) indexed by ``key``.
    key : str
        The row of a difference (a fraction: a change in percent).
    decimals : int, optional
        Decimals of the miss (percent).

    Examples
    --------
    >>> ledger = fidelity.table([STUDY]).query("kind != 'loo'").set_index("key")
    >>> difference_text(ledger, "t05_change_256").startswith(("-", "+"))
    True
    """
    r = ledger.loc[key]
    model, paper = prose.pct(r.model_value, 1, signed=True), prose.pct(r.paper_value, 1, signed=True)
    return (f"{model} against the printed {paper} "
            f"(missing the difference by {prose.pct(abs(r.rel_error), decimals)})")


def model_laws(params, appliance: dict, clients=(64, 256)):
    """The operational laws of the VCbench solution (Little's law ``X (R + Z) = N``, CPU, pool, sync wait).

    Parameters
    ----------
    params : vcperf.vcha.Params
        The study's parameters.
    appliance : dict
        The appliance keyword arguments of :func:`vcperf.vcha.run_vcbench` (``vcha.testbed().appliance()``).
    clients : tuple of int, optional
        Client counts, each run with VCHA off and on.

    Returns
    -------
    pandas.DataFrame
        One row per (clients, VCHA): throughput (1/s), response time (s), ``X*(R+Z)``, vpxd cores,
        per-core utilisation, DB pool utilisation, sync wait (ms).

    Examples
    --------
    >>> laws = model_laws(vcha.calibrate(), vcha.testbed().appliance(), clients=(64,))
    >>> bool(abs(laws["X*(R+Z)"] - laws["clients"]).max() < 1e-6 * 64)
    True
    """
    import pandas as pd

    rows = []
    for n in clients:
        for on in (False, True):
            s = vcha.run_vcbench(n, on, params=params, **appliance)
            rows.append({"clients": n, "vcha": on, "X_ops_per_s": float(s.throughput_per_s),
                         "R_s": float(s.response_time_s),
                         "X*(R+Z)": float(s.throughput_per_s * (s.response_time_s + s.think_time_s)),
                         "vpxd_cores": float(s.cpu_cores), "per_core_utilization": float(s.cpu_utilization_per_core),
                         "db_pool_utilization": float(s.db_pool_utilization),
                         "sync_wait_ms": float(s.sync_wait_s) * 1e3})
    return pd.DataFrame(rows)


def disk_io(ledger, disk: str, clients: int, node: str, field: str = "paper_value") -> tuple:
    """(writes/s, bytes/s) of a Tables 9-10 row of the ledger.

    Parameters
    ----------
    ledger : pandas.DataFrame
        The ledger indexed by ``key``.
    disk : str
        ``"sdf"``, ``"sdg"`` or ``"sdh"``.
    clients : int
        64 (Table 9) or 256 (Table 10).
    node : str
        ``"disabled"``, ``"enabled"`` or ``"enabled_passive"``.
    field : str, optional
        ``"paper_value"`` or ``"model_value"``.

    Examples
    --------
    >>> ledger = fidelity.table([STUDY]).query("kind != 'loo'").set_index("key")
    >>> tps, bw = disk_io(ledger, "sdf", 64, "enabled")
    >>> bool(tps > 0 and bw > tps)
    True
    """
    tab = "t09" if clients == 64 else "t10"
    row = f"{clients}_{node}"
    return ledger.loc[f"{tab}_{disk}_tps_{row}"][field], ledger.loc[f"{tab}_{disk}_bw_{row}"][field]


def average_write_kb(ledger, disk: str, clients: int, node: str) -> str:
    """The paper's average write (kB, bytes/s over writes/s) of a Tables 9-10 row, as the prose writes it.

    Examples
    --------
    >>> ledger = fidelity.table([STUDY]).query("kind != 'loo'").set_index("key")
    >>> average_write_kb(ledger, "sdf", 64, "enabled").isdigit()
    True
    """
    tps, bw = disk_io(ledger, disk, clients, node)
    return f"{bw / tps / 1e3:.0f}"


def table12_throughput_per_s(level: int, vcha_state: str) -> float:
    """The paper's throughput (1/s) at 256 clients, statistics ``level``, VCHA ``"disabled"``/``"enabled"`` (Table 12).

    Examples
    --------
    >>> bool(table12_throughput_per_s(1, "disabled") > table12_throughput_per_s(1, "enabled"))
    True
    """
    return paper_si("table12_stats_level", "throughput", clients=256, stats_level=level, vcha=vcha_state)


def table12_spread():
    """The paper's own spread between statistics levels at 256 clients (Table 12), in percent.

    Returns
    -------
    pandas.DataFrame
        Columns ``"paper's own spread"`` and ``percent``.

    Examples
    --------
    >>> list(table12_spread().columns)
    ["paper's own spread", 'percent']
    """
    import pandas as pd

    t12 = table12_throughput_per_s
    return pd.DataFrame(
        [("VCHA off, level 2 vs 1 (should fall)", 100 * (t12(2, "disabled") / t12(1, "disabled") - 1)),
         ("VCHA off, level 4 vs 3 (should fall)", 100 * (t12(4, "disabled") / t12(3, "disabled") - 1)),
         ("VCHA on, level 4 vs 3", 100 * (t12(4, "enabled") / t12(3, "enabled") - 1))],
        columns=["paper's own spread", "percent"])
