"""What-ifs beyond the study: several deployments at once, and a subscribed library syncing over a
branch link.

The study (J. Guan and D. Bergamasco, "How to Efficiently Deploy Virtual Machines from VMware vSphere
Content Library", VMware VROOM! Blog, July 2015) measures one deployment at a time. These what-ifs
reuse the stages of :mod:`vcperf.contentlib.paths` and the shared primitives:

- **Concurrent deployments** (:func:`concurrent_deploy_time_s`): ``n`` deployments of the same
  template over the same path start together. Pipelined stages (array copy, host data mover, NFC
  over Ethernet) are shared links and movers: processor sharing gives each deployment ``1/n`` of the
  slowest stage, so all finish after ``n x size / rate``. The streaming path's Transfer Service
  runs one thread per deployment through *read compressed -> decompress -> send to host*: a closed
  queueing network with ``n`` customers, solved exactly by :func:`vcperf.queueing.mva` -- the NFS
  read and the management hop are shared (queueing stations), decompression runs on the vCenter's
  vCPUs (a delay station while there are at least as many vCPUs as deployments; beyond that the
  Seidmann split of an ``m``-server station into a queue of demand ``D/m`` and a delay of
  ``D (m-1)/m``). With ``n = 1`` both reduce to :func:`~vcperf.contentlib.paths.deploy_time_s`.
- **Subscribed library sync** (:func:`subscription_sync_time_s`): a subscriber vCenter pulls each
  item of a published library over a :class:`vcperf.network.Link` (e.g. a ROBO Table 1 preset), one
  HTTP transfer per item, each paying TCP slow start, RTT and loss (:func:`vcperf.network.transfer_time_s`).

References
----------
.. [1] M. Reiser and S. S. Lavenberg, "Mean-Value Analysis of Closed Multichain Queuing Networks",
   Journal of the ACM 27(2), 313-322, 1980.
.. [2] A. Seidmann, P. J. Schweitzer, S. Shalev-Oren, "Computerized Closed Queueing Network Models
   of Flexible Manufacturing Systems", Large Scale Systems 12, 91-107, 1987.
.. [3] J. Padhye, V. Firoiu, D. Towsley, J. Kurose, "Modeling TCP Throughput: A Simple Model and its
   Empirical Validation", ACM SIGCOMM 1998.
.. [4] N. Cardwell, S. Savage, T. Anderson, "Modeling TCP Latency", IEEE INFOCOM 2000.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vcperf import _validate as v
from vcperf import network, queueing
from vcperf.contentlib.params import Params
from vcperf.contentlib.paths import (
    DEFAULT_FC_BANDWIDTH_BPS,
    DEFAULT_MGMT_NETWORK_BPS,
    DEFAULT_NETWORK_BPS,
    DEFAULT_VCENTER_VCPUS,
    PATHS,
    checked_inputs,
    checked_link_inputs,
    checked_stage_rates,
    resolved_params,
)

#: Largest number of simultaneous deployments the what-if solves (MVA over 1..n).
MAX_DEPLOYMENTS = 1000


@dataclass(frozen=True)
class ConcurrentDeploy:
    """Completion time of ``n`` simultaneous deployments, for every ``n`` in ``1..n_deployments``.

    Attributes
    ----------
    n : numpy.ndarray
        1, 2, ..., n_deployments.
    time_s : numpy.ndarray
        When all ``n`` deployments have finished (they finish together: identical jobs, fair share).
    aggregate_bytes_per_s : numpy.ndarray
        ``n x size / time``: bytes deployed per second by all of them together.
    bottleneck : str
        The stage that limits the aggregate rate at ``n_deployments``.
    """

    n: np.ndarray
    time_s: np.ndarray
    aggregate_bytes_per_s: np.ndarray
    bottleneck: str


def concurrent_deploy_time_s(path: str, size_bytes: float, n_deployments: int, *,
                             network_bps=DEFAULT_NETWORK_BPS, mgmt_network_bps=DEFAULT_MGMT_NETWORK_BPS,
                             fc_bandwidth_bps=DEFAULT_FC_BANDWIDTH_BPS, vcenter_vcpus=DEFAULT_VCENTER_VCPUS,
                             rtt_s=0.0, loss=0.0, other_bps=0.0, params: Params) -> ConcurrentDeploy:
    """Time for ``n`` simultaneous deployments of one template over ``path`` (see the module docstring).

    Parameters
    ----------
    path : str
        One of :data:`~vcperf.contentlib.paths.PATHS`.
    size_bytes : float
        Template size (bytes), > 0.
    n_deployments : int
        Largest number of simultaneous deployments, in [1, :data:`MAX_DEPLOYMENTS`].
    network_bps : float
        Data network line rate (bit/s), > 0. Default 1 GbE.
    mgmt_network_bps : float
        vCenter-to-host management network line rate (bit/s), > 0. Default 1 GbE.
    fc_bandwidth_bps : float
        Nominal Fibre Channel rate (bit/s), > 0. Default 8GFC.
    vcenter_vcpus : float
        vCPUs of the vCenter appliance, in [1, 1024]: the servers of the decompression station (one
        decompression stream per deployment). Default 16.
    rtt_s, loss, other_bps : float
        The Ethernet hops' round-trip time (s), loss probability and other traffic (bit/s) (see
        :func:`~vcperf.contentlib.paths.deploy_time_s`). Default: the test bed's LAN.
    params : Params
        Calibrated rates (:func:`vcperf.contentlib.calibrate`; :mod:`vcperf.contentlib.study` fills the
        calibration in).

    Returns
    -------
    ConcurrentDeploy
        Completion time and aggregate rate for 1..``n_deployments`` simultaneous deployments.

    Raises
    ------
    ValueError
        An unknown ``path``, a non-scalar or out-of-range input, or ``params`` that is not a
        :class:`~vcperf.contentlib.params.Params`.

    Examples
    --------
    >>> from vcperf import contentlib
    >>> r = contentlib.concurrent_deploy_time_s("streaming", 39e9, 4)
    >>> bool(r.time_s[0] == contentlib.deploy_time_s("streaming", 39e9))
    True
    >>> bool(r.aggregate_bytes_per_s[-1] > r.aggregate_bytes_per_s[0])  # threads overlap
    True

    References
    ----------
    .. [1] M. Reiser and S. S. Lavenberg, "Mean-Value Analysis of Closed Multichain Queuing Networks",
       Journal of the ACM 27(2), 1980 (exact MVA of the Transfer Service threads).
    .. [2] A. Seidmann, P. J. Schweitzer, S. Shalev-Oren, Large Scale Systems 12, 1987 (the
       ``m``-vCPU decompression station as a queue plus a delay).
    """
    v.choice("path", path, PATHS)
    size = v.scalar("size_bytes", size_bytes, 0.0, np.inf, lo_open=True, hi_open=True)
    n_max = v.integer("n_deployments", n_deployments, lo=1, hi=MAX_DEPLOYMENTS)
    for name, val in (("network_bps", network_bps), ("mgmt_network_bps", mgmt_network_bps),
                      ("fc_bandwidth_bps", fc_bandwidth_bps), ("vcenter_vcpus", vcenter_vcpus)):
        if v.ndim(name, val) != 0:
            raise ValueError(f"{name} must be a scalar for concurrent_deploy_time_s; got shape {np.shape(val)}")
    vcpus = float(v.check_range("vcenter_vcpus", vcenter_vcpus, 1.0, 1024.0))
    _, net, mgmt, fc, vcpus_in, streams, _ = checked_inputs(size, network_bps, mgmt_network_bps, fc_bandwidth_bps,
                                                     vcenter_vcpus, 1, 0.0)
    for name, val in (("rtt_s", rtt_s), ("loss", loss), ("other_bps", other_bps)):
        if v.ndim(name, val) != 0:
            raise ValueError(f"{name} must be a scalar for concurrent_deploy_time_s; got shape {np.shape(val)}")
    link = checked_link_inputs(rtt_s, loss, other_bps)
    st = checked_stage_rates(path, net, mgmt, fc, vcpus_in, streams, resolved_params(params), link)
    if min(float(r) for r in (*st.pipelined.values(), *st.serial.values())) <= 0:
        raise ValueError(f"other_bps={other_bps!r} leaves the path's network no capacity: the deployments never finish")
    n = np.arange(1, n_max + 1, dtype=float)
    # Pipelined stages: shared by every deployment (processor sharing of the slowest one).
    pipe = {k: float(r) for k, r in st.pipelined.items()}
    slowest = min(pipe, key=pipe.get)
    time = n * size / pipe[slowest]
    bottleneck = slowest
    if st.serial:
        # One Transfer Service thread per deployment: read -> decompress -> send, per byte.
        read = 1.0 / float(st.serial["source_read_compressed"])
        dec = 1.0 / float(st.serial["decompression"])  # one stream: one vCPU's rate
        send = 1.0 / float(st.serial["nfc_to_host"])
        m = vcpus
        # While n <= m every thread has a vCPU: decompression is exactly a delay station. Beyond,
        # Seidmann's split of the m-server station: a queue of demand D/m plus a delay of D (m-1)/m.
        pure = queueing.mva([read, send, dec], n_max, delay_stations=[False, False, True])
        split = queueing.mva([read, dec / m, send, dec * (m - 1) / m], n_max,
                             delay_stations=[False, False, False, True])
        r_per_byte = np.where(n <= m, pure.response_time_s, split.response_time_s)
        serial_time = size * r_per_byte
        bottleneck = "transfer_service" if serial_time[-1] >= time[-1] else slowest
        time = np.maximum(time, serial_time)
    return ConcurrentDeploy(n=n.astype(int), time_s=time, aggregate_bytes_per_s=n * size / time,
                            bottleneck=bottleneck)


def subscription_sync_time_s(item_bytes, link: network.Link, *, n_items: int = 1, other_bps=0.0):
    """Time (s) for a subscribed library to pull ``n_items`` items of ``item_bytes`` over ``link``.

    Each item is one HTTP transfer from the publisher's Transfer Service toward the subscriber
    (``link.down_bps``), moved by the one transfer model (:func:`vcperf.network.bulk_transfer_time_s`:
    TCP payload on the wire, slow start, RTT and loss, the rate ``other_bps`` leaves); items are
    pulled one after another. Vectorised over ``item_bytes``. ``inf`` when the other traffic leaves
    the link nothing.

    Parameters
    ----------
    item_bytes : float or array_like
        Size of each library item (bytes), > 0.
    link : vcperf.network.Link
        The publisher-to-subscriber link (bandwidth, RTT, loss), e.g. ``vcperf.robo.preset("satellite")``.
    n_items : int
        Items pulled one after another, in [1, 10**6]. Default 1.
    other_bps : float
        Other traffic toward the subscriber (bit/s), >= 0. Default 0.

    Returns
    -------
    numpy.ndarray
        Sync time (s), in the shape of ``item_bytes``.

    Raises
    ------
    ValueError
        If ``link`` is not a :class:`vcperf.network.Link` or a size or count is out of range.

    Examples
    --------
    >>> from vcperf import contentlib, network
    >>> lan = network.Link(1e9, 0.001)
    >>> sat = network.Link(1.5e6, 0.5, 0.001)
    >>> bool(contentlib.subscription_sync_time_s(39e9, sat) > 100 * contentlib.subscription_sync_time_s(39e9, lan))
    True

    References
    ----------
    .. [1] J. Padhye, V. Firoiu, D. Towsley, J. Kurose, "Modeling TCP Throughput: A Simple Model and
       its Empirical Validation", ACM SIGCOMM 1998.
    .. [2] N. Cardwell, S. Savage, T. Anderson, "Modeling TCP Latency", IEEE INFOCOM 2000 (slow start).
    """
    network.check_link("link", link)
    size = v.positive("item_bytes", item_bytes)
    count = v.integer("n_items", n_items, lo=1, hi=10**6)
    other = v.nonneg("other_bps", other_bps)
    return count * np.asarray(network.bulk_transfer_time_s(size, link.down_bps, link.rtt_s, link.loss,
                                                           other_bps=other), dtype=float)
