"""VMware's documented limits and defaults the VCHA models use, and the flags an input beyond them raises.

The values are product facts stated in ``data/vcha2016`` (each with its source): a model file never
reads ``data/``, so they are held here and ``tests/test_vcha.py`` checks they agree with the data
rows. An input beyond a documented limit is not refused (the product still runs) but *flagged* in the
result, never silently clamped; so is an answer off the measured test bed (an ``extrapolation``
flag: the VCbench network is fitted at one appliance, inventory and pool). A result's ``flags`` is a
tuple of :class:`vcperf._validate.Flag`: strings (the sentence a reader sees) carrying ``kind``,
``name``, ``limit`` (the documented limit or the fitted point), ``value`` and ``source``.

Examples
--------
>>> from vcperf.vcha import limits
>>> limits.checked_rtt_flags(0.03)[0].endswith("unsupported")
True
>>> limits.checked_vcpu_flags(4.0)
()
>>> [f.name for f in limits.checked_extrapolation_flags(16.0, 1024.0, 10240.0, 100.0)]
['vcpus', 'hosts', 'powered_on_vms', 'db_connections']
"""

from __future__ import annotations

import numpy as np

from vcperf import _validate as v
from vcperf._validate import Flag

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

#: The point the VCbench network was fitted at (Tables 5-7, 12-15): the X-Large appliance of the
#: overhead runs (32 vCPUs; seed, Test Environment and ``data/vcha2016/text_psc``) managing 2,000
#: hosts and 25,000 powered-on VMs (``data/vcha2016/testbed``), with vpxd's pool of
#: :data:`DEFAULT_DB_CONNECTIONS` (external: the VCHA study prints no pool). An answer at another appliance,
#: inventory or pool is an extrapolation: flagged, and its band widened
#: (:func:`vcperf.vcha.extrapolation.off_testbed_spread`). A test checks them against ``data/``.
FIT_VCPUS = 32.0
FIT_HOSTS = 2000.0
FIT_POWERED_ON_VMS = 25000.0

#: Where the fitted point's facts are stated.
_FIT_SOURCE = {
    "vcpus": "VCHA study, Test Environment: the X-Large appliance of the overhead runs (data/vcha2016/text_psc)",
    "hosts": "VCHA study, Test Environment: 2,000 hosts (data/vcha2016/testbed)",
    "powered_on_vms": "VCHA study, Test Environment: 25,000 powered-on VMs (data/vcha2016/testbed)",
    "db_connections": "vCenter Server 4.0/5.0 Upgrade Guide, 'Set the Maximum Number of Database Connections' "
                      "(external: the VCHA study prints no pool size; data/vcha2016/external_vcenter_limits)",
}

#: Where each bottleneck a VCbench result can name comes from.
BOTTLENECK_SOURCES = {
    "database connection pool": "vpxd's pool (default DEFAULT_DB_CONNECTIONS = 50 connections: vCenter's "
                                "documented default maximum, external source: VMware's vCenter Server upgrade "
                                "guide; the VCHA paper prints no pool size; pool_provenance names the one used)",
    "vpxd CPU": "the appliance's vCPUs minus the inventory's background work (Table 1 sizes; fitted demand)",
    "replication link": "the VCHA private network's TCP rate carrying the WAL stream (bandwidth, RTT, loss inputs)",
    "none": "no station is near saturation: think time and host delays bound the throughput",
}


def pool_provenance(db_connections: float) -> str:
    """Where the DB pool an answer rests on comes from: vCenter's documented default (an external
    source; the VCHA study prints no pool) or the caller's value (off the fitted point).

    Examples
    --------
    >>> from vcperf.vcha import limits
    >>> limits.pool_provenance(50.0).startswith("50 connections: vCenter's documented default")
    True
    """
    db_connections = v.scalar("db_connections", db_connections, 1.0, 10000.0)
    if float(db_connections) == DEFAULT_DB_CONNECTIONS:
        return (f"{DEFAULT_DB_CONNECTIONS:g} connections: vCenter's documented default maximum (external: vCenter "
                "Server 4.0/5.0 Upgrade Guide, assumed unchanged in 6.5; the VCHA study prints no pool size)")
    return (f"{float(db_connections):g} connections: the caller's pool, not the {DEFAULT_DB_CONNECTIONS:g} the model "
            "was fitted with (vCenter's documented default; the VCHA study prints no pool): an extrapolation")


def checked_extrapolation_flags(vcpus: float, hosts: float, powered_on_vms: float, db_connections: float) -> tuple:
    """``extrapolation`` flags for an appliance, inventory or DB pool away from the point the VCbench
    network was fitted at (:data:`FIT_VCPUS`, :data:`FIT_HOSTS`, :data:`FIT_POWERED_ON_VMS`,
    :data:`DEFAULT_DB_CONNECTIONS`) (internal: for the validated inputs of the model functions)."""
    out = []
    for name, value, fit, what in (
            ("vcpus", vcpus, FIT_VCPUS, "the VCbench network was fitted on the X-Large appliance only"),
            ("hosts", hosts, FIT_HOSTS, "the VCbench runs managed 2,000 hosts"),
            ("powered_on_vms", powered_on_vms, FIT_POWERED_ON_VMS, "the VCbench runs had 25,000 powered-on VMs"),
            ("db_connections", db_connections, DEFAULT_DB_CONNECTIONS,
             "the model was fitted with vCenter's documented default pool, an external source as the VCHA study "
             "prints none")):
        if float(value) != fit:
            out.append(Flag(f"extrapolation: {name}={float(value):g} is not the fitted {fit:g} ({what}): the band "
                            "is widened", kind="extrapolation", name=name, limit=fit, value=float(value),
                            source=_FIT_SOURCE[name]))
    return tuple(out)


def checked_rtt_flags(replication_rtt_s) -> tuple:
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
        return (Flag(f"replication_rtt_s={worst:g} s is beyond the {MAX_SUPPORTED_RTT_S * 1e3:g} ms VCHA network "
                     "latency VMware supports (VCHA study, Best Practices): unsupported", kind="unsupported",
                     name="replication_rtt_s", limit=MAX_SUPPORTED_RTT_S, value=worst,
                     source="VCHA study, Best Practices (data/vcha2016/text_best_practices)"),)
    return ()


def checked_vcpu_flags(vcpus) -> tuple:
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
        return (Flag(f"vcpus={least:g} is below the smallest appliance VCHA supports (Small, "
                     f"{MIN_SUPPORTED_VCPUS:g} vCPUs; Tiny, 2 vCPUs, is not supported): unsupported",
                     kind="unsupported", name="vcpus", limit=MIN_SUPPORTED_VCPUS, value=least,
                     source="VCHA study, Table 1 and Best Practices (data/vcha2016/table01_sizing)"),)
    return ()


def checked_fallback_flags(over, background_wal_bytes_per_s: float, bandwidth_bps, behind_bytes_per_s,
                    tcp_rate_bps=None) -> tuple:
    """Flag a replication link the background WAL alone fills: VCHA falls back to asynchronous replication
    (RPO > 0), the Passive falling behind by ``behind_bytes_per_s``."""
    if not np.any(over):
        return ()
    lag = float(np.max(behind_bytes_per_s))
    rate = float(np.min(bandwidth_bps)) if tcp_rate_bps is None else float(np.min(tcp_rate_bps))
    return (Flag(f"fallback: the replication link cannot carry the background WAL "
                 f"({8e-6 * background_wal_bytes_per_s:.3g} Mbit/s): its TCP rate is {rate / 1e6:.3g} Mbit/s "
                 f"(a {float(np.min(bandwidth_bps)) / 1e6:.3g} Mbit/s link with its RTT and loss), so "
                 f"PostgreSQL falls back to asynchronous replication (RPO > 0; the Passive falls behind by "
                 f"{lag / 1e6:.3g} MB/s, so a failover loses data and the Passive may need a full resync)",
                 kind="fallback", name="bandwidth_bps", limit=8.0 * background_wal_bytes_per_s, value=rate,
                 source="VCHA study, Best Practices "
                        "(data/vcha2016/text_best_practices: replication_falls_back_to_async)"),)


def checked_pool_flags(stats_demand: float, stats_held, pool_size: float) -> tuple:
    """Flag statistics writes that would hold every connection of the pool but one."""
    if stats_demand <= 0.0 or not np.any(np.asarray(stats_held) >= pool_size - 1.0):
        return ()
    return (Flag(f"statistics writes need more than the pool's {pool_size:g} connections (one left to VCbench): "
                 "the database pool is saturated by statistics", kind="saturated", name="db_connections",
                 limit=pool_size, value=float(np.max(stats_held)),
                 source="the model: statistics connections (Table 12 fit) vs the pool"),)


def checked_memory_flags(peak_bytes: float, memory_bytes: float) -> tuple:
    """Flag a modelled peak resident memory above the appliance's memory (Table 1 sizes)."""
    if peak_bytes <= memory_bytes:
        return ()
    return (Flag(f"memory pressure: the modelled peak resident memory of vpxd, postgres and vcha "
                 f"({peak_bytes / 1e9:.1f} GB, Table 8's model) exceeds the appliance's {memory_bytes / 1e9:.0f} GB "
                 "(Table 1): swapping is not modelled, the throughput is optimistic", kind="memory",
                 name="memory_bytes", limit=float(memory_bytes), value=float(peak_bytes),
                 source="Table 8's memory model vs Table 1's appliance memory"),)
