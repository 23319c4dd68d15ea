"""TPCx-HCI failed checks as events of the migration physics (issue 12, ``004_ea13268657e6b3b0.txt``).

A check fails when one VM's migrations in a 12-minute phase raise its mean response time above the 90th
percentile. The expected count must behave like a count of such events: never negative, never above the
2,000 checks, more failures when VMs dirty memory faster, never more when the vMotion link gets faster,
and non-zero on 7.0 U1 at the load the 148 failed 6.7 U3 checks calibrate (the 7.0 U1 numbers stay
predicted: nothing here fits them).
"""

import dataclasses

import numpy as np
import pytest

from vcperf import vmotion as vm
from vcperf.vmotion import tpcx

DIRTY_SCALE = (0.0, 0.25, 0.5, 1.0, 1.5, 2.0, 4.0)
LINKS_BPS = (1e9, 5e9, 10e9, 25e9, 40e9, 100e9)
PEAKS = (0.2, 0.4, 0.55, 0.7, 0.9)


@pytest.fixture(scope="module")
def kw():
    return {"params": vm.calibrate(), "settings": vm.settings()}


@pytest.fixture(scope="module")
def setup():
    return vm.tpcx_setup()


def _checks(release, peak, s, kw):
    e = vm.tpcx_expected(release, peak, s, **kw)
    return e.expected_failed_checks(s.runs), e.expected_invalid_runs(s.runs)


@pytest.mark.parametrize("release", vm.RELEASES)
@pytest.mark.parametrize("peak", PEAKS)
def test_count_is_monotone_in_the_dirty_rate_and_bounded(kw, setup, release, peak):
    counts, invalid = np.array([_checks(release, peak, dataclasses.replace(
        setup, tps_per_busy_vcpu=setup.tps_per_busy_vcpu * m), kw) for m in DIRTY_SCALE]).T
    total = setup.checks_per_vm_phase.sum() * setup.phases * setup.runs
    assert np.all(counts >= 0) and np.all(counts <= total)
    assert np.all(invalid >= 0) and np.all(invalid <= setup.runs)
    assert np.all(np.diff(counts) >= -1e-9 * counts[1:]), counts
    assert np.all(np.diff(invalid) >= -1e-9 * invalid[1:]), invalid


@pytest.mark.parametrize("release", vm.RELEASES)
@pytest.mark.parametrize("peak", PEAKS)
def test_count_never_grows_with_the_link_rate(kw, setup, release, peak):
    counts, invalid = np.array([_checks(release, peak, dataclasses.replace(setup, link_bps=b), kw)
                                for b in LINKS_BPS]).T
    assert np.all(counts >= 0) and np.all(invalid >= 0)
    assert np.all(np.diff(counts) <= 1e-9 * counts[:-1]), counts
    assert np.all(np.diff(invalid) <= 1e-9 * invalid[:-1]), invalid


def test_seventy_fails_for_a_reason_at_the_calibrated_load(kw, setup):
    peak = kw["params"].tpcx.peak_vm_utilization
    f70, i70 = _checks("7.0u1", peak, setup, kw)
    f67, i67 = _checks("6.7", peak, setup, kw)
    # non-zero, smooth, and fewer than 6.7 (the paper: 4 vs 148 checks, 2 vs 14 runs)
    assert 0 < f70 < f67 and 0 < i70 < i67
    lo, hi = _checks("7.0u1", peak * 0.99, setup, kw)[0], _checks("7.0u1", peak * 1.01, setup, kw)[0]
    assert lo < f70 < hi and hi - lo < f70  # a 1 % change of the peak load moves it by less than itself
    # the reason: idle VMs (no dirtying) never fail on 7.0 U1 -- the stall alone stays within the 1-s goal
    idle = dataclasses.replace(setup, tps_per_busy_vcpu=0.0)
    assert _checks("7.0u1", peak, idle, kw)[0] == 0.0


def test_resend_rounds_are_their_own_phase(kw, setup):
    """The SDPS-throttled re-send rounds are not averaged with round 0 (which would hide their backlog)."""
    s, p, st = setup, kw["params"], kw["settings"]
    u = 0.52
    t1, c1, t2, c2, t3, c3, stall, t4, c4 = tpcx._vm_phases(s, "7.0u1", p, st, u)
    big = int(np.argmax(s.vcpus))
    assert t3[big] > 0 and c3[big] < u < c2[big]  # throttled below the load only while re-sending
    averaged = (c2[big] * t2[big] + c3[big] * t3[big]) / (t2[big] + t3[big])
    split = tpcx._delay_area(t1, c1, t2, c2, t3, c3, stall, t4, c4, u)[big]
    merged = tpcx._delay_area(t1, c1, t2 + t3, averaged, 0.0 * t3, 1.0, stall, t4, c4, u)[big]
    assert averaged > u and split > 10 * merged
    # the longest delay is the backlog released at switch-over: seconds, as the paper says of 6.7
    assert vm.tpcx_longest_delay_s("6.7", kw["params"].tpcx.peak_vm_utilization, s, **kw) > 1.0


# The count is a smooth function of the inputs: SDPS is a continuous min() (the guest's work is capped at
# the pace that dirties sdps_fraction x B), not a switch, so a 1 % change of the peak load or of the link
# rate moves the expected count by a few percent of itself (measured: at most 2.5 % for the load, 2.9 %
# for the link; near the onset, where the count leaves 0 with a kink, 2.4 checks per 1 %), never by a jump.
# X below: 6 % of the count plus 5 checks (of 36,000 over 18 runs).
JUMP_SHARE, JUMP_CHECKS = 0.06, 5.0
STEP_PEAKS = tuple(0.12 * 1.07 ** np.arange(30))  # 0.12 .. 0.85
STEP_LINKS_BPS = tuple(1e9 * 1.2 ** np.arange(26))  # 1 .. 95 Gb/s


@pytest.mark.parametrize("release", vm.RELEASES)
def test_count_moves_continuously_with_the_peak_load(kw, setup, release):
    for peak in STEP_PEAKS:
        a, b = (_checks(release, x, setup, kw)[0] for x in (peak, peak * 1.01))
        assert b >= a - 1e-9 * b, (peak, a, b)  # more load, never fewer failed checks
        assert b - a <= JUMP_SHARE * b + JUMP_CHECKS, (peak, a, b)
        half = _checks(release, peak * 1.005, setup, kw)[0]
        assert a - 1e-9 <= half <= b + 1e-9 and (b - a < 1.0 or max(half - a, b - half) < 0.8 * (b - a)), \
            (peak, a, half, b)  # no step hidden between the two points


@pytest.mark.parametrize("release", vm.RELEASES)
def test_count_moves_continuously_with_the_link_rate(kw, setup, release):
    peak = kw["params"].tpcx.peak_vm_utilization
    for link in STEP_LINKS_BPS:
        a, b = (_checks(release, peak, dataclasses.replace(setup, link_bps=x), kw)[0] for x in (link, link * 1.01))
        assert a - b <= JUMP_SHARE * a + JUMP_CHECKS, (link, a, b)


def test_sdps_caps_the_work_not_the_pace(kw, setup):
    """During the re-send rounds a VM can do at most the work that dirties sdps_fraction x B (absolute capacity).

    Its capacity is then the same at every load (a busier VM is not allowed more work), and a VM whose
    load stays below it builds no backlog.
    """
    s, p, st = setup, kw["params"], kw["settings"]
    big = int(np.argmax(s.vcpus))
    caps = [tpcx._vm_phases(s, "7.0u1", p, st, u)[5][big] for u in (0.5, 0.7, 0.9)]
    assert max(caps) - min(caps) < 1e-9 * max(caps) and caps[0] < 0.5
    rate = vm.precopy(s.memory_bytes[big], 1.0, s.link_bps, params=p, settings=st).transfer_rate_bytes_per_s
    full = s.vcpus[big] * s.tps_per_busy_vcpu * p.dirty_bytes_per_transaction  # dirty rate at full load
    assert caps[0] == pytest.approx(memory_sdps_fraction() * float(rate) / full, rel=1e-9)
    low = 0.5 * caps[0]
    t1, c1, t2, c2, t3, c3, stall, t4, c4 = tpcx._vm_phases(s, "7.0u1", p, st, low)
    assert c3[big] > low  # below the cap: SDPS slows nothing that the load needs


def memory_sdps_fraction():
    from vcperf.vmotion.memory import DEFAULT_SDPS_FRACTION

    return DEFAULT_SDPS_FRACTION
