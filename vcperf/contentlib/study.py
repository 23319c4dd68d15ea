"""The Content Library study's facade: its deployment paths at the calibration, the one module of the study
that fills ``params=None`` (:func:`vcperf.contentlib.calibrate`, imported: never looked up in a registry).

Each function here is the model of the same name in :mod:`~vcperf.contentlib.paths`,
:mod:`~vcperf.contentlib.concurrency` or :mod:`~vcperf.contentlib.layouts` (which take ``params``
explicitly, every input documented there) with ``params`` defaulting to the calibration.
"""

from __future__ import annotations

from vcperf import _validate as v
from vcperf import network
from vcperf.contentlib import concurrency, layouts, paths
from vcperf.contentlib.calibration import calibrate
from vcperf.contentlib.params import Params
from vcperf.contentlib.paths import (
    DEFAULT_DECOMPRESSION_STREAMS,
    DEFAULT_FC_BANDWIDTH_BPS,
    DEFAULT_MGMT_NETWORK_BPS,
    DEFAULT_NETWORK_BPS,
    DEFAULT_VCENTER_VCPUS,
)


def _calibrated(params) -> Params:
    """``params`` checked, or the calibration for None."""
    return calibrate() if params is None else v.instance("params", params, Params, "a vcperf.contentlib.Params or None")


def path_stages(path: str, *, network_bps=DEFAULT_NETWORK_BPS, mgmt_network_bps=DEFAULT_MGMT_NETWORK_BPS,
                fc_bandwidth_bps=DEFAULT_FC_BANDWIDTH_BPS, vcenter_vcpus=DEFAULT_VCENTER_VCPUS,
                decompression_streams=DEFAULT_DECOMPRESSION_STREAMS, rtt_s=0.0, loss=0.0, other_bps=0.0,
                link: network.Link | None = None, params: Params | None = None) -> paths.Stages:
    """Stage rates of ``path`` at the calibration (:func:`vcperf.contentlib.paths.path_stages`).

    Parameters
    ----------
    path, network_bps, mgmt_network_bps, fc_bandwidth_bps, vcenter_vcpus, decompression_streams, rtt_s, loss, \
other_bps, link
        As :func:`vcperf.contentlib.paths.path_stages`.
    params : Params, optional
        Calibrated rates (default: the study's calibration).

    Examples
    --------
    >>> from vcperf import contentlib
    >>> from vcperf.contentlib import paths
    >>> st = contentlib.path_stages("host_to_host", network_bps=1e9)
    >>> same = paths.path_stages("host_to_host", network_bps=1e9, params=contentlib.calibrate())
    >>> bool(st.bottleneck_rate_bytes_per_s() == same.bottleneck_rate_bytes_per_s())
    True
    """
    return paths.path_stages(path, network_bps=network_bps, mgmt_network_bps=mgmt_network_bps,
                             fc_bandwidth_bps=fc_bandwidth_bps, vcenter_vcpus=vcenter_vcpus,
                             decompression_streams=decompression_streams, rtt_s=rtt_s, loss=loss, other_bps=other_bps,
                             link=link, params=_calibrated(params))


def deploy_time_s(path: str, size_bytes, *, network_bps=DEFAULT_NETWORK_BPS,
                  mgmt_network_bps=DEFAULT_MGMT_NETWORK_BPS, fc_bandwidth_bps=DEFAULT_FC_BANDWIDTH_BPS,
                  vcenter_vcpus=DEFAULT_VCENTER_VCPUS, decompression_streams=DEFAULT_DECOMPRESSION_STREAMS,
                  setup_time_s=0.0, rtt_s=0.0, loss=0.0, other_bps=0.0, link: network.Link | None = None,
                  params: Params | None = None):
    """Completion time (s) of deploying a ``size_bytes`` template over ``path`` at the calibration
    (:func:`vcperf.contentlib.paths.deploy_time_s`).

    Parameters
    ----------
    path, size_bytes, network_bps, mgmt_network_bps, fc_bandwidth_bps, vcenter_vcpus, decompression_streams, \
setup_time_s, rtt_s, loss, other_bps, link
        As :func:`vcperf.contentlib.paths.deploy_time_s`.
    params : Params, optional
        Calibrated rates (default: the study's calibration).

    Examples
    --------
    >>> from vcperf import contentlib
    >>> bool(contentlib.deploy_time_s("vaai", 39e9) < contentlib.deploy_time_s("streaming", 39e9))
    True
    """
    return paths.deploy_time_s(path, size_bytes, network_bps=network_bps, mgmt_network_bps=mgmt_network_bps,
                               fc_bandwidth_bps=fc_bandwidth_bps, vcenter_vcpus=vcenter_vcpus,
                               decompression_streams=decompression_streams, setup_time_s=setup_time_s, rtt_s=rtt_s,
                               loss=loss, other_bps=other_bps, link=link, params=_calibrated(params))


def concurrent_deploy_time_s(path: str, size_bytes: float, n_deployments: int, *, network_bps=DEFAULT_NETWORK_BPS,
                             mgmt_network_bps=DEFAULT_MGMT_NETWORK_BPS, fc_bandwidth_bps=DEFAULT_FC_BANDWIDTH_BPS,
                             vcenter_vcpus=DEFAULT_VCENTER_VCPUS, rtt_s=0.0, loss=0.0, other_bps=0.0,
                             params: Params | None = None) -> concurrency.ConcurrentDeploy:
    """Time for ``n`` simultaneous deployments of one template over ``path`` at the calibration
    (:func:`vcperf.contentlib.concurrency.concurrent_deploy_time_s`).

    Parameters
    ----------
    path, size_bytes, n_deployments, network_bps, mgmt_network_bps, fc_bandwidth_bps, vcenter_vcpus, rtt_s, \
loss, other_bps
        As :func:`vcperf.contentlib.concurrency.concurrent_deploy_time_s`.
    params : Params, optional
        Calibrated rates (default: the study's calibration).

    Examples
    --------
    >>> from vcperf import contentlib
    >>> r = contentlib.concurrent_deploy_time_s("streaming", 39e9, 4)
    >>> bool(r.time_s[-1] > r.time_s[0])
    True
    """
    return concurrency.concurrent_deploy_time_s(
        path, size_bytes, n_deployments, network_bps=network_bps, mgmt_network_bps=mgmt_network_bps,
        fc_bandwidth_bps=fc_bandwidth_bps, vcenter_vcpus=vcenter_vcpus, rtt_s=rtt_s, loss=loss, other_bps=other_bps,
        params=_calibrated(params))


def recommend_path(layout, size_bytes, *, network_bps=DEFAULT_NETWORK_BPS, mgmt_network_bps=DEFAULT_MGMT_NETWORK_BPS,
                   fc_bandwidth_bps=DEFAULT_FC_BANDWIDTH_BPS, vcenter_vcpus=DEFAULT_VCENTER_VCPUS,
                   decompression_streams=DEFAULT_DECOMPRESSION_STREAMS, setup_time_s=0.0, rtt_s=0.0, loss=0.0,
                   link: network.Link | None = None, params: Params | None = None) -> layouts.Recommendation:
    """The fastest deployment path the storage ``layout`` allows, at the calibration
    (:func:`vcperf.contentlib.layouts.recommend_path`).

    Parameters
    ----------
    layout, size_bytes, network_bps, mgmt_network_bps, fc_bandwidth_bps, vcenter_vcpus, decompression_streams, \
setup_time_s, rtt_s, loss, link
        As :func:`vcperf.contentlib.layouts.recommend_path`.
    params : Params, optional
        Calibrated rates (default: the study's calibration).

    Examples
    --------
    >>> from vcperf import contentlib
    >>> contentlib.recommend_path("shared_fc_host", 39e9).path
    'host_fc'
    """
    return layouts.recommend_path(layout, size_bytes, network_bps=network_bps, mgmt_network_bps=mgmt_network_bps,
                                  fc_bandwidth_bps=fc_bandwidth_bps, vcenter_vcpus=vcenter_vcpus,
                                  decompression_streams=decompression_streams, setup_time_s=setup_time_s, rtt_s=rtt_s,
                                  loss=loss, link=link, params=_calibrated(params))
