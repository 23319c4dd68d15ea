"""Mechanism tests for vcperf.network: bounds, monotonicity, limits, bad input (the ROBO study's
Table 1 presets are tested in tests/test_robo.py)."""

import math

import numpy as np
import pytest

from vcperf import network

RTTS = np.linspace(0.0, 1.0, 41)
LOSSES = np.array([0.0, 1e-5, 1e-4, 5e-4, 1e-3, 1e-2, 0.1])
SIZES = np.array([0.0, 1.0, 1460.0, 14600.0, 1e5, 1e6, 3.5e6, 1e8])


def test_throughput_never_exceeds_link_rate():
    bw = np.array([0.5e6, 10e6, 1e9, 40e9])[:, None, None]
    x = network.tcp_throughput_bps(bw, RTTS[None, :, None], LOSSES[None, None, :])
    assert np.all(x <= bw * (1 + 1e-12))
    assert np.all(x > 0)


def test_lossless_throughput_is_min_of_link_and_window():
    rwnd = 64 * 1024
    x = network.tcp_throughput_bps(1e9, 0.1, 0.0, rwnd_bytes=rwnd)
    assert x == pytest.approx(8 * rwnd / 0.1)
    assert network.tcp_throughput_bps(1e6, 0.0, 0.0) == 1e6


def test_throughput_decreases_with_rtt_and_loss():
    x_rtt = network.tcp_throughput_bps(1e9, RTTS[1:], 1e-3)
    assert np.all(np.diff(x_rtt) < 0)
    x_loss = network.tcp_throughput_bps(1e9, 0.1, LOSSES)
    assert np.all(np.diff(x_loss) <= 0)
    assert np.all(np.diff(x_loss[1:]) < 0)


def test_pftk_approaches_mathis_when_timeouts_are_rare():
    # For small p the PFTK rate tends to MSS/RTT * sqrt(3/(2bp)) (Mathis et al. 1997 with b=2).
    p, rtt, mss = 1e-6, 0.2, 1460.0
    x = network.tcp_throughput_bps(1e12, rtt, p, rwnd_bytes=1e12)
    mathis = 8 * mss / rtt * math.sqrt(3 / (2 * 2 * p))
    assert x == pytest.approx(mathis, rel=0.01)


def test_transfer_time_bounded_below_by_serialization_and_propagation():
    bw, rtt, loss = np.meshgrid([0.5e6, 10e6, 1e9], RTTS, [0.0, 1e-3], indexing="ij")
    for size in SIZES:
        t = network.transfer_time_s(size, bw, rtt, loss)
        assert np.all(t >= size * 8 / bw + rtt / 2 - 1e-12)


def test_transfer_time_monotone_in_size_rtt_loss():
    t_size = network.transfer_time_s(np.linspace(0, 1e7, 500), 10e6, 0.1, 1e-3)
    assert np.all(np.diff(t_size) >= 0)
    for size in SIZES[1:]:
        t_rtt = network.transfer_time_s(size, 10e6, RTTS, 1e-3)
        assert np.all(np.diff(t_rtt) > 0)
        t_loss = network.transfer_time_s(size, 10e6, 0.1, LOSSES)
        assert np.all(np.diff(t_loss) >= 0)


def test_slow_start_rounds_for_small_window():
    # 10 segments fit the initial window: one round, no idle, T = rtt/2 + size/R.
    big = {"rwnd_bytes": 1e12}  # no window bound: the link rate rules
    t = network.transfer_time_s(14600, 1e9, 0.1, **big)
    assert t == pytest.approx(0.05 + 14600 * 8 / 1e9)
    # 30 segments need 2 rounds (10 + 20); the sender idles rtt - 10 segments' serialization once.
    t2 = network.transfer_time_s(30 * 1460, 1e9, 0.1, **big)
    expected = 0.05 + 30 * 1460 * 8 / 1e9 + (0.1 - 10 * 1460 * 8 / 1e9)
    assert t2 == pytest.approx(expected)


def test_large_transfer_tends_to_size_over_rate():
    size, bw = 1e10, 1e9
    t = network.transfer_time_s(size, bw, 0.01)
    assert t == pytest.approx(size * 8 / bw, rel=1e-3)


def test_exchange_without_payload_costs_round_trips():
    assert network.exchange_time_s(7, 0, 0, 1e6, 0.25) == pytest.approx(7 * 0.25)
    t = network.exchange_time_s(np.arange(5), 500, 2000, 1e6, 0.1, 1e-3)
    assert np.allclose(np.diff(t), t[1])


def test_exchange_loss_penalty_is_expected_rto():
    # A one-segment message lost with probability p waits one RTO = RTT + min RTO.
    rto = 0.1 + network.DEFAULT_MIN_RTO_S
    assert network.message_loss_delay_s(100, 0.1, 0.01) == pytest.approx(0.01 * rto)
    assert network.message_loss_delay_s(3 * 1460, 0.1, 0.01) == pytest.approx((1 - 0.99**3) * rto)
    t0 = network.exchange_time_s(1, 100, 100, 1e9, 0.1, 0.0)
    t1 = network.exchange_time_s(1, 100, 100, 1e9, 0.1, 0.01)
    # Loss adds the two expected RTOs and slows serialization (lower PFTK rate): at least the RTOs.
    assert t1 - t0 >= 2 * 0.01 * rto


def test_vectorized_equals_scalar():
    sizes = np.array([1e3, 1e5, 1e7])
    rtts = np.array([0.001, 0.1, 0.5])
    vec = network.transfer_time_s(sizes, 10e6, rtts, 1e-3)
    one = [float(network.transfer_time_s(s, 10e6, r, 1e-3)) for s, r in zip(sizes, rtts, strict=True)]
    assert np.allclose(vec, one)


@pytest.mark.parametrize(
    ("call", "param"),
    [
        (lambda: network.tcp_throughput_bps(-1, 0.1), "bandwidth_bps"),
        (lambda: network.tcp_throughput_bps(1e6, np.nan), "rtt_s"),
        (lambda: network.tcp_throughput_bps(1e6, 0.1, 1.0), "loss"),
        (lambda: network.transfer_time_s(-5, 1e6, 0.1), "size_bytes"),
        (lambda: network.transfer_time_s(5, 1e6, 0.1, initial_window_segments=0), "initial_window_segments"),
        (lambda: network.exchange_time_s(-1, 0, 0, 1e6, 0.1), "round_trips"),
        (lambda: network.Link(0, 0.1), "bandwidth_bps"),
        (lambda: network.Link(1e6, -0.1), "rtt_s"),
        (lambda: network.utilization(-1, 1e6), "offered_bps"),
    ],
)
def test_bad_input_names_parameter_value_and_range(call, param):
    with pytest.raises(ValueError, match=param) as err:
        call()
    assert "got" in str(err.value)


def test_payload_rate_is_the_one_definition_of_payload_on_a_wire():
    from vcperf.network import TCP_PAYLOAD_FRACTION, payload_rate_bps, wire_rate_bps

    rates = np.geomspace(1e6, 1e11, 11)
    assert np.allclose(payload_rate_bps(rates), rates * TCP_PAYLOAD_FRACTION)
    assert np.all(payload_rate_bps(rates) < rates)
    assert np.allclose(wire_rate_bps(payload_rate_bps(rates)), rates)
    assert float(payload_rate_bps(0.0)) == 0.0
    for f, name in ((payload_rate_bps, "line_rate_bps"), (wire_rate_bps, "payload_bps")):
        with pytest.raises(ValueError, match=name):
            f(-1.0)


def test_one_transfer_model_gives_39_gb_over_1_gbit_the_same_time_on_every_path():
    """The same 39 GB over the same 1 Gbit/s link takes the same time through every path that moves it
    over the network, within the path's stated extra stages (issue 27)."""
    from vcperf import contentlib, robo

    size, line = 39e9, 1e9
    t = float(network.bulk_transfer_time_s(size, line, 0.0))
    assert t == pytest.approx(size * 8 / (line * network.TCP_PAYLOAD_FRACTION), rel=1e-6)  # payload on the wire
    assert float(network.shared_transfer_times_s([size], line, 0.0)[0]) == pytest.approx(t, rel=1e-12)
    # A subscribed library's sync: exactly the transfer.
    assert float(contentlib.subscription_sync_time_s(size, network.Link(line, 0.0))) == pytest.approx(t, rel=1e-12)
    # A template copy on a branch link: the transfer, slowed only by the branch's other (steady) flows.
    branch_t = float(robo.plan(network.Link(line, 0.0), 1, transfers_bytes=[size]).transfers.completion_s[0])
    assert t <= branch_t <= t * (1 + 1e-4)
    # NFC host to host: its Ethernet stage is the transfer; NFC is the stated extra stage on top of it.
    st = contentlib.path_stages("host_to_host", network_bps=line)
    assert size / float(st.pipelined["ethernet"]) == pytest.approx(t, rel=1e-9)
    nfc = float(contentlib.deploy_time_s("host_to_host", size, network_bps=line))
    assert nfc >= t and nfc == pytest.approx(size / min(float(r) for r in st.pipelined.values()), rel=1e-9)
    # Streaming: the compressed read over the data network is the transfer of the compressed bytes.
    p = contentlib.calibrate()
    read = float(contentlib.path_stages("streaming", network_bps=line).serial["source_read_compressed"])
    assert size / read == pytest.approx(float(network.bulk_transfer_time_s(size / p.compression_ratio, line, 0.0)),
                                        rel=1e-9)


def test_shared_transfers_each_finish_and_overload_is_infinite():
    t = network.shared_transfer_times_s([1e9, 1e9, 4e9], 1e9, 0.01, 0.0)
    assert t[0] == pytest.approx(t[1]) and t[2] > t[0]
    # Processor sharing keeps the link busy: the last finishes when all the bytes have crossed it.
    assert float(t[2]) == pytest.approx(float(network.bulk_transfer_time_s(6e9, 1e9, 0.01)), rel=1e-3)
    # Adding a transfer never speeds up another.
    more = network.shared_transfer_times_s([1e9, 1e9, 4e9, 1e6], 1e9, 0.01, 0.0)
    assert np.all(more[:3] >= t * (1 - 1e-12))
    assert np.isinf(network.shared_transfer_times_s([1e6], 1e6, 0.1, other_bps=1e6)).all()
    with pytest.raises(ValueError, match="sizes_bytes"):
        network.shared_transfer_times_s([[1e6]], 1e6, 0.1)
