"""The plan format is described once (vcperf.site.schema.fields()): the parser, its ranges and defaults, the
JSON Schema, the reference page, the examples and `vcperf plan --help` agree with that description (issue 39).
"""

import ast
import copy
import json
import math
import re
from pathlib import Path

import jsonschema
import pytest

from vcperf import _yaml, cli
from vcperf.site import from_dict, schema
from vcperf.site.quantities import SI

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples").glob("*.yaml"))
QUANTITIES = [f for f in schema.fields() if f.kind not in schema.STRUCTURE]
VALIDATOR = jsonschema.Draft202012Validator(schema.json_schema())


def _written(f, x):
    """``x`` (SI) written as a person would for field ``f``: with its SI unit, ``%`` for a fraction."""
    if f.kind == "fraction":
        return f"{x * 100:.17g} %"
    if f.kind == "count":
        return int(x) if f.integer else x
    return f"{x:.17g} {SI[f.kind]}"


def _sample(f, i):
    if f.kind in ("name", "text"):
        return f"{f.parent or 'site'}-{i}"
    if f.kind == "link":
        return "wan"
    if f.kind == "choice":
        return f.choices[-1]
    x = (f.lo + f.hi) / 2 if math.isfinite(f.hi) else f.lo + 1.0
    return _written(f, round(x) if f.integer else x)


def _set(plan, path, value):
    *parents, key = path.split(".")
    d = plan
    for part in parents:
        if part.endswith("[]"):
            d = d.setdefault(part[:-2], [{}])[0]
        else:
            d = d.setdefault(part, {})
    d[key] = value


def _full():
    """A plan holding every described field (containers made by their fields)."""
    plan = {}
    for i, f in enumerate(schema.fields()):
        if f.kind not in ("list", "mapping"):
            _set(plan, f.path, _sample(f, i))
    plan["links"][0]["name"] = "wan"
    plan["migrations"][0]["concurrency"] = 1  # at most count (a rule across fields), so count can take its lo
    return plan


def _paths(d, prefix=""):
    for key, value in d.items():
        path = f"{prefix}{key}"
        yield path
        if isinstance(value, list):
            yield from _paths(value[0], f"{path}[].")
        elif isinstance(value, dict):
            yield from _paths(value, f"{path}.")


def test_every_described_field_is_accepted_and_every_field_of_the_plan_is_described():
    plan = _full()
    assert set(_paths(plan)) == {f.path for f in schema.fields()}
    p = from_dict(plan)
    assert p.links[0].rtt_s == 5.0 and p.vcenter.vcha is not None and len(p.targets) == len(schema.TARGET_QUANTITIES)
    for parent in {f.parent for f in schema.fields()}:
        bad = copy.deepcopy(plan)
        _set(bad, f"{parent}.nonsense" if parent else "nonsense", 1)
        with pytest.raises(ValueError, match="nonsense is not a (field|target)"):
            from_dict(bad)


def test_the_parser_reads_its_keys_from_the_description():
    """Every mapping of the plan is checked against ``keys(parent)`` (targets: TARGET_QUANTITIES, described)."""
    tree = ast.parse((ROOT / "vcperf" / "site" / "plan.py").read_text())
    used = {node.args[0].value for node in ast.walk(tree) if isinstance(node, ast.Call)
            and getattr(node.func, "id", None) == "keys" and isinstance(node.args[0], ast.Constant)}
    literal_tuples = [node for node in ast.walk(tree) if isinstance(node, ast.Call)
                      and getattr(node.func, "id", None) == "_fields" and isinstance(node.args[2], ast.Tuple)]
    assert not literal_tuples, "plan.py lists allowed keys of its own"
    assert used == {f.parent for f in schema.fields()} - {"targets"}
    assert schema.keys("targets") == tuple(schema.TARGET_QUANTITIES)


@pytest.mark.parametrize("f", QUANTITIES, ids=lambda f: f.path)
def test_the_parser_holds_each_described_range(f):
    plan = _full()
    at = f.path.replace("[]", "[0]")
    for x, ok in ((f.lo, not f.lo_open), (f.hi, True), (f.hi * 1.5 + 1, False), (f.lo - 1, False)):
        if not math.isfinite(x) or (f.bare is not None and f.bare[1] == 0 and x == 0):
            continue
        _set(plan, f.path, _written(f, x))
        if ok:
            from_dict(plan)
        else:
            with pytest.raises(ValueError, match=re.escape(at)):
                from_dict(plan)
    if f.integer and f.hi - f.lo >= 1:
        _set(plan, f.path, f.lo + 0.5)
        with pytest.raises(ValueError, match="whole number"):
            from_dict(plan)


@pytest.mark.parametrize("f", [f for f in schema.fields() if f.default is not None], ids=lambda f: f.path)
def test_an_absent_field_takes_its_described_default(f):
    plan = _full()
    *parents, key = f.path.split(".")
    d = plan
    for part in parents:
        d = d[part[:-2]][0] if part.endswith("[]") else d[part]
    d[key] = f.default
    with_default = from_dict(plan)
    del d[key]
    assert from_dict(plan) == with_default


def test_committed_json_schema_and_reference_page_are_generated_from_the_description():
    committed = json.loads((ROOT / "docs" / "plan.schema.json").read_text(encoding="utf-8"))
    assert committed == schema.json_schema(), "regenerate: from vcperf.site import schema; schema.write('docs')"
    jsonschema.Draft202012Validator.check_schema(committed)
    assert (ROOT / "docs" / "PLAN.md").read_text(encoding="utf-8") == schema.reference()


def test_every_field_is_documented_on_the_reference_page_with_its_unit_range_default_and_source():
    page = (ROOT / "docs" / "PLAN.md").read_text(encoding="utf-8")
    rows = {line.split(" | ")[0][3:-1]: line.split(" | ") for line in page.splitlines() if line.startswith("| `")}
    assert set(rows) == {f.path for f in schema.fields()}
    for f in schema.fields():
        cells = rows[f.path]
        assert cells[4] == f.meaning and cells[5] == f"{f.source} |", f.path
        assert cells[3] == ("required" if f.required else f.absent if f.default is None else f"`{f.default}`")
        if f.kind not in ("list", "mapping", "name", "text"):  # a field a model reads: which, and its value if absent
            assert f.source and (f.required or f.default is not None or f.absent), f.path
        if f.kind not in schema.STRUCTURE:
            assert f"{f.hi:g}" in cells[2] or math.isinf(f.hi), f.path
            assert SI[f.kind] in cells[1], f.path


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_every_example_validates_against_the_json_schema(path):
    VALIDATOR.validate(_yaml.load_file(path))


def _epilog_plan():
    block = cli.PLAN_EPILOG.split("\n\n")[1]
    return _yaml.loads(block)


def test_the_page_example_and_the_help_plan_load_and_validate():
    for text in (schema.EXAMPLE, None):
        d = _yaml.loads(text) if text else _epilog_plan()
        VALIDATOR.validate(d)
        assert from_dict(d).links[0].rtt_s == 0.08
    VALIDATOR.validate(_full())


@pytest.mark.parametrize("field, value, ok", [
    ("rtt", 80, False), ("rtt", 0.08, True), ("rtt", "80 MS", True), ("rtt", "80 ms", True),
    ("bandwidth", 10, False), ("bandwidth", 1e7, True), ("bandwidth", "10 mbit/s", True),
    ("bandwidth", "10 MBIT/S", True), ("bandwidth", "10 mbps", True), ("bandwidth", "10 MBps", False),
    ("bandwidth", "10 MB/s", False), ("loss", 0.01, False), ("loss", "0.01 %", True), ("loss", 0, True),
    ("buffer", "1 mb", False), ("buffer", "1 Mb", False), ("buffer", "1 MB", True), ("buffer", "1 mib", False),
    ("buffer", "1 MIB", True),
])
def test_parser_and_json_schema_agree_on_units(field, value, ok):
    plan = {"links": [{"name": "wan", "bandwidth": "10 Mbit/s", "rtt": "80 ms", field: value}]}
    assert VALIDATOR.is_valid(plan) == ok
    if ok:
        from_dict(plan)
    else:
        with pytest.raises(ValueError, match=rf"links\[0\]\.{field}"):
            from_dict(plan)


def test_a_unitless_rtt_or_bandwidth_a_person_would_not_mean_in_si_is_refused_with_a_suggestion():
    with pytest.raises(ValueError, match=re.escape("links[0].rtt 80 has no unit and would be 80 s: did you mean "
                                                   "'80 ms'?")):
        from_dict({"links": [{"name": "wan", "bandwidth": 1e7, "rtt": 80}]})
    with pytest.raises(ValueError, match=re.escape("links[0].up_bandwidth 10 has no unit and would be 10 bit/s: "
                                                   "did you mean '10 Mbit/s'?")):
        from_dict({"links": [{"name": "wan", "bandwidth": 1e7, "up_bandwidth": 10}]})
    with pytest.raises(ValueError, match="ambiguous: 'B' is a byte and 'b' a bit"):
        from_dict({"links": [{"name": "wan", "bandwidth": 1e7}],
                   "migrations": [{"name": "m", "link": "wan", "memory": "8 gb"}]})
    p = from_dict({"links": [{"name": "wan", "bandwidth": 1e7}],
                   "migrations": [{"name": "m", "link": "wan", "memory": "8 GIB"}]})
    assert p.migrations[0].memory_bytes == 8 * 2**30


def test_plan_help_points_to_the_reference_page_and_prints_a_minimal_plan(capsys):
    with pytest.raises(SystemExit):
        cli.main(["plan", "--help"])
    out = capsys.readouterr().out
    assert "docs/PLAN.md" in out and "bandwidth: 10 Mbit/s" in out and (ROOT / "docs" / "PLAN.md").is_file()
    assert from_dict(_epilog_plan()).branches[0].hosts == 20
