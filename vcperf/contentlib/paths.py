"""The deployment model: a Content Library deployment as bytes through the stages of one data path.

The study (J. Guan and D. Bergamasco, "How to Efficiently Deploy Virtual Machines from VMware vSphere
Content Library", VMware VROOM! Blog, July 2015) deploys one 39 GB OVF template from a Content
Library item under four storage layouts (Experiments table; Figure 3) and compares the completion
times (Figure 4, Observations table). Each layout makes the Transfer Service pick one *data path*;
this module models a deployment as bytes moving through the stages of that path.

Paths (``PATHS``) and their stages
----------------------------------
``vaai`` (Experiment 1)
    Both datastores on one VAAI-capable array: the array copies internally (XCOPY) at its
    backend copy rate ``array_copy_rate_bytes_per_s`` (calibrated); no byte crosses the host.
``host_fc`` (Experiment 2)
    One ESXi host sees both datastores: its software data mover reads each chunk over Fibre Channel
    and writes it back. The data mover keeps a fixed number of I/Os in flight, so (Little's law) its
    rate is ``in-flight bytes / per-I/O time`` and the per-I/O time is the array's service time
    *plus* the FC wire time: ``1 / (1 / array_rate + 1 / fc_payload_rate)``.
``host_to_host`` (Experiment 3)
    Source and destination datastores on different hosts: the source host's data mover reads, NFC
    ships the bytes host to host over Ethernet, the destination host's data mover writes. The
    Ethernet hop moves bytes as every network path of vcperf does (:func:`network_rate_bytes_per_s`:
    TCP payload on the wire, over the RTT and loss, at the rate other traffic leaves); NFC, a stated
    extra stage, reaches ``nfc_efficiency`` (calibrated) of that rate. These stages are pipelined,
    so the slowest one sets the rate.
``streaming`` (Experiment 4)
    The template sits compressed on an NFS share mounted on vCenter (or the hosts are in different
    vCenters): the Transfer Service reads the compressed stream over the data network, decompresses
    it (``decompression_rate_bytes_per_s`` per stream, calibrated; ``compression_ratio``,
    calibrated) and streams it over the management network to the destination host with NFC. The
    Transfer Service does these three steps one after the other for every chunk (one more hop and
    compression, Data Transfer section), so their times add; the destination host's write is
    pipelined behind it.

Deployment time = ``setup_time_s`` + size / (pipelined bottleneck rate), or + the sum of the serial
stage times for the streaming path. The study prints no small-template time, so the fixed cost is
not identifiable and defaults to 0.

Physical inputs (not fitted): the FC and Ethernet line rates, 8b/10b FC encoding, TCP/Ethernet framing
(see the module constants), the vCenter vCPU count and the number of disks decompressed in parallel.
The four unknown rates of :class:`~vcperf.contentlib.params.Params` are fitted by
:mod:`vcperf.contentlib.calibration`; this module never reads ``data/`` and takes ``params`` from its
caller (the facade :mod:`vcperf.contentlib.study` fills in the calibration).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from vcperf import _validate as v
from vcperf import network
from vcperf.contentlib.params import Params

PATHS = ("vaai", "host_fc", "host_to_host", "streaming")
#: Experiment number of the study that exercises each path (Experiments table).
PATH_EXPERIMENT = {"vaai": 1, "host_fc": 2, "host_to_host": 3, "streaming": 4}
PATH_LABELS = {
    "vaai": "Exp 1: VAAI array copy",
    "host_fc": "Exp 2: one host, 8 Gb FC",
    "host_to_host": "Exp 3: host to host (NFC)",
    "streaming": "Exp 4: vCenter streaming",
}

#: Fibre Channel 1/2/4/8GFC use 8b/10b line coding: 8 payload bits per 10 line bits, and the
#: "8 Gb" name is the nominal rate whose payload is 800 MB/s per direction (FC-PI-4).
FC_ENCODING_EFFICIENCY = 0.8

#: Default rates for the public functions (documented physical defaults, not fitted):
DEFAULT_FC_BANDWIDTH_BPS = 8e9  # 8GFC, the FC generation of 2015-era HBAs (nominal rate)
DEFAULT_NETWORK_BPS = 1e9  # Gigabit Ethernet data network (host to host, NFS to vCenter)
DEFAULT_MGMT_NETWORK_BPS = 1e9  # Gigabit Ethernet management network (vCenter to hosts)
DEFAULT_VCENTER_VCPUS = 16  # the "large" vCenter Server Appliance 6.0 size (16 vCPU)
DEFAULT_DECOMPRESSION_STREAMS = 1  # disks decompressed at once: one VMDK stream at a time


# ----------------------------------------------------------------------------------------------- model


def _check_path(path: str) -> str:
    return v.choice("path", path, PATHS)


def checked_inputs(size_bytes, network_bps, mgmt_network_bps, fc_bandwidth_bps, vcenter_vcpus,
            decompression_streams, setup_time_s):
    """The deployment inputs checked and broadcast: ``(size, net, mgmt, fc, vcpus, streams, setup)``."""
    size = v.nonneg("size_bytes", size_bytes)
    net = v.rate_bps("network_bps", network_bps)
    mgmt = v.positive("mgmt_network_bps", mgmt_network_bps)
    fc = v.rate_bps("fc_bandwidth_bps", fc_bandwidth_bps)
    vcpus = v.check_range("vcenter_vcpus", vcenter_vcpus, 1.0, 1024.0)
    streams = v.check_range("decompression_streams", decompression_streams, 1.0, 1024.0)
    setup = v.nonneg("setup_time_s", setup_time_s)
    v.broadcast(size_bytes=size, network_bps=net, mgmt_network_bps=mgmt, fc_bandwidth_bps=fc, vcenter_vcpus=vcpus,
                decompression_streams=streams, setup_time_s=setup)
    return size, net, mgmt, fc, vcpus, streams, setup


@dataclass(frozen=True)
class Stages:
    """Per-stage rates (uncompressed bytes per second) of one path; arrays broadcast over inputs.

    ``pipelined`` stages run concurrently (the slowest sets the rate); ``serial`` stages run one after
    the other per chunk (their times add) and, as a block, are pipelined with ``pipelined``.

    Attributes
    ----------
    pipelined : dict
        Stage name -> rate (B/s, float or ndarray) of the stages that overlap.
    serial : dict
        Stage name -> rate (B/s) of the stages done one after the other per chunk (``streaming`` only).
    notes : tuple of str
        Inputs that do not move these rates, and why (e.g. ``vcenter_vcpus`` at one stream).

    Examples
    --------
    >>> from vcperf.contentlib.paths import Stages
    >>> st = Stages({"mover": 100.0}, {"read": 400.0, "decompress": 400.0})
    >>> float(st.time_per_byte_s()), float(st.bottleneck_rate_bytes_per_s())
    (0.01, 100.0)
    """

    pipelined: dict
    serial: dict
    notes: tuple = ()

    def time_per_byte_s(self):
        """Seconds per uncompressed byte: max(pipelined 1/rate, sum of serial 1/rate)."""
        per_byte = [1.0 / r for r in self.pipelined.values()]
        if self.serial:
            per_byte.append(sum(1.0 / r for r in self.serial.values()))
        return functools.reduce(np.maximum, per_byte)

    def bottleneck_rate_bytes_per_s(self):
        """Rate of the slowest single stage (an upper bound on end-to-end throughput)."""
        return functools.reduce(np.minimum, [*self.pipelined.values(), *self.serial.values()])


def resolved_params(params) -> Params:
    """``params`` checked to be the study's :class:`~vcperf.contentlib.params.Params` (the facade,
    :mod:`vcperf.contentlib.study`, fills ``None`` with the calibration)."""
    if not isinstance(params, Params):
        raise ValueError(f"params must be a contentlib.Params (vcperf.contentlib.calibrate()); got {params!r}")
    return params


#: Why vCPUs beyond the decompression streams move nothing (reported in :attr:`Stages.notes`).
VCPUS_NOTE = ("vcenter_vcpus beyond decompression_streams changes nothing: each stream is decompressed by "
              "one thread on one vCPU, so only min(vCPUs, streams) vCPUs work")
#: A LAN of the study's test bed: no RTT worth counting, no loss, no other traffic ``(rtt_s, loss, other_bps)``.
LAN = (0.0, 0.0, 0.0)
#: The hop of each path that crosses a WAN between the library's site and the destination host (``link``
#: of :func:`deploy_time_s`); None: the path moves no byte over a network, so no WAN can be on it.
WAN_HOP = {"vaai": None, "host_fc": None, "host_to_host": "host to host (NFC over the data network)",
           "streaming": "vCenter to host (NFC over the management network)"}


def checked_wan_inputs(link):
    """``link`` checked: None, or ``(rate_bps, rtt_s, loss)`` of a :class:`vcperf.network.Link` toward the host."""
    if link is None:
        return None
    link = network.check_link("link", link)
    return (float(link.down_bps), float(link.rtt_s), float(link.loss))


def _wan_note(path: str, wan) -> tuple:
    if wan is None:
        return ()
    hop = WAN_HOP[path]
    if hop is None:
        return (f"link: path {path} moves no byte over a network; the WAN does not enter its time",)
    return (f"link: the WAN is crossed by the {hop} hop (TCP over its rate, RTT and loss); the site's own "
            "Ethernet hops stay LANs",)


def checked_link_inputs(rtt_s, loss, other_bps) -> tuple:
    """The network conditions of a path's Ethernet hops, checked: ``(rtt_s, loss, other_bps)``."""
    out = (v.nonneg("rtt_s", rtt_s), v.fraction("loss", loss), v.nonneg("other_bps", other_bps))
    v.broadcast(rtt_s=out[0], loss=out[1], other_bps=out[2])
    return out


def network_rate_bytes_per_s(line_bps, rtt_s=0.0, loss=0.0, other_bps=0.0):
    """Payload bytes per second one bulk TCP transfer moves over an Ethernet hop: the one transfer
    model of :mod:`vcperf.network` (payload on the wire, TCP over RTT and loss), at the rate the other
    traffic leaves (0 when it leaves none).

    ``tcp_throughput_bps(payload_rate_bps(line - other), rtt, loss) / 8``; the steady rate of
    :func:`vcperf.network.shared_transfer_times_s` for one transfer (without its start-up).

    Parameters
    ----------
    line_bps : float or array_like
        Line rate (bit/s), > 0.
    rtt_s, loss : float or array_like
        Round-trip time (s), >= 0, and loss probability in [0, 1).
    other_bps : float or array_like
        Other traffic on the hop (bit/s), >= 0.

    Examples
    --------
    >>> from vcperf import contentlib
    >>> round(float(contentlib.network_rate_bytes_per_s(1e9)) / 1e6, 1)  # MB/s on Gigabit Ethernet
    118.7
    """
    line = v.positive("line_bps", line_bps)
    rtt, p, other = checked_link_inputs(rtt_s, loss, other_bps)
    v.broadcast(line_bps=line, rtt_s=rtt, loss=p, other_bps=other)
    return _network_rate(line, (rtt, p, other))


def _network_rate(line, link: tuple):
    """:func:`network_rate_bytes_per_s` on checked values (``link`` from :func:`checked_link_inputs`)."""
    rtt, p, other = link
    free = np.asarray(line, dtype=float) - other
    ok = free > 0
    rate = network.tcp_throughput_bps(network.payload_rate_bps(np.where(ok, free, 1.0)), rtt, p) / 8.0
    return np.where(ok, rate, 0.0)


def checked_stage_rates(path: str, net, mgmt, fc, vcpus, streams, p: Params, link: tuple = LAN, wan=None) -> Stages:
    """Stage rates of ``path`` from validated inputs (:func:`checked_inputs`, :func:`checked_link_inputs`,
    :func:`checked_wan_inputs`) and resolved ``p``.

    NFC reaches ``nfc_efficiency`` of the host's own Ethernet hop (a cap of the protocol on the NIC it runs
    over, fitted on the test bed's 1 GbE); a WAN on the hop is a stage of its own, one TCP connection over
    the WAN's rate, RTT and loss, so a WAN slower than NFC's cap sets the rate once (NFC's efficiency is
    not applied to it again)."""
    array = np.asarray(p.array_copy_rate_bytes_per_s, dtype=float)
    fc_payload = fc * FC_ENCODING_EFFICIENCY / 8.0
    mover = 1.0 / (1.0 / array + 1.0 / fc_payload)  # Little's law: array service + FC wire per I/O
    if path == "vaai":
        return Stages({"array_copy": array}, {}, _wan_note(path, wan))
    if path == "host_fc":
        return Stages({"host_data_mover": mover}, {}, _wan_note(path, wan))
    if path == "host_to_host":
        eth = _network_rate(net, link)  # the one transfer model of vcperf.network
        stages = {"source_data_mover": mover, "ethernet": eth, "nfc_ethernet": p.nfc_efficiency * eth,
                  "destination_data_mover": mover}
        if wan is not None:
            stages["wan"] = _network_rate(wan[0], (wan[1], wan[2], 0.0))
        return Stages(stages, {}, _wan_note(path, wan))
    source = p.compression_ratio * _network_rate(net, link)  # compressed bytes on the wire
    decompress = p.decompression_rate_bytes_per_s * np.minimum(vcpus, streams)
    to_host = p.nfc_efficiency * _network_rate(mgmt, link)
    if wan is not None:  # the same hop, over the WAN: the slower of NFC's cap and TCP over the WAN
        to_host = np.minimum(to_host, _network_rate(wan[0], (wan[1], wan[2], 0.0)))
    notes = ((VCPUS_NOTE,) if np.any(np.asarray(vcpus) > np.asarray(streams)) else ()) + _wan_note(path, wan)
    return Stages({"destination_data_mover": mover},
                  {"source_read_compressed": source, "decompression": decompress, "nfc_to_host": to_host}, notes)


def checked_deploy_time_s(path: str, checked: tuple, p: Params, link: tuple = LAN, wan=None):
    """Deployment time from validated inputs (the tuples :func:`checked_inputs`, :func:`checked_link_inputs` and
    :func:`checked_wan_inputs` return) and resolved ``p``: ``setup + size x time per byte``, plus, on paths over
    Ethernet, the transfer's start-up (half an RTT and slow start, :func:`vcperf.network.transfer_time_s`)
    on the hop's network (the WAN where one is crossed); ``inf`` when other traffic leaves a hop nothing."""
    size, net, mgmt, fc, vcpus, streams, setup = checked
    shape = np.broadcast_shapes(*(np.shape(a) for a in (*checked, *link)))  # every input broadcasts, used or not
    stages = checked_stage_rates(path, net, mgmt, fc, vcpus, streams, p, link, wan)
    with np.errstate(divide="ignore"):
        t = setup + size * stages.time_per_byte_s()
        if path in ("host_to_host", "streaming") and wan is not None:
            # slow start fills the pipe at the rate the transfer actually reaches (the slowest stage)
            rate = np.minimum(_network_rate(wan[0], (wan[1], wan[2], 0.0)), 1.0 / stages.time_per_byte_s())
            start = network.transfer_time_s(0.0, 8.0 * rate, wan[1], wan[2]) + _slow_start_idle_s(
                size, 8.0 * rate, wan[1])
            t = t + start
        elif path in ("host_to_host", "streaming"):
            rtt, loss, other = link
            rate = _network_rate(net, link)
            ok = rate > 0
            start = network.transfer_time_s(0.0, np.where(ok, 8.0 * rate, 1.0), rtt, loss)  # rtt / 2
            start = start + _slow_start_idle_s(size, np.where(ok, 8.0 * rate, 1.0), rtt)
            t = np.where(ok, t + start, np.inf)
    return np.broadcast_to(t, shape).copy()


def _slow_start_idle_s(size, rate_bps, rtt):
    """Idle rounds of slow start of a ``size`` transfer at ``rate_bps`` (:func:`vcperf.network.transfer_time_s`
    less its half RTT and serialization)."""
    return network.transfer_time_s(size, rate_bps, rtt, 0.0) - rtt / 2.0 - size * 8.0 / network.tcp_throughput_bps(
        rate_bps, rtt, 0.0)


def path_stages(path: str, *, network_bps=DEFAULT_NETWORK_BPS, mgmt_network_bps=DEFAULT_MGMT_NETWORK_BPS,
                fc_bandwidth_bps=DEFAULT_FC_BANDWIDTH_BPS, vcenter_vcpus=DEFAULT_VCENTER_VCPUS,
                decompression_streams=DEFAULT_DECOMPRESSION_STREAMS, rtt_s=0.0, loss=0.0, other_bps=0.0,
                link: network.Link | None = None, params: Params) -> Stages:
    """Stage rates of ``path`` (see the module docstring for the mechanism of each stage).

    Vectorised: every numeric argument may be an array; they broadcast together.

    Parameters
    ----------
    path : str
        One of :data:`PATHS`.
    network_bps : float or array_like
        Data network line rate (bit/s), > 0: host to host (``host_to_host``) or NFS server to vCenter
        (``streaming``). Default 1 GbE, the testbed's BCM5709 NICs.
    mgmt_network_bps : float or array_like
        vCenter-to-host management network line rate (bit/s), > 0, used by ``streaming``. Default 1 GbE.
    fc_bandwidth_bps : float or array_like
        Nominal Fibre Channel rate (bit/s), > 0; payload rate = nominal x 8b/10b. Default 8GFC.
    vcenter_vcpus : float or array_like
        vCPUs of the vCenter appliance, in [1, 1024]. Default 16 (large vCSA 6.0; the testbed's).
    decompression_streams : float or array_like
        Disks (VMDK streams) the Transfer Service decompresses at once, in [1, 1024]; the
        decompression rate scales with min(vCPUs, streams). Default 1.
    rtt_s : float or array_like
        Round-trip time of the Ethernet hops (s), >= 0. Default 0 (the test bed's LAN).
    loss : float or array_like
        Packet loss probability of the Ethernet hops, in [0, 1). Default 0.
    other_bps : float or array_like
        Other traffic on the Ethernet hops (bit/s), >= 0, served ahead of the copy. Default 0.
    link : vcperf.network.Link, optional
        A WAN between the library's site and the destination host (its rate toward the host,
        ``down_bps``, its RTT and loss): crossed by the hop :data:`WAN_HOP` names (host to host, or
        vCenter to host when streaming), a TCP connection over it; ``rtt_s``, ``loss`` and ``other_bps``
        stay those of the sites' own Ethernet hops. Default None: every hop is a LAN (the test bed).
    params : Params
        Calibrated rates (:func:`vcperf.contentlib.calibrate`; :mod:`vcperf.contentlib.study` fills the
        calibration in).

    Returns
    -------
    Stages
        Rates (uncompressed B/s) of the pipelined and the serial stages of ``path``.

    Raises
    ------
    ValueError
        An unknown ``path``, an input out of range, inputs that do not broadcast, or ``params`` that
        is not a :class:`~vcperf.contentlib.params.Params`.

    Examples
    --------
    >>> from vcperf import contentlib
    >>> st = contentlib.path_stages("host_to_host", network_bps=1e9)
    >>> sorted(st.pipelined)
    ['destination_data_mover', 'ethernet', 'nfc_ethernet', 'source_data_mover']
    >>> bool(st.bottleneck_rate_bytes_per_s() < 1e9 / 8)  # NFC gets a share of 1 GbE
    True

    References
    ----------
    .. [1] J. Guan and D. Bergamasco, "How to Efficiently Deploy Virtual Machines from VMware vSphere
       Content Library", VMware VROOM! Blog, July 2015 (the four experiments and Figure 4).
    .. [2] J. D. C. Little, "A Proof for the Queuing Formula L = lambda W", Operations Research 9(3),
       1961 (the data mover's rate: bytes in flight / per-I/O time).
    .. [3] INCITS 450-2008, "Fibre Channel - Physical Interface-4 (FC-PI-4)" (8GFC: 8b/10b coding,
       800 MB/s payload per direction).
    """
    _check_path(path)
    _, net, mgmt, fc, vcpus, streams, _ = checked_inputs(0.0, network_bps, mgmt_network_bps, fc_bandwidth_bps,
                                                   vcenter_vcpus, decompression_streams, 0.0)
    wan_link, link = link, checked_link_inputs(rtt_s, loss, other_bps)
    v.broadcast(network_bps=net, mgmt_network_bps=mgmt, fc_bandwidth_bps=fc, vcenter_vcpus=vcpus,
                decompression_streams=streams, rtt_s=link[0], loss=link[1], other_bps=link[2])
    return checked_stage_rates(path, net, mgmt, fc, vcpus, streams, resolved_params(params), link,
                               checked_wan_inputs(wan_link))


def deploy_time_s(path: str, size_bytes, *, network_bps=DEFAULT_NETWORK_BPS,
                  mgmt_network_bps=DEFAULT_MGMT_NETWORK_BPS, fc_bandwidth_bps=DEFAULT_FC_BANDWIDTH_BPS,
                  vcenter_vcpus=DEFAULT_VCENTER_VCPUS, decompression_streams=DEFAULT_DECOMPRESSION_STREAMS,
                  setup_time_s=0.0, rtt_s=0.0, loss=0.0, other_bps=0.0, link: network.Link | None = None,
                  params: Params):
    """Completion time (s) of deploying a ``size_bytes`` template over ``path``.

    Vectorised: every numeric argument may be an array; they broadcast together.

    Parameters
    ----------
    path : str
        One of :data:`PATHS` (Experiments 1-4 of the study, Experiments table).
    size_bytes : float or array_like
        Uncompressed template size (bytes), >= 0; the study's is 39 GB.
    network_bps : float or array_like
        Data network line rate (bit/s), > 0 (host to host, or NFS server to vCenter). Default 1 GbE.
    mgmt_network_bps : float or array_like
        vCenter-to-host management network line rate (bit/s), > 0. Default 1 GbE.
    fc_bandwidth_bps : float or array_like
        Nominal Fibre Channel rate (bit/s), > 0. Default 8GFC.
    vcenter_vcpus : float or array_like
        vCPUs of the vCenter appliance, in [1, 1024]. Default 16.
    decompression_streams : float or array_like
        Disks decompressed at once by the Transfer Service, in [1, 1024]. Default 1.
    setup_time_s : float or array_like
        Fixed cost (s), >= 0, independent of size. Default 0: the study prints no time it could be
        fitted from.
    rtt_s : float or array_like
        Round-trip time of the Ethernet hops (s), >= 0. Default 0 (the test bed's LAN).
    loss : float or array_like
        Packet loss probability of the Ethernet hops, in [0, 1). Default 0.
    other_bps : float or array_like
        Other traffic on the Ethernet hops (bit/s), >= 0, served ahead of the copy. Default 0.
    link : vcperf.network.Link, optional
        A WAN between the library's site and the destination host (its rate toward the host,
        ``down_bps``, its RTT and loss): crossed by the hop :data:`WAN_HOP` names (host to host, or
        vCenter to host when streaming), a TCP connection over it; ``rtt_s``, ``loss`` and ``other_bps``
        stay those of the sites' own Ethernet hops. Default None: every hop is a LAN (the test bed).
    params : Params
        Calibrated rates (:func:`vcperf.contentlib.calibrate`; :mod:`vcperf.contentlib.study` fills the
        calibration in).

    Returns
    -------
    numpy.ndarray
        ``setup_time_s + size_bytes * time_per_byte`` (:meth:`Stages.time_per_byte_s`), in the
        broadcast shape of the inputs.

    Raises
    ------
    ValueError
        As :func:`path_stages`, and for a negative ``size_bytes`` or ``setup_time_s``.

    Examples
    --------
    >>> from vcperf import contentlib
    >>> vaai = contentlib.deploy_time_s("vaai", 39e9)
    >>> bool(contentlib.deploy_time_s("streaming", 39e9) > 5 * vaai)  # the paper: about seven times
    True
    >>> contentlib.deploy_time_s("host_fc", [0.0, 39e9]).shape
    (2,)

    Over a branch WAN, the WAN hop sets the rate once: the same bytes take the time of one TCP transfer
    over that link (:func:`vcperf.traffic.elastic_time_s`), whichever API asks.

    >>> from vcperf import network, traffic
    >>> wan = network.Link(10e6, 0.08, 0.001)
    >>> t = float(contentlib.deploy_time_s("host_to_host", 40e9, link=wan))
    >>> round(t / float(traffic.elastic_time_s(40e9, 10e6, 0.08, 0.001)), 4)
    1.0

    References
    ----------
    .. [1] J. Guan and D. Bergamasco, "How to Efficiently Deploy Virtual Machines from VMware vSphere
       Content Library", VMware VROOM! Blog, July 2015.
    .. [2] J. D. C. Little, "A Proof for the Queuing Formula L = lambda W", Operations Research 9(3),
       1961.
    """
    _check_path(path)
    checked = checked_inputs(size_bytes, network_bps, mgmt_network_bps, fc_bandwidth_bps, vcenter_vcpus,
                      decompression_streams, setup_time_s)
    wan_link, link = link, checked_link_inputs(rtt_s, loss, other_bps)
    names = ("size_bytes", "network_bps", "mgmt_network_bps", "fc_bandwidth_bps", "vcenter_vcpus",
             "decompression_streams", "setup_time_s", "rtt_s", "loss", "other_bps")
    v.broadcast(**dict(zip(names, (*checked, *link), strict=True)))
    return checked_deploy_time_s(path, checked, resolved_params(params), link, checked_wan_inputs(wan_link))
