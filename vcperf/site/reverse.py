"""The reverse questions of a site plan: the smallest bandwidth of a link, the largest RTT, the most
hosts at a branch that meet every target, each naming the binding workload and flow.

Each is a bisection on the forward evaluation (:func:`vcperf.site.evaluate`, without intervals):
the verdict "every target met" is monotone in the link's rate (more rate never slows a flow: the
max-min shares grow, and each study's answer falls with its rate), in its RTT and in the hosts. The
binding workload is the one that fails first just past the answer (the largest ratio of answer to
target there), with its most constrained flow.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from vcperf import _validate as v
from vcperf.site.evaluate import Evaluation, evaluate
from vcperf.site.plan import Plan, check_plan

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


def _targets(plan: Plan) -> None:
    if not plan.targets:
        raise ValueError("plan.targets must set at least one target for a reverse question (e.g. "
                         "operation_latency_s: 5)")


def _binding(e: Evaluation):
    worst = max(e.failing, key=lambda a: a.value / a.target if math.isfinite(a.value) else math.inf, default=None)
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
    lo, hi = BANDWIDTH_RANGE_BPS
    e_hi = evaluate(_scaled(plan, link, hi), intervals=False)
    if not e_hi.ok:
        w, q, f = _binding(e_hi)
        return Reverse("smallest bandwidth", link, math.inf, "bit/s", w, q, f, None,
                       f"even {hi:g} bit/s misses {w}'s {q}: no rate is enough")
    e_lo = evaluate(_scaled(plan, link, lo), intervals=False)
    if e_lo.ok:
        return Reverse("smallest bandwidth", link, lo, "bit/s", "", "", "", e_lo,
                       f"every target is met at the smallest rate searched ({lo:g} bit/s)")
    for _ in range(MAX_BISECTIONS):
        if hi / lo <= 1.0 + tol:
            break
        mid = math.sqrt(lo * hi)
        e = evaluate(_scaled(plan, link, mid), intervals=False)
        if e.ok:
            hi, e_hi = mid, e
        else:
            lo, e_lo = mid, e
    w, q, f = _binding(e_lo)
    return Reverse("smallest bandwidth", link, hi, "bit/s", w, q, f, e_hi)


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
    if not e_lo.ok:
        w, q, f = _binding(e_lo)
        return Reverse("largest RTT", link, math.nan, "s", w, q, f, None,
                       f"even an RTT of 0 misses {w}'s {q}")
    e_hi = evaluate(plan.with_link(link, rtt_s=hi), intervals=False)
    if e_hi.ok:
        return Reverse("largest RTT", link, hi, "s", "", "", "", e_hi, f"every target is met at {hi:g} s")
    for _ in range(MAX_BISECTIONS):
        if hi - lo <= tol:
            break
        mid = 0.5 * (lo + hi)
        e = evaluate(plan.with_link(link, rtt_s=mid), intervals=False)
        if e.ok:
            lo, e_lo = mid, e
        else:
            hi, e_hi = mid, e
    w, q, f = _binding(e_hi)
    return Reverse("largest RTT", link, lo, "s", w, q, f, e_lo)


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
    if not e_lo.ok:
        w, q, f = _binding(e_lo)
        return Reverse("most hosts", name, 0.0, "hosts", w, q, f, None, f"even one host misses {w}'s {q}")
    e_hi = evaluate(_hosts(plan, name, hi), intervals=False)
    if e_hi.ok:
        return Reverse("most hosts", name, float(hi), "hosts", "", "", "", e_hi,
                       f"every target is met with {hi} hosts (the range searched)")
    for _ in range(MAX_BISECTIONS):
        if hi - lo <= 1:
            break
        mid = (lo + hi) // 2
        e = evaluate(_hosts(plan, name, mid), intervals=False)
        if e.ok:
            lo, e_lo = mid, e
        else:
            hi, e_hi = mid, e
    w, q, f = _binding(e_hi)
    return Reverse("most hosts", name, float(lo), "hosts", w, q, f, e_lo)
