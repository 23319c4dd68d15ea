"""The site plan's format, described once: every field a plan may hold, its kind and SI unit, valid
range, default, meaning and the study that reads it (:func:`fields`).

:mod:`vcperf.site.plan` reads its keys, ranges, units, defaults and choices from here; the JSON Schema
(:func:`json_schema`, committed as ``docs/plan.schema.json``) and the reference page
(:func:`reference`, committed as ``docs/PLAN.md``) are generated from it (:func:`write`), and
tests check that the parser, the schema, the page and ``examples/*.yaml`` agree.
"""

from __future__ import annotations

import functools
import json
import math
import re
from dataclasses import dataclass
from pathlib import Path

from vcperf import _validate as v
from vcperf import contentlib, ft, robo, traffic, vcha
from vcperf import vmotion as vm
from vcperf.units import SI, UNITS

# field(), keys() and write() take the plan's own paths and the repository's docs/ (checked, not fuzzed)
__all__ = ["DIRECTIONS", "EXAMPLE", "TARGET_QUANTITIES", "PlanField", "fields", "json_schema", "reference"]

DIRECTIONS = ("down", "up")
#: Target quantities a plan may set (``targets:``), each an upper bound in SI.
TARGET_QUANTITIES = {
    "operation_latency_s": ("time", "a vCenter operation at a branch during its statistics burst (ROBO)"),
    "statistics_delay_s": ("time", "one host's statistics upload during its burst (ROBO)"),
    "migration_time_s": ("time", "all VMs of a migration batch moved (vMotion)"),
    "downtime_s": ("time", "a migration's switch-over stall (vMotion)"),
    "vmotion_throttle": ("fraction", "share of a migrating guest's pace SDPS stuns away to converge (vMotion)"),
    "deployment_time_s": ("time", "a template deployment (Content Library)"),
    "vcha_throughput_loss": ("fraction", "vCenter throughput lost to VCHA (VCHA)"),
    "vcha_latency_s": ("time", "vCenter operation latency with VCHA (VCHA)"),
    "ft_overhead": ("fraction", "run time added to a CPU-bound FT VM by its checkpoints (FT)"),
    "ft_output_delay_s": ("time", "extra latency of an FT VM's outbound packet (FT)"),
}
MAX_BPS, MAX_RTT_S, MAX_COUNT = 1e12, 10.0, 1000.0
#: Kinds of a field that are not physical quantities.
STRUCTURE = ("list", "mapping", "name", "link", "choice", "text")


@dataclass(frozen=True)
class PlanField:
    """One field of a plan.

    ``path`` is its place in the plan (``links[].rtt``: the ``rtt`` of every item of ``links``);
    ``kind`` a key of :data:`vcperf.site.quantities.UNITS` (a quantity, converted to SI) or one of
    :data:`STRUCTURE`; ``lo``/``hi`` its range in SI (``lo_open``: ``lo`` excluded); ``default`` the
    value an absent field takes as written in a plan (``None``: what ``absent`` says, the study's
    own); ``source`` the model that reads it; ``bare`` the plausible range of a number written
    without a unit and the unit to suggest outside it.

    Examples
    --------
    >>> field("links[].rtt").unit, field("links[].rtt").hi
    ('s', 10.0)
    """

    path: str
    kind: str
    meaning: str
    lo: float | None = None
    hi: float | None = None
    lo_open: bool = False
    integer: bool = False
    default: object = None
    required: bool = False
    choices: tuple = ()
    source: str = ""
    bare: tuple[float, float, str] | None = None
    absent: str = ""

    @property
    def parent(self) -> str:
        """The path of the mapping or list item holding this field (``""``: the plan)."""
        return self.path.rpartition(".")[0]

    @property
    def key(self) -> str:
        """The field's key in its mapping."""
        return self.path.rpartition(".")[2]

    @property
    def unit(self) -> str:
        """The SI unit of a quantity (``""``: none)."""
        return SI.get(self.kind, "")


def _q(path, kind, lo, hi, meaning, default=None, *, lo_open=False, integer=False, required=False, source="",
       bare=None, absent=""):
    return PlanField(path, kind, meaning, float(lo), float(hi), lo_open, integer, default, required, (), source,
                     bare, absent)


def _named(item, what):
    return (PlanField(f"{item}.name", "name", f"the {what}'s name, unique among the plan's workloads",
                      required=True),
            PlanField(f"{item}.link", "link", f"the link the {what} crosses (a `links[].name`)", required=True,
                      source="vcperf.traffic"))


def _direction(item, default, meaning, source=""):
    return PlanField(f"{item}.direction", "choice", meaning, default=default, choices=DIRECTIONS, source=source)


_TB = 24.0 * 2**40


@functools.cache
def fields() -> tuple[PlanField, ...]:
    """Every field a plan may hold, containers before their fields (built on first use: the
    operations of a branch are read from the ROBO study's table).

    Examples
    --------
    >>> [f.path for f in fields()][:3]
    ['name', 'links', 'links[].name']
    """
    return (
        PlanField("name", "text", "the site's name, shown in the report", default="site"),
        PlanField("links", "list", "the site's links: at least one", required=True),
        PlanField("links[].name", "name", "the link's name, unique among the links", required=True),
        _q("links[].bandwidth", "rate", 0, MAX_BPS, "the link's rate toward the branch (and both ways without "
           "`up_bandwidth`)", required=True, lo_open=True, source="vcperf.traffic", bare=(1e3, MAX_BPS, "Mbit/s")),
        _q("links[].up_bandwidth", "rate", 0, MAX_BPS, "the link's rate from the branch", lo_open=True,
           source="vcperf.traffic", absent="as `bandwidth`", bare=(1e3, MAX_BPS, "Mbit/s")),
        _q("links[].rtt", "time", 0, MAX_RTT_S, "the link's round-trip time", 0, source="vcperf.traffic",
           bare=(0.0, MAX_RTT_S, "ms")),
        _q("links[].loss", "fraction", 0, 0.5, "the link's packet loss rate (write its unit: `0.01 %`)", 0,
           source="vcperf.traffic (Mathis TCP rate)", bare=(0.0, 0.0, "%")),
        PlanField("links[].queue", "choice", "the bottleneck's queue: `fifo` drop-tail (a bulk flow keeps a "
                  "standing queue every round trip waits in) or `fair` (fq_codel-like)", default="fifo",
                  choices=traffic.DISCIPLINES, source="vcperf.traffic.standing_queue_s"),
        _q("links[].buffer", "size", 0, 1e12, "the bottleneck's buffer",
           source="vcperf.traffic.standing_queue_s", absent="one bandwidth-delay product"),
        PlanField("branches", "list", "branch offices, each behind a link (ROBO)"),
        *_named("branches[]", "branch"),
        _q("branches[].hosts", "count", 1, 10000, "hosts at the branch", 1, integer=True, source="ROBO"),
        _q("branches[].vms_per_host", "count", 0, 1024, "powered-on VMs per host",
           source="ROBO", absent="the ROBO test bed's"),
        _q("branches[].stats_level", "count", 1, 4, "vCenter statistics level", 1, integer=True, source="ROBO"),
        PlanField("branches[].operation", "choice", "the vCenter operation whose latency is asked",
                  default="clone_vm", choices=tuple(robo.operation_names()), source="ROBO"),
        PlanField("vcenter", "mapping", "the vCenter appliance"),
        PlanField("vcenter.size", "choice", "the appliance's inventory size", choices=tuple(vcha.INVENTORIES),
                  source="VCHA", absent="the VCHA test bed's"),
        _q("vcenter.clients", "count", 1, 4096, "VCbench clients driving vCenter", 64, integer=True, source="VCHA"),
        PlanField("vcenter.vcha", "mapping", "VCHA on the appliance (absent: no VCHA)"),
        PlanField("vcenter.vcha.link", "link", "the link VCHA's replication (Active -> Passive) crosses",
                  required=True, source="VCHA"),
        _direction("vcenter.vcha", "down", "the direction of the replication on the link", "VCHA"),
        PlanField("migrations", "list", "batches of vMotion migrations"),
        *_named("migrations[]", "migration"),
        _q("migrations[].memory", "size", 0, _TB, "each VM's memory", lo_open=True,
           source="vMotion", absent="the vMotion study's typical VM"),
        _q("migrations[].vcpus", "count", 1, 768, "each VM's vCPUs", integer=True,
           source="vMotion", absent="the vMotion study's typical VM"),
        _q("migrations[].working_set", "size", 0, _TB, "each VM's memory written while it runs",
           source="vMotion", absent="the vMotion study's typical VM"),
        _q("migrations[].dirty_rate", "byte_rate", 0, 1e12, "each VM's memory dirtying rate",
           source="vMotion", absent="the vMotion study's typical VM"),
        _q("migrations[].vmknics", "count", 1, 16, "vMotion VMkernel NICs", 1, integer=True, source="vMotion"),
        _q("migrations[].count", "count", 1, MAX_COUNT, "VMs migrated", 1, integer=True, source="vMotion"),
        _q("migrations[].concurrency", "count", 1, 64, "VMs migrated at a time (at most `count`)", 1,
           integer=True, source="vMotion"),
        PlanField("migrations[].release", "choice", "the vSphere release", default="7.0u1",
                  choices=tuple(vm.RELEASES), source="vMotion"),
        _direction("migrations[]", "up", "the migration's direction on the link", "vMotion"),
        PlanField("deployments", "list", "Content Library template deployments"),
        *_named("deployments[]", "deployment"),
        _q("deployments[].size", "size", 0, 1e14, "the template's size", required=True, lo_open=True,
           source="Content Library"),
        PlanField("deployments[].path", "choice", "the copy path", default="streaming",
                  choices=tuple(contentlib.PATHS), source="Content Library"),
        _q("deployments[].count", "count", 1, contentlib.MAX_DEPLOYMENTS, "simultaneous deployments", 1,
           integer=True, source="Content Library"),
        _direction("deployments[]", "down", "the deployment's direction on the link", "Content Library"),
        PlanField("ft", "list", "Fault Tolerance VMs whose logging traffic crosses a link"),
        *_named("ft[]", "FT VM"),
        _q("ft[].vcpus", "count", 1, ft.FT_MAX_VCPUS[ft.DEFAULT_RELEASE],
           f"the VM's vCPUs (at most SMP-FT's limit in vSphere {ft.DEFAULT_RELEASE}, the FT study's release)", 1,
           integer=True, source="FT"),
        _q("ft[].dirty_rate", "byte_rate", 0, 1e11, "the VM's memory dirtying rate", 0, source="FT"),
        _q("ft[].receive_rate", "rate", 0, 1e11, "the VM's inbound network rate", 0, source="FT"),
        _q("ft[].transmit_rate", "rate", 0, 1e11, "the VM's outbound network rate", 0, source="FT"),
        _q("ft[].count", "count", 1, 64, "FT VMs", 1, integer=True, source="FT"),
        _direction("ft[]", "down", "the logging traffic's direction on the link", "FT"),
        PlanField("targets", "mapping", "upper bounds the answers must meet"),
        *(_q(f"targets.{key}", kind, 0, math.inf, meaning, lo_open=True, source="vcperf.site.evaluate",
             absent="not checked")
          for key, (kind, meaning) in TARGET_QUANTITIES.items()),
    )


def field(path: str) -> PlanField:
    """The field at ``path`` (``"links[].rtt"``).

    Examples
    --------
    >>> field("vcenter.clients").default
    64
    """
    v.text("path", path)
    for f in fields():
        if f.path == path:
            return f
    raise ValueError(f"path must be a field of the plan (vcperf.site.schema.fields()); got {path!r}")


def keys(parent: str) -> tuple[str, ...]:
    """The keys a mapping of the plan takes (``""``: the plan; ``"links[]"``: a link).

    Examples
    --------
    >>> keys("vcenter.vcha")
    ('link', 'direction')
    """
    if not isinstance(parent, str):
        raise ValueError(f"parent must be a path in the plan (a string); got {parent!r}")
    out = tuple(f.key for f in fields() if f.parent == parent)
    if not out:
        raise ValueError(f"parent must be a mapping of the plan {sorted({f.parent for f in fields()})}; "
                         f"got {parent!r}")
    return out


_NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"


def _unit_regex(unit: str) -> str:
    """A regex matching ``unit`` as :func:`vcperf.site.quantities.quantity` does (case-folded but bytes/bits)."""
    parts = re.split("(bit)", unit, flags=re.IGNORECASE)
    out = []
    for i, part in enumerate(parts):
        for c in part:
            out.append(f"[{c.lower()}{c.upper()}]" if c.isalpha() and (i % 2 or c not in "bB") and
                       c.lower() != c.upper() else re.escape(c))
    return "".join(out)


def _schema(f: PlanField) -> dict:
    out: dict = {"description": f.meaning}
    if f.default is not None:
        out["default"] = f.default
    if f.kind in ("name", "link"):
        out.update(type="string", pattern=r"\S")
    elif f.kind == "text":
        out["type"] = "string"
    elif f.kind == "choice":
        out["enum"] = list(f.choices)
    elif f.kind in UNITS:
        lo = f.lo if f.bare is None else max(f.lo, f.bare[0])
        hi = f.hi if f.bare is None else min(f.hi, f.bare[1])
        number: dict = {"type": "integer" if f.integer else "number",
                        "exclusiveMinimum" if f.lo_open and lo == f.lo else "minimum": lo}
        if math.isfinite(hi):
            number["maximum"] = hi
        if f.bare is not None and f.bare[1] == 0:
            number = {"const": 0}
        units = "|".join(_unit_regex(u) for u in sorted(UNITS[f.kind], key=lambda u: (-len(u), u)))
        unit = f"\\s*(?:{units})" if units else ""
        if not units or f.bare is None:
            unit = f"(?:{unit})?" if unit else ""
        text = {"type": "string", "pattern": f"^\\s*{_NUMBER}{unit}\\s*$"}
        out["anyOf"] = [number, text]
        if f.unit:
            out["description"] += f" (SI: {f.unit})"
    return out


def _object(parent: str) -> dict:
    props, required = {}, []
    for f in fields():
        if f.parent != parent:
            continue
        if f.kind == "list":
            props[f.key] = {"description": f.meaning, "type": "array", "items": _object(f"{f.path}[]")}
        elif f.kind == "mapping":
            props[f.key] = {"description": f.meaning, **_object(f.path)}
        else:
            props[f.key] = _schema(f)
        if f.required:
            required.append(f.key)
    out = {"type": "object", "properties": props, "additionalProperties": False}
    if required:
        out["required"] = required
    return out


def json_schema() -> dict:
    """The plan's JSON Schema (draft 2020-12), generated from :func:`fields`.

    Examples
    --------
    >>> json_schema()["required"], sorted(json_schema()["properties"])[:3]
    (['links'], ['branches', 'deployments', 'ft'])
    """
    return {"$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": "https://github.com/vcperf/vcperf/docs/plan.schema.json",
            "title": "vcperf site plan", "description": "A site plan for `vcperf plan` (see docs/PLAN.md).",
            **_object("")}


#: The example of the reference page: one link, a branch, a migration, a deployment, VCHA and targets.
EXAMPLE = """\
name: my branch
links:
  - name: wan
    bandwidth: 10 Mbit/s     # a number alone is bit/s
    up_bandwidth: 5 Mbit/s   # branch -> HQ (absent: as bandwidth)
    rtt: 80 ms               # a number alone is s
    loss: 0.01 %             # loss always takes its unit
branches:
  - {name: shop, link: wan, hosts: 20}
migrations:
  - {name: app-to-hq, link: wan, memory: 8 GiB, direction: up}
deployments:
  - {name: linux-template, link: wan, size: 10 GB}
vcenter:
  size: medium
  vcha: {link: wan}
targets:
  operation_latency_s: 5 s
  migration_time_s: 4 h
"""


def _num(x: float) -> str:
    return "∞" if math.isinf(x) else f"{x:g}"


def _cell(f: PlanField) -> tuple[str, str, str, str, str]:
    if f.kind in UNITS:
        units = ", ".join(f"`{u}`" for u in UNITS[f.kind])
        unit = {"fraction": "fraction", "count": "count"}.get(f.kind, f.unit) + (f" (or {units})" if units else "")
        rng = f"{'(' if f.lo_open else '['}{_num(f.lo)}, {_num(f.hi)}{')' if math.isinf(f.hi) else ']'}"
        rng += ", whole" if f.integer else ""
        if f.bare is not None:
            rng += "; without a unit: only 0" if f.bare[1] == 0 else f"; without a unit: [{_num(f.bare[0])}, " \
                   f"{_num(f.bare[1])}]"
    elif f.kind == "choice":
        unit, rng = "", " / ".join(f"`{c}`" for c in f.choices)
    else:
        unit, rng = "", {"list": "list", "mapping": "mapping", "link": "a `links[].name`"}.get(f.kind, "text")
    default = "required" if f.required else f.absent if f.default is None else f"`{f.default}`"
    return unit, rng, default, f.meaning, f.source


def reference() -> str:
    """The plan's reference page (Markdown), generated from :func:`fields`.

    Examples
    --------
    >>> "| `links[].rtt` |" in reference()
    True
    """
    rows = ["| field | unit | range | default | meaning | read by |", "|---|---|---|---|---|---|"]
    for f in fields():
        rows.append("| " + " | ".join((f"`{f.path}`",) + _cell(f)) + " |")
    return f"""# The site plan format

<!-- generated by vcperf.site.schema.write("docs"): edit vcperf/site/schema.py, not this page -->

`vcperf plan site.yaml` reads a site plan: a YAML file of links, the workloads that cross them and
the targets they must meet. Every field is checked before any work; an error names the field's path
(`links[0].rtt`), its value and its valid range. More examples: `examples/*.yaml`. A JSON Schema of
the same format: [plan.schema.json](plan.schema.json) (editors can check a plan with it).

## An example

```yaml
{EXAMPLE}```

## Units

A quantity is a number in SI (bit/s, s, bytes, bytes/s) or a string with its unit (`"10 Mbit/s"`,
`"80 ms"`, `"8 GiB"`). Unit names are matched regardless of case (`mbit/s`, `MS`) except the letter
that tells bytes from bits: `B` is a byte and `b` a bit, so `MB` and `Mb` differ and `mb` is refused
as ambiguous. A number without a unit that is implausible in SI is refused with a suggestion: an
`rtt` above {MAX_RTT_S:g} (`80` would be 80 s: write `80 ms`), a `bandwidth` below 1000 bit/s (write
`10 Mbit/s`). `loss` always takes its unit (`0.01 %`), unless it is 0. A percentage (`%`) is a
fraction (`15 %` = 0.15).

## Fields

`links[].rtt` is the `rtt` of every item of `links`. Default: the value of an absent field (where it
names a study: that study's test bed or typical value). Read by: the model that uses the field.

{chr(10).join(rows)}
"""


def write(directory) -> tuple[Path, Path]:
    """Write ``plan.schema.json`` and ``PLAN.md`` into ``directory`` (the repository's ``docs/``);
    returns their paths. Run after editing :func:`fields`; tests compare the committed files.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     [p.name for p in write(d)]
    ['plan.schema.json', 'PLAN.md']
    """
    if not isinstance(directory, str | Path) or not Path(directory).is_dir():
        raise ValueError(f"directory must be an existing directory; got {directory!r}")
    schema, page = Path(directory) / "plan.schema.json", Path(directory) / "PLAN.md"
    schema.write_text(json.dumps(json_schema(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    page.write_text(reference(), encoding="utf-8")
    return schema, page
