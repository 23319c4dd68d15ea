"""Replication traffic and WAL writes of the VCHA Active node (``000_bf7f1144753162c9.txt``, Tables
9, 10, 11).

WAL bytes per VCbench operation times throughput, plus background WAL (statistics, events, tasks),
go over eth1 to the Passive; the Active's WAL disk (sdg) writes every flushed WAL page again plus
the new WAL bytes. Management traffic on eth0 is likewise a background rate (host sync and
heartbeats) plus bytes per operation (host RPCs, client SDK traffic).

This module is a pure model: the parameters are arguments (:mod:`vcperf.vcha.params`; the study's
values are fitted by :mod:`vcperf.vcha.calibration`).
"""

from __future__ import annotations

from vcperf import _validate as v
from vcperf.vcha.params import WalParams

#: PostgreSQL WAL page (``XLOG_BLCKSZ``, default 8 KiB): every WAL flush rewrites the current page.
WAL_PAGE_BYTES = 8192


def management_traffic_bytes_per_s(throughput_per_s, params: WalParams):
    """eth0 receive and transmit rates (bytes/s) at a VCbench throughput (Table 11 eth0).

    Parameters
    ----------
    throughput_per_s : float or array_like
        VCbench operations per second, >= 0 (finite).
    params : WalParams
        The study's: ``vcperf.vcha.calibrate().wal``.

    Returns
    -------
    tuple of ndarray
        ``(receive, transmit)``: background + bytes/op x throughput, bytes/s.

    Examples
    --------
    >>> from vcperf import vcha
    >>> rx, tx = vcha.management_traffic_bytes_per_s(50.0, vcha.calibrate().wal)
    >>> bool(rx > tx > 0)
    True
    """
    x = v.nonneg("throughput_per_s", throughput_per_s)
    v.instance("params", params, WalParams, "the study's WalParams (vcperf.vcha.calibrate().wal)")
    p = params
    return (p.eth0_receive_background_bytes_per_s + p.eth0_receive_bytes_per_op * x,
            p.eth0_transmit_background_bytes_per_s + p.eth0_transmit_bytes_per_op * x)


def replication_traffic_bytes_per_s(throughput_per_s, params: WalParams):
    """WAL streamed Active -> Passive over eth1 (bytes/s), Table 11 eth1 transmit.

    ``background_wal_bytes_per_s + wal_bytes_per_op * throughput_per_s``.

    Parameters
    ----------
    throughput_per_s : float or array_like
        VCbench operations per second, >= 0 (finite).
    params : WalParams
        The study's: ``vcperf.vcha.calibrate().wal``.

    Examples
    --------
    >>> from vcperf import vcha
    >>> w = vcha.calibrate().wal
    >>> bool(vcha.replication_traffic_bytes_per_s(0.0, w) == w.background_wal_bytes_per_s)
    True
    """
    x = v.nonneg("throughput_per_s", throughput_per_s)
    v.instance("params", params, WalParams, "the study's WalParams (vcperf.vcha.calibrate().wal)")
    return params.background_wal_bytes_per_s + params.wal_bytes_per_op * x


def wal_disk_write_bytes_per_s(throughput_per_s, wal_flushes_per_s, params: WalParams):
    """Write bandwidth of the Active's WAL disk sdg (bytes/s), Tables 9-10.

    Every flush rewrites the current, partly filled WAL page (:data:`WAL_PAGE_BYTES`), and the new
    WAL bytes are written once: ``flushes x page + WAL rate``.

    Parameters
    ----------
    throughput_per_s : float or array_like
        VCbench operations per second, >= 0 (finite).
    wal_flushes_per_s : float or array_like
        WAL flushes (sdg writes) per second, >= 0 (the model's: :func:`vcperf.vcha.disk.disk_writes`).
    params : WalParams
        The study's: ``vcperf.vcha.calibrate().wal``.

    Examples
    --------
    >>> from vcperf import vcha
    >>> w = vcha.calibrate().wal
    >>> extra = vcha.wal_disk_write_bytes_per_s(50.0, 1000.0, w) - vcha.replication_traffic_bytes_per_s(50.0, w)
    >>> round(float(extra)) == 1000 * vcha.WAL_PAGE_BYTES  # one WAL page per flush
    True
    """
    x = v.nonneg("throughput_per_s", throughput_per_s)
    f = v.nonneg("wal_flushes_per_s", wal_flushes_per_s)
    v.instance("params", params, WalParams, "the study's WalParams (vcperf.vcha.calibrate().wal)")
    v.broadcast(throughput_per_s=x, wal_flushes_per_s=f)
    return f * WAL_PAGE_BYTES + replication_traffic_bytes_per_s(throughput_per_s, params)
