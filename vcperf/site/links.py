"""Flows on links: every flow that crosses a link shares it, by max-min fair processor sharing.

Each direction of a link is one bottleneck of line rate ``C``. A flow asks for a rate: a steady
flow (host sync and statistics of a branch, VCHA's WAL stream, FT logging) its offered load, a
bulk transfer (a migration's memory, a deployment's disks) as much as it can get (``inf``). The
rates TCP flows sharing a bottleneck converge to are the max-min fair allocation [1]_ [2]_: water
filling, every flow gets ``min(demand, level)`` with the level set so the allocations fill ``C``
(or every demand is met). A workload's answer is its study's model on the rate *available* to it:
its allocation if it asked for everything (the others keep theirs), so a steady flow's bursts (a
checkpoint, a statistics upload) see the link minus the others' shares. Max-min allocations never
grow when a flow is added [1]_, so adding a flow never speeds another up, and a flow alone gets
``C``: its study's own answer.

References
----------
.. [1] D. Bertsekas, R. Gallager, *Data Networks*, 2nd ed., Prentice Hall 1992, section 6.5.2
   (max-min fairness, water filling).
.. [2] F. Kelly, "Charging and rate control for elastic traffic", European Transactions on
   Telecommunications 8, 1997 (the rates of TCP-like flows sharing a bottleneck).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from vcperf import _validate as v


@dataclass(frozen=True)
class Flow:
    """One flow on one direction of a link.

    Attributes
    ----------
    name : str
        The flow (``"migration db #1"``).
    workload : str
        The workload it belongs to.
    link : str
        The link it crosses.
    direction : str
        ``"down"`` (toward the branch / remote site) or ``"up"``.
    demand_bps : float
        Line rate it asks for (bit/s); ``inf`` for a bulk transfer.
    """

    name: str
    workload: str
    link: str
    direction: str
    demand_bps: float


@dataclass(frozen=True)
class FlowShare:
    """A flow's place on its link: what it asks, gets, and could get.

    Attributes
    ----------
    flow : Flow
    allocated_bps : float
        Its max-min fair rate (bit/s).
    available_bps : float
        The rate it gets when it asks for everything, the others keeping theirs (bit/s): the link its
        model sees.
    share : float
        ``allocated_bps / capacity`` (for a bulk flow, while it runs).
    """

    flow: Flow
    allocated_bps: float
    available_bps: float
    share: float


@dataclass(frozen=True)
class DirectionLoad:
    """One direction of one link with every flow on it.

    Attributes
    ----------
    link, direction : str
    capacity_bps : float
        Line rate (bit/s).
    flows : tuple of FlowShare
    steady_load : float
        Offered load of the steady flows over the capacity (may exceed 1: overload).
    saturated : bool
        The flows together ask for at least the capacity (a bulk flow always does).
    """

    link: str
    direction: str
    capacity_bps: float
    flows: tuple
    steady_load: float
    saturated: bool


def water_fill(capacity_bps: float, demands) -> list[float]:
    """Max-min fair rates of flows with ``demands`` on a bottleneck of ``capacity_bps``.

    Parameters
    ----------
    capacity_bps : float
        Line rate (bit/s), > 0.
    demands : sequence of float
        Each flow's demand (bit/s), >= 0 (``inf``: as much as it can get).

    Returns
    -------
    list of float
        Each flow's rate, ``<= demand``, summing to ``min(capacity, sum(demands))``.

    Examples
    --------
    >>> water_fill(10.0, [1.0, math.inf, math.inf])
    [1.0, 4.5, 4.5]
    >>> water_fill(10.0, [2.0, 3.0])
    [2.0, 3.0]
    """
    c = float(v.scalar("capacity_bps", capacity_bps, 0.0, math.inf, lo_open=True))
    d = [float(v.scalar("demands", x, 0.0, math.inf)) for x in v.sequence("demands", demands, "a list of rates")]
    return _water_fill(c, d)


def _water_fill(c: float, d: list) -> list:
    """:func:`water_fill` on checked values."""
    out = [0.0] * len(d)
    left, todo = c, sorted(range(len(d)), key=lambda i: d[i])
    while todo:
        level = left / len(todo)
        i = todo[0]
        if d[i] <= level:
            out[i] = d[i]
            left -= d[i]
            todo.pop(0)
        else:
            for j in todo:
                out[j] = level
            break
    return out


def direction_load(link: str, direction: str, capacity_bps: float, flows) -> DirectionLoad:
    """The flows on one direction of a link, each with its allocation and available rate.

    Parameters
    ----------
    link, direction : str
        Names for the tables.
    capacity_bps : float
        Line rate (bit/s), > 0.
    flows : sequence of Flow
        The flows on it.

    Examples
    --------
    >>> f = [Flow("a", "a", "wan", "down", 2e6), Flow("b", "b", "wan", "down", math.inf)]
    >>> [s.available_bps / 1e6 for s in direction_load("wan", "down", 10e6, f).flows]
    [5.0, 8.0]
    """
    v.text("link", link)
    v.choice("direction", direction, ("down", "up"))
    c = float(v.scalar("capacity_bps", capacity_bps, 0.0, math.inf, lo_open=True))
    flows = v.sequence("flows", flows, "a list of vcperf.site.Flow")
    for f in flows:
        v.instance("flows", f, Flow)
        v.scalar("flows[].demand_bps", f.demand_bps, 0.0, math.inf)
    d = [f.demand_bps for f in flows]
    alloc = _water_fill(c, d)
    shares = []
    for i, f in enumerate(flows):
        greedy = list(d)
        greedy[i] = math.inf
        shares.append(FlowShare(f, alloc[i], _water_fill(c, greedy)[i], alloc[i] / c))
    steady = sum(x for x in d if math.isfinite(x)) / c
    return DirectionLoad(link, direction, c, tuple(shares), steady, sum(d) >= c)
