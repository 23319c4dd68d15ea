"""The report of a regeneration: ``build/report/`` rendered by nbconvert, plus ``build/index.html``.

Each executed notebook ``build/notebooks/<nb>.ipynb`` is rendered by nbconvert's HTML exporter (the
JupyterLab template, the one Jupyter itself uses for "Save and Export Notebook As HTML") into
``build/report/<nb>.html`` with the code cells hidden: the notebook's prose, figures and tables stay,
so the explanations of each miss are in the report. Before rendering, a small preprocessing step

* numbers each figure and gives it a caption (the figure's section heading),
* rounds every float in an HTML table to 4 significant digits (integers are left alone),

and after it every page gets the same ``<nav>`` (the studies by title) and a style sheet that keeps
the page and its tables within 1280 px (wide tables wrap their cells and scroll inside the page).

``build/report/index.html`` (and ``build/index.html``, the same page with paths from ``build/``) holds
the navigation, the ledger summary with errors in percent, the held-out misses highlighted, and links
to every rendered notebook, executed notebook, figure and table.

Offline and deterministic: no script or style sheet from outside hosts (MathJax is not loaded;
the notebooks need no mathematics), no time stamps; two runs give byte-identical files.
"""

from __future__ import annotations

import html
import logging
import math
import re
import shutil
from pathlib import Path

from vcperf import fidelity, studies

#: Study -> its reference, as in CITATION.cff (the studies themselves come from :mod:`vcperf.studies`).
REFERENCES = {
    "vcha2016": "VMware, Inc., “VMware vCenter Server High Availability Performance and Best Practices "
                "(vCenter Server 6.5)”, 2016.",
    "robo2019": "VMware, Inc., “Performance of VMware vCenter Server 6.7 in Remote Offices and Branch "
                "Offices”, Performance Study, 2019.",
    "ft2016": "VMware, Inc., “VMware vSphere 6 Fault Tolerance: Architecture and Performance”, technical "
              "white paper, 2016.",
    "contentlib2015": "J. Guan and D. Bergamasco, “How to Efficiently Deploy Virtual Machines from VMware "
                      "vSphere Content Library”, VMware VROOM! Blog, 2015.",
    "vmotion2020": "VMware, Inc., “vMotion Innovations in VMware vSphere 7.0 U1”, Performance Study, 2020.",
}

#: Study -> (title, reference), in the registry's order (:data:`vcperf.studies.STUDIES`).
STUDIES = {s.name: (s.title, REFERENCES.get(s.name, "")) for s in studies.STUDIES.values()}

#: Notebook name prefix -> study: a study's notebooks are named after its subpackage
#: (``robo_networks`` belongs to ``vcperf.robo``, hence to ``robo2019``).
STUDY_OF_PREFIX = {s.package.rpartition(".")[2]: s.name for s in studies.STUDIES.values()}

#: Notebooks that belong to no single study, shown first (name -> report page).
OVERVIEW = {"index": "landing.html", "app": "app.html"}

#: A held-out (loo or predicted) row further than this from the paper value is highlighted as a miss.
MISS_REL_ERROR = 0.25

#: Significant digits of a float shown in a report table.
SIGNIFICANT_DIGITS = 4

MAX_WIDTH_PX = 1280

_CSS = f"""
:root {{ --vc-nav-w: 240px; }}
body.vc-report {{ margin: 0; max-width: {MAX_WIDTH_PX}px; box-sizing: border-box; overflow-x: hidden; }}
.vc-report nav.vc-nav {{ position: fixed; top: 0; left: 0; bottom: 0; width: var(--vc-nav-w); overflow-y: auto;
  box-sizing: border-box; padding: 12px 10px; background: #f6f7f9; border-right: 1px solid #ddd;
  font: 13px/1.35 system-ui, sans-serif; }}
.vc-report nav.vc-nav h2 {{ font-size: 12px; text-transform: uppercase; letter-spacing: .04em; color: #666;
  margin: 14px 0 4px; }}
.vc-report nav.vc-nav ul {{ list-style: none; margin: 0; padding: 0; }}
.vc-report nav.vc-nav li {{ margin: 3px 0; }}
.vc-report nav.vc-nav a {{ color: #1a4f8b; text-decoration: none; }}
.vc-report nav.vc-nav a[aria-current] {{ font-weight: 600; color: #000; }}
.vc-report main.vc-main {{ margin-left: var(--vc-nav-w); padding: 8px 24px 40px;
  max-width: calc({MAX_WIDTH_PX}px - var(--vc-nav-w)); box-sizing: border-box; }}
.vc-report main.vc-main .jp-Notebook {{ padding: 0; }}
.vc-report table {{ display: block; max-width: 100%; overflow-x: auto; border-collapse: collapse; }}
.vc-report td, .vc-report th {{ white-space: normal; overflow-wrap: break-word; max-width: 28em; }}
.vc-report img {{ max-width: 100%; height: auto; }}
.vc-report pre {{ white-space: pre-wrap; overflow-wrap: break-word; }}
.vc-report .vc-caption {{ font-size: 13px; color: #444; margin: 2px 0 18px; }}
.vc-report .vc-miss td {{ background: #fde8e8; }}
.vc-report td.vc-miss-cell {{ color: #a00; font-weight: 600; }}
.vc-report .vc-ok {{ color: #161; }}
.vc-report .vc-index {{ font: 14px/1.45 system-ui, sans-serif; }}
.vc-report .vc-index table {{ font-size: 13px; margin: 6px 0 16px; }}
.vc-report .vc-index td, .vc-report .vc-index th {{ border: 1px solid #ccc; padding: 2px 6px; text-align: left; }}
.vc-report .vc-index th {{ background: #f0f0f0; }}
.vc-report .vc-index td.num {{ text-align: right; }}
.vc-report .vc-ref {{ color: #555; font-size: 13px; }}
.vc-report .vc-files {{ font-size: 13px; color: #333; }}
"""

_FLOAT_RE = r"[-+−]?(?:\d+\.\d*|\.\d+|\d+(?=[eE]))(?:[eE][-+]?\d+)?"
_TD_FLOAT = re.compile(r"(<td\b[^>]*>)\s*(" + _FLOAT_RE + r")\s*(</td>)")


def format_number(x: float, digits: int = SIGNIFICANT_DIGITS) -> str:
    """``x`` with at most ``digits`` significant digits, for people: no exponent between 1e-3 and 1e7,
    thousands separators above 9999 (``33,180``), an exponent outside (``1.247e-16``)."""
    if not math.isfinite(x):
        return "—" if math.isnan(x) else ("∞" if x > 0 else "−∞")
    if x == 0:
        return "0"
    mag = math.floor(math.log10(abs(x)))
    if mag < -3 or mag >= 7:
        return f"{x:.{digits - 1}e}".replace("e-0", "e-").replace("e+0", "e+")
    decimals = digits - 1 - mag
    rounded = round(x, decimals)
    if decimals <= 0:  # an integer once rounded: 1234, or 33,180
        return f"{round(rounded):,}" if abs(rounded) >= 10**4 else f"{round(rounded)}"
    return f"{rounded:.{decimals}f}".rstrip("0").rstrip(".")


def _round_table_floats(text: str) -> str:
    """Every ``<td>`` holding only a float, shown with :data:`SIGNIFICANT_DIGITS` significant digits."""
    return _TD_FLOAT.sub(lambda m: m.group(1) + format_number(float(m.group(2).replace("−", "-"))) + m.group(3),
                         text)


def notebook_title(nb) -> str | None:
    """The text of the notebook's first ``# `` heading (its title), or None."""
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if line.startswith("# "):
                    return line[2:].strip()
    return None


def _plain(markdown: str) -> str:
    """Markdown inline text as plain text (for captions and nav labels)."""
    return re.sub(r"[`*_]", "", re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", markdown)).strip()


def _prepare(nb) -> list[str]:
    """In place: figure captions after every code cell with images; floats in HTML tables rounded.

    Returns the alternative text of each PNG the page will show as an ``<img>``, in order."""
    import nbformat

    alts = []
    cells = []
    heading = ""
    n = 0
    for cell in nb.cells:
        cells.append(cell)
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                m = re.match(r"#{1,4} (.+)", line)
                if m:
                    heading = _plain(m.group(1))
            continue
        if cell.cell_type != "code":
            continue
        images = 0
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            if "image/png" in data or "image/svg+xml" in data:
                images += 1
                if "image/png" in data and not ({"image/svg+xml", "text/html"} & set(data)):
                    alts.append(f"Figure {n + images}: {heading or 'figure'}")
            if "text/html" in data:
                src = data["text/html"]
                src = "".join(src) if isinstance(src, list) else src
                data["text/html"] = _round_table_floats(src)
        if images:
            first = n + 1
            n += images
            label = f"Figure {first}" if images == 1 else f"Figures {first}–{n}"
            text = html.escape(heading or "figure")
            cells.append(nbformat.v4.new_markdown_cell(f'<p class="vc-caption"><b>{label}.</b> {text}</p>'))
    nb.cells = cells
    for i, cell in enumerate(nb.cells):  # stable ids (the inserted captions have random ones)
        cell["id"] = f"cell-{i:02d}"
    return alts


_NO_ALT = 'alt="No description has been provided for this image"'


def _alt_texts(text: str, alts: list[str]) -> str:
    """nbconvert's placeholder alternative text of each image replaced by its caption, in order."""
    it = iter(alts)
    return re.sub(re.escape(_NO_ALT), lambda m: f'alt="{html.escape(next(it, "figure"))}"', text)


def _exporter():
    from nbconvert import HTMLExporter
    from traitlets.config import Config

    c = Config()
    c.HTMLExporter.template_name = "lab"
    c.HTMLExporter.exclude_input = True
    c.HTMLExporter.exclude_input_prompt = True
    c.HTMLExporter.exclude_output_prompt = True
    c.HTMLExporter.embed_images = True
    # Offline: nothing loaded from outside hosts (the template would pull MathJax and require.js from a CDN).
    c.HTMLExporter.mathjax_url = ""
    c.HTMLExporter.require_js_url = ""
    c.HTMLExporter.widget_renderer_url = ""
    exporter = HTMLExporter(config=c)
    # "Alternative text is missing on N image(s)": the captions are put in as alternative text afterwards.
    if not any(isinstance(f, _NoAltWarning) for f in exporter.log.filters):
        exporter.log.addFilter(_NoAltWarning())
    return exporter


class _NoAltWarning(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith("Alternative text is missing")


_SCRIPT = re.compile(r"<script\b[^>]*>.*?</script>\s*", re.S | re.I)
_EXTERNAL_LINK = re.compile(r"<link\b[^>]*href=[\"']https?://[^>]*>\s*", re.I)
_MATHJAX_BLOCK = re.compile(r"<!-- Load mathjax -->.*?<!-- End of mathjax configuration -->\s*", re.S)


def _offline_script(m: re.Match) -> str:
    """Drop a script that loads anything from outside (mermaid's loader, the emptied require.js tag)."""
    tag = m.group(0)
    return "" if ("https://" in tag or "http://" in tag or 'src=""' in tag) else tag


def _page(body_html: str, nav: str, title: str) -> str:
    """nbconvert's page with the report's style sheet, the nav and a main wrapper; no outside assets."""
    text = _MATHJAX_BLOCK.sub("", body_html)
    text = _SCRIPT.sub(_offline_script, text)
    text = _EXTERNAL_LINK.sub("", text)
    text = re.sub(r"<title>.*?</title>", f"<title>{html.escape(title)} — vcperf report</title>", text, count=1,
                  flags=re.S)
    text = text.replace("</head>", f"<style>{_CSS}</style>\n</head>", 1)
    text, n = re.subn(r"<body([^>]*)>", lambda m: f"<body{_add_class(m.group(1))}>\n{nav}\n<main class=\"vc-main\">",
                      text, count=1)
    assert n == 1, "nbconvert page without <body>"
    return text.replace("</body>", "</main>\n</body>", 1)


def _add_class(attrs: str) -> str:
    if 'class="' in attrs:
        return attrs.replace('class="', 'class="vc-report ', 1)
    return attrs + ' class="vc-report"'


def _groups(names: list[str]) -> list[tuple[str, str, list[str]]]:
    """(key, heading, notebooks) in report order: the overview, then the studies as in :data:`STUDIES`."""
    out = [("overview", "Overview", [n for n in OVERVIEW if n in names])]
    for study, (title, _) in STUDIES.items():
        nbs = [n for n in names if STUDY_OF_PREFIX.get(n.split("_")[0]) == study]
        if nbs:
            out.append((study, title, nbs))
    other = [n for n in names if n not in OVERVIEW and STUDY_OF_PREFIX.get(n.split("_")[0]) not in STUDIES]
    if other:
        out.append(("other", "Other notebooks", other))
    return [g for g in out if g[2]]


def page_of(name: str) -> str:
    """The report page (in ``build/report/``) of notebook ``name``."""
    return OVERVIEW.get(name, f"{name}.html")


def _nav(groups, titles: dict[str, str], current: str | None, prefix: str = "") -> str:
    parts = ['<nav class="vc-nav" aria-label="Studies">',
             f'<a href="{prefix}index.html"{" aria-current=page" if current == "index.html" else ""}>'
             "<b>vcperf report</b></a>"]
    for _, heading, nbs in groups:
        parts.append(f"<h2>{html.escape(heading)}</h2><ul>")
        for n in nbs:
            page = page_of(n)
            cur = " aria-current=page" if page == current else ""
            parts.append(f'<li><a href="{prefix}{page}"{cur}>{html.escape(titles[n])}</a></li>')
        parts.append("</ul>")
    parts.append("</nav>")
    return "\n".join(parts)


def _pct(x) -> str:
    return "—" if x is None or not math.isfinite(float(x)) else f"{100 * float(x):.1f} %"


def _cell(text: str, cls: str = "") -> str:
    return f'<td class="{cls}">{text}</td>' if cls else f"<td>{text}</td>"


def _summary_table(summ) -> str:
    head = ("<tr><th>study</th><th>loo: n</th><th>loo median</th><th>loo max</th><th>predicted: n</th>"
            "<th>predicted median</th><th>predicted max</th><th>90 % interval coverage (n)</th>"
            "<th>bounds passed</th><th>fitted: n, median</th><th>derived</th>"
            "<th>parameters / fit points, rank</th></tr>")
    rows = []
    for _, r in summ.iterrows():
        title = STUDIES.get(r["study"], (r["study"], ""))[0]
        ne = f" ({r['loo_not_estimable']} not estimable)" if r["loo_not_estimable"] else ""

        def err(x):
            miss = math.isfinite(float(x)) and float(x) > MISS_REL_ERROR
            return _cell(_pct(x), "num vc-miss-cell" if miss else "num")

        bounds_cls = "num" if r["bounds_passed"] == r["n_bound"] else "num vc-miss-cell"
        rows.append(
            "<tr>" + _cell(f'<a href="#{r["study"]}">{html.escape(title)}</a>')
            + _cell(f"{r['n_loo']}{ne}", "num") + err(r["loo_median"]) + err(r["loo_max"])
            + _cell(str(r["n_predicted"]), "num") + err(r["predicted_median"]) + err(r["predicted_max"])
            + _cell(f"{_pct(r['coverage'])} ({r['n_interval']})", "num")
            + _cell(f"{r['bounds_passed']} of {r['n_bound']}", bounds_cls)
            + _cell(f"{r['n_fitted']}, {_pct(r['fitted_median'])}", "num") + _cell(str(r["n_derived"]), "num")
            + _cell(f"{r['n_params']} / {r['n_fit_points']}, rank {r['jacobian_rank']}", "num") + "</tr>"
        )
    return f"<table>{head}{''.join(rows)}</table>"


def _misses_table(g) -> str:
    """The study's held-out rows and bounds that miss: |error| > MISS_REL_ERROR, not estimable, failed bound."""
    held = g[g["kind"].isin(["loo", "predicted"])]
    misses = held[held["rel_error"].abs() > MISS_REL_ERROR]
    misses = misses.iloc[misses["rel_error"].abs().to_numpy().argsort(kind="stable")[::-1]]
    failed = g[(g["kind"] == "bound") & ~g["passed"].astype(bool)]
    if misses.empty and failed.empty:
        return (f'<p class="vc-ok">Every estimable held-out number is within {MISS_REL_ERROR:.0%} of the paper '
                "and every stated bound holds.</p>")
    head = ("<tr><th>kind</th><th>source</th><th>quantity</th><th>conditions</th><th>paper</th><th>model</th>"
            "<th>error</th></tr>")
    rows = []
    for _, r in list(misses.iterrows()) + list(failed.iterrows()):
        error = "bound failed" if r["kind"] == "bound" else _pct(r["rel_error"])
        rows.append('<tr class="vc-miss">' + _cell(html.escape(r["kind"])) + _cell(html.escape(_text(r["locator"])))
                    + _cell(html.escape(_text(r["quantity"]))) + _cell(html.escape(_text(r["conditions"])))
                    + _cell(format_number(float(r["paper_value"])), "num")
                    + _cell(format_number(float(r["model_value"])), "num") + _cell(error, "num vc-miss-cell") + "</tr>")
    return (f"<p>Held-out numbers more than {MISS_REL_ERROR:.0%} from the paper, and failed bounds "
            f"(highlighted; each is discussed in the study's notebook):</p><table>{head}{''.join(rows)}</table>")


def _text(x) -> str:
    return "" if x is None or (isinstance(x, float) and math.isnan(x)) else str(x)


def _humanise(stem: str) -> str:
    text = re.sub(r"^(figure|table|fig)(\d+)_", lambda m: f"{m.group(1).capitalize()} {int(m.group(2))}: ", stem)
    text = text.replace("_", " ")
    return text[:1].upper() + text[1:]


def _index(build: Path, groups, titles, prefix: str) -> str:
    """The index page; ``prefix`` is the path from the page's folder to ``build/`` ('' or '../')."""
    import pandas as pd

    here = "" if prefix else "report/"  # path from the page to build/report/
    nav = _nav(groups, titles, "index.html", here)
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             '<meta name="viewport" content="width=device-width, initial-scale=1">',
             "<title>vcperf report — regenerated studies</title>", f"<style>{_CSS}</style></head>",
             '<body class="vc-report">', nav, '<main class="vc-main vc-index">',
             "<h1>vcperf — regenerated studies</h1>",
             "<p>Five published VMware performance studies rebuilt from mechanistic models and calibrated to the "
             "papers' own numbers. Each study below links its notebooks rendered as pages (prose, figures, tables; "
             "code hidden), the executed notebooks, and every figure and table file. The ledger judges every model "
             "number: <b>loo</b> rows are fitted numbers predicted again by a refit without them, <b>predicted</b> "
             "rows were never fitted; both are the evidence of skill. Errors are relative to the paper value; "
             f"held-out errors above {MISS_REL_ERROR:.0%} are highlighted as misses.</p>"]
    fid_path = build / "fidelity.csv"
    ledger = None
    if fid_path.exists():
        ledger = pd.read_csv(fid_path)
        summ = fidelity.summary(ledger)
        parts += ["<h2>Ledger summary</h2>", _summary_table(summ),
                  f'<p><a href="{prefix}fidelity.csv">fidelity.csv</a>: every paper number a model speaks to, with '
                  "the model's value and its kind (the same as <code>vcperf fidelity</code>).</p>"]
    for key, heading, nbs in groups:
        ref = STUDIES.get(key, (None, ""))[1]
        parts.append(f'<h2 id="{key}">{html.escape(heading)}</h2>')
        if ref:
            parts.append(f'<p class="vc-ref">{html.escape(ref)}</p>')
        if ledger is not None and key in STUDIES:
            parts.append(_misses_table(ledger[ledger["study"] == key]))
        for n in nbs:
            parts.append(f'<h3><a href="{here}{page_of(n)}">{html.escape(titles[n])}</a></h3>')
            parts.append(f'<p class="vc-files"><a href="{prefix}notebooks/{n}.ipynb">executed notebook</a></p>')
            figs = sorted((build / "figures" / n).glob("*.png"))
            if figs:
                items = "".join(
                    f'<li><a href="{prefix}{f.relative_to(build).as_posix()}">{html.escape(_humanise(f.stem))}</a>'
                    f' (<a href="{prefix}{f.relative_to(build).as_posix()[:-4]}.svg">svg</a>)</li>'
                    if f.with_suffix(".svg").exists() else
                    f'<li><a href="{prefix}{f.relative_to(build).as_posix()}">{html.escape(_humanise(f.stem))}</a></li>'
                    for f in figs)
                parts.append(f'<details class="vc-files"><summary>Figures ({len(figs)})</summary><ul>{items}</ul>'
                             "</details>")
            tabs = sorted((build / "tables" / n).glob("*.csv"))
            if tabs:
                items = "".join(f'<li><a href="{prefix}{t.relative_to(build).as_posix()}">'
                                f"{html.escape(_humanise(t.stem))}</a> (csv)</li>" for t in tabs)
                parts.append(f'<details class="vc-files"><summary>Tables ({len(tabs)})</summary><ul>{items}</ul>'
                             "</details>")
    parts += ["</main>", "</body></html>", ""]
    return "\n".join(parts)


def write_index(build: Path) -> Path:
    """Render ``<build>/report/`` (one page per executed notebook and an index) and ``<build>/index.html``."""
    import nbformat

    build = Path(build)
    report = build / "report"
    shutil.rmtree(report, ignore_errors=True)
    report.mkdir(parents=True)
    paths = {p.stem: p for p in sorted((build / "notebooks").glob("*.ipynb"))}
    nbs = {name: nbformat.read(p, as_version=4) for name, p in paths.items()}
    titles = {name: _plain(notebook_title(nb) or name) for name, nb in nbs.items()}
    groups = _groups(list(nbs))
    exporter = _exporter()
    for name, nb in nbs.items():
        alts = _prepare(nb)
        nb.metadata.pop("widgets", None)  # no widget state: the panels are for JupyterLab and Voila
        body, _ = exporter.from_notebook_node(nb, resources={"metadata": {"name": titles[name]}})
        body = _alt_texts(body, alts)
        page = page_of(name)
        (report / page).write_text(_page(body, _nav(groups, titles, page), titles[name]), encoding="utf-8")
    (report / "index.html").write_text(_index(build, groups, titles, "../"), encoding="utf-8")
    out = build / "index.html"
    out.write_text(_index(build, groups, titles, ""), encoding="utf-8")
    return out
