"""One evaluation of a site plan: every flow placed on its link, the links shared, every workload's
answer with its 90 % interval, its target verdict, and VMware's limits and extrapolations flagged.

Steps: each workload's flows (elastic, paced or closed-loop) and their demands on its link alone
(:mod:`vcperf.site.workloads`); per link and direction, the max-min fair shares, a paced flow's backlog
and the standing queue of a FIFO bottleneck that a bulk flow keeps full (:func:`vcperf.traffic.direction_load`,
the one traffic model); each workload's answers on the rates available to it (its flows' available rates,
the link's loss, and its RTT plus that standing queue for the round trips of latency-bound workloads),
with its study's flags at those rates, unchanged (:class:`vcperf.traffic.Flag`), and the plan's own
(a paced flow's backlog). A verdict met beyond a documented limit, in a backlog or in VCHA's
asynchronous fallback is not a plain "met" (:attr:`Answer.status`). The interval is the study's
:meth:`vcperf.protocol.Calibration.interval` (the delta method, as every band in vcperf), its gradient
from one pair of evaluations per parameter at the shared rates (Bates & Watts 1988): the perturbed
parameter sets are built once per calibration, a parameter the workload never reads has a derivative
of exactly 0 and is not evaluated, and ROBO's branch evaluates its perturbations in one stacked call.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from vcperf import _validate as v
from vcperf import protocol, traffic
from vcperf.site.plan import TARGET_QUANTITIES, Plan, check_plan
from vcperf.site.workloads import as_link, calibrated, one_evaluation, workloads

__all__ = ["INTERVAL", "Answer", "Evaluation", "evaluate", "interval"]

#: Central probability of the reported intervals.
INTERVAL = 0.9


@dataclass(frozen=True)
class Answer:
    """One workload's answer to one quantity.

    Attributes
    ----------
    workload, kind, study, quantity : str
        The workload (its name in the plan), its kind (branch, migration, deployment, vcha, ft), its
        study's data folder and the quantity (``TARGET_QUANTITIES``; SI).
    value, low, high : float
        The model's answer on the shared link and its 90 % interval (NaN: not estimable / skipped).
    alone : float
        The answer with the workload alone on its link.
    target : float
        The plan's upper bound for the quantity (NaN: none).
    ok : bool or None
        ``value <= target`` (None without a target).
    link, flow : str
        The link it crosses and its flow with the smallest available rate (the binding flow).
    flags : tuple of vcperf.traffic.Flag
        The workload's flags (its study's, unchanged, and the plan's on its flows).
    """

    workload: str
    kind: str
    study: str
    quantity: str
    value: float
    low: float
    high: float
    alone: float
    target: float
    ok: bool | None
    link: str
    flow: str
    flags: tuple = ()

    @property
    def serious(self) -> tuple:
        """Its flags that make a met target not a plain pass: beyond a documented limit, a backlog, a fallback."""
        return tuple(f for f in self.flags if f.kind in SERIOUS)

    @property
    def status(self) -> str:
        """``"no target"``, ``"missed"``, ``"met beyond a limit"`` (met, with a :attr:`serious` flag) or ``"met"``."""
        if self.ok is None:
            return "no target"
        if not self.ok:
            return "missed"
        return "met beyond a limit" if self.serious else "met"


#: Flag kinds that a met target is reported beside (never a plain "met").
SERIOUS = ("limit", "backlog", "fallback")


@dataclass(frozen=True)
class Evaluation:
    """A plan evaluated: answers, link loads and flags (:class:`vcperf.traffic.Flag`, each message led by its
    workload's name)."""

    plan: Plan
    answers: tuple
    loads: tuple
    flags: tuple

    @property
    def ok(self) -> bool:
        """Every answer with a target meets it."""
        return all(a.ok is not False for a in self.answers)

    @property
    def has_targets(self) -> bool:
        """The plan sets at least one target a workload answers."""
        return any(a.ok is not None for a in self.answers)

    @property
    def verdict(self) -> str:
        """One line: ``"no target set"``, ``"N of M targets missed"``, ``"every target met, beyond a documented
        limit"`` (or in a backlog / fallback) or ``"every target met"``.

        Examples
        --------
        >>> from vcperf import site
        >>> p = site.from_dict({"links": [{"name": "wan", "bandwidth": "10 Mbit/s", "rtt": "80 ms"}],
        ...     "branches": [{"name": "shop", "link": "wan", "hosts": 20}]})
        >>> site.evaluate(p, intervals=False).verdict
        'no target set: add targets (e.g. operation_latency_s: 5) to get a verdict'
        """
        with_t = [a for a in self.answers if a.ok is not None]
        if not with_t:
            return "no target set: add targets (e.g. operation_latency_s: 5) to get a verdict"
        miss = [a for a in with_t if not a.ok]
        if miss:
            return f"{len(miss)} of {len(with_t)} targets missed"
        kinds = {f.kind for a in with_t for f in a.serious}
        if not kinds:
            return "every target met"
        why = [w for k, w in (("limit", "beyond a VMware documented limit"), ("backlog", "with a growing backlog"),
                              ("fallback", "with VCHA in asynchronous fallback (RPO > 0)")) if k in kinds]
        return "every target met, " + " and ".join(why)

    @property
    def failing(self) -> tuple:
        """The answers that miss their targets."""
        return tuple(a for a in self.answers if a.ok is False)

    @property
    def bottleneck(self):
        """The direction of a link with the highest steady load (a :class:`~vcperf.traffic.DirectionLoad`)."""
        return max(self.loads, key=lambda d: (d.steady_load, d.saturated), default=None)

    def answer(self, workload: str, quantity: str) -> Answer:
        """The answer of ``workload`` to ``quantity``."""
        for a in self.answers:
            if a.workload == workload and a.quantity == quantity:
                return a
        raise ValueError(f"workload, quantity must be one of "
                         f"{[(a.workload, a.quantity) for a in self.answers]}; got {(workload, quantity)!r}")


def _name(w) -> str:
    return "vCenter HA" if w.kind == "vcha" else w.spec.name


def interval(study: str, fn, params=None, *, reads=None, many=None, data_table: str | None = None):
    """``fn(params)`` (a vector of a study's outputs) with its 90 % interval by the delta method:
    :meth:`vcperf.protocol.Calibration.interval` of the study's calibration.

    Parameters
    ----------
    study : str
        The study's data folder (e.g. ``"robo2019"``).
    fn : callable
        ``fn(params) -> array``, the outputs at the study's parameters.
    params : optional
        Default: the calibration.
    reads : collection of str, optional
        The parameters ``fn`` reads (names of :func:`vcperf.protocol.param_names`); the others have a
        derivative of exactly 0 and are not evaluated. Default: all.
    many : callable, optional
        ``many(list of params) -> list of outputs``: ``fn`` of the parameters and of every perturbed
        set in one batched call (the same values as ``fn`` one at a time).
    data_table : str, optional
        The data table whose misfit the band carries (default: the study's pooled misfit).

    Returns
    -------
    vcperf.protocol.Interval

    References
    ----------
    .. [1] D. M. Bates, D. G. Watts, *Nonlinear Regression Analysis and Its Applications*, Wiley 1988
       (the linearised interval).

    Examples
    --------
    >>> from vcperf import contentlib
    >>> r = interval("contentlib2015", lambda p: contentlib.deploy_time_s("streaming", 39e9, params=p))
    >>> bool(r.low < r.value < r.high)
    True
    """
    cal = protocol.calibration(study)
    return cal.interval(fn, params=params, reads=reads, many=many, data_table=data_table, interval=INTERVAL)


def evaluate(plan: Plan, *, intervals: bool = True) -> Evaluation:
    """Evaluate a site plan: each workload's answers on its shared link, with intervals and flags.

    Parameters
    ----------
    plan : Plan
        The site (:func:`vcperf.site.from_dict`, :func:`vcperf.site.load`).
    intervals : bool
        Compute the 90 % intervals (one pair of model calls per calibrated parameter the workload
        reads); without, ``low`` and ``high`` are NaN (what the reverse questions bisect on).

    Returns
    -------
    Evaluation

    Examples
    --------
    >>> from vcperf import site
    >>> p = site.from_dict({"links": [{"name": "wan", "bandwidth": "10 Mbit/s", "rtt": "80 ms"}],
    ...     "branches": [{"name": "shop", "link": "wan", "hosts": 20}],
    ...     "deployments": [{"name": "tpl", "link": "wan", "size": "4 GB"}]})
    >>> e = site.evaluate(p, intervals=False)
    >>> a = e.answer("shop", "operation_latency_s")
    >>> bool(a.value >= a.alone)  # the deployment shares the branch link
    True
    """
    check_plan(plan)
    intervals = v.boolean("intervals", intervals)
    with one_evaluation():
        return _evaluate(plan, intervals)


def _evaluate(plan: Plan, intervals: bool) -> Evaluation:
    """:func:`evaluate` on a checked plan."""
    work = workloads(plan)
    flows, owner = [], {}
    for w, lk in work:
        p = calibrated(w.study)
        for name, direction, demand, kind in w.flows(plan.link(lk), p):
            f = traffic.Flow(name, _name(w), lk, direction, demand, kind)
            flows.append(f)
            owner[name] = w
    loads, avail, queued = [], {}, {}
    for spec in plan.links:
        lk = as_link(spec)
        for direction, cap in (("down", lk.down_bps), ("up", lk.up_bps)):
            on = [f for f in flows if f.link == spec.name and f.direction == direction]
            d = traffic.direction_load(spec.name, direction, cap, on, rtt_s=spec.rtt_s, queue=spec.queue,
                                       buffer_bytes=spec.buffer_bytes)
            loads.append(d)
            queued[spec.name] = queued.get(spec.name, 0.0) + d.queue_delay_s  # a round trip crosses both
            for sh in d.flows:
                avail[sh.flow.name] = sh
    targets = dict(plan.targets)
    answers, flags = [], []
    for w, lk in work:
        spec, p = plan.link(lk), calibrated(w.study)
        mine = [avail[f.name] for f in flows if owner[f.name] is w]
        full = as_link(spec)
        rates = {}
        for sh in mine:  # each direction at the workload's most constrained flow; the link's rate if none
            rates[sh.flow.direction] = min(rates.get(sh.flow.direction, math.inf), sh.available_bps)
        shared = as_link(spec, rates.get("down", full.down_bps), rates.get("up", full.up_bps))
        if w.latency_bound and queued[lk] > 0:  # its round trips wait in the standing queue of the link
            shared = replace(shared, rtt_s=min(shared.rtt_s + queued[lk], 10.0))
        alone = w.answers(full, p)
        if intervals:
            many = getattr(w, "answers_many", None)
            cal = protocol.calibration(w.study)
            val, g = cal.gradient(lambda q, w=w, shared=shared: w.answers(shared, q), params=p,
                                  reads=getattr(w, "reads", None),
                                  many=None if many is None else lambda qs, many=many, shared=shared: many(shared, qs))
            lo, hi = np.full_like(val, math.nan), np.full_like(val, math.nan)
            for i, q in enumerate(w.quantities):  # each with the misfit of the table that measured it
                iv = cal.band(val[i], g[i], data_table=getattr(w, "tables", {}).get(q), interval=INTERVAL)
                lo[i], hi[i] = iv.low, iv.high
                if TARGET_QUANTITIES[q][0] == "fraction" and q != "ft_overhead":  # a share stays a share
                    lo[i], hi[i] = np.clip(lo[i], 0.0, 1.0), np.clip(hi[i], 0.0, 1.0)
        else:
            val = w.answers(shared, p)
            lo = hi = np.full_like(val, math.nan)
        mine_flags = list(w.flags(spec, shared))
        for sh in mine:
            if sh.backlog_bps > 0:
                mine_flags.append(traffic.Flag("backlog", (
                    f"backlog: flow {sh.flow.name} needs {sh.flow.demand_bps / 1e6:.4g} Mbit/s of link {lk} "
                    f"{sh.flow.direction} and gets {sh.allocated_bps / 1e6:.4g}: its queue grows by "
                    f"{sh.backlog_bps * 3600 / 8e6:.4g} MB every hour"), "plan"))
        if queued[lk] > 0 and w.latency_bound:
            mine_flags.append(traffic.Flag("queue", (
                f"queue: a bulk flow keeps link {lk}'s {spec.queue.upper()} queue full: every round trip waits "
                f"{queued[lk] * 1e3:.4g} ms more (buffer "
                f"{'one bandwidth-delay product' if spec.buffer_bytes is None else f'{spec.buffer_bytes:g} B'}; "
                "queue: fair removes it)"), "plan"))
        if np.isnan(val).any():
            mine_flags.append(traffic.Flag("limit", f"its share of link {lk} is outside its study's model domain "
                                           "(too slow): no answer, counted as missing its targets", "plan"))
        mine_flags = tuple(mine_flags)
        for i, q in enumerate(w.quantities):
            d = getattr(w, "directions", {}).get(q)
            cand = [sh for sh in mine if d is None or sh.flow.direction == d] or mine
            binding = min(cand, key=lambda sh: sh.available_bps).flow.name if cand else ""
            t = targets.get(q, math.nan)
            ok = None if math.isnan(t) else bool(val[i] <= t)
            answers.append(Answer(_name(w), w.kind, w.study, q, float(val[i]), float(lo[i]), float(hi[i]),
                                  float(alone[i]), float(t), ok, lk, binding, mine_flags))
        flags += [traffic.Flag(f.kind, f"{_name(w)}: {f.message}", f.source) for f in mine_flags]
    for d in loads:
        if d.steady_load > 1.0:
            flags.append(traffic.Flag("backlog", f"overload: link {d.link} {d.direction} offered "
                                      f"{d.steady_load:.0%} of its rate by steady flows", "plan"))
    return Evaluation(plan, tuple(answers), tuple(loads), tuple(flags))
