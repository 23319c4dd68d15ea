"""``build/index.html``: one static page with every regenerated figure and table, by study.

No server and no external assets: figures are linked relative to the page (PNG), tables are inlined
as HTML, styles are inline. Deterministic: no timestamps.
"""

from __future__ import annotations

import csv
import html
from pathlib import Path

#: Notebook name prefix -> study folder, for grouping.
STUDY_OF_PREFIX = {"robo": "robo2019", "vcha": "vcha2016", "ft": "ft2016", "contentlib": "contentlib2015",
                   "vmotion": "vmotion2020"}

_CSS = """body{font-family:sans-serif;max-width:1100px;margin:2em auto;color:#222}
table{border-collapse:collapse;font-size:12px;margin:0.5em 0 1.5em}td,th{border:1px solid #ccc;padding:2px 6px}
th{background:#f3f3f3}img{max-width:100%;border:1px solid #eee}h2{border-bottom:2px solid #444}
.bad{color:#b00}"""


def _csv_table(path: Path, max_rows: int = 60) -> str:
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    if not rows:
        return "<p>(empty)</p>"
    head = "".join(f"<th>{html.escape(c)}</th>" for c in rows[0])
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>" for r in rows[1 : max_rows + 1]
    )
    more = f"<p>… {len(rows) - 1 - max_rows} more rows in {path.name}</p>" if len(rows) - 1 > max_rows else ""
    return f"<table><tr>{head}</tr>{body}</table>{more}"


def write_index(build: Path) -> Path:
    """Write ``<build>/index.html`` from what is in ``build`` (notebooks, figures, tables, fidelity)."""
    import pandas as pd

    from vcperf import fidelity

    build = Path(build)
    parts = ["<!doctype html><html><head><meta charset='utf-8'><title>vcperf — regenerated studies</title>",
             f"<style>{_CSS}</style></head><body><h1>vcperf — regenerated figures and tables</h1>"]
    fid_path = build / "fidelity.csv"
    if fid_path.exists():
        fid = pd.read_csv(fid_path)
        parts.append("<h2>Fidelity summary</h2><pre>" + html.escape(fidelity.format_summary(fidelity.summary(fid)))
                     + "</pre><p><a href='fidelity.csv'>fidelity.csv</a> (every paper number a model predicts)</p>")
    names = sorted(p.stem for p in (build / "notebooks").glob("*.ipynb"))
    by_study: dict[str, list[str]] = {}
    for name in names:
        study = STUDY_OF_PREFIX.get(name.split("_")[0], "other")
        by_study.setdefault(study, []).append(name)
    for study, nbs in sorted(by_study.items()):
        parts.append(f"<h2>{html.escape(study)}</h2>")
        for name in nbs:
            parts.append(f"<h3>{html.escape(name)} — <a href='notebooks/{name}.ipynb'>executed notebook</a></h3>")
            for fig in sorted((build / "figures" / name).glob("*.png")):
                rel = fig.relative_to(build).as_posix()
                parts.append(f"<figure><img src='{rel}' alt='{html.escape(fig.stem)}'>"
                             f"<figcaption>{html.escape(fig.stem)} (<a href='{rel[:-4]}.svg'>svg</a>)"
                             "</figcaption></figure>")
            for tab in sorted((build / "tables" / name).glob("*.csv")):
                rel = tab.relative_to(build).as_posix()
                parts.append(f"<h4>{html.escape(tab.stem)} (<a href='{rel}'>csv</a>)</h4>{_csv_table(tab)}")
    parts.append("</body></html>\n")
    out = build / "index.html"
    out.write_text("\n".join(parts), encoding="utf-8")
    return out
