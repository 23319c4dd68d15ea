"""FT study validation: the ledger functions (:class:`vcperf.protocol.StudyFunctions`), the
model values the views draw, and the seed's statements without a usable number (:func:`qualitative_checks`)."""

from __future__ import annotations

from vcperf import _frozen, data, protocol
from vcperf.ft.calibration import calibrate
from vcperf.ft.kernelcompile import kernel_compile_overhead_fraction
from vcperf.ft.netperf import netperf_ft_logging_bps, netperf_throughput_bps, tcp_rr
from vcperf.ft.params import STUDY
from vcperf.ft.study import database_workload, testbed_iometer, vcenter_values
from vcperf.ft.testbed import testbed

#: The shared protocol functions of the study (:class:`vcperf.protocol.StudyFunctions`).
FUNCTIONS = protocol.StudyFunctions(STUDY)
predict, leave_one_out = FUNCTIONS.predict, FUNCTIONS.leave_one_out
fidelity_rows, parameter_table = FUNCTIONS.fidelity_rows, FUNCTIONS.parameter_table


@_frozen.cache
def model_values() -> dict:
    """Model values the FT views draw (SI), keyed by a short name, under the calibrated parameters.

    Netperf and TCP_RR on the netperf VM's vCPUs (Appendix B), as the ledger's rows compute them.

    Returns
    -------
    dict
        ``tcp_rr_latency_ratio``, ``tcp_rr_rate_ratio``; ``netperf_ft``, ``netperf_off``,
        ``netperf_ft_logging`` (bit/s by ``(uplink_gbps, direction)``); ``iometer_2KB``,
        ``iometer_64KB`` (50/50 mix ratios); ``swingbench``, ``dvdstore``
        (:class:`~vcperf.ft.ClosedLoopResult`); ``vcenter`` (:func:`vcperf.ft.vcenter_values`).

    Examples
    --------
    >>> from vcperf import ft
    >>> m = ft.model_values()
    >>> bool(m["tcp_rr_latency_ratio"] > 10)
    True
    """
    p = calibrate()
    e = p.checkpoint_interval_s
    t = testbed()
    ups = [u / 1e9 for u in t.netperf_uplinks_bps]

    def thr(g, d, on):
        return float(netperf_throughput_bps(g * 1e9, d, on, e, vcpus=t.netperf_vcpus, **t.netperf_kw()))

    rr = tcp_rr(e, t.vm_round_trip_s, vcpus=t.netperf_vcpus)
    return {
        "tcp_rr_latency_ratio": rr.latency_ratio,
        "tcp_rr_rate_ratio": rr.rate_ratio,
        "netperf_ft": {(g, d): thr(g, d, True) for g in ups for d in ("receive", "transmit")},
        "netperf_off": {(g, d): thr(g, d, False) for g in ups for d in ("receive", "transmit")},
        "netperf_ft_logging": {(g, d): float(netperf_ft_logging_bps(g * 1e9, d, e, vcpus=t.netperf_vcpus,
                                                                    **t.netperf_kw()))
                               for g in ups for d in ("receive", "transmit")},
        "iometer_2KB": testbed_iometer(2e3, 0.5, checkpoint_interval_s=e).throughput_ratio,
        "iometer_64KB": testbed_iometer(64e3, 0.5, checkpoint_interval_s=e).throughput_ratio,
        "swingbench": database_workload("swingbench", checkpoint_interval_s=e),
        "dvdstore": database_workload("dvdstore", checkpoint_interval_s=e),
        "vcenter": vcenter_values(p),
    }


def kernel_compile_increase_s() -> float:
    """The seed's kernel-compile increase under FT (Figure 2: about 7 s), in seconds.

    Examples
    --------
    >>> from vcperf import ft
    >>> ft.kernel_compile_increase_s()
    7.0
    """
    return data.value(f"{STUDY}/figure02_kernel_compile", "compile_time_increase_ft", "si")


def iometer_paper_ratios() -> dict:
    """Figure 6's stated FT-on/off ratio ("nearly as much throughput", ~1) per I/O size: ``{"2KB": .., "64KB": ..}``.

    Examples
    --------
    >>> from vcperf import ft
    >>> sorted(ft.iometer_paper_ratios())
    ['2KB', '64KB']
    """
    return {size: data.value(f"{STUDY}/figure06_iometer_throughput", "throughput_ft_on_over_off", "si",
                             message_size=size) for size in ("2KB", "64KB")}


def implied_kernel_compile_baseline_s(dirty_rate_bytes_per_s=0.0, checkpoint_interval_s=None, **kw):
    """FT-off compile time (s) for which the model's overhead equals the seed's stated increase (Figure 2).

    The seed prints only the increase (about 7 s), not the compile times: this is the FT-off time a
    CPU-bound job dirtying ``dirty_rate_bytes_per_s`` must take for FT to add that much.

    Parameters
    ----------
    dirty_rate_bytes_per_s : float or array_like
        Memory the compile dirties per second of run time, B/s, >= 0.
    checkpoint_interval_s : float, optional
        Run time between checkpoints, s (default: the calibrated interval).
    **kw
        FT-link inputs of :func:`vcperf.ft.checkpoint_cycle` (``ft_link_bps``, ``ft_ack_rtt_s``, ...).

    Examples
    --------
    >>> from vcperf import ft
    >>> bool(ft.implied_kernel_compile_baseline_s(0.0) > 7.0)
    True
    """
    e = calibrate().checkpoint_interval_s if checkpoint_interval_s is None else checkpoint_interval_s
    return kernel_compile_increase_s() / kernel_compile_overhead_fraction(dirty_rate_bytes_per_s, e, **kw)


def qualitative_checks():
    """The seed's statements without a usable number, each with the model's value and whether it holds.

    Shown beside the ledger: most follow from the mechanism's sign (FT only adds delay).

    Returns
    -------
    pandas.DataFrame
        ``locator, statement, model, holds``.

    Examples
    --------
    >>> from vcperf import ft
    >>> bool(ft.qualitative_checks().set_index("locator").loc["Figure 12", "holds"])
    True
    """
    import pandas as pd

    m = model_values()
    thr, log = m["netperf_ft"], m["netperf_ft_logging"]
    ups = [u / 1e9 for u in testbed().netperf_uplinks_bps]
    slow, fast = min(ups), max(ups)
    sb, ds = m["swingbench"], m["dvdstore"]
    e = calibrate().checkpoint_interval_s
    base = implied_kernel_compile_baseline_s()
    added = kernel_compile_increase_s()
    reach = data.value(f"{STUDY}/figure04_netperf_throughput_10gbps", "throughput", "si", direction="")
    records = [
        ("Figure 2", f"kernel compile: FT adds about {added:g} s (FT-off time not printed)",
         f"overhead {float(kernel_compile_overhead_fraction(0.0, e)):.2%} -> implied FT-off compile time "
         f"{base:.0f} s", True),
        ("Figures 3-4", "FT traffic high for receive, minimal for transmit",
         f"FT link {log[(fast, 'receive')] / 1e9:.2f} Gbps (receive) vs {log[(fast, 'transmit')] / 1e9:.3f} Gbps "
         "(transmit)", log[(fast, "receive")] > 10 * log[(fast, "transmit")]),
        ("Figure 4", f"FT-on throughput >= {reach / 1e9:g} Gbps on the {fast:g} Gbps network (both directions)",
         f"receive {thr[(fast, 'receive')] / 1e9:.2f}, transmit {thr[(fast, 'transmit')] / 1e9:.2f} Gbps",
         min(thr[(fast, "receive")], thr[(fast, "transmit")]) >= reach),
        ("Figure 3", f"(if meant for both directions) >= {reach / 1e9:g} Gbps on the {slow:g} Gbps network",
         f"receive {thr[(slow, 'receive')] / 1e9:.2f}, transmit {thr[(slow, 'transmit')] / 1e9:.2f} Gbps",
         min(thr[(slow, "receive")], thr[(slow, "transmit")]) >= reach * 0.99),
        ("Figure 6", "IOMeter: nearly as much throughput under FT (2 KB and 64 KB)",
         f"50/50 mix ratio {m['iometer_2KB']:.3f} (2 KB), {m['iometer_64KB']:.3f} (64 KB); mirrored writes wait "
         "the FT-link round trip", abs(m["iometer_2KB"] - 1) <= 0.08 and abs(m["iometer_64KB"] - 1) <= 0.08),
        ("Figure 8", "Swingbench response time increases under FT",
         f"response ratio {sb.response_ratio:.3f}", sb.response_ratio > 1),
        ("Figure 9", "DVD Store throughput overhead under FT",
         f"throughput ratio {ds.throughput_ratio:.3f}", ds.throughput_ratio < 1),
        ("Figure 10", "DVD Store response time increases under FT",
         f"response ratio {ds.response_ratio:.3f}", ds.response_ratio > 1),
        ("Figure 12", "heavier vCenter load loses more throughput",
         f"Load A {m['vcenter']['ratio_a']:.2f} vs Load B {m['vcenter']['ratio_b']:.2f}",
         m["vcenter"]["ratio_b"] < m["vcenter"]["ratio_a"]),
    ]
    return pd.DataFrame(records, columns=["locator", "statement", "model", "holds"])
