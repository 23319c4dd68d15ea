# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # vcperf what-if planner
#
# The first tab is the site planner: start from an example or load your own plan file, enter its link
# once (rate, round trip) or edit any field of the plan in the form under it, and see every workload
# that shares the link answer at once — vCenter operations and statistics at a branch, a vMotion, a
# template deployment, VCHA's replication, FT logging — with VMware's limits flagged. Ask the reverse
# questions (smallest link, largest RTT, most hosts) and download the edited plan and the answers
# (`vcperf plan site.yaml` prints the same answers for the downloaded plan). Behind it, every what-if panel of the five studies,
# one tab each. Move a control and the model
# answers for your link, inventory or VM; the readout under the controls states the numbers, the
# picture shows where they sit on the model's curve. The models are calibrated to the papers' own
# numbers: how far each one can be trusted is in the ledger (`vcperf fidelity`, and the landing
# notebook `index`). Run it as an app with `make app` (Voilà, no code shown).

# %% tags=["parameters"]
interactive = True  # -: show the planner (regeneration runs with False: it lists the panels)
output_dir = "../build"  # path: folder that receives figures/ and tables/ (unused: the app writes nothing)

# %%
import vcperf.params; vcperf.params.check_notebook_parameters(globals(), "app")  # noqa: E702, I001 - checks the parameters above, however the notebook is run
from vcperf import views

# Tab title -> the study's own panel constructor (each returns a VBox of controls, readout and image),
# called with its defaults: the starting point of each panel is the one its notebook's parameters give
# (vcperf.views.NOTEBOOK_PARAMETERS). The studies are the registry's (vcperf.studies), each study's panels
# its view module's PANELS.
PANELS = views.panels()

# %%
# Readouts wrap instead of running past the panel's edge (a Label does not wrap by default).
WRAP_READOUTS = ("<style>.widget-tab .widget-vbox > .widget-label, .widget-tab .widget-vbox > .widget-label-basic "
                 "{white-space: normal; height: auto; line-height: 1.35; max-width: 100%;}</style>")

if interactive:
    import ipywidgets as w
    from IPython.display import display

    from vcperf import widgets

    # Pictures sharp on HiDPI (2x) screens, shown at their own width beside the controls; the first tab (the
    # site planner) is built now, every other tab's panel when that tab is first opened.
    widgets.set_screen_scale(2)
    tabs = widgets.lazy_tabs({title: (lambda make=make: widgets.side_by_side(make())) for title, make in PANELS.items()})
    display(w.VBox([w.HTML(WRAP_READOUTS), tabs]))
else:  # headless (regeneration): no widgets (their state would differ from run to run); the study notebooks
    # save each panel's picture and table headlessly.
    print("what-if panels: " + ", ".join(f"{title} ({make.__module__}.{make.__name__})" for title, make in PANELS.items()))
