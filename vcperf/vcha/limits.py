"""VMware's documented limits and defaults the VCHA models use, and the flags an input beyond them raises.

The values are product facts stated in ``data/vcha2016`` (each with its source): a model file never
reads ``data/``, so they are held here and ``tests/test_vcha.py`` checks they agree with the data
rows. An input beyond a documented limit is not refused (the product still runs) but *flagged* in the
result (a ``flags`` tuple of strings), never silently clamped.

Examples
--------
>>> from vcperf.vcha import limits
>>> limits._rtt_flags(0.03)[0].endswith("unsupported")
True
>>> limits._vcpu_flags(4.0)
()
"""

from __future__ import annotations

import numpy as np

#: vCenter's default maximum of simultaneous database connections (vpxd's pool): "By default, a
#: vCenter Server creates a maximum of 50 simultaneous database connections" (vCenter Server Upgrade
#: Guide, "Set the Maximum Number of Database Connections"; ``data/vcha2016/external_vcenter_limits``).
DEFAULT_DB_CONNECTIONS = 50.0

#: "VCHA is supported officially for low latency networks up to 10 milliseconds" (seed, Best Practices;
#: ``data/vcha2016/text_best_practices``), s: added round trip of the VCHA network beyond it is unsupported.
MAX_SUPPORTED_RTT_S = 0.010

#: The smallest appliance VCHA supports: Small, 4 vCPUs (seed, Table 1 and Best Practices: "Tiny" with
#: 2 vCPUs "is not supported by VCHA"; ``data/vcha2016/table01_sizing``, ``text_best_practices``).
MIN_SUPPORTED_VCPUS = 4.0

#: Where each bottleneck a VCbench result can name comes from.
BOTTLENECK_SOURCES = {
    "database connection pool": "vpxd's pool of DEFAULT_DB_CONNECTIONS = 50 connections: vCenter's documented "
                                "default maximum (external source: VMware's vCenter Server upgrade guide; the VCHA "
                                "paper prints no pool size)",
    "vpxd CPU": "the appliance's vCPUs minus the inventory's background work (Table 1 sizes; fitted demand)",
    "replication link": "the VCHA private network's TCP rate carrying the WAL stream (bandwidth, RTT, loss inputs)",
    "none": "no station is near saturation: think time and host delays bound the throughput",
}


def _rtt_flags(replication_rtt_s) -> tuple:
    """Flags for an added VCHA network round trip beyond VMware's supported 10 ms (internal: for the
    validated inputs of the model functions).

    Parameters
    ----------
    replication_rtt_s : float or array_like
        Round trip added to the VCHA private network, s (validated by the caller).

    Returns
    -------
    tuple of str
        Empty when every value is within the supported range.
    """
    if np.size(replication_rtt_s) == 0:
        return ()
    worst = float(np.max(replication_rtt_s))
    if worst > MAX_SUPPORTED_RTT_S * (1 + 1e-12):
        return (f"replication_rtt_s={worst:g} s is beyond the {MAX_SUPPORTED_RTT_S * 1e3:g} ms VCHA network "
                "latency VMware supports (seed, Best Practices): unsupported",)
    return ()


def _vcpu_flags(vcpus) -> tuple:
    """Flags for an appliance smaller than the smallest size VCHA supports (Small, 4 vCPUs) (internal:
    for the validated inputs of the model functions).

    Parameters
    ----------
    vcpus : float or array_like
        Appliance vCPUs (validated by the caller).

    Returns
    -------
    tuple of str
        Empty when every value is a supported size.
    """
    if np.size(vcpus) == 0:
        return ()
    least = float(np.min(vcpus))
    if least < MIN_SUPPORTED_VCPUS:
        return (f"vcpus={least:g} is below the smallest appliance VCHA supports (Small, "
                f"{MIN_SUPPORTED_VCPUS:g} vCPUs; Tiny, 2 vCPUs, is not supported): unsupported",)
    return ()


def _fallback_flags(over, background_wal_bytes_per_s: float, bandwidth_bps, behind_bytes_per_s) -> tuple:
    """Flag a replication link the background WAL alone fills: VCHA falls back to asynchronous replication
    (RPO > 0), the Passive falling behind by ``behind_bytes_per_s``."""
    if not np.any(over):
        return ()
    lag = float(np.max(behind_bytes_per_s))
    return (f"fallback: the replication link cannot carry the background WAL "
            f"({8e-6 * background_wal_bytes_per_s:.3g} Mbit/s) at bandwidth_bps={float(np.min(bandwidth_bps)):g}: "
            f"PostgreSQL falls back to asynchronous replication (RPO > 0; the Passive falls behind by "
            f"{lag / 1e6:.3g} MB/s, so a failover loses data and the Passive may need a full resync)",)


def _pool_flags(stats_demand: float, stats_held, pool_size: float) -> tuple:
    """Flag statistics writes that would hold every connection of the pool but one."""
    if stats_demand <= 0.0 or not np.any(np.asarray(stats_held) >= pool_size - 1.0):
        return ()
    return (f"statistics writes need more than the pool's {pool_size:g} connections (one left to VCbench): the "
            "database pool is saturated by statistics",)


def _memory_flags(peak_bytes: float, memory_bytes: float) -> tuple:
    """Flag a modelled peak resident memory above the appliance's memory (Table 1 sizes)."""
    if peak_bytes <= memory_bytes:
        return ()
    return (f"memory pressure: the modelled peak resident memory of vpxd, postgres and vcha "
            f"({peak_bytes / 1e9:.1f} GB, Table 8's model) exceeds the appliance's {memory_bytes / 1e9:.0f} GB "
            "(Table 1): swapping is not modelled, the throughput is optimistic",)
