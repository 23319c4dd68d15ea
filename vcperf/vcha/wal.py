"""Replication traffic and WAL writes of the VCHA Active node (``000_bf7f1144753162c9.txt``, Tables
9, 10, 11).

WAL bytes per VCbench operation times throughput, plus background WAL, go over eth1 to the Passive.
The background comes from mechanisms that grow with the inventory and the statistics level
(:func:`background_wal_bytes_per_s`): every managed object (host or powered-on VM) has its rows
rewritten by host sync and its level-1 statistics rows inserted, a fitted rate per object; at
statistics levels 3 and 4 the statistics writes keep ``stats_db_connections_per_vm`` connections per
powered-on VM busy (the VCbench model's Table 12 fit), and a busy connection writes WAL at the rate a
VCbench operation's does (``wal_bytes_per_op`` per ``db_hold_s``): higher levels replicate more
data, as the seed says; the Active's WAL disk (sdg) writes every flushed WAL page again plus
the new WAL bytes. Management traffic on eth0 is likewise a background rate (host sync and
heartbeats) plus bytes per operation (host RPCs, client SDK traffic).

This module is a pure model: the parameters are arguments (:mod:`vcperf.vcha.params`; the study's
values are fitted by :mod:`vcperf.vcha.calibration`).
"""

from __future__ import annotations

import numpy as np

from vcperf import _validate as v
from vcperf.vcha.params import Params, WalParams

#: PostgreSQL WAL page (``XLOG_BLCKSZ``, default 8 KiB): every WAL flush rewrites the current page.
WAL_PAGE_BYTES = 8192

#: Statistics levels 1-4 grouped by the amount of statistics data they produce. The ROBO study
#: (``001_36d9adf7ffa34fcf.txt``, Statistics Data Size; ``data/robo2019/figure06_stats_data_size``)
#: states Level 2 is close to Level 1, Level 4 close to Level 3, with a considerable jump from 2 to 3.
#: Level 1/2 statistics are part of the baseline; levels 3/4 add the statistics connections.
STATS_LEVEL_HIGH = {1: 0.0, 2: 0.0, 3: 1.0, 4: 1.0}

#: The inventory Table 11 was measured at (the seed's overhead runs: 2,000 hosts, 25,000 powered-on
#: VMs, statistics level 1; ``data/vcha2016/testbed``, a test checks they agree): the background a
#: traffic function uses when it is not given one.
REFERENCE_HOSTS = 2000.0
REFERENCE_POWERED_ON_VMS = 25000.0


def background_wal_bytes_per_s(hosts, powered_on_vms, params: Params, stats_level: int = 1):
    """WAL the Active streams to the Passive without VCbench (B/s): the inventory's and the statistics'.

    ``per_object x (hosts + powered_on_vms)`` (host sync and level-1 statistics rows of every managed
    object) ``+ [level 3 or 4] x stats_db_connections_per_vm x powered_on_vms x wal_bytes_per_op /
    db_hold_s`` (the statistics writes of the higher levels, each busy connection writing WAL at a
    VCbench operation's rate). Increasing in hosts and VMs; non-decreasing in the level, rising from
    level 2 to 3 (module docstring).

    Parameters
    ----------
    hosts : float or array_like
        Managed ESXi hosts, >= 0.
    powered_on_vms : float or array_like
        Powered-on VMs, >= 0.
    params : Params
        The study's (``vcperf.vcha.calibrate()``).
    stats_level : int
        vCenter statistics level, 1-4.

    Returns
    -------
    numpy.ndarray
        B/s, >= 0.

    Examples
    --------
    >>> from vcperf import vcha
    >>> from vcperf.vcha.wal import background_wal_bytes_per_s
    >>> P = vcha.calibrate()
    >>> small, xl = (float(background_wal_bytes_per_s(**{k: vcha.appliance(s)[k] for k in ("hosts", "powered_on_vms")},
    ...                                               params=P)) for s in ("small", "x-large"))
    >>> bool(xl > 10 * small)
    True
    >>> bool(background_wal_bytes_per_s(2000, 25000, P, 4) > background_wal_bytes_per_s(2000, 25000, P, 1))
    True
    """
    h = np.asarray(v.nonneg("hosts", hosts), dtype=float)
    vms = np.asarray(v.nonneg("powered_on_vms", powered_on_vms), dtype=float)
    v.instance("params", params, Params, "the study's Params (vcperf.vcha.calibrate())")
    v.choice("stats_level", stats_level, (1, 2, 3, 4))
    v.broadcast(hosts=h, powered_on_vms=vms)
    return checked_background_wal_bytes_per_s(h, vms, params.wal, params.vcbench, stats_level)


def checked_background_wal_bytes_per_s(hosts, powered_on_vms, wal: WalParams, vb, stats_level: int):
    """:func:`background_wal_bytes_per_s` of validated inputs (``vb``: the study's VcbenchParams)."""
    stats_connections = STATS_LEVEL_HIGH[stats_level] * vb.stats_db_connections_per_vm * powered_on_vms
    return (wal.background_wal_bytes_per_object_s * (hosts + powered_on_vms)
            + stats_connections * wal.wal_bytes_per_op / vb.db_hold_s)


def _background_or_reference(background_wal_bytes_per_s, params: WalParams):
    """The validated background (B/s), or the reference inventory's (Table 11's) for None."""
    if background_wal_bytes_per_s is None:
        return params.background_wal_bytes_per_object_s * (REFERENCE_HOSTS + REFERENCE_POWERED_ON_VMS)
    return v.nonneg("background_wal_bytes_per_s", background_wal_bytes_per_s)


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


def replication_traffic_bytes_per_s(throughput_per_s, params: WalParams, background_wal_bytes_per_s=None):
    """WAL streamed Active -> Passive over eth1 (bytes/s), Table 11 eth1 transmit.

    ``background + wal_bytes_per_op * throughput_per_s``.

    Parameters
    ----------
    throughput_per_s : float or array_like
        VCbench operations per second, >= 0 (finite).
    params : WalParams
        The study's: ``vcperf.vcha.calibrate().wal``.
    background_wal_bytes_per_s : float or array_like, optional
        The background WAL of the inventory and statistics level, B/s, >= 0
        (:func:`background_wal_bytes_per_s`); default: Table 11's inventory (:data:`REFERENCE_HOSTS`,
        :data:`REFERENCE_POWERED_ON_VMS`, level 1).

    Examples
    --------
    >>> from vcperf import vcha
    >>> w = vcha.calibrate().wal
    >>> bool(vcha.replication_traffic_bytes_per_s(0.0, w, 3e6) == 3e6)
    True
    """
    x = v.nonneg("throughput_per_s", throughput_per_s)
    v.instance("params", params, WalParams, "the study's WalParams (vcperf.vcha.calibrate().wal)")
    return _background_or_reference(background_wal_bytes_per_s, params) + params.wal_bytes_per_op * x


def wal_disk_write_bytes_per_s(throughput_per_s, wal_flushes_per_s, params: WalParams, background_wal_bytes_per_s=None):
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
    background_wal_bytes_per_s : float or array_like, optional
        As :func:`replication_traffic_bytes_per_s`.

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
    return f * WAL_PAGE_BYTES + replication_traffic_bytes_per_s(throughput_per_s, params, background_wal_bytes_per_s)
