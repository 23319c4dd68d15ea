"""Database disk writes and replication acknowledgements of a VCHA cluster (``000_bf7f1144753162c9.txt``,
Tables 9, 10 and the eth1 receive rate of Table 11).

Three virtual disks carry the VCbench load: sdf (PostgreSQL core tables), sdg (WAL) and sdh (SEAT
tables: statistics, events, alarms, tasks). On the baseline appliance and the Active node:

* **sdf** (core tables): two writers of data pages. The checkpointer writes every page dirtied
  since the last checkpoint once; the hot core-table pages (host and VM rows that host sync keeps
  dirty) are dirtied in every checkpoint interval whatever the load, a background rate
  (``sdf_background_bytes_per_s``, >= 0). The rest comes from dirty-buffer evictions (PostgreSQL's
  background writer and backends write a dirty victim before reusing its buffer): buffer
  replacements grow with the operation rate and so does the share of victims that are dirty (pages
  are dirtied at the operation rate), so these bytes grow as rate^2
  (``sdf_eviction_bytes_s_per_op2``, >= 0): each operation writes more as the load rises, as the
  bytes per operation of Tables 9-10 do from 64 to 256 clients in every column. The square holds
  while dirty victims are a small share of the replacements (a load-driven write-back
  amplification, not a fitted exponent). sdf also carries a floor of small writes that does not
  scale with the data volume
  (``sdf_small_writes_per_s``: filesystem journal commits and metadata of the relation files each
  checkpoint syncs, single-page writes of the time-driven background writer), which is why
  its average write grows with load in every column of Tables 9-10 (baseline 18 -> 20 KB, Active
  17 -> 19 KB, Passive 14 -> 18 KB from 64 to 256 clients). The floor never makes a write smaller
  than one filesystem block (:data:`FS_BLOCK_BYTES`): writes/s <= bytes/s / 4 KiB; each data
  write is an average I/O of ``sdf_write_bytes``;
* **sdh** (SEAT tables): a background rate (statistics, events, tasks of the inventory) plus bytes
  per VCbench operation, each write an average I/O of ``sdh_write_bytes``. sdh shows the opposite
  of sdf (its writes grow faster than its bytes, 30 -> 22 KB), so it has no floor;
* **sdg**: one write per WAL flush (group commit: a background rate of flushes plus flushes per
  operation); each flush rewrites the current WAL page (:data:`~vcperf.vcha.wal.WAL_PAGE_BYTES`) and
  the new WAL bytes are written once (:func:`vcperf.vcha.wal.wal_disk_write_bytes_per_s`).

The **Passive** replays the Active's WAL: its recovery process dirties the same data pages, so its
sdf and sdh writes are the Active's. Its walreceiver runs a loop: read every WAL message that has
arrived, write it, ``fdatasync`` once, reply. The walsender sends after each Active flush, so while
the walreceiver is idle each Active flush costs one Passive flush; while it is busy in a cycle,
every message that arrives waits and the next cycle flushes them together. With Poisson arrivals
of rate ``lam`` (the Active's flushes) and a cycle of ``s`` seconds this is a bulk-service queue
with unlimited batches: a busy period of ``k`` cycles continues with probability ``1 - exp(-lam s)``
each, so the Passive flushes ``lam / (lam s + exp(-lam s))`` times per second
(:func:`standby_flushes_per_s`): ``lam`` at light load, never more than ``1/s``. The cycle ``s`` is
the Passive's own storage flush (``walreceiver_cycle_s``, fitted to the Passive's printed flush counts,
its sdg writes/s of Tables 9-10). It is one part of the fitted commit acknowledgement's flush wait
(:func:`vcperf.vcha.vcbench.standby_flush_s`): a message arriving at a random time waits for the
cycle in progress (probability ``rho = flushes x s``, mean residual ``s/2``) and then its own,
``s (1 + rho/2)`` (:func:`cycle_wait_s`; :func:`walreceiver_cycle_s` inverts it); the rest of the
flush wait is the walsender's send and the walreceiver's wake-up, which no printed number separates
and no flush count depends on. Each Passive flush
rewrites the partly filled filesystem block (:data:`FS_BLOCK_BYTES`), not a whole WAL page, plus the
WAL bytes. Its replies go back on eth1 (:func:`standby_reply_bytes_per_s`), per cycle: one pure TCP
ACK for the WAL the cycle reads and two standby status messages (PostgreSQL's walreceiver reports
its new write position after reading and its new flush position after the ``fdatasync``). The WAL
of a cycle arrives as one train of back-to-back segments (what the walsender sent since the
previous read), which the receive offload (LRO/GRO) hands to TCP as one segment (up to
:data:`GRO_MAX_BYTES`): the kernel acknowledges the train once per merged segment, not once per
two wire segments, and the status replies carry the
acknowledgement of anything later. So the receive rate follows the walreceiver's cycles, not the
WAL volume: Table 11 prints it falling from 64 to 256 clients while the WAL it acknowledges grows
by more than half, as the Passive's printed flush counts (its cycles, Tables 9-10) fall. Every
frame carries TCP timestamps (:data:`TCP_TIMESTAMP_OPTION_BYTES`, on by default in Linux).

This module is a pure model: parameters are arguments (:mod:`vcperf.vcha.params`; the study's values
are fitted by :mod:`vcperf.vcha.calibration`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vcperf import _validate as v
from vcperf import network
from vcperf.vcha.params import DiskParams, WalParams
from vcperf.vcha.wal import WAL_PAGE_BYTES, replication_traffic_bytes_per_s

#: Filesystem block (ext3/ext4 default 4 KiB) that a partial write rewrites.
FS_BLOCK_BYTES = 4096.0
#: The TCP timestamps option (RFC 7323: 10 bytes, padded to 12) that Linux puts on every segment
#: (``net.ipv4.tcp_timestamps = 1``, the kernel default), so on every ACK and reply of the Passive.
TCP_TIMESTAMP_OPTION_BYTES = 12.0
#: Bytes on the wire of a pure TCP ACK: IPv4 + TCP headers (40 B) + timestamps option (12 B) +
#: Ethernet header (14 B), as the interface counters count them.
ACK_FRAME_BYTES = network.IP_TCP_HEADER_BYTES + TCP_TIMESTAMP_OPTION_BYTES + 14.0
#: The largest segment the receive offload merges a train into (Linux ``GRO_MAX_SIZE``, 64 KiB): a
#: cycle's WAL train is acknowledged once per merged segment, at least once (module docstring).
GRO_MAX_BYTES = 65536.0
#: Standby status replies per walreceiver cycle: the write position after the messages are written,
#: the flush position after the ``fdatasync`` (PostgreSQL ``walreceiver.c``: ``XLogWalRcvSendReply``
#: after processing the received data and again in ``XLogWalRcvFlush``).
STATUS_REPLIES_PER_FLUSH = 2.0
#: A standby status reply ('r' message: 1 + 3 x 8 + 8 + 1 bytes, PostgreSQL protocol docs) plus the
#: CopyData framing (5 B) and the ACK frame headers it travels in.
STATUS_REPLY_BYTES = 34.0 + 5.0 + ACK_FRAME_BYTES


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


def sdf_bytes_per_s(throughput_per_s, params: DiskParams):
    """sdf (core tables) write rate, B/s, at a VCbench throughput (ops/s): the checkpoint background
    plus dirty-buffer evictions that grow as the square of the rate (module docstring). Non-negative,
    non-decreasing and convex in the throughput (every parameter is >= 0)."""
    x = np.asarray(v.nonneg("throughput_per_s", throughput_per_s), dtype=float)
    v.instance("params", params, DiskParams, "the study's DiskParams (vcperf.vcha.calibrate().disk)")
    return params.sdf_background_bytes_per_s + params.sdf_eviction_bytes_s_per_op2 * x * x


def wal_flushes_per_s(throughput_per_s, params: DiskParams):
    """WAL flushes (sdg writes) per second of the baseline appliance or Active node."""
    x = v.nonneg("throughput_per_s", throughput_per_s)
    v.instance("params", params, DiskParams, "the study's DiskParams (vcperf.vcha.calibrate().disk)")
    return _wal_flushes(x, params)


def _wal_flushes(x, p: DiskParams):
    """:func:`wal_flushes_per_s` of a validated throughput."""
    return p.wal_background_flushes_per_s + p.wal_flushes_per_op * x


def standby_flushes_per_s(active_flushes_per_s, cycle_s):
    """Passive walreceiver flushes per second (1/s) when the Active flushes ``active_flushes_per_s``
    times per second and one walreceiver cycle (write + ``fdatasync``) takes ``cycle_s`` seconds.

    Bulk service with unlimited batches (module docstring): ``lam / (lam s + exp(-lam s))``. Never
    more than ``lam`` (at most one flush per message) nor ``1/s`` (back-to-back cycles); increasing
    in ``lam``; busy fraction ``flushes x s < 1``.
    """
    lam = v.nonneg("active_flushes_per_s", active_flushes_per_s)
    s = v.nonneg("cycle_s", cycle_s)
    v.broadcast(active_flushes_per_s=lam, cycle_s=s)
    return _standby_flushes(lam, s)


def _standby_flushes(lam, s):
    """:func:`standby_flushes_per_s` of validated inputs."""
    u = np.asarray(lam, dtype=float) * np.asarray(s, dtype=float)
    return np.asarray(lam, dtype=float) / (u + np.exp(-u))


def walreceiver_cycle_s(flush_wait_s, active_flushes_per_s):
    """The walreceiver cycle ``s`` (s) whose mean flush wait ``s (1 + rho / 2)``, ``rho = flushes x s``,
    equals ``flush_wait_s`` at the Active's flush rate (a message waits for the cycle in progress,
    then its own). Increasing in ``flush_wait_s``; ``s <= flush_wait_s``, ``s >= flush_wait_s / 1.5``.

    Parameters
    ----------
    flush_wait_s : float or array_like
        Mean time from a WAL message's arrival at the Passive to its flush, >= 0 (the study's:
        :func:`vcperf.vcha.vcbench.standby_flush_s`).
    active_flushes_per_s : float or array_like
        The Active's WAL flushes per second (the walsender sends after each), >= 0.
    """
    w = np.asarray(v.nonneg("flush_wait_s", flush_wait_s), dtype=float)
    lam = np.asarray(v.nonneg("active_flushes_per_s", active_flushes_per_s), dtype=float)
    v.broadcast(flush_wait_s=w, active_flushes_per_s=lam)
    return _cycle_s(w, lam)


def _cycle_s(flush_wait_s, active_flushes_per_s):
    """:func:`walreceiver_cycle_s` of validated inputs."""
    from scipy.optimize import elementwise

    w, lam = np.broadcast_arrays(np.asarray(flush_wait_s, dtype=float), np.asarray(active_flushes_per_s, dtype=float))
    # the wait s (1 + rho / 2) is increasing in s and brackets W on [0, W]: SciPy's vectorised root finder
    out = np.asarray(elementwise.find_root(_wait_minus, (np.zeros(w.shape), w.copy()), args=(w, lam)).x)
    return float(out) if out.ndim == 0 else out


def _wait_minus(s, w, lam):
    """``cycle_wait_s(s, lam) - w``: its root in ``s`` is :func:`walreceiver_cycle_s`."""
    return s * (1.0 + 0.5 * _standby_flushes(lam, s) * s) - w


def _cycle_or_default(cycle_s, params: DiskParams, x):
    """The Passive's validated walreceiver cycle (s): ``cycle_s`` (> 0, broadcast with the throughput
    ``x``) or the fitted ``params.walreceiver_cycle_s``."""
    if cycle_s is None:
        return params.walreceiver_cycle_s
    s = v.positive("cycle_s", cycle_s)
    v.broadcast(throughput_per_s=x, cycle_s=s)
    return s


def cycle_wait_s(cycle_s, active_flushes_per_s):
    """Mean wait (s) of a WAL message at the Passive for its flush: the cycle in progress (busy with
    probability ``rho = flushes x s``, mean residual ``s / 2``), then its own, ``s (1 + rho / 2)``;
    :func:`walreceiver_cycle_s` is its inverse. Non-decreasing in both inputs; between ``s`` and
    ``1.5 s``.

    Parameters
    ----------
    cycle_s : float or array_like
        The walreceiver cycle, s, >= 0 (the study's: ``vcperf.vcha.calibrate().disk.walreceiver_cycle_s``).
    active_flushes_per_s : float or array_like
        The Active's WAL flushes per second, >= 0.

    Examples
    --------
    >>> from vcperf import vcha
    >>> from vcperf.vcha import disk
    >>> s = vcha.calibrate().disk.walreceiver_cycle_s
    >>> bool(s < float(disk.cycle_wait_s(s, 1500.0)) < 1.5 * s)
    True
    """
    s = np.asarray(v.nonneg("cycle_s", cycle_s), dtype=float)
    lam = np.asarray(v.nonneg("active_flushes_per_s", active_flushes_per_s), dtype=float)
    v.broadcast(cycle_s=s, active_flushes_per_s=lam)
    return s * (1.0 + 0.5 * _standby_flushes(lam, s) * s)


def disk_writes(throughput_per_s, node: str, params: DiskParams, wal: WalParams, cycle_s=None,
                background_wal_bytes_per_s=None) -> DiskWrites:
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
    cycle_s : float or array_like, optional
        Passive only: its walreceiver cycle (WAL write + ``fdatasync`` on its storage), s, > 0;
        sets how many Active flushes it coalesces (:func:`standby_flushes_per_s`). Default: the
        fitted ``params.walreceiver_cycle_s``; another value asks "what if the Passive's storage
        flushed faster or slower".
    background_wal_bytes_per_s : float or array_like, optional
        The inventory's background WAL, B/s (:func:`vcperf.vcha.wal.background_wal_bytes_per_s`;
        default: Table 11's inventory).
    """
    x = v.nonneg("throughput_per_s", throughput_per_s)
    v.choice("node", node, ("baseline", "active", "passive"))
    v.instance("params", params, DiskParams, "the study's DiskParams (vcperf.vcha.calibrate().disk)")
    s = _cycle_or_default(cycle_s, params, x)
    v.instance("wal", wal, WalParams, "the study's WalParams (vcperf.vcha.calibrate().wal)")
    p = params
    sdf = sdf_bytes_per_s(x, p)
    sdh = p.sdh_background_bytes_per_s + p.sdh_bytes_per_op * x
    flushes = _wal_flushes(x, p)
    if node == "passive":
        flushes = _standby_flushes(flushes, s)
    wal_bytes = replication_traffic_bytes_per_s(x, wal, background_wal_bytes_per_s)
    page = FS_BLOCK_BYTES if node == "passive" else WAL_PAGE_BYTES
    sdg = flushes * page + wal_bytes
    sdf_writes = np.minimum(p.sdf_small_writes_per_s + sdf / p.sdf_write_bytes, sdf / FS_BLOCK_BYTES)
    return DiskWrites({"sdf": sdf_writes, "sdg": flushes, "sdh": sdh / p.sdh_write_bytes},
                      {"sdf": sdf, "sdg": sdg, "sdh": sdh})


def reply_bytes_per_cycle(wal_bytes_per_cycle):
    """Bytes the Passive sends back on eth1 per walreceiver cycle (B): pure TCP ACKs for the cycle's
    WAL train, one per merged receive segment of up to :data:`GRO_MAX_BYTES` and at least one, each
    :data:`ACK_FRAME_BYTES`, plus :data:`STATUS_REPLIES_PER_FLUSH` status replies of
    :data:`STATUS_REPLY_BYTES`.

    Parameters
    ----------
    wal_bytes_per_cycle : float or array_like
        WAL bytes one walreceiver cycle reads, B, >= 0.

    Returns
    -------
    numpy.ndarray
        Bytes sent back per cycle, B: the same for every train up to one merged segment.

    Examples
    --------
    >>> from vcperf.vcha.disk import reply_bytes_per_cycle
    >>> bool(reply_bytes_per_cycle(0.0) == reply_bytes_per_cycle(8e3))
    True
    >>> bool(reply_bytes_per_cycle(1e6) > reply_bytes_per_cycle(8e3))
    True
    """
    b = np.asarray(v.nonneg("wal_bytes_per_cycle", wal_bytes_per_cycle), dtype=float)
    return _reply_bytes_per_cycle(b)


def _reply_bytes_per_cycle(b):
    """:func:`reply_bytes_per_cycle` of validated bytes."""
    acks = np.maximum(1.0, b / GRO_MAX_BYTES)
    return acks * ACK_FRAME_BYTES + STATUS_REPLIES_PER_FLUSH * STATUS_REPLY_BYTES


def standby_reply_bytes_per_s(throughput_per_s, params: DiskParams, wal: WalParams, cycle_s=None,
                              background_wal_bytes_per_s=None):
    """eth1 receive rate of the Active (B/s): per walreceiver cycle of the Passive, the ACKs of the
    WAL train it reads and :data:`STATUS_REPLIES_PER_FLUSH` status replies
    (:func:`reply_bytes_per_cycle`; Table 11, eth1 receive). The cycles are the Passive's flushes
    (:func:`disk_writes`), so at the study's loads (a train well under :data:`GRO_MAX_BYTES`) the rate
    follows the cycles, not the WAL volume. ``cycle_s`` and ``background_wal_bytes_per_s`` as
    :func:`disk_writes`. No fitted
    parameter of its own (the cycle is fitted to the Passive's flush counts, not to this rate)."""
    x = v.nonneg("throughput_per_s", throughput_per_s)
    v.instance("params", params, DiskParams, "the study's DiskParams (vcperf.vcha.calibrate().disk)")
    v.instance("wal", wal, WalParams, "the study's WalParams (vcperf.vcha.calibrate().wal)")
    lam = _wal_flushes(x, params)
    cycles = _standby_flushes(lam, _cycle_or_default(cycle_s, params, x))
    train = replication_traffic_bytes_per_s(x, wal, background_wal_bytes_per_s) / cycles
    return np.asarray(cycles * _reply_bytes_per_cycle(train), dtype=float)


def replication_wakeup_s(throughput_per_s, fitted_flush_s, params: DiskParams):
    """The replication wake-up per synchronous commit (s): walsender send and walreceiver wake-up, the
    part of the fitted flush wait that is not the Passive's storage.

    The fitted commit acknowledgement leaves ``fitted_flush_s`` per commit after its LAN exchange
    (:func:`vcperf.vcha.vcbench.standby_flush_s`, Tables 5-7 and 13); the Passive's storage takes the
    group-commit wait of its walreceiver cycle (:func:`cycle_wait_s` of the cycle fitted to the
    Passive's flush counts, Tables 9-10, at the Active's flush rate of the load); the rest is the
    wake-up. No printed number separates it further; it does not depend on the storage.

    Parameters
    ----------
    throughput_per_s : float or array_like
        VCbench operations per second (sets the Active's flush rate), >= 0.
    fitted_flush_s : float
        The fitted flush wait per commit, s, >= 0 (``standby_flush_s(vcbench_params, wal_bytes_per_op)``).
    params : DiskParams
        The study's: ``vcperf.vcha.calibrate().disk``.

    Returns
    -------
    numpy.ndarray
        Seconds per commit, >= 0.

    Examples
    --------
    >>> from vcperf import vcha
    >>> P = vcha.calibrate()
    >>> w = vcha.replication_wakeup_s(100.0, vcha.standby_flush_s(P.vcbench, P.wal.wal_bytes_per_op), P.disk)
    >>> bool(0 < w < P.disk.walreceiver_cycle_s)  # about 0.4 ms beside a 0.56 ms storage cycle
    True
    """
    x = v.nonneg("throughput_per_s", throughput_per_s)
    f = v.nonneg("fitted_flush_s", fitted_flush_s)
    v.instance("params", params, DiskParams, "the study's DiskParams (vcperf.vcha.calibrate().disk)")
    v.broadcast(throughput_per_s=x, fitted_flush_s=f)
    lam = _wal_flushes(x, params)
    s = params.walreceiver_cycle_s
    return np.maximum(f - s * (1.0 + 0.5 * _standby_flushes(lam, s) * s), 0.0)


def passive_commit_flush_s(storage_s, throughput_per_s, fitted_flush_s, params: DiskParams):
    """The Passive's wait per synchronous commit (s) with storage of sync-write latency ``storage_s``:
    the replication wake-up (:func:`replication_wakeup_s`, unchanged) plus the storage's group-commit
    wait ``s (1 + rho / 2)`` (:func:`cycle_wait_s`: a commit arriving during a flush waits for it and
    shares the next; ``rho`` the walreceiver's busy share at the Active's flush rate of the load).

    Parameters
    ----------
    storage_s : float or array_like
        The Passive's storage sync-write latency (its walreceiver cycle: WAL write + ``fdatasync``), s,
        > 0 (the study's: ``vcperf.vcha.calibrate().disk.walreceiver_cycle_s``).
    throughput_per_s, fitted_flush_s, params
        As :func:`replication_wakeup_s`.

    Returns
    -------
    numpy.ndarray
        Seconds per commit: ``fitted_flush_s`` at the fitted storage.

    Examples
    --------
    >>> from vcperf import vcha
    >>> from vcperf.vcha.disk import passive_commit_flush_s
    >>> P = vcha.calibrate()
    >>> fit = vcha.standby_flush_s(P.vcbench, P.wal.wal_bytes_per_op)
    >>> bool(abs(float(passive_commit_flush_s(P.disk.walreceiver_cycle_s, 100.0, fit, P.disk)) - fit) < 1e-12)
    True
    """
    s = v.positive("storage_s", storage_s)
    wake = replication_wakeup_s(throughput_per_s, fitted_flush_s, params)
    v.broadcast(storage_s=s, throughput_per_s=throughput_per_s)
    lam = _wal_flushes(np.asarray(throughput_per_s, dtype=float), params)
    return wake + s * (1.0 + 0.5 * _standby_flushes(lam, s) * s)
