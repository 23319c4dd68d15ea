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
# vcperf rebuilds five published VMware performance studies from **mechanistic** models — TCP over a
# link with bandwidth, RTT and loss; closed queueing networks solved by exact MVA; replication and
# memory pre-copy — calibrated to the papers' own numbers, which live in `data/` with their
# provenance. Each notebook below regenerates a study's figures and tables with the paper's value
# beside the model's, and ends with a what-if panel: move a control and the model answers for *your*
# link, inventory or VM.
#
# Every model number is judged in one **ledger** (`vcperf fidelity`): `fitted` rows were used to
# calibrate, `loo` rows are the same numbers predicted by a refit without them (and without everything
# measured in the same run), `predicted` rows were never fitted, `derived` rows restate other numbers
# and `bound` rows check a stated inequality. Trust a what-if answer as far as the loo and predicted
# columns of its study go.
#
# | study | what the paper found | notebooks |
# |---|---|---|
# | vCenter 6.5 High Availability | enabling VCHA barely changes a 64-client load and costs a few percent at 256 clients; failover brings vpxd back in minutes | [vcha_overhead](vcha_overhead.py), [vcha_failover](vcha_failover.py) |
# | vCenter 6.7 in branch offices (ROBO) | vCenter manages hosts well over slow, distant links; network latency, not bandwidth, sets operation latency; statistics traffic grows with powered-on VMs and the statistics level | [robo_networks](robo_networks.py), [robo_background_and_statistics](robo_background_and_statistics.py), [robo_operations](robo_operations.py) |
# | vSphere 6 Fault Tolerance | checkpointing costs little for CPU-bound work and much for latency-bound network work (latency up 57x in a pure round-trip test) | [ft_checkpointing](ft_checkpointing.py) |
# | Content Library deployment | a VAAI array copy is fastest; a compressed template streamed through vCenter is about seven times slower | [contentlib_deploy](contentlib_deploy.py) |
# | vMotion in vSphere 7.0 U1 | the new page tracing and switch-over cut migration time and guest impact, up to monster VMs | [vmotion_precopy](vmotion_precopy.py) |
#
# **Site planner**: all five studies on the links a site shares — a branch, a vMotion, a deployment, VCHA
# and FT on one link, each answer against its target, and the reverse questions — [site_planner](site_planner.py).
#
# **What-if planner**: the site planner and every panel above in one tabbed page, [app](app.py); as an app without code,
# `make app` (Voilà on http://127.0.0.1:8866/) or the second Binder badge of the README.

# %% tags=["parameters"]
interactive = True  # -: show widgets (regeneration runs with False)
output_dir = "../build"  # path: folder that receives figures/ and tables/

# %%
import vcperf.params; vcperf.params.check_notebook_parameters(globals(), "index")  # noqa: E702, I001 - checks the parameters above, however the notebook is run
from IPython.display import Markdown, display

from vcperf import fidelity, plotting, studies

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
# The summary of the ledger, per study: leave-one-out (loo) and predicted errors first, then the share
# of held-out paper values inside the model's 90 % interval, the stated bounds, the fitted errors (not
# evidence of skill), and how many parameters were fitted to how many numbers. "Not estimable" loo rows
# are numbers the rest of the paper cannot determine: honest gaps, not failures hidden as guesses.

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
worst.assign(paper_value=worst["paper_value"].map("{:.4g}".format), model_value=worst["model_value"].map("{:.4g}".format),
             rel_error=worst["rel_error"].map("{:+.1%}".format))
