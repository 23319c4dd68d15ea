"""The one units module: the plan reads, the views and the prose write, with one table and one rule."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vcperf import prose, units
from vcperf.site import from_dict, quantities
from vcperf.views import format as fmt


@settings(max_examples=300, derandomize=True, deadline=None)
@given(st.floats(min_value=-1e15, max_value=1e15) | st.just(float("nan")), st.integers(1, 5))
def test_prose_and_views_write_a_number_the_same_way(x, digits):
    assert prose.sig(x, digits) == fmt.fmt_num(x, digits) == units.fmt_num(x, digits)


def test_a_value_rounding_up_to_the_next_power_of_ten_keeps_its_digits():
    assert prose.sig(9.996, 2) == fmt.fmt_num(9.996, 2) == "10"
    assert prose.sig(0.09996, 2) == "0.1" and fmt.fmt_num(99.96) == "100"


def test_the_plan_and_the_views_share_one_unit_table():
    assert quantities.UNITS is units.UNITS and quantities.SI is units.SI
    for kind, written in (("rate", fmt.fmt_bps), ("size", fmt.fmt_bytes), ("time", fmt.fmt_duration),
                          ("byte_rate", fmt.fmt_bytes_per_s)):
        for x in (3.0, 4.2e-4, 1.5e6, 2.85e9, 7e11):
            text = written(x)
            if kind == "time" and text.endswith(("min", "h")):
                continue  # written to 3 digits: read back within rounding below
            back, _ = units.parse(text.replace(",", ""), kind)
            assert back == pytest.approx(x, rel=5e-3), (kind, x, text)


@pytest.mark.parametrize(("text", "kind", "si"), [
    ("10 mbit/s", "rate", 10e6), ("10 MBIT/S", "rate", 10e6), ("80 MS", "time", 0.08), ("3 giB", "size", 3 * 2**30),
    ("5 MB/s", "byte_rate", 5e6), ("0.5 %", "fraction", 0.005)])
def test_unit_names_ignore_case_where_it_cannot_matter(text, kind, si):
    assert units.parse(text, kind)[0] == pytest.approx(si)


@pytest.mark.parametrize(("text", "kind"), [("10 mb", "size"), ("10 Mb", "size"), ("10 MBIT/s", "size"),
                                            ("10 mB", "rate"), ("3 gib", "size")])
def test_bytes_and_bits_are_never_confused(text, kind):
    with pytest.raises(ValueError, match="ambiguous|must be"):
        units.parse(text, kind, "links[0].x")


@pytest.mark.parametrize(("field", "value", "suggestion"), [
    ("rtt", 80, "has no unit .*did you mean '80 ms'"), ("bandwidth", 10, "has no unit .*did you mean '10 Mbit/s'"),
    ("loss", 1, "must carry its unit, e.g. '1 %'")])
def test_a_plan_number_without_its_unit_is_refused_with_a_suggestion(field, value, suggestion):
    plan = {"links": [{"name": "wan", "bandwidth": "10 Mbit/s", "rtt": "80 ms", field: value}]}
    with pytest.raises(ValueError, match=rf"links\[0\]\.{field} .*{suggestion}"):
        from_dict(plan)
