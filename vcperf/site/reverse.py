"""The reverse questions of a site plan: the smallest bandwidth of a link, the largest RTT, the most
hosts at a branch that meet every target, each naming the binding workload and flow.

Each is a bisection on the forward evaluation (:func:`vcperf.site.evaluate`, without intervals) for
"every target met, sustainably": no paced flow in a backlog and VCHA not in its asynchronous fallback (a
target "met" by a Passive that falls behind is no answer). Documented limits at the answer are reported
with it (:attr:`Reverse.flags`), never hidden. The verdict is monotone in the link's rate (more rate never
slows a flow: the max-min shares grow, and each study's answer falls with its rate), in its RTT and in the hosts. The
binding workload is the one that fails first just past the answer (the largest ratio of answer to
target there), with its most constrained flow.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from vcperf import _validate as v
from vcperf import network
from vcperf.site.evaluate import Evaluation, evaluate
from vcperf.site.plan import Plan, check_plan
from vcperf.units import fmt_bps

#: Bandwidths searched (bit/s), RTTs (s), hosts.
BANDWIDTH_RANGE_BPS = (1e3, 1e12)
RTT_RANGE_S = (0.0, 10.0)
HOSTS_RANGE = (1, 10000)
#: Smallest tolerances of the bisections (a relative bracket of 1e-9 of a rate, 1 ns of RTT): below
#: them the bracket would stall at float resolution and the loop never end.
MIN_REL_TOL = 1e-9
MIN_ABS_TOL_S = 1e-9
#: Iteration cap of every bisection here (each halves the bracket: 200 covers any float range).
MAX_BISECTIONS = 200


@dataclass(frozen=True)
class Reverse:
    """The answer to a reverse question.

    Attributes
    ----------
    question : str
        ``"smallest bandwidth"``, ``"largest RTT"`` or ``"most hosts"``.
    subject : str
        The link or branch asked about.
    value : float
        The answer (bit/s, s, hosts); ``inf``/``nan`` when no value in the searched range meets
        every target (the reason in ``note``).
    unit : str
    workload, quantity, flow : str
        The binding workload, its quantity and flow (the first to fail past the answer).
    evaluation : Evaluation
        The plan evaluated at the answer (where finite).
    note : str
        Why there is no answer (the binding mechanism), or what else to know.
    flags : tuple of vcperf.traffic.Flag
        The flags of the plan evaluated at the answer (a documented limit, a backlog, extrapolation beyond
        a test bed): the answer is only as good as they allow.
    alone : dict
        Workload -> its own answer to the question with only it on the link (bit/s, s or hosts; ``inf`` /
        ``nan`` when even that is not enough), given when the plan as a whole has no answer.
    """

    question: str
    subject: str
    value: float
    unit: str
    workload: str
    quantity: str
    flow: str
    evaluation: Evaluation | None
    note: str = ""
    flags: tuple = ()
    alone: dict | None = None


def _targets(plan: Plan) -> None:
    if not plan.targets:
        raise ValueError("plan.targets must set at least one target for a reverse question (e.g. "
                         "operation_latency_s: 5)")


def _met(e: Evaluation) -> bool:
    """Every target met, with no backlog and no asynchronous fallback."""
    return e.ok and not any(f.kind in ("backlog", "fallback") for f in e.flags)


def _binding(e: Evaluation):
    worst = max(e.failing, key=lambda a: a.value / a.target if math.isfinite(a.value) else math.inf, default=None)
    if worst is None:  # every target met, but a backlog or a fallback: the first such answer binds
        worst = next((a for a in e.answers if any(f.kind in ("backlog", "fallback") for f in a.flags)), None)
    if worst is None:
        return "", "", ""
    return worst.workload, worst.quantity, worst.flow


def _scaled(plan: Plan, link: str, bw: float) -> Plan:
    spec = plan.link(link)
    up = None if spec.up_bandwidth_bps is None else spec.up_bandwidth_bps * bw / spec.bandwidth_bps
    return plan.with_link(link, bandwidth_bps=bw, up_bandwidth_bps=up)


def smallest_bandwidth(plan: Plan, link: str, *, rel_tol: float = 1e-3) -> Reverse:
    """Smallest rate of ``link`` (toward the branch; the uplink scales with it) meeting every target.

    Parameters
    ----------
    plan : Plan
        A plan with targets.
    link : str
        One of its links.
    rel_tol : float
        Relative width of the final bracket, in [1e-9, 1) (:data:`MIN_REL_TOL`).

    Returns
    -------
    Reverse
        ``value`` in bit/s; ``inf`` when even 1 Tbit/s is not enough.

    Examples
    --------
    >>> from vcperf import site
    >>> p = site.from_dict({"links": [{"name": "wan", "bandwidth": "10 Mbit/s", "rtt": "80 ms"}],
    ...     "branches": [{"name": "shop", "link": "wan", "hosts": 20}], "targets": {"statistics_delay_s": 2}})
    >>> r = site.smallest_bandwidth(p, "wan")
    >>> r.workload, bool(r.evaluation.ok)
    ('shop', True)
    """
    check_plan(plan)
    _targets(plan)
    plan.link(link)
    tol = v.scalar("rel_tol", rel_tol, MIN_REL_TOL, 1.0, hi_open=True)
    return _smallest_bandwidth(plan, link, tol, alone=True)


def _smallest_bandwidth(plan: Plan, link: str, tol: float, alone: bool) -> Reverse:
    """:func:`smallest_bandwidth` on checked values; ``alone``: when none is enough, each workload's own answer."""
    lo, hi = BANDWIDTH_RANGE_BPS
    e_hi = evaluate(_scaled(plan, link, hi), intervals=False)
    if not _met(e_hi):
        w, q, f = _binding(e_hi)
        return Reverse("smallest bandwidth", link, math.inf, "bit/s", w, q, f, None,
                       f"even {fmt_bps(hi)} misses {w}'s {q}: no rate is enough; {_why(plan, link, e_hi, w)}",
                       _serious(e_hi), _alone(plan, link, tol) if alone else None)
    e_lo = evaluate(_scaled(plan, link, lo), intervals=False)
    if _met(e_lo):
        return Reverse("smallest bandwidth", link, lo, "bit/s", "", "", "", e_lo,
                       f"every target is met at the smallest rate searched ({fmt_bps(lo)})", e_lo.flags)
    for _ in range(MAX_BISECTIONS):
        if hi / lo <= 1.0 + tol:
            break
        mid = math.sqrt(lo * hi)
        e = evaluate(_scaled(plan, link, mid), intervals=False)
        if _met(e):
            hi, e_hi = mid, e
        else:
            lo, e_lo = mid, e
    w, q, f = _binding(e_lo)
    return Reverse("smallest bandwidth", link, hi, "bit/s", w, q, f, e_hi, flags=e_hi.flags)


def _serious(e: Evaluation) -> tuple:
    return tuple(f for f in e.flags if f.kind != "extrapolation")


def _why(plan: Plan, link: str, e: Evaluation, workload: str) -> str:
    """The mechanism no rate shortens on ``link``: a standing queue of a FIFO bottleneck (its buffer scales
    with the rate), one TCP connection's loss-limited rate (PFTK), the round trips and vCenter's own work."""
    spec = plan.link(link)
    queue = [f.message.split(": ", 1)[-1] for f in e.flags if f.kind == "queue" and f.message.startswith(workload)]
    if queue:
        return f"{queue[0]} at any rate"
    if spec.loss > 0:
        cap = float(network.tcp_throughput_bps(BANDWIDTH_RANGE_BPS[1], spec.rtt_s, spec.loss))
        return (f"one TCP connection over {spec.rtt_s * 1e3:g} ms and {spec.loss:.3%} loss carries at most "
                f"{cap / 1e6:.3g} Mbit/s whatever the link's rate (its loss-limited rate), and round trips and "
                "vCenter's own work take the same time on any link")
    return "round trips and vCenter's own work take the same time on any link: a shorter RTT or a looser target"


def _alone(plan: Plan, link: str, tol: float) -> dict:
    """Each workload on ``link`` (with a target it answers): its smallest bandwidth with only it in the plan
    (``inf``: not even alone)."""
    none = {"branches": (), "migrations": (), "deployments": (), "ft": ()}
    alone = {w.name: replace(plan, **{**none, kind: (w,)}, vcenter=replace(plan.vcenter, vcha=None))
             for kind in none for w in getattr(plan, kind) if w.link == link}
    if plan.vcenter.vcha is not None and plan.vcenter.vcha.link == link:
        alone["vCenter HA"] = replace(plan, **none)
    out = {}
    for name, p in alone.items():
        r = _smallest_bandwidth(p, link, tol, alone=False)
        if r.workload or not r.evaluation or any(a.ok is not None for a in r.evaluation.answers):
            out[name] = r.value
    return out


def largest_rtt(plan: Plan, link: str, *, abs_tol_s: float = 1e-4) -> Reverse:
    """Largest round-trip time of ``link`` meeting every target.

    Parameters
    ----------
    plan : Plan
        A plan with targets.
    link : str
        One of its links.
    abs_tol_s : float
        Width of the final bracket (s), >= 1e-9 (:data:`MIN_ABS_TOL_S`).

    Returns
    -------
    Reverse
        ``value`` in s; ``nan`` when even an RTT of 0 misses a target; 10 s (the searched range) when none binds.

    Examples
    --------
    >>> from vcperf import site
    >>> p = site.from_dict({"links": [{"name": "wan", "bandwidth": "10 Mbit/s", "rtt": "80 ms"}],
    ...     "branches": [{"name": "shop", "link": "wan", "hosts": 20}], "targets": {"operation_latency_s": 5}})
    >>> r = site.largest_rtt(p, "wan")
    >>> bool(0.08 < r.value < 10), r.quantity
    (True, 'operation_latency_s')
    """
    check_plan(plan)
    _targets(plan)
    plan.link(link)
    tol = v.scalar("abs_tol_s", abs_tol_s, MIN_ABS_TOL_S, math.inf, hi_open=True)
    lo, hi = RTT_RANGE_S
    e_lo = evaluate(plan.with_link(link, rtt_s=lo), intervals=False)
    if not _met(e_lo):
        w, q, f = _binding(e_lo)
        return Reverse("largest RTT", link, math.nan, "s", w, q, f, None,
                       f"even an RTT of 0 misses {w}'s {q}")
    e_hi = evaluate(plan.with_link(link, rtt_s=hi), intervals=False)
    if _met(e_hi):
        return Reverse("largest RTT", link, hi, "s", "", "", "", e_hi, f"every target is met at {hi:g} s", e_hi.flags)
    for _ in range(MAX_BISECTIONS):
        if hi - lo <= tol:
            break
        mid = 0.5 * (lo + hi)
        e = evaluate(plan.with_link(link, rtt_s=mid), intervals=False)
        if _met(e):
            lo, e_lo = mid, e
        else:
            hi, e_hi = mid, e
    w, q, f = _binding(e_hi)
    return Reverse("largest RTT", link, lo, "s", w, q, f, e_lo, flags=e_lo.flags)


def _hosts(plan: Plan, branch: str, n: int) -> Plan:
    return replace(plan, branches=tuple(replace(b, hosts=float(n)) if b.name == branch else b
                                        for b in plan.branches))


def most_hosts(plan: Plan, branch: str | None = None) -> Reverse:
    """Most hosts at ``branch`` (default: the first) meeting every target.

    Parameters
    ----------
    plan : Plan
        A plan with targets and at least one branch.
    branch : str, optional
        One of its branches.

    Returns
    -------
    Reverse
        ``value`` in hosts; 0 when even one host misses a target.

    Examples
    --------
    >>> from vcperf import site
    >>> p = site.from_dict({"links": [{"name": "wan", "bandwidth": "10 Mbit/s", "rtt": "80 ms"}],
    ...     "branches": [{"name": "shop", "link": "wan", "hosts": 20}], "targets": {"statistics_delay_s": 5}})
    >>> r = site.most_hosts(p)
    >>> bool(r.value >= 20), r.workload, r.quantity
    (True, 'shop', 'statistics_delay_s')
    """
    check_plan(plan)
    _targets(plan)
    v.optional(v.text, "branch", branch)
    names = [b.name for b in plan.branches]
    if not names:
        raise ValueError("plan.branches must hold a branch for the most-hosts question")
    name = names[0] if branch is None else branch
    if name not in names:
        raise ValueError(f"branch must be one of {names}; got {branch!r}")
    lo, hi = HOSTS_RANGE
    e_lo = evaluate(_hosts(plan, name, lo), intervals=False)
    if not _met(e_lo):
        w, q, f = _binding(e_lo)
        return Reverse("most hosts", name, 0.0, "hosts", w, q, f, None, f"even one host misses {w}'s {q}")
    e_hi = evaluate(_hosts(plan, name, hi), intervals=False)
    if _met(e_hi):
        return Reverse("most hosts", name, float(hi), "hosts", "", "", "", e_hi,
                       f"every target is met with {hi} hosts (the range searched)", e_hi.flags)
    for _ in range(MAX_BISECTIONS):
        if hi - lo <= 1:
            break
        mid = (lo + hi) // 2
        e = evaluate(_hosts(plan, name, mid), intervals=False)
        if _met(e):
            lo, e_lo = mid, e
        else:
            hi, e_hi = mid, e
    w, q, f = _binding(e_hi)
    return Reverse("most hosts", name, float(lo), "hosts", w, q, f, e_lo, flags=e_lo.flags)
