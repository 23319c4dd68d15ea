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
# # Site planner — every study's answer on the links a site shares
#
# A site plan (`examples/*.yaml`) describes links (rate each way, round trip, loss), branch offices
# (hosts, VMs, statistics level), the vCenter appliance with VCHA across a replication link, FT VMs
# with their logging link, migrations and template deployments over links, and the targets to meet.
# `vcperf.site.evaluate` places every flow on its link, shares each direction of each link among its
# flows by max-min fair processor sharing (a steady flow keeps its offered load when it can; bulk
# transfers split the rest), and answers each workload with its own study's calibrated model: the
# ROBO branch link (operation latency, statistics delay), vMotion (migration time, downtime), the
# Content Library (deployment time), VCHA (throughput lost, latency) and FT (run-time overhead, output
# delay), each with its 90 % interval. VMware's documented limits are checked and inputs beyond the
# studies' test beds flagged. The reverse questions bisect the same evaluation. The parameters pick an
# example plan and override its main link.

# %% tags=["parameters"]
interactive = True  # -: show the what-if panel (regeneration runs with False)
output_dir = "../build"  # path: folder that receives figures/ and tables/
plan_name = "branch_20_hosts_10mbit"  # -, one of ["branch_20_hosts_10mbit", "metro_vmotion", "small_branch_dsl", "two_datacentres_vcha"]: the example plan
link_bandwidth_bps = 10000000.0  # bit/s, range [1e5, 1e11]: rate of the plan's first link (its main link) toward the branch (the uplink scales with it)
link_rtt_s = 0.08  # s, range [0, 0.5]: round-trip time of that link

# %%
import vcperf.params; vcperf.params.check_notebook_parameters(globals(), "site_planner")  # noqa: E702, I001 - checks the parameters above, however the notebook is run
# %matplotlib inline
import math
from dataclasses import replace

import matplotlib.pyplot as plt
import pandas as pd
from IPython.display import Markdown, display

from vcperf import plotting, site
from vcperf.views import format as fmt
from vcperf.views import planner
from vcperf.views import site as site_views

NOTEBOOK = "site_planner"
plotting.use_style()

plan = site_views.example(plan_name)
link = plan.links[0].name  # each example's main link comes first (wan, metro, dsl, dci)
spec = plan.link(link)
up = None if spec.up_bandwidth_bps is None else spec.up_bandwidth_bps * link_bandwidth_bps / spec.bandwidth_bps
plan = plan.with_link(link, bandwidth_bps=link_bandwidth_bps, up_bandwidth_bps=up, rtt_s=link_rtt_s)
evaluation = site.evaluate(plan)
display(Markdown(f"**{plan.name}** — link `{link}` at {fmt.fmt_bps(link_bandwidth_bps)}, RTT "
                 f"{fmt.fmt_duration(link_rtt_s)}: "
                 + evaluation.verdict + "."))

# %% [markdown]
# ## Verdicts and answers
#
# Each workload's answer on its shared link with its 90 % interval (the delta method on its study's
# calibration), its answer alone on the link, its target, and the flow that binds it (its flow with
# the smallest rate available). A target met while its study flags a VMware documented limit, a paced
# flow's growing backlog or VCHA's asynchronous fallback reads "meets, beyond a limit", never a plain
# "meets": each study's flag reaches the plan unchanged (`vcperf.traffic.Flag`).

# %%
answers = pd.DataFrame([{
    "workload": a.workload, "study": a.study, "quantity": a.quantity,
    "answer (90 % interval)": site_views.answer_text(a),
    "alone on the link": site_views.formatter(a.quantity)(a.alone),
    "target": "–" if math.isnan(a.target) else site_views.formatter(a.quantity)(a.target),
    "verdict": site_views.verdict(a), "binding flow": a.flow} for a in evaluation.answers])
plotting.save_table(answers, output_dir, NOTEBOOK, "answers")
display(answers)
judged = [a for a in evaluation.answers if a.ok is not None and math.isfinite(a.value) and a.alone > 0]
slowest = max(judged, key=lambda a: a.value / a.alone)
display(Markdown(f"Of the answers with a target, sharing costs most for **{slowest.workload}**: its "
                 f"{site_views.LABELS[slowest.quantity]} is "
                 f"{fmt.fmt_num(slowest.value / slowest.alone)} times its answer alone on `{slowest.link}` "
                 f"({site_views.formatter(slowest.quantity)(slowest.value)} against "
                 f"{site_views.formatter(slowest.quantity)(slowest.alone)})."))
for f in evaluation.flags:
    print(f"{f.kind}:", f.message)

# %% [markdown]
# ## Per-link utilisation, stacked by flow
#
# Each bar is one direction of one link; each segment a flow's max-min fair rate over the line rate
# (a bulk transfer's while it runs). The table lists each flow's kind in the one traffic model
# (`vcperf/traffic.py`: *elastic* bytes to move, *paced* rate it needs, *closed-loop* requests that wait
# for their answers), what it asks, gets and could get, a paced flow's backlog, and the standing queue a
# bulk flow keeps in the link's FIFO buffer, which every round trip of the branch's operations, VCHA's
# commits and FT's acknowledgements waits in (`queue: fair` in the plan removes it).

# %%
fig, axes = plt.subplots(1, 2, figsize=(13, 0.9 + 0.55 * max(len(evaluation.loads), len(evaluation.answers))))
site_views.utilisation_figure(evaluation, axes[0])
site_views.answers_figure(evaluation, axes[1])
plotting.finish(fig)
plotting.save_figure(fig, output_dir, NOTEBOOK, "links_and_answers")
plt.show()
flows = pd.DataFrame([{
    "link": d.link, "direction": d.direction, "line rate": fmt.fmt_bps(d.capacity_bps), "flow": s.flow.name,
    "asks": "all it can get" if math.isinf(s.flow.demand_bps) else fmt.fmt_bps(s.flow.demand_bps),
    "kind": s.flow.kind, "gets": fmt.fmt_bps(s.allocated_bps), "available to it": fmt.fmt_bps(s.available_bps),
    "share": fmt.fmt_percent(s.share), "backlog": fmt.fmt_bps(s.backlog_bps) if s.backlog_bps else "–",
    "standing queue": fmt.fmt_duration(d.queue_delay_s) if d.queue_delay_s else "–"}
    for d in evaluation.loads for s in d.flows])
plotting.save_table(flows, output_dir, NOTEBOOK, "flows")
display(flows)

# %% [markdown]
# ## The reverse questions
#
# For the plan's targets: the smallest rate of the link, its largest round trip, and the most hosts at
# the first branch that meet all of them, each naming the workload and flow that binds first.

# %%
reverse = [site.smallest_bandwidth(plan, link), site.largest_rtt(plan, link)]
if plan.branches:
    reverse.append(site.most_hosts(plan))
rev = pd.DataFrame([{"question": r.question, "of": r.subject, "answer": site_views.reverse_answer(r),
                     "binding workload": r.workload, "quantity": r.quantity, "flow": r.flow, "note": r.note,
                     "flags at the answer": "; ".join(f.message for f in r.flags if f.kind in site.SERIOUS) or "–",
                     "each workload alone": "; ".join(f"{w}: {site_views.reverse_answer(replace(r, value=x))}"
                                                      for w, x in (r.alone or {}).items()) or "–"}
                    for r in reverse])
plotting.save_table(rev, output_dir, NOTEBOOK, "reverse")
display(rev)
bw = reverse[0]
if math.isinf(bw.value):
    display(Markdown(f"No rate of `{link}` meets every target: {bw.workload}'s "
                     f"{site_views.LABELS[bw.quantity]} misses at any rate ({bw.note})."))
else:
    display(Markdown(f"The link `{link}` needs at least **{site_views.reverse_answer(bw)}**"
                     + (f", bound by {bw.workload}'s {site_views.LABELS[bw.quantity]} ({bw.flow})." if bw.workload
                        else f": {bw.note}.")))

# %% [markdown]
# ## What if — enter the link once
#
# Pick a plan (or load your own file) and one of its links, move its rate and round trip, or edit any field
# of the plan in its form: every workload's answer on that link and the links' shares change together
# (`vcperf.views.site.site_update`); ask the reverse questions and download the edited plan and the answers
# (`vcperf.views.planner.site_planner`).

# %%
if interactive:
    display(planner.site_planner(plan_name))
else:
    html, png = site_views.site_update(plan, link, link_bandwidth_bps, link_rtt_s)
    plotting.save_png(png, output_dir, NOTEBOOK, "whatif")
    print("what-if panel: vcperf.views.planner.site_planner (headless: its picture saved as whatif.png)")
