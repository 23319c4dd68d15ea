"""The planner panel is a planner: a plan loaded (example or file), every field of the schema editable in its
form, the reverse questions asked, the plan and the answers downloaded -- and the page's answers are what
``vcperf plan`` prints for the downloaded file."""

from __future__ import annotations

import base64
import datetime
import json
import re
import time

import ipywidgets as w
import matplotlib
import pytest

from vcperf import _yaml, cli, site
from vcperf.site.schema import fields
from vcperf.views import planner
from vcperf.views import site as view
from vcperf.views.planner_form import PlanForm, add_label, plan_yaml

matplotlib.use("Agg")

#: A plan with an item in every list, VCHA on and every target: every field of the schema has an input.
FULL = {
    "name": "every field",
    "links": [{"name": "wan", "bandwidth": "10 Mbit/s", "rtt": "80 ms", "loss": "0.01 %"},
              {"name": "lan", "bandwidth": "10 Gbit/s", "rtt": "1 ms"}],
    "branches": [{"name": "shop", "link": "wan", "hosts": 20}],
    "migrations": [{"name": "mig", "link": "wan", "memory": "8 GiB"}],
    "deployments": [{"name": "dep", "link": "wan", "size": "10 GB"}],
    "ft": [{"name": "ftvm", "link": "lan"}],
    "vcenter": {"size": "medium", "vcha": {"link": "wan"}},
    "targets": {"operation_latency_s": "5 s"},
}


def _walk(box):
    yield box
    for c in getattr(box, "children", ()):
        yield from _walk(c)


def _form(panel) -> w.Tab:
    return next(c for c in _walk(panel) if isinstance(c, w.Tab))


def _inputs(panel, title: str) -> dict:
    """The inputs of form page ``title``: description -> widgets (in order)."""
    tab = _form(panel)
    page = tab.children[list(tab.titles).index(title)]
    out: dict = {}
    for c in _walk(page):
        if isinstance(c, w.Text | w.Dropdown | w.Checkbox):
            out.setdefault(c.description, []).append(c)
    return out


def _readout(panel) -> str:
    return next(c for c in panel.children if isinstance(c, w.HTML) and "answer (90 %)" in c.value).value


def _message(panel, cls: str = "vcperf-plan-message") -> str:
    return next(c for c in _walk(panel) if isinstance(c, w.HTML) and cls in c._dom_classes).value


def _downloads(panel) -> dict:
    html = next(c for c in _walk(panel) if isinstance(c, w.HTML) and "vcperf-downloads" in c._dom_classes).value
    return {name: base64.b64decode(data).decode("utf-8")
            for name, data in re.findall(r'download="([^"]+)" href="data:[^;]+;charset=utf-8;base64,([^"]+)"', html)}


def test_every_field_of_the_schema_has_an_input():
    """The form is generated from the schema: every field that is not a list or a mapping gets an input (a
    field added to vcperf.site.schema appears in the form by itself), every optional mapping a checkbox."""
    form = PlanForm(FULL, lambda structure: None)
    shown = {(path.replace("[]", ""), key) for path, _i, key in form.inputs}
    for f in fields():
        if f.kind in ("list", "mapping"):
            continue
        assert (f.parent.replace("[]", ""), f.key) in shown, f.path
    boxes = [c.description for c in _walk(form.tabs) if isinstance(c, w.Checkbox)]
    assert [b for b in boxes if b.startswith("vcha:")], boxes
    # units and ranges beside every quantity
    hints = " ".join(c.value for c in _walk(form.tabs) if isinstance(c, w.HTML))
    assert "ms, s, us, min · [0, 10 s]" in hints and "[0, 50 %]" in hints and "[1, 10,000], whole" in hints


def test_editing_loss_hosts_and_a_target_changes_the_answers_and_the_heading():
    panel = planner.site_planner("branch_20_hosts_10mbit")
    first = _readout(panel)
    assert "link wan at 10 Mbit/s down / 10 Mbit/s up, RTT 80 ms, loss 0.01 %" in first and "(edited)" not in first
    links = _inputs(panel, "Links")
    links["loss"][0].value = "1 %"
    after_loss = _readout(panel)
    assert "(edited)" in after_loss and "loss 1 %" in after_loss and after_loss != first
    _inputs(panel, "Branches")["hosts"][0].value = "200"
    after_hosts = _readout(panel)
    assert after_hosts != after_loss
    _inputs(panel, "Targets")["operation_latency_s"][0].value = "60 s"
    assert "<td>60 s</td>" in _readout(panel)  # the new target, in the readout's unit
    # the sliders follow the form and write into it
    bw = next(c for c in panel.children if isinstance(c, w.FloatLogSlider) and c.description == "rate Mbit/s")
    links["bandwidth"][0].value = "20 Mbit/s"
    assert bw.value == pytest.approx(20, rel=1e-3) and "link wan at 20 Mbit/s" in _readout(panel)
    bw.value = 2.0
    assert links["bandwidth"][0].value == "2 Mbit/s" and "link wan at 2 Mbit/s" in _readout(panel)


def test_a_bad_value_shows_the_parsers_error_and_keeps_the_last_plan():
    panel = planner.site_planner("branch_20_hosts_10mbit")
    before = _readout(panel)
    _inputs(panel, "Links")["loss"][0].value = "0.01"
    msg = _message(panel)
    assert "links[0].loss must carry its unit" in msg and "Traceback" not in msg
    assert _readout(panel) == before
    _inputs(panel, "Links")["rtt"][0].value = "80"  # refused with a suggestion, loss still bad: loss first
    _inputs(panel, "Links")["loss"][0].value = "0.01 %"
    assert "did you mean &#x27;80 ms&#x27;" in _message(panel)
    assert "rtt: 80 ms" in _downloads(panel)[planner.PLAN_FILE]  # the file of the plan shown, not of the refused edit
    _inputs(panel, "Links")["rtt"][0].value = "40 ms"
    assert _message(panel) == "" and "RTT 40 ms" in _readout(panel)
    assert "rtt: 40 ms" in _downloads(panel)[planner.PLAN_FILE]


def test_uploaded_plan_is_loaded_and_a_bad_file_is_one_line(tmp_path):
    panel = planner.site_planner()
    upload = next(c for c in _walk(panel) if isinstance(c, w.FileUpload))
    text = (view.EXAMPLES_DIR / "small_branch_dsl.yaml").read_bytes()
    upload.value = ({"name": "mine.yaml", "type": "", "size": len(text), "content": memoryview(text),
                     "last_modified": datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)},)
    assert "Small branch on DSL — link dsl" in _readout(panel)
    pick = next(c for c in _walk(panel) if isinstance(c, w.Dropdown) and c.description == "plan")
    assert pick.label == "Small branch on DSL (mine.yaml)"
    bad = b"links:\n  - &a {name: wan, bandwidth: 1}\n"
    upload.value = ({"name": "bad.yaml", "type": "", "size": len(bad), "content": memoryview(bad),
                     "last_modified": datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)},)
    msg = _message(panel, "vcperf-upload-note")
    assert "plan &#x27;bad.yaml&#x27;: YAML anchors and aliases are not allowed" in msg and "Traceback" not in msg
    assert "Small branch on DSL" in _readout(panel)


def test_examples_are_listed_by_title():
    panel = planner.site_planner()
    pick = next(c for c in _walk(panel) if isinstance(c, w.Dropdown) and c.description == "plan")
    labels = [label for label, _ in pick.options]
    assert "20-host branch on 10 Mbit/s, 80 ms" in labels and not any(label.endswith(".yaml") for label in labels)
    pick.value = "metro_vmotion"
    assert "Metro pair" in _readout(panel) and "(edited)" not in _readout(panel)


def test_items_are_added_and_removed():
    changes = []
    form = PlanForm(FULL, changes.append)
    add = next(c for c in _walk(form.tabs) if isinstance(c, w.Button) and c.description == "add a branch")
    add.click()
    assert [b["name"] for b in form.raw["branches"]] == ["shop", "branch-1"] and changes == [True]
    assert site.from_dict(form.raw).branches[1].link == "wan"
    for key in ("links", "migrations", "deployments", "ft"):
        n = len(form.raw[key])
        next(c for c in _walk(form.tabs) if isinstance(c, w.Button) and c.description.startswith("add a")
             and c.description == add_label(key)).click()
        assert len(form.raw[key]) == n + 1
        site.from_dict(form.raw)  # a new item is a valid one
    remove = [c for c in _walk(form.tabs) if isinstance(c, w.Button) and c.description == "remove FT VM"]
    for b in remove[::-1]:
        b.click()
    assert "ft" not in form.raw
    vcha = next(c for c in _walk(form.tabs) if isinstance(c, w.Checkbox) and c.description.startswith("vcha:"))
    vcha.value = False
    assert "vcha" not in form.raw["vcenter"] and site.from_dict(form.raw).vcenter.vcha is None


def test_renaming_a_link_renames_its_references():
    form = PlanForm(FULL, lambda structure: None)
    form.inputs[("links", 0, "name")].value = "wan2"
    assert site.from_dict(form.raw).branches[0].link == "wan2"
    assert form.raw["vcenter"]["vcha"]["link"] == "wan2"


@pytest.mark.parametrize("question, subject", [("bandwidth", "wan"), ("rtt", "wan"), ("hosts", "branch")])
def test_page_and_cli_give_the_same_answers(tmp_path, capsys, question, subject):
    """The edited plan downloaded as YAML round-trips through ``vcperf plan``, and the answers downloaded
    (CSV and JSON, the reverse question included) are what ``vcperf plan --format csv|json --solve`` prints for
    that file."""
    panel = planner.site_planner("branch_20_hosts_10mbit")
    _inputs(panel, "Links")["loss"][0].value = "0.02 %"
    _inputs(panel, "Branches")["hosts"][0].value = "12"
    _inputs(panel, "Targets")["operation_latency_s"][0].value = "8 s"
    button = next(c for c in _walk(panel) if isinstance(c, w.Button) and c.description == planner.ASK[question])
    button.click()
    answer = next(c for c in _walk(panel) if isinstance(c, w.HTML) and "vcperf-reverse" in c._dom_classes).value
    assert f"{view.QUESTIONS[question]} of {subject}:" in answer
    files = _downloads(panel)
    assert set(files) == {planner.PLAN_FILE, f"{planner.ANSWERS_FILE}.csv", f"{planner.ANSWERS_FILE}.json"}
    path = tmp_path / planner.PLAN_FILE
    path.write_text(files[planner.PLAN_FILE], encoding="utf-8")
    loaded = site.load(path)
    assert loaded.links[0].loss == pytest.approx(2e-4) and loaded.branches[0].hosts == 12
    assert dict(loaded.targets)["operation_latency_s"] == 8.0
    solve = ["--solve", question] + (["--link", "wan"] if question != "hosts" else [])
    for fmt in ("csv", "json"):
        assert cli.main(["plan", str(path), "--format", fmt, *solve]) == 0
        assert capsys.readouterr().out == files[f"{planner.ANSWERS_FILE}.{fmt}"], fmt
    doc = json.loads(files[f"{planner.ANSWERS_FILE}.json"])
    assert doc["reverse"][0]["question"] == view.QUESTIONS[question] and doc["reverse"][0]["subject"] == subject
    # the same as render() of the page's plan
    e = site.evaluate(site.from_dict(_yaml.loads(files[planner.PLAN_FILE])))
    assert view.render(e, "md").splitlines()[0] == f"# Site plan: {loaded.name}"


def test_plan_yaml_round_trips_every_example():
    for name in view.example_names():
        raw = planner.example_raw(name)
        assert site.from_dict(_yaml.loads(plan_yaml(raw), "x")) == view.example(name)


def test_an_edit_redraws_within_the_goal():
    """Model + redraw of one edit, warm: the plan parsed, evaluated with its intervals, the readout, picture and
    downloads written -- recorded (the 50 ms goal is the bench's to judge); never a recomputation per
    keystroke (text inputs report on Enter or leaving the field)."""
    panel = planner.site_planner("branch_20_hosts_10mbit")
    texts = [c for c in _walk(_form(panel)) if isinstance(c, w.Text)]
    assert texts and all(not c.continuous_update for c in texts)
    hosts = _inputs(panel, "Branches")["hosts"][0]
    times, seen = [], {}
    for n in ("21", "22", "21", "22", "21"):
        t0 = time.perf_counter()
        hosts.value = n
        times.append(time.perf_counter() - t0)
        seen.setdefault(n, set()).add(_readout(panel))
    print(f"planner edit: median {sorted(times)[2] * 1e3:.1f} ms")
    assert len(seen["21"]) == len(seen["22"]) == 1 and seen["21"] != seen["22"]  # each edit redrawn, deterministic
