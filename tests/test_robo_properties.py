"""Property tests of the ROBO mechanisms (``001_36d9adf7ffa34fcf.txt``) over wide physical ranges.

RTT 1 ms - 2 s, bandwidth 64 kb/s - 10 Gb/s, loss 0 - 20 %, 1 - 500 hosts, 0 - 200 VMs: latency is
non-decreasing in RTT and loss and non-increasing in bandwidth, traffic non-decreasing in hosts, VMs
and statistics level, everything finite, utilisation <= 1, and no delay exceeds the time to send
everything queued. Deterministic (``derandomize=True``).
"""

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from vcperf import network, robo

SETTINGS = settings(max_examples=40, deadline=None, derandomize=True)
RTT = st.floats(1e-3, 2.0)
BW = st.floats(64e3, 10e9)
LOSS = st.floats(0.0, 0.2)
HOSTS = st.integers(1, 500)
VMS = st.floats(0.0, 200.0)
LEVEL = st.sampled_from(robo.LEVELS)
OPS = st.sampled_from(["clone_vm", "power_on_vm", "group_power_on", "vmotion_vm", "create_vm", "create_folder"])
REL = 1e-9  # floating-point slack of "non-decreasing"


def _pair(strategy):
    return st.tuples(strategy, strategy).map(sorted)


def _le(a, b):
    return np.all(np.asarray(a) <= np.asarray(b) * (1 + REL) + 1e-12)


@SETTINGS
@given(size=st.floats(0.0, 1e8), rtts=_pair(RTT), bws=_pair(BW), losses=_pair(LOSS))
def test_message_time_is_monotone_finite_and_above_serialization(size, rtts, bws, losses):
    t = lambda r, b, p: float(network.message_time_s(size, b, r, p))  # noqa: E731
    base = t(rtts[0], bws[0], losses[0])
    assert math.isfinite(base) and base >= 8 * size / bws[0]
    assert _le(base, t(rtts[1], bws[0], losses[0]))  # non-decreasing in RTT
    assert _le(base, t(rtts[0], bws[0], losses[1]))  # non-decreasing in loss
    assert _le(t(rtts[0], bws[1], losses[0]), base)  # non-increasing in bandwidth


@SETTINGS
@given(rtt=RTT, losses=_pair(LOSS))
def test_retransmission_timeouts_repeat_and_stay_finite(rtt, losses):
    a, b = (float(network.timeout_chain_s(rtt, p)) for p in losses)
    assert math.isfinite(a) and math.isfinite(b) and a <= b * (1 + REL)
    assert a >= rtt + network.DEFAULT_MIN_RTO_S  # at least one full timeout
    # More than "one timeout at most": the expected chain grows with the chance of losing the retry.
    if losses[1] > 0.01:
        assert b > (rtt + network.DEFAULT_MIN_RTO_S) * (1 + losses[1] * 0.99)


@SETTINGS
@given(rtts=_pair(RTT), bws=_pair(BW), losses=_pair(LOSS), op=OPS)
def test_operation_network_time_monotone_in_rtt_loss_bandwidth(rtts, bws, losses, op):
    t = lambda r, b, p: float(robo.operation_network_time_s(op, network.Link(b, r, p)))  # noqa: E731
    base = t(rtts[0], bws[0], losses[0])
    assert math.isfinite(base)
    assert _le(base, t(rtts[1], bws[0], losses[0]))
    assert _le(base, t(rtts[0], bws[0], losses[1]))
    assert _le(t(rtts[0], bws[1], losses[0]), base)


@settings(max_examples=25, deadline=None, derandomize=True)
@given(rtts=_pair(RTT), bws=_pair(BW), losses=_pair(LOSS))
def test_vcbench_latency_monotone_and_utilization_at_most_one(rtts, bws, losses):
    def run(r, b, p):
        res = robo.vcbench(network.Link(b, r, p))
        assert 0 <= res.vcenter_utilization <= 1 and math.isfinite(res.mean_latency_s)
        return res.mean_latency_s

    base = run(rtts[0], bws[0], losses[0])
    assert _le(base, run(rtts[1], bws[0], losses[0]))
    assert _le(base, run(rtts[0], bws[0], losses[1]))
    assert _le(run(rtts[0], bws[1], losses[0]), base)


@SETTINGS
@given(rtts=_pair(RTT), bws=_pair(BW), losses=_pair(LOSS), hosts=_pair(HOSTS), vms=_pair(VMS), level=LEVEL,
       op=OPS, ratio=st.floats(0.05, 1.0))
def test_shared_branch_link_is_monotone_bounded_and_finite(rtts, bws, losses, hosts, vms, level, op, ratio):
    def run(r=rtts[0], b=bws[0], p=losses[0], h=hosts[0], v=vms[0], lvl=level):
        load = robo.plan(network.Link(b, r, p, "x", b * ratio), h, lvl, op, v)
        for f in ("offered_load", "utilization"):
            assert np.all(np.isfinite(getattr(load, f))), f
        # Finite unless the branch is overloaded; an overload is labelled and its delays are inf.
        for f in ("operation_latency_s", "operation_latency_idle_s", "statistics_delay_s", "queued_s"):
            assert np.all(np.isfinite(getattr(load, f)) | load.overloaded), f
        assert bool(load.overloaded) == (str(load.verdict) == "overloaded") == (float(load.offered_load) >= 1)
        assert float(load.utilization) <= 1.0
        # No delay larger than the time to send everything queued.
        assert float(load.operation_latency_s) <= float(load.operation_latency_idle_s + load.queued_s) * (1 + REL)
        assert 1 <= float(load.concurrent_uploads) <= h
        return load

    base = run()
    for other in (run(r=rtts[1]), run(p=losses[1])):  # latency non-decreasing in RTT and loss
        assert _le(base.operation_latency_s, other.operation_latency_s)
        assert _le(base.statistics_delay_s, other.statistics_delay_s)
    wide = run(b=bws[1])  # non-increasing in bandwidth
    assert _le(wide.operation_latency_s, base.operation_latency_s)
    assert _le(wide.statistics_delay_s, base.statistics_delay_s)
    more = run(h=hosts[1])  # more hosts: more traffic, no faster
    assert _le(base.offered_load, more.offered_load)
    assert _le(base.operation_latency_s, more.operation_latency_s)
    assert _le(base.statistics_delay_s, more.statistics_delay_s)
    assert _le(base.offered_load, run(v=vms[1]).offered_load)  # more VMs: more traffic
    if level < 4:
        assert _le(base.offered_load, run(lvl=level + 1).offered_load)  # higher level: more traffic


@SETTINGS
@given(hosts=_pair(HOSTS), vms=_pair(VMS), level=LEVEL, bw=BW, rtt=RTT, loss=LOSS)
def test_statistics_link_load_traffic_monotone_and_delay_bounded(hosts, vms, level, bw, rtt, loss):
    link = network.Link(bw, rtt, loss)
    a = robo.statistics_link_load(hosts[0], link, level, vms[0])
    b = robo.statistics_link_load(hosts[1], link, level, vms[0])
    c = robo.statistics_link_load(hosts[0], link, level, vms[1])
    assert _le(a.busy_fraction, b.busy_fraction) and _le(a.busy_fraction, c.busy_fraction)
    assert _le(a.added_delay_s, b.added_delay_s)
    for load in (a, b, c):
        assert np.isfinite(load.added_delay_s) and load.added_delay_s >= 0
        assert float(load.added_delay_s) <= float(load.concurrent_uploads * load.link_busy_s) * (1 + REL)
    t = robo.statistics_traffic(np.array(robo.LEVELS), vms[0]).host_to_vc_bps
    assert np.all(np.diff(t) >= 0)
    up = [robo.statistics_traffic(level, x).host_to_vc_bps for x in vms]
    assert _le(up[0], up[1])
    assert _le(robo.host_sync_traffic(vms[0]).host_to_vc_bps, robo.host_sync_traffic(vms[1]).host_to_vc_bps)


@settings(max_examples=20, deadline=None, derandomize=True)
@given(vms=_pair(VMS), rtt=RTT, bw=BW, loss=LOSS)
def test_host_operations_scale_with_inventory(vms, rtt, bw, loss):
    link = network.Link(bw, rtt, loss)
    for op in robo.HOST_OPERATIONS:
        a = float(robo.host_operation_time_s(op, link, vms[0], vms[0]))
        b = float(robo.host_operation_time_s(op, link, vms[1], vms[1]))
        assert math.isfinite(a) and 0 < a <= b * (1 + REL), op


@settings(max_examples=12, deadline=None, derandomize=True)
@given(target=st.floats(1.0, 600.0), hosts=st.integers(1, 500), rtt=RTT, loss=LOSS, level=LEVEL,
       quantity=st.sampled_from(["operation_latency", "statistics_delay"]))
def test_required_bandwidth_is_the_smallest_sufficient_link(target, hosts, rtt, loss, level, quantity):
    need = robo.required_bandwidth_bps(target, hosts, rtt, loss, level, quantity)
    field = {"operation_latency": "operation_latency_s", "statistics_delay": "statistics_delay_s"}[quantity]

    def at(bw):
        return float(getattr(robo.plan(network.Link(bw, rtt, loss), hosts, level), field))

    if math.isinf(need):  # not even the top of the search range meets it
        assert at(robo.branch.SEARCH_RANGE_BPS[1]) > target
        return
    assert at(need) <= target * (1 + 1e-9)
    if need > robo.branch.SEARCH_RANGE_BPS[0] * 1.01:
        assert at(need / 1.01) > target
