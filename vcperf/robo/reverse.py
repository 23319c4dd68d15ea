"""Reverse questions for a branch (``001_36d9adf7ffa34fcf.txt``): the smallest link, the largest RTT and
the most hosts that meet a set of targets (operation latency, statistics delay, deployment time), each
answer naming the target and the flow that bind it.

Every quantity of :func:`vcperf.robo.plan` is monotone in the variable searched (more rate never slows
a flow; more RTT or more hosts never speed one up), so the values that meet one target form an interval
and the answer for a set of targets is the tightest of the per-target answers. Each is found by a
vectorised k-section search on the forward model itself, so the answer agrees with :func:`plan` at
the answer (and misses just beyond it).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from vcperf import _validate as v
from vcperf import network
from vcperf.robo import branch
from vcperf.robo.params import Params
from vcperf.robo.planner import QUANTITIES, branch_link, checked_plan, quantity_s
from vcperf.robo.study import calibrated_params, default_testbed

#: Largest RTT searched by :func:`largest_rtt_s` (s).
RTT_SEARCH_MAX_S = 10.0
#: Most hosts searched by :func:`most_hosts`.
HOSTS_SEARCH_MAX = 100_000


@dataclass(frozen=True)
class BranchLimit:
    """The answer to a reverse question.

    Attributes
    ----------
    value : float
        The answer: bit/s (:func:`smallest_link_bps`; ``inf`` when no rate meets the targets), seconds
        (:func:`largest_rtt_s`; ``-inf`` when even RTT 0 misses) or hosts (:func:`most_hosts`; 0 when one
        host already misses).
    binding : str
        The target (a key of :data:`vcperf.robo.planner.QUANTITIES`) whose own limit is the answer.
    binding_flow : str
        The flow that binds: the branch's dominant flow when, just beyond the answer, the link is
        overloaded; otherwise the binding target's own flow (operations, statistics or transfers).
    per_target : dict
        Each target -> its own limit.
    """

    value: float
    binding: str
    binding_flow: str
    per_target: dict


def _targets(targets) -> dict:
    v.mapping("targets", targets, f"a non-empty dict of quantity ({', '.join(QUANTITIES)}) -> target (s)")
    out = {}
    for q, t in targets.items():
        v.choice("targets", q, tuple(QUANTITIES))
        out[q] = v.scalar(f"targets[{q!r}]", t, 0.0, math.inf, lo_open=True, hi_open=True)
    return out


def _largest_meeting(ok, lo: float, hi: float, *, log: bool, points: int = 48, rel_tol: float = 1e-5) -> float:
    """Largest x in [lo, hi] with ``ok(x)`` (``ok`` vectorised, True then False as x grows); ``lo`` when
    only ``lo`` meets, ``hi`` when ``hi`` does, ``nan`` when ``lo`` misses."""
    f = (np.exp if log else (lambda x: x))
    a, b = (math.log(lo), math.log(hi)) if log else (lo, hi)
    ends = ok(f(np.array([a, b])))
    if not ends[0]:
        return math.nan
    if ends[1]:
        return float(f(b))
    for _ in range(branch.MAX_BISECTIONS):  # invariant: a meets, b misses
        if (b - a) <= rel_tol * (1.0 if log else max(abs(b), 1e-9)):
            break
        grid = np.linspace(a, b, points)[1:-1]
        good = ok(f(grid))
        last = int(np.nonzero(good)[0][-1]) if good.any() else -1
        a = grid[last] if last >= 0 else a
        b = grid[last + 1] if last + 1 < len(grid) else b
    return float(f(a))


def _largest_whole(meets, h: int, most: int) -> int:
    """Largest whole ``n`` in [1, ``most``] with ``meets(n)`` near the estimate ``h`` (0 when 1 misses):
    a galloping search from ``h`` then an integer bisection, O(log) calls however far ``h`` is off (a
    step of one host at a time from a poor estimate could take 10**5 plans)."""
    h = min(max(h, 1), most)
    if meets(h):
        a, step = h, 1  # a meets; find b that misses
        while a + step <= most and meets(a + step):
            a, step = a + step, 2 * step
        b = min(a + step, most + 1)
    else:
        b, step = h, 1  # b misses; find a that meets
        while b - step >= 1 and not meets(b - step):
            b, step = b - step, 2 * step
        a = max(b - step, 0)
    while b - a > 1:  # invariant: a meets (or is 0), b misses (or is most + 1)
        mid = (a + b) // 2
        a, b = (mid, b) if meets(mid) else (a, mid)
    return a


def _flow(load: branch.BranchLoad, quantity: str) -> str:
    return str(load.dominant_flow) if bool(load.overloaded) else QUANTITIES[quantity]


def _answer(limits: dict, pick, beyond) -> BranchLimit:
    binding = pick(limits, key=limits.get)
    return BranchLimit(limits[binding], binding, _flow(beyond(limits[binding]), binding), dict(limits))


def _setup(n_hosts, level, operation, powered_on_vms, transfers_bytes, operation_rate_per_s, params):
    tb = default_testbed()
    lvl = v.integer("level", level, 1, 4)
    vms = tb.powered_on_vms_per_host if powered_on_vms is None else v.scalar(
        "powered_on_vms", powered_on_vms, 0.0, v.MAX_COUNT)
    n = None if n_hosts is None else v.scalar("n_hosts", n_hosts, 1.0, v.MAX_COUNT)
    sizes = branch.checked_sizes(transfers_bytes)
    rate = v.scalar("operation_rate_per_s", operation_rate_per_s, 0.0, math.inf, hi_open=True)
    p = calibrated_params(params)
    return n, lvl, vms, tb.calls(operation), sizes, rate, p


def smallest_link_bps(targets, n_hosts, rtt_s, loss=0.0, level=1, operation: str = "clone_vm",
                      powered_on_vms=None, up_down_ratio=1.0, transfers_bytes=None, operation_rate_per_s=0.0,
                      params: Params | None = None) -> BranchLimit:
    """Smallest downlink rate (bit/s; the uplink is ``up_down_ratio`` of it) meeting every target.

    Parameters
    ----------
    targets : dict
        Quantity (``"operation_latency"``, ``"statistics_delay"``, ``"deployment_time"``) -> target (s).
    n_hosts : float
        Hosts behind the link, >= 1.
    rtt_s, loss : float
        The link's RTT (s) and loss probability.
    level : int
        Statistics level 1..4.
    operation : str
        The operation of ``"operation_latency"``.
    powered_on_vms : float, optional
        Powered-on VMs per host (default: the test bed's).
    up_down_ratio : float
        Uplink / downlink rate.
    transfers_bytes : float or sequence of float, optional
        Transfers toward the branch (B each) whose last completion is ``"deployment_time"``.
    operation_rate_per_s : float
        Operations per second on the link (a steady flow).
    params : Params, optional
        Parameters (default: the calibration).

    Returns
    -------
    BranchLimit

    Examples
    --------
    >>> from vcperf import robo
    >>> ans = robo.smallest_link_bps({"operation_latency": 20.0, "statistics_delay": 60.0}, 40, 0.5, 0.001, 2)
    >>> here = robo.plan(robo.preset("satellite").with_rates(ans.value, ans.value), 40, 2)
    >>> ans.binding, ans.binding_flow, bool(here.operation_latency_s <= 20.0 and here.statistics_delay_s <= 60.0)
    ('statistics_delay', 'statistics', True)
    """
    goals = _targets(targets)
    v.scalar("n_hosts", n_hosts, 1.0, v.MAX_COUNT)
    rtt = v.scalar("rtt_s", rtt_s, 0.0, math.inf, hi_open=True)
    p_loss = v.scalar("loss", loss, 0.0, 1.0, hi_open=True)
    n, lvl, vms, stages, sizes, rate, p = _setup(n_hosts, level, operation, powered_on_vms, transfers_bytes,
                                                 operation_rate_per_s, params)

    def load(down):
        down = np.asarray(down, dtype=float)
        return checked_plan(network.Link(down, rtt, p_loss, "candidate", down * up_down_ratio), n, lvl, vms, p, stages,
                     sizes, rate)

    limits = {q: branch.required_bandwidth_bps(t, lambda d, u, q=q: quantity_s(load(d), q),
                                               up_down_ratio=up_down_ratio) for q, t in goals.items()}
    return _answer(limits, max, lambda x: load(x / 1.001 if math.isfinite(x) else branch.SEARCH_RANGE_BPS[1]))


def largest_rtt_s(targets, link, n_hosts, level=1, operation: str = "clone_vm", powered_on_vms=None,
                  transfers_bytes=None, operation_rate_per_s=0.0, params: Params | None = None) -> BranchLimit:
    """Largest round-trip time (s) of ``link`` (its rates and loss kept) meeting every target.

    Parameters
    ----------
    targets : dict
        Quantity -> target (s), as in :func:`smallest_link_bps`.
    link : vcperf.network.Link or str
        The branch link (its RTT is the variable), or a Table 1 preset name.
    n_hosts, level, operation, powered_on_vms, transfers_bytes, operation_rate_per_s, params
        As in :func:`smallest_link_bps`.

    Returns
    -------
    BranchLimit
        ``value`` in [0, :data:`RTT_SEARCH_MAX_S`]; ``-inf`` when RTT 0 already misses.

    Examples
    --------
    >>> from vcperf import robo
    >>> ans = robo.largest_rtt_s({"operation_latency": 5.0}, "t1", 20)
    >>> bool(robo.plan(robo.preset("t1").with_rates(1.544e6, 1.544e6), 20).operation_latency_s <= 5.0)
    True
    """
    goals = _targets(targets)
    lk = branch_link(link)
    v.scalar("n_hosts", n_hosts, 1.0, v.MAX_COUNT)
    n, lvl, vms, stages, sizes, rate, p = _setup(n_hosts, level, operation, powered_on_vms, transfers_bytes,
                                                 operation_rate_per_s, params)

    def load(rtt):
        return checked_plan(network.Link(lk.down_bps, np.asarray(rtt, dtype=float), lk.loss, lk.name, lk.up_bps), n,
                            lvl, vms, p, stages, sizes, rate)

    limits = {}
    for q, t in goals.items():
        x = _largest_meeting(lambda r, q=q, t=t: quantity_s(load(r), q) <= t, 0.0, RTT_SEARCH_MAX_S, log=False)
        limits[q] = -math.inf if math.isnan(x) else x
    return _answer(limits, min, lambda x: load(min(max(x, 0.0) * 1.001 + 1e-6, RTT_SEARCH_MAX_S)))


def most_hosts(targets, link, level=1, operation: str = "clone_vm", powered_on_vms=None, transfers_bytes=None,
               operation_rate_per_s=0.0, params: Params | None = None) -> BranchLimit:
    """Most hosts (a whole number) behind ``link`` meeting every target.

    Parameters
    ----------
    targets : dict
        Quantity -> target (s), as in :func:`smallest_link_bps`.
    link : vcperf.network.Link or str
        The branch link, or a Table 1 preset name.
    level, operation, powered_on_vms, transfers_bytes, operation_rate_per_s, params
        As in :func:`smallest_link_bps`.

    Returns
    -------
    BranchLimit
        ``value`` in [0, :data:`HOSTS_SEARCH_MAX`] (0: one host already misses).

    Examples
    --------
    >>> from vcperf import robo
    >>> ans = robo.most_hosts({"statistics_delay": 600.0}, "dsl_512k", 4)
    >>> ok = robo.plan("dsl_512k", ans.value, 4).statistics_delay_s <= 600.0
    >>> bool(ok), bool(robo.plan("dsl_512k", ans.value + 1, 4).statistics_delay_s > 600.0), ans.binding_flow
    (True, True, 'statistics')
    """
    goals = _targets(targets)
    lk = branch_link(link)
    _, lvl, vms, stages, sizes, rate, p = _setup(None, level, operation, powered_on_vms, transfers_bytes,
                                                 operation_rate_per_s, params)

    def load(h):
        return checked_plan(lk, np.asarray(h, dtype=float), lvl, vms, p, stages, sizes, rate)

    limits = {}
    for q, t in goals.items():
        meets = lambda h, q=q, t=t: quantity_s(load(h), q) <= t  # noqa: E731
        x = _largest_meeting(meets, 1.0, float(HOSTS_SEARCH_MAX), log=True)
        if math.isnan(x):
            limits[q] = 0.0
            continue
        limits[q] = float(_largest_whole(lambda h, m=meets: bool(m(float(h))), math.floor(x), HOSTS_SEARCH_MAX))
    return _answer(limits, min, lambda x: load(max(x, 0.0) + 1.0))
