"""Peak resident memory of the VCHA services (``000_bf7f1144753162c9.txt``, Table 8).

* **vpxd** caches the inventory (grows with the managed hosts and their VMs) and keeps per-session
  state for every connected SDK client; synchronous replication does not touch it ("Enabling VCHA
  does not change the memory utilization").
* **postgres**: every node runs the instance itself, shared buffers and server processes
  (``postgres_bytes``, the same with or without VCHA); the baseline appliance and the Active node
  also run the pool vpxd opens, one client backend per pooled connection
  (``postgres_bytes_per_connection`` x ``db_connections``). The **Passive** runs the startup (replay)
  and walreceiver processes but serves no client: no pool, so its postgres is the instance alone,
  whatever the Active's pool. Each node's memory is a sum of non-negative parameters times
  non-negative counts (:class:`~vcperf.vcha.params.MemoryParams` refuses a negative parameter), so
  it is never negative.
* **vcha**: the VCHA service, the same small process on both nodes.

This module is a pure model: parameters are arguments (:mod:`vcperf.vcha.params`; the study's values
are fitted by :mod:`vcperf.vcha.calibration`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vcperf import _validate as v
from vcperf.vcha.params import MemoryParams


@dataclass(frozen=True, eq=False)
class PeakMemory:
    """Peak resident memory per process (B); arrays of the broadcast input shape. ``vcha`` is 0 and
    ``postgres`` the full instance on a node without VCHA; ``vpxd`` is 0 on the Passive; every array is
    >= 0."""

    vpxd: np.ndarray
    postgres: np.ndarray
    vcha: np.ndarray

    @property
    def total(self) -> np.ndarray:
        """Sum of the three processes (B)."""
        return self.vpxd + self.postgres + self.vcha


def peak_memory_bytes(clients, hosts, node: str, params: MemoryParams, db_connections: float = 50.0) -> PeakMemory:
    """Peak resident memory of vpxd, postgres and vcha on a node (Table 8).

    Parameters
    ----------
    clients : float or array_like
        Concurrent VCbench clients, >= 0.
    hosts : float or array_like
        Managed ESXi hosts, >= 0 (Table 1: 96 .. 2,048; the Table 8 runs: 2,000).
    node : {"baseline", "active", "passive"}
        Single appliance (VCHA off), Active or Passive node.
    params : MemoryParams
        The study's: ``vcperf.vcha.calibrate().memory``.
    db_connections : float
        vpxd's database connection pool (vCenter default 50), in [1, 10000]: one client backend each on
        the baseline appliance and the Active; the Passive runs no pool.

    Returns
    -------
    PeakMemory
        Bytes per process, >= 0 for every input.

    Examples
    --------
    >>> from vcperf import vcha
    >>> from vcperf.vcha.memory import peak_memory_bytes
    >>> m = vcha.calibrate().memory
    >>> small, big = (peak_memory_bytes(64, 2000, "active", m, pool).postgres for pool in (50, 400))
    >>> bool(big > small > 0)  # the Active's postgres grows with the pool it runs
    True
    >>> float(peak_memory_bytes(64, 2000, "passive", m, 400).postgres) == m.postgres_bytes  # no pool
    True
    """
    n = v.nonneg("clients", clients)
    h = v.nonneg("hosts", hosts)
    v.choice("node", node, ("baseline", "active", "passive"))
    pool = v.scalar("db_connections", db_connections, 1.0, 10000.0)
    v.instance("params", params, MemoryParams, "the study's MemoryParams (vcperf.vcha.calibrate().memory)")
    v.broadcast(clients=n, hosts=h)
    p = params
    n, h = np.broadcast_arrays(np.asarray(n, dtype=float), np.asarray(h, dtype=float))
    zero = np.zeros(n.shape)
    if node == "passive":  # replay and walreceiver only: no client backends, no pool
        return PeakMemory(zero, zero + p.postgres_bytes, zero + p.vcha_bytes)
    vpxd = p.vpxd_bytes_per_host * h + p.vpxd_bytes_per_client * n
    postgres = zero + p.postgres_bytes + pool * p.postgres_bytes_per_connection
    return PeakMemory(vpxd, postgres, zero + (p.vcha_bytes if node == "active" else 0.0))
