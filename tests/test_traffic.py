"""The one traffic model (issue 36): flow kinds, sharing, backlogs, standing queues and flags, and the site
planner's verdicts built on it."""

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vcperf import contentlib, network, queueing, robo, site, traffic
from vcperf.views import site as views

WAN = network.Link(10e6, 0.08, 0.001, "wan")


def _plan(**parts):
    base = {"name": "t", "links": [{"name": "wan", "bandwidth": "10 Mbit/s", "rtt": "80 ms", "loss": "0.1 %"}]}
    return site.from_dict({**base, **parts})


# -- the model itself -------------------------------------------------------------------------------------------------

def test_paced_shortfall_is_a_backlog_elastic_and_closed_loop_slow_instead():
    flows = [traffic.Flow("p", "w", "l", "up", 8e6, "paced"), traffic.Flow("e", "w", "l", "up", math.inf, "elastic"),
             traffic.Flow("c", "w", "l", "up", 6e6, "closed_loop")]
    d = traffic.direction_load("l", "up", 10e6, flows)
    by = {s.flow.name: s for s in d.flows}
    assert sum(s.allocated_bps for s in d.flows) == pytest.approx(10e6)
    assert by["p"].backlog_bps == pytest.approx(8e6 - by["p"].allocated_bps) and by["p"].backlog_bps > 0
    assert by["e"].backlog_bps == 0 and by["c"].backlog_bps == 0
    assert d.steady_load == pytest.approx(0.8)  # only the paced flow: a closed loop slows to what it gets


def test_standing_queue_only_on_a_fifo_an_elastic_flow_fills():
    bulk = traffic.Flow("e", "w", "l", "down", math.inf, "elastic")
    capped = traffic.Flow("e", "w", "l", "down", 2e6, "elastic")  # held by its own window/loss: no queue
    assert traffic.direction_load("l", "down", 10e6, [bulk], rtt_s=0.08).queue_delay_s == pytest.approx(0.08)
    assert traffic.direction_load("l", "down", 10e6, [bulk], rtt_s=0.08, queue="fair").queue_delay_s == 0.0
    assert traffic.direction_load("l", "down", 10e6, [capped], rtt_s=0.08).queue_delay_s == 0.0
    big = traffic.direction_load("l", "down", 10e6, [bulk], rtt_s=0.08, buffer_bytes=1e6)
    assert big.queue_delay_s == pytest.approx(0.8)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(rho=st.floats(0.0, 0.999), x=st.floats(1e-6, 1e6))
def test_ps_delay_grows_smoothly_to_saturation(rho, x):
    t = float(queueing.ps_response_time_s(x, rho))
    assert math.isfinite(t) and t >= x * (1 - 1e-12)
    assert float(queueing.ps_response_time_s(x, min(rho + 1e-4, 0.9999))) >= t
    assert math.isinf(float(queueing.ps_response_time_s(x, 1.0)))


def test_study_flags_keep_their_text_and_get_a_kind():
    text = ("unsupported: 9 Mbit/s per concurrent vMotion", "extrapolated: vcpus", "fallback: x", "odd: y")
    flags = traffic.as_flags(text, "s")
    assert [f.message for f in flags] == list(text)
    assert [f.kind for f in flags] == ["limit", "extrapolation", "fallback", "limit"]  # never demoted


# -- one transfer, one time --------------------------------------------------------------------------------------------

def test_the_same_transfer_takes_one_time_through_robo_contentlib_and_a_plan():
    size = 40e9
    ref = float(traffic.elastic_time_s(size, WAN.bandwidth_bps, WAN.rtt_s, WAN.loss))
    assert ref / 3600 == pytest.approx(22.4, abs=0.05)  # issue 36's figure for 40 GB, 10 Mbit/s, 80 ms, 0.1 %
    branch = robo.plan(WAN, 1, transfers_bytes=[size])  # one host's steady flows share the downlink
    assert float(branch.transfers.completion_s[0]) == pytest.approx(ref, rel=0.01)
    h2h = float(contentlib.deploy_time_s("host_to_host", size, link=WAN))
    assert h2h == pytest.approx(ref, rel=1e-9)
    e = site.evaluate(_plan(deployments=[{"name": "t", "link": "wan", "size": size, "path": "host_to_host"}]),
                      intervals=False)
    assert e.answer("t", "deployment_time_s").value == pytest.approx(ref, rel=1e-9)
    # streaming names its difference: the same WAN hop, plus reading and decompressing each chunk first
    st_ = contentlib.path_stages("streaming", link=WAN)
    assert any("vCenter to host" in n for n in st_.notes) and set(st_.serial) >= {"decompression"}
    assert float(contentlib.deploy_time_s("streaming", size, link=WAN)) >= ref
    # a path that moves no byte over a network says the WAN does not enter it
    assert any("moves no byte" in n for n in contentlib.path_stages("vaai", link=WAN).notes)


def test_recommend_path_takes_the_wan_and_names_its_hop():
    lan = contentlib.recommend_path("different_hosts", 39e9)
    wan = contentlib.recommend_path("different_hosts", 39e9, link=WAN)
    assert lan.wan_hop == "" and wan.path == "host_to_host" and "host to host" in wan.wan_hop
    assert wan.time_s > 10 * lan.time_s
    assert contentlib.recommend_path("nfs_on_vcenter", 39e9, link=WAN).wan_hop.startswith("vCenter to host")


def test_a_flow_that_gets_all_it_asks_is_not_slowed_by_another_leaving_capacity_idle():
    dep = [{"name": "t", "link": "wan", "size": "40 GB", "path": "host_to_host"}]
    alone = site.evaluate(_plan(deployments=dep), intervals=False)
    ft = [{"name": "f", "link": "wan", "receive_rate": "1 Mbit/s", "dirty_rate": "0 B/s", "direction": "up"},
          {"name": "g", "link": "wan", "receive_rate": "0.5 Mbit/s", "dirty_rate": "10 kB/s"}]
    both = site.evaluate(_plan(deployments=dep, ft=ft), intervals=False)
    shares = {s.flow.name: s for d in both.loads for s in d.flows}
    assert shares["deployment t #1"].allocated_bps == pytest.approx(shares["deployment t #1"].flow.demand_bps)
    assert both.answer("t", "deployment_time_s").value == pytest.approx(alone.answer("t", "deployment_time_s").value,
                                                                        rel=1e-12)


# -- limits reach the verdict ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("rate, concurrency", [("100 Mbit/s", 1), ("1 Gbit/s", 8), ("10 Mbit/s", 2)])
def test_a_vmotion_below_250_mbit_per_concurrent_migration_is_never_a_plain_pass(rate, concurrency):
    p = site.from_dict({"links": [{"name": "l", "bandwidth": rate, "rtt": "1 ms"}],
                        "migrations": [{"name": "m", "link": "l", "memory": "4 GiB", "vcpus": 2, "count": concurrency,
                                        "concurrency": concurrency}],
                        "targets": {"migration_time_s": 1e6, "downtime_s": 100}})
    e = site.evaluate(p, intervals=False)
    for a in (a for a in e.answers if a.ok is not None):
        assert a.ok and a.status == "met beyond a limit"
        assert any("250 Mbit/s" in f.message and f.kind == "limit" for f in a.flags)
    assert e.verdict.startswith("every target met, beyond a VMware documented limit")
    md = views.render(e, "md")
    assert "✅" not in md.split("## Flags")[0] and "⚠️" in md
    doc = json.loads(views.render(e, "json"))
    assert {a["status"] for a in doc["answers"] if a["target"] is not None} == {"met beyond a limit"}
    throttle = e.answer("m", "vmotion_throttle")  # SDPS stuns a guest whose dirtying outruns the link
    assert throttle.ok is None and 0 <= throttle.value <= 1
    assert any(f["kind"] == "limit" and "250 Mbit/s" in f["message"] for f in doc["flags"])


def test_a_plan_without_targets_says_so():
    e = site.evaluate(_plan(branches=[{"name": "b", "link": "wan", "hosts": 5}]), intervals=False)
    assert e.verdict.startswith("no target set") and "no target set" in views.render(e, "md")


def test_loss_must_carry_its_unit():
    with pytest.raises(ValueError, match=r"links\[0\]\.loss must carry its unit.*'1 %'"):
        site.from_dict({"links": [{"name": "w", "bandwidth": "1 Mbit/s", "loss": 0.01}]})
    assert site.from_dict({"links": [{"name": "w", "bandwidth": "1 Mbit/s", "loss": "1 %"}]}).links[0].loss == 0.01


# -- VCHA: a closed loop, with its fallback ----------------------------------------------------------------------------

def test_vcha_on_a_link_that_cannot_carry_its_wal_falls_back_instead_of_stopping():
    p = _plan(vcenter={"vcha": {"link": "wan"}}, targets={"vcha_throughput_loss": 0.15})
    e = site.evaluate(p, intervals=False)
    a = e.answer("vCenter HA", "vcha_throughput_loss")
    assert 0 <= a.value < 1 and math.isfinite(e.answer("vCenter HA", "vcha_latency_s").value)
    assert a.status == "met beyond a limit" and any(f.kind == "fallback" and "RPO > 0" in f.message for f in a.flags)
    r = site.smallest_bandwidth(p, "wan")  # a fallback is not an answer: the reverse question says why
    assert not math.isfinite(r.value) and "loss-limited rate" in r.note


# -- the standing queue of a FIFO link ---------------------------------------------------------------------------------

def test_a_bulk_flow_on_a_fifo_link_adds_its_standing_queue_to_an_operations_round_trips():
    br = [{"name": "b", "link": "wan", "hosts": 10}]
    dep = [{"name": "t", "link": "wan", "size": "2 TB"}]
    links = lambda q: [{"name": "wan", "bandwidth": "10 Mbit/s", "rtt": "80 ms", "queue": q}]  # noqa: E731
    alone = site.evaluate(_plan(links=links("fifo"), branches=br), intervals=False).answer("b", "operation_latency_s")
    alone = alone.value
    fifo = site.evaluate(_plan(links=links("fifo"), branches=br, deployments=dep), intervals=False)
    fair = site.evaluate(_plan(links=links("fair"), branches=br, deployments=dep), intervals=False)
    q_fifo = sum(d.queue_delay_s for d in fifo.loads)
    assert q_fifo == pytest.approx(0.08) and sum(d.queue_delay_s for d in fair.loads) == 0.0
    lat_fifo = fifo.answer("b", "operation_latency_s").value
    lat_fair = fair.answer("b", "operation_latency_s").value
    assert lat_fair >= alone * (1 - 1e-9)
    ref = robo.plan(network.Link(10e6, 0.08 + q_fifo, 0.0), 10)  # the same round trips, each one queue longer
    assert lat_fifo > lat_fair * 1.2 and lat_fifo >= float(ref.operation_latency_idle_s) * (1 - 1e-9)
    assert any(f.kind == "queue" for f in fifo.answer("b", "operation_latency_s").flags)


# -- continuity up to saturation, traffic within its link ---------------------------------------------------------

@pytest.mark.parametrize("knob", ["hosts", "vms", "rate"])
def test_branch_delays_are_continuous_up_to_saturation(knob):
    grid = np.linspace(1, 200, 4000)
    kw = {"hosts": dict(n_hosts=grid), "vms": dict(n_hosts=40, powered_on_vms=grid)}.get(knob)
    if kw is None:  # the operation rate is a scalar argument: one call per value
        loads = [robo.plan("t1", 20, 4, operation_rate_per_s=float(x)) for x in np.linspace(0, 6, 600)]
        lat = np.array([float(b.operation_latency_s) for b in loads])
        off = np.array([float(b.offered_load) for b in loads])
        stats = np.array([float(b.statistics_delay_s) for b in loads])
    else:
        b = robo.plan("t1", level=4, **kw)
        lat, off, stats = (np.asarray(x, float) for x in (b.operation_latency_s, b.offered_load, b.statistics_delay_s))
    finite = np.isfinite(lat)
    assert finite.any() and (~finite).any(), "the sweep must reach saturation"
    assert np.all(finite == (off < 1.0)) and np.all(np.isfinite(stats) == finite)
    last = np.flatnonzero(finite)[-1]
    # no step from a finite value to infinity: the last finite delays before saturation are already huge
    assert lat[last] > 20 * lat[0] and stats[last] > 20 * stats[0]
    # and each step of the fine grid changes the delay by a bounded factor where the load is below 0.98
    calm = np.flatnonzero(finite[:-1] & finite[1:] & (off[1:] < 0.98))
    assert np.all(lat[calm + 1] / lat[calm] < 1.1) and np.all(stats[calm + 1] / stats[calm] < 1.1)


@pytest.mark.parametrize("hosts", [1, 8, 128])
def test_vcbench_traffic_never_exceeds_its_host_link(hosts):
    """Operations share each host link with its host sync and statistics (one ``tc`` filter per host, seed
    Appendix A): a host link's traffic stays within its rate down to 8 kbit/s, and the test bed's 128 links
    do not hold VCbench to one link's capacity."""
    for bw in np.geomspace(8e3, 1e9, 25):
        lk = network.Link(float(bw), 0.1, 0.0)
        t = robo.vcbench_host_traffic(lk, n_hosts=hosts)
        assert t.host_to_vc_bps <= bw * (1 + 1e-9) and t.vc_to_host_bps <= bw * (1 + 1e-9)
    slow = network.Link(64e3, 0.1, 0.0)
    one, many = robo.vcbench_host_traffic(slow, n_hosts=1), robo.vcbench_host_traffic(slow, n_hosts=128)
    assert one.host_to_vc_bps == pytest.approx(64e3, rel=1e-9)  # one link: the operations fill what is left
    assert many.host_to_vc_bps < 0.5 * 64e3  # 128 links: each carries 1/128 of the operations


def test_add_host_traffic_never_exceeds_its_host_link():
    """Adding a host: its inventory sync shares the uplink with the host's own steady traffic, so the host's
    traffic stays within the link down to 8 kbit/s (issue 36: 1.38x at 8 kbit/s before)."""
    for bw in np.geomspace(8e3, 1e9, 25):
        t = robo.add_host_traffic_bps(network.Link(float(bw), 0.1, 0.0))
        assert 0 < t <= bw * (1 + 1e-9)
    assert robo.add_host_traffic_bps(network.Link(8e3, 0.1, 0.0)) > 0.9 * 8e3  # the sync fills what is left


def test_the_plan_refuses_an_ft_vm_its_model_refuses_naming_the_field():
    """The plan loader checks what the FT model checks (SMP-FT's vCPU limit of the FT study's release): an error
    with the field's path before any evaluation, never one from inside the model."""
    from vcperf import ft

    most = ft.FT_MAX_VCPUS[ft.DEFAULT_RELEASE]
    base = {"links": [{"name": "w", "bandwidth": "10 Gbit/s", "rtt": "1 ms"}]}
    with pytest.raises(ValueError, match=rf"ft\[0\]\.vcpus must be in \[1, {most}\]"):
        site.from_dict({**base, "ft": [{"name": "f", "link": "w", "vcpus": most + 1}]})
    e = site.evaluate(site.from_dict({**base, "ft": [{"name": "f", "link": "w", "vcpus": most}]}), intervals=False)
    assert all(math.isfinite(a.value) for a in e.answers)
