"""The report's reference pages: the ledger's words (``glossary.html``), the site plan format (``plan.html`` and
``plan.schema.json``, from :mod:`vcperf.site.schema`) and the API reference generated from the docstrings by pdoc
(``api/``). Each is written under the report folder it is given, and nowhere else."""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from vcperf import fidelity, studies
from vcperf.site import schema

#: The reference pages (file in ``build/report/`` -> title), in the nav's order; ``api/index.html`` only when built.
PAGES = {"glossary.html": "Glossary: the ledger's words", "plan.html": "Site plan format",
         "api/index.html": "API reference"}

#: What the API reference documents: the package without its private modules (``vcperf._*``).
API_MODULES = ("vcperf", r"!vcperf\._")


def glossary_html() -> str:
    """The glossary's body: every word of :data:`vcperf.fidelity.GLOSSARY` with an anchor (``#loo``)."""
    items = "".join(f'<dt id="{anchor(term)}">{html.escape(term)}</dt><dd>{html.escape(meaning)}</dd>'
                    for term, meaning in fidelity.GLOSSARY.items())
    return ("<h1>Glossary: the ledger's words</h1><p>Every model number in this report sits beside the number the "
            "paper prints. These are the words the tables and the summary use for how the two compare.</p>"
            f'<dl class="vc-glossary">{items}</dl>')


def anchor(term: str) -> str:
    """The glossary anchor of ``term``: its words before any parenthesis, lower case, joined by ``-``.

    Examples
    --------
    >>> anchor("loo (leave-one-out)"), anchor("90 % interval"), anchor("not estimable")
    ('loo', 'interval', 'not-estimable')
    """
    words = re.findall(r"[A-Za-z]+", str(term).split("(")[0])
    if not words:
        raise ValueError(f"term must hold a word; got {term!r}")
    return "-".join(w.lower() for w in words)


def plan_html() -> str:
    """The plan format's reference page (:func:`vcperf.site.schema.reference`, the one the docs carry) as HTML."""
    import mistune

    text = schema.reference()
    text = re.sub(r"<!--.*?-->\s*", "", text, flags=re.S)
    return mistune.html(text)


def write_schema(report: Path) -> Path:
    """``plan.schema.json`` (:func:`vcperf.site.schema.json_schema`) in ``report``, where the plan page links it."""
    report = Path(report)
    report.mkdir(parents=True, exist_ok=True)
    path = report / "plan.schema.json"
    path.write_text(json.dumps(schema.json_schema(), indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return path


def write_api(folder: Path, timeout_s: float = 600.0) -> Path | None:
    """The API reference of :data:`API_MODULES` from their numpydoc docstrings, by pdoc, into ``folder``
    (``build/report/api/``); returns its ``index.html``.

    Deterministic: pdoc runs in its own process with a fixed hash seed (a set's order is the same every time), no
    source listing and no search index, and the checkout's path in a default value is written ``<checkout>``.
    None (and nothing written) without pdoc (``pip install 'vcperf[docs]'``; the set-up's lock has it). Raises
    ``RuntimeError`` with pdoc's message when it fails.
    """
    import importlib.util

    folder = Path(folder)
    if importlib.util.find_spec("pdoc") is None:
        return None
    if not isinstance(timeout_s, int | float) or not 1 <= timeout_s <= 3600:
        raise ValueError(f"timeout_s must be in [1, 3600] s; got {timeout_s!r}")
    if folder.is_symlink():
        raise ValueError(f"folder must be a folder of the build, not a symbolic link; got {folder}")
    shutil.rmtree(folder, ignore_errors=True)  # no page of an earlier build left behind
    env = {**os.environ, "PYTHONHASHSEED": "0", "MPLBACKEND": "Agg"}
    cmd = [sys.executable, "-m", "pdoc", "--docformat", "numpy", "--no-show-source", "--no-search",
           "--footer-text", "vcperf", "-o", str(folder), *API_MODULES]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout_s, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"the API reference (pdoc) failed: {done.stderr.strip()[-2000:]}")
    checkout = str(Path(__file__).resolve().parents[2])
    for page in sorted(folder.rglob("*.html")):
        text = page.read_text(encoding="utf-8")
        new = _for_readers(text.replace(checkout, "&lt;checkout&gt;"))
        if new != text:
            page.write_text(new, encoding="utf-8")
    return folder / "index.html"


#: A bare ``www.`` link of a docstring (pdoc makes it a relative link that leads nowhere).
_BARE_WWW = re.compile(r'href="www\.')


def _for_readers(text: str) -> str:
    """A docstring page as the report's readers see it: the papers' transcripts named by their study
    (``the vmotion2020 paper``), "the seed" said "the paper", bare ``www.`` links made ``https://`` links.

    Examples
    --------
    >>> _for_readers("the seed's test bed, seed 004_ea13268657e6b3b0.txt")
    "the paper's test bed, seed the vmotion2020 paper"
    """
    for s in studies.STUDIES.values():
        text = text.replace(s.seed, f"the {s.name} paper")
    text = re.sub(r"\b([Tt])he seed(&#39;s|'s)?\b", lambda m: f"{m.group(1)}he paper{m.group(2) or ''}", text)
    text = text.replace("browser&#39;s echo", "browser echoing").replace("browser's echo", "browser echoing")
    return _BARE_WWW.sub('href="https://www.', text)
