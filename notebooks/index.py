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
# # vcperf — open models of vCenter and vSphere performance
#
# Ask what five published VMware performance studies would say about *your* site: how long a clone takes
# over your branch link, what link a template deployment or a vMotion needs, what a stretched vCenter HA
# costs. Each notebook below regenerates a study's figures and tables with the paper's value beside the
# model's, and ends with a what-if panel: move a control and the model answers for your link, inventory or VM.
#
# | study | what the paper found (and the model reproduces) | notebooks |
# |---|---|---|
# | vCenter 6.5 High Availability (VCHA) | enabling VCHA barely changes a 64-client load and costs a few percent at 256 clients; failover brings vCenter back in minutes | [vcha_overhead](vcha_overhead.py), [vcha_failover](vcha_failover.py) |
# | vCenter 6.7 in branch offices (ROBO) | vCenter manages hosts well over slow, distant links; network latency, not bandwidth, sets operation latency; statistics traffic grows with powered-on VMs and the statistics level | [robo_networks](robo_networks.py), [robo_background_and_statistics](robo_background_and_statistics.py), [robo_operations](robo_operations.py) |
# | vSphere 6 Fault Tolerance (FT) | checkpointing costs little for CPU-bound work and much for latency-bound network work (latency up 57x in a pure round-trip test) | [ft_checkpointing](ft_checkpointing.py) |
# | Content Library deployment | a storage-array copy (VAAI) is fastest; a compressed template streamed through vCenter is about seven times slower | [contentlib_deploy](contentlib_deploy.py) |
# | vMotion in vSphere 7.0 U1 | the new page tracing and switch-over cut migration time and guest impact, up to monster VMs | [vmotion_precopy](vmotion_precopy.py) |
#
# **Your whole site**: all five studies on the links a site shares — a branch, a vMotion, a deployment, VCHA
# and FT on one link, each answer against its target, and the reverse questions (the smallest link, the largest
# round trip, the most hosts) — [site_planner](site_planner.py); from the command line `vcperf plan site.yaml`,
# whose file format (every field with its unit, range and default) is the [plan format](../docs/PLAN.md).
#
# **What-if planner**: the site planner and every panel above in one tabbed page, [app](app.py); as an app without
# code, `make app` (Voilà on http://127.0.0.1:8866/) or the second Binder badge of the README.
#
# **From Python**: every model is a documented function (units in the names: `rtt_s`, `bandwidth_bps`); the
# [API reference](../build/report/api/index.html) is generated from their docstrings by `make reproduce`.
#
# Running a notebook here writes nothing into `build/` (the report's figures and tables are the regeneration's,
# `make reproduce`); set `output_dir` in its parameters cell to a folder to have it write its files there.
#
# How far to trust an answer: each model was fitted to some of its paper's numbers and is judged on the others,
# below; the words the judgement uses are explained at the end of this notebook.

# %% tags=["parameters"]
interactive = True  # -: show widgets (regeneration runs with False)
output_dir = "../build"  # path: folder that receives figures/ and tables/

# %%
import vcperf.params; vcperf.params.check_notebook_parameters(globals(), "index")  # noqa: E702, I001 - checks the parameters above, however the notebook is run
from IPython.display import Markdown, display

from vcperf import fidelity, plotting, studies
from vcperf.report import tables

NOTEBOOK = "index"

# %% [markdown]
# ## References
#
# The five studies, as published (the citations are kept once, in `vcperf.studies`):

# %%
display(Markdown("\n".join(f"{i}. {s.citation()}" for i, s in enumerate(studies.STUDIES.values(), 1))))

# %% [markdown]
# ## How far each model can be trusted
#
# Per study: the error on numbers the model did not see (left out of the fit, "loo", or never fitted,
# "predicted") first, then how often the model's 90 % interval holds the paper's value, the bounds the paper
# states, the error on the fitted numbers (not evidence of skill), and how many parameters were fitted to how
# many numbers. "Not estimable" numbers are ones the rest of the paper cannot determine: honest gaps, not
# failures hidden as guesses.

# %%
ledger = fidelity.table()
summary = fidelity.summary(ledger)
if not interactive:  # a regeneration writes the tables; an interactive run writes nothing
    plotting.save_table(summary, output_dir, NOTEBOOK, "ledger_summary")
display(Markdown(fidelity.format_summary(summary)))

# %% [markdown]
# ## The largest held-out misses
#
# The loo and predicted rows furthest from the paper, each explained in its study's notebook.

# %%
held = ledger[ledger["kind"].isin(["loo", "predicted"])].dropna(subset=["rel_error"]).copy()
held["abs_error"] = held["rel_error"].abs()
worst = held.sort_values("abs_error", ascending=False).groupby("study").head(2)
worst = worst[["study", "kind", "locator", "quantity", "conditions", "paper_value", "model_value", "rel_error"]]
if not interactive:
    plotting.save_table(worst, output_dir, NOTEBOOK, "largest_held_out_misses")
worst.assign(paper_value=worst["paper_value"].map(tables.format_paper),  # as printed; the model at the same precision
             model_value=[tables.format_model(m, p) for m, p in zip(worst["model_value"], worst["paper_value"], strict=True)],
             rel_error=worst["rel_error"].map("{:+.1%}".format))

# %% [markdown]
# ## The words of the ledger
#
# The same words as the report's glossary and the README's "Fidelity" section:

# %%
display(Markdown(fidelity.format_glossary(level=3)))
