"""Numbers for people: the formatters every view's readouts and labels use, from :mod:`vcperf.units`.

One unit family per quantity, the same in every panel (and in the plan's units and the notebooks'
prose, which read and write through the same module):

* durations: ``µs``, ``ms``, ``s``, ``min``, ``h`` (:func:`fmt_duration`);
* bit rates: ``bit/s``, ``kbit/s``, ``Mbit/s``, ``Gbit/s``, ``Tbit/s`` (:func:`fmt_bps`);
* sizes: ``B``, ``kB``, ``MB``, ``GB``, ``TB``, **decimal** (1 kB = 1,000 B; 1 MB = 10^6 B), and the
  byte rates ``B/s`` ... ``GB/s`` (:func:`fmt_bytes`, :func:`fmt_bytes_per_s`);
* shares: ``%`` of a fraction (:func:`fmt_percent`);
* a model value with its predictive interval: ``"56.2 s (51.6–61.1 s, 90 %)"`` (:func:`fmt_band`).

Every number is written by :func:`fmt_num` (three significant digits, thousands separated, never in
exponent notation) followed by a space and its unit; the unit is the largest one in which the number
is at least 1 (durations: seconds up to 2 min, minutes up to 2 h).

Examples
--------
>>> fmt_duration(0.00496), fmt_band(2e6, 1e6, 3e6, fmt=fmt_bps)
('4.96 ms', '2 Mbit/s (1–3 Mbit/s, 90 %)')
"""

from __future__ import annotations

from vcperf.units import fmt_band, fmt_bps, fmt_bytes, fmt_bytes_per_s, fmt_duration, fmt_in_unit, fmt_num, fmt_percent

__all__ = ["fmt_num", "fmt_duration", "fmt_bps", "fmt_bytes", "fmt_bytes_per_s", "fmt_percent", "fmt_band",
           "fmt_in_unit"]
