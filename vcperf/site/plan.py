"""A site plan as data: links, branch offices, the vCenter appliance (VCHA), FT VMs, migrations,
template deployments and targets, as frozen dataclasses read from a YAML file or a dict.

Every field is validated once, here, with an error that names its path in the plan
(``migrations[0].memory``), the value and the valid range; a missing optional field takes the
study's test-bed value at evaluation (``None`` here). Quantities are SI numbers or strings with a
unit (:func:`vcperf.site.quantities.quantity`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path

from vcperf import _validate as v
from vcperf import _yaml
from vcperf.site.quantities import choice, quantity
from vcperf.site.schema import DIRECTIONS, TARGET_QUANTITIES, keys  # noqa: F401 (re-exported)
from vcperf.site.schema import field as _field


@dataclass(frozen=True)
class LinkSpec:
    """A link between two sites: rate toward the branch (``bandwidth_bps``), from it (``up_bandwidth_bps``,
    ``None``: symmetric), round trip ``rtt_s`` and packet loss ``loss``; its bottleneck's queue discipline
    ``queue`` (``"fifo"``: drop-tail, where a bulk flow keeps a standing queue every round trip waits in;
    ``"fair"``: fq_codel-like) and buffer ``buffer_bytes`` (``None``: one bandwidth-delay product)
    (:func:`vcperf.traffic.standing_queue_s`)."""

    name: str
    bandwidth_bps: float
    rtt_s: float
    loss: float = 0.0
    up_bandwidth_bps: float | None = None
    queue: str = "fifo"
    buffer_bytes: float | None = None


@dataclass(frozen=True)
class Branch:
    """A branch office behind ``link``: hosts, powered-on VMs per host (``None``: the ROBO test bed's),
    statistics level and the vCenter operation whose latency is asked."""

    name: str
    link: str
    hosts: float
    vms_per_host: float | None = None
    stats_level: int = 1
    operation: str = "clone_vm"


@dataclass(frozen=True)
class Vcha:
    """VCHA on the appliance: its replication (Active -> Passive) crosses ``link``."""

    link: str
    direction: str = "down"


@dataclass(frozen=True)
class VCenter:
    """The vCenter appliance: size (``None``: the VCHA test bed's), VCbench clients, VCHA."""

    size: str | None = None
    clients: int = 64
    vcha: Vcha | None = None


@dataclass(frozen=True)
class MigrationSpec:
    """``count`` VMs migrated over ``link``, ``concurrency`` at a time (``None`` fields: the vMotion
    study's typical VM)."""

    name: str
    link: str
    memory_bytes: float | None = None
    vcpus: float | None = None
    working_set_bytes: float | None = None
    dirty_rate_bytes_per_s: float | None = None
    vmknics: int = 1
    count: int = 1
    concurrency: int = 1
    release: str = "7.0u1"
    direction: str = "up"


@dataclass(frozen=True)
class DeploymentSpec:
    """``count`` simultaneous deployments of a ``size_bytes`` template over ``link`` by ``path``."""

    name: str
    link: str
    size_bytes: float
    path: str = "streaming"
    count: int = 1
    direction: str = "down"


@dataclass(frozen=True)
class FtSpec:
    """``count`` FT VMs whose logging traffic crosses ``link``."""

    name: str
    link: str
    vcpus: float = 1.0
    dirty_rate_bytes_per_s: float = 0.0
    receive_rate_bps: float = 0.0
    transmit_rate_bps: float = 0.0
    count: int = 1
    direction: str = "down"


@dataclass(frozen=True)
class Plan:
    """A site: its links and every workload that crosses them, and the targets to meet."""

    name: str
    links: tuple[LinkSpec, ...]
    branches: tuple[Branch, ...] = ()
    vcenter: VCenter = field(default_factory=VCenter)
    migrations: tuple[MigrationSpec, ...] = ()
    deployments: tuple[DeploymentSpec, ...] = ()
    ft: tuple[FtSpec, ...] = ()
    targets: tuple[tuple[str, float], ...] = ()

    def link(self, name: str) -> LinkSpec:
        """The link called ``name``."""
        v.text("link", name)
        for lk in self.links:
            if lk.name == name:
                return lk
        raise ValueError(f"link must be one of {[lk.name for lk in self.links]}; got {name!r}")

    def with_link(self, name: str, **changes) -> Plan:
        """The same plan with fields of link ``name`` replaced (checked like a loaded plan)."""
        self.link(name)
        links = tuple(replace(lk, **changes) if lk.name == name else lk for lk in self.links)
        return check_plan(replace(self, links=links))


def _mapping(path: str, value) -> dict:
    if not isinstance(value, dict):
        raise ValueError(f"{path} must be a mapping of fields; got {_yaml.short(value)}")
    return value


def _fields(path: str, d: dict, allowed) -> None:
    extra = sorted((k for k in d if k not in allowed), key=str)
    if extra:
        raise ValueError(f"{path}.{extra[0]} is not a field; {path} takes {sorted(allowed)}")


def _name(path: str, d: dict) -> str:
    name = d.get("name")
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"{path}.name must be a non-empty string; got {_yaml.short(name)}")
    return name


def _list(path: str, value) -> list:
    if value is None:
        return []
    if not isinstance(value, list):
        raise ValueError(f"{path} must be a list; got {_yaml.short(value)}")
    return value


def _link_ref(path: str, value, names) -> str:
    if not isinstance(value, str) or value not in names:
        raise ValueError(f"{path} must name one of the plan's links {sorted(names)}; got {_yaml.short(value)}")
    return value


_FROM_PLAN = object()


def _value(p: str, d: dict, path: str, value=_FROM_PLAN):
    """Field ``path`` of the described plan (:func:`vcperf.site.schema.field`) read from item ``d`` at ``p``
    (or ``value``, SI, from a plan built in code): its range, unit, default and choices are the
    description's; ``None`` if absent (or null) where the default is ``None`` (the study's own value)."""
    f = _field(path)
    raw, bare = (d.get(f.key, f.default), f.bare) if value is _FROM_PLAN else (value, None)
    if raw is None and f.default is None:
        return None
    if f.kind == "choice":
        return choice(f"{p}.{f.key}", raw, f.choices)
    bare = bare if bare is not None and bare[1] > 0 else None
    x = quantity(f"{p}.{f.key}", raw, f.kind, f.lo, f.hi, lo_open=f.lo_open, integer=f.integer, bare=bare)
    return int(x) if f.integer and isinstance(f.default, int) else x


def _items(key: str, raw, allowed: tuple):
    """``(path, mapping)`` of each item of the plan's list ``key`` (``"links"``, ...), its keys ``allowed``."""
    for i, item in enumerate(_list(key, raw)):
        p = f"{key}[{i}]"
        d = _mapping(p, item)
        _fields(p, d, allowed)
        yield p, d


def _on_link(p: str, d: dict, names) -> dict:
    """The ``name`` and ``link`` of a workload item at path ``p`` (its link one of the plan's ``names``)."""
    return {"name": _name(p, d), "link": _link_ref(f"{p}.link", d.get("link"), names)}


def _links(raw) -> tuple[LinkSpec, ...]:
    out = []
    for p, d in _items("links", raw, keys("links[]")):
        if "bandwidth" not in d:
            raise ValueError(f"{p}.bandwidth is required (bit/s or e.g. '10 Mbit/s')")
        loss = d.get("loss", 0.0)
        if isinstance(loss, int | float) and not isinstance(loss, bool) and loss != 0:
            raise ValueError(f"{p}.loss must carry its unit, e.g. '{loss:g} %' (a percentage) or "
                             f"'{loss * 100:g} %' (if {loss:g} is a fraction); got {loss!r}")
        out.append(LinkSpec(
            name=_name(p, d), bandwidth_bps=_value(p, d, "links[].bandwidth"), rtt_s=_value(p, d, "links[].rtt"),
            loss=_value(p, d, "links[].loss"), up_bandwidth_bps=_value(p, d, "links[].up_bandwidth"),
            queue=_value(p, d, "links[].queue"), buffer_bytes=_value(p, d, "links[].buffer")))
    if not out:
        raise ValueError("links must list at least one link (name, bandwidth, rtt)")
    names = [lk.name for lk in out]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ValueError(f"links[].name must be unique; got {dup[0]!r} twice")
    return tuple(out)


def _branches(raw, names) -> tuple[Branch, ...]:
    out = []
    for p, d in _items("branches", raw, keys("branches[]")):
        out.append(Branch(
            **_on_link(p, d, names),
            hosts=float(_value(p, d, "branches[].hosts")), vms_per_host=_value(p, d, "branches[].vms_per_host"),
            stats_level=_value(p, d, "branches[].stats_level"), operation=_value(p, d, "branches[].operation")))
    return tuple(out)


def _vcenter(raw, names) -> VCenter:
    if raw is None:
        return VCenter()
    d = _mapping("vcenter", raw)
    _fields("vcenter", d, keys("vcenter"))
    ha = None
    if d.get("vcha") is not None:
        h = _mapping("vcenter.vcha", d["vcha"])
        _fields("vcenter.vcha", h, keys("vcenter.vcha"))
        ha = Vcha(link=_link_ref("vcenter.vcha.link", h.get("link"), names),
                  direction=_value("vcenter.vcha", h, "vcenter.vcha.direction"))
    return VCenter(size=_value("vcenter", d, "vcenter.size"), clients=_value("vcenter", d, "vcenter.clients"),
                   vcha=ha)


def _migrations(raw, names) -> tuple[MigrationSpec, ...]:
    out = []
    for p, d in _items("migrations", raw, keys("migrations[]")):
        m = MigrationSpec(
            **_on_link(p, d, names),
            **{attr: _value(p, d, f"migrations[].{key}") for attr, key in (
                ("memory_bytes", "memory"), ("vcpus", "vcpus"), ("working_set_bytes", "working_set"),
                ("dirty_rate_bytes_per_s", "dirty_rate"), ("vmknics", "vmknics"), ("count", "count"),
                ("concurrency", "concurrency"), ("release", "release"), ("direction", "direction"))})
        if m.concurrency > m.count:
            raise ValueError(f"{p}.concurrency must be in [1, {p}.count = {m.count}]; got {m.concurrency}")
        out.append(m)
    return tuple(out)


def _deployments(raw, names) -> tuple[DeploymentSpec, ...]:
    out = []
    for p, d in _items("deployments", raw, keys("deployments[]")):
        if "size" not in d:
            raise ValueError(f"{p}.size is required (bytes or e.g. '39 GB')")
        out.append(DeploymentSpec(
            **_on_link(p, d, names),
            size_bytes=_value(p, d, "deployments[].size"), path=_value(p, d, "deployments[].path"),
            count=_value(p, d, "deployments[].count"), direction=_value(p, d, "deployments[].direction")))
    return tuple(out)


def _ft(raw, names) -> tuple[FtSpec, ...]:
    out = []
    for p, d in _items("ft", raw, keys("ft[]")):
        out.append(FtSpec(
            **_on_link(p, d, names),
            vcpus=float(_value(p, d, "ft[].vcpus")), dirty_rate_bytes_per_s=float(_value(p, d, "ft[].dirty_rate")),
            receive_rate_bps=float(_value(p, d, "ft[].receive_rate")),
            transmit_rate_bps=float(_value(p, d, "ft[].transmit_rate")), count=_value(p, d, "ft[].count"),
            direction=_value(p, d, "ft[].direction")))
    return tuple(out)


def _targets(raw) -> tuple[tuple[str, float], ...]:
    if raw is None:
        return ()
    d = _mapping("targets", raw)
    out = []
    for key, val in d.items():
        if key not in TARGET_QUANTITIES:
            raise ValueError(f"targets.{key} is not a target; targets take {sorted(TARGET_QUANTITIES)}")
        if val is None:  # a target has no default: null is not "no target"
            raise ValueError(f"targets.{key} must be a number with its unit; got None")
        out.append((key, _value("targets", d, f"targets.{key}")))
    return tuple(out)


def from_dict(plan: dict) -> Plan:
    """A :class:`Plan` from a dict (a parsed YAML file), every field checked.

    Parameters
    ----------
    plan : dict
        ``name``, ``links`` (required), ``branches``, ``vcenter``, ``migrations``, ``deployments``,
        ``ft``, ``targets``: every field is described in :func:`vcperf.site.schema.fields` and
        ``docs/PLAN.md`` (examples: ``examples/*.yaml``).

    Returns
    -------
    Plan

    Raises
    ------
    ValueError
        The first bad field, by its path in the plan, its value and its valid range.

    Examples
    --------
    >>> p = from_dict({"name": "shop", "links": [{"name": "wan", "bandwidth": "10 Mbit/s", "rtt": "80 ms"}],
    ...                "branches": [{"name": "shop", "link": "wan", "hosts": 20}]})
    >>> p.links[0].bandwidth_bps, p.branches[0].hosts
    (10000000.0, 20.0)
    >>> from_dict({"links": [{"name": "wan", "bandwidth": -1}]})
    Traceback (most recent call last):
    ...
    ValueError: links[0].bandwidth must be in (0, 1e+12] (SI); got -1
    """
    d = _mapping("plan", plan)
    _fields("plan", d, keys(""))
    _check_size(d.get("links"), d.get("branches"), d.get("migrations"), d.get("deployments"), d.get("ft"))
    links = _links(d.get("links"))
    names = {lk.name for lk in links}
    name = d.get("name", "site")
    if not isinstance(name, str):
        raise ValueError(f"name must be a string; got {name!r}")
    out = Plan(name=name, links=links, branches=_branches(d.get("branches"), names),
                vcenter=_vcenter(d.get("vcenter"), names), migrations=_migrations(d.get("migrations"), names),
                deployments=_deployments(d.get("deployments"), names), ft=_ft(d.get("ft"), names),
                targets=_targets(d.get("targets")))
    return check_plan(out)


#: Structural limits of a plan, checked before any item is parsed or evaluated (issue 42: a plan of
#: 100,000 links or branches must be refused in milliseconds, not run out of memory). A site is a
#: few links and a few dozen branches; the planner evaluates every branch on every update.
MAX_LINKS, MAX_BRANCHES, MAX_WORKLOADS = 64, 200, 200


def _check_size(links, branches, migrations=(), deployments=(), ft=()) -> None:
    """Refuse a plan with more than :data:`MAX_LINKS` links, :data:`MAX_BRANCHES` branches or
    :data:`MAX_WORKLOADS` migrations + deployments + FT VMs, naming the limit (lists that are not
    lists are left to their own checks).

    Examples
    --------
    >>> _check_size([{}] * 65, [])
    Traceback (most recent call last):
    ...
    ValueError: links has 65 items; a plan holds at most 64 links (MAX_LINKS)
    """
    def n(items):
        return len(items) if isinstance(items, list | tuple) else 0

    for key, items, most, what in (("links", links, MAX_LINKS, "links (MAX_LINKS)"),
                                   ("branches", branches, MAX_BRANCHES, "branches (MAX_BRANCHES)")):
        if n(items) > most:
            raise ValueError(f"{key} has {n(items)} items; a plan holds at most {most} {what}")
    total = n(migrations) + n(deployments) + n(ft)
    if total > MAX_WORKLOADS:
        raise ValueError(f"migrations + deployments + ft has {total} items; a plan holds at most {MAX_WORKLOADS} "
                         f"workloads (MAX_WORKLOADS)")


def check_plan(plan: Plan) -> Plan:
    """Check a :class:`Plan` built in code (workload names unique, links positive); returns it.

    Examples
    --------
    >>> check_plan(Plan("x", (LinkSpec("wan", 1e7, 0.08),))).name
    'x'
    """
    if not isinstance(plan, Plan):
        raise ValueError(f"plan must be a vcperf.site.Plan (see vcperf.site.from_dict); got {plan!r}")
    _check_size(plan.links, plan.branches, plan.migrations, plan.deployments, plan.ft)
    for i, lk in enumerate(plan.links):  # a link built in code (with_link, the reverse questions) holds SI
        for key, value in (("bandwidth", lk.bandwidth_bps), ("rtt", lk.rtt_s), ("loss", lk.loss),
                           ("up_bandwidth", lk.up_bandwidth_bps), ("queue", lk.queue), ("buffer", lk.buffer_bytes)):
            _value(f"links[{i}]", {}, f"links[].{key}", value)
    seen = set()
    for kind, items in (("branches", plan.branches), ("migrations", plan.migrations),
                        ("deployments", plan.deployments), ("ft", plan.ft)):
        for i, w in enumerate(items):
            if w.name in seen:
                raise ValueError(f"{kind}[{i}].name must be unique among the plan's workloads; got {w.name!r} twice")
            seen.add(w.name)
    return plan


def load(path) -> Plan:
    """A :class:`Plan` from a YAML file (see :func:`from_dict`).

    Parameters
    ----------
    path : str or pathlib.Path
        The plan's file.

    Examples
    --------
    >>> import tempfile, os
    >>> with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
    ...     _ = f.write("name: t\\nlinks:\\n  - {name: wan, bandwidth: 10 Mbit/s, rtt: 80 ms}\\n")
    >>> load(f.name).links[0].rtt_s
    0.08
    >>> os.unlink(f.name)
    """
    if not isinstance(path, str | os.PathLike) or isinstance(path, bytes) or not Path(path).is_file():
        raise ValueError(f"path must be an existing plan file (YAML); got {path!r}")
    p = Path(path)
    return from_dict(_yaml.load_file(p, f"plan {p.name}"))
