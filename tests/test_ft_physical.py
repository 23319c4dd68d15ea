"""FT models: every time, rate, size or count finite and non-negative over wide physical ranges, and the
issue-30 cases (n_ft_vms = inf, a throughput at the float minimum, a demand that overflows) clear errors
naming the caller's argument."""

import dataclasses
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vcperf import ft

E = 0.01  # a checkpoint interval (s) inside the valid range
logu = st.floats(-6, 6).map(lambda x: 10.0 ** x)  # 1e-6 .. 1e6 of the unit
bytes_ = st.floats(0, 13).map(lambda x: 10.0 ** x - 1.0)  # 0 .. 1e13 B
rates = st.floats(0, 11).map(lambda x: 10.0 ** x - 1.0)  # 0 .. 1e11 B/s
links = st.floats(8, 11.3).map(lambda x: 10.0 ** x)  # 100 Mbit/s .. 200 Gbit/s
intervals = st.floats(-4, math.log10(ft.checkpoint.MAX_CHECKPOINT_INTERVAL_S)).map(lambda x: 10.0 ** x)
rtts = st.floats(-6, -1).map(lambda x: 10.0 ** x)
losses = st.floats(0, 0.2)
nvms = st.integers(1, 64)


def _physical(obj, where):
    """Every number of ``obj`` (a float, array or result dataclass) finite and >= 0."""
    if dataclasses.is_dataclass(obj):
        for f in dataclasses.fields(obj):
            if f.name != "flags":
                _physical(getattr(obj, f.name), f"{where}.{f.name}")
        return
    arr = np.asarray(obj, dtype=float)
    assert np.all(np.isfinite(arr)) and np.all(arr >= 0), f"{where} = {obj!r}"


SETTINGS = settings(max_examples=40, deadline=None, derandomize=True, database=None)


@SETTINGS
@given(disk=bytes_, mem=bytes_, dirty=rates, link=links, rtt=rtts, loss=losses, n=nvms,
       storage=st.floats(6, 12).map(lambda x: 10.0 ** x))
def test_turn_on_time_is_finite_nonnegative_and_grows_with_the_memory(disk, mem, dirty, link, rtt, loss, n, storage):
    kw = dict(ft_ack_rtt_s=rtt, ft_link_loss=loss, n_ft_vms=n, storage_bps=storage)
    t = ft.turn_on_time_s(disk, mem, dirty, link, **kw)
    _physical(t, "turn_on_time_s")
    assert float(ft.turn_on_time_s(disk, mem * 2 + 1e6, dirty, link, **kw)) > float(t)


@SETTINGS
@given(dirty=rates, e=intervals, link=links, rtt=rtts, loss=losses, n=nvms, vcpus=st.integers(1, 4),
       wss=st.floats(6, 13).map(lambda x: 10.0 ** x))
def test_checkpoint_cycle_and_its_readouts_are_physical(dirty, e, link, rtt, loss, n, vcpus, wss):
    kw = dict(ft_ack_rtt_s=rtt, ft_link_loss=loss, n_ft_vms=n, vcpus=vcpus, working_set_bytes=wss)
    c = ft.checkpoint_cycle(dirty, e, link, **kw)
    _physical(c, "checkpoint_cycle")
    assert 0 < float(c.run_fraction) <= 1
    _physical(ft.output_commit_delay_s(dirty, e, link, **kw), "output_commit_delay_s")
    _physical(ft.failover_time_s(1.0, e, link, dirty_rate_bytes_per_s=dirty, **kw), "failover_time_s")
    _physical(ft.activity_time_s(10.0, dirty, 100.0, e, link, **kw), "activity_time_s")
    _physical(ft.ft_logging_bandwidth_bps(1e8, dirty, e, link, **kw), "ft_logging_bandwidth_bps")
    _physical(ft.kernel_compile_overhead_fraction(dirty, e, link, **kw), "kernel_compile_overhead_fraction")
    _physical(ft.ft_link_goodput_bps(link, rtt, loss, n), "ft_link_goodput_bps")
    # the stun grows with what is dirtied: more dirty memory never makes the checkpoint cheaper
    assert float(ft.checkpoint_cycle(dirty * 2 + 1e6, e, link, **kw).stun_s) >= float(c.stun_s)


@SETTINGS
@given(n=st.integers(1, 256), z=st.floats(0, 100), cpu=st.floats(-6, 1).map(lambda x: 10.0 ** x),
       ext=st.floats(0, 1), k=st.floats(0, 50), io=st.floats(0, 0.1), m=bytes_.map(lambda b: b / 1e4),
       e=intervals, vcpus=st.integers(1, 4), link=links)
def test_closed_loop_is_physical_and_ft_never_speeds_it_up(n, z, cpu, ext, k, io, m, e, vcpus, link):
    r = ft.closed_loop(n, z, cpu, checkpoint_interval_s=e, vcpus=vcpus, external_delay_s=ext, exchanges_per_op=k,
                       io_demand_s=io, dirty_bytes_per_op=m, ft_link_bps=link)
    _physical(r, "closed_loop")
    assert r.throughput_on_per_s <= r.throughput_off_per_s * (1 + 1e-9)
    assert 0 < r.run_fraction <= 1
    assert r.throughput_off_per_s > 0  # a positive demand and population: work gets done


@SETTINGS
@given(vcpus=st.integers(1, 4), work=st.floats(0, 5).map(lambda x: 10.0 ** x), dirty=bytes_, e=intervals,
       link=links)
def test_kernel_compile_and_tcp_rr_are_physical(vcpus, work, dirty, e, link):
    kc = ft.kernel_compile(vcpus, work, dirty, e, link)
    _physical(kc, "kernel_compile")
    assert float(kc.time_on_s) >= float(kc.time_off_s)
    _physical(ft.tcp_rr(e, ft_link_bps=link), "tcp_rr")


# -- issue 30: clear errors naming the caller's argument --

def test_infinite_ft_vm_count_is_refused_not_nan():
    with pytest.raises(ValueError, match=r"n_ft_vms must be in \[1, inf\); got inf"):
        ft.turn_on_time_s(40e9, 8e9, n_ft_vms=math.inf)
    with pytest.raises(ValueError, match=r"n_ft_vms must be in \[1, inf\); got inf"):
        ft.limit_flags(10e9, 1, math.inf)


def test_a_throughput_near_the_float_minimum_is_solved_not_a_raw_runtime_error():
    """``closed_loop(8, 0.1, 1e300, ...)`` raised ``RuntimeError: Failed to converge`` (Brent's absolute
    tolerance below the smallest float); now the fixed point is solved in units of the FT-off throughput."""
    r = ft.closed_loop(8, 0.1, 1e300, checkpoint_interval_s=E)
    _physical(r, "closed_loop")
    assert r.throughput_off_per_s == pytest.approx(8 / 1e300)  # the vCPU saturates: 1 / demand
    assert r.throughput_on_per_s <= r.throughput_off_per_s


@pytest.mark.parametrize("name", ["cpu_demand_s", "io_demand_s", "external_delay_s", "think_time_s"])
def test_a_demand_that_overflows_the_queue_names_the_argument_given(name):
    kw = {"think_time_s": 0.1, "cpu_demand_s": 0.01, name: 1e308}
    with pytest.raises(ValueError, match=rf"^{name} must be in \[0, [0-9.e+]+\] s with n_clients=8"):
        ft.closed_loop(8, kw.pop("think_time_s"), kw.pop("cpu_demand_s"), checkpoint_interval_s=E, **kw)
    vals = {"cpu_demand_s": 0.01, "external_delay_s": 0.0, "think_time_s": 0.1, "io_demand_s": 0.0, name: 1e308}
    with pytest.raises(ValueError, match=rf"^{name} must be in"):
        ft.workloads.ft_off_throughput_per_s(8, vcpus=1, **vals)


def test_a_dirty_rate_beyond_floats_names_the_callers_inputs_not_demands_s():
    with pytest.raises(ValueError, match="dirty_bytes_per_op=1.7e\\+308") as err:
        ft.closed_loop(8, 0.1, 0.01, checkpoint_interval_s=E, dirty_bytes_per_op=1.7e308)
    assert not str(err.value).startswith("demands_s")


@pytest.mark.parametrize(("args", "what"), [((0.5, 8, 1e-300, 1), "even 1e-300 s of vCPU"),
                                            ((1e-300, 8, 0.1, 1), "even 1e-300 s of vCPU")])
def test_an_unreachable_utilization_names_the_arguments_not_brents_bracket(args, what):
    with pytest.raises(ValueError, match=f"cpu_utilization={args[0]:g} is out of reach.*{what}") as err:
        ft.cpu_for_utilization(*args)
    assert "f(a) and f(b)" not in str(err.value)
