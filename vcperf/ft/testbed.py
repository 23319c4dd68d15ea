"""The FT study's test bed: what the seed states about its setup (Appendices A and B, the vCenter
section), read from ``data/ft2016`` into :class:`Testbed` (SI). Model inputs, never fitted."""

from __future__ import annotations

import functools
from dataclasses import dataclass

from vcperf import _frozen, data
from vcperf import _validate as v
from vcperf.ft.params import STUDY

_DETAILS = "text_workload_details"


def _si(table: str, quantity: str, **conditions) -> float:
    """One stated number in SI (``conditions`` may include ``unit`` to skip a text row of the same quantity)."""
    r = data.row(f"{STUDY}/{table}", quantity, **conditions)
    return float(data.to_si(r["value"], r["unit"]))


@dataclass(frozen=True)
class Testbed:
    """What the seed states about its setup (Appendices A and B, vCenter section), in SI, and the
    FT-off TCP_RR round trip it does not print (``vm_round_trip_s``, from VMware's stated order of
    magnitude: ``data/ft2016/external_vm_round_trip.csv``).

    These are model *inputs*: never fitted, never compared. Frozen and hashable, so model values
    computed on it can be cached.
    """

    netperf_streams: float
    netperf_socket_bytes: float
    netperf_message_bytes: float
    netperf_uplinks_bps: tuple
    lun_disks: float
    iometer_vcpus: int
    cpu_utilization: float
    swingbench_users: int
    swingbench_think_s: float
    swingbench_vcpus: int
    dvdstore_threads: int
    dvdstore_think_s: float
    dvdstore_searches: float
    dvdstore_vcpus: int
    netperf_vcpus: int
    kernel_compile_vcpus: tuple
    iometer_patterns: tuple
    brokerage_connections: int
    brokerage_vcpus: int
    vcenter_vcpus: int
    load_a_per_s: float
    load_b_per_s: float
    browse_off_s: float
    vm_round_trip_s: float

    def netperf_kw(self) -> dict:
        """``streams``, ``socket_bytes`` and ``vm_round_trip_s`` for :func:`vcperf.ft.netperf_throughput_bps`."""
        return {"streams": self.netperf_streams, "socket_bytes": self.netperf_socket_bytes,
                "vm_round_trip_s": self.vm_round_trip_s}

    def vcenter_kw(self) -> dict:
        """The appliance facts :func:`vcperf.ft.vcenter_predictions` takes."""
        return {"vcpus": self.vcenter_vcpus, "load_a_per_s": self.load_a_per_s, "load_b_per_s": self.load_b_per_s,
                "browse_off_s": self.browse_off_s}


def workload_vcpus(workload: str) -> int:
    """Largest vCPU count Appendix B lists for ``workload`` (``text_workload_details``).

    Parameters
    ----------
    workload : str
        A workload name of ``data/ft2016/text_workload_details.csv`` (e.g. ``"swingbench_oracle11g"``).

    Examples
    --------
    >>> from vcperf import ft
    >>> ft.workload_vcpus("swingbench_oracle11g")
    4
    """
    v.text("workload", workload, "a workload name of text_workload_details (e.g. 'swingbench_oracle11g')")
    return _workload_vcpus(workload)


def _workload_rows(workload: str):
    df = data.load(f"{STUDY}/{_DETAILS}")
    return df, df[(df["quantity"] == "vm_vcpus") & (df["workload"] == workload)]["value"]


@functools.lru_cache(maxsize=16)
def _workload_vcpus(workload: str) -> int:
    df, vals = _workload_rows(workload)
    if vals.empty:
        raise ValueError(f"workload must be one of {sorted(set(df['workload']) - {''})}; got {workload!r}")
    return int(vals.astype(float).max())


def _vcpu_configs(workload: str) -> tuple:
    return tuple(sorted(int(float(x)) for x in _workload_rows(workload)[1]))


def _iometer_patterns() -> tuple:
    """Figure 6's access patterns (Appendix B): ``((size_label, size_bytes, write_fraction), ...)``."""
    df = data.load(f"{STUDY}/figure06_iometer_throughput")
    out = []
    for _, r in df[df["quantity"].isin(["read_percent", "write_percent"])].iterrows():
        pct = float(data.to_si(r["value"], r["unit"]))
        w = pct if r["quantity"] == "write_percent" else 1.0 - pct
        size = float(data.to_si(float(r["message_size"].rstrip("KB")), "KB"))
        key = (r["message_size"], size, w)
        if key not in out:
            out.append(key)
    return tuple(out)


@_frozen.cache
def testbed() -> Testbed:
    """The study's :class:`Testbed`, read from ``data/ft2016`` (cached).

    Examples
    --------
    >>> from vcperf import ft
    >>> tb = ft.testbed()
    >>> tb.vcenter_vcpus, tb.kernel_compile_vcpus
    (4, (1, 2, 4))
    """
    tb = data.load(f"{STUDY}/testbed")
    uplinks = tb[(tb["quantity"] == "uplink_speed") & (tb["component"] == "vm_network")]
    sb, ds = "swingbench_oracle11g", "dvdstore_sqlserver2012"
    return Testbed(
        netperf_streams=_si(_DETAILS, "parallel_clients", workload="netperf"),
        netperf_socket_bytes=_si(_DETAILS, "socket_size", workload="netperf"),
        netperf_message_bytes=_si(_DETAILS, "message_size", workload="netperf"),
        netperf_uplinks_bps=tuple(sorted(float(data.to_si(r["value"], r["unit"])) for _, r in uplinks.iterrows())),
        lun_disks=_si("testbed", "lun_disks", component="storage_array", raid="RAID 5"),
        iometer_vcpus=workload_vcpus("iometer"),
        cpu_utilization=_si("text_general", "real_life_workload_cpu_utilization"),
        swingbench_users=int(_si(_DETAILS, "users", workload=sb)),
        swingbench_think_s=0.5 * (_si(_DETAILS, "transaction_min_delay", workload=sb)
                                  + _si(_DETAILS, "transaction_max_delay", workload=sb)),
        swingbench_vcpus=workload_vcpus(sb),
        dvdstore_threads=int(_si(_DETAILS, "n_threads", workload=ds)),
        dvdstore_think_s=_si(_DETAILS, "think_time", workload=ds),
        dvdstore_searches=_si(_DETAILS, "n_searches", workload=ds),
        dvdstore_vcpus=workload_vcpus(ds),
        netperf_vcpus=workload_vcpus("netperf"),
        kernel_compile_vcpus=_vcpu_configs("kernel_compile"),
        iometer_patterns=_iometer_patterns(),
        brokerage_connections=int(_si(_DETAILS, "user_connections", workload="brokerage_tpce_derived")),
        brokerage_vcpus=workload_vcpus("brokerage_tpce_derived"),
        vcenter_vcpus=int(_si("text_vcenter_setup", "vcpus", source="body")),
        load_a_per_s=_si("figure12_vcenter_management_ops", "load_operation_rate", load="A", unit="ops_per_min"),
        load_b_per_s=_si("figure12_vcenter_management_ops", "load_operation_rate", load="B", unit="ops_per_min"),
        browse_off_s=_si("figure13_web_client_browsing", "browse_latency_mean", ft="off"),
        vm_round_trip_s=_si("external_vm_round_trip", "vm_round_trip", workload="netperf_tcp_rr"),
    )


def netperf_setup() -> dict:
    """Netperf configuration of Appendix B: ``{"streams", "socket_bytes", "message_bytes"}`` (count, B, B).

    Examples
    --------
    >>> from vcperf import ft
    >>> sorted(ft.netperf_setup())
    ['message_bytes', 'socket_bytes', 'streams']
    """
    t = testbed()
    return {"streams": t.netperf_streams, "socket_bytes": t.netperf_socket_bytes,
            "message_bytes": t.netperf_message_bytes}


def netperf_uplinks_gbps() -> tuple:
    """VM network uplinks of the netperf experiments in Gbps (``testbed.csv``: Figures 3 and 4).

    Examples
    --------
    >>> from vcperf import ft
    >>> ft.netperf_uplinks_gbps()
    (1.0, 10.0)
    """
    return tuple(u / 1e9 for u in testbed().netperf_uplinks_bps)


def vcenter_setup() -> dict:
    """vCenter facts: ``vcpus``, the two loads' op rates ``load_a_per_s``, ``load_b_per_s`` (1/s) and the
    FT-off browse latency ``browse_off_s`` (s).

    Examples
    --------
    >>> from vcperf import ft
    >>> ft.vcenter_setup()["vcpus"]
    4
    """
    return testbed().vcenter_kw()
