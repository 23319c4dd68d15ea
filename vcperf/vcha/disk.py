"""Database disk writes and replication acknowledgements of a VCHA cluster (``000_bf7f1144753162c9.txt``,
Tables 9, 10 and the eth1 receive rate of Table 11).

Three virtual disks carry the VCbench load: sdf (PostgreSQL core tables), sdg (WAL) and sdh (SEAT
tables: statistics, events, alarms, tasks). On the baseline appliance and the Active node:

* **sdf, sdh**: data pages written back by the checkpointer and background writer, a background
  rate (statistics, events, tasks of the inventory) plus bytes per VCbench operation; each write is
  an average I/O of ``*_write_bytes`` (so writes/s = bytes/s / I/O size). The background may come
  out negative (sdf: pages re-dirtied between two checkpoints are written once, so at low load
  writes grow faster than linearly from zero): the rate is the line clipped at zero;
* **sdg**: one write per WAL flush (group commit: a background rate of flushes plus flushes per
  operation); each flush rewrites the current WAL page (:data:`~vcperf.vcha.wal.WAL_PAGE_BYTES`) and
  the new WAL bytes are written once (:func:`vcperf.vcha.wal.wal_disk_write_bytes_per_s`).

The **Passive** replays the Active's WAL: its recovery process dirties the same data pages, so its
sdf and sdh writes are the Active's; its walreceiver writes what it receives and flushes once per
Active flush, each write rewriting the partly filled filesystem block (:data:`FS_BLOCK_BYTES`), not
a whole WAL page. Its replies go back on eth1: TCP ACKs for the WAL stream (one per
:data:`vcperf.network.DEFAULT_PACKETS_PER_ACK` segments) and one standby status message per flush.

This module is a pure model: parameters are arguments (the study's values come from
:mod:`vcperf.vcha.calibration`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vcperf import _validate as v
from vcperf import network
from vcperf.vcha.wal import WAL_PAGE_BYTES, WalParams, replication_traffic_bytes_per_s

#: Filesystem block (ext3/ext4 default 4 KiB) that a partial write rewrites.
FS_BLOCK_BYTES = 4096.0
#: Bytes on the wire of a pure TCP ACK: IPv4 + TCP headers (40 B) + Ethernet header (14 B), as the
#: interface counters count them.
ACK_FRAME_BYTES = network.IP_TCP_HEADER_BYTES + 14.0
#: A standby status reply ('r' message: 1 + 3 x 8 + 8 + 1 bytes, PostgreSQL protocol docs) plus the
#: CopyData framing (5 B) and the ACK frame headers it travels in.
STATUS_REPLY_BYTES = 34.0 + 5.0 + ACK_FRAME_BYTES


@dataclass(frozen=True)
class DiskParams:
    """Disk writes of the database (Tables 9, 10).

    Attributes
    ----------
    sdf_bytes_per_op, sdh_bytes_per_op : float
        Data-page bytes written per VCbench operation on sdf (core tables) and sdh (SEAT tables), B.
        Fitted: Tables 9-10, baseline and Active rows.
    sdf_background_bytes_per_s, sdh_background_bytes_per_s : float
        Intercept of the write rate at zero VCbench load (statistics, events, tasks; negative when
        checkpoints absorb re-dirtied pages at low load), B/s. Fitted: as above.
    sdf_write_bytes, sdh_write_bytes : float
        Average size of one write (B). Fitted: the writes/s rows of Tables 9-10.
    wal_flushes_per_op : float
        WAL flushes (sdg writes) per VCbench operation. Fitted: Tables 9-10 sdg writes/s.
    wal_background_flushes_per_s : float
        WAL flushes independent of VCbench (WAL writer, background commits), 1/s. Fitted: as above.
    """

    sdf_bytes_per_op: float
    sdf_background_bytes_per_s: float
    sdf_write_bytes: float
    sdh_bytes_per_op: float
    sdh_background_bytes_per_s: float
    sdh_write_bytes: float
    wal_flushes_per_op: float
    wal_background_flushes_per_s: float


@dataclass(frozen=True, eq=False)
class DiskWrites:
    """Write rates of one node's three database disks (arrays of the throughput's shape).

    Attributes
    ----------
    writes_per_s : dict
        ``{"sdf", "sdg", "sdh"}`` -> writes per second (Tables 9-10 "TPS (W/S)").
    bytes_per_s : dict
        ``{"sdf", "sdg", "sdh"}`` -> bytes per second (Tables 9-10 "bandwidth").
    """

    writes_per_s: dict
    bytes_per_s: dict


def wal_flushes_per_s(throughput_per_s, params: DiskParams):
    """WAL flushes (sdg writes) per second of the baseline appliance or Active node."""
    x = v.nonneg("throughput_per_s", throughput_per_s)
    v.instance("params", params, DiskParams, "the study's DiskParams (vcperf.vcha.calibrate().disk)")
    return params.wal_background_flushes_per_s + params.wal_flushes_per_op * x


def disk_writes(throughput_per_s, node: str, params: DiskParams, wal: WalParams) -> DiskWrites:
    """Writes/s and bytes/s of sdf, sdg, sdh on a node at a VCbench throughput (Tables 9, 10).

    Parameters
    ----------
    throughput_per_s : float or array_like
        VCbench operations per second of the cluster, >= 0.
    node : {"baseline", "active", "passive"}
        The single appliance (VCHA off), the Active or the Passive node.
    params : DiskParams
        The study's: ``vcperf.vcha.calibrate().disk``.
    wal : WalParams
        The study's: ``vcperf.vcha.calibrate().wal`` (WAL bytes streamed to the Passive).
    """
    x = v.nonneg("throughput_per_s", throughput_per_s)
    v.choice("node", node, ("baseline", "active", "passive"))
    v.instance("params", params, DiskParams, "the study's DiskParams (vcperf.vcha.calibrate().disk)")
    v.instance("wal", wal, WalParams, "the study's WalParams (vcperf.vcha.calibrate().wal)")
    p = params
    sdf = np.maximum(p.sdf_background_bytes_per_s + p.sdf_bytes_per_op * x, 0.0)
    sdh = np.maximum(p.sdh_background_bytes_per_s + p.sdh_bytes_per_op * x, 0.0)
    flushes = wal_flushes_per_s(x, p)
    wal_bytes = replication_traffic_bytes_per_s(x, wal)
    page = FS_BLOCK_BYTES if node == "passive" else WAL_PAGE_BYTES
    sdg = flushes * page + wal_bytes
    return DiskWrites({"sdf": sdf / p.sdf_write_bytes, "sdg": flushes, "sdh": sdh / p.sdh_write_bytes},
                      {"sdf": sdf, "sdg": sdg, "sdh": sdh})


def standby_reply_bytes_per_s(throughput_per_s, params: DiskParams, wal: WalParams):
    """eth1 receive rate of the Active (B/s): the Passive's TCP ACKs for the WAL stream plus one status
    reply per flush (Table 11, eth1 receive). No fitted parameter of its own."""
    x = v.nonneg("throughput_per_s", throughput_per_s)
    v.instance("params", params, DiskParams, "the study's DiskParams (vcperf.vcha.calibrate().disk)")
    v.instance("wal", wal, WalParams, "the study's WalParams (vcperf.vcha.calibrate().wal)")
    wal_bytes = replication_traffic_bytes_per_s(x, wal)
    acks = wal_bytes / (network.DEFAULT_MSS_BYTES * network.DEFAULT_PACKETS_PER_ACK) * ACK_FRAME_BYTES
    return np.asarray(acks + wal_flushes_per_s(x, params) * STATUS_REPLY_BYTES, dtype=float)
