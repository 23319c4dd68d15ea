"""Parameters of the Content Library deployment model: the study name, the four calibrated rates
(:class:`Params`) and what each means (:data:`PARAM_DOCS`).

Pure: nothing here reads ``data/``; the values are fitted by :func:`vcperf.contentlib.calibrate`.

Examples
--------
>>> from vcperf.contentlib.params import Params
>>> p = Params(array_copy_rate_bytes_per_s=2e8, nfc_efficiency=0.5, compression_gain=1.0,
...            decompression_rate_bytes_per_s=5e7)
>>> p.nfc_efficiency
0.5
"""

from __future__ import annotations

from dataclasses import dataclass

from vcperf import _validate as v

#: The study's ``data/`` folder (and its name in :data:`vcperf.studies.STUDIES`).
STUDY = "contentlib2015"
#: File name of the study's text in the project's seed folder (cited in ``data/`` provenance).
SEED = "003_a39039efb1262c72.txt"


@dataclass(frozen=True)
class Params:
    """Calibrated rates of the deployment model (fitted by :func:`vcperf.contentlib.calibrate`).

    Parameters
    ----------
    array_copy_rate_bytes_per_s : float
        Backend copy rate of the storage array (B/s), > 0: every byte read and written inside the
        array, as in a VAAI XCOPY.
    nfc_efficiency : float
        Share of the TCP payload rate of an Ethernet hop (:func:`vcperf.network.payload_rate_bps`, the
        one transfer model) an NFC host-to-host (or vCenter-to-host) copy achieves, in (0, 1].
    compression_gain : float
        Bytes saved per compressed byte of the template on the vCenter NFS store, ``uncompressed /
        compressed - 1``, > 0 (1): the compression ratio less one, so that the ratio
        (:attr:`compression_ratio`) stays above 1 everywhere the fit and its interval (log-normal, like
        every rate's) can reach.
    decompression_rate_bytes_per_s : float
        Uncompressed bytes per second one Transfer Service thread decompresses (one stream, B/s), > 0.

    Raises
    ------
    ValueError
        If a value is outside its range.

    Examples
    --------
    >>> from vcperf import contentlib
    >>> p = contentlib.calibrate()
    >>> bool(0.0 < p.nfc_efficiency <= 1.0)
    True
    """

    array_copy_rate_bytes_per_s: float
    nfc_efficiency: float
    compression_gain: float
    decompression_rate_bytes_per_s: float

    @property
    def compression_ratio(self):
        """Uncompressed / compressed size of the template, ``1 + compression_gain`` (> 1)."""
        return 1.0 + self.compression_gain

    def __post_init__(self):
        v.positive("array_copy_rate_bytes_per_s", self.array_copy_rate_bytes_per_s)
        v.check_range("nfc_efficiency", self.nfc_efficiency, 0.0, 1.0, lo_open=True)
        v.positive("compression_gain", self.compression_gain)
        v.positive("decompression_rate_bytes_per_s", self.decompression_rate_bytes_per_s)


#: name -> (unit, meaning) of every calibrated parameter of :class:`Params`. The rows each is fitted
#: from are computed (:func:`vcperf.protocol.parameter_table`).
PARAM_DOCS = {
    "array_copy_rate_bytes_per_s": (
        "B/s", "backend copy rate of the array (read + write of every byte, as in a VAAI XCOPY)"),
    "nfc_efficiency": (
        "1", "share of an Ethernet hop's TCP payload rate an NFC host-to-host (or vCenter-to-host) copy achieves"),
    "compression_gain": (
        "1", "compression ratio less one (uncompressed / compressed - 1) of the template on the vCenter NFS store"),
    "decompression_rate_bytes_per_s": (
        "B/s", "uncompressed bytes per second one Transfer Service thread decompresses (one stream)"),
}
