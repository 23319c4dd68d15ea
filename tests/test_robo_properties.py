"""Property tests of the ROBO mechanisms (``001_36d9adf7ffa34fcf.txt``) over wide physical ranges.

RTT 1 ms - 2 s, bandwidth 64 kb/s - 10 Gb/s, loss 0 - 20 %, 1 - 500 hosts, 0 - 200 VMs: latency is
non-decreasing in RTT and loss and non-increasing in bandwidth, traffic non-decreasing in hosts, VMs
and statistics level, everything finite, utilisation <= 1, and no delay exceeds the time to send
everything queued. Deterministic (``derandomize=True``).
"""

import math

import numpy as np
import pytest
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


# --- one branch link: every flow counted, overload labelled, nothing above capacity (issue 27) ----------

BRANCH = settings(max_examples=30, deadline=None, derandomize=True)
BW_ALL = st.floats(64e3, 10e9)
TRANSFERS = st.lists(st.floats(1e9, 2e12), min_size=0, max_size=10)


@BRANCH
@given(bw=BW_ALL, ratio=st.floats(0.01, 1.0), rtt=st.floats(0.0, 1.0), loss=st.floats(0.0, 0.05),
       hosts=st.integers(1, 200), level=LEVEL, sizes=TRANSFERS, rate=st.floats(0.0, 2.0), op=OPS)
def test_branch_counts_every_flow_labels_overload_and_never_exceeds_its_link(bw, ratio, rtt, loss, hosts, level,
                                                                          sizes, rate, op):
    link = network.Link(bw, rtt, loss, "x", bw * ratio)
    base = robo.plan(link, hosts, level, op)
    load = robo.plan(link, hosts, level, op, transfers_bytes=sizes, operation_rate_per_s=rate)
    # Offered load counts every flow: the operations' bytes and the transfers' bytes appear in it.
    up_b, down_b = robo.operation_traffic_bytes(op)
    assert float(load.offered_load_up) >= float(base.offered_load_up) + rate * 8 * up_b / link.up_bps * (1 - 1e-9)
    window = robo.branch.DEFAULT_TRANSFER_WINDOW_S
    tr = sum(float(robo.wire_bytes(s)) for s in sizes) * 8 / window / link.down_bps
    assert float(load.offered_load_down) == pytest.approx(
        float(base.offered_load_down) + rate * 8 * down_b / link.down_bps + tr, rel=1e-9)
    assert float(load.offered_load) == max(float(load.offered_load_up), float(load.offered_load_down))
    assert float(load.offered_load) >= max(float(x) for x in load.flow_load.values()) * (1 - 1e-12)
    assert str(load.dominant_flow) == max(load.flow_load, key=lambda k: float(load.flow_load[k]))
    # Overload is always labelled, and only an overload makes a time infinite.
    assert bool(load.overloaded) == (float(load.offered_load) >= 1) == (str(load.verdict) == "overloaded")
    for x in (load.operation_latency_s, load.statistics_delay_s, *np.atleast_1d(load.transfers.completion_s)):
        assert np.isfinite(x) or bool(load.overloaded)
        assert float(x) >= 0
    # Nothing the branch pushes exceeds what its link carries.
    assert float(load.carried_up_bps) <= link.up_bps and float(load.carried_down_bps) <= link.down_bps
    if sizes and np.isfinite(load.transfers.completion_s).all():
        moved = sum(sizes) * 8 / float(np.max(load.transfers.completion_s))
        assert moved <= network.payload_rate_bps(link.down_bps) * (1 + 1e-9)
    # Adding a flow never speeds up another.
    assert _le(base.operation_latency_s, load.operation_latency_s)
    assert _le(base.statistics_delay_s, load.statistics_delay_s)
    if sizes:
        one_more = robo.plan(link, hosts, level, op, transfers_bytes=[*sizes, 1e9], operation_rate_per_s=rate)
        assert _le(load.transfers.completion_s, one_more.transfers.completion_s[: len(sizes)])
        assert _le(load.operation_latency_s, one_more.operation_latency_s)


@BRANCH
@given(bw=BW_ALL, ratio=st.floats(0.01, 1.0), rtt=st.floats(0.0, 1.0), loss=st.floats(0.0, 0.05), level=LEVEL,
       vms=st.floats(0.0, 200.0), op=OPS)
def test_branch_delays_are_continuous_in_hosts_below_saturation(bw, ratio, rtt, loss, level, vms, op):
    # From 2 hosts on (1 -> 2 doubles every flow: at 30 % load per host even M/G/1-PS's x / (1 - rho)
    # grows 1.7x), one more host below 90 % load never multiplies a delay by more than 1.5.
    hosts = np.arange(2.0, 201.0)
    load = robo.plan(network.Link(bw, rtt, loss, "x", bw * ratio), hosts, level, op, vms)
    below = np.asarray(load.offered_load)[1:] < 0.9
    for name in ("statistics_delay_s", "operation_latency_s"):
        x = np.broadcast_to(getattr(load, name), hosts.shape)
        assert np.all(x[1:][below] <= 1.5 * x[:-1][below]), name
    # The answer varies where physics says it must: more hosts, more offered load.
    assert float(load.offered_load[-1]) > float(load.offered_load[0])


@settings(max_examples=15, deadline=None, derandomize=True)
@given(bw=st.floats(64e3, 1e8), rtt=st.floats(0.0, 1.0), clients=st.integers(1, 64))
def test_vcbench_clients_never_push_more_operations_than_the_link_carries(bw, rtt, clients):
    """The operations spread over the test bed's host links (one ``tc`` filter per host, seed Appendix A): no
    host link carries more than its rate, its host's own steady traffic included; over one link alone the
    operations get no more than that link leaves."""
    link = network.Link(bw, rtt)
    res = robo.vcbench(link, clients)
    mix = robo.testbed().mix
    up, down = np.mean([robo.operations.operation_traffic_bytes(s, robo.vm_state_bytes()) for s in mix.values()],
                       axis=0)
    per_host = robo.vcbench_host_traffic(link, clients=clients)
    assert per_host.host_to_vc_bps <= bw * (1 + 1e-9) and per_host.vc_to_host_bps <= bw * (1 + 1e-9)
    one = robo.operations.vcbench(link, robo.calibrate().ops, mix, clients, robo.testbed().vcenter_vcpus,
                                  vm_state_bytes_=robo.vm_state_bytes())
    assert one.throughput_per_s * 8 * max(up, down) <= bw * (1 + 1e-9)
    assert res.throughput_per_s >= one.throughput_per_s * (1 - 1e-12)  # 128 links carry at least what one does
