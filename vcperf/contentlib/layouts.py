"""Storage layouts of the Content Library study and the fastest deployment path each allows.

From the study (J. Guan and D. Bergamasco, "How to Efficiently Deploy Virtual Machines from VMware
vSphere Content Library", VMware VROOM! Blog, July 2015): its Experiments table, Figure 3, the Data
Transfer section (direct copy vs streaming mode) and its Conclusions.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vcperf import _validate as v
from vcperf import network
from vcperf.contentlib.params import Params
from vcperf.contentlib.paths import (
    DEFAULT_DECOMPRESSION_STREAMS,
    DEFAULT_FC_BANDWIDTH_BPS,
    DEFAULT_MGMT_NETWORK_BPS,
    DEFAULT_NETWORK_BPS,
    DEFAULT_VCENTER_VCPUS,
    PATHS,
    WAN_HOP,
    checked_deploy_time_s,
    checked_inputs,
    checked_link_inputs,
    checked_wan_inputs,
    resolved_params,
)


@dataclass(frozen=True)
class Layout:
    """Where the library's content and the destination datastore sit (Experiments table, Figure 3).

    Attributes
    ----------
    same_vaai_array : bool
        Source and destination datastores live on one VAAI-capable array (enables ``vaai``).
    host_sees_both : bool
        One ESXi host is connected (e.g. over FC) to both datastores (enables ``host_fc``).
    source_on_host_datastore : bool
        The library is backed by a datastore of an ESXi host, not a vCenter-mounted NFS share.
    same_vcenter : bool
        Source and destination hosts are managed by the same vCenter (direct copy mode possible).

    Examples
    --------
    >>> from vcperf import contentlib
    >>> fc_but_two_vcenters = contentlib.Layout(same_vaai_array=False, host_sees_both=True,
    ...                                         source_on_host_datastore=True, same_vcenter=False)
    >>> contentlib.recommend_path(fc_but_two_vcenters, 39e9).path
    'host_fc'
    """

    same_vaai_array: bool
    host_sees_both: bool
    source_on_host_datastore: bool
    same_vcenter: bool

    def available_paths(self) -> tuple[str, ...]:
        """Paths this layout allows; ``streaming`` always works (Data Transfer section).

        Examples
        --------
        >>> from vcperf.contentlib.layouts import LAYOUTS
        >>> LAYOUTS["different_hosts"].available_paths()
        ('host_to_host', 'streaming')
        """
        out = []
        if self.same_vaai_array and self.host_sees_both and self.source_on_host_datastore:
            out.append("vaai")
        if self.host_sees_both and self.source_on_host_datastore:
            out.append("host_fc")
        if self.source_on_host_datastore and self.same_vcenter:
            out.append("host_to_host")
        out.append("streaming")
        return tuple(out)


#: The study's four layouts plus the cross-vCenter case the Data Transfer section describes.
LAYOUTS = {
    "same_vaai_array": Layout(True, True, True, True),
    "shared_fc_host": Layout(False, True, True, True),
    "different_hosts": Layout(False, False, True, True),
    "nfs_on_vcenter": Layout(False, False, False, True),
    "different_vcenters": Layout(False, False, True, False),
}
LAYOUT_LABELS = {
    "same_vaai_array": "same VAAI array (Exp 1)",
    "shared_fc_host": "one host sees both datastores (Exp 2)",
    "different_hosts": "datastores on different hosts (Exp 3)",
    "nfs_on_vcenter": "compressed on vCenter NFS (Exp 4)",
    "different_vcenters": "hosts in different vCenters",
}


@dataclass(frozen=True)
class Recommendation:
    """Fastest available path, its time, and every path's time (NaN where the layout forbids it).

    Attributes
    ----------
    layout : str
        The layout's key in :data:`LAYOUTS`, or ``"custom"`` for a :class:`Layout` passed in.
    path : str
        The fastest path the layout allows (one of :data:`~vcperf.contentlib.paths.PATHS`).
    time_s : float
        Its deployment time (s).
    times_s : dict
        Path -> deployment time (s); NaN for the paths the layout does not offer.
    available : tuple of str
        The paths the layout offers (:meth:`Layout.available_paths`).
    wan_hop : str
        The hop of the chosen path that crosses the WAN (``link`` of :func:`recommend_path`): ``""``
        without a WAN, ``"none"`` when the path moves no byte over a network.
    """

    layout: str
    path: str
    time_s: float
    times_s: dict
    available: tuple
    wan_hop: str = ""


def recommend_path(layout, size_bytes, *, network_bps=DEFAULT_NETWORK_BPS,
                   mgmt_network_bps=DEFAULT_MGMT_NETWORK_BPS, fc_bandwidth_bps=DEFAULT_FC_BANDWIDTH_BPS,
                   vcenter_vcpus=DEFAULT_VCENTER_VCPUS, decompression_streams=DEFAULT_DECOMPRESSION_STREAMS,
                   setup_time_s=0.0, rtt_s=0.0, loss=0.0, link: network.Link | None = None,
                   params: Params) -> Recommendation:
    """The fastest deployment path the storage ``layout`` allows, with its predicted time.

    This turns the study's Conclusions (VAAI array > one host on both datastores > host to host,
    ideally on 10 GbE > streaming) into a computed choice for the user's sizes and rates.

    Parameters
    ----------
    layout : str or Layout
        A key of :data:`LAYOUTS` or a :class:`Layout`.
    size_bytes : float
        Template size (bytes), >= 0, scalar.
    network_bps : float
        Data network line rate (bit/s), > 0. Default 1 GbE.
    mgmt_network_bps : float
        vCenter-to-host management network line rate (bit/s), > 0. Default 1 GbE.
    fc_bandwidth_bps : float
        Nominal Fibre Channel rate (bit/s), > 0. Default 8GFC.
    vcenter_vcpus : float
        vCPUs of the vCenter appliance, in [1, 1024]. Default 16.
    decompression_streams : float
        Disks decompressed at once by the Transfer Service, in [1, 1024]. Default 1.
    setup_time_s : float
        Fixed cost of any deployment (s), >= 0. Default 0.
    rtt_s, loss : float
        Round trip (s) and packet loss of the sites' own Ethernet hops. Default 0 (a LAN).
    link : vcperf.network.Link, optional
        A WAN between the library's site and the destination host (a branch): crossed by the hop
        :data:`~vcperf.contentlib.paths.WAN_HOP` names, at TCP's rate over its rate, RTT and loss.
    params : Params
        Calibrated rates (:func:`vcperf.contentlib.calibrate`; :mod:`vcperf.contentlib.study` fills the
        calibration in).

    Returns
    -------
    Recommendation
        The fastest available path and its time (s), and every path's time (NaN where the layout
        does not offer the path).

    Raises
    ------
    ValueError
        An unknown layout, a non-scalar or out-of-range input, or ``params`` that is not a
        :class:`~vcperf.contentlib.params.Params`.

    Examples
    --------
    >>> from vcperf import contentlib
    >>> contentlib.recommend_path("shared_fc_host", 39e9).path
    'host_fc'
    >>> rec = contentlib.recommend_path("nfs_on_vcenter", 39e9)
    >>> rec.available, bool(rec.time_s > 0)
    (('streaming',), True)

    References
    ----------
    .. [1] J. Guan and D. Bergamasco, "How to Efficiently Deploy Virtual Machines from VMware vSphere
       Content Library", VMware VROOM! Blog, July 2015 (Conclusions).
    """
    if isinstance(layout, str):
        name = v.choice("layout", layout, LAYOUTS)
        lay = LAYOUTS[name]
    elif isinstance(layout, Layout):
        name, lay = "custom", layout
    else:
        raise ValueError(f"layout must be one of {sorted(LAYOUTS)} or a Layout; got {layout!r}")
    for pname, val in (("size_bytes", size_bytes), ("network_bps", network_bps),
                       ("mgmt_network_bps", mgmt_network_bps), ("fc_bandwidth_bps", fc_bandwidth_bps),
                       ("vcenter_vcpus", vcenter_vcpus), ("decompression_streams", decompression_streams),
                       ("setup_time_s", setup_time_s)):
        if v.ndim(pname, val) != 0:
            raise ValueError(f"{pname} must be a scalar for recommend_path; got shape {np.shape(val)}")
    checked = checked_inputs(size_bytes, network_bps, mgmt_network_bps, fc_bandwidth_bps, vcenter_vcpus,
                      decompression_streams, setup_time_s)
    lan = checked_link_inputs(v.scalar("rtt_s", rtt_s, 0.0, np.inf, hi_open=True), v.scalar("loss", loss, 0.0, 1.0,
                                                                                     hi_open=True), 0.0)
    wan = checked_wan_inputs(link)
    p = resolved_params(params)
    available = lay.available_paths()
    times = {path: float(checked_deploy_time_s(path, checked, p, lan, wan)) if path in available else float("nan")
             for path in PATHS}
    best = min(available, key=lambda path: times[path])
    hop = "" if wan is None else (WAN_HOP[best] or "none")
    return Recommendation(layout=name, path=best, time_s=times[best], times_s=times, available=available, wan_hop=hop)
