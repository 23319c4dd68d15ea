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

``build/report/glossary.html`` explains the ledger's words, ``plan.html`` (and ``plan.schema.json``) the site plan
format, and ``api/`` is the API reference generated from the docstrings by pdoc (:func:`write_api`, a whole default
regeneration builds it beside the notebooks); the nav links them.

Offline and deterministic: no script or style sheet from outside hosts (MathJax is not loaded;
the notebooks need no mathematics), no time stamps; two runs give byte-identical files.
"""

from vcperf.report.links import broken_links
from vcperf.report.pages import (
    OVERVIEW,
    STUDIES,
    STUDY_OF_PREFIX,
    caption,
    notebook_title,
    page_of,
    references,
    warm_up,
    whatif_parameters,
    write_index,
    write_scenario_index,
)
from vcperf.report.pages import (
    humanise as humanise,  # the tests read these two
)
from vcperf.report.reference import write_api
from vcperf.report.tables import (
    ERROR_COLUMNS,
    MISS_REL_ERROR,
    SIGNIFICANT_DIGITS,
    clean_conditions,
    format_frames,
    format_number,
)
from vcperf.report.tables import (
    round_table_floats as round_table_floats,
)

__all__ = [
    "ERROR_COLUMNS", "MISS_REL_ERROR", "OVERVIEW", "SIGNIFICANT_DIGITS", "STUDIES", "STUDY_OF_PREFIX",
    "broken_links", "caption", "clean_conditions", "format_frames", "format_number", "notebook_title", "page_of",
    "references", "warm_up", "whatif_parameters", "write_api", "write_index", "write_scenario_index",
]
