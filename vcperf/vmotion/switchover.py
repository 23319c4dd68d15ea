"""Switch-over metadata: 6.7's full bitmaps vs 7.0 U1's compacted page list (``004_ea13268657e6b3b0.txt``).

"vMotion Switch-Over Optimizations", Figures 3 and 4.
"""

from __future__ import annotations

import numpy as np

from vcperf import _validate as v
from vcperf.vmotion.core import (
    BITMAPS_AT_SWITCHOVER,
    PAGE_BYTES,
    PAGE_NUMBER_BYTES,
    PAGES_PER_2MB,
    PTES_PER_TABLE,
    Settings,
    check_le,
    check_params,
    check_release,
    check_settings,
)
from vcperf.vmotion.params import Params
from vcperf.vmotion.trace import checked_stop_phase_stall_s

#: One-way network trips of the switch-over protocol on the guest's critical path (a modelling choice,
#: not a paper number): the checkpoint with the last pages and the metadata to the destination; the
#: destination's "restored" back to the source; the source's hand-over of the VM (its disk locks
#: released) to the destination, which then resumes the guest. 1.5 RTT in all.
SWITCHOVER_ONE_WAY_TRIPS = 3


def switchover_checkpoint_s(vcpus, memory_bytes, *, params: Params):
    """Checkpoint part of the switch-over stall (s): what the checkpoint holds, saved, sent and restored.

    ``checkpoint_time_s + vcpus x vcpu_stop_cost_s + memory_bytes / 2 MB x metadata_cost_s_per_entry``:

    - the virtual device state's checkpoint, transfer and restore (fitted, ``checkpoint_time_s``);
    - the rendezvous that stops every vCPU at the source and starts it at the destination, which
      costs what it costs in a 6.7 stop-based phase (the same fitted per-vCPU cost);
    - the VM's memory: the restore (the destination's power-on of the VM) maps the guest's memory
      before it resumes, one mapping entry per 2 MB large page, each at the destination's per-entry
      cost of the switch-over metadata (the same fitted ``metadata_cost_s_per_entry``). A modelling
      choice with no parameter of its own: the paper's figures do not separate a memory term from
      the device state (its runs are two sizes, 64 GB and 1 TB), so it is the smallest physical
      term, a few ms per TiB at the calibration.

    The rest of the stall (last pages, metadata, the protocol's round trips) is in
    :func:`vcperf.vmotion.precopy`.

    Parameters
    ----------
    vcpus : float or array_like
        vCPUs, in [1, 4096].
    memory_bytes : float or array_like
        Guest memory (bytes), > 0.
    params : Params

    Examples
    --------
    >>> from vcperf import vmotion as vm
    >>> p = vm.calibrate()
    >>> one_tib = 2**40
    >>> bool(vm.switchover_checkpoint_s(768, one_tib, params=p) > vm.switchover_checkpoint_s(12, one_tib, params=p))
    True
    >>> bool(vm.switchover_checkpoint_s(12, 4 * one_tib, params=p) > vm.switchover_checkpoint_s(12, one_tib, params=p))
    True
    """
    cpus = v.check_range("vcpus", vcpus, 1, 4096)
    mem = v.positive("memory_bytes", memory_bytes)
    v.broadcast(vcpus=cpus, memory_bytes=mem)
    return checked_checkpoint_s(cpus, mem, check_params(params))


def checked_checkpoint_s(cpus, mem, p: Params):
    """Checkpoint time (s) of ``cpus`` vCPUs and ``mem`` bytes on checked values (:func:`switchover_checkpoint_s`
    checks them)."""
    large_pages = np.asarray(mem) / (PAGE_BYTES * PAGES_PER_2MB)
    return p.checkpoint_time_s + cpus * p.vcpu_stop_cost_s + large_pages * p.metadata_cost_s_per_entry


def switchover_metadata_bytes(memory_bytes, release, remaining_bytes=0.0, swapped_bytes=0.0):
    """Switch-over metadata (bytes) that marks remote and swapped pages on the destination.

    6.7 sends the changed bitmap and the swap bitmap in full, 1 bit per 4 KB page of guest memory
    each; 7.0 U1 sends only the page numbers (8 B each) of the remaining dirty and swapped pages
    (``004_ea13268657e6b3b0.txt``, Figures 3 and 4).

    Parameters
    ----------
    memory_bytes : float or array_like
        Guest memory (bytes), > 0.
    release : {"6.7", "7.0u1"}
    remaining_bytes : float or array_like
        Dirty bytes left at switch-over, in [0, memory_bytes].
    swapped_bytes : float or array_like
        Swapped-out guest bytes, in [0, memory_bytes] (0: no host swapping, as on the testbed).

    Examples
    --------
    >>> from vcperf import vmotion as vm
    >>> float(vm.switchover_metadata_bytes(2**40, "6.7")) / 2**20  # two full bitmaps of a 1 TB VM, MiB
    64.0
    >>> float(vm.switchover_metadata_bytes(2**40, "7.0u1", remaining_bytes=2**30)) / 2**20  # 1 GB left
    2.0
    """
    mem = v.positive("memory_bytes", memory_bytes)
    check_release(release)
    rem = v.nonneg("remaining_bytes", remaining_bytes)
    swp = v.nonneg("swapped_bytes", swapped_bytes)
    v.broadcast(memory_bytes=mem, remaining_bytes=rem, swapped_bytes=swp)
    check_le("remaining_bytes", rem, mem)
    check_le("swapped_bytes", swp, mem)
    pages = np.ceil(mem / PAGE_BYTES)
    if release == "6.7":
        return np.broadcast_to(BITMAPS_AT_SWITCHOVER * np.ceil(pages / 8.0), np.broadcast(mem, rem, swp).shape) * 1.0
    # ``remaining_bytes`` is an expected remainder (continuous in the link and the dirty rate), so its page
    # count is an expectation too: no whole-page step that would make a faster link lengthen the list's time
    return (rem / PAGE_BYTES + np.ceil(swp / PAGE_BYTES)) * PAGE_NUMBER_BYTES


def metadata_entries(metadata_bytes, release):
    """Entries the destination processes for ``metadata_bytes`` of switch-over metadata.

    A bitmap (6.7) has one entry per bit, i.e. per guest page; a page list (7.0 U1) one per 8-byte
    page number.

    Parameters
    ----------
    metadata_bytes : float or array_like
        Switch-over metadata (bytes), >= 0 (:func:`switchover_metadata_bytes`).
    release : {"6.7", "7.0u1"}

    Examples
    --------
    >>> from vcperf import vmotion as vm
    >>> float(vm.metadata_entries(1024.0, "6.7")), float(vm.metadata_entries(1024.0, "7.0u1"))
    (8192.0, 128.0)
    """
    meta = v.nonneg("metadata_bytes", metadata_bytes)
    check_release(release)
    return meta * 8.0 if release == "6.7" else meta / PAGE_NUMBER_BYTES


def post_switchover_phase(remaining_bytes, working_set_bytes, vcpus, release, *, params: Params, settings: Settings):
    """Degraded phase after resume while 6.7 rebuilds the large pages of remote pages: ``(duration_s, loss)``.

    ``004_ea13268657e6b3b0.txt``, "Large Page Handling Optimizations" > "Remote Pages": 6.7 broke the
    large page backing each remote page (a page still on the source at switch-over), received it into
    a new 4 KB page "and later reconstruct[ed] a new, large page"; remapping "can lead to longer pauses
    in the guest workload execution". 7.0 U1 copies remote pages into their original backing: nothing
    to rebuild ("greatly improves the guest workload performance after vMotion").

    The remaining pages fall on ``n (1 - exp(-pages / n))`` of the ``n`` 2 MB regions of the working
    set (pages spread at random); rebuilding one remaps its 512 4 KB entries. Remapping a live guest's
    pages needs the same stop-and-flush of all vCPUs as 6.7's trace install, so it runs in the same
    phases (``P`` entries per phase, stall ``c_stop V + P c_install``, guest slice ``tau``):
    duration ``entries / P x (stall + tau)``, loss ``stall / (stall + tau)``. No new parameter. The
    phase follows the migration: it is not part of the paper's "during vMotion" averages.

    Parameters
    ----------
    remaining_bytes : float or array_like
        Dirty bytes left at switch-over (the remote pages), >= 0.
    working_set_bytes : float or array_like
        Writable working set they fall in (bytes), >= 0.
    vcpus : float or array_like
        vCPUs, in [1, 4096].
    release : {"6.7", "7.0u1"}
    params : Params
    settings : Settings

    Examples
    --------
    >>> from vcperf import vmotion as vm
    >>> p, s = vm.calibrate(), vm.settings()
    >>> t, loss = vm.post_switchover_phase(2**30, 25 * 2**30, 12, "6.7", params=p, settings=s)
    >>> bool(t > 0 and 0 < loss < 1)
    True
    >>> float(vm.post_switchover_phase(2**30, 25 * 2**30, 12, "7.0u1", params=p, settings=s)[0])
    0.0
    """
    rem = v.nonneg("remaining_bytes", remaining_bytes)
    ws = v.nonneg("working_set_bytes", working_set_bytes)
    cpus = v.check_range("vcpus", vcpus, 1, 4096)
    v.broadcast(remaining_bytes=rem, working_set_bytes=ws, vcpus=cpus)
    check_release(release)
    return checked_post_phase(rem, ws, cpus, release, check_params(params), check_settings(settings))


def checked_post_phase(rem, ws, cpus, release, p: Params, s: Settings):
    """(duration s, throughput loss) of 6.7's trace install after the switch-over, on checked values (0 for 7.0 U1)."""
    shape = np.broadcast(rem, ws, cpus).shape
    if release != "6.7":
        return np.zeros(shape), np.zeros(shape)
    regions = np.maximum(np.ceil(np.maximum(ws, rem) / (PAGE_BYTES * PAGES_PER_2MB)), 1.0)
    touched = regions * -np.expm1(-(rem / PAGE_BYTES) / regions)
    per_phase = p.trace_pages_per_install_phase
    stall = checked_stop_phase_stall_s(cpus, per_phase, p)
    tau = s.guest_slice_s
    duration = touched * PTES_PER_TABLE / per_phase * (stall + tau)
    loss = np.where(duration > 0, stall / (stall + tau), 0.0)
    return np.broadcast_to(duration, shape) * 1.0, np.broadcast_to(loss, shape) * 1.0
