"""The fidelity table: every paper number a model predicts, beside the model's value.

Rows are computed by calling the models (each study module has a ``fidelity_rows()``), never copied.
``fitted`` says whether the paper number was used to calibrate the model, so held-out error can be
read apart from fitted error.
"""

from __future__ import annotations

import importlib
import importlib.util
import math
from dataclasses import asdict, dataclass

#: Study -> module providing ``fidelity_rows()``. A study whose module does not exist yet has no
#: model and hence no rows (asking for it by name is an error).
PROVIDERS = {
    "vcha2016": "vcperf.vcha",
    "robo2019": "vcperf.robo",
    "ft2016": "vcperf.ft",
    "contentlib2015": "vcperf.contentlib",
    "vmotion2020": "vcperf.vmotion",
}


def modelled_studies() -> list[str]:
    """Studies that have a model module."""
    return [s for s, mod in PROVIDERS.items() if importlib.util.find_spec(mod) is not None]

COLUMNS = (
    "study", "source", "locator", "quantity", "conditions", "unit",
    "paper_value", "model_value", "rel_error", "fitted", "relation", "statement_error",
)


@dataclass(frozen=True)
class FidelityRow:
    """One paper number and the model's prediction of it (both in ``unit``, SI)."""

    study: str
    source: str  # data table name, e.g. "robo2019/figure06_stats_data_size"
    locator: str  # table/figure/section of the seed
    quantity: str
    conditions: str
    unit: str
    paper_value: float
    model_value: float
    fitted: bool
    relation: str = "="  # how the paper states it: "=", "~" (about), "<", ">"

    @property
    def rel_error(self) -> float:
        """(model - paper) / |paper|; NaN when the paper value is 0."""
        if self.paper_value == 0:
            return math.nan
        return (self.model_value - self.paper_value) / abs(self.paper_value)

    @property
    def statement_error(self) -> float:
        """Error against what the paper states: ``rel_error`` for ``=``/``~``; for a bound
        (``<``, ``<=``, ``>``, ``>=``) 0 when the model satisfies it, else ``rel_error``."""
        ok = {
            "<": self.model_value < self.paper_value,
            "<=": self.model_value <= self.paper_value,
            ">": self.model_value > self.paper_value,
            ">=": self.model_value >= self.paper_value,
        }.get(self.relation)
        return 0.0 if ok else self.rel_error


def rows(studies=None) -> list[FidelityRow]:
    """Compute fidelity rows for the given studies (default: all with a model)."""
    out = []
    for study in studies or modelled_studies():
        if study not in modelled_studies():
            raise ValueError(f"study must be one of {modelled_studies()}; got {study!r}")
        out.extend(importlib.import_module(PROVIDERS[study]).fidelity_rows())
    return out


def table(studies=None):
    """The fidelity table as a pandas DataFrame with :data:`COLUMNS`."""
    import pandas as pd

    records = [{**asdict(r), "rel_error": r.rel_error, "statement_error": r.statement_error} for r in rows(studies)]
    return pd.DataFrame(records, columns=list(COLUMNS))


def summary(df):
    """Per study: count, median and max |statement_error|, all / fitted / held-out.

    ``statement_error`` equals ``rel_error`` except for bounds the model satisfies (0).
    """
    import pandas as pd

    out = []
    for study, g in df.groupby("study", sort=True):
        err = g["statement_error"].abs()
        rec = {"study": study, "n": len(g), "median_abs_rel_error": err.median(), "max_abs_rel_error": err.max()}
        for label, mask in (("fitted", g["fitted"]), ("held_out", ~g["fitted"])):
            rec[f"n_{label}"] = int(mask.sum())
            rec[f"median_abs_rel_error_{label}"] = err[mask].median() if mask.any() else math.nan
        out.append(rec)
    return pd.DataFrame(out)


def format_summary(summ) -> str:
    """Human-readable summary lines, one per study."""
    lines = []
    for _, r in summ.iterrows():
        lines.append(
            f"{r['study']}: {r['n']} rows, median |err| {r['median_abs_rel_error']:.1%}, "
            f"max |err| {r['max_abs_rel_error']:.1%} (fitted {r['n_fitted']}, held-out {r['n_held_out']}, "
            f"held-out median {r['median_abs_rel_error_held_out']:.1%})"
        )
    return "\n".join(lines)
