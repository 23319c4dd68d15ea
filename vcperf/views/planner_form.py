"""The site plan as a form: one input per field of the plan's one description
(:func:`vcperf.site.schema.fields`), so a field added to the schema appears in the planner by itself.

The form edits the plan as written (a dict of YAML values: ``"80 ms"``, ``"0.01 %"``, ``20``), never its
SI dataclasses: what a person types is what the downloaded file holds, and the plan's own parser
(:func:`vcperf.site.from_dict`) reads both. A quantity is a text input taking a number with its unit
(the unit and range shown beside it, the default as its placeholder; an empty input is the default);
a choice is a dropdown; a link reference a dropdown of the plan's links; a list shows each item with
a "remove" button and an "add" button; an optional mapping (VCHA) a checkbox. An input reports a
change on Enter or when it loses focus, never on every keystroke.

Examples
--------
>>> raw = {"links": [{"name": "wan", "bandwidth": "10 Mbit/s"}]}
>>> parse_text(field("links[].rtt"), " 80 ms "), parse_text(field("branches[].hosts"), "20")
('80 ms', 20)
>>> from vcperf import site
>>> site.from_dict(_yaml.loads(plan_yaml(raw))) == site.from_dict(raw)
True
"""

from __future__ import annotations

import copy
import html
import math
import re

import ipywidgets as w
import yaml

from vcperf import _yaml
from vcperf.site.quantities import UNITS
from vcperf.site.schema import EXAMPLE, STRUCTURE, field, fields  # noqa: F401 (field: the examples)
from vcperf.views.format import fmt_bps, fmt_bytes, fmt_bytes_per_s, fmt_duration, fmt_num, fmt_percent

#: Tab titles of the plan's top-level lists and mappings (a container missing here is titled by its key);
#: the plan's own scalar fields (its name) are under :data:`SITE_TAB`.
TITLES = {"links": "Links", "branches": "Branches", "vcenter": "vCenter & VCHA", "migrations": "Migrations",
          "deployments": "Deployments", "ft": "FT VMs", "targets": "Targets"}
SITE_TAB = "Site"
#: What one item of each list is, in words (the "add" button).
ITEMS = {"links": "link", "branches": "branch", "migrations": "migration", "deployments": "deployment",
         "ft": "FT VM"}
#: Field inputs per row in a section (the form spans the page's width) and the width of their names.
COLUMNS, NAME_WIDTH = 2, "170px"
_NUMBER = re.compile(r"^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$")
#: Shown in a choice's dropdown for "absent" (the study's own value).
ABSENT = "(default)"


class _NoAliases(yaml.SafeDumper):
    """A YAML dumper writing no anchors or aliases (the plan's loader refuses them)."""

    def ignore_aliases(self, data):
        return True


def plan_yaml(raw: dict) -> str:
    """The plan ``raw`` (as written: quantities with their units) as a YAML file ``vcperf plan`` reads.

    Examples
    --------
    >>> print(plan_yaml({"name": "x", "links": [{"name": "wan", "rtt": "80 ms"}]}), end="")
    name: x
    links:
    - name: wan
      rtt: 80 ms
    """
    return yaml.dump(raw, Dumper=_NoAliases, sort_keys=False, allow_unicode=True, default_flow_style=False,
                     width=100)


def parse_text(f, text: str):
    """The YAML value of field ``f`` typed as ``text``: ``None`` (absent) when blank, a number when a quantity
    is written without a unit (so the plan's parser judges it as it judges a file: ``loss: 0.01`` is refused
    with a suggestion), else the text itself, stripped.

    Examples
    --------
    >>> parse_text(field("links[].loss"), "0.01"), parse_text(field("links[].loss"), "")
    (0.01, None)
    """
    text = str(text).strip()
    if not text:
        return None
    if f.kind not in STRUCTURE and _NUMBER.match(text):
        x = float(text)
        return int(x) if x.is_integer() and abs(x) < 2**53 and not re.search("[.eE]", text) else x
    return text


def value_text(value) -> str:
    """A YAML value as the text of its input (``""``: absent).

    Examples
    --------
    >>> value_text(None), value_text(20), value_text(0.08), value_text("80 ms")
    ('', '20', '0.08', '80 ms')
    """
    if value is None:
        return ""
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else str(value)
    return str(value)


#: How a bound of each kind of quantity is written (a count: plainly).
_BOUND = {"rate": fmt_bps, "time": fmt_duration, "size": fmt_bytes, "byte_rate": fmt_bytes_per_s,
          "fraction": fmt_percent}


def _range(f) -> str:
    def bound(x: float) -> str:
        return "∞" if math.isinf(x) else "0" if x == 0 else _BOUND.get(f.kind, fmt_num)(x, 6)  # exact bounds

    whole = ", whole" if f.integer else ""
    return f"{'(' if f.lo_open else '['}{bound(f.lo)}, {bound(f.hi)}{')' if math.isinf(f.hi) else ']'}{whole}"


def hint(f) -> str:
    """The unit(s) and range of a quantity field, shown beside its input.

    Examples
    --------
    >>> hint(field("links[].rtt")), hint(field("links[].bandwidth"))
    ('ms, s, us, min · [0, 10 s]', 'Mbit/s, Gbit/s, kbit/s · (0, 1 Tbit/s]')
    """
    if f.kind == "count":
        return f"count · {_range(f)}"
    units = list(UNITS[f.kind])
    common = {"rate": ["Mbit/s", "Gbit/s", "kbit/s"], "time": ["ms", "s", "us", "min"],
              "size": ["GiB", "GB", "MB", "TB"], "byte_rate": ["MB/s", "GB/s", "MiB/s"]}.get(f.kind, units)
    return f"{', '.join(u for u in common if u in units)} · {_range(f)}"


def placeholder(f) -> str:
    """What an empty input means: the field's default (as a plan writes it) or the study's own value."""
    if f.required:
        return "required"
    if f.default is None:
        return f.absent or "absent"
    if f.kind == "fraction" and f.default == 0:
        return "0 %"
    return f"{f.default}{' ' + f.unit if f.unit and f.default else ''}"


def _starter() -> dict:
    """The first item of each list in the reference page's example (a new item starts from its fields)."""
    doc = _yaml.loads(EXAMPLE, "the plan reference's example")
    return {key: items[0] for key, items in doc.items() if isinstance(items, list) and items}


def add_label(key: str) -> str:
    """The "add" button of list ``key``.

    Examples
    --------
    >>> add_label("links"), add_label("ft")
    ('add a link', 'add an FT VM')
    """
    what = ITEMS.get(key, "item")
    return f"add {'an' if what[0] in 'aeiouF' else 'a'} {what}"  # "an FT VM": the letter F is said "eff"


def new_item(raw: dict, key: str) -> dict:
    """A new item of list ``key`` for plan ``raw``: a unique name, the first link, the required fields of
    the reference example's item (only those).

    Examples
    --------
    >>> new_item({"links": [{"name": "wan", "bandwidth": "10 Mbit/s"}], "branches": [{"name": "branch-1"}]},
    ...          "branches")
    {'name': 'branch-2', 'link': 'wan'}
    """
    taken = {str(i.get("name")) for k in ITEMS for i in raw.get(k) or [] if isinstance(i, dict)}
    what = ITEMS.get(key, key).replace(" ", "-").lower()
    n = 1
    while f"{what}-{n}" in taken:
        n += 1
    links = [i.get("name") for i in raw.get("links") or [] if isinstance(i, dict)]
    starter = _starter().get(key, {})
    item: dict = {}
    for f in fields():
        if f.parent != f"{key}[]" or not f.required:
            continue
        if f.kind == "name":
            item[f.key] = f"{what}-{n}"
        elif f.kind == "link":
            item[f.key] = links[0] if links else ""
        else:
            item[f.key] = starter[f.key]
    return item


def put(holder: dict, f, value) -> None:
    """Set field ``f`` of mapping ``holder`` to ``value``: in its place if it is there, else before the first key
    that follows it in the schema (the rest of the plan keeps the order it was written in).

    Examples
    --------
    >>> d = {"name": "wan", "loss": "0.01 %"}
    >>> put(d, field("links[].rtt"), "80 ms"); d
    {'name': 'wan', 'rtt': '80 ms', 'loss': '0.01 %'}
    """
    if f.key in holder:
        holder[f.key] = value
        return
    order = [g.key for g in fields() if g.parent == f.parent]
    rank = order.index(f.key)
    items = list(holder.items())
    at = next((i for i, (k, _) in enumerate(items) if k in order and order.index(k) > rank), len(items))
    items.insert(at, (f.key, value))
    holder.clear()
    holder.update(items)


def _close(widget, keep=()) -> None:
    """Close ``widget`` and every widget inside it, except those in ``keep`` (shown again elsewhere)."""
    if any(widget is k for k in keep):
        return
    for child in getattr(widget, "children", ()):
        _close(child, keep)
    widget.close()


class PlanForm:
    """The form of a plan: :attr:`tabs` (one page per top-level list or mapping, generated from the schema)
    edits :attr:`raw` in place and calls ``on_change(structure)`` after each change (``structure``: an item
    or a mapping added or removed, a link renamed).

    Parameters
    ----------
    raw : dict
        The plan as written (copied).
    on_change : callable
        Called with one bool after each edit.
    site_extra : sequence of ipywidgets.Widget
        Shown under the plan's own fields (its name), on the first page.
    """

    def __init__(self, raw: dict, on_change, site_extra=()):
        self.raw = copy.deepcopy(raw)
        self.on_change = on_change
        self.site_extra = tuple(site_extra)
        self.inputs: dict = {}  # (container path, index, key) -> widget, for refresh()
        self.tabs = w.Tab(layout=w.Layout(width="100%"))
        self.tabs.add_class("vcperf-plan-form")
        self._quiet = False
        self.rebuild()

    # --- building ----------------------------------------------------------------------------------
    def rebuild(self) -> None:
        """Build every page's inputs from :attr:`raw` (after a structural change or a new plan). The pages
        themselves stay (a tab shown stays shown); their old inputs are closed."""
        self.inputs = {}
        content, titles = [w.VBox([self._section("", self.raw), *self.site_extra])], [SITE_TAB]
        for f in fields():
            if f.parent or f.kind not in ("list", "mapping"):
                continue
            titles.append(TITLES.get(f.key, f.key))
            content.append(self._list(f) if f.kind == "list" else self._section(f.path, self._mapping(f.path)))
        if not self.tabs.children:
            self.tabs.children = [w.VBox(layout=w.Layout(width="100%")) for _ in content]
            self.tabs.titles = titles
            self.tabs.selected_index = 0
        for page, inputs in zip(self.tabs.children, content, strict=True):
            old, page.children = page.children, (inputs,)
            for widget in old:  # the replaced inputs' comms closed (a long session would keep them all otherwise)
                _close(widget, keep=self.site_extra)

    def set_raw(self, raw: dict) -> None:
        """Show plan ``raw`` (copied) instead."""
        self.raw = copy.deepcopy(raw)
        self.rebuild()

    def _mapping(self, path: str) -> dict | None:
        """The mapping at ``path`` in :attr:`raw` (``None``: absent)."""
        d = self.raw
        for key in path.split("."):
            d = d.get(key) if isinstance(d, dict) else None
        return d if isinstance(d, dict) else None

    def _section(self, path: str, d: dict | None, index: int | None = None) -> w.Box:
        """The inputs of the fields of mapping ``path`` (``d``), nested optional mappings after them."""
        cells, nested = [], []
        for f in fields():
            if f.parent != (f"{path}[]" if index is not None else path):
                continue
            if f.kind == "mapping" and f.parent:  # an optional mapping in a mapping (the plan's own: tabs)
                nested.append(self._optional(f, d))
            elif f.kind not in ("list", "mapping"):
                cells.append(self._input(f, d, path, index))
        grid = w.GridBox(cells, layout=w.Layout(grid_template_columns=f"repeat({COLUMNS}, minmax(0, 1fr))",
                                                grid_gap="2px 12px", width="100%"))
        return w.VBox([grid, *nested], layout=w.Layout(width="100%"))

    def _optional(self, f, parent: dict | None) -> w.Box:
        """A checkbox for an optional mapping (absent: off), its fields under it while on."""
        present = isinstance(parent, dict) and isinstance(parent.get(f.key), dict)
        box = w.Checkbox(value=present, description=f"{f.key}: {f.meaning}", indent=False,
                         layout=w.Layout(width="auto"))

        def toggle(change):
            holder = self._ensure(f.parent)
            if change["new"]:
                put(holder, f, {g.key: self._fresh(g) for g in fields() if g.parent == f.path and g.required})
            else:
                holder.pop(f.key, None)
            self.rebuild()
            self.on_change(True)

        box.observe(toggle, names="value")
        return w.VBox([box] + ([self._section(f.path, parent[f.key])] if present else []))

    def _fresh(self, f):
        links = [i.get("name") for i in self.raw.get("links") or [] if isinstance(i, dict)]
        return links[0] if f.kind == "link" and links else ""

    def _ensure(self, path: str) -> dict:
        """The mapping at ``path``, created (empty) where absent."""
        d = self.raw
        for key in [k for k in path.split(".") if k]:
            if not isinstance(d.get(key), dict):
                d[key] = {}
            d = d[key]
        return d

    def _list(self, f) -> w.Box:
        items = self.raw.get(f.key) or []
        rows = []
        for i, item in enumerate(items):
            if not isinstance(item, dict):
                continue
            remove = w.Button(description=f"remove {ITEMS.get(f.key, 'item')}", layout=w.Layout(width="auto"))
            remove.on_click(lambda _b, i=i: self._remove(f.key, i))
            what = ITEMS.get(f.key, "item")
            head = w.HTML(f"<b>{html.escape(what[0].upper() + what[1:])} {i + 1}: "
                          f"{html.escape(str(item.get('name', '')))}</b>")
            rows.append(w.VBox([w.HBox([head, remove]), self._section(f.key, item, i)],
                               layout=w.Layout(border="1px solid #ddd", padding="2px 6px", margin="2px 0")))
        add = w.Button(description=add_label(f.key), layout=w.Layout(width="auto",
                                                                                      align_self="flex-start"))
        add.on_click(lambda _b: self._add(f.key))
        return w.VBox([w.HTML(f"<i>{html.escape(f.meaning)}</i>"), *rows, add], layout=w.Layout(width="100%"))

    def _add(self, key: str) -> None:
        self.raw.setdefault(key, [])
        if not isinstance(self.raw[key], list):
            self.raw[key] = []
        self.raw[key].append(new_item(self.raw, key))
        self.rebuild()
        self.on_change(True)

    def _remove(self, key: str, i: int) -> None:
        items = self.raw.get(key) or []
        if 0 <= i < len(items):
            del items[i]
        if not items:
            self.raw.pop(key, None)
        self.rebuild()
        self.on_change(True)

    def _input(self, f, d: dict | None, path: str, index: int | None):
        """One field's input: a dropdown (choices, links) or a text input with its unit and range."""
        value = d.get(f.key) if isinstance(d, dict) else None
        caption = {"description": f.key, "style": {"description_width": NAME_WIDTH}, "tooltip": f.meaning}
        if f.kind == "link":
            links = [str(i.get("name")) for i in self.raw.get("links") or [] if isinstance(i, dict)]
            options = links + ([str(value)] if value is not None and str(value) not in links else [])
            control = w.Dropdown(options=options, value=None if value is None else str(value), **caption)
            note = ""
        elif f.kind == "choice":
            options = ([] if f.default is not None else [(f"{ABSENT}: {f.absent}", None)]) + list(f.choices)
            shown = f.default if value is None else value
            if shown not in [o[1] if isinstance(o, tuple) else o for o in options]:
                options.append(shown)
            control = w.Dropdown(options=options, value=shown, **caption)
            note = ""
        else:
            control = w.Text(value=value_text(value), placeholder=placeholder(f), continuous_update=False, **caption)
            note = hint(f) if f.kind in UNITS else ""
        control.layout = w.Layout(width="100%" if not note else "58%")
        self.inputs[(path, index, f.key)] = control
        written = isinstance(d, dict) and f.key in d  # a choice set back to its default is written only if it was
        control.observe(lambda change: self._edited(f, path, index, change["new"], written), names="value")
        if not note:
            return control
        label = w.HTML(f"<span title='{html.escape(f.meaning)}' style='font-size:smaller;color:#555'>"
                       f"{html.escape(note)}</span>", layout=w.Layout(width="42%"))
        return w.HBox([control, label], layout=w.Layout(width="100%", align_items="center"))

    # --- editing -----------------------------------------------------------------------------------
    def _holder(self, path: str, index: int | None) -> dict:
        if index is not None:
            return self.raw[path][index]
        return self._ensure(path)

    def _edited(self, f, path: str, index: int | None, new, written: bool = True) -> None:
        if self._quiet:
            return
        holder = self._holder(path, index)
        value = parse_text(f, new) if isinstance(new, str) and f.kind not in ("link", "choice") else new
        old = holder.get(f.key)
        if value is None or (f.kind == "choice" and value == f.default and not written):
            holder.pop(f.key, None)
        else:
            put(holder, f, value)
        structure = f.path == "links[].name" and old != value
        if structure:  # a renamed link: every reference to it follows
            for key in ITEMS:
                for item in self.raw.get(key) or []:
                    if isinstance(item, dict) and item.get("link") == old:
                        item["link"] = value
            vcha = self._mapping("vcenter.vcha")
            if vcha is not None and vcha.get("link") == old:
                vcha["link"] = value
            self.rebuild()
        if path and not self._mapping(path.split(".")[0]) and index is None and not holder:
            self.raw.pop(path.split(".")[0], None)  # an emptied top-level mapping (no targets) is left out
        self.on_change(structure)

    def refresh(self) -> None:
        """Show :attr:`raw`'s values in the inputs (after a change made elsewhere: the link's sliders),
        without reporting them as edits."""
        self._quiet = True
        try:
            for (path, index, key), control in self.inputs.items():
                d = self.raw.get(path)[index] if index is not None else (self._mapping(path) if path else self.raw)
                value = d.get(key) if isinstance(d, dict) else None
                if isinstance(control, w.Text):
                    control.value = value_text(value)
        finally:
            self._quiet = False
