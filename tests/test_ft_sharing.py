"""FT VMs on one logging link (issue 38): work-conserving max-min sharing, per-host limits kept."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vcperf import ft

_RATES = st.floats(0.0, 2e9)


@settings(max_examples=80, deadline=None, derandomize=True)
@given(st.floats(1e6, 2e9), st.lists(_RATES, min_size=1, max_size=7), st.floats(0.0, 1.0), st.floats(0.0, 1.0),
       st.sampled_from([1e9, 10e9, 25e9]), st.floats(1e-3, 0.05))
def test_one_vm_never_slows_as_the_others_go_idle(own, others, idle_a, idle_b, link, e):
    """FT-on throughput of one VM (its run fraction: the share of time its vCPUs run) is non-decreasing
    as the other VMs' loads fall toward idle."""
    lo, hi = sorted((idle_a, idle_b))
    busy = ft.share_ft_link([own] + [r * hi for r in others], e, link)
    quieter = ft.share_ft_link([own] + [r * lo for r in others], e, link)
    assert quieter.cycle.run_fraction[0] >= busy.cycle.run_fraction[0] * (1 - 1e-12)
    assert quieter.available_bps[0] >= busy.available_bps[0] * (1 - 1e-12)
    for s in (busy, quieter):
        assert 0.0 <= s.link_utilization <= 1.0 + 1e-9
        assert np.all(s.share_bps <= s.demand_bps * (1 + 1e-12))
        # never below its own share, never above the whole link
        cap = float(ft.ft_link_goodput_bps(link, n_ft_vms=1))
        assert np.all(s.available_bps >= s.share_bps * (1 - 1e-12))
        assert np.all(s.available_bps <= cap * (1 + 1e-12))


def test_water_filling_is_max_min_fair():
    shares = ft.max_min_shares_bps([1.0, 5.0, 8.0], 10.0)
    assert shares.tolist() == [1.0, 4.5, 4.5]
    assert ft.max_min_shares_bps([1.0, 2.0], 10.0).tolist() == [1.0, 2.0]  # every demand met
    assert ft.max_min_shares_bps([3.0, 3.0, 3.0, 3.0], 8.0).tolist() == [2.0] * 4
    with pytest.raises(ValueError, match="demands_bps"):
        ft.max_min_shares_bps([], 1.0)


def test_a_vm_gets_what_the_others_leave():
    """The issue's case: 100 MB/s each. Alone, four and eight such VMs on 10 GbE: the four load the link
    about a third, so each still runs nearly as fast as alone (the fixed share gave 0.91 / 0.73 / 0.58);
    when every VM wants more than L / n, each gets L / n (the fair share)."""
    e = 5e-3
    alone = float(ft.checkpoint_cycle(1e8, e).run_fraction)
    four = ft.share_ft_link([1e8] * 4, e)
    assert float(four.cycle.run_fraction[0]) > 0.85 * alone
    assert float(ft.checkpoint_cycle(1e8, e, n_ft_vms=4).run_fraction) == pytest.approx(
        float(four.cycle.run_fraction[0]), rel=1e-12)
    one_busy = ft.share_ft_link([1e8, 0.0, 0.0, 0.0], e)
    assert float(one_busy.cycle.run_fraction[0]) == pytest.approx(alone, rel=1e-3)
    heavy = ft.share_ft_link([2e9] * 4, e)
    assert heavy.available_bps == pytest.approx(float(ft.ft_link_goodput_bps(10e9, n_ft_vms=4)), rel=1e-12)


def test_per_host_limits_kept_for_a_shared_link():
    s = ft.share_ft_link([1e7] * 5, 5e-3)
    assert any("das.maxftvmsperhost" in f for f in s.flags)
    s = ft.share_ft_link([1e7] * 3, 5e-3, vcpus=[4, 4, 2])
    assert any("das.maxftvcpusperhost" in f for f in s.flags)
    assert ft.share_ft_link([1e7] * 2, 5e-3, vcpus=4).flags == ()


def test_ft_tab_answers_can_this_vm_run_ft_on_this_link():
    """Issue 38: vCPUs, uplink, FT link and FT-VM count move the answer; the stunned share is shown, and
    no headroom is claimed when the VM is stunned half the time; the guest-stack assumption is stated."""
    from vcperf.views.ft import panel

    base, _ = panel.whatif_update(10e9, None, 1e8, 1e7)
    assert "stunned" in base and "headroom" in base and "per vCPU" in base
    assert "receives at most" in base and "FT off" in base and "FT on" in base
    for kw in ({"vcpus": 4}, {"uplink_bps": 1e9}, {"n_ft_vms": 4}):
        assert panel.whatif_update(10e9, None, 1e8, 1e7, **kw)[0] != base
    # the case: receiving 3 Gbit/s, stunned about half the time: no headroom text
    busy, _ = panel.whatif_update(10e9, None, 3e9, 1e8)
    stunned = 1.0 - float(ft.checkpoint_cycle(1e8 + 3 * 3e9 / 8, ft.calibrate().checkpoint_interval_s).run_fraction)
    assert stunned > 0.45
    assert "no headroom" in busy and "busy: headroom" not in busy
    # more FT VMs on the link: the VM never gets faster, and the link's load is all of theirs
    one = panel.whatif_intervals(10e9, None, 1e9, 1e8, vcpus=1, n_ft_vms=1)[0]
    four = panel.whatif_intervals(10e9, None, 1e9, 1e8, vcpus=1, n_ft_vms=4)[0]
    assert four[3] <= one[3] and four[0] <= one[0]
    assert "das.maxftvcpusperhost" in panel.whatif_update(10e9, None, 1e8, 1e7, vcpus=4, n_ft_vms=3)[0]
