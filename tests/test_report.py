"""The report (vcperf.report): nbconvert pages with a nav, captions, rounded table floats, offline, deterministic.

Fast: a synthetic build (two small executed notebooks, no kernel). The real build is covered by
tests/test_regenerate.py (byte-identical twice) and tests/test_browser.py (nav, table widths in Chromium).
"""

import base64
import re

import nbformat
import pytest

from vcperf import report

# A 1x1 PNG.
PNG = base64.b64encode(bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082")).decode()

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
    out = report._round_table_floats(html)
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
    assert '<p class="vc-caption"><b>Figure 1.</b> Transfer time vs payload</p>' in page
    assert "interactive = False" not in page  # inputs hidden
    assert "data:image/png;base64," in page and 'alt="Figure 1: Transfer time vs payload"' in page
    for p in [*(build / "report").glob("*.html"), out]:
        text = p.read_text()
        assert not re.search(r"""(src|href)=["']https?://""", text), p
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
    assert "http" not in top


def test_report_is_byte_identical_when_rebuilt(build):
    report.write_index(build)
    first = {p.name: p.read_bytes() for p in (build / "report").iterdir()}
    report.write_index(build)
    assert first == {p.name: p.read_bytes() for p in (build / "report").iterdir()}


def test_studies_come_from_the_registry():
    """The report groups and titles the studies of vcperf.studies, each with its reference."""
    from vcperf import studies

    assert list(report.STUDIES) == list(studies.names())
    assert set(report.REFERENCES) == set(studies.names())
    assert all(report.STUDIES[s.name] == (s.title, report.REFERENCES[s.name]) for s in studies.STUDIES.values())
    assert report.STUDY_OF_PREFIX["robo"] == "robo2019" and report.STUDY_OF_PREFIX["vmotion"] == "vmotion2020"
