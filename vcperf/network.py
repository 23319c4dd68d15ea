"""Links, TCP throughput and transfer times: the network primitives every study model uses.

A *link* is a bottleneck rate, a round-trip time and a packet loss probability, as configured with
Linux ``tc`` in the ROBO study (``001_36d9adf7ffa34fcf.txt``, Table 1, whose eight network types are
:func:`vcperf.robo.preset`). Over a link, TCP moves bytes
at the smallest of three rates: the link rate, the receive window per RTT, and the loss-limited rate
of Padhye, Firoiu, Towsley and Kurose [1]. PFTK is used rather than Mathis et al. [2] because it
keeps the retransmission-timeout term, which dominates on the lossy long-RTT links (satellite,
intercontinental) the ROBO study covers; without loss it reduces to the window/RTT bound.

Short transfers also pay slow start: a connection that starts (or restarts after idle) with an
initial window of ``initial_window_segments`` doubles it every RTT, and the sender idles for the
rest of each round whose window does not yet fill the pipe [3].

All functions are vectorized: any argument may be a numpy array and results broadcast.

References
----------
.. [1] J. Padhye, V. Firoiu, D. Towsley, J. Kurose, "Modeling TCP Throughput: A Simple Model and
   its Empirical Validation", ACM SIGCOMM 1998, eq. (31).
.. [2] M. Mathis, J. Semke, J. Mahdavi, T. Ott, "The Macroscopic Behavior of the TCP Congestion
   Avoidance Algorithm", ACM CCR 27(3), 1997.
.. [3] N. Cardwell, S. Savage, T. Anderson, "Modeling TCP Latency", IEEE INFOCOM 2000.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vcperf import _validate as v

#: Ethernet MTU (bytes of IP packet per frame).
ETHERNET_MTU_BYTES = 1500.0
#: IPv4 (20 B) + TCP (20 B) headers per segment.
IP_TCP_HEADER_BYTES = 40.0
#: Ethernet MTU 1500 B minus 40 B of IPv4 + TCP headers.
DEFAULT_MSS_BYTES = ETHERNET_MTU_BYTES - IP_TCP_HEADER_BYTES
#: Wire bytes around each frame's MTU: 14 B header + 4 B FCS + 8 B preamble + 12 B inter-frame gap.
ETHERNET_FRAMING_BYTES = 14.0 + 4.0 + 8.0 + 12.0
#: Share of an Ethernet line rate that is TCP payload in a bulk transfer of full-size segments:
#: MSS / (MTU + framing) = 1460 / 1538. The one home of this constant: every study uses it.
TCP_PAYLOAD_FRACTION = DEFAULT_MSS_BYTES / (ETHERNET_MTU_BYTES + ETHERNET_FRAMING_BYTES)
#: Linux's default maximum receive buffer (net.ipv4.tcp_rmem max, 6 MiB), which autotuning grows to.
DEFAULT_RWND_BYTES = 6.0 * 2**20
#: RFC 6928 initial congestion window (10 segments), the Linux default since 2.6.39.
DEFAULT_INITIAL_WINDOW_SEGMENTS = 10.0
#: Linux's lower bound on the variance term of the retransmission timeout (tcp_rto_min = 200 ms):
#: with a stable RTT, RTO ~= RTT + 200 ms.
DEFAULT_MIN_RTO_S = 0.2
#: Packets acknowledged per ACK (delayed ACKs), the ``b`` of PFTK.
DEFAULT_PACKETS_PER_ACK = 2.0
#: Linux's upper bound of the retransmission timeout (TCP_RTO_MAX = 120 s): exponential backoff stops there.
DEFAULT_MAX_RTO_S = 120.0
#: Duplicate ACKs that trigger fast retransmit (RFC 5681): a lost segment followed by fewer than this
#: many segments of the same message can only be recovered by a retransmission timeout.
DUPACK_THRESHOLD = 3.0
_MAX_SLOW_START_ROUNDS = 48  # 10 * 2**48 segments: more than any transfer the studies contain


@dataclass(frozen=True)
class Link:
    """A network path between vCenter and a host (or any two endpoints).

    Parameters
    ----------
    bandwidth_bps : float
        Bottleneck rate in bits per second (the ``tc`` rate limit).
    rtt_s : float
        Round-trip time in seconds (the ROBO study's "network latency" is the RTT; Table 1 note 1).
    loss : float
        Packet loss probability per packet, a fraction in [0, 1) (the study's "packet error rate";
        0.10 % is ``0.001``).
    name : str
        Label for plots and tables.
    """

    bandwidth_bps: float
    rtt_s: float
    loss: float = 0.0
    name: str = "custom"
    up_bandwidth_bps: float | None = None

    def __post_init__(self):
        v.positive("bandwidth_bps", self.bandwidth_bps)
        v.nonneg("rtt_s", self.rtt_s)
        v.fraction("loss", self.loss)
        v.instance("name", self.name, str, "a str")
        if self.up_bandwidth_bps is not None:
            v.positive("up_bandwidth_bps", self.up_bandwidth_bps)

    @property
    def down_bps(self):
        """Rate toward the branch (vCenter -> host, the downlink of DSL or satellite): ``bandwidth_bps``."""
        return self.bandwidth_bps

    @property
    def up_bps(self):
        """Rate from the branch (host -> vCenter): ``up_bandwidth_bps``, or ``bandwidth_bps`` if symmetric."""
        return self.bandwidth_bps if self.up_bandwidth_bps is None else self.up_bandwidth_bps

    def with_rates(self, down_bps, up_bps, name=None) -> Link:
        """The same RTT and loss with other rates (e.g. a fair share of this link; arrays allowed)."""
        return Link(down_bps, self.rtt_s, self.loss, self.name if name is None else name, up_bps)

    def message_time_s(self, size_bytes, direction: str = "down", **kw):
        """:func:`message_time_s` of one message over this link, ``direction`` "down" or "up"."""
        rate = {"down": self.down_bps, "up": self.up_bps}[v.choice("direction", direction, ("down", "up"))]
        return message_time_s(size_bytes, rate, self.rtt_s, self.loss, **kw)

    def tcp_throughput_bps(self, **kw) -> float:
        """:func:`tcp_throughput_bps` over this link."""
        return float(tcp_throughput_bps(self.bandwidth_bps, self.rtt_s, self.loss, **kw))

    def transfer_time_s(self, size_bytes, **kw):
        """:func:`transfer_time_s` over this link."""
        return transfer_time_s(size_bytes, self.bandwidth_bps, self.rtt_s, self.loss, **kw)

    def exchange_time_s(self, round_trips, request_bytes=0.0, response_bytes=0.0, **kw):
        """:func:`exchange_time_s` over this link."""
        return exchange_time_s(
            round_trips, request_bytes, response_bytes, self.bandwidth_bps, self.rtt_s, self.loss, **kw
        )


def check_link(name: str, value) -> Link:
    """Check ``value`` is a :class:`Link` (``ValueError`` naming ``name`` otherwise).

    Examples
    --------
    >>> check_link("link", Link(bandwidth_bps=10e6, rtt_s=0.08)).rtt_s
    0.08
    """
    return v.instance(name, value, Link,
                      "a vcperf.network.Link (e.g. vcperf.network.Link(bandwidth_bps=10e6, rtt_s=0.08))")


def payload_rate_bps(line_rate_bps):
    """TCP payload bit/s a bulk transfer of full-size segments carries on an Ethernet line rate.

    ``line_rate_bps x TCP_PAYLOAD_FRACTION`` (MSS over MTU plus Ethernet framing, 1460 / 1538): the one
    definition of payload on a wire that every link of the models uses (an FT logging link, a VM
    uplink, a clone link). :func:`wire_rate_bps` is its inverse.

    Parameters
    ----------
    line_rate_bps : float or array_like
        Ethernet line rate (bit/s on the wire), >= 0.

    Returns
    -------
    numpy.ndarray
        Payload bit/s, below the line rate.

    Examples
    --------
    >>> round(float(payload_rate_bps(1e9)) / 1e6, 1)  # 1 GbE: Mbit/s of TCP payload
    949.3
    """
    return v.nonneg("line_rate_bps", line_rate_bps) * TCP_PAYLOAD_FRACTION


def wire_rate_bps(payload_bps):
    """Ethernet line bit/s that carry ``payload_bps`` of TCP payload (inverse of :func:`payload_rate_bps`).

    Parameters
    ----------
    payload_bps : float or array_like
        TCP payload bit/s, >= 0.

    Returns
    -------
    numpy.ndarray
        Bit/s on the wire, headers and framing included.

    Examples
    --------
    >>> round(float(wire_rate_bps(payload_rate_bps(10e9))) / 1e9, 6)
    10.0
    """
    return v.nonneg("payload_bps", payload_bps) / TCP_PAYLOAD_FRACTION


def _rto_s(rtt_s, min_rto_s):
    return rtt_s + min_rto_s


def tcp_throughput_bps(
    bandwidth_bps,
    rtt_s,
    loss=0.0,
    *,
    mss_bytes=DEFAULT_MSS_BYTES,
    rwnd_bytes=DEFAULT_RWND_BYTES,
    min_rto_s=DEFAULT_MIN_RTO_S,
    packets_per_ack=DEFAULT_PACKETS_PER_ACK,
):
    """Steady-state throughput of one bulk TCP connection, in bits per second.

    ``min(bandwidth, rwnd / RTT, PFTK(loss, RTT, RTO))`` where PFTK is eq. (31) of [1]_ with
    ``RTO = rtt_s + min_rto_s``.

    Parameters
    ----------
    bandwidth_bps : float or array_like
        Bottleneck link rate (bit/s), > 0.
    rtt_s : float or array_like
        Round-trip time (s), >= 0. At 0 the window bound vanishes and the link rate rules.
    loss : float or array_like
        Packet loss probability in [0, 1). At 0 the loss bound vanishes.
    mss_bytes : float
        Segment payload (default 1460 B: 1500 B MTU less headers).
    rwnd_bytes : float
        Receive window (default 6 MiB, Linux's autotuning maximum).
    min_rto_s : float
        Added to the RTT to form the retransmission timeout (default 0.2 s, Linux tcp_rto_min).
    packets_per_ack : float
        ``b`` in PFTK (default 2: delayed ACKs).

    Returns
    -------
    numpy.ndarray
        Throughput (bit/s), never above ``bandwidth_bps``.

    References
    ----------
    .. [1] Padhye, Firoiu, Towsley, Kurose, ACM SIGCOMM 1998, eq. (31).
    """
    bw = v.positive("bandwidth_bps", bandwidth_bps)
    rtt = v.nonneg("rtt_s", rtt_s)
    p = v.fraction("loss", loss)
    mss = v.positive("mss_bytes", mss_bytes)
    rwnd = v.positive("rwnd_bytes", rwnd_bytes)
    rto = _rto_s(rtt, v.nonneg("min_rto_s", min_rto_s))
    b = v.positive("packets_per_ack", packets_per_ack)
    v.broadcast(bandwidth_bps=bw, rtt_s=rtt, loss=p, mss_bytes=mss, rwnd_bytes=rwnd, min_rto_s=rto,
                packets_per_ack=b)
    with np.errstate(divide="ignore", over="ignore"):  # a subnormal RTT gives an infinite window: right
        window_bps = np.where(rtt > 0, 8.0 * rwnd / np.where(rtt > 0, rtt, 1.0), np.inf)
        denom = rtt * np.sqrt(2.0 * b * p / 3.0) + rto * np.minimum(
            1.0, 3.0 * np.sqrt(3.0 * b * p / 8.0)
        ) * p * (1.0 + 32.0 * p**2)
        loss_bps = np.where(denom > 0, 8.0 * mss / np.where(denom > 0, denom, 1.0), np.inf)
    return np.minimum(np.minimum(bw, window_bps), loss_bps)


def transfer_time_s(
    size_bytes,
    bandwidth_bps,
    rtt_s,
    loss=0.0,
    *,
    initial_window_segments=DEFAULT_INITIAL_WINDOW_SEGMENTS,
    mss_bytes=DEFAULT_MSS_BYTES,
    **tcp_kw,
):
    """Time (s) from the first byte sent until the last byte arrives, on a fresh or idle connection.

    ``T = rtt/2 + size / R + idle``, where ``R`` is :func:`tcp_throughput_bps` and ``idle`` is the
    time the sender waits in each slow-start round whose window (``initial_window_segments``
    doubling per round) is smaller than the pipe ``R * rtt``, summed over every round but the
    last [3]_. Bounded below by ``size / bandwidth + rtt/2``.

    Parameters
    ----------
    size_bytes : float or array_like
        Payload (bytes), >= 0.
    bandwidth_bps, rtt_s, loss
        The link, as in :func:`tcp_throughput_bps`.
    initial_window_segments : float
        Initial congestion window (default 10, RFC 6928).
    mss_bytes : float
        Segment payload (default 1460 B).
    **tcp_kw
        Passed to :func:`tcp_throughput_bps` (``rwnd_bytes``, ``min_rto_s``, ``packets_per_ack``).

    Returns
    -------
    numpy.ndarray
        Transfer time (s).
    """
    size = v.nonneg("size_bytes", size_bytes)
    w0 = v.scalar("initial_window_segments", initial_window_segments, 0.0, np.inf, lo_open=True, hi_open=True)
    mss_bytes = v.scalar("mss_bytes", mss_bytes, 0.0, np.inf, lo_open=True, hi_open=True)
    v.broadcast(size_bytes=size, bandwidth_bps=v.positive("bandwidth_bps", bandwidth_bps),
                rtt_s=v.nonneg("rtt_s", rtt_s), loss=v.fraction("loss", loss))
    rate = tcp_throughput_bps(bandwidth_bps, rtt_s, loss, mss_bytes=mss_bytes, **tcp_kw)
    rtt = np.asarray(rtt_s, dtype=float)
    segments = np.ceil(size / mss_bytes)
    # Slow-start rounds needed to send every segment: w0 * (2**n - 1) >= segments.
    rounds = np.ceil(np.log2(segments / w0 + 1.0))
    i = np.arange(_MAX_SLOW_START_ROUNDS)
    window_bits = w0 * 2.0 ** i * mss_bytes * 8.0
    rate_e, rtt_e, rounds_e = (np.expand_dims(a, -1) for a in np.broadcast_arrays(rate, rtt, rounds))
    idle = np.clip(rtt_e - window_bits / rate_e, 0.0, None)
    idle = np.where(i < rounds_e - 1, idle, 0.0).sum(axis=-1)
    return rtt / 2.0 + size * 8.0 / rate + idle


def message_loss_delay_s(size_bytes, rtt_s, loss=0.0, *, mss_bytes=DEFAULT_MSS_BYTES,
                         min_rto_s=DEFAULT_MIN_RTO_S):
    """Expected retransmission-timeout delay (s) of one short message under packet loss.

    A message of a few segments cannot trigger fast retransmit (three duplicate ACKs), so a lost
    segment waits one RTO: ``(1 - (1 - loss)**segments) * (rtt_s + min_rto_s)``.
    """
    size = v.nonneg("size_bytes", size_bytes)
    rtt = v.nonneg("rtt_s", rtt_s)
    p = v.fraction("loss", loss)
    mss = v.positive("mss_bytes", mss_bytes)
    v.broadcast(size_bytes=size, rtt_s=rtt, loss=p, mss_bytes=mss, min_rto_s=v.nonneg("min_rto_s", min_rto_s))
    segments = np.maximum(1.0, np.ceil(size / mss))
    return (1.0 - (1.0 - p) ** segments) * _rto_s(rtt, v.nonneg("min_rto_s", min_rto_s))


def timeout_chain_s(rtt_s, loss=0.0, *, min_rto_s=DEFAULT_MIN_RTO_S, max_rto_s=DEFAULT_MAX_RTO_S,
                    max_backoffs=64):
    """Expected time (s) to recover one lost segment by retransmission timeouts that can repeat.

    The first timeout waits ``RTO = rtt_s + min_rto_s``; each retransmission is lost again with
    probability ``loss`` and the timer doubles (exponential backoff, RFC 6298) up to ``max_rto_s``:
    ``sum_j loss**j * min(RTO * 2**j, max_rto_s)``. The expected number of retransmissions is
    ``1 / (1 - loss)`` (geometric), so the delay is finite for every ``loss < 1`` and grows without
    bound as ``loss -> 1``: at 1 % it is one RTO and a little more; at 99 %, about 100 maximal timeouts.

    Parameters
    ----------
    rtt_s : float or array_like
        Round-trip time (s), >= 0.
    loss : float or array_like
        Packet loss probability in [0, 1).
    min_rto_s, max_rto_s : float
        Lower term of the RTO (Linux tcp_rto_min, 0.2 s) and its upper bound (TCP_RTO_MAX, 120 s).
    """
    rtt = v.nonneg("rtt_s", rtt_s)
    p = v.fraction("loss", loss)
    rto = _rto_s(rtt, v.nonneg("min_rto_s", min_rto_s))
    cap = v.scalar("max_rto_s", max_rto_s, 0.0, np.inf, lo_open=True, hi_open=True)
    max_backoffs = v.integer("max_backoffs", max_backoffs, 1, 10_000)
    v.broadcast(rtt_s=rtt, loss=p, min_rto_s=rto)
    j = np.arange(max_backoffs)
    rto_e, p_e = (np.expand_dims(a, -1) for a in np.broadcast_arrays(rto, p))
    waits = np.minimum(rto_e * 2.0 ** j, np.maximum(cap, rto_e))
    head = (p_e ** j * waits).sum(axis=-1)
    # Beyond max_backoffs every wait is the cap: a geometric tail in closed form.
    tail = np.where(p < 1, p ** max_backoffs / np.where(p < 1, 1.0 - p, 1.0), np.inf) * np.maximum(cap, rto)
    return head + tail


def message_time_s(size_bytes, bandwidth_bps, rtt_s, loss=0.0, *, mss_bytes=DEFAULT_MSS_BYTES,
                   min_rto_s=DEFAULT_MIN_RTO_S, max_rto_s=DEFAULT_MAX_RTO_S, **tcp_kw):
    """Time (s) one message takes on a connection, loss included once: the one loss model of every study.

    ``max(lossless + recovery, rtt/2 + size / PFTK)``:

    * ``lossless`` -- :func:`transfer_time_s` without loss (half an RTT, serialization, slow start);
    * ``recovery`` -- each segment is lost with probability ``loss``; a segment followed by at least
      :data:`DUPACK_THRESHOLD` segments of the message is fast-retransmitted (one RTT), the last
      ``min(segments, 3)`` are recovered by timeouts that can repeat (:func:`timeout_chain_s`);
    * a message longer than the initial window is limited instead, beyond that window, by the
      loss-limited rate of PFTK (:func:`tcp_throughput_bps`), whose timeout term already holds the
      recoveries.

    The larger of the two is taken, never their sum, so loss is charged once: short messages (host
    calls, host-sync changes) pay the recovery, bulk transfers (statistics uploads, inventory syncs,
    template copies) the PFTK rate. Monotone: non-decreasing in size, RTT and loss, non-increasing in
    bandwidth.

    Parameters
    ----------
    size_bytes : float or array_like
        Payload (B), >= 0 (an empty message still takes one segment).
    bandwidth_bps, rtt_s, loss
        The direction's rate, the RTT and the loss probability, as in :func:`tcp_throughput_bps`.
    """
    size = v.nonneg("size_bytes", size_bytes)
    bw = v.positive("bandwidth_bps", bandwidth_bps)
    rtt = v.nonneg("rtt_s", rtt_s)
    p = v.fraction("loss", loss)
    mss = v.scalar("mss_bytes", mss_bytes, 0.0, np.inf, lo_open=True, hi_open=True)
    w0 = v.scalar("initial_window_segments", tcp_kw.get("initial_window_segments", DEFAULT_INITIAL_WINDOW_SEGMENTS),
                  0.0, np.inf, lo_open=True, hi_open=True)
    v.scalar("max_rto_s", max_rto_s, 0.0, np.inf, lo_open=True, hi_open=True)
    v.broadcast(size_bytes=size, bandwidth_bps=bw, rtt_s=rtt, loss=p, min_rto_s=v.nonneg("min_rto_s", min_rto_s))
    rate_kw = {k: x for k, x in tcp_kw.items() if k != "initial_window_segments"}
    lossless = transfer_time_s(size, bw, rtt, 0.0, mss_bytes=mss, min_rto_s=min_rto_s, **tcp_kw)
    segments = np.maximum(1.0, np.ceil(size / mss))
    tail = np.minimum(segments, DUPACK_THRESHOLD)
    chain = timeout_chain_s(rtt, p, min_rto_s=min_rto_s, max_rto_s=max_rto_s)
    recovery = p * ((segments - tail) * rtt + tail * chain)
    rate = tcp_throughput_bps(bw, rtt, p, mss_bytes=mss, min_rto_s=min_rto_s, **rate_kw)
    first = np.minimum(size, w0 * mss)  # the initial window leaves at the link rate, before any loss signal
    bulk = rtt / 2.0 + first * 8.0 / bw + (size - first) * 8.0 / rate
    return np.maximum(lossless + recovery, bulk)


def exchange_time_s(
    round_trips,
    request_bytes,
    response_bytes,
    bandwidth_bps,
    rtt_s,
    loss=0.0,
    **tcp_kw,
):
    """Time (s) of ``round_trips`` request/response exchanges, one after another.

    Each exchange sends the request (:func:`transfer_time_s`, half an RTT of propagation
    included) and then the response, each paying :func:`message_loss_delay_s`. With empty
    payloads an exchange costs exactly one RTT.

    Parameters
    ----------
    round_trips : float or array_like
        Number of sequential exchanges, >= 0 (may be fractional as an average).
    request_bytes, response_bytes : float or array_like
        Payload of each request and each response (bytes), >= 0.
    bandwidth_bps, rtt_s, loss
        The link, as in :func:`tcp_throughput_bps`.
    **tcp_kw
        Passed on (``mss_bytes``, ``rwnd_bytes``, ``min_rto_s``, ...).
    """
    n = v.nonneg("round_trips", round_trips)
    v.broadcast(round_trips=n, request_bytes=v.nonneg("request_bytes", request_bytes),
                response_bytes=v.nonneg("response_bytes", response_bytes),
                bandwidth_bps=v.positive("bandwidth_bps", bandwidth_bps), rtt_s=v.nonneg("rtt_s", rtt_s),
                loss=v.fraction("loss", loss))
    loss_kw = {k: tcp_kw[k] for k in ("mss_bytes", "min_rto_s") if k in tcp_kw}
    one = (
        transfer_time_s(request_bytes, bandwidth_bps, rtt_s, loss, **tcp_kw)
        + transfer_time_s(response_bytes, bandwidth_bps, rtt_s, loss, **tcp_kw)
        + message_loss_delay_s(request_bytes, rtt_s, loss, **loss_kw)
        + message_loss_delay_s(response_bytes, rtt_s, loss, **loss_kw)
    )
    return n * one


def utilization(offered_bps, bandwidth_bps):
    """Fraction of a link's capacity an average offered load uses (may exceed 1: overload)."""
    offered, bw = v.nonneg("offered_bps", offered_bps), v.positive("bandwidth_bps", bandwidth_bps)
    v.broadcast(offered_bps=offered, bandwidth_bps=bw)
    return offered / bw


def _free_bps(line_rate_bps, other_bps):
    """Line rate left to the transfers once ``other_bps`` of other traffic is served first (may be <= 0)."""
    return np.asarray(line_rate_bps, dtype=float) - np.asarray(other_bps, dtype=float)


def shared_transfer_times_s(sizes_bytes, line_rate_bps, rtt_s, loss=0.0, *, other_bps=0.0):
    """Completion time (s) of each of several bulk TCP transfers that start together on one link.

    The one model of moving bytes over a link that every study uses (NFC copies, library syncs,
    template copies to a branch). The line rate left by ``other_bps`` of other traffic, as TCP
    payload (:func:`payload_rate_bps`), is shared by the active transfers (processor sharing,
    the fair share of TCP flows on one bottleneck); each transfer runs at the smaller of its share
    and what one TCP connection reaches over the RTT and loss (:func:`tcp_throughput_bps`, PFTK
    [1]_). When the smallest transfer ends, the others share its capacity. Each also pays half an
    RTT and the idle rounds of slow start [3]_ (as :func:`transfer_time_s`). One transfer alone takes
    exactly ``transfer_time_s(size, payload_rate_bps(line - other), rtt, loss)``. When the other
    traffic leaves no capacity the transfers never finish: ``inf`` (overload, never a floor).

    Parameters
    ----------
    sizes_bytes : sequence of float
        Payload of each transfer (B), >= 0 (one-dimensional).
    line_rate_bps : float or array_like
        The direction's line rate (bit/s), > 0.
    rtt_s, loss : float or array_like
        Round-trip time (s), >= 0, and packet loss probability in [0, 1).
    other_bps : float or array_like
        Average traffic of other flows in the same direction (bit/s), >= 0, served ahead of the
        transfers' share (the steady flows a branch always has).

    Returns
    -------
    numpy.ndarray
        Completion times, shape ``broadcast(line_rate_bps, rtt_s, loss, other_bps) + (len(sizes),)``,
        in the order of ``sizes_bytes``.

    Examples
    --------
    >>> t = shared_transfer_times_s([1e9, 2e9], 1e9, 0.0)
    >>> bool(t[0] < t[1]), round(float(t[1]) / float(shared_transfer_times_s([3e9], 1e9, 0.0)[0]), 3)
    (True, 1.0)

    References
    ----------
    .. [1] J. Padhye, V. Firoiu, D. Towsley, J. Kurose, "Modeling TCP Throughput: A Simple Model and
       its Empirical Validation", ACM SIGCOMM 1998.
    .. [3] N. Cardwell, S. Savage, T. Anderson, "Modeling TCP Latency", IEEE INFOCOM 2000.
    """
    sizes = np.atleast_1d(v.nonneg("sizes_bytes", sizes_bytes)).astype(float)
    if sizes.ndim != 1:
        raise ValueError(f"sizes_bytes must be one-dimensional; got shape {sizes.shape}")
    bw = v.rate_bps("line_rate_bps", line_rate_bps)
    rtt = v.nonneg("rtt_s", rtt_s)
    p = v.fraction("loss", loss)
    other = v.nonneg("other_bps", other_bps)
    v.broadcast(line_rate_bps=bw, rtt_s=rtt, loss=p, other_bps=other)
    return checked_shared_transfer_times_s(sizes, bw, rtt, p, other)


def checked_shared_transfer_times_s(sizes, bw, rtt, p, other):
    """:func:`shared_transfer_times_s` on checked values."""
    shape = np.broadcast_shapes(np.shape(bw), np.shape(rtt), np.shape(p), np.shape(other))
    m = len(sizes)
    if m == 0:
        return np.zeros(shape + (0,))
    free = np.broadcast_to(_free_bps(bw, other), shape)
    ok = free > 0
    pay = np.where(ok, payload_rate_bps(np.where(ok, free, 1.0)), 1.0)
    rtt, p = np.broadcast_to(rtt, shape), np.broadcast_to(p, shape)
    order = np.argsort(sizes, kind="stable")
    s = sizes[order]
    steps = np.diff(np.concatenate([[0.0], s]))
    elapsed = np.zeros(shape)
    done = np.empty(shape + (m,))
    for j in range(m):  # phase j: transfers j..m-1 active
        rate = tcp_throughput_bps(pay / (m - j), rtt, p)
        elapsed = elapsed + steps[j] * 8.0 / rate
        done[..., j] = elapsed
    # Half an RTT and slow start's idle rounds, as transfer_time_s at the first phase's share.
    first = tcp_throughput_bps(pay / m, rtt, p)
    start = transfer_time_s(s, np.expand_dims(pay / m, -1), np.expand_dims(rtt, -1), np.expand_dims(p, -1))
    start = start - s * 8.0 / np.expand_dims(first, -1)
    out = np.empty_like(done)
    out[..., order] = done + start
    return np.where(np.expand_dims(ok, -1), out, np.inf)


def bulk_transfer_time_s(size_bytes, line_rate_bps, rtt_s, loss=0.0, *, flows=1, other_bps=0.0):
    """Time (s) to move ``size_bytes`` over a link with ``flows - 1`` equal transfers alongside.

    :func:`shared_transfer_times_s` for ``flows`` transfers of the same size (they finish together):
    the payload rate of the line left by ``other_bps``, shared ``flows`` ways, capped by one TCP
    connection's rate over the RTT and loss, plus half an RTT and slow start. ``inf`` when the other
    traffic leaves nothing.

    Parameters
    ----------
    size_bytes : float or array_like
        Payload (B), >= 0.
    line_rate_bps : float or array_like
        Line rate (bit/s), > 0.
    rtt_s, loss : float or array_like
        Round-trip time (s) and loss probability.
    flows : float or array_like
        Transfers sharing the link, >= 1.
    other_bps : float or array_like
        Other traffic in the same direction (bit/s), >= 0.

    Examples
    --------
    >>> round(float(bulk_transfer_time_s(39e9, 1e9, 0.0)), 1)  # 39 GB over Gigabit Ethernet
    328.7
    >>> float(bulk_transfer_time_s(1e6, 1e6, 0.1, other_bps=1e6))  # no capacity left: overload
    inf
    """
    size = v.nonneg("size_bytes", size_bytes)
    bw = v.rate_bps("line_rate_bps", line_rate_bps)
    rtt = v.nonneg("rtt_s", rtt_s)
    p = v.fraction("loss", loss)
    n = v.check_range("flows", flows, 1.0, np.inf, hi_open=True)
    other = v.nonneg("other_bps", other_bps)
    v.broadcast(size_bytes=size, line_rate_bps=bw, rtt_s=rtt, loss=p, flows=n, other_bps=other)
    free = _free_bps(bw, other)
    ok = free > 0
    share = np.where(ok, payload_rate_bps(np.where(ok, free, 1.0)) / n, 1.0)
    return np.where(ok, transfer_time_s(size, share, rtt, p), np.inf)
