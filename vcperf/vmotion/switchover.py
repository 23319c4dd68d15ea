"""Switch-over metadata: 6.7's full bitmaps vs 7.0 U1's compacted page list (``004_ea13268657e6b3b0.txt``).

"vMotion Switch-Over Optimizations", Figures 3 and 4.
"""

from __future__ import annotations

import numpy as np

from vcperf import _validate as v
from vcperf.vmotion.core import BITMAPS_AT_SWITCHOVER, PAGE_BYTES, PAGE_NUMBER_BYTES, check_le, check_release


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
    """
    mem = v.positive("memory_bytes", memory_bytes)
    check_release(release)
    rem = v.nonneg("remaining_bytes", remaining_bytes)
    swp = v.nonneg("swapped_bytes", swapped_bytes)
    check_le("remaining_bytes", rem, mem)
    check_le("swapped_bytes", swp, mem)
    pages = np.ceil(mem / PAGE_BYTES)
    if release == "6.7":
        return np.broadcast_to(BITMAPS_AT_SWITCHOVER * np.ceil(pages / 8.0), np.broadcast(mem, rem, swp).shape) * 1.0
    return (np.ceil(rem / PAGE_BYTES) + np.ceil(swp / PAGE_BYTES)) * PAGE_NUMBER_BYTES


def metadata_entries(metadata_bytes, release):
    """Entries the destination processes for ``metadata_bytes`` of switch-over metadata.

    A bitmap (6.7) has one entry per bit, i.e. per guest page; a page list (7.0 U1) one per 8-byte
    page number.
    """
    meta = v.nonneg("metadata_bytes", metadata_bytes)
    check_release(release)
    return meta * 8.0 if release == "6.7" else meta / PAGE_NUMBER_BYTES
