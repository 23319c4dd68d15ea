"""Storage layouts of the Content Library study and the fastest deployment path each allows.

Seed ``003_a39039efb1262c72.txt`` (Experiments table, Figure 3, Data Transfer section, Conclusions).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vcperf import _validate as v
from vcperf.contentlib.paths import (
    DEFAULT_DECOMPRESSION_STREAMS,
    DEFAULT_FC_BANDWIDTH_BPS,
    DEFAULT_MGMT_NETWORK_BPS,
    DEFAULT_NETWORK_BPS,
    DEFAULT_VCENTER_VCPUS,
    PATHS,
    Params,
    _inputs,
    deploy_time_s,
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
    """

    same_vaai_array: bool
    host_sees_both: bool
    source_on_host_datastore: bool
    same_vcenter: bool

    def available_paths(self) -> tuple[str, ...]:
        """Paths this layout allows; ``streaming`` always works (Data Transfer section)."""
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
    """Fastest available path, its time, and every path's time (NaN where the layout forbids it)."""

    layout: str
    path: str
    time_s: float
    times_s: dict
    available: tuple


def recommend_path(layout, size_bytes, *, network_bps=DEFAULT_NETWORK_BPS,
                   mgmt_network_bps=DEFAULT_MGMT_NETWORK_BPS, fc_bandwidth_bps=DEFAULT_FC_BANDWIDTH_BPS,
                   vcenter_vcpus=DEFAULT_VCENTER_VCPUS, decompression_streams=DEFAULT_DECOMPRESSION_STREAMS,
                   setup_time_s=0.0, params: Params | None = None) -> Recommendation:
    """The fastest deployment path the storage ``layout`` allows, with its predicted time.

    This turns the study's Conclusions (VAAI array > one host on both datastores > host to host,
    ideally on 10 GbE > streaming) into a computed choice for the user's sizes and rates.

    Parameters
    ----------
    layout : str or Layout
        A key of :data:`LAYOUTS` or a :class:`Layout`.
    size_bytes : float
        Template size (bytes), scalar.
    network_bps, mgmt_network_bps, fc_bandwidth_bps, vcenter_vcpus, decompression_streams, setup_time_s, params
        Scalars; see :func:`deploy_time_s`.
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
        if np.ndim(val) != 0:
            raise ValueError(f"{pname} must be a scalar for recommend_path; got shape {np.shape(val)}")
    _inputs(size_bytes, network_bps, mgmt_network_bps, fc_bandwidth_bps, vcenter_vcpus,
            decompression_streams, setup_time_s)
    kw = dict(network_bps=network_bps, mgmt_network_bps=mgmt_network_bps, fc_bandwidth_bps=fc_bandwidth_bps,
              vcenter_vcpus=vcenter_vcpus, decompression_streams=decompression_streams,
              setup_time_s=setup_time_s, params=params)
    available = lay.available_paths()
    times = {p: float(deploy_time_s(p, size_bytes, **kw)) if p in available else float("nan") for p in PATHS}
    best = min(available, key=lambda p: times[p])
    return Recommendation(layout=name, path=best, time_s=times[best], times_s=times, available=available)
