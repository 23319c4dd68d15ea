"""Memory transfer: vMotion streams (one CPU-bound worker each) over the vMotion NICs (``004_ea13268657e6b3b0.txt``).

The seed's testbed (Test Configuration) runs "4 vmkernel NICs with each vmkernel NIC using a unique
40GbE network adapter". vMotion opens one TCP connection (stream) per vmknic and one worker thread
per stream; a worker is one CPU core, so a stream moves at most ``stream_bytes_per_cpu_s`` bytes per
second however fast the NIC is (VMware KB 323379: one vmknic on a 40GbE NIC peaks at 18 Gb/s because
the worker saturates its core; ``data/vmotion2020/external_vmotion_streams.csv``). The migration's
rate is the smaller of the NICs' TCP goodput (line rate x :data:`vcperf.network.TCP_PAYLOAD_FRACTION`,
shared fairly by concurrent migrations) and the sum over its streams of each stream's ceiling: the
CPU ceiling (with any extra CPU per byte: encryption, destination zeroing) and the TCP window limit
``rwnd / RTT`` (:func:`vcperf.network.tcp_throughput_bps`).

Streams that share a NIC contend for it: its queue and the CPU that serves it are one resource, so a
share of each stream's per-byte work is serialised (Amdahl's law): ``n`` CPU-bound streams on one NIC
move ``n / (1 + alpha (n - 1))`` times one stream's ceiling (:func:`nic_stream_factor`). ``alpha`` is
calibrated in closed form from VMware KB 323379's one- and two-vmknic rows on one 40GbE NIC (18 and
28 Gb/s: :func:`contention_from_rates`, ``alpha = 2/7``); the KB's three-vmknic row (36 Gb/s) is then a
prediction (a ``predicted`` ledger row: 34.4 Gb/s). Streams on NICs of their own (the seed's test
bed: four vmknics on four NICs) do not contend.
"""

from __future__ import annotations

import numpy as np

from vcperf import _validate as v
from vcperf import network
from vcperf.vmotion.core import MAX_SOCKET_BUFFER_BYTES, check_release

#: Streams per vmknic by release. The seed (7.0 U1) and 6.7 open one stream per vmknic: more
#: streams per vmknic came with 7.0 U2 (after the seed), so both studied releases use 1.
DEFAULT_STREAMS_PER_VMKNIC = {"6.7": 1, "7.0u1": 1}
#: Longest round-trip time vSphere supports for (long-distance) vMotion, s (vSphere documentation,
#: "Round-Trip Time for Long-Distance vMotion Migration"); the upper end of the what-if ranges.
MAX_SUPPORTED_RTT_S = 0.150


def streams(n_vmknics=1, streams_per_vmknic=None, release="7.0u1"):
    """Number of vMotion streams: vmknics x streams per vmknic (default: the release's, 1).

    Parameters
    ----------
    n_vmknics : int or array_like of int
        vMotion vmknics, in [1, 64] (the test bed: 4).
    streams_per_vmknic : int or array_like of int, optional
        Streams per vmknic, in [1, 64]; default the release's (:data:`DEFAULT_STREAMS_PER_VMKNIC`).
    release : {"6.7", "7.0u1"}

    Examples
    --------
    >>> from vcperf import vmotion as vm
    >>> float(vm.streams(4))
    4.0
    """
    check_release(release)
    nics = v.integers("n_vmknics", n_vmknics, 1, 64)
    per = (DEFAULT_STREAMS_PER_VMKNIC[release] if streams_per_vmknic is None
           else v.integers("streams_per_vmknic", streams_per_vmknic, 1, 64))
    return nics * np.asarray(per, dtype=float)


def nic_stream_factor(streams_per_nic, contention=0.0):
    """How many single-stream ceilings ``streams_per_nic`` CPU-bound streams sharing one NIC move together.

    Amdahl's law over the NIC's serialised share ``contention`` of each stream's per-byte work (its
    queue and the CPU that serves it): ``n / (1 + contention x (n - 1))``; 1 for one stream, ``n`` with no
    contention, never above ``1 / contention``.

    Parameters
    ----------
    streams_per_nic : float or array_like
        Streams sharing the NIC, >= 1 (may be fractional: an average over NICs).
    contention : float
        Serialised share of a stream's per-byte work, in [0, 1] (:attr:`vcperf.vmotion.Settings.stream_contention`).

    Examples
    --------
    >>> from vcperf import vmotion as vm
    >>> [round(float(vm.nic_stream_factor(n, 2 / 7)) * 18, 1) for n in (1, 2, 3)]  # KB 323379: 18, 28, 36
    [18.0, 28.0, 34.4]

    References
    ----------
    G. M. Amdahl, "Validity of the single processor approach to achieving large scale computing
    capabilities", AFIPS 1967.
    """
    n = v.check_range("streams_per_nic", streams_per_nic, 1.0, 4096.0)
    a = v.scalar("contention", contention, 0.0, 1.0)
    return n / (1.0 + a * (n - 1.0))


def contention_from_rates(one_stream_bps, two_streams_bps):
    """The NIC's serialised share of a stream's work from the rates of one and of two streams on one NIC.

    Solves ``2 / (1 + a) = two / one`` (:func:`nic_stream_factor` at 2): ``a = 2 one / two - 1``.

    Parameters
    ----------
    one_stream_bps, two_streams_bps : float
        Peak throughput of one and of two CPU-bound streams on the same NIC (bit/s), ``one <= two <= 2 one``.

    Examples
    --------
    >>> from vcperf import vmotion as vm
    >>> round(vm.contention_from_rates(18e9, 28e9), 4)  # VMware KB 323379
    0.2857
    """
    one = v.scalar("one_stream_bps", one_stream_bps, 0.0, np.inf, lo_open=True, hi_open=True)
    two = v.scalar("two_streams_bps", two_streams_bps, 0.0, np.inf, lo_open=True, hi_open=True)
    if not one <= two <= 2.0 * one:
        raise ValueError(f"two_streams_bps must be in [one_stream_bps, 2 x one_stream_bps] = [{one:g}, {2 * one:g}] "
                         f"(two streams move at least one's rate and at most twice it); got two_streams_bps={two:g}, "
                         f"one_stream_bps={one:g}")
    return 2.0 * one / two - 1.0


def stream_rate_bytes_per_s(stream_bytes_per_cpu_s=np.inf, extra_cpu_s_per_byte=0.0, rtt_s=0.0,
                            link_bps=np.inf, rwnd_bytes=network.DEFAULT_RWND_BYTES, loss=0.0):
    """Ceiling of one vMotion stream (bytes/s): its CPU-bound worker and its TCP window.

    One worker core spends ``1 / stream_bytes_per_cpu_s + extra_cpu_s_per_byte`` CPU-seconds per
    byte (extra: encryption, destination zeroing), so it moves at most the inverse of that per
    second. Its TCP connection carries at most ``rwnd / RTT`` (the window/BDP limit) and, on a lossy
    path, the loss-limited rate of PFTK (:func:`vcperf.network.tcp_throughput_bps` with
    ``bandwidth = link_bps``: the one traffic model's TCP).

    Parameters
    ----------
    stream_bytes_per_cpu_s : float or array_like
        Bytes one worker core moves per CPU-second with no extra work, > 0 (``inf``: not CPU-bound).
    extra_cpu_s_per_byte : float or array_like
        Extra CPU-seconds per byte on the stream's worker, >= 0.
    rtt_s : float or array_like
        Round-trip time between the hosts (s), in [0, 10].
    link_bps : float or array_like
        Line rate the stream could at most use (bit/s), > 0.
    rwnd_bytes : float
        TCP receive window (default :data:`vcperf.network.DEFAULT_RWND_BYTES`).
    loss : float or array_like
        Packet loss probability of the path, in [0, 1) (default 0: the loss bound vanishes).

    Examples
    --------
    >>> from vcperf import vmotion as vm
    >>> round(float(vm.stream_rate_bytes_per_s(18e9 / 8)) * 8 / 1e9, 1)  # one worker core: 18 Gb/s
    18.0
    >>> bool(vm.stream_rate_bytes_per_s(18e9 / 8, rtt_s=0.1, link_bps=40e9) < 1e8)  # window-bound at 100 ms
    True
    >>> bool(vm.stream_rate_bytes_per_s(18e9 / 8, rtt_s=0.01, link_bps=40e9, rwnd_bytes=1e9, loss=1e-4) < 1e8)
    True

    References
    ----------
    J. Padhye, V. Firoiu, D. Towsley and J. Kurose, "Modeling TCP Throughput: A Simple Model and its
    Empirical Validation", ACM SIGCOMM 1998 (the window limit ``rwnd / RTT``).
    """
    r = v.check_range("stream_bytes_per_cpu_s", stream_bytes_per_cpu_s, 0.0, np.inf, lo_open=True)
    extra = v.nonneg("extra_cpu_s_per_byte", extra_cpu_s_per_byte)
    rtt = v.check_range("rtt_s", rtt_s, 0.0, 10.0)
    link = v.check_range("link_bps", link_bps, 0.0, np.inf, lo_open=True)
    p = v.check_range("loss", loss, 0.0, 1.0, hi_open=True)
    v.broadcast(stream_bytes_per_cpu_s=r, extra_cpu_s_per_byte=extra, rtt_s=rtt, link_bps=link, rwnd_bytes=rwnd_bytes,
                loss=p)
    with np.errstate(divide="ignore"):
        cpu = 1.0 / (1.0 / r + extra)
    finite_link = np.where(np.isfinite(link), link, 1e18)
    window = network.tcp_throughput_bps(finite_link, rtt, p, rwnd_bytes=rwnd_bytes) / 8.0
    return np.minimum(cpu, window)


def vmotion_window_bytes(link_bps, rtt_s, concurrent=1.0, socket_buffer_bytes=0.5e6,
                         max_socket_buffer_bytes=MAX_SOCKET_BUFFER_BYTES):
    """TCP window of one vMotion stream as ESXi sizes it (bytes): the larger of the standard socket
    buffer and the bandwidth-delay product of the migration's share of the NICs at ``rtt_s``, at most
    the largest buffer the resizing reaches.

    Since Metro vMotion (vSphere 5) the vMotion socket buffers are resized from the observed RTT
    (10 ms at 1 GbE: ~1.25 MB, the bandwidth-delay product, at full rate); long-distance vMotion
    (vSphere 6.0 and later) is supported up to 150 ms (``external_vmotion_streams.csv``). VMware
    documents no ceiling; the window stops at ``max_socket_buffer_bytes``
    (:data:`vcperf.vmotion.core.MAX_SOCKET_BUFFER_BYTES`, 16 MiB, a named modelling default), so a long,
    fast path is window-bound (16 MiB at 150 ms: 0.9 Gbit/s per stream) instead of growing a window of
    gigabytes.

    Parameters
    ----------
    link_bps : float or array_like
        Aggregate line rate of the vMotion NICs (bit/s), > 0.
    rtt_s : float or array_like
        Round-trip time (s), in [0, 10].
    concurrent : float or array_like
        Migrations sharing the NICs, >= 1.
    socket_buffer_bytes : float
        Standard vMotion socket buffer (bytes), > 0 (:attr:`vcperf.vmotion.Settings.socket_buffer_bytes`).
    max_socket_buffer_bytes : float
        Largest buffer the RTT-driven resizing reaches (bytes), > 0
        (:attr:`vcperf.vmotion.Settings.max_socket_buffer_bytes`; ``inf``: the bandwidth-delay product
        without bound; below ``socket_buffer_bytes``: the standard buffer, never resized).

    Examples
    --------
    >>> from vcperf import vmotion as vm
    >>> round(float(vm.vmotion_window_bytes(1e9, 0.010)) / 1e6, 2)  # 1 GbE at 10 ms: the BDP
    1.19
    >>> float(vm.vmotion_window_bytes(1e9, 0.0))  # on a LAN the standard buffer
    500000.0
    >>> float(vm.vmotion_window_bytes(100e9, 0.150)) / 2**20  # 100 GbE at 150 ms: the ceiling, not 1.8 GB
    16.0
    """
    bps = v.positive("link_bps", link_bps)
    rtt = v.check_range("rtt_s", rtt_s, 0.0, 10.0)
    k = v.check_range("concurrent", concurrent, 1, 4096)
    buf = v.scalar("socket_buffer_bytes", socket_buffer_bytes, 0.0, np.inf, lo_open=True, hi_open=True)
    top = v.scalar("max_socket_buffer_bytes", max_socket_buffer_bytes, 0.0, np.inf, lo_open=True)
    v.broadcast(link_bps=bps, rtt_s=rtt, concurrent=k)
    # the resizing never shrinks a buffer below the standard one: a ceiling under it leaves the standard buffer
    return np.minimum(np.maximum(buf, bps / 8.0 * network.TCP_PAYLOAD_FRACTION / k * rtt), max(top, buf))


def transfer_rate_bytes_per_s(link_bps, *, n_streams=1.0, stream_bytes_per_cpu_s=np.inf,
                              extra_cpu_s_per_byte=0.0, rtt_s=0.0, concurrent=1.0,
                              rwnd_bytes=network.DEFAULT_RWND_BYTES, n_nics=None, contention=0.0, loss=0.0):
    """Goodput (bytes/s) of one migration: streams x stream ceiling, at most its share of the NICs.

    ``min(link_bps / 8 x TCP_PAYLOAD_FRACTION / concurrent, n_streams x stream ceiling)`` with the
    stream ceiling of :func:`stream_rate_bytes_per_s`. ``concurrent`` migrations share the NICs
    fairly (each gets ``1 / concurrent`` of the goodput unless its own streams cap it lower). With
    the defaults (one stream, no CPU ceiling, RTT 0, alone) it is the link's TCP goodput. Streams
    sharing a NIC (``n_streams / n_nics`` per NIC) contend for it: their CPU ceilings add up by
    :func:`nic_stream_factor` with ``contention``, not linearly (their window limits still add up).

    Parameters
    ----------
    link_bps : float or array_like
        Aggregate line rate of the vMotion NICs (bit/s), > 0 (testbed: 4 x 40 GbE).
    n_streams : float or array_like
        vMotion streams of the migration (vmknics x streams per vmknic, :func:`streams`), >= 1.
    stream_bytes_per_cpu_s : float or array_like
        CPU ceiling of one stream's worker (bytes per CPU-second of one core), > 0.
    extra_cpu_s_per_byte : float or array_like
        Extra worker CPU per byte (encryption; 6.7 destination zeroing in round 0), >= 0.
    rtt_s : float or array_like
        Round-trip time (s), in [0, 10].
    concurrent : float or array_like
        Migrations sharing the NICs at the same time, >= 1.
    rwnd_bytes : float or array_like
        TCP receive window per stream (vMotion: :func:`vmotion_window_bytes`).
    n_nics : float or array_like, optional
        Physical NICs the streams spread over, in [1, n_streams] (default: one per stream, no contention).
    contention : float
        Serialised share of a stream's work on its NIC, in [0, 1] (:func:`nic_stream_factor`; default 0).
    loss : float or array_like
        Packet loss probability of the path, in [0, 1): each stream's TCP is loss-limited (PFTK).

    Examples
    --------
    >>> from vcperf import vmotion as vm
    >>> rate = vm.transfer_rate_bytes_per_s(160e9, n_streams=4, stream_bytes_per_cpu_s=18e9 / 8)
    >>> round(float(rate) * 8 / 1e9, 1)  # four CPU-bound streams on 4 x 40 GbE
    72.0
    >>> two = vm.transfer_rate_bytes_per_s(40e9, n_streams=2, stream_bytes_per_cpu_s=18e9 / 8, n_nics=1,
    ...                                    contention=2 / 7)
    >>> round(float(two) * 8 / 1e9, 1)  # two streams on one 40GbE NIC (KB 323379: 28)
    28.0

    References
    ----------
    J. Padhye, V. Firoiu, D. Towsley and J. Kurose, "Modeling TCP Throughput: A Simple Model and its
    Empirical Validation", ACM SIGCOMM 1998 (the window limit ``rwnd / RTT``).
    """
    bps = v.positive("link_bps", link_bps)
    n = v.check_range("n_streams", n_streams, 1, 4096)
    k = v.check_range("concurrent", concurrent, 1, 4096)
    v.broadcast(link_bps=bps, n_streams=n, concurrent=k, stream_bytes_per_cpu_s=stream_bytes_per_cpu_s,
                extra_cpu_s_per_byte=extra_cpu_s_per_byte, rtt_s=rtt_s, rwnd_bytes=rwnd_bytes)
    nics = n if n_nics is None else v.check_range("n_nics", n_nics, 1, 4096)
    over = np.asarray(nics) > np.asarray(n) * (1 + 1e-12)
    if np.any(over):
        raise ValueError(f"n_nics must be in [1, n_streams]; got {np.broadcast_to(nics, over.shape)[over].flat[0]:g}")
    share = bps / 8.0 * network.TCP_PAYLOAD_FRACTION / k
    r = v.check_range("stream_bytes_per_cpu_s", stream_bytes_per_cpu_s, 0.0, np.inf, lo_open=True)
    extra = v.nonneg("extra_cpu_s_per_byte", extra_cpu_s_per_byte)
    with np.errstate(divide="ignore"):
        cpu = 1.0 / (1.0 / r + extra)
    window = stream_rate_bytes_per_s(np.inf, 0.0, rtt_s, bps, rwnd_bytes, loss)
    per_nic = np.asarray(n, dtype=float) / nics
    cpu_all = nics * nic_stream_factor(per_nic, contention) * cpu  # contending CPU ceilings, NIC by NIC
    return np.minimum(share, np.minimum(cpu_all, n * window))


def evacuation_time_s(n_vms, concurrent, migration_time_s_at):
    """Time to migrate ``n_vms`` identical VMs off a host, ``concurrent`` at a time (s).

    ``n = q k + r``: ``q`` waves of ``k`` migrations sharing the NICs, then one wave of ``r``.
    ``migration_time_s_at(j)`` returns the migration time of one VM when ``j`` migrate at once
    (e.g. a :func:`vcperf.vmotion.migrate` with ``concurrent=j``).

    Parameters
    ----------
    n_vms : int
        VMs to move, >= 1.
    concurrent : int
        Migrations at a time, in [1, n_vms].
    migration_time_s_at : callable
        ``j -> seconds`` for ``j`` concurrent migrations.

    Examples
    --------
    >>> from vcperf import vmotion as vm
    >>> vm.evacuation_time_s(5, 2, lambda j: 10.0 * j)  # two waves of 2 (20 s each), then 1 (10 s)
    50.0
    """
    n = v.integer("n_vms", n_vms, 1, 100000)
    k = v.integer("concurrent", concurrent, 1, 100000)
    if k > n:
        raise ValueError(f"concurrent must be in [1, n_vms={n}] (an integer); got {k}")
    if not callable(migration_time_s_at):
        raise ValueError(f"migration_time_s_at must be callable; got {type(migration_time_s_at).__name__}")
    q, r = divmod(n, k)
    total = q * float(migration_time_s_at(k))
    if r:
        total += float(migration_time_s_at(r))
    return total
