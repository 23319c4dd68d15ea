"""VCHA study models (``000_bf7f1144753162c9.txt``): mechanisms, laws, fidelity, ledger roles, bad input."""

import dataclasses

import numpy as np
import pytest

from vcperf import fidelity, protocol, vcha

P = vcha.calibrate()
TB = vcha.testbed()


def run(clients, vcha_enabled=False, replication_rtt_s=0.0, stats_level=1, **kw):
    """:func:`vcha.run_vcbench` with the study's parameters and test bed (overridable)."""
    kw = {"params": P, **TB.appliance(), **kw}
    return vcha.run_vcbench(clients, vcha_enabled, replication_rtt_s, stats_level, **kw)

# ------------------------------------------------------------------------------------------------
# Closed network: laws and mechanisms
# ------------------------------------------------------------------------------------------------

CLIENTS = np.array([1, 8, 64, 128, 256, 512, 1024])


@pytest.mark.parametrize("vcha_enabled", [False, True])
@pytest.mark.parametrize("rtt_s", [0.0, 0.005, 0.02])
def test_littles_law_holds(vcha_enabled, rtt_s):
    s = run(CLIENTS, vcha_enabled, rtt_s)
    np.testing.assert_allclose(s.throughput_per_s * (s.response_time_s + s.think_time_s), CLIENTS, rtol=1e-9)


def test_utilization_law_and_per_core_bound():
    p = P.vcbench
    for on in (False, True):
        for lvl in (1, 3):
            s = run(CLIENTS, on, 0.01, lvl)
            np.testing.assert_allclose(s.cpu_cores, p.background_cpu_cores_per_host * TB.hosts
                                       + s.throughput_per_s * p.cpu_demand_s)
            assert np.all(s.cpu_utilization_per_core <= 1.0)
            assert np.all(s.db_pool_utilization <= 1.0 + 1e-12)


def test_throughput_increases_with_clients_and_saturates():
    p = P.vcbench
    for on in (False, True):
        x = vcha.vcbench_curve(2048, on, params=P, **TB.appliance()).throughput_per_s
        assert np.all(np.diff(x) >= -1e-12), "throughput must not fall with more clients"
        hold = p.db_hold_s + (p.commit_wait_s if on else 0.0)
        bound = TB.db_connections / hold
        assert x[-1] <= bound * (1 + 1e-9)
        assert x[-1] > 0.97 * bound, "at 2048 clients the connection pool is the bottleneck"
        assert x[-1] - x[1023] < 1e-3 * x[-1], "saturated: doubling clients adds almost nothing"


def test_more_replication_rtt_never_helps():
    rtt = np.linspace(0, 0.05, 26)
    s = run(CLIENTS, True, rtt)
    assert s.throughput_per_s.shape == (26, len(CLIENTS))
    assert np.all(np.diff(s.throughput_per_s, axis=0) <= 1e-12)
    assert np.all(np.diff(s.response_time_s, axis=0) >= -1e-12)


def test_vcha_costs_throughput_and_rtt_is_ignored_without_vcha():
    on, off = run(CLIENTS, True), run(CLIENTS, False)
    assert np.all(on.throughput_per_s <= off.throughput_per_s)
    np.testing.assert_allclose(run(64, False, 0.01).throughput_per_s, off.throughput_per_s[2])
    assert np.all(off.sync_wait_s == 0)


def test_overhead_grows_with_load():
    """The paper's headline: small VCHA impact at 64 clients, larger at 256 (pool saturation)."""
    drop = {n: 1 - float(run(n, True).throughput_per_s / run(n, False).throughput_per_s) for n in (64, 256)}
    assert drop[256] > 2 * drop[64]
    rtt_drop = {n: 1 - float(run(n, True, 0.01).throughput_per_s / run(n, True).throughput_per_s)
                for n in (64, 256)}
    assert rtt_drop[256] > rtt_drop[64]


def test_higher_stats_levels_never_help():
    for on in (False, True):
        x = [float(run(256, on, stats_level=lvl).throughput_per_s) for lvl in (1, 2, 3, 4)]
        assert x == sorted(x, reverse=True)


def test_more_vcpus_never_hurt():
    x = [float(run(256, True, vcpus=c).throughput_per_s) for c in (4, 8, 16, 32, 64)]
    assert np.all(np.diff(x) >= 0)


def test_single_client_sees_no_queueing():
    p = P.vcbench
    s = run(1, False)
    np.testing.assert_allclose(s.response_time_s, p.cpu_demand_s + p.db_hold_s + p.host_delay_s, rtol=1e-12)


# ------------------------------------------------------------------------------------------------
# Replication traffic, enabling, failover
# ------------------------------------------------------------------------------------------------


def test_replication_traffic_linear_in_throughput():
    w = P.wal
    assert w.wal_bytes_per_op > 0 and w.background_wal_bytes_per_object_s >= 0
    x = np.array([0.0, 50.0, 100.0])
    b = vcha.replication_traffic_bytes_per_s(x, w)
    np.testing.assert_allclose(np.diff(b), 50.0 * w.wal_bytes_per_op)
    np.testing.assert_allclose(vcha.wal_disk_write_bytes_per_s(x, 1000.0, w) - b, 1000.0 * vcha.WAL_PAGE_BYTES)


def test_management_traffic_grows_with_throughput():
    rx0, tx0 = vcha.management_traffic_bytes_per_s(0.0, P.wal)
    rx1, tx1 = vcha.management_traffic_bytes_per_s(100.0, P.wal)
    assert rx0 > 0 and tx0 > 0 and rx1 > rx0 and tx1 > tx0


def test_enabling_time_grows_with_inventory_and_shrinks_with_bandwidth():
    vms = np.linspace(0, 40000, 41)
    t = vcha.enable_vcha_times(vms, TB.clone_bandwidth_bps, P.enable)
    assert np.all(np.diff(t.total_s) > 0)
    np.testing.assert_allclose(t.total_s, t.clone_secondary_s + t.clone_witness_s + t.configure_s)
    slow = vcha.enable_vcha_times(vms, 1e9, P.enable)
    assert np.all(slow.total_s[1:] > t.total_s[1:])
    assert np.all(t.total_s >= t.configure_s)


def test_failover_phases_in_order_and_embedded_psc_later():
    vms = np.array([1440.0, 36864.0])
    for mode in ("external", "embedded"):
        f = vcha.failover_times(32, vms, mode, params=P.failover)
        assert np.all(f.in_progress_s < f.vpxd_ready_s)
        assert np.all(f.blank_screen_s < f.blue_screen_s)
        assert np.all(f.blue_screen_s < f.inventory_screen_s)
    ext, emb = vcha.failover_times(32, vms, params=P.failover), vcha.failover_times(32, vms, "embedded",
                                                                                    params=P.failover)
    assert np.all(emb.vpxd_ready_s > ext.vpxd_ready_s)


def test_failover_two_competing_factors():
    """Start-up grows with inventory and shrinks with vCPUs (Service Ready Time for vpxd)."""
    p = P.failover
    assert p.vpxd_start_cpu_s > 0 and p.vpxd_start_s_per_vm > 0
    assert np.all(np.diff(vcha.failover_times(16, np.linspace(0, 4e4, 9), params=p).vpxd_ready_s) > 0)
    assert np.all(np.diff(vcha.failover_times(np.array([2, 4, 8, 16, 32]), 10000, params=p).vpxd_ready_s) < 0)


# ------------------------------------------------------------------------------------------------
# Fidelity, per table
# ------------------------------------------------------------------------------------------------

#: Largest |relative error| allowed per table locator prefix, for the fitted, predicted and derived
#: rows (the rows the old ledger had). Difference rows ("-0.9 %") are scored in the ledger on the
#: difference itself; here, as before, the tolerance bounds the error of the ratio 1 + difference.
TOLERANCE = {
    "Table 5": 0.04, "Table 6": 0.04, "Table 7": 0.02, "Table 12": 0.05, "Table 13": 0.10,
    "Table 14": 0.04, "Table 15": 0.04, "Table 9": 0.05, "Table 10": 0.05, "Table 11": 0.05,
    "Table 4": 0.20, "Table 2": 0.08, "Table 3": 0.20, "Table 16": 0.01, "Table 17": 0.17,
}


@pytest.fixture(scope="module")
def rows():
    return vcha.fidelity_rows()


def _as_ratio_error(r):
    if r.quantity.endswith("_change"):
        return ((1 + r.model_value) - (1 + r.paper_value)) / (1 + r.paper_value)
    return r.rel_error


@pytest.mark.parametrize("prefix", sorted(TOLERANCE))
def test_fidelity_per_table(rows, prefix):
    mine = [r for r in rows if (r.locator == prefix or r.locator.startswith(prefix + " ")) and r.kind != "loo"]
    assert mine, f"no fidelity rows for {prefix}"
    for r in mine:
        if r.locator.startswith("Table 4") and r.quantity == "clone_witness_time" and "inventory=large" == r.conditions:
            continue  # flagged ambiguous in data/ (repeats a Medium cell); an honest, explained miss
        if prefix == "Table 16" and r.kind == "derived":
            continue  # External = Table 2 X-Large (checked there) and the Difference row built from it
        if r.key in _NEW_ROW_TOLERANCE or r.key.startswith("t08_"):
            continue  # rows added by the disk, memory and reply models: see test_fidelity_of_new_rows
        assert abs(_as_ratio_error(r)) <= TOLERANCE[prefix], (r.key, r.kind, r.paper_value, r.model_value)


#: Rows the disk/memory/reply models added (issue 13), with the tolerance of today's honest model:
#: sdf grows faster than linearly with throughput (issue 30, h-vcha wave 3: a checkpoint background >= 0
#: plus evictions growing as rate^2 replace a line with a negative intercept; sdf bandwidth 0.6 -> 0.1,
#: Passive 0.6 -> 0.2), the
#: Passive's walreceiver coalesces the Active's flushes with one cycle time at both loads (the paper's
#: Passive flushes fall from 64 to 256 clients: -24 % and -12 %), and the eth1 receive rate (0.3-0.4
#: MB/s printed to one decimal) has no parameter of its own.
#: Changed in h-vcha2 (walreceiver coalescing, two status replies per cycle): Passive sdg bandwidth
#: 0.12 -> 0.2 (64 clients: fewer 4 KiB block rewrites, -19 %; 256 clients improved to -5 %) and the
#: 256-client eth1 receive rate 0.5 -> 0.65 (a *derived* row: +59 %; the counted 64-client row
#: improved from -25 % to -15 %).
#: sdf's floor of small writes (fitted with the data write size): sdf writes/s 0.5 -> 0.1 (fitted rows
#: -19 % .. +7 % -> -8 % .. +6 %), Passive 0.35 -> 0.25 (64 clients -31 % -> -22 %).
#: Issue 26 (h-vcha, wave 3): the eth1 receive rate is an ACK per walreceiver cycle (the cycle's WAL
#: train, acknowledged once per 64 KiB merged segment) + two status replies, with TCP timestamps, no
#: longer one ACK per two WAL segments, which grows with the WAL while the printed rate falls (0.4 ->
#: 0.3 MB/s): 256 clients +59 % -> -1 % (0.65 -> 0.05), 64 clients -15 % -> -29 % (0.2 -> 0.3): the
#: row now inherits the model's Passive cycle count (its sdg writes/s, -24 % at 64 clients); with the
#: printed cycle counts both rows land within the print's rounding
#: (test_eth1_receive_follows_the_walreceiver_cycles).
#: Issue 26: the Active's sdg bandwidth no longer takes the same run's *measured* sdg writes/s as input
#: but the model's own flush rate (fitted to those rows, -2 % .. +6 %): its error grows from -3 % .. +1 %
#: to -7 % .. +1 %, measured honestly (the 5 % Table 9/10 tolerance -> 0.1 for these four rows).
#: Issue 26 (h-vcha2, wave 3): the walreceiver cycle is fitted to the Passive's flush counts (its sdg
#: writes/s, now fitted rows: -24 % / -12 % -> -8 % / +8 %, tolerance 0.3 -> 0.1) instead of solved from
#: the commit acknowledgement's whole flush wait (which also holds walsender and wake-up delay). The
#: Passive sdg bandwidth improves (-19 % / -5 % -> -13 % / 0 %: 0.2 -> 0.15) and so does the 64-client eth1
#: receive rate (-29 % -> -15 %: 0.3 -> 0.2); the 256-client one, right before only because a -12 % cycle
#: count met a +13 % reply size per cycle, now shows that reply-size miss: -1 % -> +22 % (0.05 -> 0.25).
_NEW_ROW_TOLERANCE = {
    **{f"t{t}_{d}_{m}_{n}_{s}": tol for t, n in (("09", 64), ("10", 256)) for s in ("disabled", "enabled")
       for d, m, tol in (("sdf", "tps", 0.1), ("sdf", "bw", 0.1), ("sdg", "tps", 0.1), ("sdh", "tps", 0.3),
                         ("sdh", "bw", 0.08), ("sdg", "bw", 0.1))},
    **{f"t{t}_{d}_{m}_{n}_enabled_passive": tol for t, n in (("09", 64), ("10", 256))
       for d, m, tol in (("sdf", "tps", 0.25), ("sdf", "bw", 0.2), ("sdg", "tps", 0.1), ("sdg", "bw", 0.15),
                         ("sdh", "tps", 0.25), ("sdh", "bw", 0.06))},
    "t11_eth1_rx_64_enabled": 0.2, "t11_eth1_rx_256_enabled": 0.25,
}


def test_fidelity_of_new_rows(rows):
    by_key = {r.key: r for r in rows if r.kind != "loo"}
    for k, tol in _NEW_ROW_TOLERANCE.items():
        r = by_key[k]
        assert abs(r.rel_error) <= tol, (k, r.kind, r.paper_value, r.model_value)
    mem = [r for r in rows if r.key.startswith("t08_") and r.kind != "loo"]
    assert len(mem) == 14
    for r in mem:
        assert abs(r.rel_error) <= 0.05, (r.key, r.paper_value, r.model_value)


def test_fidelity_summary_and_held_out(rows):
    # judged on the rows the ledger had before issue 13 added the disk, memory and reply models (those
    # have their own tolerances in test_fidelity_of_new_rows)
    rows = [r for r in rows if r.key not in _NEW_ROW_TOLERANCE and not r.key.startswith("t08_")]
    counted = [r for r in rows if r.kind in ("fitted", "predicted", "bound")]
    err = np.abs([r.rel_error for r in counted])
    assert np.median(err) <= 0.05
    held = np.abs([r.rel_error for r in rows if r.kind in ("loo", "predicted") and np.isfinite(r.rel_error)])
    assert len(held) >= 20 and np.median(held) <= 0.05
    loo = np.abs([r.rel_error for r in rows if r.kind == "loo" and np.isfinite(r.rel_error)])
    assert np.median(loo) <= 0.05 and loo.max() <= 0.6
    assert sum(r.kind == "loo" and not np.isfinite(r.model_value) for r in rows) <= 3
    assert {r.source.split("/")[0] for r in rows} == {"vcha2016"}


def test_stated_bounds_respected(rows):
    for r in rows:
        if r.relation == "<":
            assert r.kind == "bound" and r.passed, (r.quantity, r.model_value)
            assert r.model_value < r.paper_value, (r.quantity, r.model_value)


def test_parameters_fewer_than_points(rows):
    p = vcha.parameter_table()
    fitted_points = sum(r.kind == "fitted" for r in rows)
    assert len(p) < fitted_points / 2
    vc = p[p["name"].str.startswith("vcbench.")]
    # 6 from Tables 5-7 (12 numbers), 1 from Table 13, 1 from Table 12, 1 from Table 14 (Embedded PSC)
    assert len(vc) == 9
    ident = protocol.identifiability(vcha)
    assert ident["jacobian_rank"] == ident["n_params"], "every parameter is determined by the fit"
    assert p["identifiable"].all()


def test_calibration_is_deterministic_and_physical():
    from vcperf.vcha import calibration

    a = vcha.calibrate()
    calibration._calibrate.cache_clear()
    b = vcha.calibrate(protocol.fit_keys(vcha))  # a refit on the same keys, past every cache
    assert a == b and a is not b
    v = a.vcbench
    assert 0 < v.background_cpu_cores_per_host * TB.hosts < TB.vcpus
    assert v.commit_ack_s > 0 and v.sync_commits_per_op >= 1
    assert 0 <= v.stats_db_connections_per_vm * TB.powered_on_vms < TB.db_connections


def test_paper_vs_model_units():
    t = fidelity.paper_vs_model("vcha2016", "vcha2016/table05_throughput", kinds=["fitted"])
    assert set(t["unit"]) == {"ops_per_min"}
    assert t["paper"].max() == pytest.approx(6513)


# ------------------------------------------------------------------------------------------------
# The ledger's roles: runs held out together, copies and differences derived
# ------------------------------------------------------------------------------------------------


def test_numbers_of_one_run_share_a_loo_group():
    tmap = protocol.target_map(vcha)
    run = {tmap[k].condition_group for k in ("t05_throughput_256_enabled", "t06_latency_256_enabled",
                                              "t07_cpu_256_enabled", "t11_eth0_rx_256_enabled",
                                              "t11_eth1_tx_256_enabled")}
    assert len(run) == 1
    failover = {tmap[k].condition_group for k in ("t02_vpxd_ready_x-large", "t03_blank_screen_x-large",
                                                   "t17_in_progress_external")}
    assert len(failover) == 1
    assert tmap["t05_throughput_256_enabled"].condition_group != tmap["t05_throughput_64_enabled"].condition_group


def test_copies_totals_and_fitted_differences_are_derived():
    tmap = protocol.target_map(vcha)
    for key in ("t05_change_64", "t06_change_256", "t04_total_large", "t12_throughput_l1_enabled",
                "t13_throughput_256_0ms", "t14_external_64", "t14_embedded_64", "t16_vpxd_ready_external",
                "t16_change", "fig05_ratio_64", "text_cpu_reduction_256", "t12_change_l1",
                # issue 38: the Embedded latency at 64 clients is the fitted Table 14 Difference through
                # Little's law (restates the fit): derived, no longer predicted
                "t15_embedded_64", "t15_change_64"):
        t = tmap[key]
        assert t.role == "derived" and t.depends_on, key
        assert set(t.depends_on) <= set(tmap), key
    # issue 26: the headline changes with a predicted side are predicted changes (scored in points of the
    # reference run by the summary), their bands inside the model's domain
    for key in ("t12_throughput_l3_enabled", "t14_embedded_256", "t15_embedded_256",
                "t13_throughput_256_5ms", "t17_blank_screen_embedded", "t12_change_l2", "t12_change_l3",
                "t12_change_l4", "t14_change_256", "t15_change_256"):
        assert tmap[key].role == "predicted", key
    for key in ("t05_change_64", "t05_change_256", "t12_change_l3", "t14_change_256"):
        assert tmap[key].maximum == 0.0 and tmap[key].difference, key  # VCHA / an Embedded PSC only add work
    for key in ("t06_change_64", "t15_change_64", "t16_change"):
        assert tmap[key].minimum == 0.0 and tmap[key].difference, key
    # every derived Difference names the two rows it is computed from, or the one change it copies
    for t in vcha.targets():
        if t.quantity.endswith("_change") and t.role == "derived":
            assert len(t.depends_on) == 2 or (len(t.depends_on) == 1 and tmap[t.depends_on[0]].difference), t.key


def test_difference_rows_are_the_difference(rows):
    by_key = {r.key: r for r in rows if r.kind != "loo"}
    r = by_key["t05_change_64"]
    assert r.paper_value == pytest.approx(-0.009)
    x = {k: by_key[f"t05_throughput_64_{k}"].model_value for k in ("disabled", "enabled")}
    assert r.model_value == pytest.approx(x["enabled"] / x["disabled"] - 1)
    # Embedded PSC (issue 13): its CPU work per operation on the appliance, fitted on this Difference row
    r = by_key["t14_change_64"]
    assert r.kind == "fitted" and r.model_value == pytest.approx(-0.021, rel=1e-3)
    ext, emb = (float(run(64, True, psc_mode=m).throughput_per_s) for m in ("external", "embedded"))
    assert r.model_value == pytest.approx(emb / ext - 1, rel=1e-9)
    # at 256 clients the pool, not the CPU, limits throughput: the PSC's CPU work changes (almost) nothing
    assert abs(by_key["t14_change_256"].model_value) < 1e-3


def test_leave_one_out_drops_the_whole_run():
    loo = vcha.leave_one_out().set_index("key")
    # Tables 5, 6, 7, 11 (x3) of the run, and since issue 13 also Table 8 (postgres, vcha, Passive postgres and
    # vcha: 4; vpxd is derived) and Table 10's Active sdf/sdh writes and bandwidth and sdg writes (5), and
    # since h-vcha2 the Passive's sdg writes (its flush counts, which fit the walreceiver cycle: 1)
    assert loo.loc["t05_throughput_256_enabled", "n_held_out"] == 6 + 4 + 5 + 1
    # eth1 is two points for two WAL parameters. Since issue 13 the commit record (WAL bytes per
    # commit) crosses the replication link, so Table 13's 5/10 ms rows (where the 6 MiB window caps TCP
    # below 10 Gbps) depend on wal_bytes_per_op by ~1e-5: the protocol's Jacobian probe then calls the
    # held-out eth1 row estimable although the WAL fit keeps a prior in that direction (reported).
    row = loo.loc["t11_eth1_tx_64_enabled"]
    assert (not row["estimable"]) or np.isfinite(row["model_value"])
    assert loo.loc["t06_latency_64_disabled", "estimable"]


def test_calibrate_fits_subsets():
    full = vcha.calibrate()
    sub = vcha.calibrate(fit_on=[k for k in protocol.fit_keys(vcha) if not k.startswith("t12_")])
    assert sub.vcbench.cpu_demand_s == pytest.approx(full.vcbench.cpu_demand_s)
    assert sub.vcbench.stats_db_connections_per_vm != full.vcbench.stats_db_connections_per_vm  # no Table 12: prior
    assert sub.failover == full.failover and sub.enable == full.enable


# ------------------------------------------------------------------------------------------------
# Bad input
# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"clients": 0}, "clients"),
        ({"clients": 10.5}, "clients"),
        ({"clients": 5000}, "clients"),
        ({"clients": 64, "replication_rtt_s": -0.001}, "replication_rtt_s"),
        ({"clients": 64, "replication_rtt_s": float("nan")}, "replication_rtt_s"),
        ({"clients": 64, "stats_level": 5}, "stats_level"),
        ({"clients": 64, "vcha_enabled": "yes"}, "vcha_enabled"),
        ({"clients": 64, "vcpus": 0}, "vcpus"),
        ({"clients": 64, "db_connections": 1}, "db_connections"),
    ],
)
def test_vcbench_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        vcha.run_vcbench(**{"params": P, **TB.appliance(), **kwargs})


def test_other_bad_input():
    with pytest.raises(ValueError, match="registered_vms"):
        vcha.enable_vcha_times(-1, TB.clone_bandwidth_bps, P.enable)
    with pytest.raises(ValueError, match="bandwidth_bps"):
        vcha.enable_vcha_times(1000, 0, P.enable)
    with pytest.raises(ValueError, match="vcpus"):
        vcha.failover_times(0, 1000, params=P.failover)
    with pytest.raises(ValueError, match="psc_mode"):
        vcha.failover_times(8, 1000, "hybrid", params=P.failover)
    with pytest.raises(ValueError, match="throughput_per_s"):
        vcha.replication_traffic_bytes_per_s(-1, P.wal)
    with pytest.raises(ValueError, match="wal_flushes_per_s"):
        vcha.wal_disk_write_bytes_per_s(10, -5, P.wal)
    with pytest.raises(ValueError, match="throughput_per_s"):
        vcha.management_traffic_bytes_per_s(float("inf"), P.wal)
    with pytest.raises(ValueError, match="max_clients"):
        vcha.vcbench_curve(0, params=P, **TB.appliance())
    with pytest.raises(ValueError, match="fit_on"):
        vcha.calibrate(fit_on=("t05_throughput_64_disabled", "no_such_target"))


# ------------------------------------------------------------------------------------------------
# Views: the what-if update functions
# ------------------------------------------------------------------------------------------------


def test_whatif_updates_render():
    from vcperf.views import vcha as views

    text, png = views.vcbench_whatif_update(300, 5.0, 3, True)
    assert "300 clients" in text and png[:8] == b"\x89PNG\r\n\x1a\n"
    text, png = views.lifecycle_whatif_update(20000, 16, 1.0, "embedded")
    assert "enable VCHA" in text and png[:8] == b"\x89PNG\r\n\x1a\n"


def _pixels(png):
    import io

    from PIL import Image

    return np.asarray(Image.open(io.BytesIO(png)))


def test_whatif_images_are_the_figure_functions():
    """The panels redraw one kept figure; each image must still be the figure function's, fresh."""
    from vcperf import plotting
    from vcperf.views import vcha as views
    from vcperf.widgets import png_bytes

    for clients, rtt_ms, level, on in ((256, 5.0, 1, True), (700, 20.0, 3, False), (10, 0.0, 4, True)):
        _, png = views.vcbench_whatif_update(clients, rtt_ms, level, on)
        with plotting.fast():
            want = png_bytes(views.clients_figure(views.panel_max_clients(clients), rtt_ms / 1e3, level,
                                                  highlight=clients))
        np.testing.assert_array_equal(_pixels(png), _pixels(want))
    for vms, gbps in ((36864.0, 10.0), (1000.0, 0.1), (40000.0, 40.0)):
        _, png = views.lifecycle_whatif_update(vms, 8.0, gbps)
        with plotting.fast():
            want = png_bytes(views.enable_figure(gbps * 1e9, vms, 8.0, "external"))
        np.testing.assert_array_equal(_pixels(png), _pixels(want))


def test_whatif_panels_react_to_controls():
    from vcperf.views import vcha as views

    panel = views.vcbench_whatif(clients=256, replication_rtt_ms=0.0)
    # after the 11 controls (issue 13 added link Gbps, loss, appliance, PSC; issue 26 DB connections,
    # Passive flush, memory)
    readout = panel.children[11]
    before = readout.value
    panel.children[1].value = 10.0  # added RTT
    assert readout.value != before and "+10 ms" in readout.value
    before = readout.value
    panel.children[4].value = 0.1  # link Gbps
    assert readout.value != before and "100 Mbit/s" in readout.value
    panel.children[6].value = "small"
    assert "small (4 vCPUs" in readout.value
    link = [panel.children[i] for i in (1, 4, 5)]  # added RTT, link Gbps, loss %
    assert not any(c.disabled for c in link)
    panel.children[3].value = False  # VCHA off: the replication link no longer matters, and says so
    assert all(c.disabled for c in link)
    panel.children[3].value = True
    assert not any(c.disabled for c in link)
    panel.children[6].value = "testbed"
    before = readout.value
    panel.children[8].value = 400  # DB connections: the pool no longer binds
    assert readout.value != before and "throughput set by the database connection pool" not in readout.value
    panel = views.lifecycle_whatif()
    panel.children[3].value = "embedded"
    assert "embedded Platform Services Controller (PSC)" in panel.children[4].value


# ------------------------------------------------------------------------------------------------
# Issue 13: statistics level on the commit path, replication link, appliance sizes
# ------------------------------------------------------------------------------------------------


def test_vcha_overhead_at_256_clients_depends_on_stats_level():
    """Statistics writes share the commit path: with VCHA their commits wait for the Passive too, so
    they hold more connections and the overhead at a saturated pool grows with the level."""
    over = {lvl: 1 - float(run(256, True, stats_level=lvl).throughput_per_s
                           / run(256, False, stats_level=lvl).throughput_per_s) for lvl in (1, 2, 3, 4)}
    assert over[3] > over[1] + 0.005
    assert len({round(o, 4) for o in over.values()}) >= 2
    s = run(256, True, stats_level=3)
    assert float(s.stats_db_connections) > float(run(256, False, stats_level=3).stats_db_connections)


def test_commit_cost_is_round_trip_plus_flush_plus_transfer():
    p, w = P.vcbench, P.wal
    flush = vcha.standby_flush_s(p, w.wal_bytes_per_op)
    assert 0 < flush < p.commit_ack_s
    rec = w.wal_bytes_per_op / p.sync_commits_per_op
    # on the test bed's LAN: exactly the fitted wait
    np.testing.assert_allclose(vcha.replication_sync_wait_s(p, w.wal_bytes_per_op), p.commit_wait_s, rtol=1e-12)
    # 10 ms more round trip: 10 ms more per synchronous commit (plus a little: the 6 MiB window over
    # 10 ms caps TCP at 5 Gbps, so the record's transfer slows too)
    extra = vcha.replication_sync_wait_s(p, w.wal_bytes_per_op, 0.01) - p.commit_wait_s
    assert p.sync_commits_per_op * 0.01 < extra < p.sync_commits_per_op * 0.0101
    # 100 Mbps: the commit record's transfer time shows up
    slow = float(vcha.replication_sync_wait_s(p, w.wal_bytes_per_op, 0.0, 1e8))
    assert slow - p.commit_wait_s > p.sync_commits_per_op * 0.9 * (rec * 8 / 1e8 - rec * 8 / 1e10)


def test_link_bandwidth_bounds_throughput():
    """On a slow replication link the WAL stream saturates it: throughput <= (link - background WAL) / WAL per op."""
    w = P.wal
    for bw in (5e7, 1e8):
        s = run(1024, True, bandwidth_bps=bw)
        tb = vcha.testbed()
        cap = (bw / 8 - float(vcha.background_wal_bytes_per_s(tb.hosts, tb.powered_on_vms, P))) / w.wal_bytes_per_op
        assert float(s.throughput_per_s) <= cap * (1 + 1e-9)
        assert float(s.link_utilization) <= 1 + 1e-9


def test_appliance_sizes_give_sensible_throughput():
    """Background work scales with hosts: a Small appliance (4 vCPUs, 96 hosts) is CPU bound, not starved."""
    x = {sz: float(vcha.run_vcbench(256, True, params=P, **vcha.appliance(sz)).throughput_per_s) * 60
         for sz in vcha.INVENTORIES}
    assert 1500 < x["small"] < x["medium"] < x["large"] <= x["x-large"] * (1 + 1e-9)
    small = vcha.run_vcbench(256, True, params=P, **vcha.appliance("small"))
    assert float(small.cpu_utilization_per_core) > 0.95
    with pytest.raises(ValueError, match="vcpus"):
        vcha.run_vcbench(64, params=P, vcpus=2, hosts=2000, powered_on_vms=25000)


def test_clones_slow_with_the_link_for_every_byte():
    e = P.enable
    t10 = vcha.enable_vcha_times(1440, 10e9, e)
    t1 = vcha.enable_vcha_times(1440, 1e9, e)
    # all of a clone is bytes on the link: 10x less bandwidth, ~10x the clone time
    np.testing.assert_allclose(t1.clone_secondary_s / t10.clone_secondary_s, 10.0, rtol=0.01)
    lossy = vcha.enable_vcha_times(1440, 10e9, e, rtt_s=0.01, loss=1e-3)
    assert float(lossy.clone_secondary_s) > float(t10.clone_secondary_s)


# ------------------------------------------------------------------------------------------------
# Property tests (Hypothesis): physics over wide ranges
# ------------------------------------------------------------------------------------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_clients = st.integers(1, 1024)
_rtt = st.floats(0.0, 0.1)
_bw = st.floats(1e7, 1e11)
_loss = st.floats(0.0, 0.05)
_level = st.sampled_from([1, 2, 3, 4])


def _worse_never_helps(a, b):
    """``b`` on a worse link than ``a``: never more throughput while both replicate the same way; where only
    ``b`` falls back to asynchronous replication it runs faster, but its Passive falls behind (RPO > 0)."""
    if str(a.replication) == str(b.replication):
        assert float(b.throughput_per_s) <= float(a.throughput_per_s) * (1 + 1e-9)
    else:
        assert str(b.replication) == "asynchronous" and float(b.rpo_growth_bytes_per_s) > 0
    assert float(b.rpo_growth_bytes_per_s) >= float(a.rpo_growth_bytes_per_s) - 1e-9


@settings(max_examples=40, deadline=None, derandomize=True)
@given(_clients, _rtt, st.floats(1e-4, 0.05), _bw, _loss, _level)
def test_property_latency_never_helps(n, rtt, extra, bw, loss, lvl):
    a = run(n, True, rtt, lvl, bandwidth_bps=bw, loss=loss)
    b = run(n, True, rtt + extra, lvl, bandwidth_bps=bw, loss=loss)
    _worse_never_helps(a, b)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(_clients, _rtt, _bw, _loss, st.floats(1e-5, 0.05), _level)
def test_property_loss_never_helps(n, rtt, bw, loss, extra, lvl):
    a = run(n, True, rtt, lvl, bandwidth_bps=bw, loss=loss)
    b = run(n, True, rtt, lvl, bandwidth_bps=bw, loss=min(loss + extra, 0.2))
    _worse_never_helps(a, b)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(_clients, _rtt, _bw, st.floats(1.01, 100.0), _loss, _level)
def test_property_bandwidth_never_hurts(n, rtt, bw, factor, loss, lvl):
    a = run(n, True, rtt, lvl, bandwidth_bps=bw, loss=loss)
    b = run(n, True, rtt, lvl, bandwidth_bps=min(bw * factor, 1e12), loss=loss)
    if str(a.replication) == str(b.replication):
        assert float(b.throughput_per_s) >= float(a.throughput_per_s) * (1 - 1e-9)
    else:  # across the fallback the slower link runs asynchronously: faster, but its Passive falls behind
        assert str(a.replication) == "asynchronous" and float(a.rpo_growth_bytes_per_s) > 0
    assert float(b.rpo_growth_bytes_per_s) <= float(a.rpo_growth_bytes_per_s) + 1e-9


@settings(max_examples=60, deadline=None, derandomize=True)
@given(_clients, st.booleans(), _rtt, _bw, _loss, _level, st.floats(4.0, 128.0), st.floats(0.0, 2048.0),
       st.floats(0.0, 40000.0))
def test_property_bounded_and_finite(n, on, rtt, bw, loss, lvl, vcpus, hosts, vms):
    s = run(n, on, rtt, lvl, bandwidth_bps=bw, loss=loss, vcpus=vcpus, hosts=hosts, powered_on_vms=vms)
    # connections held (statistics + VCbench, Little's law) never above the pool
    assert float(s.db_connections_held) <= TB.db_connections * (1 + 1e-9)
    assert float(s.stats_db_connections) <= TB.db_connections - 1.0
    if bool(s.overloaded):  # a link that cannot carry the WAL: the asynchronous fallback, flagged (RPO > 0)
        assert on and str(s.replication) == "asynchronous" and any(f.startswith("fallback") for f in s.flags)
        assert float(s.throughput_per_s) > 0 and float(s.rpo_growth_bytes_per_s) > 0
    for f in (s.throughput_per_s, s.response_time_s, s.cpu_cores, s.db_pool_utilization, s.link_utilization,
              s.sync_wait_s):
        assert np.all(np.isfinite(f))
    assert float(s.throughput_per_s) > 0
    assert float(s.cpu_utilization_per_core) <= 1 + 1e-9
    assert float(s.db_pool_utilization) <= 1 + 1e-9
    assert float(s.link_utilization) <= 1 + 1e-9
    np.testing.assert_allclose(s.throughput_per_s * (s.response_time_s + s.think_time_s), n, rtol=1e-9)


@pytest.mark.parametrize("args, scn", [
    ((256, True, 5e-3, 1), {}),
    ((64, True, 0.0, 3), {"bandwidth_gbps": 1.0, "loss_percent": 0.1, "psc_mode": "embedded"}),
    ((100, False, 0.0, 4), {"appliance": "large"}),
    ((700, True, 20e-3, 2), {"bandwidth_gbps": 0.05}),
])
def test_whatif_interval_equals_with_interval(args, scn):
    """The panel's fast interval (one batched MVA of the sensitivities) is protocol.with_interval's."""
    from vcperf import protocol
    from vcperf.views import vcha as views

    kw = views.scenario(**scn)
    x3, r3, level = views.overhead._vcbench_intervals(args, tuple(sorted(kw.items())))
    iv = protocol.with_interval(vcha.run_vcbench, *args, output="throughput_per_s", data_table=views.THROUGHPUT_TABLE,
                                **kw)
    # off the fitted appliance/inventory/pool the panel widens that band (issue 38); 0 spread on the test bed
    from vcperf.vcha.extrapolation import off_testbed_spread, widen_band

    spread = off_testbed_spread(*args, params=vcha.calibrate(), **kw)
    assert (spread > 0) == (scn.get("appliance", "testbed") != "testbed")
    band = widen_band(float(iv.value), float(iv.low), float(iv.high), spread, iv.interval)
    np.testing.assert_allclose(x3, [float(iv.value), *band], rtol=1e-6)
    assert level == iv.interval
    s = vcha.run_vcbench(*args, params=vcha.calibrate(), **kw)
    np.testing.assert_allclose(r3[0], float(s.response_time_s), rtol=1e-9)  # Little's law at the population
    assert r3[1] < r3[0] < r3[2]


def test_throughput_many_is_vcbench_one_set_at_a_time():
    """One batched MVA over many parameter sets gives each set's own vcbench throughput (the what-if's
    ``many`` for Calibration.interval), the asynchronous fallback included; a set outside the domain
    raises as vcbench does."""
    import dataclasses

    from vcperf.vcha import vcbench as vb

    assert not callable(vb)  # the module, no longer shadowed by a function of its name
    throughput_many = vb.throughput_many

    P = vcha.calibrate()
    kw = {**vcha.testbed().appliance(), "bandwidth_bps": 2e9, "loss": 1e-3}
    moved = [dataclasses.replace(P, vcbench=dataclasses.replace(P.vcbench, cpu_demand_s=P.vcbench.cpu_demand_s * f))
             for f in (0.5, 1.0, 2.0)]
    moved.append(dataclasses.replace(P, wal=dataclasses.replace(P.wal, wal_bytes_per_op=P.wal.wal_bytes_per_op * 3)))
    for args, extra in (((200, True, 3e-3, 3), kw), ((64, False, 0.0, 1), vcha.testbed().appliance()),
                        ((128, True, 0.05, 4), {**kw, "bandwidth_bps": 2e6, "loss": 0.01})):  # the fallback
        x = throughput_many(moved, *args, **extra)
        one = [float(vcha.run_vcbench(*args, params=q, **extra).throughput_per_s) for q in moved]
        np.testing.assert_allclose(x, one, rtol=1e-12)
        assert len(set(np.round(x, 9))) > 1  # the sets differ
    big = dataclasses.replace(P, vcbench=dataclasses.replace(P.vcbench, background_cpu_cores_per_host=1.0))
    with pytest.raises(ValueError, match="vcpus must leave vpxd"):
        throughput_many([P, big], 64, **vcha.testbed().appliance())
    # the sub-models vcbench does not read have no effect: moving them leaves the throughput unchanged
    far = dataclasses.replace(P, enable=dataclasses.replace(P.enable, configure_s=1e4))
    assert float(vcha.run_vcbench(200, True, 3e-3, 3, params=far, **kw).throughput_per_s) == float(
        vcha.run_vcbench(200, True, 3e-3, 3, params=P, **kw).throughput_per_s)


@pytest.mark.parametrize("value", [1e-3, 0.96, 1.0, 4.99, 5.0, 6.1, 6620.0, 7999.0, 31.9, 1.3e5])
def test_nice_axis_top_is_just_above_the_data(value):
    from vcperf.views import vcha as views

    top = views.common._nice_top(value)
    assert value * 1.05 <= top * (1 + 1e-12) <= value * 1.05 * 1.25 + 1e-12


def test_whatif_readout_is_formatted_for_people():
    """CPU as cores of the appliance, never a raw '1,139 %'; thousands separators on throughput."""
    import re

    from vcperf.views import vcha as views

    text, _ = views.vcbench_whatif_update(256, 5.0, 1, True)
    assert re.search(r"vpxd CPU \d+\.\d of 32 cores", text)
    assert not re.search(r"\d,\d{3} %", text)
    assert re.search(r"\d,\d{3} ops/min", text)


def test_whatif_readout_when_the_link_cannot_carry_the_background_wal():
    """A lossy, long link whose TCP rate is below the background WAL: say so, no 1e10 s latencies;
    the latency axis stays readable (capped) while a workable link still gets numbers."""
    import re

    from vcperf.views import vcha as views

    text, _ = views.vcbench_whatif_update(256, 5.0, 1, True, loss_percent=1.0)
    assert "cannot keep up" in text and not re.search(r"\d{7,}", text.replace(",", ""))
    assert views.overhead._VcbenchPanel.shared().axes[1].get_ylim()[1] <= views.common._LATENCY_AXIS_CAP_S
    text, _ = views.vcbench_whatif_update(256, 5.0, 1, True, loss_percent=0.0)
    assert "cannot keep up" not in text and "ops/min" in text


# ------------------------------------------------------------------------------------------------
# h-vcha2: the Passive's walreceiver coalesces the Active's flushes
# ------------------------------------------------------------------------------------------------

from vcperf.vcha import disk as vdisk  # noqa: E402


def test_passive_flushes_fewer_times_than_the_active_and_fewer_at_higher_load_share():
    """Tables 9-10: the Passive's sdg writes/s are below the Active's (1,345 vs 1,505 at 64 clients,
    1,224 vs 1,710 at 256), more so at 256 clients. The walreceiver's cycle is fitted to those flush
    counts; its own wait ``s (1 + rho / 2)`` is a part of the fitted commit acknowledgement's flush
    wait (the rest, walsender and wake-up delay, is >= 0)."""
    w = vcha.standby_flush_s(P.vcbench, P.wal.wal_bytes_per_op)
    s = P.disk.walreceiver_cycle_s
    ratio = {}
    for n in (64, 256):
        x = protocol.paper_value(f"{vcha.STUDY}/table05_throughput", "throughput", clients=n, vcha="enabled")
        act = vdisk.disk_writes(x, "active", P.disk, P.wal).writes_per_s["sdg"]
        pas = vdisk.disk_writes(x, "passive", P.disk, P.wal).writes_per_s["sdg"]
        ratio[n] = float(pas / act)
        lam = float(act)
        wait = float(vdisk.cycle_wait_s(s, lam))
        assert s <= wait <= 1.5 * s and wait <= w  # the cycle's wait fits inside the fitted flush wait
        np.testing.assert_allclose(wait, s * (1 + float(pas) * s / 2), rtol=1e-12)
        np.testing.assert_allclose(vdisk.walreceiver_cycle_s(wait, lam), s, rtol=1e-9)  # its inverse
        # a slower Passive storage coalesces more: fewer Passive flushes, never more than the Active's
        slow = vdisk.disk_writes(x, "passive", P.disk, P.wal, cycle_s=2 * s).writes_per_s["sdg"]
        assert float(slow) < float(pas) <= float(act)
    assert 0 < ratio[256] < ratio[64] < 1
    for bad in (0.0, -1e-3):
        with pytest.raises(ValueError, match="cycle_s"):
            vdisk.disk_writes(10.0, "passive", P.disk, P.wal, cycle_s=bad)
    with pytest.raises(ValueError, match="walreceiver_cycle_s"):
        dataclasses.replace(P.disk, walreceiver_cycle_s=0.0)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.floats(0.0, 1e5), st.floats(1e-6, 1.0), st.floats(1.001, 10.0))
def test_property_walreceiver_bulk_service(lam, s, k):
    """Passive flushes: finite, <= the Active's and <= 1/s, busy fraction < 1, increasing in the
    Active's rate and decreasing in the cycle time."""
    f = float(vdisk.standby_flushes_per_s(lam, s))
    assert np.isfinite(f) and 0 <= f <= lam * (1 + 1e-12) and f <= (1 / s) * (1 + 1e-12)
    assert f * s <= 1  # busy fraction (1 only in floating point at lam s >> 1)
    assert float(vdisk.standby_flushes_per_s(lam * k, s)) >= f * (1 - 1e-12)
    assert float(vdisk.standby_flushes_per_s(lam, s * k)) <= f * (1 + 1e-12)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.floats(1e-6, 0.1), st.floats(0.0, 1e5), st.floats(1.001, 10.0))
def test_property_walreceiver_cycle_from_the_wait(w, lam, k):
    """The cycle solved from the flush wait: within [W/1.5, W], consistent, longer with a longer
    wait; the Passive's flushes and replies then never exceed the Active's flushes."""
    s = vdisk.walreceiver_cycle_s(w, lam)
    assert w / 1.5 * (1 - 1e-9) <= s <= w * (1 + 1e-12)
    f = float(vdisk.standby_flushes_per_s(lam, s))
    np.testing.assert_allclose(s * (1 + f * s / 2), w, rtol=1e-9)
    assert vdisk.walreceiver_cycle_s(w * k, lam) >= s
    assert f <= lam * (1 + 1e-12) and f * s <= 1


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.floats(0.0, 500.0), st.floats(1e-5, 0.05))
def test_property_passive_disk_and_replies_finite_and_bounded(x, w):
    act = vdisk.disk_writes(x, "active", P.disk, P.wal)
    pas = vdisk.disk_writes(x, "passive", P.disk, P.wal, cycle_s=w)
    for d in ("sdf", "sdg", "sdh"):
        assert np.isfinite(float(pas.writes_per_s[d])) and np.isfinite(float(pas.bytes_per_s[d]))
    assert float(pas.writes_per_s["sdg"]) <= float(act.writes_per_s["sdg"]) * (1 + 1e-12)
    for d in ("sdf", "sdh"):  # no write is smaller than a filesystem block; the Passive writes the Active's pages
        assert float(pas.writes_per_s[d]) * vdisk.FS_BLOCK_BYTES <= float(pas.bytes_per_s[d]) * (1 + 1e-12)
        assert float(pas.writes_per_s[d]) == float(act.writes_per_s[d])
    assert float(pas.bytes_per_s["sdg"]) >= float(vcha.replication_traffic_bytes_per_s(x, P.wal))
    rx = float(vdisk.standby_reply_bytes_per_s(x, P.disk, P.wal, cycle_s=w))
    assert np.isfinite(rx) and rx > 0
    cycles = float(pas.writes_per_s["sdg"])
    train = float(vcha.replication_traffic_bytes_per_s(x, P.wal)) / cycles
    np.testing.assert_allclose(rx, cycles * float(vdisk.reply_bytes_per_cycle(train)), rtol=1e-9)
    # a cycle sends at least one ACK and its two replies, never more ACKs than merged segments
    assert float(vdisk.reply_bytes_per_cycle(train)) >= vdisk.ACK_FRAME_BYTES + 2 * vdisk.STATUS_REPLY_BYTES


def test_eth1_receive_follows_the_walreceiver_cycles():
    """Table 11's eth1 receive rate falls from 64 to 256 clients (0.4 -> 0.3 MB/s) while the WAL it
    acknowledges grows (eth1 transmit 8.1 -> 14.7 MB/s) and the Passive's flushes (its walreceiver
    cycles, Tables 9-10 sdg writes/s) fall: at the printed cycle counts, one ACK + two status replies
    per cycle land within the print's rounding (+-0.05 MB/s) for both runs; one ACK per two WAL
    segments could not fall."""
    tm = protocol.target_map(vcha)
    for n, t in ((64, "t09"), (256, "t10")):
        cycles = tm[f"{t}_sdg_tps_{n}_enabled_passive"].paper_value()
        train = tm[f"t11_eth1_tx_{n}_enabled"].paper_value() / cycles
        rx = tm[f"t11_eth1_rx_{n}_enabled"].paper_value()
        assert abs(cycles * float(vdisk.reply_bytes_per_cycle(train)) - rx) <= 0.05e6 + 1e-6
    wal = [tm[f"t11_eth1_tx_{n}_enabled"].paper_value() for n in (64, 256)]
    rx = [tm[f"t11_eth1_rx_{n}_enabled"].paper_value() for n in (64, 256)]
    assert wal[1] > wal[0] and rx[1] < rx[0]


def test_sdf_bytes_physical_over_wide_ranges_and_params_refuse_negatives():
    """Issue 30: sdf bytes = checkpoint background (>= 0) + evictions growing as rate^2 (>= 0): finite,
    non-negative, non-decreasing and convex in throughput for any physical parameters; the fitted
    background and eviction coefficient are positive; a negative one is refused, naming it."""
    x = np.linspace(0.0, 5000.0, 401)
    for bg in (0.0, 1.0, P.disk.sdf_background_bytes_per_s, 1e9):
        for c in (0.0, 1e-3, P.disk.sdf_eviction_bytes_s_per_op2, 1e6):
            d = dataclasses.replace(P.disk, sdf_background_bytes_per_s=bg, sdf_eviction_bytes_s_per_op2=c)
            b = vdisk.sdf_bytes_per_s(x, d)
            assert np.all(np.isfinite(b)) and np.all(b >= 0) and np.all(np.diff(b) >= 0)
            assert np.all(np.diff(b, 2) >= -1e-9 * np.max(b))
    assert P.disk.sdf_background_bytes_per_s > 0 and P.disk.sdf_eviction_bytes_s_per_op2 > 0
    # bytes per operation grow with load (Tables 9-10: faster than linear in every column)
    b = vdisk.sdf_bytes_per_s(np.array([40.0, 110.0]), P.disk)
    assert b[1] / 110.0 > b[0] / 40.0
    for name in ("sdf_background_bytes_per_s", "sdf_eviction_bytes_s_per_op2", "sdh_background_bytes_per_s"):
        with pytest.raises(ValueError, match=name):
            dataclasses.replace(P.disk, **{name: -1.0})
    with pytest.raises(ValueError, match="sdf_write_bytes"):
        dataclasses.replace(P.disk, sdf_write_bytes=0.0)


def test_sdf_average_write_grows_with_load_as_printed():
    """Tables 9-10: sdf's average write grows from 64 to 256 clients in every column (baseline 18 -> 20
    KB, Active 17 -> 19, Passive 14 -> 18): a floor of small writes (>= 0, fitted) plus data writes of
    one size. The floor is positive, the average write stays between a 4 KiB block and the data write,
    and writes/s rise with load."""
    d = P.disk
    assert d.sdf_small_writes_per_s > 0
    x = np.linspace(20.0, 400.0, 60)
    w = vdisk.disk_writes(x, "active", d, P.wal)
    live = w.bytes_per_s["sdf"] > 0
    size = w.bytes_per_s["sdf"][live] / w.writes_per_s["sdf"][live]
    assert np.all(np.diff(size) > 0) and np.all(size >= vdisk.FS_BLOCK_BYTES) and np.all(size < d.sdf_write_bytes)
    assert np.all(np.diff(w.writes_per_s["sdf"]) >= 0)
    # at zero data volume there are no writes (the floor never makes a write smaller than a block); the
    # fitted sdf has a checkpoint background at zero VCbench load, so zero volume needs it set to 0
    idle = dataclasses.replace(d, sdf_background_bytes_per_s=0.0)
    assert float(vdisk.disk_writes(0.0, "active", idle, P.wal).writes_per_s["sdf"]) == 0.0
    z = vdisk.disk_writes(0.0, "active", d, P.wal)
    assert 0.0 < float(z.writes_per_s["sdf"]) * vdisk.FS_BLOCK_BYTES <= float(z.bytes_per_s["sdf"])


# --- issue 26: knobs that mean something, limits as data, explicit overload ----------------------------


@settings(max_examples=40, deadline=None, derandomize=True)
@given(_clients, st.integers(1, 256), st.booleans(), _rtt, _level, st.floats(2.0, 400.0), st.floats(1.0, 4.0))
def test_property_clients_and_pool_never_hurt(n, more, on, rtt, lvl, pool, factor):
    """Throughput is non-decreasing in clients and in the database pool; connections held stay in the pool."""
    a = run(n, on, rtt, lvl, db_connections=pool)
    b = run(min(n + more, 4096), on, rtt, lvl, db_connections=pool)
    c = run(n, on, rtt, lvl, db_connections=min(pool * factor, 10000.0))
    assert float(b.throughput_per_s) >= float(a.throughput_per_s) * (1 - 1e-9)
    assert float(c.throughput_per_s) >= float(a.throughput_per_s) * (1 - 1e-9)
    for s, k in ((a, pool), (b, pool), (c, min(pool * factor, 10000.0))):
        assert float(s.db_connections_held) <= k * (1 + 1e-9)


def test_pool_and_inventory_knobs_or_the_named_bottleneck():
    """At the test bed's 256 clients the 50-connection pool binds: inventory does not move throughput, and the
    result says why (the pool, with its external source); with a larger pool the vpxd CPU and so the inventory
    (hosts' background work) matter, and the bottleneck moves."""
    from vcperf.vcha import limits

    base = run(256, True)
    assert str(base.bottleneck) == "database connection pool"
    assert "external" in limits.BOTTLENECK_SOURCES[str(base.bottleneck)]
    more_hosts = run(256, True, hosts=8000.0)
    assert float(more_hosts.throughput_per_s) == pytest.approx(float(base.throughput_per_s), rel=1e-9)
    big = run(256, True, db_connections=200.0)
    assert float(big.throughput_per_s) > 1.3 * float(base.throughput_per_s)  # the pool knob moves it
    big_hosts = run(256, True, db_connections=200.0, hosts=8000.0)
    assert float(big_hosts.throughput_per_s) < 0.995 * float(big.throughput_per_s)
    assert str(big_hosts.bottleneck) == "vpxd CPU"


def test_passive_storage_knob_moves_the_commit_wait():
    # the knob is the Passive's storage (its walreceiver cycle), no longer the whole implied flush (issue 38)
    default = P.disk.walreceiver_cycle_s
    same = run(256, True, passive_flush_s=default)
    base = run(256, True)
    assert float(same.sync_wait_s) == pytest.approx(float(base.sync_wait_s), rel=1e-12)
    fast, slow = run(256, True, passive_flush_s=1e-6), run(256, True, passive_flush_s=5e-3)
    assert float(fast.sync_wait_s) < float(base.sync_wait_s) < float(slow.sync_wait_s)
    assert float(fast.throughput_per_s) > float(base.throughput_per_s) > float(slow.throughput_per_s)
    off = run(256, False, passive_flush_s=5e-3)  # no Passive without VCHA
    assert float(off.throughput_per_s) == pytest.approx(float(run(256, False).throughput_per_s), rel=1e-12)
    with pytest.raises(ValueError, match="passive_flush_s"):
        run(256, True, passive_flush_s=-1e-3)


def test_unsupported_inputs_are_flagged_and_overload_is_explicit():
    assert run(64, True, 0.010).flags == ()
    flagged = run(64, True, 0.030)
    assert any("10 ms" in f and "unsupported" in f for f in flagged.flags)
    assert run(64, False, 0.030).flags == ()  # no VCHA network without VCHA
    tiny = vcha.failover_times(2.0, 100.0)
    assert any("Tiny" in f for f in tiny.flags) and vcha.failover_times(4.0, 1440.0).flags == ()
    assert any("Tiny" in f for f in run(64, True, vcpus=2.0, hosts=10.0, powered_on_vms=100.0).flags)
    slow = run(256, True, bandwidth_bps=1e6)
    # The closed loop never stops: PostgreSQL falls back to asynchronous replication (seed, Best Practices),
    # the appliance runs as without the synchronous wait and the Passive falls behind (RPO > 0).
    off = run(256, False)
    assert bool(slow.overloaded) and str(slow.replication) == "asynchronous"
    assert float(slow.throughput_per_s) == pytest.approx(float(off.throughput_per_s), rel=1e-12)
    assert np.isfinite(slow.response_time_s) and float(slow.rpo_growth_bytes_per_s) > 0
    assert any(f.startswith("fallback") and "RPO > 0" in f for f in slow.flags)
    ok = run(256, True, bandwidth_bps=1e9)
    assert not bool(ok.overloaded) and float(ok.throughput_per_s) > 0 and str(ok.replication) == "synchronous"
    assert float(ok.rpo_growth_bytes_per_s) == 0.0


def test_documented_limits_agree_with_their_data_rows():
    """The model's limits are the data rows (read_from: external for the pool; the seed for the others)."""
    from vcperf import data
    from vcperf.vcha import limits

    row = data.row("vcha2016/external_vcenter_limits", "max_db_connections")
    assert row["read_from"] == "external" and TB.db_connections == limits.DEFAULT_DB_CONNECTIONS == 50.0
    rtt = data.value("vcha2016/text_best_practices", "max_supported_vcha_network_latency", "si")
    assert limits.MAX_SUPPORTED_RTT_S == pytest.approx(rtt)
    sizes = vcha.inventory_sizes()
    assert limits.MIN_SUPPORTED_VCPUS == min(s["vcpus"] for s in sizes.values())
    tiny = data.value("vcha2016/text_best_practices", "vcpus", "si", appliance_size="tiny")
    assert tiny < limits.MIN_SUPPORTED_VCPUS


def test_appliance_memory_is_an_input_flagged_when_the_model_needs_more():
    """Table 1 memory enters: a Small appliance (16 GB) with 1,024 clients needs more than it has (Table 8's
    model of vpxd's per-host and per-client memory): flagged; within its memory, no flag."""
    small, inv = vcha.appliance("small"), vcha.inventory_sizes()["small"]
    heavy = vcha.run_vcbench(1024, True, params=P, memory_bytes=inv["memory_bytes"], **small)
    assert any(f.startswith("memory pressure") for f in heavy.flags)
    # within its memory: no memory flag (the Small appliance is flagged as an extrapolation, issue 38)
    assert {f.kind for f in vcha.run_vcbench(256, True, params=P, memory_bytes=inv["memory_bytes"], **small).flags} == {
        "extrapolation"}
    xl_bytes = vcha.inventory_sizes()["x-large"]["memory_bytes"]
    big = vcha.run_vcbench(1024, True, params=P, memory_bytes=xl_bytes, **small)
    assert not any(f.startswith("memory pressure") for f in big.flags)
    with pytest.raises(ValueError, match="memory_bytes"):
        vcha.run_vcbench(64, True, params=P, memory_bytes=1.0, **small)


# ---------------------------------------------------------------- issue 26: the panels show flags and reasons


def test_whatif_readout_names_the_bottleneck_and_its_source_at_256_clients():
    from vcperf.views import vcha as views

    readout, _ = views.vcbench_whatif_update(clients=256)
    neck = str(np.ravel(views.common.study_vcbench(256, True, 0.005, 1, **views.scenario()).bottleneck)[0])
    assert neck == "database connection pool"
    assert f"throughput set by the {neck} ({vcha.limits.pool_provenance(50.0)})" in readout
    small, _ = views.vcbench_whatif_update(clients=256, db_connections=400)
    assert "throughput set by the database connection pool" not in small


def test_whatif_readout_flags_an_unsupported_rtt_tiny_appliance_and_memory_pressure():
    from vcperf.views import vcha as views

    assert "unsupported" not in views.vcbench_whatif_update(replication_rtt_ms=5.0)[0]
    assert "10 ms VCHA network latency VMware supports (VCHA study, Best Practices): unsupported" in \
        views.vcbench_whatif_update(replication_rtt_ms=30.0)[0]
    assert "memory pressure" in views.vcbench_whatif_update(memory_gb=8.0)[0]
    assert "memory pressure" not in views.vcbench_whatif_update()[0]
    lossy = views.vcbench_whatif_update(replication_rtt_ms=30.0, loss_percent=5.0)[0]
    assert "asynchronous replication (RPO > 0" in lossy
    assert "Tiny, 2 vCPUs, is not supported" in views.lifecycle_whatif_update(vcpus=2.0)[0]
    assert "unsupported" not in views.lifecycle_whatif_update(vcpus=4.0)[0]


def test_whatif_pool_and_passive_flush_knobs_move_the_throughput():
    from vcperf.views import vcha as views

    base = views.vcbench_whatif_update()[0]
    assert views.vcbench_whatif_update(db_connections=100)[0] != base
    assert views.vcbench_whatif_update(passive_flush_ms=50.0)[0] != base


def test_vcha_closed_loop_slows_with_the_link_and_falls_back_instead_of_stopping():
    """Issue 36: over links from 1 kbit/s to 10 Gbit/s the commits' closed loop slows down, never stops. While
    replication is synchronous its throughput is positive, non-decreasing in the link rate and at most what the
    link's TCP rate carries of its WAL; where the link cannot carry the background WAL the fallback is
    asynchronous (RPO > 0), the Passive falling behind by less as the link grows."""
    from vcperf import network
    from vcperf.vcha.vcbench import LAN_RTT_S

    bws = np.geomspace(1e3, 10e9, 200)
    s = run(256, True, 0.005, bandwidth_bps=bws, loss=0.001)
    x = np.asarray(s.throughput_per_s).ravel()
    mode = np.asarray(s.replication).ravel()
    assert np.all(x > 0) and np.all(np.isfinite(s.response_time_s))
    sync = mode == "synchronous"
    assert sync.any() and (~sync).any()
    assert np.all(np.diff(x[sync]) >= -1e-9 * x[sync][1:])
    wal = vcha.calibrate().wal
    carry = network.tcp_throughput_bps(bws, LAN_RTT_S + 0.005, 0.001) / 8.0
    assert np.all(x[sync] * wal.wal_bytes_per_op <= carry[sync] * (1 + 1e-9))
    lag = np.asarray(s.rpo_growth_bytes_per_s).ravel()
    assert np.all(lag[~sync] > 0) and np.all(np.diff(lag[~sync]) <= 1e-9) and np.all(lag[sync] == 0)
