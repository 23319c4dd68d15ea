"""Mechanism, fidelity and bad-input tests for vcperf.ft (FT study, 002_1123405df89c1006.txt)."""


import re

import numpy as np
import pytest

from vcperf import data, ft, network, protocol
from vcperf.network import TCP_PAYLOAD_FRACTION

LINKS = np.array([1e9, 10e9, 25e9])[:, None, None]
RECEIVE = np.linspace(0.0, 40e9, 21)[None, :, None]
DIRTY = np.array([0.0, 1e6, 1e8, 1e9, 1e10])[None, None, :]


def _e():
    """The calibrated checkpoint interval (model functions take it as an argument)."""
    return ft.calibrate().checkpoint_interval_s


def _net():
    """Appendix B's netperf streams and socket size."""
    return ft.testbed().netperf_kw()


# --------------------------------------------------------------------------------------------
# Checkpoint cycle and FT logging traffic
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("interval_s", [1e-4, 5e-3, 0.1])
def test_logging_bandwidth_never_exceeds_link_rate(interval_s):
    bw = ft.ft_logging_bandwidth_bps(RECEIVE, DIRTY, interval_s, LINKS)
    assert np.all(bw < LINKS)
    assert np.all(bw >= 0)
    # ... and approaches it when the guest dirties far more than the link can carry
    near = ft.ft_logging_bandwidth_bps(0.0, 1e13, interval_s, 10e9)
    assert near > 0.9 * 10e9 * TCP_PAYLOAD_FRACTION


def test_receive_heavy_loads_the_ft_link_more_than_transmit_heavy():
    # Same 5 Gbps of traffic: received data is logged, transmitted data dirties nothing.
    e = _e()
    rx = ft.ft_logging_bandwidth_bps(5e9, 0.0, e)
    tx = ft.ft_logging_bandwidth_bps(0.0, 0.0, e)
    assert rx > 100 * max(tx, 1.0)
    for uplink in (1e9, 10e9):
        log_rx = ft.netperf_ft_logging_bps(uplink, "receive", e, **_net())
        log_tx = ft.netperf_ft_logging_bps(uplink, "transmit", e, **_net())
        # transmit buffers dirty headers and descriptors (issue 13): minimal per byte moved, not zero
        thr_rx = ft.netperf_throughput_bps(uplink, "receive", True, e, **_net())
        thr_tx = ft.netperf_throughput_bps(uplink, "transmit", True, e, **_net())
        assert 0 < log_tx / thr_tx < 0.1 < 2.0 < log_rx / thr_rx
        assert log_tx < log_rx
        assert ft.netperf_ft_logging_bps(1e9, "transmit", e, **_net()) < 0.05 * log_rx if uplink == 1e9 else True
        assert log_rx < ft.DEFAULT_FT_LINK_BPS
    assert np.all(np.diff(ft.ft_logging_bandwidth_bps(np.linspace(0, 10e9, 11), 0.0, e)) > 0)


def test_netperf_transmit_keeps_line_rate_receive_is_bounded_by_the_ft_link():
    e = _e()
    seed_vm = dict(vcpus=ft.testbed().netperf_vcpus, **_net())  # Figures 3-4's 4-vCPU netperf VM
    for uplink in (1e9, 10e9):
        tx = ft.netperf_throughput_bps(uplink, "transmit", True, e, **seed_vm)
        rx = ft.netperf_throughput_bps(uplink, "receive", True, e, **seed_vm)
        assert rx < tx <= network.payload_rate_bps(uplink) < uplink
        # FT off: the uplink's TCP payload (one definition of payload on a wire), not its line rate
        assert ft.netperf_throughput_bps(uplink, "receive", False, e, **seed_vm) == pytest.approx(
            network.payload_rate_bps(uplink))
        # FT on, transmit keeps the uplink's payload capacity (the NIC drains the held output)
        assert tx == pytest.approx(network.payload_rate_bps(uplink), rel=1e-9)
    # ... unless the guest's stack binds: one vCPU produces at most its stack rate, and only while it runs
    tx1 = float(ft.netperf_throughput_bps(10e9, "transmit", True, e, vcpus=1, **_net()))
    phi = float(ft.checkpoint_cycle(ft.DEFAULT_DIRTY_BYTES_PER_TRANSMITTED_BYTE * ft.DEFAULT_GUEST_STACK_BPS_PER_VCPU
                                    / 8.0, e, vcpus=1).run_fraction)
    assert tx1 == pytest.approx(ft.DEFAULT_GUEST_STACK_BPS_PER_VCPU * phi, rel=1e-6)
    assert tx1 < network.payload_rate_bps(10e9)
    # receive ceiling ~ L eff / (logged bytes per received byte), whatever the VM uplink
    ceiling = 10e9 * TCP_PAYLOAD_FRACTION / ft.DEFAULT_LOGGED_BYTES_PER_RECEIVED_BYTE
    assert ft.netperf_throughput_bps(100e9, "receive", True, e, **_net()) < ceiling


def test_added_latency_grows_with_interval_and_shrinks_with_link_speed():
    intervals = np.geomspace(1e-4, 0.1, 30)
    for dirty in (0.0, 1e8):
        d = ft.output_commit_delay_s(dirty, intervals)
        assert np.all(np.diff(d) > 0)
        assert np.all(d > intervals / 2)
    links = np.geomspace(1e9, 100e9, 10)
    d_link = ft.output_commit_delay_s(2e8, 5e-3, links)
    assert np.all(np.diff(d_link) < 0)
    # idle guest: exactly E/2 + ack RTT + one vCPU's state over the link (+ fixed stun)
    state_s = 8 * ft.VCPU_STATE_BYTES / (ft.DEFAULT_FT_LINK_BPS * TCP_PAYLOAD_FRACTION)
    assert ft.output_commit_delay_s(0.0, 4e-3) == pytest.approx(2e-3 + ft.DEFAULT_FT_ACK_RTT_S + state_s)


def test_run_fraction_and_working_set_cap():
    cyc = ft.checkpoint_cycle(np.array([0.0, 1e8, 1e9, 1e11]), 5e-3)
    assert np.all((cyc.run_fraction > 0) & (cyc.run_fraction <= 1))
    assert np.all(np.diff(cyc.run_fraction) < 0)
    capped = ft.checkpoint_cycle(1e11, 5e-3, working_set_bytes=1e6)
    assert float(capped.dirty_bytes_per_epoch) == pytest.approx(1e6 + ft.VCPU_STATE_BYTES)
    assert capped.run_fraction > cyc.run_fraction[-1]


def test_run_fraction_at_is_the_cycle_fixed_point():
    e, m = 5e-3, 2e6
    for x in (0.0, 10.0, 100.0, 400.0):
        phi = float(ft.run_fraction_at(x, m, 1e7, e))
        cyc = ft.checkpoint_cycle(1e7 + x * m / phi, e)
        assert float(cyc.run_fraction) == pytest.approx(phi, rel=1e-9)


# --------------------------------------------------------------------------------------------
# TCP_RR and closed loops
# --------------------------------------------------------------------------------------------


def test_tcp_rr_rate_falls_by_the_latency_factor():
    for e in (1e-3, 5e-3, 2e-2):
        rr = ft.tcp_rr(e)
        assert rr.rate_ratio == pytest.approx(rr.latency_ratio, rel=1e-12)
        assert rr.latency_on_s == pytest.approx(rr.latency_off_s + ft.output_commit_delay_s(0.0, e))
        # the closed form the calibration uses is the inverse of tcp_rr
        assert ft.interval_from_latency_ratio(rr.latency_ratio) == pytest.approx(e, rel=1e-9)
    assert ft.tcp_rr(2e-2).latency_ratio > ft.tcp_rr(1e-3).latency_ratio


@pytest.mark.parametrize("think_s", [0.0, 0.1, 1.0])
def test_closed_loop_littles_law_and_ratio_bounds(think_s):
    r = ft.closed_loop(24, think_s, 0.02, vcpus=4, external_delay_s=0.05, exchanges_per_op=5,
                       dirty_bytes_per_op=5e6, checkpoint_interval_s=_e())
    assert 24 == pytest.approx(r.throughput_off_per_s * (r.response_off_s + think_s), rel=1e-9)
    assert 24 == pytest.approx(r.throughput_on_per_s * (r.response_on_s + think_s), rel=1e-6)
    assert 0 < r.throughput_ratio <= 1
    assert r.response_ratio >= 1
    # utilization law on the vCPUs without FT
    assert r.cpu_utilization_off == pytest.approx(r.throughput_off_per_s * 0.02 / 4)
    assert r.cpu_utilization_off < 1


def test_throughput_ratio_decreases_with_latency_sensitivity():
    u, e = ft.testbed().cpu_utilization, _e()
    ratios = [ft.closed_loop_at_utilization(64, 0.1, k, u, checkpoint_interval_s=e).throughput_ratio
              for k in (0, 1, 5, 20, 100)]
    assert ratios[0] == pytest.approx(1.0, abs=0.02)
    assert all(a > b for a, b in zip(ratios, ratios[1:], strict=False))
    assert all(0 < x <= 1 for x in ratios)
    # more think time: less sensitive
    assert (ft.closed_loop_at_utilization(64, 2.0, 20, u, checkpoint_interval_s=e).throughput_ratio
            > ft.closed_loop_at_utilization(64, 0.05, 20, u, checkpoint_interval_s=e).throughput_ratio)


def test_heavier_load_loses_more_through_the_serial_stun():
    kw = dict(vcpus=4, external_delay_s=1.0, exchanges_per_op=50, dirty_bytes_per_op=2e8, checkpoint_interval_s=_e())
    ratios = [ft.closed_loop(n, 0.0, 1.0, **kw).throughput_ratio for n in (1, 4, 16, 32)]
    assert all(a > b for a, b in zip(ratios, ratios[1:], strict=False))
    # at saturation the FT-on throughput obeys the combined bound X (D/c + 8 m / (L eff)) <= 1
    big = ft.closed_loop(200, 0.0, 1.0, **kw)
    bound = 1.0 / (1.0 / 4 + 8 * 2e8 / (ft.DEFAULT_FT_LINK_BPS * TCP_PAYLOAD_FRACTION))
    assert big.throughput_on_per_s <= bound * (1 + 1e-6)
    assert big.throughput_on_per_s > 0.9 * bound


def test_iometer_and_cpu_bound_limits():
    for size in (2e3, 64e3):
        r = ft.testbed_iometer(size, 0.5)
        assert 0.9 < r.throughput_ratio < 1  # mirrored writes wait the FT-link round trip and transfer
        # Figure 6 "nearly as much" (a predicted ledger row now: the mean over the access patterns)
        assert abs(r.throughput_ratio - ft.iometer_paper_ratios()[f"{size / 1e3:g}KB"]) <= 0.08
        reads, writes = ft.testbed_iometer(size, 0.0), ft.testbed_iometer(size, 1.0)
        assert writes.throughput_ratio < r.throughput_ratio < reads.throughput_ratio <= 1
    assert ft.testbed_iometer(64e3, 1.0).throughput_ratio < ft.testbed_iometer(2e3, 1.0).throughput_ratio
    e = _e()
    state_s = 8 * ft.VCPU_STATE_BYTES / (ft.DEFAULT_FT_LINK_BPS * TCP_PAYLOAD_FRACTION)
    assert ft.kernel_compile_overhead_fraction(0.0, e) == pytest.approx((ft.DEFAULT_FT_ACK_RTT_S + state_s) / e)
    assert ft.kernel_compile_overhead_fraction(5e8, e) > ft.kernel_compile_overhead_fraction(1e7, e)


# --------------------------------------------------------------------------------------------
# Calibration and fidelity
# --------------------------------------------------------------------------------------------


def test_calibration_is_physical_and_deterministic():
    p = ft.calibrate()
    assert 1e-4 < p.checkpoint_interval_s < 0.1
    assert p.vcenter_dirty_rate_bytes_per_s > 0
    assert p.vcenter_exchange_rate_per_s >= 0
    s = ft.vcenter_setup()
    cpu = ft.vcenter_values(p)["cpu_demand_per_op_s"]
    assert 0 < cpu <= s["vcpus"] / s["load_b_per_s"]
    assert cpu == pytest.approx(ft.HEAVY_LOAD_CPU_UTILIZATION * s["vcpus"] / s["load_b_per_s"])
    from vcperf.ft import calibration

    calibration._calibrate.cache_clear()
    assert ft.calibrate(protocol.fit_keys(ft)) == p  # a refit on the same keys, past every cache


def test_fit_and_target_models_never_reach_a_params_none_default(monkeypatch):
    """calibration.py and targets.py pass explicit parameters: a fit (and every target's model) runs with the
    default calibration out of reach (``protocol.calibrated`` refuses)."""
    from vcperf.ft import calibration

    p = ft.calibrate()

    def refuse(study):
        raise AssertionError(f"a fit reached the default calibration of {study}")

    monkeypatch.setattr(protocol, "calibrated", refuse)
    assert calibration._calibrate.__wrapped__(protocol.fit_keys(ft)) == p
    assert set(protocol.predict(ft.STUDY, p)) == {t.key for t in ft.targets()}


@pytest.fixture(scope="module")
def rows():
    """Ledger rows under the default calibration (not the loo rows), by target key."""
    return {r.key: r for r in ft.fidelity_rows() if r.kind != "loo"}


@pytest.mark.parametrize("key, tol", [
    ("tcp_rr_latency_ratio", 1e-9),
    ("tcp_rr_rate_ratio", 1e-9),
    ("swingbench_throughput_ratio", 0.05),
    ("vcenter_load_a_ratio", 0.10),
    ("vcenter_load_b_ratio", 0.05),
    ("web_client_browse_on", 0.05),
    ("vcenter_restart_ratio", 0.10),
])
def test_fidelity_tolerances(rows, key, tol):
    r = rows[key]
    assert abs(r.rel_error) <= tol, r


def test_fidelity_bounds_and_summary(rows):
    rx = rows["netperf_10g_receive"]
    assert rx.kind == "bound" and rx.relation == "<" and rx.model_value < rx.paper_value and rx.passed
    assert rx.model_value > 0.7 * rx.paper_value
    # Figure 3's "meet or exceed 1 Gbps" on a 1 Gbps uplink: the model (best direction, transmit: the NIC
    # drains the released output during the stun) reaches the uplink's TCP payload capacity, which is the
    # line rate less the Ethernet/IP/TCP framing (network.payload_rate_bps): the literal 1 Gbps is out of
    # reach by the framing, so the bound no longer passes at exactly the line rate by construction
    reach = rows["netperf_1g_reach"]
    assert reach.model_value == pytest.approx(network.payload_rate_bps(1e9), rel=1e-9)
    assert reach.model_value < reach.paper_value and reach.passed is False
    assert reach.rel_error == pytest.approx(TCP_PAYLOAD_FRACTION - 1.0, rel=1e-9)
    assert rows["netperf_10g_reach"].passed is True
    # the brokerage: "a reduction" (direction only) and the floor read from the seed's summary (the largest
    # loss the seed prints, 40 %); a model at 20 % of FT-off no longer passes the brokerage rows
    down, floor = rows["brokerage_throughput_down"], rows["brokerage_throughput_floor"]
    assert floor.kind == "bound" and floor.relation == ">" and floor.paper_value == pytest.approx(0.4)
    assert floor.model_value == down.model_value
    assert floor.model_value < 0.4 and floor.passed is False
    counted = [r for r in rows.values() if r.kind in ("fitted", "predicted")]
    assert np.median(np.abs([r.rel_error for r in counted])) <= 0.05
    assert len(rows) == 18  # keyed by target: 6 fitted (+6 loo), 3 predicted, 8 bounds, 1 derived
    assert all(r.study == "ft2016" for r in rows.values())


def test_database_workloads_follow_their_latency_sensitivity():
    sb, ds = ft.database_workload("swingbench"), ft.database_workload("dvdstore")
    for r in (sb, ds):
        stated = data.value("ft2016/text_general", "real_life_workload_cpu_utilization", unit="si")
        assert r.cpu_utilization_off == pytest.approx(stated, abs=1e-6)  # the seed's operating point
        assert r.n_clients == pytest.approx(r.throughput_on_per_s * (r.response_on_s + r.think_time_s), rel=1e-6)
    # one stored-procedure call per transaction vs seven per order: DVD Store loses more
    assert ds.throughput_ratio < sb.throughput_ratio < 1
    churn = ft.database_workload("dvdstore", dirty_bytes_per_op=5e6)
    assert churn.throughput_ratio < ds.throughput_ratio


def test_roles_of_the_ledger(rows):
    """Five fitted numbers from five runs; the 57x transaction rate is derived (carried over), IOMeter is
    not a row (1 by construction)."""
    kinds = {k: r.kind for k, r in rows.items()}
    fitted = sorted(r.source.split("/")[1] for r in rows.values() if r.kind == "fitted")
    assert fitted == sorted(["figure02_kernel_compile", "figure05_netperf_latency"]
                            + ["figure12_vcenter_management_ops"] * 2
                            + ["figure13_web_client_browsing", "figure14_vcenter_restart"])
    assert kinds["tcp_rr_rate_ratio"] == "derived"
    assert kinds["swingbench_throughput_ratio"] == "predicted"
    assert kinds["iometer_2KB_ratio"] == kinds["iometer_64KB_ratio"] == "predicted"
    assert {k for k, kind in kinds.items() if kind == "bound"} == {
        "netperf_1g_reach", "netperf_10g_reach", "netperf_10g_receive", "swingbench_response_up",
        "dvdstore_throughput_down", "dvdstore_response_up", "brokerage_throughput_down",
        "brokerage_throughput_floor"}
    # every figure 2-14 contributes at least one row
    figs = {r.source.split("/")[1][:8] for r in rows.values()}
    assert figs >= {f"figure{n:02d}" for n in range(2, 15)}
    ident = protocol.identifiability(ft)
    # 4 parameters (the vCPU time per vCenter operation comes from Load B's saturation, not a fit)
    assert ident["n_params"] == 4 and ident["n_fit_points"] == 6 and ident["n_fit_groups"] == 6
    assert ident["jacobian_rank"] == 4


def test_qualitative_statements():
    checks = ft.qualitative_checks().set_index("locator")
    for loc in ("Figures 3-4", "Figure 4", "Figure 6", "Figure 8", "Figure 9", "Figure 10", "Figure 12"):
        assert bool(checks.loc[loc, "holds"]), loc


def test_loo_errors_are_reported():
    loo = ft.leave_one_out().set_index("key")
    vcenter = ["vcenter_load_a_ratio", "vcenter_load_b_ratio", "web_client_browse_on", "vcenter_restart_ratio"]
    assert set(loo.index) == set(vcenter) | {"tcp_rr_latency_ratio", "kernel_compile_increase"}
    # Figure 2 is the only number of the compile's dirtied memory: not estimable when left out
    assert not loo.loc["kernel_compile_increase", "estimable"]
    loo = loo.drop("kernel_compile_increase")
    assert loo["estimable"].all() and np.isfinite(loo["rel_error"]).all()
    # held-out error of each vCenter number when the other three calibrate (see the notebook)
    assert loo.loc[vcenter, "rel_error"].abs().max() < 0.3
    # issue 13's goal: loo median <= 12 % (over the estimable rows, as the ledger summary counts)
    assert loo["rel_error"].abs().median() <= 0.12
    # the vCenter numbers hardly determine the checkpoint interval: Figure 5 left out is missed widely
    assert abs(loo.loc["tcp_rr_latency_ratio", "rel_error"]) > 0.3


def test_calibrate_fit_on_subsets():
    p = ft.calibrate()
    # the interval comes from Figure 5 alone, whichever vCenter numbers are fitted
    q = ft.calibrate(fit_on=("tcp_rr_latency_ratio", "vcenter_load_b_ratio"))
    assert q.checkpoint_interval_s == pytest.approx(p.checkpoint_interval_s, rel=1e-12)
    with pytest.raises(ValueError, match="fit_on"):
        ft.calibrate(fit_on=("netperf_10g_receive",))
    with pytest.raises(ValueError, match="checkpoint_interval_s"):
        ft.calibrate(fit_on=())


# --------------------------------------------------------------------------------------------
# Views and bad input
# --------------------------------------------------------------------------------------------


def test_whatif_update_returns_readout_and_png():
    from vcperf.views import ft as views

    text, png = views.whatif_update(10e9, 5e-3, 1e9, 1e8)
    assert "FT logging" in text and "added latency" in text
    assert png[:4] == b"\x89PNG"
    with pytest.raises(ValueError, match="checkpoint_interval_s"):
        views.whatif_update(10e9, 0.0, 1e9, 1e8)


def test_whatif_update_keeps_nothing_from_the_previous_call():
    import io

    from PIL import Image

    from vcperf.views import ft as views

    def pixels(png):
        return np.asarray(Image.open(io.BytesIO(png)))

    first = pixels(views.whatif_update(10e9, 5e-3, 1e9, 1e8)[1])
    other = pixels(views.whatif_update(1e9, 0.5e-3, 10e9, 2e9)[1])
    assert first.shape != other.shape or (first != other).any()
    np.testing.assert_array_equal(pixels(views.whatif_update(10e9, 5e-3, 1e9, 1e8)[1]), first)


NET = {"streams": 8.0, "socket_bytes": 4e6}


@pytest.mark.parametrize("call, name", [
    (lambda: ft.checkpoint_cycle(-1.0, 1e-3), "dirty_rate_bytes_per_s"),
    (lambda: ft.checkpoint_cycle(0.0, 0.0), "checkpoint_interval_s"),
    (lambda: ft.checkpoint_cycle(0.0, 1e-3, 0.0), "ft_link_bps"),
    (lambda: ft.checkpoint_cycle(0.0, 1e-3, working_set_bytes=0.0), "working_set_bytes"),
    (lambda: ft.ft_logging_bandwidth_bps(-1e9, 0.0, 1e-3), "receive_rate_bps"),
    (lambda: ft.ft_logging_bandwidth_bps(1e9, float("nan"), 1e-3), "dirty_rate_bytes_per_s"),
    (lambda: ft.netperf_throughput_bps(1e9, "sideways", True, 1e-3, **NET), "direction"),
    (lambda: ft.netperf_throughput_bps(0.0, "receive", True, 1e-3, **NET), "uplink_bps"),
    (lambda: ft.tcp_rr(1e-3, vm_round_trip_s=0.0), "vm_round_trip_s"),
    (lambda: ft.closed_loop(0, 0.0, 0.1, checkpoint_interval_s=1e-3), "n_clients"),
    (lambda: ft.closed_loop(4, -1.0, 0.1, checkpoint_interval_s=1e-3), "think_time_s"),
    (lambda: ft.closed_loop(4, 0.0, 0.0, checkpoint_interval_s=1e-3), "cpu_demand_s"),
    (lambda: ft.closed_loop(4, 0.0, 0.1, checkpoint_interval_s=1e-3, vcpus=0), "vcpus"),
    (lambda: ft.closed_loop_at_utilization(4, 0.1, 1, 1.0, checkpoint_interval_s=1e-3), "cpu_utilization"),
    (lambda: ft.database_workload("tpcc"), "name"),
    (lambda: ft.testbed_iometer(0.0), "message_bytes"),
    (lambda: ft.testbed_iometer(2e3, 1.5), "write_fraction"),
    (lambda: ft.iometer(2e3, 0.5, lun_disks=0.0, vcpus=4, checkpoint_interval_s=1e-3), "lun_disks"),
    (lambda: ft.activity_time_s(-1.0, 0.0, 0.0, 1e-3), "duration_off_s"),
    (lambda: ft.vcenter_predictions(1e8, 10.0, 100.0, checkpoint_interval_s=5e-3, **ft.vcenter_setup()),
     "cpu_demand_per_op_s"),
    (lambda: ft.run_fraction_at(-1.0, 1e6, 0.0, 5e-3), "throughput_per_s"),
    (lambda: ft.netperf_ft_logging_bps(1e9, "both", 1e-3, **NET), "direction"),
    (lambda: ft.interval_from_latency_ratio(1.0), "latency_ratio"),
    (lambda: ft.calibrate(fit_on=("no_such_target",)), "fit_on"),
    (lambda: ft.predict(ft.calibrate(), ("no_such_target",)), "keys"),
    (lambda: ft.workload_vcpus("nosuch"), "workload"),
])
def test_bad_input_raises_value_error_naming_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()


# --------------------------------------------------------------------------------------------
# Issue 13: no counted row is a constant by construction; SMP-FT limit; properties (Hypothesis)
# --------------------------------------------------------------------------------------------


def test_every_counted_row_moves_with_the_parameters_or_is_a_bound():
    import dataclasses

    params = ft.calibrate()
    tmap = {t.key: t for t in ft.targets()}
    base = ft.predict(params, tuple(tmap))
    moved = dict.fromkeys(tmap, False)
    for f in dataclasses.fields(params):
        for factor in (0.97, 1.03):
            p = dataclasses.replace(params, **{f.name: getattr(params, f.name) * factor})
            out = ft.predict(p, tuple(tmap))
            for k in tmap:
                moved[k] |= abs(out[k] - base[k]) > 1e-9 * max(abs(base[k]), 1e-300)
    for k, t in tmap.items():
        assert moved[k] or t.role == "bound", k


def _testbed_variants(tb):
    """(field, perturbed Testbed) for every stated input: scalars by 3 % (integers by one), the uplinks by 3 %,
    the kernel-compile configurations without one of them."""
    import dataclasses

    for f in dataclasses.fields(tb):
        val = getattr(tb, f.name)
        if f.name == "netperf_uplinks_bps":
            cands = [tuple(u * k for u in val) for k in (0.97, 1.03)]
        elif f.name == "kernel_compile_vcpus":
            cands = [tuple(c for c in val if c != drop) for drop in val]
        elif isinstance(val, tuple) or isinstance(val, bool):
            continue
        elif isinstance(val, int):
            cands = [val - 1, val + 1]
        else:
            cands = [val * 0.97, val * 1.03]
        for c in cands:
            yield f.name, dataclasses.replace(tb, **{f.name: c})


def test_no_row_is_a_constant_by_construction(monkeypatch):
    """Issue 13: perturb every input -- each calibrated parameter and each stated testbed input (Appendix A/B,
    the vCenter setup, the uplinks) -- and check that every ledger row moves with at least one of them: no row
    is a constant by construction. Rows that are not bounds must also move with the calibrated parameters
    (test above); here every row, bounds included, must respond to some input."""
    import dataclasses
    import importlib

    targets = importlib.import_module("vcperf.ft.targets")  # the module (vcperf.ft.targets is the function)
    params = ft.calibrate()
    keys = tuple(t.key for t in ft.targets())
    base = ft.predict(params, keys)
    movers = {k: set() for k in keys}

    def record(name, out):
        for k in keys:
            if abs(out[k] - base[k]) > 1e-9 * max(abs(base[k]), 1e-300):
                movers[k].add(name)

    for f in dataclasses.fields(params):
        for factor in (0.97, 1.03):
            record(f.name, ft.predict(dataclasses.replace(params, **{f.name: getattr(params, f.name) * factor}), keys))
    tb0 = targets.testbed()
    tried = set()
    for name, tb in _testbed_variants(tb0):
        monkeypatch.setattr(targets, "testbed", lambda tb=tb: tb)
        try:
            out = ft.predict(params, keys)
        except ValueError:  # e.g. 5 vCPUs: beyond the SMP-FT limit of vSphere 6.0
            continue
        tried.add(name)
        record(name, out)
    monkeypatch.undo()
    assert len(tried) >= 15  # the sweep really ran over the testbed
    for k in keys:
        assert movers[k], f"{k} does not move with any parameter or stated input"
    # the mechanisms read the inputs they should
    assert "netperf_uplinks_bps" in movers["netperf_1g_reach"]
    assert {"lun_disks", "iometer_vcpus"} <= movers["iometer_2KB_ratio"]
    assert {"swingbench_users", "swingbench_think_s", "cpu_utilization"} <= movers["swingbench_throughput_ratio"]
    assert {"load_a_per_s", "load_b_per_s", "vcenter_vcpus"} <= movers["vcenter_load_a_ratio"]
    assert "load_b_per_s" in movers["vcenter_load_b_ratio"] and "browse_off_s" in movers["web_client_browse_on"]
    assert "kernel_compile_vcpus" in movers["kernel_compile_increase"]
    assert "netperf_vcpus" in movers["tcp_rr_latency_ratio"]


def test_smp_ft_vcpu_limit_per_release():
    assert ft.check_ft_vcpus(4) == 4
    with pytest.raises(ValueError, match="vcpus"):
        ft.check_ft_vcpus(8)  # vSphere 6.0: 4 vCPUs
    assert ft.check_ft_vcpus(8, "6.7") == 8
    with pytest.raises(ValueError, match="vcpus"):
        ft.closed_loop(4, 0.1, 0.01, vcpus=6, checkpoint_interval_s=_e())
    with pytest.raises(ValueError, match="release"):
        ft.check_ft_vcpus(2, "5.5")
    # each vCPU adds its state to every checkpoint: more vCPUs, longer stun
    s = [float(ft.checkpoint_cycle(1e8, 5e-3, vcpus=c).stun_s) for c in (1, 2, 4)]
    assert s[0] < s[1] < s[2]


def test_ft_link_latency_share_turn_on_and_failover():
    e = _e()
    rtts = ft.metro_rtt_s(np.array([0.0, 10e3, 50e3, 100e3]))
    d = ft.output_commit_delay_s(1e8, e, ft_ack_rtt_s=rtts)
    assert np.all(np.diff(d) > 0)
    shared = [float(ft.checkpoint_cycle(5e8, e, n_ft_vms=n).run_fraction) for n in (1, 2, 4)]
    assert shared[0] > shared[1] > shared[2]
    t10 = ft.turn_on_time_s(40e9, 8e9, 1e8, 10e9)
    t25 = ft.turn_on_time_s(40e9, 8e9, 1e8, 25e9)
    assert t25 < t10 and t10 > 8 * 48e9 / 10e9 * 0.99
    assert ft.failover_time_s(1.0, e) > 1.0


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_SET = settings(max_examples=40, deadline=None, derandomize=True)


@_SET
@given(rtt=st.floats(0.0, 0.02), drtt=st.floats(0.0, 0.02), loss=st.floats(0.0, 0.05), dloss=st.floats(0.0, 0.05),
       link=st.floats(1e9, 100e9), dlink=st.floats(0.0, 100e9), dirty=st.floats(0.0, 2e9),
       e=st.floats(1e-4, 0.05))
def test_property_cycle_monotone_bounded_finite(rtt, drtt, loss, dloss, link, dlink, dirty, e):
    kw = dict(ft_ack_rtt_s=rtt, ft_link_loss=loss)
    base = ft.checkpoint_cycle(dirty, e, link, **kw)
    worse_rtt = ft.checkpoint_cycle(dirty, e, link, ft_ack_rtt_s=rtt + drtt, ft_link_loss=loss)
    worse_loss = ft.checkpoint_cycle(dirty, e, link, ft_ack_rtt_s=rtt, ft_link_loss=min(loss + dloss, 0.099))
    better = ft.checkpoint_cycle(dirty, e, link + dlink, **kw)
    for c in (base, worse_rtt, worse_loss, better):
        for f in ("run_fraction", "output_commit_delay_s", "logging_bandwidth_bps", "stun_s"):
            assert np.all(np.isfinite(getattr(c, f)))
        assert 0 < float(c.run_fraction) <= 1
    eps = 1e-12
    assert float(worse_rtt.run_fraction) <= float(base.run_fraction) * (1 + eps)
    assert float(worse_loss.run_fraction) <= float(base.run_fraction) * (1 + eps)
    assert float(better.run_fraction) >= float(base.run_fraction) * (1 - eps)
    # FT logging never exceeds the link
    assert float(base.logging_bandwidth_bps) <= link * (1 + 1e-12)


@_SET
@given(uplink=st.floats(0.1e9, 40e9), rtt=st.floats(0.0, 0.01), drtt=st.floats(0.0, 0.01),
       link=st.floats(1e9, 50e9), dlink=st.floats(0.0, 50e9), loss=st.floats(0.0, 0.02),
       direction=st.sampled_from(["receive", "transmit"]))
def test_property_netperf_throughput_monotone_in_the_ft_link(uplink, rtt, drtt, link, dlink, loss, direction):
    e, net = _e(), _net()

    def thr(r, lk, ls):
        return float(ft.netperf_throughput_bps(uplink, direction, True, e, lk, ft_ack_rtt_s=r, ft_link_loss=ls,
                                               vcpus=4, **net))

    base = thr(rtt, link, loss)
    assert np.isfinite(base) and 0 <= base <= uplink * (1 + 1e-12)
    assert thr(rtt + drtt, link, loss) <= base * (1 + 1e-9)
    assert thr(rtt, link, min(loss + 0.01, 0.099)) <= base * (1 + 1e-9)
    assert thr(rtt, link + dlink, loss) >= base * (1 - 1e-9)
    log = float(ft.netperf_ft_logging_bps(uplink, direction, e, link, ft_ack_rtt_s=rtt, ft_link_loss=loss, **net))
    assert 0 <= log <= link * (1 + 1e-12)


@settings(max_examples=15, deadline=None, derandomize=True)
@given(rtt=st.floats(0.0, 0.005), drtt=st.floats(1e-5, 0.005), link=st.floats(1e9, 40e9), dlink=st.floats(1e9, 40e9),
       dirty=st.floats(0.0, 5e7), n=st.integers(1, 64))
def test_property_closed_loop_monotone_and_utilisation(rtt, drtt, link, dlink, dirty, n):
    kw = dict(vcpus=4, external_delay_s=0.01, exchanges_per_op=2, dirty_bytes_per_op=dirty,
              checkpoint_interval_s=_e())
    base = ft.closed_loop(n, 0.05, 0.005, ft_link_bps=link, ft_ack_rtt_s=rtt, **kw)
    slow = ft.closed_loop(n, 0.05, 0.005, ft_link_bps=link, ft_ack_rtt_s=rtt + drtt, **kw)
    fast = ft.closed_loop(n, 0.05, 0.005, ft_link_bps=link + dlink, ft_ack_rtt_s=rtt, **kw)
    assert slow.throughput_on_per_s <= base.throughput_on_per_s * (1 + 1e-9)
    assert fast.throughput_on_per_s >= base.throughput_on_per_s * (1 - 1e-9)
    for r in (base, slow, fast):
        assert np.isfinite(r.throughput_on_per_s) and 0 < r.run_fraction <= 1
        # vCPU utilisation under FT: run time share needed <= 1
        assert r.throughput_on_per_s * 0.005 / 4 / r.run_fraction <= 1 + 1e-9
        assert r.cpu_utilization_off <= 1


@settings(max_examples=15, deadline=None, derandomize=True)
@given(loss=st.floats(0.0, 0.05), dloss=st.floats(1e-4, 0.04), link=st.floats(1e9, 40e9),
       dirty=st.floats(1e5, 5e7), n=st.integers(1, 64), vms=st.integers(1, 8))
def test_property_closed_loop_loss_sharing_and_ft_link_capacity(loss, dloss, link, dirty, n, vms):
    """Loss on the FT link and more FT VMs sharing it never raise throughput; the memory a protected VM
    ships per second (its FT-on throughput x dirtied bytes per operation) never exceeds its share of the
    FT link's payload capacity."""
    from vcperf.network import TCP_PAYLOAD_FRACTION

    kw = dict(vcpus=4, external_delay_s=0.01, exchanges_per_op=2, dirty_bytes_per_op=dirty,
              checkpoint_interval_s=_e(), ft_link_bps=link)
    base = ft.closed_loop(n, 0.05, 0.005, ft_link_loss=loss, n_ft_vms=vms, **kw)
    lossy = ft.closed_loop(n, 0.05, 0.005, ft_link_loss=min(loss + dloss, 0.099), n_ft_vms=vms, **kw)
    shared = ft.closed_loop(n, 0.05, 0.005, ft_link_loss=loss, n_ft_vms=vms + 1, **kw)
    assert lossy.throughput_on_per_s <= base.throughput_on_per_s * (1 + 1e-9)
    assert shared.throughput_on_per_s <= base.throughput_on_per_s * (1 + 1e-9)
    for r in (base, lossy, shared):
        assert np.isfinite(r.throughput_on_per_s) and r.throughput_on_per_s <= r.throughput_off_per_s * (1 + 1e-9)
        assert 0 < r.run_fraction <= 1 and r.cpu_utilization_off <= 1
    assert 8.0 * base.throughput_on_per_s * dirty <= link * TCP_PAYLOAD_FRACTION / vms * (1 + 1e-9)


@_SET
@given(uplink=st.floats(0.1e9, 40e9), link=st.floats(1e9, 50e9), rtt=st.floats(0.0, 0.01),
       loss=st.floats(0.0, 0.02))
def test_property_netperf_receive_never_exceeds_what_the_ft_link_can_log(uplink, link, rtt, loss):
    """Every received byte is logged to the secondary (:data:`DEFAULT_LOGGED_BYTES_PER_RECEIVED_BYTE` FT-link
    bytes per byte), so FT-protected receive throughput is bounded by the FT link's payload rate over that."""
    from vcperf.network import TCP_PAYLOAD_FRACTION

    thr = float(ft.netperf_throughput_bps(uplink, "receive", True, _e(), link, ft_ack_rtt_s=rtt, ft_link_loss=loss,
                                          vcpus=4, **_net()))
    assert thr * ft.DEFAULT_LOGGED_BYTES_PER_RECEIVED_BYTE <= link * TCP_PAYLOAD_FRACTION * (1 + 1e-9)


# --------------------------------------------------------------------------------------------
# Paper figures (views): the paper's structure, paper beside model, nothing clipped
# --------------------------------------------------------------------------------------------


def _layout_problems(fig):
    """What a reader would see wrong at the saved size: anything outside the figure, legends over data."""
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    problems = []
    tight = fig.get_tightbbox(r)  # inches: every drawn text, tick label, legend, title
    w, h = fig.get_size_inches()
    tol = 1.5 / fig.dpi
    if tight.x0 < -tol or tight.y0 < -tol or tight.x1 > w + tol or tight.y1 > h + tol:
        problems.append(f"clipped: drawn extent {tight.bounds} beyond the {w}x{h} in figure")
    legends = [*fig.legends, *(ax.get_legend() for ax in fig.axes if ax.get_legend() is not None)]
    for leg in legends:
        lb = leg.get_window_extent(r)
        for ax in fig.axes:
            inter = lb.intersection(lb, ax.bbox)
            if inter is not None and inter.width > 1 and inter.height > 1:
                problems.append(f"legend over the data of {ax.get_title() or ax.get_ylabel()!r}")
    return problems


@pytest.fixture(scope="module")
def fid():
    from vcperf import fidelity

    return fidelity.table([ft.STUDY])


@pytest.fixture(scope="module")
def views():
    import matplotlib

    matplotlib.use("Agg")
    from vcperf.views import ft as views

    return views


def test_every_paper_figure_2_to_14_has_a_view_named_as_in_the_paper(views):
    numbers = sorted(int(name[6:8]) for name in views.FIGURES)
    assert numbers == list(range(2, 15))
    # the view's name is the data table's name (data/ft2016/figureNN_*.csv)
    assert set(views.FIGURES) == {p.stem for p in (data.DATA_DIR / ft.STUDY).glob("figure*.csv")}


@pytest.mark.parametrize("name", [f"figure{n:02d}" for n in range(2, 15)])
def test_paper_figure_layout_paper_markers_and_intervals(views, fid, name):
    import matplotlib.pyplot as plt
    from matplotlib.container import BarContainer, ErrorbarContainer

    key = next(k for k in views.FIGURES if k.startswith(name))
    fig = views.FIGURES[key](fid)
    try:
        assert _layout_problems(fig) == []
        assert fig.get_suptitle().startswith(f"Figure {int(name[6:])}."), "the paper's caption as the title"
        bars = [c for ax in fig.axes for c in ax.containers if isinstance(c, BarContainer)]
        assert bars, "the model is drawn as bars"
        # paper values as black markers, labelled "paper..."
        paper = [ln for ax in fig.axes for ln in ax.get_lines()
                 if ln.get_label().startswith("paper") and ln.get_color() == "black" and ln.get_marker() != "None"]
        assert paper, "the seed's value or statement is drawn as a marker"
        # every ledger row of this figure with an interval is an error bar
        rows = fid[(fid["source"].str.contains(name)) & (fid["kind"] != "loo") & fid["model_low"].notna()]
        errbars = [c for ax in fig.axes for c in ax.containers if isinstance(c, ErrorbarContainer)]
        if len(rows):
            assert errbars, f"{name}: the ledger's 90 % interval is drawn"
    finally:
        plt.close(fig)


def test_figure02_has_ft_off_on_bars_per_vcpu_configuration(views, fid):
    import matplotlib.pyplot as plt

    fig = views.figure02_kernel_compile(fid)
    try:
        ax = fig.axes[0]
        heights = [[p.get_height() for p in c] for c in ax.containers]
        off, on = np.array(heights[0]), np.array(heights[1])
        assert off.size == on.size == len(ft.testbed().kernel_compile_vcpus) == 3
        assert np.all(on > off) and np.all(np.diff(off) < 0)  # FT adds time; more vCPUs compile faster
        np.testing.assert_allclose(on - off, ft.kernel_compile_values().increase_s)
        labels = [t.get_text() for t in ax.get_xticklabels()]
        assert labels == ["1 vCPU", "2 vCPUs", "4 vCPUs"]
        # the paper's 7 s is drawn at the mean bar of the right panel
        marker = [ln for ln in fig.axes[1].get_lines() if ln.get_label().startswith("paper")][0]
        assert marker.get_ydata()[0] == pytest.approx(7.0)
    finally:
        plt.close(fig)


def test_figure06_draws_every_appendix_b_access_pattern(views, fid):
    import matplotlib.pyplot as plt

    fig = views.figure06_iometer_throughput(fid)
    try:
        n = len(ft.testbed().iometer_patterns)
        assert n == 5
        ratios = [p.get_height() for p in fig.axes[1].containers[0]]
        np.testing.assert_allclose(ratios, list(ft.iometer_ratios().values()))
        # writes are mirrored over the FT link: they lose more than reads of the same size
        r = ft.iometer_ratios()
        assert r[("2KB", 1.0)] < r[("2KB", 0.0)] and r[("64KB", 1.0)] < r[("64KB", 0.0)]
    finally:
        plt.close(fig)


@pytest.mark.parametrize("fn", ["figure07_swingbench_throughput", "figure09_dvdstore_throughput",
                                "figure10_dvdstore_response_time"])
def test_database_figures_show_each_vcpu_configuration(views, fid, fn):
    import matplotlib.pyplot as plt

    fig = getattr(views, fn)(fid)
    try:
        ax = fig.axes[0]
        assert [t.get_text() for t in ax.get_xticklabels()] == ["1 vCPU", "2 vCPUs", "4 vCPUs"]
        off = np.array([p.get_height() for p in ax.containers[0]])
        on = np.array([p.get_height() for p in ax.containers[1]])
        if "response" in fn:
            assert np.all(on > off)
        else:
            assert np.all(on < off)
        assert len(set(np.round(on / off, 6))) == 3, "the vCPU count changes the model"
    finally:
        plt.close(fig)


def test_figure08_three_actions_show_the_model_mean_and_say_so(views, fid):
    import matplotlib.pyplot as plt

    fig = views.figure08_swingbench_response_time(fid)
    try:
        ax = fig.axes[0]
        assert [t.get_text() for t in ax.get_xticklabels()] == ["action 1", "action 2", "action 3"]
        on = [p.get_height() for p in ax.containers[1]]
        r = ft.database_workload("swingbench")
        np.testing.assert_allclose(on, [r.response_on_s * 1e3] * 3)
        assert "no per-action decomposition" in ax.get_xlabel().replace("\n", " ")
    finally:
        plt.close(fig)


def test_figure11_and_12_are_the_brokerage_and_the_two_loads(views, fid):
    import matplotlib.pyplot as plt

    fig = views.figure11_brokerage_throughput(fid)
    try:
        b = ft.brokerage_workload()
        heights = [p.get_height() for p in fig.axes[0].containers[0]]
        np.testing.assert_allclose(heights, [b.throughput_off_per_s, b.throughput_on_per_s])
    finally:
        plt.close(fig)
    fig = views.figure12_vcenter_management_ops(fid)
    try:
        ax = fig.axes[0]
        assert [t.get_text().split("\n")[0] for t in ax.get_xticklabels()] == ["Load A", "Load B"]
        paper = sorted(y for ln in ax.get_lines() if ln.get_label().startswith("paper") for y in ln.get_ydata())
        s = ft.vcenter_setup()
        # the stated loads (27, ~200 ops/min) and 74 % / 40 % of them
        np.testing.assert_allclose(paper, sorted([s["load_a_per_s"] * 60, s["load_b_per_s"] * 60,
                                                  0.74 * s["load_a_per_s"] * 60, 0.40 * s["load_b_per_s"] * 60]))
    finally:
        plt.close(fig)


def test_mechanism_figures_and_whatif_panel_are_laid_out(views):
    import matplotlib.pyplot as plt

    for fn in views.MECHANISM_FIGURES.values():
        fig = fn()
        try:
            assert _layout_problems(fig) == []
        finally:
            plt.close(fig)
    views.whatif_update(10e9, None, 1e9, 1e8)
    assert _layout_problems(views.panel._WhatifPanel.shared().fig) == []


def test_whatif_readout_is_formatted_for_people(views):
    text, _ = views.whatif_update(10e9, None, 1e9, 1e8)
    assert "Gbit/s" in text and "%" in text and " ms" in text
    assert not re.search(r"\d[eE][+-]?\d", text), "no scientific notation"
    from vcperf.views.format import fmt_bps, fmt_duration  # the one set of formatters of every view

    assert fmt_duration(4.2e-4) == "420 µs"
    assert fmt_duration(0.00496) == "4.96 ms"
    assert fmt_duration(552.95) == "9.22 min"
    assert fmt_duration(33177) == "9.22 h"
    assert fmt_bps(2.85e9) == "2.85 Gbit/s"


def test_whatif_readouts_carry_90_percent_intervals(views):
    text, _ = views.whatif_update(10e9, None, 1e9, 1e8)
    bands = re.findall(r"\(([\d.]+)–([\d.]+)[^,()]*, 90 %\)", text)
    assert len(bands) == 5, text  # logging, added latency, TCP_RR, CPU-bound, DVD Store
    val, lo, hi, _ = views.whatif_intervals(10e9, None, 1e9, 1e8)
    assert np.all(lo < val) and np.all(val < hi) and np.all(np.isfinite(lo))
    # the calibrated checkpoint interval carries its calibration uncertainty; one set by hand only the
    # noise of a run, so every band is narrower (the value is the same at the same interval)
    e = ft.calibrate().checkpoint_interval_s
    val2, lo2, hi2, _ = views.whatif_intervals(10e9, e, 1e9, 1e8)
    np.testing.assert_allclose(val2, val)
    assert np.all(hi2 / lo2 < hi / lo)
    # shares of FT-off throughput are shown capped at 100 %
    text, _ = views.whatif_update(25e9, None, 0.0, 0.0)
    assert all(float(b) <= 100.0 for _, b in re.findall(r"(\d[\d.]*)–([\d.]+) %, 90 %", text))


def test_whatif_panel_readout_wraps_and_follows_the_controls(views):
    ipywidgets = pytest.importorskip("ipywidgets")

    panel = views.whatif()
    html = [c for c in panel.children if isinstance(c, ipywidgets.HTML)]
    assert len(html) == 1 and "white-space: normal" in html[0].value
    before = html[0].value
    # issue 38: the tab has the VM's vCPUs and uplink and the FT-VM count besides the link (found by name)
    control = {c.description: c for c in panel.children if hasattr(c, "description")}
    control["FT link Gbit/s"].value = 25.0
    assert html[0].value != before and "25 Gbit/s" in html[0].value
    # the interval slider at its start is the calibrated interval (with its calibration uncertainty); moved,
    # it is an input and the bands narrow to the noise of one run
    at_start = html[0].value
    control["interval ms"].value = control["interval ms"].value * 2
    assert html[0].value != at_start and "90 %" in html[0].value


def test_smp_ft_vcpu_limits_are_the_documented_external_values():
    """FT_MAX_VCPUS (the valid range of every FT vCPU input) holds the product limits recorded with their
    provenance in data/ft2016/external_smp_ft_limits.csv (read_from: external), release for release."""
    limits = data.load("ft2016/external_smp_ft_limits")
    assert (limits["read_from"] == "external").all()
    assert dict(zip(limits["release"], limits["value"].astype(int), strict=True)) == ft.FT_MAX_VCPUS
    for release, n in ft.FT_MAX_VCPUS.items():
        assert ft.check_ft_vcpus(n, release) == n
        with pytest.raises(ValueError, match="vcpus"):
            ft.check_ft_vcpus(n + 1, release)


# --------------------------------------------------------------------------------------------
# Issue 26: the netperf fixed point, one payload definition, one FT API, limits as data
# --------------------------------------------------------------------------------------------

_UPLINKS = np.geomspace(0.1e9, 100e9, 25)[:, None, None]
_FT_LINKS = np.geomspace(0.5e9, 100e9, 20)[None, :, None]
_INTERVALS = np.geomspace(0.5e-3, 50e-3, 8)[None, None, :]


@pytest.mark.parametrize("direction", ["receive", "transmit"])
@pytest.mark.parametrize("vcpus", [1, 2, 4])
def test_netperf_ft_on_monotone_over_uplink_and_ft_link(direction, vcpus):
    """Uplink 0.1-100 Gb/s x FT link 0.5-100 Gb/s x interval 0.5-50 ms (4,000 points per case): the guest's
    rate and its checkpoint are solved together, so FT-on throughput never falls when the VM network or the
    FT link gets faster (it fell 5.8x from 2 to 5 Gb/s when the checkpoint was sized by the uplink)."""
    kw = dict(vcpus=vcpus, **_net())
    x = ft.netperf_throughput_bps(_UPLINKS, direction, True, _INTERVALS, _FT_LINKS, **kw)
    log = ft.netperf_ft_logging_bps(_UPLINKS, direction, _INTERVALS, _FT_LINKS, **kw)
    assert x.shape == log.shape == (25, 20, 8)
    assert np.all(np.isfinite(x)) and np.all(x >= 0) and np.all(np.isfinite(log)) and np.all(log >= 0)
    assert np.all(np.diff(x, axis=0) >= -1e-9 * x[1:]), "throughput fell with a faster uplink"
    assert np.all(np.diff(x, axis=1) >= -1e-9 * x[:, 1:]), "throughput fell with a faster FT link"
    assert np.all(log <= _FT_LINKS * (1 + 1e-12)), "logging above the FT link"
    off = ft.netperf_throughput_bps(_UPLINKS, direction, False, _INTERVALS, _FT_LINKS, **kw)
    assert np.all(x <= off * (1 + 1e-9))  # FT never helps
    # ... and it varies where physics says it must: with the uplink where the FT link is the recommended
    # 10 Gb/s or faster, and (receive) with the FT link
    fast = _FT_LINKS[0, :, 0] >= 10e9
    assert np.all(x[-1, fast] > 5 * x[0, fast])
    if direction == "receive":
        assert np.all(x[-1, -1] > 5 * x[-1, 0])
        # received data crosses the FT link ~3 times: the FT link bounds receive, whatever the uplink
        assert np.all(x * ft.DEFAULT_LOGGED_BYTES_PER_RECEIVED_BYTE <= network.payload_rate_bps(_FT_LINKS) * (1 + 1e-9))


@pytest.mark.parametrize("direction", ["receive", "transmit"])
@pytest.mark.parametrize("release", ["6.0", "6.7"])
def test_netperf_over_vcpus_rises_where_the_stack_binds_and_costs_only_state_elsewhere(direction, release):
    """Uplink 0.1-100 Gb/s x FT link 0.5-100 Gb/s x interval 0.5-50 ms, every vCPU count the release allows.
    Receive-side scaling gives each vCPU its share of the guest stack, so FT off never slows with more vCPUs
    and speeds up where the stack binds; FT on, each vCPU also ships its state at every checkpoint, so where
    the stack does not bind the answer may fall, by at most twice that state's share of the epoch."""
    kw = _net()
    top = ft.FT_MAX_VCPUS[release]
    n = np.arange(1, top + 1, dtype=float)[:, None, None, None]
    u, link, e = _UPLINKS[None], _FT_LINKS[None], _INTERVALS[None]
    off = ft.netperf_throughput_bps(u, direction, False, e, link, vcpus=n, release=release, **kw)
    on = ft.netperf_throughput_bps(u, direction, True, e, link, vcpus=n, release=release, **kw)
    assert np.all(np.diff(off, axis=0) >= -1e-12 * off[1:]), "FT off fell with more vCPUs"
    stack = np.minimum(n, kw["streams"]) * ft.DEFAULT_GUEST_STACK_BPS_PER_VCPU
    gain = np.diff(off, axis=0) > 0.2 * off[:-1]
    assert np.any(gain), "FT off never gained from more vCPUs"
    stack = np.broadcast_to(stack, off.shape)
    assert np.all(off[:-1][gain] >= stack[:-1][gain] * (1 - 1e-9)), "FT off gained where the stack did not bind"
    share = 8.0 * ft.VCPU_STATE_BYTES / (network.payload_rate_bps(link) * e)
    d = np.diff(on, axis=0)
    # the state lengthens the stun and, through it, the output commit: at most twice its share of the epoch
    assert np.all(d >= -2 * share * on[:-1]), "FT on fell by more than one vCPU's state"
    assert np.any(d > 0.2 * on[:-1]), "FT on never gained from more vCPUs"


def test_netperf_receive_no_longer_drops_between_2_and_5_gbps():
    e = _e()
    x = [float(ft.netperf_throughput_bps(u, "receive", True, e, 10e9, vcpus=4, **_net())) for u in (1e9, 2e9, 5e9,
                                                                                                    10e9, 20e9, 40e9)]
    assert all(b >= a for a, b in zip(x, x[1:], strict=False)), x
    assert x[3] < 3e9 < 10e9  # Figure 4: under 3 Gbps on the 10 Gbps uplink


def test_netperf_vcpus_cost_only_their_state():
    """Each vCPU ships its state (VCPU_STATE_BYTES) at every checkpoint: with the guest stack held fixed (the
    vCPUs' other effect, receive-side scaling, is tested above), FT-on throughput changes with the vCPUs by at
    most that share of the epoch, never by the uplink-sized checkpoint it used to."""
    e = _e()
    for u in (1e9, 10e9, 40e9):
        x = np.array([float(ft.netperf_throughput_bps(u, "receive", True, e, vcpus=c, guest_stack_bps=20e9, **_net()))
                      for c in (1, 2, 3, 4)])
        share = 8.0 * ft.VCPU_STATE_BYTES / (network.payload_rate_bps(ft.DEFAULT_FT_LINK_BPS) * e)
        assert np.all(np.abs(np.diff(x)) <= 2 * share * x[1:]), x
        assert np.all(np.diff(x) <= 0)  # more state, never faster: the direction is the mechanism's


def test_netperf_logging_and_throughput_take_the_same_inputs():
    """A 5 Gb/s guest stack limits both (the logging used to ignore it: 1.93 vs 7.58 Gb/s)."""
    e = _e()
    kw = dict(vcpus=4, **_net())
    for direction in ("receive", "transmit"):
        full_x = float(ft.netperf_throughput_bps(10e9, direction, True, e, **kw))
        slow_x = float(ft.netperf_throughput_bps(10e9, direction, True, e, guest_stack_bps=5e9, **kw))
        full_l = float(ft.netperf_ft_logging_bps(10e9, direction, e, **kw))
        slow_l = float(ft.netperf_ft_logging_bps(10e9, direction, e, guest_stack_bps=5e9, **kw))
        assert slow_x < full_x and slow_l < full_l
    # the logging is the checkpoint of the rate achieved: received bytes per run second x 3 on the wire
    rx = float(ft.netperf_throughput_bps(10e9, "receive", True, e, guest_stack_bps=5e9, **kw))
    log = float(ft.netperf_ft_logging_bps(10e9, "receive", e, guest_stack_bps=5e9, **kw))
    phi = float(ft.checkpoint_cycle(3 * 5e9 / 8, e, vcpus=4).run_fraction)
    assert rx == pytest.approx(5e9 * phi, rel=1e-6)  # the stack binds while running
    assert log == pytest.approx(float(ft.ft_logging_bandwidth_bps(5e9, 0.0, e, vcpus=4)), rel=1e-6)


@pytest.mark.parametrize("call", [
    lambda **kw: ft.checkpoint_cycle(1e8, 5e-3, **kw),
    lambda **kw: ft.run_fraction_at(10.0, 1e6, 0.0, 5e-3, **kw),
    lambda **kw: ft.closed_loop(8, 0.1, 0.01, checkpoint_interval_s=5e-3, **kw),
    lambda **kw: ft.netperf_throughput_bps(1e9, "receive", True, 5e-3, streams=8, socket_bytes=4e6, **kw),
    lambda **kw: ft.kernel_compile(kw.pop("vcpus"), 240.0, 1e9, 5e-3, **kw),
])
def test_one_ft_api_integer_vcpus_within_the_release(call):
    """Every FT entry point takes vCPUs as integers within the release's SMP-FT limit (closed_loop did,
    checkpoint_cycle accepted 7.5 and 8 under 6.0)."""
    for bad in (7.5, 0, 8, np.nan):
        with pytest.raises(ValueError, match="vcpus"):
            call(vcpus=bad)
    with pytest.raises(ValueError, match="6.0"):
        call(vcpus=8)
    call(vcpus=8, release="6.7")
    call(vcpus=4)


def test_limit_flags_flag_never_clamp():
    e = _e()
    ok = ft.checkpoint_cycle(1e8, e)
    slow = ft.checkpoint_cycle(1e8, e, 1e9)
    assert ok.flags == () and len(slow.flags) == 1 and "ft_link_bps" in slow.flags[0]
    assert float(slow.run_fraction) < float(ok.run_fraction)  # still computed
    assert any("das.maxftvmsperhost" in f for f in ft.checkpoint_cycle(1e8, e, n_ft_vms=5).flags)
    assert any("das.maxftvcpusperhost" in f for f in ft.checkpoint_cycle(1e8, e, n_ft_vms=3, vcpus=4).flags)
    r = ft.closed_loop(8, 0.1, 0.01, checkpoint_interval_s=e, ft_link_bps=1e9)
    assert r.flags and ft.closed_loop(8, 0.1, 0.01, checkpoint_interval_s=e).flags == ()


def test_ft_requirements_and_round_trip_agree_with_their_data():
    tab = data.load("ft2016/external_ft_requirements")
    assert set(tab["read_from"]) == {"external"}
    links = tab[tab["quantity"] == "ft_logging_link_speed"]
    assert {str(r.release): float(data.to_si(r.value, r.unit)) for r in links.itertuples()} == ft.FT_LOGGING_LINK_BPS
    for quantity, const in (("max_ft_vms_per_host", ft.FT_HOST_MAX_VMS),
                            ("max_ft_vcpus_per_host", ft.FT_HOST_MAX_VCPUS)):
        rows = tab[tab["quantity"] == quantity]
        assert {str(r.release): float(r.value) for r in rows.itertuples()} == {rel: const for rel in ft.FT_MAX_VCPUS}
    # every release the package accepts carries its logging-link requirement (issue 38: 6.5 and 7.0 had none)
    assert set(ft.FT_LOGGING_LINK_BPS) == set(ft.FT_MAX_VCPUS)
    for release in ft.FT_MAX_VCPUS:
        (flag,) = ft.limit_flags(1e9, 1, 1, release=release)
        assert flag.kind == "beyond_default" and flag.limit == 10e9 and flag.value == 1e9
        assert f"vSphere {release}" in flag.source
    rt = data.row("ft2016/external_vm_round_trip", "vm_round_trip")
    assert rt["read_from"] == "external"
    assert float(data.to_si(rt["value"], rt["unit"])) == pytest.approx(ft.DEFAULT_VM_ROUND_TRIP_S)
    assert ft.testbed().vm_round_trip_s == pytest.approx(ft.DEFAULT_VM_ROUND_TRIP_S)


def test_interval_scales_with_the_stated_round_trip():
    """The checkpoint interval rests on the FT-off round trip (a stated input): 25 or 100 us move it."""
    vc = ft.testbed().netperf_vcpus
    e = [ft.interval_from_latency_ratio(57.0, t0, vcpus=vc) for t0 in (25e-6, 50e-6, 100e-6)]
    assert e[0] < e[1] < e[2]
    assert e[1] == pytest.approx(_e(), rel=1e-9)
    assert 2e-3 < e[0] < 3e-3 and 10e-3 < e[2] < 12e-3


# ---------------------------------------------------------------- issue 26: the panel and figures show flags and bounds


def test_whatif_panel_readout_flags_a_logging_link_below_the_documented_10_gbit(views):
    slow, _ = views.whatif_update(1e9)
    assert "below the 10 Gbit/s FT logging network" in slow
    assert ft.checkpoint_cycle(0.0, 0.01, 1e9).flags[0] in slow
    fast, _ = views.whatif_update(10e9)
    assert "FT logging network" not in fast and "das.max" not in fast  # no limit flag on 10 Gbit/s


def test_figure11_draws_the_brokerage_floor_and_figure03_names_the_framing(views, fid):
    fig = views.figure11_brokerage_throughput(fid)
    labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert any(label.startswith("floor: FT on above 40%") for label in labels), labels
    fig3 = views.figure03_netperf_throughput_1gbps(fid)
    caption = fig3.axes[0].get_xlabel().replace("\n", " ")
    assert "fails by the Ethernet/TCP framing" in caption
    from vcperf import network

    assert f"{float(network.payload_rate_bps(1e9)) / 1e9:.3g} Gbit/s of TCP payload" in caption
