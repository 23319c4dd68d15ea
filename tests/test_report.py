"""The report (vcperf.report): nbconvert pages with a nav, captions, rounded table floats, offline, deterministic.

Fast: a synthetic build (two small executed notebooks, no kernel). The real build is covered by
tests/test_regenerate.py (byte-identical twice) and tests/test_browser.py (nav, table widths in Chromium).
"""

import base64
import re

import nbformat
import pytest

from vcperf import report, studies

# A 1x1 PNG.
PNG = base64.b64encode(bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082")).decode()

CITATION_URLS = {s.url for s in studies.STUDIES.values() if s.url}

FLOATS = re.compile(r"<td[^>]*>\s*([-+]?(?:\d+\.\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*</td>")


def _significant(text: str) -> int:
    mantissa = re.sub(r"[eE].*$", "", text.lstrip("+-")).replace(".", "").lstrip("0")
    return len(mantissa)


@pytest.mark.parametrize("x, shown", [
    (1.24657e-16, "1.247e-16"), (0.104567, "0.1046"), (2.5361, "2.536"), (33177.46, "33,180"),
    (1234.56, "1235"), (12.0, "12"), (-0.45249, "-0.4525"), (0.0, "0"), (float("nan"), "—"),
])
def test_format_number_keeps_four_significant_digits(x, shown):
    assert report.format_number(x) == shown


def test_table_floats_are_rounded_integers_and_text_kept():
    html = "<table><tr><td>1.24657e-16</td><td class='data'>0.123456</td><td>36864</td><td>a 1.23456 b</td></tr>"
    out = report.round_table_floats(html)
    assert "<td>1.247e-16</td>" in out and "<td class='data'>0.1235</td>" in out
    assert "<td>36864</td>" in out and "<td>a 1.23456 b</td>" in out


def _notebook(title: str, heading: str) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook(metadata={"kernelspec": {"name": "python3", "display_name": "Python 3",
                                                           "language": "python"}})
    code = nbformat.v4.new_code_cell("df", execution_count=1)
    code.outputs = [
        nbformat.v4.new_output("execute_result", execution_count=1, data={
            "text/plain": "df",
            "text/html": "<table><tr><th>x</th></tr><tr><td>0.123456789</td></tr>"
                         "<tr><td>1.24657e-16</td></tr></table>"}),
        nbformat.v4.new_output("display_data", data={"image/png": PNG, "text/plain": "<Figure>"}),
    ]
    nb.cells = [nbformat.v4.new_markdown_cell(f"# {title}\n\nProse that explains a miss."),
                nbformat.v4.new_code_cell("interactive = False", metadata={"tags": ["parameters"]}),
                nbformat.v4.new_markdown_cell(f"## {heading}"), code]
    for i, c in enumerate(nb.cells):
        c["id"] = f"cell-{i:02d}"
    return nb


@pytest.fixture
def build(tmp_path):
    b = tmp_path / "build"
    (b / "notebooks").mkdir(parents=True)
    (b / "figures" / "robo_networks").mkdir(parents=True)
    (b / "figures" / "robo_networks" / "transfer_time_vs_payload.png").write_bytes(base64.b64decode(PNG))
    nbformat.write(_notebook("ROBO study — networks", "Transfer time vs payload"),
                   b / "notebooks" / "robo_networks.ipynb")
    nbformat.write(_notebook("vcperf — landing", "Summary"), b / "notebooks" / "index.ipynb")
    return b


def test_report_pages_have_nav_titles_captions_prose_and_no_code(build):
    out = report.write_index(build)
    assert out == build / "index.html"
    page = (build / "report" / "robo_networks.html").read_text()
    assert page.count("<nav") == 1 and 'href="index.html"' in page and 'href="landing.html"' in page
    assert "ROBO study — networks" in page and "Prose that explains a miss." in page
    # A figure the paper does not have keeps its heading, unnumbered (one numbering: the paper's).
    assert '<p class="vc-caption">Transfer time vs payload</p>' in page
    assert "interactive = False" not in page  # inputs hidden
    assert "data:image/png;base64," in page and 'alt="Transfer time vs payload"' in page
    for p in [*(build / "report").glob("*.html"), out]:
        text = p.read_text()
        assert not re.search(r"""src=["']https?://|<link[^>]*href=["']https?://""", text), p  # no outside assets
        # the only links out of the report are the papers' URLs, in their citations
        assert set(re.findall(r"""href=["'](https?://[^"']*)""", text)) <= CITATION_URLS, p
        assert "cdnjs" not in text and "<script" not in text, p
        assert all(_significant(v) <= 4 for v in FLOATS.findall(text)), (p, FLOATS.findall(text))


def test_index_pages_link_studies_by_title_notebooks_and_figures(build):
    report.write_index(build)
    top = (build / "index.html").read_text()
    inner = (build / "report" / "index.html").read_text()
    assert "<nav" in top and "<nav" in inner
    assert 'href="report/robo_networks.html"' in top and 'href="robo_networks.html"' in inner
    assert 'href="notebooks/robo_networks.ipynb"' in top and 'href="../notebooks/robo_networks.ipynb"' in inner
    assert "figures/robo_networks/transfer_time_vs_payload.png" in top
    assert report.STUDIES["robo2019"][0] in top and ">robo2019<" not in top  # study titles, not folder ids
    assert not re.search(r"""src=["']https?://|<link[^>]*href=["']https?://""", top)  # no outside assets
    assert set(re.findall(r"""href=["'](https?://[^"']*)""", top)) <= CITATION_URLS


def test_report_is_byte_identical_when_rebuilt(build):
    report.write_index(build)
    first = {p.name: p.read_bytes() for p in (build / "report").iterdir()}
    report.write_index(build)
    assert first == {p.name: p.read_bytes() for p in (build / "report").iterdir()}


def test_studies_come_from_the_registry():
    """The report groups and titles the studies of vcperf.studies, each with its full citation."""
    assert list(report.STUDIES) == list(studies.names())
    assert all(report.STUDIES[s.name] == (s.title, s.citation()) for s in studies.STUDIES.values())
    assert report.STUDY_OF_PREFIX["robo"] == "robo2019" and report.STUDY_OF_PREFIX["vmotion"] == "vmotion2020"


def test_every_study_has_a_full_citation_in_the_registry():
    for s in studies.STUDIES.values():
        assert s.full_title and s.publisher and 2000 < s.year < 2030, s.name
        text = s.citation()
        assert s.full_title in text and str(s.year) in text and all(a in text for a in s.authors)
        assert s.seed not in text
    assert studies.STUDIES["vcha2016"].authors == ("A. T. Mizrak", "P. Saxena")
    assert studies.STUDIES["contentlib2015"].authors == ("J. Guan", "D. Bergamasco")
    assert studies.STUDIES["vmotion2020"].authors == ("S. Setty",)
    assert studies.STUDIES["ft2016"].url == "https://communities.vmware.com/docs/DOC-30054"


def test_study_pages_end_with_references_and_landing_links_resolve(build):
    nb = nbformat.read(build / "notebooks" / "index.ipynb", as_version=4)
    nb.cells.append(nbformat.v4.new_markdown_cell("See [robo_networks](robo_networks.py) and [app](app.ipynb)."))
    nbformat.write(nb, build / "notebooks" / "index.ipynb")
    report.write_index(build)
    page = (build / "report" / "robo_networks.html").read_text()
    assert '<section class="vc-references" id="references"><h2>References</h2>' in page
    assert studies.STUDIES["robo2019"].full_title in page
    landing = (build / "report" / "landing.html").read_text()
    assert 'href="robo_networks.html"' in landing and "robo_networks.py" not in landing
    assert 'href="app.ipynb"' in landing  # no page for it in this build: left as it is, and the checker says so
    assert report.broken_links(build) == ["report/landing.html: app.ipynb"]


def test_link_checker_finds_missing_files_and_fragments(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "a.html").write_text('<a href="sub/b.html#here">b</a><a href="sub/b.html#gone">c</a>'
                                     '<img src="missing.png"><a href="https://example.org/x">out</a>'
                                     '<img src="data:image/png;base64,AAAA"><a href="sub/">dir</a>')
    (tmp_path / "sub" / "b.html").write_text('<h2 id="here">b</h2><a href="../a.html">a</a>')
    assert report.broken_links(tmp_path) == ["a.html: sub/b.html#gone", "a.html: missing.png", "a.html: sub/"]


@pytest.mark.parametrize("stem, label", [
    ("figure02_03_hostsync", "Figures 2–3: hostsync"), ("tables09_11_traffic", "Tables 9–11: traffic"),
    ("table01_networks_model", "Table 1: networks model"), ("transfer_time_vs_payload", "Transfer time vs payload"),
    ("figure08_createvm_sequence", "Figure 8: createvm sequence"),
])
def test_file_labels_are_human(stem, label):
    assert report.humanise(stem) == label


@pytest.mark.parametrize("heading, shown", [
    ("Figure 8 — CreateVM as the model's exchange list", "<b>Figure 8.</b> CreateVM as the model&#x27;s exchange list"),
    ("Figures 9-10 — VCbench throughput", "<b>Figures 9-10.</b> VCbench throughput"),
    ("Transfer time vs payload", "Transfer time vs payload"),
    ("Tables 2-3 / Figures 2-3 — vpxd ready time", "<b>Tables 2-3 / Figures 2-3.</b> vpxd ready time"),
    ("Table 1 and Figure 9 — five Oracle VM sizes", "<b>Table 1 and Figure 9.</b> five Oracle VM sizes"),
])
def test_captions_use_the_papers_numbering_only(heading, shown):
    assert report.caption(heading) == shown


FRAME = """<table border="1" class="dataframe">
  <thead>
    <tr style="text-align: right;">
      <th></th>
      <th>kind</th>
      <th>quantity</th>
      <th>rel_error</th>
      <th>passed</th>
    </tr>
  </thead>
  <tbody>
    <tr>
      <th>3</th>
      <td>loo</td>
      <td>host sync</td>
      <td>0.756849</td>
      <td>NaN</td>
    </tr>
    <tr>
      <th>4</th>
      <td>fitted</td>
      <td>upload</td>
      <td>-4.899e-14</td>
      <td>NaN</td>
    </tr>
    <tr>
      <th>5</th>
      <td>bound</td>
      <td>traffic</td>
      <td>NaN</td>
      <td>False</td>
    </tr>
  </tbody>
</table>"""


def test_fidelity_frames_have_no_index_percent_errors_and_highlighted_misses():
    out = report.format_frames(FRAME)
    assert "<th>3</th>" not in out and "<th></th>" not in out  # no index column
    assert "<th>error</th>" in out and "rel_error" not in out
    assert ('<tr class="vc-miss"><td class="vc-kind">loo</td><td>host sync</td>'
            '<td class="vc-err vc-miss-cell">+75.7\u00a0%</td>') in out
    assert '<td class="vc-err">0.0\u00a0%</td>' in out and "e-14" not in out  # a fitted row at zero, not -4.899e-14
    assert out.count('class="vc-miss"') == 2  # the loo miss and the failed bound
    assert '<td class="vc-err">—</td>' in out  # a bound has no relative error


def test_whatif_sections_say_how_to_run_a_scenario(build):
    nb = nbformat.read(build / "notebooks" / "robo_networks.ipynb", as_version=4)
    nb.cells[1].source = ('interactive = False  # -: show the panel\n'
                          'whatif_rtt_ms = 0.0  # ms, range [0, 1000]: round-trip time of a custom link\n')
    inj = nbformat.v4.new_code_cell("# Parameters\nwhatif_rtt_ms = 80.0\n", metadata={"tags": ["injected-parameters"]})
    nb.cells[2:2] = [inj, nbformat.v4.new_markdown_cell("## What if? — your link")]
    nbformat.write(nb, build / "notebooks" / "robo_networks.ipynb")
    report.write_index(build)
    page = (build / "report" / "robo_networks.html").read_text()
    assert "vcperf regenerate --only robo_networks -p whatif_rtt_ms=VALUE --scenario NAME" in page
    assert "<td><code>whatif_rtt_ms</code></td><td>80.0</td><td>ms</td>" in page


SEED_NAME = re.compile(r"\b\d{3}_[0-9a-f]{16}\.txt\b")
#: Wording about how vcperf was built, not about the studies (reader-facing text must have none).
BUILD_WORDING = re.compile(r"\bissue \d+|\bissue behind|\bsession \d+|\bthis session\b|\bhelper\b|"
                           r"browser's echo|\.\./shared|\bthe seed\b|\bseed's\b", re.I)


def reader_facing_problems(root) -> list[str]:
    """Seed file names and build-process wording in the HTML pages under ``root``."""
    import html as htmllib
    from pathlib import Path

    out = []
    for page in sorted(Path(root).rglob("*.html")):
        text = htmllib.unescape(re.sub(r"<[^>]+>", " ", page.read_text()))
        for m in [*SEED_NAME.finditer(text), *BUILD_WORDING.finditer(text)]:
            out.append(f"{page.name}: {text[max(0, m.start() - 40):m.end() + 40]!r}")
    return out


def test_reader_facing_check_finds_seed_names_and_build_notes(tmp_path):
    (tmp_path / "a.html").write_text("<p>Seed: <code>001_36d9adf7ffa34fcf.txt</code>; before issue 12 it stalled; "
                                     "clients issue operations</p>")
    found = reader_facing_problems(tmp_path)
    assert len(found) == 2 and "001_36d9adf7ffa34fcf.txt" in found[0] and "issue 12" in found[1]


def test_readme_citation_cff_and_landing_notebook_cite_every_study_and_name_no_seed_file():
    """The citations are kept once (vcperf.studies); README and CITATION.cff carry the same, the landing
    notebook renders them from the registry; no seed file name, ../shared or build notes."""
    from pathlib import Path

    import yaml

    root = Path(__file__).resolve().parent.parent
    readme = (root / "README.md").read_text(encoding="utf-8")
    cff = yaml.safe_load((root / "CITATION.cff").read_text(encoding="utf-8"))
    refs = {r["title"]: r for r in cff["references"]}
    landing = (root / "notebooks" / "index.py").read_text(encoding="utf-8")
    assert "s.citation()" in landing and "studies.STUDIES" in landing
    for s in studies.STUDIES.values():
        assert s.citation() in readme, s.name
        ref = refs[s.full_title]
        assert ref["year"] == s.year and ref.get("url", "") == s.url, s.name
        names = [a.get("family-names", a.get("name")) for a in ref["authors"]]
        assert all(a.split()[-1] in names for a in s.authors), (s.name, names)
    for text in (readme, landing, (root / "CITATION.cff").read_text(encoding="utf-8")):
        assert not SEED_NAME.search(text) and "../shared" not in text and "seeds/" not in text
        assert not BUILD_WORDING.search(text)


def test_a_named_index_keeps_its_row_labels():
    pivot = ('<table border="1" class="dataframe">\n<thead>\n<tr style="text-align: right;">\n<th>quantity</th>\n'
             "<th>bandwidth</th>\n</tr>\n<tr>\n<th>network_label</th>\n<th></th>\n</tr>\n</thead>\n<tbody>\n"
             "<tr>\n<th>DSL</th>\n<td>0.5 Mbps</td>\n</tr>\n</tbody>\n</table>")
    out = report.format_frames(pivot)
    assert "<th>DSL</th>" in out and "network label" in out
    # one header row: the index's name heads its column, the columns' name ("quantity") is not a cell
    assert out.count("<tr><th>") == 2 and "<tr><th>network label</th><th>bandwidth</th></tr>" in out
    assert "quantity" not in out


def test_readme_opens_with_a_whatif_example_whose_output_is_what_it_prints(capsys):
    """The README's first Python block runs from a clone alone and prints exactly the output shown under it."""
    from pathlib import Path

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    first_section = readme.split("\n## ", 2)[1]
    assert first_section.startswith("What you get")
    code = re.search(r"```python\n(.*?)```", first_section, re.S).group(1)
    shown = re.search(r"```python\n.*?```\s*```\n(.*?)```", first_section, re.S).group(1)
    exec(compile(code, "README.md", "exec"), {})  # noqa: S102 - the README's own example
    assert capsys.readouterr().out == shown
    words = readme.split("## Fidelity", 1)[1]
    for word in ("**fitted**", "**loo**", "**predicted**", "**derived**", "**bound**", "**coverage**",
                 "**Jacobian rank**"):
        assert word in words, word


@pytest.mark.slow
def test_api_reference_is_built_from_the_docstrings_deterministically_and_linked(build, tmp_path):
    """pdoc's API reference in build/report/api/: the public modules (no vcperf._*), byte-identical when rebuilt,
    every link resolving, nothing a reader should not see; the report keeps it and links it from every page."""
    api = build / "report" / "api"
    assert report.write_api(api) == api / "index.html"
    first = {p.relative_to(api): p.read_bytes() for p in sorted(api.rglob("*")) if p.is_file()}
    assert (api / "vcperf" / "site.html").is_file() and (api / "vcperf" / "fidelity.html").is_file()
    assert not list(api.rglob("_validate.html")), "private modules are not documented"
    report.write_api(api)
    assert first == {p.relative_to(api): p.read_bytes() for p in sorted(api.rglob("*")) if p.is_file()}
    report.write_index(build)
    assert (api / "index.html").is_file()  # the report's rebuild keeps it
    assert report.broken_links(build) == []
    assert reader_facing_problems(api) == []
    for page in ("index.html", "robo_networks.html", "glossary.html"):
        assert 'href="api/index.html"' in (build / "report" / page).read_text(), page
    assert 'href="report/api/index.html"' in (build / "index.html").read_text()
    assert str(tmp_path) not in "".join(p.read_text() for p in api.rglob("*.html"))


def test_reference_pages_glossary_and_plan_format_are_in_the_report(build):
    """glossary.html (every word of the ledger, with an anchor the summary links), plan.html (every field of the
    plan schema) and plan.schema.json, linked from every page's nav; the summary's words link the glossary."""
    from vcperf import fidelity
    from vcperf.site import schema

    report.write_index(build)
    glossary = (build / "report" / "glossary.html").read_text()
    for term in fidelity.GLOSSARY:
        assert f'id="{report.reference.anchor(term)}"' in glossary, term
    plan = (build / "report" / "plan.html").read_text()
    assert all(f.path.split(".")[-1].strip("[]") in plan for f in schema.fields())
    assert (build / "report" / "plan.schema.json").is_file() and 'href="plan.schema.json"' in plan
    for page in ("robo_networks.html", "landing.html", "index.html"):
        text = (build / "report" / page).read_text()
        assert 'href="glossary.html"' in text and 'href="plan.html"' in text, page
    assert "api/index.html" not in (build / "report" / "index.html").read_text()  # not built: not linked
