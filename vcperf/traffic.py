"""One traffic model: what a flow is, how flows share a link, the delay a round trip sees on a busy
link, and the flags a flow's model raises. Every study's traffic and the site planner use it.

A **flow** crosses one direction of one link and is one of three kinds (:data:`KINDS`):

``elastic``
    Bytes to move as fast as TCP allows (a template copy, a migration's memory, a library sync). Its
    demand is the wire rate it reaches alone on the link (capped by its own limits: one TCP
    connection's window and loss-limited rate, a data mover, NFC); sharing stretches its time, it
    never stops. Its time is :func:`elastic_time_s`, the one transfer time of the package.
``paced``
    A rate it needs (host sync, statistics uploads). A shortfall is not a
    slowdown but a **backlog** that grows by ``demand - allocation`` every second, reported as such
    (:attr:`FlowShare.backlog_bps`).
``closed_loop``
    Request/response with a bounded number of outstanding requests (VCHA's commits wait for the
    Passive; an FT checkpoint for the secondary's acknowledgement). Its throughput adapts to what the link gives:
    it slows, it never stops. Its model is evaluated on the rate available to it.

**Sharing.** Each direction of a link is one bottleneck shared max-min fairly by its flows' demands
(water filling [1]_, the rates TCP-like flows converge to [2]_): every flow gets ``min(demand,
level)``. A flow's *available* rate is what it would get asking for everything with the others
keeping theirs: the rate a short burst of it (a checkpoint, a statistics upload, a commit) sees.

**Delay on a busy link.** Short messages on a link that other traffic keeps busy are served by
processor sharing: a message of ``x`` bits takes ``x / (C (1 - rho))`` on average (M/G/1-PS [3]_),
smooth up to saturation (:func:`vcperf.queueing.ps_response_time_s`; the study models apply it by
serving each message at the rate the other flows' average load leaves). And a drop-tail FIFO bottleneck
(``queue="fifo"``, what WAN routers and ``tc`` use by default) that an elastic flow keeps full holds a
**standing queue** of its buffer, which every round trip crossing it waits in (:func:`standing_queue_s`; the buffer
defaults to one bandwidth-delay product, the classic router sizing [4]_). A fair queue
(``queue="fair"``, fq_codel-like) keeps sparse flows out of that queue: no standing delay.

References
----------
.. [1] D. Bertsekas, R. Gallager, *Data Networks*, 2nd ed., Prentice Hall 1992, section 6.5.2.
.. [2] F. Kelly, "Charging and rate control for elastic traffic", European Transactions on
   Telecommunications 8, 1997.
.. [3] L. Kleinrock, *Queueing Systems, Vol. 2*, Wiley 1976 (M/G/1 processor sharing).
.. [4] C. Villamizar, C. Song, "High performance TCP in ANSNET", ACM CCR 24(5), 1994 (a buffer of
   one bandwidth-delay product); G. Appenzeller, I. Keslassy, N. McKeown, "Sizing router buffers",
   ACM SIGCOMM 2004.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from vcperf import _validate as v
from vcperf import network

__all__ = [
    "KINDS", "DISCIPLINES", "FLAG_KINDS", "Flag", "as_flags", "Flow", "FlowShare", "DirectionLoad",
    "water_fill", "direction_load", "elastic_time_s", "elastic_wire_rate_bps", "standing_queue_s",
]

#: The kinds of flow (module docstring).
KINDS = ("elastic", "paced", "closed_loop")
#: Queue disciplines of a bottleneck: drop-tail FIFO (a standing queue when an elastic flow fills it) or a
#: fair queue (fq_codel-like: sparse flows do not wait behind bulk ones).
DISCIPLINES = ("fifo", "fair")
#: Kinds of flag, most serious first: beyond a VMware documented limit; a backlog growing without bound
#: (a paced flow short of its rate, an overloaded link); a fallback (VCHA to asynchronous replication:
#: RPO > 0); a standing queue round trips wait in (a mechanism of the link, not of the study); outside what
#: the study measured (extrapolation).
FLAG_KINDS = ("limit", "backlog", "fallback", "queue", "extrapolation")

#: The kinds of the studies' structured flags (:class:`vcperf._validate.Flag`, ``vcperf.vmotion.LimitFlag``) as
#: flag kinds here.
_STUDY_KIND = {"unsupported": "limit", "limit": "limit", "beyond_default": "limit", "memory": "limit",
               "overload": "backlog", "saturated": "backlog", "fallback": "fallback", "extrapolation": "extrapolation",
               "extrapolated": "extrapolation", "assumed": "extrapolation"}
#: The prefixes the study models write their flags with, and the kind each one is.
_PREFIX_KIND = {"unsupported": "limit", "limit": "limit", "overload": "backlog", "backlog": "backlog",
                "fallback": "fallback", "queue": "queue", "extrapolated": "extrapolation",
                "extrapolation": "extrapolation"}


@dataclass(frozen=True)
class Flag:
    """A condition a model found in its inputs or answer, passed unchanged from the study to the plan.

    Attributes
    ----------
    kind : str
        One of :data:`FLAG_KINDS`.
    message : str
        The model's own words (what, the value, the limit and where it is documented).
    source : str
        Who raised it: a study's data folder (``"vmotion2020"``) or ``"plan"``.

    Examples
    --------
    >>> Flag.from_text("unsupported: 10 Mbit/s per concurrent vMotion", "vmotion2020").kind
    'limit'
    """

    kind: str
    message: str
    source: str = ""

    def __post_init__(self):
        v.choice("kind", self.kind, FLAG_KINDS)
        v.instance("message", self.message, str, "a str")
        v.instance("source", self.source, str, "a str")

    @classmethod
    def from_text(cls, text: str, source: str = "") -> Flag:
        """A study's flag string (``"<prefix>: <message>"``) as a :class:`Flag`, its text unchanged.

        A prefix that is not one of the known ones (``unsupported``, ``limit``, ``overload``, ``backlog``,
        ``fallback``, ``queue``, ``extrapolated``, ``extrapolation``) is a limit: a flag is never silently
        demoted.
        """
        v.instance("text", text, str, "a str")
        head = text.split(":", 1)[0].strip().lower()
        return cls(_PREFIX_KIND.get(head, "limit"), text, source)

    def __str__(self) -> str:
        return self.message


def as_flags(flags, source: str = "") -> tuple:
    """Flags of a study's result (strings or :class:`Flag`) as a tuple of :class:`Flag`, in order.

    Examples
    --------
    >>> [f.kind for f in as_flags(("extrapolated: memory", Flag("backlog", "x")), "vmotion2020")]
    ['extrapolation', 'backlog']
    """
    if isinstance(flags, str | bytes) or not isinstance(flags, list | tuple):
        raise ValueError(f"flags must be a list or tuple of flag strings or vcperf.traffic.Flag; got {flags!r:.80}")
    out = []
    for i, f in enumerate(flags):
        if not isinstance(f, Flag | str):
            raise ValueError(f"flags[{i}] must be a flag string or a vcperf.traffic.Flag; got {f!r:.80}")
        kind = _STUDY_KIND.get(getattr(f, "kind", None))  # a study's structured flag keeps its kind
        out.append(f if isinstance(f, Flag) else Flag(kind, str(f), v.text("source", source)) if kind
                   else Flag.from_text(f, v.text("source", source)))
    return tuple(out)


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
        Wire rate it asks for (bit/s): an elastic flow's rate alone on the link (``inf``: as much as
        it can get), a paced flow's rate, a closed loop's rate on an idle link.
    kind : str
        One of :data:`KINDS`.
    """

    name: str
    workload: str
    link: str
    direction: str
    demand_bps: float
    kind: str = "paced"

    def __post_init__(self):
        for name in ("name", "workload", "link"):
            v.text(name, getattr(self, name))
        v.choice("direction", self.direction, ("down", "up"))
        v.choice("kind", self.kind, KINDS)
        v.scalar("demand_bps", self.demand_bps, 0.0, math.inf)


@dataclass(frozen=True)
class FlowShare:
    """A flow's place on its link: what it asks, gets, and could get.

    Attributes
    ----------
    flow : Flow
    allocated_bps : float
        Its max-min fair rate (bit/s).
    available_bps : float
        The rate it gets when it asks for everything, the others keeping theirs (bit/s).
    share : float
        ``allocated_bps / capacity``.
    backlog_bps : float
        A paced flow's shortfall, ``demand - allocated`` (bit/s): its queue grows by this much every
        second. 0 for the other kinds (they slow down instead).
    """

    flow: Flow
    allocated_bps: float
    available_bps: float
    share: float
    backlog_bps: float = 0.0


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
        Offered load of the paced flows over the capacity (may exceed 1: overload, a backlog). Closed loops
        are not counted: they slow to what they get.
    saturated : bool
        The flows together ask for at least the capacity (an unbounded elastic flow always does).
    queue : str
        The bottleneck's discipline (:data:`DISCIPLINES`).
    queue_delay_s : float
        The standing queue every round trip crossing this direction waits in (:func:`standing_queue_s`).
    """

    link: str
    direction: str
    capacity_bps: float
    flows: tuple
    steady_load: float
    saturated: bool
    queue: str = "fifo"
    queue_delay_s: float = 0.0


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


def standing_queue_s(capacity_bps, rtt_s, *, queue: str = "fifo", buffer_bytes=None, filled: bool = True):
    """Delay (s) a round trip waits in a bottleneck's standing queue.

    A drop-tail FIFO that an elastic (TCP) flow keeps at capacity holds its buffer nearly full: TCP
    grows its window until the buffer overflows, so every packet of any other flow waits
    ``8 buffer / capacity`` behind it. A fair queue (fq_codel-like) serves sparse flows ahead of the
    bulk flow's queue: no standing delay. Nothing waits when no elastic flow fills the link
    (``filled`` False: e.g. every bulk flow is held below its share by its own window or loss).

    Parameters
    ----------
    capacity_bps : float
        The direction's line rate (bit/s), > 0.
    rtt_s : float
        The link's base round trip (s), >= 0: sizes the default buffer.
    queue : str
        ``"fifo"`` or ``"fair"``.
    buffer_bytes : float, optional
        The bottleneck's buffer (B), >= 0. Default: one bandwidth-delay product, ``capacity x rtt / 8``
        (so the standing queue adds one RTT).
    filled : bool
        Whether an elastic flow keeps the bottleneck at capacity.

    Examples
    --------
    >>> standing_queue_s(10e6, 0.08)  # one BDP of buffer on a full FIFO: one more RTT
    0.08
    >>> standing_queue_s(10e6, 0.08, queue="fair"), standing_queue_s(10e6, 0.08, filled=False)
    (0.0, 0.0)
    """
    c = float(v.scalar("capacity_bps", capacity_bps, 0.0, math.inf, lo_open=True, hi_open=True))
    rtt = float(v.scalar("rtt_s", rtt_s, 0.0, math.inf, hi_open=True))
    v.choice("queue", queue, DISCIPLINES)
    buf = c * rtt / 8.0 if buffer_bytes is None else float(v.scalar("buffer_bytes", buffer_bytes, 0.0, math.inf,
                                                                       hi_open=True))
    if queue == "fair" or not v.boolean("filled", filled):
        return 0.0
    return 8.0 * buf / c


def direction_load(link: str, direction: str, capacity_bps: float, flows, *, rtt_s: float = 0.0,
                   queue: str = "fifo", buffer_bytes=None) -> DirectionLoad:
    """The flows on one direction of a link: each one's allocation, available rate and backlog, and the
    standing queue round trips wait in.

    Parameters
    ----------
    link, direction : str
        Names for the tables.
    capacity_bps : float
        Line rate (bit/s), > 0.
    flows : sequence of Flow
        The flows on it.
    rtt_s, queue, buffer_bytes
        The link's base round trip, discipline and buffer (:func:`standing_queue_s`).

    Examples
    --------
    >>> f = [Flow("a", "a", "wan", "down", 2e6), Flow("b", "b", "wan", "down", math.inf, "elastic")]
    >>> d = direction_load("wan", "down", 10e6, f, rtt_s=0.08)
    >>> [s.available_bps / 1e6 for s in d.flows], d.queue_delay_s
    ([5.0, 8.0], 0.08)
    >>> direction_load("wan", "up", 1e6, [Flow("sync", "b", "wan", "up", 1.5e6)]).flows[0].backlog_bps
    500000.0
    """
    v.text("link", link)
    v.choice("direction", direction, ("down", "up"))
    c = float(v.scalar("capacity_bps", capacity_bps, 0.0, math.inf, lo_open=True))
    rtt_s = float(v.scalar("rtt_s", rtt_s, 0.0, math.inf, hi_open=True))
    v.choice("queue", queue, DISCIPLINES)
    v.optional(v.scalar, "buffer_bytes", buffer_bytes, 0.0, math.inf, hi_open=True)
    flows = v.sequence("flows", flows, "a list of vcperf.traffic.Flow")
    for f in flows:
        v.instance("flows", f, Flow)
    d = [f.demand_bps for f in flows]
    alloc = _water_fill(c, d)
    shares = []
    for i, f in enumerate(flows):
        greedy = list(d)
        greedy[i] = math.inf
        backlog = max(f.demand_bps - alloc[i], 0.0) if f.kind == "paced" else 0.0
        shares.append(FlowShare(f, alloc[i], _water_fill(c, greedy)[i], alloc[i] / c, backlog))
    steady = sum(f.demand_bps for f in flows if f.kind == "paced") / c
    # An elastic flow fills the bottleneck when it is held below its own demand by the others (it would
    # take more): TCP then keeps the buffer full.
    filled = any(f.kind == "elastic" and alloc[i] < f.demand_bps * (1.0 - 1e-9) for i, f in enumerate(flows))
    delay = standing_queue_s(min(c, 1e15), min(rtt_s, 1e6), queue=queue, buffer_bytes=buffer_bytes, filled=filled)
    return DirectionLoad(link, direction, c, tuple(shares), steady, sum(d) >= c, queue, delay)


def elastic_wire_rate_bps(line_rate_bps, rtt_s, loss=0.0):
    """Wire rate (bit/s) one bulk TCP transfer reaches alone on a line: its payload rate
    (:func:`vcperf.network.tcp_throughput_bps` of the line's TCP payload) back on the wire. The demand of
    an elastic flow that only TCP limits.

    Examples
    --------
    >>> round(float(elastic_wire_rate_bps(10e6, 0.08, 0.001)) / 1e6, 2)  # loss-limited below the line
    4.18
    >>> round(float(elastic_wire_rate_bps(10e6, 0.08)) / 1e6, 2)
    10.0
    """
    line = v.positive("line_rate_bps", line_rate_bps)
    pay = network.tcp_throughput_bps(network.payload_rate_bps(line), rtt_s, loss)
    return network.wire_rate_bps(pay)


def elastic_time_s(size_bytes, wire_rate_bps, rtt_s, loss=0.0):
    """Time (s) an elastic flow moves ``size_bytes`` of payload when it gets ``wire_rate_bps`` of a line:
    the one transfer time of the package (half an RTT, slow start's idle rounds, then the payload at the
    smaller of that share and one TCP connection's rate over the RTT and loss).

    ``vcperf.network.transfer_time_s(size, payload_rate_bps(wire_rate), rtt, loss)``: the same bytes over
    the same link take the same time whichever API asks (ROBO's transfers, a Content Library hop over a
    WAN, a plan's deployment).

    Examples
    --------
    >>> round(float(elastic_time_s(40e9, 10e6, 0.08, 0.001)) / 3600, 1)  # 40 GB, 10 Mbit/s, 80 ms, 0.1 %
    22.4
    """
    wire = v.positive("wire_rate_bps", wire_rate_bps)
    return network.transfer_time_s(size_bytes, network.payload_rate_bps(wire), rtt_s, loss)
