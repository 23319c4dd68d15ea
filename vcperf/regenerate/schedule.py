"""The order a regeneration runs its notebooks in: the longest first, so the workers finish together.

With two workers and eleven notebooks of 2-15 s each, the order decides how long one worker sits
idle at the end: started last, the longest notebook alone makes the tail. Each run records the CPU
seconds every notebook took (its kernel included) in ``regenerate-cpu-seconds.json`` in the
calibration cache folder (:func:`vcperf.protocol.cache_dir`); the next run starts the costliest
first (longest processing time first). A notebook never timed counts as the costliest, then by the
size of its source; without a cache folder the sizes alone decide.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from pathlib import Path

try:
    import resource
except ImportError:  # Windows: this process's own CPU time only
    resource = None

from vcperf import protocol
from vcperf.regenerate import forkserver

#: The record of the last CPU seconds of each notebook, in :func:`vcperf.protocol.cache_dir`.
RECORD = "regenerate-cpu-seconds.json"


def _record_path() -> Path | None:
    folder = protocol.cache_dir()
    return None if folder is None else Path(folder) / RECORD


def recorded() -> dict[str, float]:
    """Notebook name -> CPU seconds of its last run (empty when there is no readable record)."""
    path = _record_path()
    try:
        loaded = json.loads(path.read_text(encoding="utf-8")) if path is not None else {}
    except (OSError, ValueError):
        return {}
    if not isinstance(loaded, dict):
        return {}
    return {k: float(v) for k, v in loaded.items() if isinstance(k, str) and isinstance(v, int | float)}


def order(names: list[str], sources: dict[str, Path]) -> list[str]:
    """``names`` in the order to start them: untimed notebooks first (largest source first), then the
    timed ones by their recorded CPU seconds, costliest first; ties keep the given order."""
    seconds = recorded()

    def cost(name):
        if name in seconds:
            return (1, -seconds[name])
        with contextlib.suppress(OSError):
            return (0, -sources[name].stat().st_size)
        return (0, 0)

    return sorted(names, key=cost)


def remember(seconds: dict[str, float]) -> None:
    """Merge ``seconds`` (notebook -> CPU seconds of this run) into the record, written atomically."""
    path = _record_path()
    if path is None or not seconds:
        return
    merged = {**recorded(), **{k: round(float(v), 2) for k, v in seconds.items()}}
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(merged, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        os.replace(tmp, path)


def cpu_seconds() -> float:
    """CPU seconds (user + system) of this process and of its finished kernels (its children, or its
    kernel server's: :data:`vcperf.regenerate.forkserver.REAPED_CPU`)."""
    if resource is None:
        return time.process_time()
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime + forkserver.REAPED_CPU["s"]


def timed(step, *args):
    """``(step(*args), CPU seconds it took)`` in this process and the children it waited for."""
    start = cpu_seconds()
    result = step(*args)
    return result, cpu_seconds() - start
