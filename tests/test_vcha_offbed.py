"""VCHA and FT off the test bed (issue 38): physical memory for every input, answers that say where
they stand, background WAL of the inventory, the Passive's storage beside the wake-up."""

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vcperf import vcha
from vcperf.vcha.memory import peak_memory_bytes
from vcperf.vcha.params import MemoryParams

_NODES = st.sampled_from(("baseline", "active", "passive"))


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.floats(0.0, 4096.0), st.floats(0.0, 10000.0), _NODES, st.floats(1.0, 10000.0),
       st.lists(st.floats(0.0, 1e10), min_size=5, max_size=5))
def test_memory_is_non_negative_over_the_whole_input_box(clients, hosts, node, pool, fields):
    """Every process of every node is >= 0 for every input of the box, with the study's parameters and
    with any physical ones (issue 38: the Passive's postgres went negative above a 168-connection pool)."""
    for params in (vcha.calibrate().memory, MemoryParams(*fields)):
        m = peak_memory_bytes(clients, hosts, node, params, pool)
        for part in (m.vpxd, m.postgres, m.vcha, m.total):
            assert np.all(np.asarray(part) >= 0.0), (node, pool, part)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.floats(0.0, 4096.0), st.floats(0.0, 10000.0), st.floats(1.0, 5000.0), st.floats(1.0, 5000.0))
def test_memory_follows_the_pool_each_node_runs(clients, hosts, pool_a, pool_b):
    """The Active's and the baseline's postgres grow with the pool (one backend per connection); the
    Passive runs no pool, its postgres does not move with it."""
    m = vcha.calibrate().memory
    lo, hi = sorted((pool_a, pool_b))
    for node in ("baseline", "active"):
        a, b = (float(peak_memory_bytes(clients, hosts, node, m, p).postgres) for p in (lo, hi))
        assert b - a == pytest.approx((hi - lo) * m.postgres_bytes_per_connection, rel=1e-9, abs=1.0)
    a, b = (float(peak_memory_bytes(clients, hosts, "passive", m, p).postgres) for p in (lo, hi))
    assert a == b == m.postgres_bytes


def test_memory_params_refuse_a_negative_field():
    m = vcha.calibrate().memory
    with pytest.raises(ValueError, match="postgres_bytes_per_connection"):
        dataclasses.replace(m, postgres_bytes_per_connection=-1.0)


def test_issue_38_memory_example_is_physical():
    """The issue's examples: the Passive's postgres at pools of 200 and 400 (was -818 MB and -5,968 MB)."""
    m = vcha.calibrate().memory
    for pool in (200.0, 400.0):
        passive = peak_memory_bytes(64, 2000, "passive", m, pool)
        active = peak_memory_bytes(64, 2000, "active", m, pool)
        assert float(passive.postgres) > 1e9
        assert float(active.postgres) > float(passive.postgres)


# --------------------------------------------------------------------------------------------
# Background WAL from the inventory and the statistics level
# --------------------------------------------------------------------------------------------

from vcperf.vcha import wal as vwal  # noqa: E402


@settings(max_examples=80, deadline=None, derandomize=True)
@given(st.floats(0.0, 10000.0), st.floats(0.0, 200000.0), st.floats(1.0, 1000.0), st.floats(1.0, 10000.0),
       st.sampled_from((1, 2, 3, 4)))
def test_background_wal_increases_with_the_inventory_and_the_level(hosts, vms, more_hosts, more_vms, level):
    """More hosts, more powered-on VMs: more background WAL; a higher statistics level never less, and
    levels 3-4 more than 1-2 whenever VMs are powered on (the seed: higher levels replicate more)."""
    P = vcha.calibrate()
    base = float(vcha.background_wal_bytes_per_s(hosts, vms, P, level))
    assert base >= 0.0
    assert float(vcha.background_wal_bytes_per_s(hosts + more_hosts, vms, P, level)) > base
    assert float(vcha.background_wal_bytes_per_s(hosts, vms + more_vms, P, level)) > base
    by_level = [float(vcha.background_wal_bytes_per_s(hosts, vms + more_vms, P, lv)) for lv in (1, 2, 3, 4)]
    assert all(b >= a for a, b in zip(by_level, by_level[1:], strict=False))
    assert by_level[2] > by_level[1]


def test_background_wal_reproduces_table_11_at_the_test_bed_and_moves_off_it():
    """At the test bed's inventory (level 1) the background is the fitted one (the default of the traffic
    functions); a Small appliance's inventory streams far less, level 4 more (issue 38: 23.4 Mbit/s for
    every inventory and level before)."""
    P, tb = vcha.calibrate(), vcha.testbed()
    assert (vwal.REFERENCE_HOSTS, vwal.REFERENCE_POWERED_ON_VMS) == (tb.hosts, tb.powered_on_vms)
    ref = float(vcha.background_wal_bytes_per_s(tb.hosts, tb.powered_on_vms, P))
    assert float(vcha.replication_traffic_bytes_per_s(0.0, P.wal)) == pytest.approx(ref, rel=1e-12)
    small = vcha.appliance("small")
    assert float(vcha.background_wal_bytes_per_s(small["hosts"], small["powered_on_vms"], P)) < 0.1 * ref
    assert float(vcha.background_wal_bytes_per_s(tb.hosts, tb.powered_on_vms, P, 4)) > ref


# --------------------------------------------------------------------------------------------
# Answers off the test bed: flagged, widened, the pool's provenance on the bottleneck line
# --------------------------------------------------------------------------------------------

from vcperf.vcha import limits as vlimits  # noqa: E402
from vcperf.vcha.extrapolation import off_testbed_spread  # noqa: E402


def test_fitted_point_agrees_with_the_data():
    tb = vcha.testbed()
    assert (vlimits.FIT_VCPUS, vlimits.FIT_HOSTS, vlimits.FIT_POWERED_ON_VMS) == (tb.vcpus, tb.hosts,
                                                                                  tb.powered_on_vms)
    assert vlimits.DEFAULT_DB_CONNECTIONS == tb.db_connections


@pytest.mark.parametrize("change", [{"db_connections": 100.0}, {"vcpus": 16.0},
                                    {"hosts": 96.0, "powered_on_vms": 960.0}])
def test_off_testbed_answers_are_flagged_with_structure_and_a_wider_band(change):
    P, app = vcha.calibrate(), vcha.testbed().appliance()
    on_bed = vcha.run_vcbench(256, True, params=P, **app)
    off = vcha.run_vcbench(256, True, params=P, **{**app, **change})
    assert not [f for f in on_bed.flags if f.kind == "extrapolation"]
    flagged = {f.name: f for f in off.flags if f.kind == "extrapolation"}
    assert set(change) <= set(flagged)
    for name, value in change.items():
        assert flagged[name].value == value and flagged[name].limit == app[name] and flagged[name].source
    assert off_testbed_spread(256, True, params=P, **app) == 0.0
    assert off_testbed_spread(256, True, params=P, **{**app, **change}) > 0.0


def test_whatif_band_widens_off_the_test_bed_and_names_the_pool_source():
    """Issue 38: pool 100 gave +66 % with a tight band and no mark; Small-Large the X-Large's band."""
    from vcperf.views.vcha import overhead

    def rel_width(**kw):
        (x, lo, hi), _, _ = overhead._vcbench_intervals((256, True, 0.005, 1),
                                                         tuple(sorted(overhead.scenario(**kw).items())))
        return (hi - lo) / x

    base = rel_width()
    assert rel_width(db_connections=100) > 1.5 * base
    assert rel_width(appliance="small") > 1.5 * base
    text, _ = overhead.vcbench_whatif_update(db_connections=100)
    assert "extrapolation: db_connections=100" in text
    assert "100 connections: the caller's pool" in text
    text, _ = overhead.vcbench_whatif_update()
    assert "vCenter's documented default maximum (external" in text and "extrapolation" not in text
    text, _ = overhead.vcbench_whatif_update(appliance="small")
    assert "0000000" not in text and "+0 % vs no VCHA" in text


# --------------------------------------------------------------------------------------------
# The Passive's storage and the replication wake-up, group commit
# --------------------------------------------------------------------------------------------

from vcperf.vcha import disk as vdisk  # noqa: E402


@settings(max_examples=25, deadline=None, derandomize=True)
@given(st.floats(1e-5, 2e-2), st.floats(1e-5, 2e-2), st.sampled_from((64, 256)))
def test_storage_knob_moves_the_commit_wait_while_the_wakeup_stays(storage_a, storage_b, clients):
    P, app = vcha.calibrate(), vcha.testbed().appliance()
    fitted = vcha.standby_flush_s(P.vcbench, P.wal.wal_bytes_per_op)
    lo, hi = sorted((storage_a, storage_b))
    a = vcha.run_vcbench(clients, True, params=P, passive_flush_s=lo, **app)
    b = vcha.run_vcbench(clients, True, params=P, passive_flush_s=hi, **app)
    assert float(b.sync_wait_s) >= float(a.sync_wait_s)  # slower storage, longer commit wait
    if hi > 1.01 * lo:
        assert float(b.sync_wait_s) > float(a.sync_wait_s)
    # the wake-up at a load does not depend on the storage: the same for both, and what the fit leaves
    x = float(a.throughput_per_s)
    wake = float(vcha.replication_wakeup_s(x, fitted, P.disk))
    assert 0.0 < wake < fitted
    for s in (lo, hi):
        flush = float(vdisk.passive_commit_flush_s(s, x, fitted, P.disk))
        assert flush - wake == pytest.approx(float(vdisk.cycle_wait_s(s, float(vdisk.wal_flushes_per_s(x, P.disk)))),
                                             rel=1e-9)
    # instant storage: the wake-up remains in every commit (the implied flush was one number before)
    instant = vcha.run_vcbench(clients, True, params=P, passive_flush_s=1e-9, **app)
    exchange = float(vcha.commit_exchange_s(P.wal.wal_bytes_per_op / P.vcbench.sync_commits_per_op, 10e9,
                                            vcha.LAN_RTT_S))
    assert float(instant.sync_wait_s) > P.vcbench.sync_commits_per_op * (exchange + 0.9 * wake)


def test_group_commit_shares_a_flush():
    """Commits that arrive during a flush wait for it and share the next: the mean wait lies between one
    and one and a half cycles, and grows with the arrival rate (a busier walreceiver)."""
    s = 1e-3
    waits = [float(vdisk.cycle_wait_s(s, lam)) for lam in (0.0, 100.0, 1000.0, 1e5)]
    assert waits[0] == pytest.approx(s)
    assert all(b >= a for a, b in zip(waits, waits[1:], strict=False)) and waits[-1] <= 1.5 * s
