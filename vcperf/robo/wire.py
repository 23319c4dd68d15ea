"""Bytes on the wire of one TCP message and of its ACKs (``001_36d9adf7ffa34fcf.txt``).

Every ROBO traffic source (host sync, statistics uploads, host calls, the add-host sync) is a set of
TCP messages; these two functions turn a payload into the bytes each direction carries. Segment size
and header bytes are those of :mod:`vcperf.network` (``DEFAULT_MSS_BYTES``, ``IP_TCP_HEADER_BYTES``).
"""

from __future__ import annotations

import numpy as np

from vcperf import _validate as v
from vcperf import network

#: A pure TCP acknowledgement: IPv4 + TCP headers only (:data:`vcperf.network.IP_TCP_HEADER_BYTES`).
ACK_BYTES = network.IP_TCP_HEADER_BYTES
#: Segments acknowledged per ACK in a bulk transfer (delayed ACKs, RFC 1122), as in vcperf.network.
PACKETS_PER_ACK = network.DEFAULT_PACKETS_PER_ACK


def segments(payload_bytes):
    """TCP segments needed for a payload (a zero-byte message still takes one segment)."""
    return np.maximum(1.0, np.ceil(v.nonneg("payload_bytes", payload_bytes) / network.DEFAULT_MSS_BYTES))


def wire_bytes(payload_bytes):
    """Bytes on the wire for one TCP message: payload plus IPv4 + TCP headers per segment.

    Parameters
    ----------
    payload_bytes : float or array_like
        Message payload (B), >= 0.

    Examples
    --------
    >>> from vcperf import robo
    >>> float(robo.wire_bytes(3000.0))  # three segments of 40 B of headers each
    3120.0
    """
    p = v.nonneg("payload_bytes", payload_bytes)
    return p + segments(p) * network.IP_TCP_HEADER_BYTES


def ack_bytes(payload_bytes):
    """Bytes of TCP ACKs the receiver returns for one message.

    One ACK per :data:`PACKETS_PER_ACK` data segments (delayed ACKs); a message of one segment is
    acknowledged alone when the delayed-ACK timer fires, so it still costs one ACK.

    Parameters
    ----------
    payload_bytes : float or array_like
        Message payload (B), >= 0.

    Examples
    --------
    >>> from vcperf import robo
    >>> float(robo.ack_bytes(3000.0)), float(robo.ack_bytes(0.0))  # 3 segments: 2 ACKs; empty: 1
    (80.0, 40.0)
    """
    p = v.nonneg("payload_bytes", payload_bytes)
    return np.ceil(segments(p) / PACKETS_PER_ACK) * ACK_BYTES
