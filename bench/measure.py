"""Timing with the machine's load recorded, repeated when the machine was busy.

Every headline number of ``make bench`` is taken through :func:`measure`: before each attempt it
waits (a bounded time) for the 1-minute load average to fall to the *busy threshold* (default: the
number of cores), records the load average before and after the attempt and the CPU time other
processes used while it ran (all CPU time in /proc/stat minus that of the bench's own process tree:
its subprocesses, Dask workers, JupyterLab, kernels and Chromium), and repeats the attempt when the
machine was busy: the load above the threshold at its start, or other processes using more than a
quarter of the cores during it (the 1-min load lags by about a minute; this does not). The
kept value is the one of the first quiet attempt, or -- when every attempt was busy -- the attempt
other processes disturbed least, flagged ``busy``. All attempts go into results.json, so a
table is comparable from run to run: a number measured under load says so.
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
#: Others' CPU is observed over at least this long (CPU time comes in clock ticks of 10 ms).
MIN_WINDOW_S = 0.5


def cores() -> int:
    """Cores this process may use."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def load_1m() -> float | None:
    """The 1-minute load average, or None where the platform has none."""
    try:
        return float(os.getloadavg()[0])
    except (AttributeError, OSError):
        return None


def _busy_cpu_s() -> float | None:
    """CPU seconds all processes have spent busy since boot (/proc/stat), or None."""
    try:
        first = Path("/proc/stat").read_text().splitlines()[0].split()
    except (OSError, IndexError):
        return None
    ticks = [int(x) for x in first[1:]]
    idle = ticks[3] + (ticks[4] if len(ticks) > 4 else 0)  # idle + iowait
    return (sum(ticks[:8]) - idle) / CLOCK_TICKS  # user..steal; guest time is already in user


def _own_cpu_s() -> float:
    """CPU seconds of this process, its waited-for children, and its live descendants (Dask workers,
    JupyterLab and its kernels, Chromium) with what they have waited for, from /proc."""
    t = os.times()
    own = t.user + t.system + t.children_user + t.children_system
    parent, cpu = {}, {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue  # the process ended meanwhile
        pid = int(stat.parent.name)
        parent[pid] = int(fields[1])
        cpu[pid] = sum(int(x) for x in fields[11:15]) / CLOCK_TICKS  # utime, stime, cutime, cstime
    me = os.getpid()
    for pid in parent:
        p, seen = parent[pid], 0
        while p not in (0, 1, me) and p in parent and seen < 64:
            p, seen = parent[p], seen + 1
        if p == me and pid != me:
            own += cpu[pid]
    return own


@dataclass
class Attempt:
    """One timed attempt and the machine's state around it."""

    value: float | None  # the measured quantity (seconds or ms, as the caller says); None on error
    load_1m_before: float | None
    load_1m_after: float | None
    others_cores: float | None  # cores' worth of CPU used by processes outside the bench's tree meanwhile
    wall_s: float
    busy: bool
    waited_s: float = 0.0  # how long the attempt waited for the load to fall before it started
    detail: dict = field(default_factory=dict)


@dataclass
class Policy:
    """When the machine counts as busy and how hard to try for a quiet measurement."""

    busy_load: float = field(default_factory=lambda: float(cores()))  # busy: 1-min load above this at the start
    busy_others: float = field(default_factory=lambda: 0.25 * cores())  # or others used more cores than this
    attempts: int = 3  # at most this many attempts per measurement
    wait_s: float = 30.0  # before an attempt, wait up to this long for the load to fall
    poll_s: float = 2.0

    def is_busy(self, load: float | None, others_cores: float | None = None) -> bool:
        """Busy: the 1-min load above ``busy_load``, or other processes using more than ``busy_others`` cores."""
        return ((load is not None and load > self.busy_load)
                or (others_cores is not None and others_cores > self.busy_others))


def wait_for_quiet(policy: Policy, sleep: Callable[[float], None] = time.sleep,
                   read_load: Callable[[], float | None] | None = None) -> float:
    """Sleep (at most ``policy.wait_s``) until the 1-minute load is at most the busy threshold; seconds waited."""
    read_load = read_load or load_1m
    waited = 0.0
    while waited < policy.wait_s and policy.is_busy(read_load()):
        step = min(policy.poll_s, policy.wait_s - waited)
        sleep(step)
        waited += step
    return waited


def measure(name: str, run: Callable[[], tuple[float | None, dict] | float | None], policy: Policy,
            log: Callable[[str], None] = print, unit: str = "s") -> dict:
    """Run ``run`` until one attempt starts on a quiet machine (at most ``policy.attempts``).

    ``run()`` returns the value, or ``(value, detail)`` with a dict kept beside it. Returns
    ``{"value", "busy", "attempts": [...], "kept": index}``: the first quiet attempt, else the one
    that started under the lowest load.
    """
    attempts: list[Attempt] = []
    for i in range(max(1, policy.attempts)):
        waited = wait_for_quiet(policy)
        before, busy0, own0 = load_1m(), _busy_cpu_s(), _own_cpu_s()
        t0 = time.perf_counter()
        try:
            out = run()
        except Exception as err:  # noqa: BLE001 - a broken piece is reported, the bench goes on
            out = (None, {"error": f"{type(err).__name__}: {err}"})
        wall = time.perf_counter() - t0
        if wall < MIN_WINDOW_S:  # too short for clock ticks: watch the others a little longer (we sleep)
            time.sleep(MIN_WINDOW_S - wall)
        window = max(wall, MIN_WINDOW_S)
        busy1, own1 = _busy_cpu_s(), _own_cpu_s()
        value, detail = out if isinstance(out, tuple) else (out, {})
        others = None
        if busy0 is not None and busy1 is not None:
            others = max(0.0, ((busy1 - busy0) - (own1 - own0)) / window)
        a = Attempt(value=value, load_1m_before=before, load_1m_after=load_1m(), others_cores=others,
                    wall_s=wall, busy=policy.is_busy(before, others), waited_s=waited, detail=detail)
        attempts.append(a)
        log(f"  {name}: {_fmt(value, unit)} (attempt {i + 1}, load {_fmt_load(before)} -> {_fmt_load(a.load_1m_after)}"
            + ("" if others is None else f", others {others:.1f} cores")
            + (", busy: repeating" if a.busy and i + 1 < policy.attempts else ", busy" if a.busy else "") + ")")
        if value is None or not a.busy:
            break
    kept = pick(attempts)
    return {"value": attempts[kept].value, "busy": attempts[kept].busy, "kept": kept, "unit": unit,
            "policy": {"busy_load": policy.busy_load, "busy_others": policy.busy_others, "attempts": policy.attempts},
            "attempts": [asdict(a) for a in attempts]}


def pick(attempts: list[Attempt]) -> int:
    """Index of the attempt to keep: the first quiet one with a value, else the one with a value that other
    processes disturbed least (their CPU during it, then the load at its start)."""
    for i, a in enumerate(attempts):
        if a.value is not None and not a.busy:
            return i
    with_value = [i for i, a in enumerate(attempts) if a.value is not None]
    if not with_value:
        return len(attempts) - 1
    def disturbance(i: int) -> tuple[float, float]:
        a = attempts[i]
        return (a.others_cores if a.others_cores is not None else float("inf"),
                a.load_1m_before if a.load_1m_before is not None else float("inf"))

    return min(with_value, key=disturbance)


def median_time(fn: Callable[[], object], repeats: int = 7, min_loop_s: float = 0.02) -> dict:
    """Median seconds per call: ``repeats`` timings of a loop long enough to time reliably (after a warm-up)."""
    fn()  # warm-up
    t0 = time.perf_counter()
    fn()
    once = time.perf_counter() - t0
    number = max(1, int(min_loop_s / max(once, 1e-9)))
    samples = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        samples.append((time.perf_counter() - t0) / number)
    return {"median_s": statistics.median(samples), "min_s": min(samples), "repeats": repeats, "loops": number}


def _fmt(value, unit: str) -> str:
    if value is None:
        return "failed"
    return f"{value:.3g} {unit}" if unit else f"{value:.3g}"


def _fmt_load(load: float | None) -> str:
    return "?" if load is None else f"{load:.2f}"
