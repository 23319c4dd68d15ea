"""vMotion study model (``004_ea13268657e6b3b0.txt``): mechanisms, fidelity and bad input."""

import importlib
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from vcperf import network, protocol
from vcperf import vmotion as vm
from vcperf.vmotion import memory as vm_memory

GIB = 2.0**30
TIB = 2.0**40


@pytest.fixture(scope="module")
def p():
    return vm.calibrate()


@pytest.fixture(scope="module")
def kw(p):
    """The calibrated parameters and the printed settings, as model keyword arguments."""
    return {"params": p, "settings": vm.settings()}


@pytest.fixture(scope="module")
def rows():
    return {r.key: r for r in vm.fidelity_rows() if r.kind != "loo"}


@pytest.fixture(scope="module")
def grid(p):
    mem = np.geomspace(4 * GIB, 6 * TIB, 13)[:, None, None, None]
    dirty = np.geomspace(1e6, 8e10, 17)[None, :, None, None]
    link = np.geomspace(1e9, 4e11, 9)[None, None, :, None]
    ws_frac = np.array([0.01, 0.3, 1.0])[None, None, None, :]
    return mem, dirty, link, mem * ws_frac


# ---------------------------------------------------------------- pre-copy mechanism


@pytest.mark.parametrize("release", vm.RELEASES)
def test_bytes_sent_at_least_memory_and_conserved(grid, kw, release):
    mem, dirty, link, ws = grid
    r = vm.precopy(mem, dirty, link, ws, release=release, **kw)
    assert r.rounds.shape == np.broadcast(mem, dirty, link, ws).shape
    assert np.all(r.bytes_sent >= np.broadcast_to(mem, r.bytes_sent.shape))
    np.testing.assert_allclose(r.bytes_sent, r.precopy_bytes + r.switchover_bytes)
    # no round re-sends more than the working set
    resent = r.precopy_bytes - mem
    assert np.all(resent <= (r.rounds - 1) * np.broadcast_to(ws, r.rounds.shape) * (1 + 1e-12))
    assert np.all(r.switchover_bytes <= np.broadcast_to(ws, r.rounds.shape) * (1 + 1e-12))


@pytest.mark.parametrize("release", vm.RELEASES)
def test_converged_cases_meet_the_switchover_goal(grid, kw, release):
    mem, dirty, link, ws = grid
    r = vm.precopy(mem, dirty, link, ws, release=release, **kw)
    goal = r.transfer_rate_bytes_per_s * vm.settings().switchover_goal_s
    assert np.all(r.switchover_bytes[r.converged] <= goal[r.converged] * (1 + 1e-12))
    assert np.all(r.switchover_bytes[~r.converged] > goal[~r.converged])


def test_more_bandwidth_never_slower(grid, kw):
    mem, dirty, _, ws = grid
    link = np.geomspace(1e9, 4e11, 40)
    for release in vm.RELEASES:
        r = vm.precopy(mem[..., 0], dirty[..., 0], link, ws[..., 1], release=release, **kw)
        data_time = r.precopy_time_s + r.switchover_bytes / r.transfer_rate_bytes_per_s
        assert np.all(np.diff(data_time, axis=-1) <= 1e-9 * data_time[..., 1:])
        assert np.all(np.diff(r.migration_time_s, axis=-1) <= 1e-9 * r.migration_time_s[..., 1:])


def test_higher_dirty_rate_never_faster(kw):
    mem = np.geomspace(4 * GIB, 6 * TIB, 11)[:, None, None, None]
    link = np.geomspace(1e9, 4e11, 7)[None, :, None, None]
    ws = mem * np.array([0.01, 0.3, 1.0])[None, None, :, None]
    dirty = np.geomspace(1e5, 1e11, 200)
    for release in vm.RELEASES:
        for sdps in (True, False):
            r = vm.precopy(mem, dirty, link, ws, release=release, sdps=sdps, **kw)
            data_time = r.precopy_time_s + r.switchover_bytes / r.transfer_rate_bytes_per_s
            # pairwise (a never-converging case is infinite, and stays so at a higher dirty rate)
            assert np.all(data_time[..., 1:] >= data_time[..., :-1] * (1 - 1e-9))
            assert np.all(r.bytes_sent[..., 1:] >= r.bytes_sent[..., :-1] * (1 - 1e-6))
    # 6.7's bitmaps do not depend on the remainder, so its pre-copy + switch-over is monotone as a whole;
    # 7.0 U1's page list shrinks when one more round shrinks the remainder (see precopy's docstring)
    r = vm.precopy(mem, dirty, link, ws, release="6.7", **kw)
    assert np.all(np.diff(r.migration_time_s, axis=-1) >= -1e-9 * r.migration_time_s[..., 1:])


def test_non_convergent_cases_are_flagged_not_looped(kw):
    mem = 1 * TIB
    link = 40e9
    # the rate of this migration's one stream (CPU-bound worker) over the 40 GbE link
    rate = float(vm.precopy(mem, 0.0, link, release="7.0u1", **kw).transfer_rate_bytes_per_s)
    r = vm.precopy(mem, 2 * rate, link, mem, release="7.0u1", sdps=False, max_rounds=8, **kw)
    assert not bool(r.converged)
    assert int(r.rounds) == 8
    assert not bool(r.sdps_engaged)
    # round 0 plus seven re-sends of the whole working set
    assert float(r.precopy_bytes) == pytest.approx(mem + 7 * mem)
    # SDPS slows the guest to half the link rate and the same case converges
    s = vm.precopy(mem, 2 * rate, link, mem, release="7.0u1", max_rounds=64, **kw)
    assert bool(s.converged) and bool(s.sdps_engaged)
    assert float(s.dirty_rate_bytes_per_s) == pytest.approx(vm.DEFAULT_SDPS_FRACTION * rate)


def test_small_working_set_converges_after_round_zero(kw):
    r = vm.precopy(64 * GIB, 1e12, 160e9, 1 * GIB, release="7.0u1", sdps=False, **kw)
    # round 0 leaves the whole (small) working set, which fits the threshold: the switch-over sends it;
    # the phase average of the last boundary adds its q -> 1 limit, half a round of the working set
    assert bool(r.converged) and int(r.rounds) == 2
    assert float(r.switchover_bytes) == pytest.approx(1 * GIB)
    assert float(r.precopy_bytes) == pytest.approx(64 * GIB + 0.5 * GIB)


def test_zero_dirty_rate_sends_memory_once(kw):
    r = vm.precopy([8 * GIB, 1 * TIB], 0.0, 160e9, release="7.0u1", **kw)
    np.testing.assert_allclose(r.bytes_sent, [8 * GIB, 1 * TIB])
    np.testing.assert_allclose(r.precopy_time_s, np.array([8 * GIB, 1 * TIB]) / r.transfer_rate_bytes_per_s)
    # one stream: its worker's CPU ceiling, not the 160 Gb/s line rate
    np.testing.assert_allclose(r.transfer_rate_bytes_per_s, vm.settings().stream_bytes_per_cpu_s)


def test_vectorized_grid_equals_one_by_one(grid, kw):
    mem, dirty, link, ws = grid
    full = vm.precopy(mem, dirty, link, ws, vcpus=24, release="6.7", **kw)
    rng = np.random.default_rng(0)
    shape = full.rounds.shape
    for flat in rng.choice(np.prod(shape), 60, replace=False):
        i = np.unravel_index(flat, shape)
        one = vm.precopy(float(mem[i[0], 0, 0, 0]), float(dirty[0, i[1], 0, 0]), float(link[0, 0, i[2], 0]),
                         float(ws[i[0], 0, 0, i[3]]), vcpus=24, release="6.7", **kw)
        for field in ("rounds", "bytes_sent", "precopy_time_s", "switchover_time_s", "converged", "sdps_engaged"):
            assert np.asarray(getattr(one, field)) == pytest.approx(getattr(full, field)[i]), field


def test_block_boundaries_do_not_change_results(kw, monkeypatch):
    mem = np.geomspace(4 * GIB, 4 * TIB, 1000)
    link = vm.testbed_link_bps()
    a = vm.precopy(mem, 5e9, link, mem * 0.5, release="7.0u1", **kw)
    monkeypatch.setattr(vm_memory, "_BLOCK", 7)
    b = vm.precopy(mem, 5e9, link, mem * 0.5, release="7.0u1", **kw)
    np.testing.assert_array_equal(a.migration_time_s, b.migration_time_s)


def test_testbed_link_is_four_40gbe():
    assert vm.testbed_link_bps() == pytest.approx(4 * 40e9)
    assert vm.transfer_rate_bytes_per_s(vm.testbed_link_bps()) < vm.testbed_link_bps() / 8
    # the one TCP payload share of vcperf.network (1460 / 1538), no private copy
    from vcperf import network

    assert vm.transfer_rate_bytes_per_s(8.0) == pytest.approx(network.TCP_PAYLOAD_FRACTION)
    assert network.TCP_PAYLOAD_FRACTION == pytest.approx(1460 / 1538)


def test_calibrated_entry_points_equal_the_model_with_calibrated_params(kw):
    mem = np.geomspace(64 * GIB, 4 * TIB, 5)
    a = vm.precopy_testbed(mem, 1e9, working_set_bytes=mem / 2)
    b = vm.precopy(mem, 1e9, vm.testbed_link_bps(), mem / 2, n_vmknics=vm.testbed_vmknics(), **kw)
    np.testing.assert_array_equal(a.migration_time_s, b.migration_time_s)
    m = vm.migrate_testbed(mem, 12, 25 * GIB, 4500.0, "6.7")
    np.testing.assert_array_equal(m.migration_time_s,
                                  vm.migrate(mem, 12, 25 * GIB, 4500.0, "6.7", vm.testbed_link_bps(),
                                             n_vmknics=vm.testbed_vmknics(), **kw)
                                  .migration_time_s)


# ---------------------------------------------------------------- tracing, switch-over


def test_switchover_metadata_70u1_smaller_than_67(kw):
    mem = np.geomspace(1 * GIB, 6 * TIB, 30)
    remaining = np.minimum(mem, 0.5 * vm.transfer_rate_bytes_per_s(160e9))  # at most the 0.5-s goal
    old = vm.switchover_metadata_bytes(mem, "6.7", remaining)
    new = vm.switchover_metadata_bytes(mem, "7.0u1", remaining * 0.01)
    assert np.all(new < old)
    # bitmaps: two bits per 4 KB page, i.e. 64 MiB for 1 TiB
    assert float(vm.switchover_metadata_bytes(TIB, "6.7")) == 2 * TIB / 4096 / 8
    for r in vm.RELEASES:
        m = vm.migrate(mem, 12, np.minimum(mem, 25 * GIB), 4500.0, r, 160e9, **kw)
        assert np.all(np.diff(m.switchover_time_s) >= 0)  # grows with memory
    big = [vm.migrate(TIB, 72, 25 * GIB, 4500.0, r, 160e9, **kw).switchover_time_s for r in vm.RELEASES]
    assert big[1] < big[0]


def test_stop_based_trace_grows_with_vcpus_and_memory_loose_does_not(p, kw):
    cpus = np.arange(1, 4097)
    t67 = vm.trace_phase(1 * TIB, cpus, "6.7", **kw)
    assert np.all((t67.throughput_loss > 0) & (t67.throughput_loss < 1))
    # the per-phase stall c_stop V + P c_install grows with every vCPU that must be stopped: loss and
    # duration grow with the vCPU count from one vCPU on (the install part does not shrink with V)
    assert np.all(np.diff(t67.throughput_loss) > 0)
    assert np.all(np.diff(t67.duration_s) > 0)
    stall = p.vcpu_stop_cost_s * cpus + p.trace_pages_per_install_phase * p.trace_install_cost_s_per_page
    np.testing.assert_allclose(t67.throughput_loss, stall / (stall + vm.settings().guest_slice_s), rtol=1e-12)
    assert t67.throughput_loss[-1] > 0.95  # stopping thousands of vCPUs leaves the guest little
    mem = np.geomspace(GIB, 6 * TIB, 20)
    d67 = vm.trace_phase(mem, 72, "6.7", **kw).duration_s
    assert np.all(np.diff(d67) > 0)
    np.testing.assert_allclose(d67 / mem, d67[0] / mem[0], rtol=1e-4)  # proportional to memory
    t70 = vm.trace_phase(mem, 72, "7.0u1", **kw)
    assert np.all(t70.traces * vm.PAGES_PER_1GB * vm.PAGE_BYTES >= mem)
    # 1 GB traces: two orders of magnitude shorter (the 7.0 U1 phase now includes the guest slices its
    # one tracing vCPU hands back, so the old factor 1000 holds only from 16 GiB on)
    assert np.all(t70.duration_s < d67 / 100)
    assert np.all(t70.duration_s[mem >= 16 * GIB] < d67[mem >= 16 * GIB] / 1000)
    # one vCPU of 72 does the work, and not all the time: at most 1/72 of the VM
    assert np.all((t70.throughput_loss > 0) & (t70.throughput_loss <= 1 / 72))
    # a 1-vCPU VM on 7.0 U1 keeps running between trace batches (was: loss 1.0 and an infinite delay area)
    one = vm.trace_phase(mem, 1, "7.0u1", **kw)
    assert np.all(one.throughput_loss < 1)
    area = vm.migration_delay_area_s2(mem, 1, 0.5, "7.0u1", 40e9, **kw)
    assert np.all(np.isfinite(area))


def test_property_67_trace_cost_never_falls_with_vcpus(kw):
    """Issue 25: 6.7 trace cost is non-decreasing in vCPUs over vCPUs 1-768 and memory 1 GiB-6 TiB (the seed:
    "the more vCPUs the VM is configured with, the longer it takes to stop and resume them"): duration, loss
    and the guest time lost (loss x duration)."""
    cpus = np.arange(1, 769)[:, None]
    mem = np.geomspace(GIB, 6 * TIB, 25)[None, :]
    t = vm.trace_phase(mem, cpus, "6.7", **kw)
    lost = t.throughput_loss * t.duration_s
    for a in (t.duration_s, t.throughput_loss, lost):
        assert np.all(np.isfinite(a)) and np.all(a > 0)
        assert np.all(np.diff(a, axis=0) >= 0)
    assert np.all(np.diff(t.duration_s, axis=1) > 0)  # and grows with memory
    assert len(np.unique(np.round(t.duration_s, 9))) > 1000  # the answer moves with the question


def test_small_vms_trace_in_under_ten_seconds_on_67(kw):
    """Seed, "vSphere 6.7 Page Tracing": "the trace-install duration can range from less than ten seconds
    to hundreds of seconds" and "This approach worked fine for small-to-medium-sized VMs, because stopping
    a few vCPUs is not too expensive": every VM of <= 8 vCPUs and <= 64 GiB traces in under 10 s."""
    cpus = np.arange(1, 9)[:, None]
    mem = np.geomspace(GIB, 64 * GIB, 13)[None, :]
    d = vm.trace_phase(mem, cpus, "6.7", **kw).duration_s
    assert np.all(d < 10.0)
    assert float(vm.trace_phase(6 * TIB, 12, "6.7", **kw).duration_s) >= 100.0  # "hundreds of seconds"


def test_zero_pages_are_not_sent_and_bad_counts_are_refused(kw):
    """Seed (Figure 6 text): "vSphere has optimizations to reduce the amount of data transferred for zero
    pages"; Test 1's freshly booted typical VM (Figures 5, 10) has them, the pre-touched VMs do not. Round 0
    sends only the touched memory, so more zero pages never lengthen the pre-copy; the 6.7 trace phase
    still traces every page."""
    zero = np.linspace(0.0, 39 * GIB, 14)
    for r in vm.RELEASES:
        m = vm.migrate(64 * GIB, 12, 25 * GIB, 4500.0, r, 160e9, n_vmknics=4, zero_bytes=zero, **kw)
        assert np.all(np.diff(m.precopy.round0_time_s) < 0) and np.all(np.diff(m.precopy_time_s) <= 1e-12)
        assert np.all(m.precopy.precopy_bytes >= 64 * GIB - zero)
        assert np.ptp(m.trace_time_s) == 0.0
    w = vm.workloads()
    assert w["typical_fresh"].zero_bytes == w["typical"].memory_bytes - w["typical"].working_set_bytes
    assert all(w[n].zero_bytes == 0.0 for n in w if n != "typical_fresh")
    fresh, touched = (vm.migrate_workload(n, "7.0u1") for n in ("typical_fresh", "typical"))
    assert float(fresh.migration_time_s) < float(touched.migration_time_s)
    for bad in (-1.0, 40 * GIB, 64 * GIB):
        with pytest.raises(ValueError, match="zero_bytes"):
            vm.precopy(64 * GIB, 1e9, 160e9, 25 * GIB, 12, "7.0u1", zero_bytes=bad, **kw)


def test_precopy_trace_loss_bounds_and_release_order(p):
    d = np.geomspace(1e5, 1e10, 30)
    for r in vm.RELEASES:
        loss = vm.precopy_trace_loss(d, 72, 25 * GIB, 60.0, r, params=p, transfer_rate_bytes_per_s=9e9)
        assert np.all((loss >= 0) & (loss < 1)) and np.all(np.diff(loss) >= 0)
    # where trace fires dominate (>= 1 GB/s), 7.0 U1's one-vCPU fire path costs less than 6.7's stop-based
    # re-installs; at low rates its 1 GB -> 2 MB -> 4 KB splits ("more work on the trace-fire path") can cost more
    hi = d >= 1e9
    kw = {"params": p, "transfer_rate_bytes_per_s": 9e9}
    assert np.all(vm.precopy_trace_loss(d[hi], 72, 25 * GIB, 60.0, "7.0u1", **kw)
                  < vm.precopy_trace_loss(d[hi], 72, 25 * GIB, 60.0, "6.7", **kw))


def test_migration_loss_is_time_weighted_mean_of_phases(p):
    m = vm.migrate_workload("large_1tb", "6.7", params=p)
    lost = m.trace_loss * m.trace_time_s + m.precopy_loss * m.precopy_time_s + m.switchover_time_s
    assert float(m.average_loss) == pytest.approx(float(lost / m.migration_time_s))
    post = float(m.post_switchover_time_s)
    assert post > 0 and 0 < float(m.post_switchover_loss) < 1  # 6.7 rebuilds large pages after resume
    t, tps = vm.throughput_series(m, 0.5, 10.0, 10.0 + float(m.migration_time_s) + post + 10.0)
    # transactions are conserved by the sampling: integral = baseline * time - lost work (incl. the post phase)
    total = tps.sum() * 0.5
    lost_work = float(m.average_loss * m.migration_time_s) + float(m.post_switchover_loss) * post
    assert total == pytest.approx(float(m.baseline_tps) * (t[-1] - lost_work))
    # 7.0 U1 copies remote pages into their original backing: nothing to rebuild
    assert float(vm.migrate_workload("large_1tb", "7.0u1", params=p).post_switchover_time_s) == 0
    assert tps.min() >= 0 and tps.max() <= float(m.baseline_tps) * (1 + 1e-12)


def test_70u1_faster_and_gentler_for_every_table1_vm():
    t1 = vm.table1_model()
    assert np.all(t1["migration_time_70u1_s"] < t1["migration_time_67_s"])
    assert np.all(t1["avg_loss_70u1"] < t1["avg_loss_67"])
    # "the larger the VM configuration, the higher the performance differential" (Figure 9)
    assert np.all(np.diff(t1["throughput_improvement"]) > 0)


# ---------------------------------------------------------------- calibration and fidelity


def test_calibration_is_deterministic_and_named():
    from vcperf.vmotion import calibration

    fresh = calibration._calibrate.__wrapped__(tuple(sorted(vm.FIT_KEYS)))  # bypass the cache
    assert fresh == vm.calibrate()
    table = vm.parameter_table()
    assert set(table["name"]) == set(vm.PARAM_DOCS)
    assert "tpcx.peak_vm_utilization" in set(table["name"])
    # fewer parameters than fitted numbers, and the fit determines every one of them
    ident = protocol.identifiability(vm)
    assert ident["n_params"] < ident["n_fit_points"] == len(vm.FIT_KEYS)
    assert ident["jacobian_rank"] == ident["n_params"]
    assert all(ident["identifiable"].values())


@pytest.mark.parametrize("held_out", [(), ("typical_tps_70u1", "typical_migration_time_reduction"),
                                      ("migration_time_ratio_large", "switchover_improvement_large")],
                         ids=["full", "without_typical_70u1", "without_large_70u1"])
def test_fit_reaches_the_lowest_minimum_of_a_denser_start_grid(held_out):
    """The migration fit (full, and the leave-one-out refits whose rows are estimable) is not stuck in
    a local minimum: a grid of the bytes per transaction twice as dense and a decade wider on each
    side (quarter decades, 30 B to 3 MB) finds no lower cost. The two starts used before (1 kB,
    100 kB) missed the minimum at about 600 B when the typical VM's 7.0 U1 run was held out."""
    from scipy.optimize import least_squares

    from vcperf.vmotion import calibration as cal

    keys = tuple(k for k in vm.FIT_KEYS if k not in held_out and k not in cal._TPCX_COUNTS)
    paper = np.array([cal._paper(k) for k in keys])

    def make(x):
        return vm.Params(**dict(zip(cal._MAIN, np.exp(x), strict=True)),
                         tpcx=vm.TpcxParams(cal._START_PEAK, cal._START_SCALE))

    def resid(x):  # the fit's own residuals (a range row counted in half-decades: cal.RANGE_EDGE_RESIDUAL)
        return cal._residuals(vm.predict(make(x), keys), keys, paper)

    fitted = cal._fit_main(keys)
    r = resid(np.log([fitted[k] for k in cal._MAIN]))
    ours = 0.5 * float(r @ r)
    base = np.log([cal._START[k] for k in cal._MAIN])
    i = cal._MAIN.index("dirty_bytes_per_transaction")
    best = np.inf
    for log_dirty in np.log(np.logspace(1.5, 6.5, 21)):
        x0 = base.copy()
        x0[i] = log_dirty
        best = min(best, least_squares(resid, x0, method="trf", diff_step=1e-4, max_nfev=400).cost)
    assert ours <= best * (1.0 + 1e-3) + 1e-12


def test_fidelity_rows_fitted_within_10_percent_median_below_3():
    rows = vm.fidelity_rows()
    assert len([r for r in rows if r.kind != "loo"]) == len(vm.targets())
    fitted = [abs(r.rel_error) for r in rows if r.kind == "fitted"]
    assert len(fitted) == len(vm.FIT_KEYS)
    # issue 12 goal: fitted median <= 5 %. Since fires are bounded by the seed's traced-or-selected invariant
    # and 6.7 re-traces per transmitted chunk, the ten numbers fit within 5 % (median 0.6 %); was 20 % / 5 %
    assert max(fitted) <= 0.05
    assert np.median(fitted) <= 0.02


@pytest.mark.parametrize("key, tol", [
    # fitted (Figures 7, 8, 10; TPCx-HCI 6.7 U3 failed checks)
    # (issue 12, session 3: with bounded fires and chunk-paced 6.7 re-traces every row but one fits within 3 %
    # again; avg_loss_large_67 was 3 % and is 4.9 % now: the fit trades it against the typical VM's rows,
    # which were 8-20 % off before)
    ("trace_drop_large_67", 0.03), ("precopy_drop_large_67", 0.03), ("switchover_stall_large_67", 0.03),
    ("migration_time_ratio_large", 0.03), ("avg_loss_large_67", 0.06), ("switchover_improvement_large", 0.03),
    ("typical_tps_70u1", 0.03), ("typical_tps_67", 0.03), ("typical_migration_time_reduction", 0.03),
    ("failed_checks_67u3", 0.03),
    # predicted (invalid_runs_67u3) and derived (the rest)
    # A known miss, kept at its tolerance and shown: Table 1's VMs were pre-touched (seed, Table 1 text), so its
    # typical VM sends all 64 GB, unlike Figure 10's freshly booted one, and its reduction is 28 % (mean 43 %).
    pytest.param("conclusion_duration_reduction", 0.10, marks=pytest.mark.xfail(strict=True, reason=(
        "known miss (-13 %): Table 1's pre-touched typical VM sends all its memory, so the model's "
        "duration reduction is 28 % where the conclusion prints the mean 43 %"))),
    ("typical_improvement", 0.10), ("invalid_runs_67u3", 0.25),
])
def test_fidelity_tolerance_per_row(rows, key, tol):
    assert abs(rows[key].rel_error) <= tol


# issue 12: the two TPCx-HCI reductions held only because the model failed no 7.0 U1 check (a 100 %
# reduction); then (sessions 3-4) SDPS throttled the largest VMs in both releases with the Oracle VM's dirty
# rate assumed for TPCx-HCI, 7.0 U1 failed ~145 checks and the reductions came out 0.4 % / 1.8 % (strict
# xfail). Session 5: the TPCx-HCI dirty scale is fitted (with the peak load) to the two failed-check
# counts, so failed_check_reduction is a ratio of two fitted numbers (near-exact by construction, shown as
# derived) and invalid_run_reduction rests on the predicted invalid runs (model 93 % vs 86 %).
@pytest.mark.parametrize("key, tol", [("invalid_run_reduction", 0.15), ("failed_check_reduction", 0.05)])
def test_fidelity_tolerance_tpcx_reductions(rows, key, tol):
    assert abs(rows[key].rel_error) <= tol


def test_roles_of_the_ledger(rows):
    """The issue's fixes: the 19x is counted once, the 45 % is derived, predictions are never fitted."""
    tmap = protocol.target_map(vm)
    assert tmap["monster_improvement"].role == "predicted"
    assert tmap["conclusion_improvement"].role == "derived"
    assert tmap["conclusion_improvement"].depends_on == ("monster_improvement",)
    assert tmap["typical_improvement"].role == "derived"
    assert set(tmap["typical_improvement"].depends_on) == {"typical_tps_70u1", "typical_tps_67"}
    counted_19x = [k for k, r in rows.items() if r.kind in ("fitted", "predicted") and r.paper_value == 19.0]
    assert counted_19x == ["monster_improvement"]
    for k in ("invalid_run_reduction", "failed_check_reduction", "conclusion_duration_reduction"):
        assert tmap[k].role == "derived"
    predicted = {k for k, t in tmap.items() if t.role == "predicted"}
    assert {"monster_improvement"} <= predicted
    # issue 37: the invalid runs are Poisson arithmetic on the fitted failed checks: derived, not predicted
    for k, fitted in (("invalid_runs_67u3", "failed_checks_67u3"), ("invalid_runs_70u1", "failed_checks_70u1")):
        assert tmap[k].role == "derived" and tmap[k].depends_on == (fitted,)
    assert {"failed_checks_67u3", "failed_checks_70u1"} <= set(vm.FIT_KEYS)
    # a refit on the fit targets never sees a predicted one
    assert not predicted & set(vm.FIT_KEYS)


def test_documented_misses_point_the_right_way(rows):
    # Figure 9: a large gain that grows with size, but short of 19x (see notebook). Was > 4x; 3.2x since the
    # 6.7 pre-copy loss no longer grows with the fire rate (bounded fires), which lowered the monster's 6.7 loss
    assert rows["monster_improvement"].kind == "predicted"
    assert 3 < rows["monster_improvement"].model_value < rows["monster_improvement"].paper_value
    # TPCx-HCI on 7.0 U1 (issue 12): the VMs dirty memory (per-VM rates), so 7.0 U1 checks fail for a reason
    # (SDPS-throttled re-sends of the largest VMs at their peak); fewer than on 6.7, failed runs too
    for key, k67 in (("failed_checks_70u1", "failed_checks_67u3"), ("invalid_runs_70u1", "invalid_runs_67u3")):
        assert 0 < rows[key].model_value < rows[k67].model_value
    s, p = vm.tpcx_setup(), vm.calibrate()
    hotter = vm.tpcx_expected("7.0u1", min(0.99, p.tpcx.peak_vm_utilization + 0.1), s, params=p,
                              settings=vm.settings())
    assert hotter.expected_failed_checks(s.runs) > 2 * rows["failed_checks_70u1"].model_value


def test_bound_statements_hold():
    b = vm.bound_checks()
    assert len(b) >= 8
    # issue 12: every bound holds, the 7.0 U1 large-VM loss (< 5 %) too since fires are bounded by the seed's
    # invariant (a page is either traced or selected for transmission): round 0 of the 1 TB VM sees at most
    # its working set fire (was a 5.9 % miss)
    assert b["holds"].all(), b[~b["holds"]]
    assert float(b.loc[b["key"] == "avg_loss_large_70u1", "model_value"].iloc[0]) < 0.05
    ledger = [r for r in vm.fidelity_rows() if r.kind == "bound"]
    assert len(ledger) == int(b["in_ledger"].sum()) >= 8
    # issue 37 (was issue 25's whole-interval rule): a bound row is judged on the model's value, its 90 %
    # interval shown beside it; this one's interval straddles the bound (the verdict's uncertainty, shown)
    straddle = {"avg_loss_large_70u1"}
    assert all(r.passed for r in ledger)
    for r in ledger:
        assert not r.whole_interval
        if r.paper_value != 0:  # a band relative to a bound of 0 ("never zero") has no scale: none shown
            assert math.isfinite(r.model_low) and math.isfinite(r.model_high), r.key
        if r.key in straddle:
            assert r.model_low < r.paper_value < r.model_high
    # the two bitmap sizes follow from 1 bit per 4 KB page alone: shown, not counted
    assert set(b.loc[~b["in_ledger"], "key"]) == {"bitmap_size_small", "bitmap_size_large"}


def test_leave_one_out_reports_every_fitted_row():
    loo = vm.leave_one_out()
    assert set(loo["key"]) == set(vm.FIT_KEYS)
    # a number, or NaN with the reason: never a made-up value
    for _, r in loo.iterrows():
        assert math.isfinite(r["model_value"]) or r["note"].startswith("not estimable"), r["key"]
    est = loo[loo["estimable"]]
    by = loo.set_index("key")
    # issue 37: held out row by row (each fitted number its own group; the runs held out whole are the
    # HOLDOUTS), every Oracle row is estimable -- the large VM's six included, which held out a run at a
    # time were not (so the published loo hid that neither switch-over number is predicted by the rest)
    oracle = [k for k in vm.FIT_KEYS if not k.startswith("failed_checks")]
    assert by.loc[oracle, "estimable"].all() and (by["n_held_out"] == 1).all()
    # their errors are shown, not hidden: the 6 s 6.7 switch-over comes out ~12 s, the 10x gain ~6x
    assert by.loc["switchover_stall_large_67", "rel_error"] > 0.5
    assert -0.6 < by.loc["switchover_improvement_large", "rel_error"] < -0.2
    # the other seven within 10 %
    rest = [k for k in oracle if k not in ("switchover_stall_large_67", "switchover_improvement_large")]
    assert by.loc[rest, "rel_error"].abs().max() <= 0.10
    assert est["rel_error"].abs().median() <= 0.10
    # each TPCx-HCI count alone sets its own parameter (peak load, dirty scale): without it, not determined
    assert not by.loc["failed_checks_67u3", "estimable"] and not by.loc["failed_checks_70u1", "estimable"]


def test_whole_runs_held_out_are_the_second_column():
    """Issue 37: the grouped leave-one-out (one run at a time) stays as the study's holdouts."""
    assert set(vm.HOLDOUTS) == {f"whole run: {r}" for r in (
        "large VM (72 vCPU / 1 TB), 6.7 run", "large VM (72 vCPU / 1 TB), 7.0 U1 run vs 6.7",
        "typical VM (12 vCPU / 64 GB), 7.0 U1 run vs 6.7 (Figure 10)")}
    ext = protocol.extrapolation(vm)
    assert set(ext["key"]) == {k for keys in vm.HOLDOUTS.values() for k in keys}
    # a whole run of the large VM held out: the rest does not determine its numbers (as before issue 37)
    assert not ext.set_index("key").loc["switchover_improvement_large", "estimable"]


# ---------------------------------------------------------------- TPCx-HCI Monte Carlo


def test_tpcx_setup_matches_the_printed_experiment():
    s = vm.tpcx_setup()
    assert s.vms == 60 and s.phases == 10 and s.runs == 18 and s.migrations_per_run == 158
    assert s.checks_per_vm_phase.sum() * s.phases == 2000
    assert s.vcpus.min() == 2 and s.vcpus.max() == 28
    assert s.link_bps == pytest.approx(40e9)


def test_tpcx_monte_carlo_is_seeded_and_monotone_in_load(kw):
    s = vm.tpcx_setup()
    a = vm.tpcx_monte_carlo("6.7", 0.8, s, replications=20, seed=1, **kw)
    b = vm.tpcx_monte_carlo("6.7", 0.8, s, replications=20, seed=1, **kw)
    np.testing.assert_array_equal(a.failed_checks, b.failed_checks)
    assert a.failed_checks.shape == (20 * 18,)
    counts = [vm.tpcx_monte_carlo("6.7", u, s, replications=20, seed=1, **kw).failed_checks.sum()
              for u in (0.3, 0.6, 0.8, 0.9, 0.95)]
    assert np.all(np.diff(counts) >= 0) and counts[-1] > counts[0]
    # with the same random numbers 7.0 U1 never fails more checks than 6.7
    new = vm.tpcx_monte_carlo("7.0u1", 0.95, s, replications=20, seed=1, **kw)
    old = vm.tpcx_monte_carlo("6.7", 0.95, s, replications=20, seed=1, **kw)
    assert np.all(new.failed_checks <= old.failed_checks)
    assert np.all(old.invalid == (old.failed_checks > 0))


def test_delay_area_is_stall_squared_over_two_for_an_idle_vm(kw):
    area = vm.migration_delay_area_s2(8 * GIB, 4, 0.0, "7.0u1", 40e9, **kw)
    # the VM's 4 vCPUs: the checkpoint stops and resumes each (issue 37), so the precopy needs them too
    stall = vm.precopy(8 * GIB, 0.0, 40e9, vcpus=4, release="7.0u1", **kw).switchover_time_s
    assert float(area) == pytest.approx(float(stall) ** 2 / 2)
    u = np.linspace(0, 0.99, 50)
    for r in vm.RELEASES:
        a = vm.migration_delay_area_s2(64 * GIB, 16, u, r, 40e9, **kw)
        assert np.all(np.diff(a) > 0)


def test_tpcx_expectation_agrees_with_the_monte_carlo(kw):
    s = vm.tpcx_setup()
    for release, peak in (("6.7", 0.75), ("6.7", 0.87), ("6.7", 0.95), ("7.0u1", 0.95)):
        mc = vm.tpcx_monte_carlo(release, peak, s, replications=400, **kw)
        ex = vm.tpcx_expected(release, peak, s, **kw)
        n = mc.failed_checks.size
        se = mc.failed_checks.std() / math.sqrt(n) + 1e-12
        assert abs(ex.failed_checks_per_run - mc.failed_checks.mean()) <= 4 * se + 0.02 * mc.failed_checks.mean()
        p_mc = mc.invalid.mean()
        assert abs(ex.invalid_run_probability - p_mc) <= 4 * math.sqrt(p_mc * (1 - p_mc) / n) + 0.02
    # smooth and monotone in the peak load (the calibration solves for it)
    peaks = np.linspace(0.6, 0.98, 40)
    f = [vm.tpcx_expected("6.7", u, s, **kw).failed_checks_per_run for u in peaks]
    assert np.all(np.diff(f) >= 0) and f[-1] > f[0]
    # the calibrated peak reproduces the 148 failed 6.7 U3 checks
    p = kw["params"]
    assert vm.tpcx_expected("6.7", p.tpcx.peak_vm_utilization, s, **kw).expected_failed_checks(s.runs) == \
        pytest.approx(148.0, rel=1e-6)


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize("kwargs, name", [
    ({"memory_bytes": 0.0}, "memory_bytes"),
    ({"memory_bytes": -1.0}, "memory_bytes"),
    ({"dirty_rate_bytes_per_s": -5.0}, "dirty_rate_bytes_per_s"),
    ({"dirty_rate_bytes_per_s": math.nan}, "dirty_rate_bytes_per_s"),
    ({"link_bps": 0.0}, "link_bps"),
    ({"working_set_bytes": 2 * TIB}, "working_set_bytes"),
    ({"vcpus": 0}, "vcpus"),
    ({"release": "8.0"}, "release"),
    ({"max_rounds": 0}, "max_rounds"),
    ({"max_rounds": 2.5}, "max_rounds"),
    ({"sdps": "yes"}, "sdps"),
    ({"sdps_fraction": 1.0}, "sdps_fraction"),
    ({"swapped_bytes": -1.0}, "swapped_bytes"),
])
def test_precopy_rejects_bad_input(kw, kwargs, name):
    args = {"memory_bytes": TIB, "dirty_rate_bytes_per_s": 1e8, "link_bps": 160e9, "working_set_bytes": GIB}
    args.update(kwargs)
    with pytest.raises(ValueError, match=name):
        vm.precopy(**args, **kw)


def test_other_functions_reject_bad_input(kw):
    s = vm.tpcx_setup()
    with pytest.raises(ValueError, match="vcpus"):
        vm.trace_phase(TIB, 0, "6.7", **kw)
    with pytest.raises(ValueError, match="release"):
        vm.trace_phase(TIB, 4, "6.5", **kw)
    with pytest.raises(ValueError, match="params"):
        vm.trace_phase(TIB, 4, "6.7", params=None, settings=kw["settings"])
    with pytest.raises(ValueError, match="settings"):
        vm.precopy(TIB, 0.0, 160e9, params=kw["params"], settings=None)
    with pytest.raises(ValueError, match="remaining_bytes"):
        vm.switchover_metadata_bytes(GIB, "7.0u1", 2 * GIB)
    with pytest.raises(ValueError, match="baseline_tps"):  # an idle VM (0) is valid since issue 25
        vm.migrate(TIB, 72, GIB, -1.0, "6.7", 160e9, **kw)
    with pytest.raises(ValueError, match="precopy_time_s"):
        vm.precopy_trace_loss(1e6, 4, GIB, 0.0, "6.7", params=kw["params"], transfer_rate_bytes_per_s=9e9)
    with pytest.raises(ValueError, match="name"):
        vm.migrate_workload("huge", "6.7")
    with pytest.raises(ValueError, match="sample_s"):
        vm.throughput_series(vm.migrate_workload("typical", "6.7"), 0.0, 0.0, 10.0)
    with pytest.raises(ValueError, match="unit"):
        vm.vm_memory_bytes(1, "PB")
    with pytest.raises(ValueError, match="link_bps"):
        vm.transfer_rate_bytes_per_s(-1)
    with pytest.raises(ValueError, match="peak_utilization"):
        vm.tpcx_monte_carlo("6.7", 1.0, s, **kw)
    with pytest.raises(ValueError, match="peak_utilization"):
        vm.tpcx_expected("6.7", 0.0, s, **kw)
    with pytest.raises(ValueError, match="replications"):
        vm.tpcx_monte_carlo("6.7", 0.5, s, replications=0, **kw)
    with pytest.raises(ValueError, match="seed"):
        vm.tpcx_monte_carlo("6.7", 0.5, s, seed=-1, **kw)
    with pytest.raises(ValueError, match="setup"):
        vm.tpcx_monte_carlo("6.7", 0.5, None, **kw)
    with pytest.raises(ValueError, match="utilization"):
        vm.migration_delay_area_s2(GIB, 2, 1.0, "6.7", 40e9, **kw)
    with pytest.raises(ValueError, match="fit_on"):
        vm.calibrate(fit_on=("avg_loss_large_70u1",))  # a bound is checked, not fitted
    with pytest.raises(ValueError, match="keys"):
        vm.predict(vm.calibrate(), ("no_such_key",))


def test_whatif_update_returns_text_and_png():
    from vcperf.views import vmotion as views

    text, png = views.migration_whatif_update(64.0, 12, 1.0, 25.0, 40.0, 4, "6.7")
    assert "vSphere 6.7" in text and "migration" in text
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    text, _ = views.migration_whatif_update(1024.0, 12, 50000.0, 1024.0, 10.0, 1, "7.0u1")
    assert "(SDPS) engaged" in text
    # issue 12: streams, RTT, encryption, sharing and a downtime target; readouts with 90 % intervals
    text, _ = views.migration_whatif_update(1024.0, 72, 2000.0, 25.0, 40.0, 2, "7.0u1", 2, 50.0, 2.0, 2, 0.3)
    assert "90 %" in text and "4 streams" in text and "stall under 300 ms" in text and "evacuating 8" in text
    ro = views.migration_whatif_readout(64.0, 12, 1000.0, 25.0, 40.0, 4, "6.7")
    val, lo, hi = ro["migration_time_s"]
    assert lo < val < hi


# ------------------------------------------------------- issue 12: transfer, stop rule, rounds, properties


def test_stream_ceiling_and_line_rate(kw):
    s = vm.settings()
    # one 40 GbE vmknic: the worker's 18 Gb/s, not the NIC; four on four NICs: four times that
    one = float(vm.precopy(64 * GIB, 0.0, 40e9, release="7.0u1", **kw).transfer_rate_bytes_per_s)
    four = float(vm.precopy(64 * GIB, 0.0, 160e9, release="7.0u1", n_vmknics=4, **kw).transfer_rate_bytes_per_s)
    assert one == pytest.approx(s.stream_bytes_per_cpu_s) and four == pytest.approx(4 * one)
    # many streams: the NICs' TCP goodput caps it
    many = vm.transfer_rate_bytes_per_s(160e9, n_streams=64, stream_bytes_per_cpu_s=s.stream_bytes_per_cpu_s)
    assert float(many) == pytest.approx(160e9 / 8 * network.TCP_PAYLOAD_FRACTION)
    # encryption as extra CPU per byte slows a CPU-bound stream; RTT caps it at rwnd / RTT
    enc = vm.transfer_rate_bytes_per_s(160e9, n_streams=4, stream_bytes_per_cpu_s=s.stream_bytes_per_cpu_s,
                                       extra_cpu_s_per_byte=1 / s.stream_bytes_per_cpu_s)
    assert float(enc) == pytest.approx(2 * s.stream_bytes_per_cpu_s)
    far = vm.transfer_rate_bytes_per_s(160e9, n_streams=4, stream_bytes_per_cpu_s=s.stream_bytes_per_cpu_s, rtt_s=0.1)
    assert float(far) == pytest.approx(4 * network.DEFAULT_RWND_BYTES / 0.1)
    # k migrations share the NICs fairly, each capped by its own streams
    shared = vm.transfer_rate_bytes_per_s(40e9, n_streams=4, stream_bytes_per_cpu_s=s.stream_bytes_per_cpu_s,
                                          concurrent=4)
    assert float(shared) == pytest.approx(40e9 / 8 * network.TCP_PAYLOAD_FRACTION / 4)
    assert vm.streams(4, None, "6.7") == 4 and vm.DEFAULT_STREAMS_PER_VMKNIC == {"6.7": 1, "7.0u1": 1}


def test_host_evacuation_waves(kw):
    def t(k):
        return float(vm.migrate(64 * GIB, 12, 25 * GIB, 4500.0, "7.0u1", 40e9, concurrent=k, **kw).migration_time_s)

    assert vm.evacuation_time_s(10, 1, t) == pytest.approx(10 * t(1))
    assert vm.evacuation_time_s(10, 4, t) == pytest.approx(2 * t(4) + t(2))
    with pytest.raises(ValueError, match="concurrent"):
        vm.evacuation_time_s(3, 4, t)


def test_downtime_never_grows_with_link_rate(kw):
    """Issue 12: 0.895 -> 1.066 s for a 1 GiB VM from 1 to 10 Gb/s (and 32 more grid cells) is gone."""
    mem = np.array([1, 16, 64, 256, 1024, 4096])[:, None, None] * GIB
    dirty = np.geomspace(1e6, 5e9, 15)[None, :, None]
    link = np.geomspace(1e9, 1e11, 60)[None, None, :]
    for release in vm.RELEASES:
        r = vm.precopy(mem, dirty, link, mem * 0.4, release=release, n_vmknics=8, **kw)
        assert np.all(np.diff(r.switchover_time_s, axis=-1) <= 1e-6 * r.switchover_time_s[..., 1:])
        assert np.all(np.diff(r.migration_time_s, axis=-1) <= 1e-9 * r.migration_time_s[..., 1:])


def test_70u1_switchover_respects_its_goal_when_possible(kw, p):
    mem = np.geomspace(GIB, 6 * TIB, 12)[:, None]
    dirty = np.geomspace(1e6, 5e9, 12)[None, :]
    r = vm.precopy(mem, dirty, 100e9, mem * 0.3, vcpus=24, release="7.0u1", n_vmknics=8, **kw)
    assert p.checkpoint_time_s < vm.settings().switchover_time_goal_s
    assert np.all(r.switchover_time_s[r.converged] <= vm.settings().switchover_time_goal_s * (1 + 1e-9))


def test_fitted_rows_depend_on_the_precopy_rounds(p, monkeypatch):
    """Issue 12: at least two fitted rows move when the round logic changes (round cap, SDPS)."""
    keys = [k for k in vm.FIT_KEYS if k != "failed_checks_67u3"]
    base = vm.predict(p, keys)
    m = vm.migrate_workload("typical", "7.0u1")
    assert int(m.precopy.rounds) >= 2  # the Oracle VMs need re-send rounds
    from vcperf.vmotion import migration as vm_migration
    vm_targets = importlib.import_module("vcperf.vmotion.targets")  # the package's `targets` is the function

    real = vm_migration.precopy
    monkeypatch.setattr(vm_migration, "precopy", lambda *a, **k: real(*a, **{**k, "max_rounds": 1}))
    vm_targets._migrations_at.cache_clear()  # the targets cache the six VMs' migrations per Params
    try:
        capped = vm.predict(p, keys)
    finally:
        vm_targets._migrations_at.cache_clear()
    moved = [k for k in keys if abs(capped[k] / base[k] - 1) > 0.01]
    assert len(moved) >= 2, moved


_PROP = hsettings(max_examples=60, deadline=None, derandomize=True)


@_PROP
@given(mem_gib=st.floats(1, 6144), link_gbps=st.floats(1, 100), dirty=st.floats(0, 5e9),
       vcpus=st.integers(1, 768), rtt_ms=st.floats(0, 150), release=st.sampled_from(vm.RELEASES),
       factor=st.floats(1.01, 4.0))
def test_properties_monotone_bounded_finite(mem_gib, link_gbps, dirty, vcpus, rtt_ms, release, factor):
    p, s = vm.calibrate(), vm.settings()
    kw = {"params": p, "settings": s}
    mem, link, rtt, dirty_in = mem_gib * GIB, link_gbps * 1e9, rtt_ms / 1e3, dirty

    # baseline_tps x dirty bytes per transaction is the dirty rate: set it through the tps
    base = vm.migrate(mem, vcpus, 0.4 * mem, max(dirty, 1.0) / p.dirty_bytes_per_transaction, release, link,
                      rtt_s=rtt, n_vmknics=2, **kw)
    fields = ("migration_time_s", "switchover_time_s")
    for f in fields:
        assert np.isfinite(getattr(base, f)) and getattr(base, f) > 0
    rate = float(base.precopy.transfer_rate_bytes_per_s)
    assert rate <= link / 8 * network.TCP_PAYLOAD_FRACTION * (1 + 1e-12)

    def with_(link=link, dirty=None, rtt=rtt, n=2):
        dirty = max(dirty_in, 1.0) if dirty is None else dirty
        return vm.migrate(mem, vcpus, 0.4 * mem, dirty / p.dirty_bytes_per_transaction, release, link,
                          rtt_s=rtt, n_vmknics=n, **kw)

    tol = 1e-6  # floating-point noise of the fluid stop rule (constant-budget stalls)
    for f in fields:
        b = float(getattr(base, f))
        assert float(getattr(with_(link=min(link * factor, 1e11)), f)) <= b * (1 + tol)
        assert float(getattr(with_(n=4), f)) <= b * (1 + tol)
        assert float(getattr(with_(dirty=max(dirty, 1.0) * factor), f)) >= b * (1 - tol)
        assert float(getattr(with_(rtt=min(rtt + 0.01 * factor, 0.15)), f)) >= b * (1 - tol)
    for m in (base,):
        for f in ("average_loss", "trace_loss", "precopy_loss"):
            val = np.asarray(getattr(m, f))
            assert np.all(np.isfinite(val)) and np.all((val >= 0) & (val <= 1))


def test_link_for_downtime_target(kw, p):
    # the stall never falls below the fitted checkpoint plus the stop rule's last pages: a target between the
    # stalls at 1 and 1000 Gb/s has a finite answer
    slow, fast = (float(vm.migrate(64 * GIB, 12, 25 * GIB, 4500.0, "7.0u1", b, n_vmknics=16, **kw).switchover_time_s)
                  for b in (1e9, 1e12))
    target = 0.5 * (slow + fast)
    link = vm.link_for_downtime_bps(target, 64 * GIB, 12, 25 * GIB, 4500.0, "7.0u1", n_vmknics=16, **kw)
    assert np.isfinite(link) and 1e8 < link < 1e12
    at = vm.migrate(64 * GIB, 12, 25 * GIB, 4500.0, "7.0u1", link, n_vmknics=16, **kw)
    below = vm.migrate(64 * GIB, 12, 25 * GIB, 4500.0, "7.0u1", link * 0.99, n_vmknics=16, **kw)
    assert float(at.switchover_time_s) <= target < float(below.switchover_time_s)
    assert float(at.switchover_time_s) == pytest.approx(target, rel=2e-3)  # the forward model agrees
    # a target below the checkpoint: no link reaches it
    assert math.isnan(vm.link_for_downtime_bps(0.9 * p.checkpoint_time_s, 64 * GIB, 12, 25 * GIB, 4500.0, "7.0u1",
                                               n_vmknics=16, **kw))
    # 6.7's 1 TB bitmaps alone exceed 1 s: no link helps
    assert math.isnan(vm.link_for_downtime_bps(1.0, TIB, 72, 25 * GIB, 4500.0, "6.7", **kw))


def test_link_for_a_300_ms_downtime_of_a_64_gib_vm(kw, p):
    """Issue 25: a 64 GiB VM at a 0.3 s target on 7.0 U1. The seed prints the 6.7 switch-over of the 1 TB VM
    (six seconds) and 7.0 U1's improvement "by an order of magnitude", under the one-second goal; the fitted
    checkpoint (device state) is part of it and below 0.3 s, so enough streams reach the target, and the
    forward model agrees at the link found. With 16 streams the streams' CPU ceiling caps the transfer: the
    answer is an explicit infeasible result naming that bottleneck, and a target below the checkpoint names
    the checkpoint."""
    args = (0.3, 64 * GIB, 12, 25 * GIB, 4500.0, "7.0u1")
    assert p.checkpoint_time_s < 0.3
    ans = vm.link_for_downtime(*args, n_vmknics=64, **kw)
    assert ans.feasible and ans.bottleneck == "" and 1e9 < ans.link_bps < 1e12
    at = vm.migrate(*args[1:], ans.link_bps, n_vmknics=64, **kw)
    below = vm.migrate(*args[1:], 0.99 * ans.link_bps, n_vmknics=64, **kw)
    assert float(at.switchover_time_s) <= 0.3 < float(below.switchover_time_s)
    assert ans.link_bps == vm.link_for_downtime_bps(*args, n_vmknics=64, **kw)
    capped = vm.link_for_downtime(*args, n_vmknics=16, **kw)
    assert not capped.feasible and math.isnan(capped.link_bps)
    assert capped.bottleneck == "stream ceiling" and capped.reason.startswith("infeasible: ")
    assert capped.floor_s > 0.3
    low = vm.link_for_downtime(0.9 * p.checkpoint_time_s, *args[1:], n_vmknics=64, **kw)
    assert low.bottleneck == "checkpoint" and "checkpoint" in low.reason and not low.feasible
    bitmaps = vm.link_for_downtime(1.0, TIB, 72, 25 * GIB, 4500.0, "6.7", n_vmknics=64, **kw)
    assert bitmaps.bottleneck == "metadata"


def test_tpcx_profile_places_the_printed_migrations(kw, p):
    s = vm.tpcx_setup()
    for r in vm.RELEASES:
        prof = vm.tpcx_profile(r, p.tpcx.peak_vm_utilization, s, **kw)
        warm = prof.migrations[prof.minute < prof.warmup_min].sum()
        assert warm == pytest.approx(s.warmup_migrations) and s.warmup_migrations == 20
        assert prof.migrations[prof.minute >= prof.warmup_min].sum() == pytest.approx(s.migrations_per_run)
        assert prof.minute.size == (s.phases * s.phase_s + s.phase_s) / 60
        assert np.all((prof.throughput_share > 0.5) & (prof.throughput_share <= 1))
        # throughput dips exactly where migrations run
        assert np.all(prof.throughput_share[prof.migrations == 0] == 1)
        assert np.all(prof.throughput_share[prof.migrations > 0] < 1)


@_PROP
@given(mem_gib=st.floats(1, 6144), link_gbps=st.floats(1, 100), dirty=st.floats(1.0, 5e9),
       vcpus=st.integers(1, 768), rtt_ms=st.floats(0, 150), nics=st.integers(1, 8))
def test_property_70u1_never_slower_nor_lossier_than_67(mem_gib, link_gbps, dirty, vcpus, rtt_ms, nics):
    """Issue 12: 'at some what-if inputs 6.7 migrates faster than 7.0 U1' -- no longer."""
    p, s = vm.calibrate(), vm.settings()
    m = {r: vm.migrate(mem_gib * GIB, vcpus, 0.4 * mem_gib * GIB, dirty / p.dirty_bytes_per_transaction, r,
                       link_gbps * 1e9, rtt_s=rtt_ms / 1e3, n_vmknics=nics, params=p, settings=s)
         for r in vm.RELEASES}
    assert float(m["7.0u1"].migration_time_s) <= float(m["6.7"].migration_time_s) * (1 + 1e-9)
    # the guest never loses more work on 7.0 U1 ...
    lost = {r: float(m[r].average_loss * m[r].migration_time_s) for r in vm.RELEASES}
    assert lost["7.0u1"] <= lost["6.7"] * (1 + 1e-9)
    # ... and its average loss is higher only where the named mechanism reverses the order (issue 25): a
    # shorter migration (no destination zeroing, no stop-based trace phase) spreads the same
    # switch-over stall over less time
    if float(m["7.0u1"].average_loss) > float(m["6.7"].average_loss) + 1e-12:
        assert float(m["7.0u1"].migration_time_s) < float(m["6.7"].migration_time_s)


@_PROP
@given(mem_gib=st.floats(1, 6144), link_gbps=st.floats(1, 100), dirty=st.floats(0, 5e9),
       vcpus=st.integers(1, 768), rtt_ms=st.floats(0, 150), release=st.sampled_from(vm.RELEASES),
       streams=st.integers(1, 7), conc=st.integers(1, 7), aes_gb_s=st.floats(0.5, 10.0))
def test_properties_streams_sharing_encryption(mem_gib, link_gbps, dirty, vcpus, rtt_ms, release, streams, conc,
                                               aes_gb_s):
    """Done when (issue 12): more streams per vmknic never slow a migration, lengthen its stall or lose
    the guest more work; sharing the NICs with more migrations or encrypting never does the opposite;
    the goodput never exceeds the line rate's TCP payload share of this migration; nothing is NaN."""
    p, s = vm.calibrate(), vm.settings()
    mem = mem_gib * GIB

    def run(per=streams, k=conc, enc=0.0):
        return vm.migrate(mem, vcpus, 0.4 * mem, max(dirty, 1.0) / p.dirty_bytes_per_transaction, release,
                          link_gbps * 1e9, rtt_s=rtt_ms / 1e3, n_vmknics=2, streams_per_vmknic=per, concurrent=k,
                          encryption_cpu_s_per_byte=enc, params=p, settings=s)

    base = run()
    rate = float(base.precopy.transfer_rate_bytes_per_s)
    assert 0 < rate <= link_gbps * 1e9 / 8 * network.TCP_PAYLOAD_FRACTION / conc * (1 + 1e-12)
    tol = 1e-6

    def lost_s(m):  # guest-seconds of work lost (the average loss alone is diluted by a longer migration)
        return float(m.average_loss * m.migration_time_s)

    more, shared, enc = run(per=streams + 1), run(k=conc + 1), run(enc=1.0 / (aes_gb_s * 1e9))
    for get in (lambda m: float(m.migration_time_s), lambda m: float(m.switchover_time_s), lost_s):
        b = get(base)
        assert np.isfinite(b)
        assert get(more) <= b * (1 + tol) + 1e-12
        assert get(shared) >= b * (1 - tol) - 1e-12
        assert get(enc) >= b * (1 - tol) - 1e-12


@_PROP
@given(mem_gib=st.floats(1, 1024), vcpus=st.integers(1, 768), dirty=st.floats(1e6, 5e9),
       target_s=st.floats(0.2, 3.0), release=st.sampled_from(vm.RELEASES))
def test_property_link_for_downtime_is_the_boundary(mem_gib, vcpus, dirty, target_s, release):
    """The rate the model alone needs for a downtime target meets it, and 1 % less does not (or it is the
    search's lower end, or NaN when even 1 Tb/s cannot). Issue 37: the answer is that rate raised to VMware's
    250 Mbit/s when lower (a "limit" flag then), and the forward model at the answer meets the target too.
    (Changed with issue 37: the boundary is ``target_only_bps``; ``link_bps`` is no longer below the minimum.)"""
    p, s = vm.calibrate(), vm.settings()
    args = (mem_gib * GIB, vcpus, 0.4 * mem_gib * GIB, dirty / p.dirty_bytes_per_transaction, release)
    kw = {"params": p, "settings": s, "n_vmknics": 64}
    ans = vm.link_for_downtime(target_s, *args, **kw)
    link = ans.target_only_bps

    def stall(b):
        return float(vm.migrate(*args, b, **kw).switchover_time_s)

    if math.isnan(link):
        assert stall(1e12) > target_s and math.isnan(ans.link_bps)
        return
    if link == 1e8:
        assert stall(1e8) <= target_s
    else:
        assert stall(link) <= target_s < stall(0.99 * link)
    assert ans.link_bps == max(link, s.limits.min_bps_per_vmotion)
    assert stall(ans.link_bps) <= target_s and ans.downtime_s == pytest.approx(stall(ans.link_bps), rel=1e-12)
    assert any(f.kind == "limit" for f in ans.flags) == (link < s.limits.min_bps_per_vmotion)


@_PROP
@given(mem_gib=st.floats(1, 4096), dirty=st.floats(1e6, 5e9), target_s=st.floats(0.3, 3.0),
       concurrent=st.integers(1, 8), release=st.sampled_from(vm.RELEASES))
def test_property_link_answer_is_supported_or_flagged(mem_gib, dirty, target_s, concurrent, release):
    """Issue 37: the answer is >= 250 Mbit/s x concurrency or carries the "limit" flag (structured: kind, limit,
    value, source row); the forward model at the answer meets the target; the answer reports the migration
    time and the SDPS throttle there."""
    p, s = vm.calibrate(), vm.settings()
    args = (mem_gib * GIB, 12, 0.4 * mem_gib * GIB, dirty / p.dirty_bytes_per_transaction, release)
    kw = {"params": p, "settings": s, "n_vmknics": 4, "concurrent": concurrent}
    ans = vm.link_for_downtime(target_s, *args, **kw)
    minimum = s.limits.min_bps_per_vmotion * concurrent
    assert ans.min_supported_bps == minimum
    if not ans.feasible:
        assert math.isnan(ans.link_bps) and ans.bottleneck
        return
    limit = [f for f in ans.flags if f.kind == "limit"]
    assert ans.link_bps >= minimum or limit
    for f in limit:
        assert f.limit == minimum and f.value == ans.target_only_bps and "min_bandwidth_per_vmotion" in f.source
    m = vm.migrate(*args, ans.link_bps, **kw)
    assert float(m.switchover_time_s) <= target_s
    assert ans.migration_time_s == pytest.approx(float(m.migration_time_s), rel=1e-12)
    assert ans.sdps_throttle_fraction == pytest.approx(float(m.sdps_throttle_fraction), abs=1e-12)
    assert ans.throttled_s == pytest.approx(float(m.throttled_s), rel=1e-12, abs=1e-12)


def test_whatif_durations_read_as_people_expect():
    """Issue 12: '0.000228 s' reads '228 µs'; units follow the size; intervals share the value's unit (the one
    set of formatters of every view, vcperf.views.format)."""
    from vcperf.views import vmotion as views
    from vcperf.views.format import fmt_band, fmt_duration

    assert fmt_duration(0.000228) == "228 µs"
    assert fmt_duration(0.593) == "593 ms"
    assert fmt_duration(8.564) == "8.56 s"
    assert fmt_duration(754.0) == "12.6 min"
    assert fmt_duration(9000.0) == "2.5 h"
    assert fmt_duration(2e-5) == "20 µs"
    assert fmt_band(0.593, 0.417, 0.843) == "593 ms (417–843 ms, 90 %)"
    assert fmt_band(8.56, 6.91, 10.6) == "8.56 s (6.91–10.6 s, 90 %)"
    assert fmt_band(8.56, math.nan, math.nan) == "8.56 s (no interval: not estimable)"
    text, _ = views.migration_whatif_update(64.0, 12, 1000.0, 25.0, 40.0, 4, "7.0u1")
    assert "e-0" not in text and "0.000" not in text  # no exponent notation, no long zero runs


def test_fires_bounded_by_the_traced_or_selected_invariant(p):
    """Seed: 'a page is either traced or selected for transmission'. A fired page is not traced again until
    it is sent, so over round 0 of the 1 TB VM at most its 25 GB working set fires: the guest slows far less
    in round 0 than in a re-send round at the same dirty rate; 6.7 re-traces per transmitted chunk holding a
    dirty page, so its re-send loss follows the transfer rate, not the dirty rate."""
    kw = {"params": p, "transfer_rate_bytes_per_s": 9e9}
    d, ws, t0 = 2e9, 25 * GIB, TIB / 9e9
    loss = {}
    for r in vm.RELEASES:
        round0 = vm.precopy_trace_loss(min(ws, d * t0) / t0, 72, ws, t0, r, dirty_share=min(ws, d * t0) / TIB,
                                       **kw)
        loss[r] = float(round0), float(vm.precopy_trace_loss(d, 72, 0.0, t0, r, **kw))
    # 7.0 U1: the loss follows the (bounded) fires; 6.7: a 2.4 % dirty share still puts a dirty page in
    # nearly every chunk of P ~ 7000 pages, so its stops (and its ~30 % pre-copy drop) persist in round 0
    assert loss["7.0u1"][0] < 0.2 * loss["7.0u1"][1]
    assert 0.5 * loss["6.7"][1] < loss["6.7"][0] <= loss["6.7"][1]
    slow = vm.precopy_trace_loss(d, 72, 0.0, t0, "6.7", params=p, transfer_rate_bytes_per_s=2e9)
    assert float(vm.precopy_trace_loss(d, 72, 0.0, t0, "6.7", **kw)) > float(slow)
    m = vm.migrate_workload("large_1tb", "7.0u1", params=p)
    assert float(m.precopy_loss) < 0.02  # the paper's "less than 5 percent" needs this


def test_figure9_gain_grows_with_size_and_typical_gain_near_paper():
    t1 = vm.table1_model()
    gain = t1["throughput_improvement"].to_numpy()
    assert np.all(np.diff(gain) > 0)
    # Figure 10's two fitted averages, as a ratio: Test 1's freshly booted typical VM (zero pages not sent)
    fresh = [vm.migrate_workload("typical_fresh", r) for r in vm.RELEASES]
    fresh_gain = float((1 - fresh[1].average_loss) / (1 - fresh[0].average_loss))
    assert fresh_gain == pytest.approx(3480 / 2403, rel=0.05)
    # Table 1's typical VM was pre-touched: its longer pre-copy, where 6.7 loses more than 7.0 U1 but less
    # than in the trace phase, dilutes the gain
    assert 1.0 < gain[0] < fresh_gain


def test_whatif_panel_shows_both_releases_back_at_full_speed():
    """The what-if axis runs past the post-switch-over phase too: 6.7's 3 s at 70 % loss after the
    switch-over of the default VM used to be cut off at the right edge (its line ended at 30 %)."""
    from vcperf.views import vmotion as views

    views.migration_whatif_update()
    panel = views.whatif._WhatifPanel.shared()
    for line in panel.lines.values():
        x, y = line.get_data()
        assert x[-1] <= panel.ax.get_xlim()[1] + 1e-9
        assert y[-1] == pytest.approx(100.0)


def test_longest_supported_rtt_is_the_documented_external_value():
    """MAX_SUPPORTED_RTT_S (the RTT range of the vMotion inputs and the what-if slider) is the 150 ms kept
    with its provenance in data/vmotion2020/external_vmotion_streams.csv."""
    from vcperf import data

    assert vm.MAX_SUPPORTED_RTT_S == data.value("vmotion2020/external_vmotion_streams", "max_rtt", "si")


# ---------------------------------------------------------------- issue 25: answers that move with the question


def test_issue25_physics_over_the_wide_grid(kw):
    """Memory 1 GiB-6 TiB, link 10 Mbit/s-100 Gb/s, dirty 0-5 GB/s, working set up to memory, vCPUs
    1-768, RTT 0-150 ms, both releases: time >= memory / line rate, finite, non-negative, monotone in
    link; 7.0 U1 downtime takes more than 100 distinct values."""
    mem = np.geomspace(GIB, 6 * TIB, 7)[:, None, None, None, None]
    link = np.geomspace(1e7, 1e11, 6)[None, :, None, None, None]
    dirty = np.array([0.0, 1e6, 1e8, 1e9, 5e9])[None, None, :, None, None]
    ws = mem * np.array([0.05, 0.4, 1.0])[None, None, None, :, None]
    rtt = np.array([0.0, 0.05, 0.15])[None, None, None, None, :]
    for release in vm.RELEASES:
        for vcpus in (1, 12, 768):
            r = vm.precopy(mem, dirty, link, ws, vcpus, release, rtt_s=rtt, n_vmknics=2, **kw)
            t = r.migration_time_s
            assert np.all(np.isfinite(t)) and np.all(np.isfinite(r.switchover_time_s))
            assert np.all(r.switchover_time_s > 0) and np.all(r.switchover_bytes >= 0)
            assert np.all(t >= np.broadcast_to(mem * 8 / link, t.shape) * (1 - 1e-12))
            assert np.all(np.diff(t, axis=1) <= 1e-9 * t[:, 1:])
            # (1e-6: whole 4 KB pages in the 7.0 U1 page list)
            assert np.all(np.diff(r.switchover_time_s, axis=1) <= 1e-6 * r.switchover_time_s[:, 1:])
            assert np.all(np.diff(t, axis=2) >= -1e-9 * t[:, :, 1:])
            assert np.all(np.diff(t, axis=4) >= -1e-9 * t[..., 1:])
            assert np.all(np.diff(r.switchover_time_s, axis=4) > 0)  # the last byte's one-way delay
            if release == "7.0u1" and vcpus == 12:
                assert len(np.unique(np.round(r.switchover_time_s, 9))) > 100


def test_issue25_downtime_decided_at_round_boundaries_moves_with_link_and_dirty_rate(kw):
    mem = 64 * GIB
    link = np.geomspace(4e9, 5e10, 30)  # below the four streams' CPU ceiling (72 Gb/s), SDPS idle
    for d in (1e7, 1e8):
        r = vm.precopy(mem, d, link, 25 * GIB, 12, "7.0u1", n_vmknics=4, **kw)
        assert len(np.unique(np.round(r.switchover_time_s, 12))) == link.size  # no constant threshold stall
        assert np.all(np.diff(r.switchover_time_s) < 0)  # a faster link always shortens it here
        # what is left is below the threshold: the last round's pages fit the goal
        assert np.all(r.switchover_bytes < r.transfer_rate_bytes_per_s * vm.settings().switchover_goal_s)
    lo, hi = (vm.precopy(mem, d, 40e9, 25 * GIB, 12, "7.0u1", n_vmknics=4, **kw) for d in (5e8, 2e9))
    assert float(hi.switchover_time_s) > float(lo.switchover_time_s)


def test_issue25_metadata_crosses_the_link_during_switchover(kw):
    """6.7's bitmaps of a 1 TiB VM take 0.5 s at 1 Gb/s: switch-over on 1 Gb/s is longer than on 10 Gb/s."""
    slow, fast = (vm.precopy(TIB, 1e6, b, 25 * GIB, 72, "6.7", **kw) for b in (1e9, 10e9))
    assert float(slow.switchover_time_s) > float(fast.switchover_time_s)
    bitmaps_s = float(slow.metadata_bytes) / float(slow.transfer_rate_bytes_per_s)
    assert bitmaps_s > 0.5
    assert float(slow.switchover_time_s) - float(fast.switchover_time_s) > 0.8 * bitmaps_s * (1 - 0.1)
    # 7.0 U1's page list is a few entries per remaining page: far below the 6.7 bitmaps
    new = vm.precopy(TIB, 1e6, 1e9, 25 * GIB, 72, "7.0u1", **kw)
    assert float(new.metadata_bytes) < 0.05 * float(slow.metadata_bytes)


def test_issue25_convergence_is_decided_by_the_model_not_a_cap(kw):
    mem = np.geomspace(GIB, 6 * TIB, 9)[:, None, None]
    link = np.geomspace(1e9, 1e11, 7)[None, :, None]
    dirty = np.geomspace(1e6, 5e9, 9)[None, None, :]
    free = vm.precopy(mem, dirty, link, mem, release="7.0u1", rtt_s=0.15, **kw)
    assert np.all(free.converged)  # SDPS makes every case converge: no cap decides
    for cap in (16, 64):
        a = vm.precopy(mem, dirty, link, mem, release="7.0u1", rtt_s=0.15, max_rounds=cap, **kw)
        b = vm.precopy(mem, dirty, link, mem, release="7.0u1", rtt_s=0.15, max_rounds=4 * cap, **kw)
        ok = a.converged
        for f in ("migration_time_s", "switchover_time_s", "bytes_sent"):
            x, y, z = (np.asarray(getattr(r, f))[ok] for r in (a, b, free))
            np.testing.assert_allclose(x, y, rtol=1e-3)
            np.testing.assert_allclose(x, z, rtol=1e-3)
    # the issue's case: 6000 GiB at 1 Gb/s and 150 ms converges, with no round cap in the way
    r = vm.precopy(6000 * GIB, 2e8, 1e9, 6000 * GIB, 72, "7.0u1", rtt_s=0.15, **kw)
    assert bool(r.converged) and str(r.reason) == ""


def test_issue25_non_convergence_is_a_stated_result(kw):
    rate = float(vm.precopy(TIB, 0.0, 40e9, release="7.0u1", **kw).transfer_rate_bytes_per_s)
    r = vm.precopy(TIB, 2 * rate, 40e9, TIB, release="7.0u1", sdps=False, **kw)
    assert not bool(r.converged)
    assert "SDPS is off" in str(r.reason) and "dirties" in str(r.reason)
    assert math.isinf(float(r.migration_time_s))
    assert bool(vm.precopy(TIB, 2 * rate, 40e9, TIB, release="7.0u1", **kw).converged)


def test_issue25_idle_vm_and_integer_counts(kw):
    idle = vm.migrate(64 * GIB, 12, 25 * GIB, 0.0, "7.0u1", 160e9, n_vmknics=4, **kw)
    assert float(idle.precopy.switchover_bytes) == 0.0 and float(idle.average_loss) >= 0.0
    for bad in ({"n_vmknics": 1.5}, {"concurrent": 2.7}, {"streams_per_vmknic": 1.5}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            vm.precopy(64 * GIB, 1e8, 10e9, **bad, **kw)
    with pytest.raises(ValueError, match="working_set_bytes"):
        vm.precopy(64 * GIB, 1e8, 10e9, 65 * GIB, **kw)
    with pytest.raises(ValueError, match="working_set_bytes"):
        vm.migrate(64 * GIB, 12, 65 * GIB, 4500.0, "7.0u1", 10e9, **kw)
    assert np.isfinite(float(vm.precopy(64 * GIB, 1e8, 1e7, **kw).migration_time_s))  # a 10 Mbit/s branch link


def test_issue25_long_distance_window_is_sized_for_the_bdp(kw):
    """ESXi sizes vMotion socket buffers for the bandwidth-delay product, up to the buffers' ceiling (issue 37: a
    named 16 MiB default, not unbounded): within it a long path keeps the full rate; past it each stream is
    window-bound at ceiling / RTT (before issue 37, 150 ms on 4 x 40 GbE kept the full rate with 1.8 GB windows)."""
    near, metro, far = (vm.precopy(64 * GIB, 1e8, 4e9, 25 * GIB, 12, "7.0u1", rtt_s=r, n_vmknics=4, **kw)
                        for r in (0.0, 0.03, 0.15))
    assert float(metro.transfer_rate_bytes_per_s) == pytest.approx(float(near.transfer_rate_bytes_per_s))
    assert float(metro.migration_time_s) < 1.05 * float(near.migration_time_s)
    ceiling = kw["settings"].max_socket_buffer_bytes
    assert float(far.transfer_rate_bytes_per_s) == pytest.approx(4 * ceiling / 0.15)
    assert float(vm.vmotion_window_bytes(1e9, 0.01)) == pytest.approx(1e9 / 8 * network.TCP_PAYLOAD_FRACTION * 0.01)
    assert float(vm.vmotion_window_bytes(1e9, 0.0)) == vm.settings().socket_buffer_bytes


@pytest.mark.parametrize(("kwargs", "needle"), [
    ({"rtt_s": 0.2}, "rtt_s"),
    ({"link_bps": 1e9, "concurrent": 8}, "per concurrent vMotion"),
    ({"link_bps": 1e9, "concurrent": 5}, "per NIC"),
    ({"link_bps": 100e9, "concurrent": 9}, "per host"),
    ({"vcpus": 300, "release": "6.7"}, "vcpus=300"),
    ({"vcpus": 800}, "vcpus=800"),
    ({"memory_bytes": 8 * TIB, "release": "6.7"}, "TiB"),
    ({"memory_bytes": 2 * GIB}, "extrapolated: memory_bytes"),
    ({"vcpus": 4}, "extrapolated: vcpus"),
])
def test_issue25_documented_limits_are_flagged(kw, kwargs, needle):
    args = {"memory_bytes": 64 * GIB, "dirty_rate_bytes_per_s": 1e8, "link_bps": 40e9, "vcpus": 12,
            "release": "7.0u1", **kwargs}
    r = vm.precopy(**args, **kw)
    assert any(needle in f for f in r.flags), r.flags
    assert all(f.startswith(("unsupported: ", "extrapolated: ")) for f in r.flags)
    assert np.all(np.isfinite(r.migration_time_s))  # flagged, not clamped or refused
    base = vm.precopy(64 * GIB, 1e8, 40e9, vcpus=12, release="7.0u1", **kw)
    assert base.flags == ()
    lim = vm.limits()
    assert (lim.min_bps_per_vmotion, lim.max_rtt_s) == (250e6, 0.15)


# ---------------------------------------------------------------- issue 26: the panel shows flags and reasons


@pytest.mark.parametrize("kw, flag", [
    ({"rtt_ms": 200.0}, "unsupported: rtt_s=0.2 s is above VMware's 150 ms"),
    ({"link_speed_gbps": 1.0, "link_count": 1, "concurrent": 8}, "below VMware's 250 Mbit/s"),
    ({"vcpus": 1000, "release": "7.0u1"}, "unsupported: vcpus=1000 exceeds 7.0u1's 768"),
    ({"vcpus": 300, "release": "6.7"}, "unsupported: vcpus=300 exceeds 6.7's 256"),
])
def test_panel_readout_shows_the_flag_of_an_input_beyond_a_documented_limit(kw, flag):
    from vcperf.views import vmotion as views

    readout, _ = views.migration_whatif_update(**kw)
    assert flag in readout
    assert flag in views.whatif._WhatifPanel.shared().flags.get_text()  # and in amber on the figure
    plain, _ = views.migration_whatif_update()
    assert "unsupported" not in plain and views.whatif._WhatifPanel.shared().flags.get_text() == ""


def test_panel_readout_states_why_no_link_meets_a_target_below_the_checkpoint():
    from vcperf.views import vmotion as views

    readout, _ = views.migration_whatif_update(downtime_target_s=0.5 * vm.calibrate().checkpoint_time_s)
    assert "below the switch-over checkpoint" in readout


def test_panel_readout_names_the_bottleneck_when_no_link_meets_the_target():
    """Above the checkpoint but out of reach: the readout names what blocks it (here 4 streams' CPU ceiling)."""
    from vcperf.views import vmotion as views

    readout, _ = views.migration_whatif_update(downtime_target_s=0.3, link_count=4)
    assert "no link rate brings the stall under" in readout and "ceiling" in readout and "checkpoint" in readout


def test_panel_reads_an_idle_vm_and_states_a_round_cap_reason():
    from vcperf.views import vmotion as views

    readout, png = views.migration_whatif_update(dirty_rate_mb_per_s=0.0)
    assert "converged" in readout and png
    for line in views.whatif._WhatifPanel.shared().lines.values():
        assert np.all(np.isfinite(line.get_data()[1]))


@pytest.mark.parametrize("kw, mechanism, reads_worse", [
    ({"memory_gib": 1.0, "vcpus": 12, "dirty_rate_mb_per_s": 0.0, "working_set_gib": 0.25},
     "weighs more in the average", lambda old, new: new.average_loss > old.average_loss),
    ({"memory_gib": 4.0, "vcpus": 72, "dirty_rate_mb_per_s": 3000.0, "working_set_gib": 4.0},
     "dirties memory faster", lambda old, new: new.switchover_time_s > old.switchover_time_s),
])
def test_panel_names_the_release_order_mechanism_when_70u1_reads_worse(kw, mechanism, reads_worse):
    """(1) an idle 1 GiB VM: 7.0 U1's shorter migration weighs the same stall more in its average loss;
    (2) a small busy VM: 7.0 U1's guest, slowed less by tracing, leaves more at the last boundary."""
    from vcperf.views import vmotion as views

    p, s = vm.calibrate(), vm.settings()
    mem, cpus, ws, tps, link, pkw = views.whatif._whatif_inputs(kw["memory_gib"], kw["vcpus"],
                                                                kw["dirty_rate_mb_per_s"], kw["working_set_gib"], 40.0,
                                                                4, 1, 0.0, 0.0, 1)
    old, new = (vm.migrate(mem, cpus, ws, tps, r, link, params=p, settings=s, **pkw) for r in ("6.7", "7.0u1"))
    assert bool(reads_worse(old, new))
    assert mechanism in views.migration_whatif_update(**kw)[0]
    assert mechanism not in views.migration_whatif_update()[0]


# ---------------------------------------------------------------- issue 25: the figures say what they draw


def test_precopy_grid_figure_legend_keeps_clear_of_the_label_and_lists_only_present_outcomes():
    import matplotlib.pyplot as plt

    from vcperf.views import vmotion as views

    fig = views.precopy_grid_figure(20, 20)
    try:
        a, b = fig.axes[:2]
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        label = next(t for t in a.texts if t.get_text() == "transfer rate")
        assert not label.get_window_extent(renderer).overlaps(a.get_legend().get_window_extent(renderer))
        shown = [t.get_text() for t in b.get_legend().get_texts()]
        assert shown and "needs SDPS" in shown
        for name in ("converges", "needs SDPS", "not even with SDPS"):  # in the legend, or named empty in the title
            assert (name in shown) != (name in b.get_title())
    finally:
        plt.close(fig)


def test_figure8_legend_does_not_cover_the_lines_and_figure11_marks_no_totals_per_minute():
    import matplotlib.pyplot as plt

    from vcperf.views import vmotion as views

    fig = views.series_figure("large_1tb", ("6.7", "7.0u1"), paper_figure8=True)
    try:
        ax = fig.axes[0]
        fig.canvas.draw()
        legend = ax.get_legend().get_window_extent(fig.canvas.get_renderer())
        assert legend.y1 <= ax.get_window_extent().y0  # below the axes, over no line
    finally:
        plt.close(fig)
    fig = views.tpcx_profile_figure()
    try:
        a = fig.axes[0]
        setup = vm.tpcx_setup()
        assert not [ln for ln in a.get_lines() if ln.get_label().startswith("paper")]  # no totals per minute
        assert f"paper {setup.migrations_per_run:.0f}" in a.get_title()
        tops = [p.get_height() for p in a.patches]
        assert max(tops) < a.get_ylim()[1]
    finally:
        plt.close(fig)


# ---------------------------------------------------------------- issue 37: the guest's SDPS throttle is an answer
@_PROP
@given(mem_gib=st.floats(1, 4096), vcpus=st.integers(1, 768), dirty=st.floats(1e6, 5e9),
       release=st.sampled_from(vm.RELEASES))
def test_property_throttle_reported_and_non_decreasing_as_the_link_shrinks(mem_gib, vcpus, dirty, release):
    """Issue 37: the throttle (share of the guest's pace SDPS stuns away, and for how long) is on every
    migration, in [0, 1), 0 where SDPS is off, and never falls as the link shrinks."""
    p, s = vm.calibrate(), vm.settings()
    links = np.geomspace(1e12, 1e7, 40)
    m = vm.migrate(mem_gib * GIB, vcpus, 0.4 * mem_gib * GIB, dirty / p.dirty_bytes_per_transaction, release, links,
                   params=p, settings=s, n_vmknics=4)
    frac, secs = np.asarray(m.sdps_throttle_fraction), np.asarray(m.throttled_s)
    assert frac.shape == links.shape and np.all((frac >= 0) & (frac < 1)) and np.all(secs >= 0)
    assert np.all((frac > 0) == np.asarray(m.precopy.sdps_engaged)) and np.all((secs > 0) <= (frac > 0))
    assert np.all(np.diff(frac) >= -1e-12)
    assert np.all(np.diff(secs) >= -1e-9 * secs[1:])


def test_throttle_of_the_issue_example_is_shown(p, kw):
    """Issue 37: an 8 GiB VM at 20 MB/s over 10 Mbit/s is throttled for hours; the readout says so."""
    from vcperf.views import vmotion as views

    m = vm.migrate(8 * GIB, 12, 8 * GIB, 20e6 / p.dirty_bytes_per_transaction, "7.0u1", 10e6, **kw)
    assert float(m.sdps_throttle_fraction) > 0.9 and float(m.throttled_s) > 3600
    off = vm.migrate(8 * GIB, 12, 8 * GIB, 20e6 / p.dirty_bytes_per_transaction, "7.0u1", 10e6, sdps=False, **kw)
    assert float(off.sdps_throttle_fraction) == 0.0 and float(off.throttled_s) == 0.0
    text, _ = views.migration_whatif_update(memory_gib=64.0, dirty_rate_mb_per_s=1000.0, link_speed_gbps=1.0,
                                            link_count=1)
    assert "stun during page send (SDPS) engaged: it throttles the guest" in text


def test_no_nan_loss_without_sdps(p, kw):
    """Issue 37: with SDPS off and a dirty rate above the link the migration never ends; its average loss is
    the pre-copy's (finite), not NaN."""
    m = vm.migrate(8 * GIB, 12, 8 * GIB, 2e9 / p.dirty_bytes_per_transaction, "7.0u1", 1e9, sdps=False, **kw)
    assert not bool(m.precopy.converged) and np.isinf(float(m.migration_time_s))
    assert 0.0 <= float(m.average_loss) <= 1.0 and float(m.average_loss) == float(m.precopy_loss)


def test_limit_flags_are_structured(p, kw):
    """Issue 37: flags are strings (they print and pass through unchanged) carrying kind, quantity, value, limit,
    unit, relation and the data row of the limit; immutable."""
    m = vm.migrate(64 * GIB, 12, 25 * GIB, 4500.0, "7.0u1", 1e9, concurrent=8, **kw)
    f = next(f for f in m.flags if "per concurrent vMotion" in f)
    assert f.kind == "unsupported" and f.quantity == "link_bps / concurrent" and f.relation == ">="
    assert f.value == pytest.approx(1e9 / 8) and f.limit == vm.limits().min_bps_per_vmotion
    assert f.source.endswith("min_bandwidth_per_vmotion") and f.as_dict()["message"] == str(f)
    with pytest.raises(AttributeError):
        f.limit = 0.0
    import pickle

    g = pickle.loads(pickle.dumps(f))
    assert g == f and g.as_dict() == f.as_dict()


def test_release_order_claims_of_the_migrate_docstring(p, kw):
    """Issue 37: the docstring of migrate states what holds over the grid it names: 7.0 U1's guest never loses
    more work; its migration is at most 5 % longer and its switch-over at most 2x longer (the small, busy,
    many-vCPU VM, whose 7.0 U1 guest is slowed less by tracing), and both reversals do occur."""
    mem = np.geomspace(4 * GIB, 6 * TIB, 9)[:, None, None, None, None]
    cpus = np.array([1, 12, 72, 192, 768])[None, :, None, None, None]
    dirty = np.geomspace(1e6, 8e9, 9)[None, None, :, None, None]
    link = np.geomspace(1e9, 4e11, 7)[None, None, None, :, None]
    ws = mem * np.array([0.01, 0.3, 1.0])[None, None, None, None, :]
    old, new = (vm.migrate(mem, cpus, ws, dirty / p.dirty_bytes_per_transaction, r, link, n_vmknics=4, **kw)
                for r in vm.RELEASES)
    assert np.all(new.average_loss * new.migration_time_s <= old.average_loss * old.migration_time_s * (1 + 1e-9))
    time_ratio = new.migration_time_s / old.migration_time_s
    stall_ratio = new.switchover_time_s / old.switchover_time_s
    assert 1.0 < time_ratio.max() <= 1.05
    assert 1.5 < stall_ratio.max() < 2.0


# ---------------------------------------------------------------- issue 37: streams sharing a NIC contend
def test_streams_sharing_a_nic_contend_as_kb_323379(p, kw):
    """VMware KB 323379 on one 40GbE NIC: 18 Gb/s for one vmknic (the stream ceiling), 28 for two (calibrates
    the contention), 36 for three (predicted: a ledger row, within 10 %); streams on NICs of their own (the
    seed's test bed) do not contend, and more streams on one NIC never move less."""
    s = kw["settings"]
    rates = {}
    for n in (1, 2, 3):
        m = vm.migrate(64 * GIB, 12, 25 * GIB, 4500.0, "7.0u1", 40e9, n_vmknics=n, n_nics=1, **kw)
        rates[n] = float(m.precopy.transfer_rate_bytes_per_s) * 8
    assert rates[1] == pytest.approx(18e9) and rates[2] == pytest.approx(28e9)
    assert rates[3] == pytest.approx(36e9, rel=0.10) and rates[1] < rates[2] < rates[3]
    # the same through streams per vmknic (one vmknic, one NIC)
    two = vm.migrate(64 * GIB, 12, 25 * GIB, 4500.0, "7.0u1", 40e9, n_vmknics=1, streams_per_vmknic=2, **kw)
    assert float(two.precopy.transfer_rate_bytes_per_s) * 8 == pytest.approx(28e9)
    # the test bed: four vmknics on four NICs, no contention (4 x 18 Gb/s)
    tb = vm.migrate(64 * GIB, 12, 25 * GIB, 4500.0, "7.0u1", 160e9, n_vmknics=4, **kw)
    assert float(tb.precopy.transfer_rate_bytes_per_s) * 8 == pytest.approx(72e9)
    assert s.stream_contention == pytest.approx(2 / 7)
    row = {r.key: r for r in vm.fidelity_rows()}["stream_throughput_3_vmknics_1_nic"]
    assert row.kind == "predicted" and row.model_value == pytest.approx(rates[3])
    with pytest.raises(ValueError, match="n_nics"):
        vm.migrate(64 * GIB, 12, 25 * GIB, 4500.0, "7.0u1", 40e9, n_vmknics=1, n_nics=2, **kw)


# ---------------------------------------------------------------- issue 37: a downtime that the inputs decide
@_PROP
@given(mem_gib=st.floats(4, 4096), vcpus=st.integers(1, 384), dirty=st.floats(1e7, 5e9),
       link_gbps=st.floats(1, 400), rtt_ms=st.floats(0, 150), release=st.sampled_from(vm.RELEASES))
def test_property_downtime_varies_with_checkpoint_inputs_dirty_rate_link_and_rtt(mem_gib, vcpus, dirty, link_gbps,
                                                                                  rtt_ms, release):
    """Issue 37: the downtime moves with what the checkpoint holds (vCPUs: each stopped and resumed; the memory it
    maps), with the dirty rate (never shorter when dirtier), the link (never longer when faster) and the RTT (the
    switch-over protocol's 1.5 round trips and the remote-page fetch after resume: exactly that much longer)."""
    p, s = vm.calibrate(), vm.settings()

    def stall(cpus=vcpus, d=dirty, gbps=link_gbps, rtt=rtt_ms):
        return float(vm.migrate(mem_gib * GIB, cpus, 0.3 * mem_gib * GIB, d / p.dirty_bytes_per_transaction, release,
                                gbps * 1e9, rtt_s=rtt / 1e3, n_vmknics=4, params=p, settings=s).switchover_time_s)

    base = stall()
    assert base >= float(vm.switchover_checkpoint_s(vcpus, mem_gib * GIB, params=p))
    # the checkpoint's inputs: more vCPUs to stop and resume (with the dirty rate held, an idle guest)
    idle = {c: float(vm.migrate(mem_gib * GIB, c, 0.3 * mem_gib * GIB, 0.0, release, link_gbps * 1e9,
                                n_vmknics=4, params=p, settings=s).switchover_time_s) for c in (vcpus, vcpus + 64)}
    assert idle[vcpus + 64] > idle[vcpus]
    assert stall(d=2 * dirty) >= base * (1 - 1e-9)
    assert stall(gbps=2 * link_gbps) <= base * (1 + 1e-9)
    # the RTT: the switch-over protocol's 1.5 round trips, and one more for the remote-page fetch after resume
    # (a dirty guest always leaves pages: the vCPU that wrote the last one waits for it)
    m = vm.migrate(mem_gib * GIB, vcpus, 0.3 * mem_gib * GIB, dirty / p.dirty_bytes_per_transaction, release,
                   link_gbps * 1e9, rtt_s=rtt_ms / 1e3, n_vmknics=4, params=p, settings=s)
    assert float(m.precopy.switchover_bytes) > 0
    longer = vm.migrate(mem_gib * GIB, vcpus, 0.3 * mem_gib * GIB, dirty / p.dirty_bytes_per_transaction, release,
                        link_gbps * 1e9, rtt_s=(rtt_ms + 10) / 1e3, n_vmknics=4, params=p, settings=s)
    rates = float(m.precopy.transfer_rate_bytes_per_s), float(longer.precopy.transfer_rate_bytes_per_s)
    if rates[0] == rates[1]:  # the window still covers the path: exactly the round trips
        assert stall(rtt=rtt_ms + 10) - base == pytest.approx(2.5 * 0.010, rel=1e-6, abs=1e-9)
    else:  # window-bound at the socket-buffer ceiling: the pages cross slower too
        assert rates[1] < rates[0] and stall(rtt=rtt_ms + 10) - base > 2.5 * 0.010
    assert float(m.precopy.remote_fetch_s) == pytest.approx(rtt_ms / 1e3 + 4096
                                                            / float(m.precopy.transfer_rate_bytes_per_s))
    # the checkpoint's other input: the memory it maps (an idle guest, nothing left to fetch)
    big = float(vm.migrate(2 * mem_gib * GIB, vcpus, 0.3 * mem_gib * GIB, 0.0, release, link_gbps * 1e9,
                           n_vmknics=4, params=p, settings=s).switchover_time_s)
    assert big > idle[vcpus]
    assert float(vm.switchover_checkpoint_s(vcpus, 2 * mem_gib * GIB, params=p)) > float(
        vm.switchover_checkpoint_s(vcpus, mem_gib * GIB, params=p))


def test_loss_limits_the_streams_through_the_traffic_models_tcp(kw):
    """Issue 37: over a lossy path each stream's TCP is loss-limited (PFTK of vcperf.network): the rate falls
    and the migration lengthens as loss grows; no loss changes nothing."""
    loss = np.array([0.0, 1e-6, 1e-4, 1e-2])
    m = vm.migrate(64 * GIB, 12, 25 * GIB, 4500.0, "7.0u1", 40e9, rtt_s=0.05, loss=loss, n_vmknics=4, **kw)
    rate = np.asarray(m.precopy.transfer_rate_bytes_per_s)
    assert np.all(np.diff(rate) < 0) and np.all(np.diff(m.migration_time_s) > 0)
    lossless = vm.migrate(64 * GIB, 12, 25 * GIB, 4500.0, "7.0u1", 40e9, rtt_s=0.05, n_vmknics=4, **kw)
    assert rate[0] == float(lossless.precopy.transfer_rate_bytes_per_s)
    with pytest.raises(ValueError, match="loss"):
        vm.migrate(64 * GIB, 12, 25 * GIB, 4500.0, "7.0u1", 40e9, loss=1.0, **kw)


# ---------------------------------------------------------------- issue 37: TCP over a long path, socket buffers
@_PROP
@given(link_gbps=st.floats(0.25, 400), rtt_ms=st.floats(0, 300), conc=st.integers(1, 8), nics=st.integers(1, 8))
def test_property_window_bounded_by_the_socket_buffers(link_gbps, rtt_ms, conc, nics):
    """Issue 37: the window follows the bandwidth-delay product between the standard buffer and the largest one
    (a named default, not a window of gigabytes), so a long fast path is window-bound: each stream moves at most
    max buffer / RTT; with no RTT the link decides."""
    s = vm.settings()
    w = float(vm.vmotion_window_bytes(link_gbps * 1e9, rtt_ms / 1e3, conc, s.socket_buffer_bytes,
                                      s.max_socket_buffer_bytes))
    assert s.socket_buffer_bytes <= w <= s.max_socket_buffer_bytes
    m = vm.migrate(64 * GIB, 12, 25 * GIB, 0.0, "7.0u1", link_gbps * 1e9, rtt_s=rtt_ms / 1e3, concurrent=conc,
                   n_vmknics=nics, params=vm.calibrate(), settings=s)
    rate = float(m.precopy.transfer_rate_bytes_per_s)
    assert rate * (rtt_ms / 1e3) <= nics * s.max_socket_buffer_bytes * (1 + 1e-9)
    assert rate <= link_gbps * 1e9 / 8 / conc * (1 + 1e-9)


def test_long_fat_path_is_window_bound_and_the_ceiling_is_a_setting(kw):
    """Issue 37: 100 GbE at the supported 150 ms: the window stops at 16 MiB (not 1.78 GB); one stream then moves
    16 MiB / 150 ms; raising the ceiling (a setting) lifts it; bad ceilings are refused by name."""
    import dataclasses

    s = kw["settings"]
    assert float(vm.vmotion_window_bytes(100e9, 0.150)) == s.max_socket_buffer_bytes == 16 * 2**20
    m = vm.migrate(64 * GIB, 12, 25 * GIB, 4500.0, "7.0u1", 100e9, rtt_s=0.150, **kw)
    assert float(m.precopy.transfer_rate_bytes_per_s) == pytest.approx(16 * 2**20 / 0.150, rel=1e-6)
    wide = dataclasses.replace(s, max_socket_buffer_bytes=math.inf)
    fast = vm.migrate(64 * GIB, 12, 25 * GIB, 4500.0, "7.0u1", 100e9, rtt_s=0.150, params=kw["params"], settings=wide)
    assert float(fast.precopy.transfer_rate_bytes_per_s) > 10 * float(m.precopy.transfer_rate_bytes_per_s)
    with pytest.raises(ValueError, match="max_socket_buffer_bytes"):
        vm.vmotion_window_bytes(1e9, 0.01, max_socket_buffer_bytes=0.0)
    # a ceiling under the standard buffer leaves the standard buffer (never resized down)
    assert float(vm.vmotion_window_bytes(1e9, 0.01, max_socket_buffer_bytes=1e3)) == s.socket_buffer_bytes


# ---------------------------------------------------------------- issue 37: the switch-over's uncertainty
def test_order_of_magnitude_is_a_range_fitted_and_judged_as_one(p):
    """Issue 37: 'by an order of magnitude' is the range [10^0.5, 10^1.5] in data/ (two derived rows): the fit counts
    its miss in half-decades (at either end as a 10 % miss), two bound rows judge the model's gain against the range,
    and the fit that leaves it free (its loo refit) puts the gain inside the range, with a longer checkpoint."""
    from vcperf.vmotion import calibration
    from vcperf.vmotion.calibration import calibrate_free_ranges

    by = {(r.key, r.kind): r for r in vm.fidelity_rows()}
    lo, hi = by[("switchover_improvement_large_low", "bound")], by[("switchover_improvement_large_high", "bound")]
    assert (lo.paper_value, lo.relation, hi.paper_value, hi.relation) == (3.16, ">=", 31.6, "<=")
    gain = by[("switchover_improvement_large", "fitted")].model_value
    assert lo.model_value == hi.model_value == gain and lo.passed and hi.passed
    assert lo.model_low <= gain <= lo.model_high  # judged on the value, with its band shown
    keys = ("switchover_improvement_large",)
    at = {g: calibration._residuals({keys[0]: g}, keys, np.array([10.0]))[0] for g in (3.16, 10 ** 0.75, 31.6, 10.0)}
    assert at[3.16] == pytest.approx(-0.1, rel=1e-3) and at[31.6] == pytest.approx(0.1, rel=1e-3)
    assert at[10 ** 0.75] == pytest.approx(-0.05, rel=1e-3) and at[10.0] == 0.0
    free = calibrate_free_ranges()
    t = {t.key: t for t in vm.targets()}["switchover_improvement_large"]
    assert 3.16 <= t.model(free) <= 31.6 and free.checkpoint_time_s > p.checkpoint_time_s
    assert by[("switchover_improvement_large", "loo")].model_value == pytest.approx(t.model(free), rel=1e-6)


def test_touched_memory_assumption_is_a_range_carried_into_the_bands(p, kw):
    """Issue 37: the freshly booted typical VM's touched memory is an assumption (its SGA); the fit at the other end
    of its range (all its memory) moves the checkpoint; the what-if bands cover the value under both fits."""
    from vcperf.views import vmotion as views
    from vcperf.vmotion.calibration import calibrate_touched
    from vcperf.vmotion.targets import touched_memory, touched_range_bytes

    alt = calibrate_touched()
    lo, hi = touched_range_bytes()
    assert (lo, hi) == (25 * GIB, 64 * GIB)
    assert alt != p and alt.checkpoint_time_s != p.checkpoint_time_s
    t = {t.key: t for t in vm.targets()}["typical_tps_70u1"]
    with touched_memory(hi):
        sent = t.model(p)
    assert sent > t.model(p)  # more to send: a longer migration, over which the same stall weighs less
    with pytest.raises(ValueError, match="touched_bytes"):
        with touched_memory(70 * GIB):
            pass
    ro = views.migration_whatif_readout()
    assert len(ro["assumption_s"]) == 2
    for name in ("migration_time_s", "switchover_time_s"):
        value, low, high = ro[name]
        assert low <= value <= high and all(low <= a[name] <= high for a in ro["assumption_s"].values())
    text, _ = views.migration_whatif_update()
    assert "touched all its memory" in text and "an order of magnitude" in text


def test_throughput_series_shows_the_throttled_rounds(p, kw):
    """Issue 37: the guest's series has round 0 at the tracing slowdown and the re-send rounds at the throttled
    pace; their time-weighted mean is the pre-copy loss; the what-if figure shades the throttled span and says how
    hard and how long, and shows the flags."""
    from vcperf.views import vmotion as views

    m = vm.migrate(8 * GIB, 12, 8 * GIB, 20e6 / p.dirty_bytes_per_transaction, "7.0u1", 10e6, **kw)
    r0, rk = float(m.precopy.round0_time_s), float(m.precopy_time_s) - float(m.precopy.round0_time_s)
    mean = (float(m.round0_loss) * r0 + float(m.resend_loss) * rk) / (r0 + rk)
    assert mean == pytest.approx(float(m.precopy_loss), rel=1e-9)
    assert float(m.resend_loss) > 0.9 > float(m.round0_loss)
    t, tps = vm.throughput_series(m, 60.0, 0.0, float(m.migration_time_s))
    assert tps[1] > 0.5 * float(m.baseline_tps) and tps[-2] < 0.1 * float(m.baseline_tps)
    text, _ = views.migration_whatif_update(memory_gib=2048.0, vcpus=72, dirty_rate_mb_per_s=500.0,
                                            working_set_gib=500.0, link_speed_gbps=1.0, link_count=1, concurrent=8)
    panel = views.whatif._WhatifPanel.shared()
    assert panel.throttle_text.get_text().startswith("SDPS: vCPUs stunned") and panel.throttle.get_width() > 0
    assert "unsupported" in panel.flags.get_text() and "(SDPS) engaged" in text
    views.migration_whatif_update()
    assert panel.throttle_text.get_text() == "" and panel.throttle.get_width() == 0


def test_notebook_parameter_ranges_are_the_widgets_ranges():
    """Issue 37: the notebook's what-if parameters take the ranges its panel's widgets offer (log sliders read in
    their base; the dirty rate's 0 is the idle checkbox; the working set's upper end is the VM's memory)."""
    from pathlib import Path

    import ipywidgets as w

    from vcperf import params as nbparams
    from vcperf.views import vmotion as views

    nb = nbparams.read_parameters(Path(__file__).resolve().parents[1] / "notebooks" / "vmotion_precopy.py")
    panel = views.migration_whatif()
    controls = {c.description: c for c in panel.children if getattr(c, "description", "")}

    def span(c):
        if isinstance(c, w.FloatLogSlider):
            return c.base ** c.min, c.base ** c.max
        return c.min, c.max

    pairs = {"memory GiB": "whatif_memory_gib", "vCPUs": "whatif_vcpus", "vmknics": "whatif_link_count",
             "streams/vmknic": "whatif_streams_per_vmknic", "RTT ms": "whatif_rtt_ms",
             "AES GB/s/core (0 off)": "whatif_encryption_gb_per_core_s", "concurrent": "whatif_concurrent",
             "downtime target s": "whatif_downtime_target_s", "VMs to evacuate": "whatif_evacuate_vms"}
    for desc, name in pairs.items():
        assert span(controls[desc]) == pytest.approx((nb[name].lo, nb[name].hi)), (desc, name)
    assert span(controls["dirty MB/s"])[1] == pytest.approx(nb["whatif_dirty_rate_mb_per_s"].hi)
    assert nb["whatif_dirty_rate_mb_per_s"].lo == 0 and "idle VM (dirty rate 0)" in controls
    assert span(controls["working set GiB"])[0] == pytest.approx(nb["whatif_working_set_gib"].lo)
    assert nb["whatif_working_set_gib"].hi == "whatif_memory_gib"
    assert list(controls["link Gbit/s"].options) == list(nb["whatif_link_speed_gbps"].choices)
    assert [v for _, v in controls["release"].options] == list(nb["whatif_release"].choices)
