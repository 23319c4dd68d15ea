"""The report's pages: each executed notebook rendered by nbconvert (captions, what-if notes,
references, a nav), the index with the ledger summary and misses, and the scenario index."""

from __future__ import annotations

import html
import logging
import re
import shutil
from pathlib import Path

from vcperf import fidelity, studies
from vcperf.report import reference
from vcperf.report.tables import (
    MISS_REL_ERROR,
    format_frames,
    keep_units,
    misses_table,
    nowrap_numbers,
    round_table_floats,
    summary_table,
)

#: Study -> (title, full citation), in the registry's order (:data:`vcperf.studies.STUDIES`, the one place
#: the citations are kept; README, CITATION.cff and the landing notebook carry the same).
STUDIES = {s.name: (s.title, s.citation()) for s in studies.STUDIES.values()}

#: Notebook name prefix -> study: a study's notebooks are named after its subpackage
#: (``robo_networks`` belongs to ``vcperf.robo``, hence to ``robo2019``).
STUDY_OF_PREFIX = {s.package.rpartition(".")[2]: s.name for s in studies.STUDIES.values()}

#: Notebooks that belong to no single study, shown first (name -> report page).
OVERVIEW = {"index": "landing.html", "app": "app.html"}

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
.vc-report td, .vc-report th {{ white-space: normal; overflow-wrap: normal; max-width: 28em; }}
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
.vc-report .vc-references, .vc-report .vc-whatif {{ font: 14px/1.45 system-ui, sans-serif; }}
.vc-report table.vc-frame {{ display: block; width: max-content; max-width: 100%; overflow-x: auto; font-size: 13px; }}
.vc-report table.vc-frame.vc-wide {{ font-size: 12px; }}
.vc-report table.vc-frame.vc-wide td, .vc-report table.vc-frame.vc-wide th {{ padding: 2px 4px; }}
.vc-report .vc-frame td, .vc-report .vc-frame th {{ overflow-wrap: normal; word-break: normal; max-width: 22em;
  padding: 3px 6px; vertical-align: top; text-align: left; }}
.vc-report .vc-frame th {{ hyphens: none; }}
.vc-report .vc-frame .vc-num, .vc-report .vc-frame td.vc-err {{ white-space: nowrap; text-align: right;
  font-variant-numeric: tabular-nums; }}
.vc-report .vc-frame td.vc-note {{ white-space: normal; }}
.vc-report .vc-notebox {{ min-width: 10em; max-width: 36em; }}
.vc-report td.vc-num, .vc-report .vc-index td.num {{ white-space: nowrap; }}
.vc-report .vc-glossary dt {{ font-weight: 600; margin-top: 8px; }}
.vc-report .vc-files {{ font-size: 13px; color: #333; }}
"""

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


def caption(heading: str) -> str:
    """The caption of a figure under ``heading``, in the paper's numbering: the heading's own
    "Figure 8 — CreateVM ..." becomes "<b>Figure 8.</b> CreateVM ..."; a figure the paper does not
    have keeps its heading, unnumbered (the report adds no numbering of its own)."""
    m = _PAPER_NUMBER.match(heading)
    if m:
        label, text = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
        return f"<b>{html.escape(label)}.</b> {html.escape(text)}"
    return html.escape(heading or "Figure")


_PAPER_NUMBER = re.compile(r"((?:Figures?|Tables?)\s+\d[^—–:]*?)\s+[—–]\s+(.+)"
                           r"|((?:Figures?|Tables?)\s+\d[^:]*?):\s+(.+)")
_ASSIGN = re.compile(r"^(\w+)\s*=\s*(.+?)\s*#\s*([^:]*?)(?:,\s*(?:range|one of)\s*\[[^\]]*\])?\s*:\s*(.*)$")
#: Parameters every notebook has (regeneration sets them): not what-if parameters.
_PLUMBING = ("interactive", "output_dir")


def whatif_parameters(nb) -> list[tuple[str, str, str, str]]:
    """(name, value in this build, unit, meaning) of every scenario parameter the notebook declares
    (its ``parameters`` cell, with the values papermill injected)."""
    declared, injected = {}, {}
    for cell in nb.cells:
        tags = cell.get("metadata", {}).get("tags", [])
        if cell.cell_type != "code" or not ({"parameters", "injected-parameters"} & set(tags)):
            continue
        for line in cell.source.splitlines():
            m = _ASSIGN.match(line)
            if m and "parameters" in tags:
                declared[m.group(1)] = (m.group(2), m.group(3).strip(), m.group(4).strip())
            elif "injected-parameters" in tags and "=" in line and not line.startswith("#"):
                name, _, value = line.partition("=")
                injected[name.strip()] = value.strip()
    return [(n, injected.get(n, v), u, meaning) for n, (v, u, meaning) in declared.items() if n not in _PLUMBING]


def _whatif_note(name: str, nb, scenarios: list[str]) -> str:
    """Under a "What if?" heading: the panel is interactive; how to run the same what-if as a scenario."""
    params = whatif_parameters(nb)
    if not params:
        return ""
    first = params[0][0]
    rows = "".join(f"<tr><td><code>{html.escape(n)}</code></td><td>{html.escape(v)}</td><td>{html.escape(u)}</td>"
                   f"<td>{html.escape(m)}</td></tr>" for n, v, u, m in params)
    seen = ""
    if scenarios:
        links = ", ".join(f'<a href="../scenarios/index.html#{html.escape(s)}">{html.escape(s)}</a>'
                          for s in scenarios)
        seen = f" Scenarios of this notebook in this build: {links}."
    return (f'<div class="vc-whatif"><p>The panel of this section is interactive: it runs in JupyterLab or in the '
            "what-if app. The same questions as a <b>scenario</b>, rendered as figures and tables: "
            f"<code>vcperf regenerate --only {html.escape(name)} -p {html.escape(first)}=VALUE --scenario NAME</code> "
            "writes <code>build/scenarios/NAME/</code> (every parameter: "
            f"<code>vcperf params {html.escape(name)}</code>)."
            f"{seen}</p><table><tr><th>parameter</th><th>value in this report</th><th>unit</th><th>meaning</th></tr>"
            f"{rows}</table></div>")


def _prepare(nb, name: str = "", scenarios: list[str] | None = None) -> list[str]:
    """In place: figure captions after every code cell with images; data frames formatted (no index,
    errors in percent, misses highlighted), floats in HTML tables rounded; a note under "What if?".

    Returns the alternative text of each PNG the page will show as an ``<img>``, in order."""
    import nbformat

    alts = []
    cells = []
    heading = ""
    for cell in nb.cells:
        cells.append(cell)
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                m = re.match(r"#{1,4} (.+)", line)
                if m:
                    heading = _plain(m.group(1))
                    if heading.startswith("What if?"):
                        note = _whatif_note(name, nb, scenarios or [])
                        if note:
                            cells.append(nbformat.v4.new_markdown_cell(note))
            continue
        if cell.cell_type != "code":
            continue
        images = 0
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            if "image/png" in data or "image/svg+xml" in data:
                images += 1
                if "image/png" in data and not ({"image/svg+xml", "text/html"} & set(data)):
                    alts.append(_plain(heading) or "Figure")
            if "text/html" in data:
                src = data["text/html"]
                src = "".join(src) if isinstance(src, list) else src
                data["text/html"] = nowrap_numbers(round_table_floats(format_frames(src)))
        if images:
            cells.append(nbformat.v4.new_markdown_cell(f'<p class="vc-caption">{caption(heading)}</p>'))
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


def references(study: str) -> str:
    """The References section of a study page: the paper's full citation, its URL a link."""
    if study not in studies.STUDIES:
        return ""
    text = _cite_html(study)
    return (f'<section class="vc-references" id="references"><h2>References</h2><ol><li>{text}</li></ol>'
            "<p>The paper's printed numbers are in <code>data/" + html.escape(study) + "/</code> of the vcperf "
            "source, each with where the paper prints it.</p></section>")


_NB_LINK = re.compile(r'href="([A-Za-z0-9_]+)\.(?:ipynb|py)"')


#: Links a notebook has for JupyterLab (from ``notebooks/``) -> the same page in the report (from ``build/report/``).
_REPORT_LINKS = {'href="../docs/PLAN.md"': 'href="plan.html"',
                 'href="../build/report/api/index.html"': 'href="api/index.html"'}


def _link_pages(text: str, names) -> str:
    """Links to a notebook (``robo_networks.py`` or ``.ipynb``, as the landing notebook has them for
    JupyterLab) pointed at its report page; the plan format and API reference at the report's own pages."""
    for jupyter, page in _REPORT_LINKS.items():
        text = text.replace(jupyter, page)
    return _NB_LINK.sub(lambda m: f'href="{page_of(m.group(1))}"' if m.group(1) in names else m.group(0), text)


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


def _nav(groups, titles: dict[str, str], current: str | None, prefix: str = "", refs=()) -> str:
    """The report's navigation: the index, each group's notebooks by title, then the reference pages ``refs``."""
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
    if refs:
        parts.append("<h2>Reference</h2><ul>")
        parts += [f'<li><a href="{prefix}{page}"{" aria-current=page" if page == current else ""}>'
                  f"{html.escape(reference.PAGES[page])}</a></li>" for page in refs]
        parts.append("</ul>")
    parts.append("</nav>")
    return "\n".join(parts)


def humanise(stem: str) -> str:
    """A file name as a label: ``figure02_03_hostsync`` -> "Figures 2–3: hostsync", ``table01_networks_model``
    -> "Table 1: networks model", ``tables09_11_traffic`` -> "Tables 9–11: traffic"."""
    def numbered(m: re.Match) -> str:
        kind = {"fig": "figure"}.get(m.group(1), m.group(1)).rstrip("s")
        first, last = int(m.group(2)), m.group(3)
        if last is None:
            return f"{kind.capitalize()} {first}: "
        return f"{kind.capitalize()}s {first}–{int(last)}: "

    text = re.sub(r"^(figures?|tables?|fig)(\d+)(?:_(\d+)(?=_))?_", numbered, stem)
    text = text.replace("_", " ")
    return text[:1].upper() + text[1:]


def _cite_html(study: str) -> str:
    s = studies.STUDIES[study]
    text = html.escape(s.citation())
    if s.url:
        esc = html.escape(s.url)
        text = text.replace(esc, f'<a href="{esc}">{esc}</a>')
    return text


def _plain_page(body: str, nav: str, title: str) -> str:
    """A report page of its own (not a notebook's): the style sheet, the nav and ``body``."""
    return ("<!DOCTYPE html>\n" '<html lang="en"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{html.escape(title)} — vcperf report</title><style>{_CSS}</style></head>"
            f'<body class="vc-report">\n{nav}\n<main class="vc-main vc-index">{body}</main>\n</body></html>\n')


def _intro(build: Path, here: str) -> str:
    """The index's opening, in plain words: what the studies are, what a reader can do here, how far to trust an
    answer; links only to pages this build has (``here``: the path from the page to ``build/report/``)."""
    report = build / "report"
    site = (f'<a href="{here}site_planner.html">the site planner</a>, '
            if (report / "site_planner.html").exists() else "")
    api = (f'<li>call the models from Python: the <a href="{here}api/index.html">API reference</a>.</li>'
           if (report / "api" / "index.html").exists() else "")
    return ("<p>Five published VMware performance studies (vCenter High Availability, vCenter in branch offices, "
            "Fault Tolerance, Content Library deployments, vMotion) rebuilt as models you can ask your own "
            "questions: how long a clone takes over your branch link, what link a deployment needs, what a "
            "stretched vCenter HA costs. What you can do here:</p><ul>"
            "<li>read a study's page (below, or in the menu): every figure and table of the paper with the model's "
            "value beside the paper's, and each large miss explained;</li>"
            "<li>plan a whole site (links, branches, migrations, deployments, vCenter HA, FT) with "
            f'<code>vcperf plan site.yaml</code>: {site}the <a href="{here}plan.html">plan format</a>;</li>'
            "<li>move the controls of the what-if panels in JupyterLab or in the what-if app (<code>make app</code>)"
            f"{';' if api else '.'}</li>{api}</ul>"
            "<p>How far to trust an answer: each model was fitted to some of its paper's numbers and is judged on "
            "the numbers it was not fitted to. The table below gives, per study, how far the model is from those "
            f"numbers (errors relative to the paper's value; above {MISS_REL_ERROR:.0%} is a miss, highlighted). "
            f'The words are explained in the <a href="{here}glossary.html">glossary</a>.</p>')


def _index(build: Path, groups, titles, prefix: str, refs=()) -> str:
    """The index page; ``prefix`` is the path from the page's folder to ``build/`` ('' or '../')."""
    import pandas as pd

    here = "" if prefix else "report/"  # path from the page to build/report/
    nav = _nav(groups, titles, "index.html", here, refs)
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             '<meta name="viewport" content="width=device-width, initial-scale=1">',
             "<title>vcperf report — regenerated studies</title>", f"<style>{_CSS}</style></head>",
             '<body class="vc-report">', nav, '<main class="vc-main vc-index">',
             "<h1>vcperf — what the models of five VMware studies answer</h1>", _intro(build, here)]
    fid_path = build / "fidelity.csv"
    ledger = None
    if fid_path.exists():
        ledger = pd.read_csv(fid_path)
        summ = fidelity.summary(ledger)
        titles_of = {k: v[0] for k, v in STUDIES.items()}
        parts += ["<h2>How close the models come</h2>", summary_table(summ, titles_of, f"{here}glossary.html"),
                  f'<p><a href="{prefix}fidelity.csv">fidelity.csv</a>: every paper number a model speaks to, with '
                  "the model's value and its kind (the same as <code>vcperf fidelity</code>).</p>"]
    if (build / "scenarios" / "index.html").exists():
        parts.append(f'<p><a href="{prefix}scenarios/index.html">What-if scenarios</a>: regenerations of the '
                     "notebooks with changed parameters, with their figures and tables.</p>")
    for key, heading, nbs in groups:
        parts.append(f'<h2 id="{key}">{html.escape(heading)}</h2>')
        if key in studies.STUDIES:
            parts.append(f'<p class="vc-ref">{_cite_html(key)}</p>')
        if ledger is not None and key in STUDIES:
            parts.append(misses_table(ledger[ledger["study"] == key]))
        for n in nbs:
            parts.append(f'<h3><a href="{here}{page_of(n)}">{html.escape(titles[n])}</a></h3>')
            parts.append(f'<p class="vc-files"><a href="{prefix}notebooks/{n}.ipynb">executed notebook</a></p>')
            figs = sorted((build / "figures" / n).glob("*.png"))
            if figs:
                items = "".join(
                    f'<li><a href="{prefix}{f.relative_to(build).as_posix()}">{html.escape(humanise(f.stem))}</a>'
                    f' (<a href="{prefix}{f.relative_to(build).as_posix()[:-4]}.svg">svg</a>)</li>'
                    if f.with_suffix(".svg").exists() else
                    f'<li><a href="{prefix}{f.relative_to(build).as_posix()}">{html.escape(humanise(f.stem))}</a></li>'
                    for f in figs)
                parts.append(f'<details class="vc-files"><summary>Figures ({len(figs)})</summary><ul>{items}</ul>'
                             "</details>")
            tabs = sorted((build / "tables" / n).glob("*.csv"))
            if tabs:
                items = "".join(f'<li><a href="{prefix}{t.relative_to(build).as_posix()}">'
                                f"{html.escape(humanise(t.stem))}</a> (csv)</li>" for t in tabs)
                parts.append(f'<details class="vc-files"><summary>Tables ({len(tabs)})</summary><ul>{items}</ul>'
                             "</details>")
    parts += ["</main>", "</body></html>", ""]
    return "\n".join(parts)


def _scenarios(build: Path) -> dict[str, list[str]]:
    """Scenario name -> the notebooks it ran, for every scenario under ``<build>/scenarios/``."""
    import json

    out = {}
    for f in sorted((Path(build) / "scenarios").glob("*/scenario.json")):
        out[f.parent.name] = sorted(json.loads(f.read_text()))
    return out


def write_scenario_index(folder: Path) -> Path:
    """``<folder>/index.html`` (``build/scenarios/``): every scenario with the parameters it changed and
    links to its rendered pages and figures; says how to make one when there is none yet."""
    import json

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    rows = []
    for scen in sorted(p for p in folder.iterdir() if p.is_dir() and (p / "scenario.json").exists()):
        params = json.loads((scen / "scenario.json").read_text())
        changed = "<br>".join(
            f"<b>{html.escape(nb)}</b>: " + ", ".join(f"{html.escape(k)} = {html.escape(repr(val))}"
                                                      for k, val in ps.items())
            for nb, ps in params.items())
        pages = "".join(f'<li><a href="{html.escape(scen.name)}/report/{page_of(nb)}">{html.escape(nb)}</a></li>'
                        for nb in params if (scen / "report" / page_of(nb)).exists())
        figs = "".join(f'<li><a href="{html.escape(f.relative_to(folder).as_posix())}">{html.escape(humanise(f.stem))}'
                       "</a></li>" for f in sorted((scen / "figures").rglob("*.png")))
        rows.append(f'<tr id="{html.escape(scen.name)}"><td>{html.escape(scen.name)}</td><td>{changed}</td>'
                    f"<td><ul>{pages}</ul></td><td><ul>{figs}</ul></td></tr>")
    table = ("<table><tr><th>scenario</th><th>parameters changed</th><th>pages</th><th>figures</th></tr>"
             + "".join(rows) + "</table>") if rows else "<p>No scenario has been run in this build yet.</p>"
    page = ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>What-if scenarios — vcperf report"
            f"</title><style>{_CSS}</style></head><body class=\"vc-report\"><main class=\"vc-index\" "
            'style="margin:0 auto;padding:8px 24px"><p><a href="../index.html">vcperf report</a></p>'
            "<h1>What-if scenarios</h1><p>Each scenario is a regeneration with changed notebook parameters "
            "(<code>vcperf regenerate -p KEY=VALUE --scenario NAME</code>; a notebook's parameters: "
            f"<code>vcperf params NOTEBOOK</code>).</p>{table}</main></body></html>\n")
    out = folder / "index.html"
    out.write_text(page, encoding="utf-8")
    return out


def warm_up() -> None:
    """Pay :func:`write_index`'s one-time costs now, on a two-cell notebook written nowhere.

    The first page costs a second more than the others (importing nbconvert, compiling its templates, its
    markdown and HTML parsers); a regeneration calls this while its notebooks run, so the report written
    after the last notebook takes only its own time.
    """
    import nbformat
    import pandas  # noqa: F401 - the index's tables

    for study in studies.STUDIES:
        studies.module(study)  # the index's fidelity summary asks every study
    table = '<table border="1" class="dataframe"><tr><th>paper</th></tr><tr><td>1.234567</td></tr></table>'
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("# Warm-up\n\n## Figure 1 — *a* `b`\n\n| a | b |\n|---|---|\n| 1 | $x^2$ |"),
        nbformat.v4.new_code_cell("t", outputs=[nbformat.v4.new_output(
            "display_data", data={"text/html": table, "text/plain": "t"})])])
    alts = _prepare(nb, "warm_up", [])
    body, _ = _exporter().from_notebook_node(nb, resources={"metadata": {"name": "Warm-up"}})
    _page(_link_pages(_alt_texts(body, alts), ["warm_up"]), "", "Warm-up")


def write_index(build: Path) -> Path:
    """Render ``<build>/report/`` (one page per executed notebook and an index) and ``<build>/index.html``."""
    import nbformat

    build = Path(build)
    report = build / "report"
    for old in sorted(report.iterdir()) if report.is_dir() else ():  # the API reference (write_api) stays
        if old.name != "api":
            shutil.rmtree(old) if old.is_dir() and not old.is_symlink() else old.unlink()
    report.mkdir(parents=True, exist_ok=True)
    refs = [p for p in reference.PAGES if (report / p).is_file() or p != "api/index.html"]
    paths = {p.stem: p for p in sorted((build / "notebooks").glob("*.ipynb"))}
    nbs = {name: nbformat.read(p, as_version=4) for name, p in paths.items()}
    titles = {name: _plain(notebook_title(nb) or name) for name, nb in nbs.items()}
    groups = _groups(list(nbs))
    exporter = _exporter()
    scenarios = _scenarios(build)
    for name, nb in nbs.items():
        alts = _prepare(nb, name, [s for s, nbs_of in scenarios.items() if name in nbs_of])
        nb.metadata.pop("widgets", None)  # no widget state: the panels are for JupyterLab and Voila
        body, _ = exporter.from_notebook_node(nb, resources={"metadata": {"name": titles[name]}})
        body = _link_pages(_alt_texts(body, alts), nbs)
        study = STUDY_OF_PREFIX.get(name.split("_")[0])
        if study:
            body = body.replace("</body>", references(study) + "\n</body>", 1)
        page = page_of(name)
        (report / page).write_text(keep_units(_page(body, _nav(groups, titles, page, refs=refs), titles[name])),
                                   encoding="utf-8")
    for page, body in (("glossary.html", reference.glossary_html()), ("plan.html", reference.plan_html())):
        (report / page).write_text(_plain_page(body, _nav(groups, titles, page, refs=refs), reference.PAGES[page]),
                                   encoding="utf-8")
    reference.write_schema(report)
    if (build / "fidelity.csv").exists():  # the default build (a scenario has only its own pages)
        write_scenario_index(build / "scenarios")
    (report / "index.html").write_text(keep_units(_index(build, groups, titles, "../", refs)), encoding="utf-8")
    out = build / "index.html"
    out.write_text(keep_units(_index(build, groups, titles, "", refs)), encoding="utf-8")
    return out

