"""Consolidation plans: parsing Hermes's structured form, the hard rules, the built-in
planner, and applying a plan as one run."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memoir.api import Memoir
from memoir.clock import FakeClock
from memoir.curator import Plan, load_plan, parse_plan, rules_plan, run_pass, validate_plan
from memoir.curator.plans import Consolidation, Pruning, Umbrella, plan_from_data
from memoir.errors import ValidationError
from memoir.events.skills import SkillDeleted, SkillWriteRejected
from tests.support.curator import START, create, files_of, open_home

PLAN_MD = """\
Merged the pdf tools.

## Structured summary (required)

```yaml
consolidations:
  - from: pdf-split
    into: pdf-tools
    reason: same library
prunings:
  - name: old-thing
    reason: superseded
```
"""


def library(home: Path, **kw: Any) -> Memoir:
    m = open_home(home, clock=FakeClock(START), **kw)
    for name in ("pdf-tools", "pdf-split", "pdf-merge", "old-thing", "web-fetch", "web-crawl"):
        create(m, name)
    create(m, "pinned-one", pinned=True)
    create(m, "plan", protected=True)
    create(m, "builtin", provenance="bundled")
    create(m, "hubbed", provenance="hub")
    create(m, "notes", provenance="user")
    return m


# -- parsing -------------------------------------------------------------------------------------


def test_the_first_fenced_yaml_block_of_a_markdown_answer_is_the_plan() -> None:
    plan, refused = parse_plan(PLAN_MD)
    assert refused == []
    assert plan.consolidations == (Consolidation(source="pdf-split", into="pdf-tools",
                                                 reason="same library"),)
    assert plan.prunings == (Pruning(name="old-thing", reason="superseded"),)


def test_a_plain_yaml_file_is_a_plan_too(tmp_path: Path) -> None:
    path = tmp_path / "plan.yaml"
    path.write_text("consolidations: []\nprunings:\n  - {name: x}\n", encoding="utf-8")
    plan, _ = load_plan(path)
    assert plan.prunings == (Pruning(name="x"),) and plan.source == "plan-file"


def test_malformed_items_become_refusals_not_errors() -> None:
    plan, refused = plan_from_data({"consolidations": [{"from": "a"}, "junk", {"from": "b",
                                                                               "into": "c"}],
                                    "prunings": [{"name": ["x"]}]})
    assert [c.source for c in plan.consolidations] == ["b"]
    assert [(r.kind, r.name) for r in refused] == [
        ("consolidation", "a"), ("consolidation", ""), ("pruning", "")]


@pytest.mark.parametrize("text, message", [
    ("consolidations: [unclosed", "not valid YAML"),
    ("- just a list", "a plan is a mapping"),
    ("consolidation: []", "unknown key(s) consolidation"),
    ("prunings: {name: x}", "'prunings' must be a list"),
])
def test_an_unreadable_plan_is_a_one_line_error(text: str, message: str) -> None:
    with pytest.raises(ValidationError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_plan(text)


# -- the hard rules ------------------------------------------------------------------------------


@pytest.mark.parametrize("item, reason", [
    ({"from": "pinned-one", "into": "pdf-tools"}, "pinned"),
    ({"from": "plan", "into": "pdf-tools"}, "protected"),
    ({"from": "builtin", "into": "pdf-tools"}, "bundled"),
    ({"from": "hubbed", "into": "pdf-tools"}, "hub"),
    ({"from": "notes", "into": "pdf-tools"}, "person"),
    ({"from": "pdf-split", "into": "notes"}, "person"),
    ({"from": "pdf-split", "into": "pinned-one"}, "pinned"),
    ({"from": "pdf-split", "into": "pdf-split"}, "into itself"),
    ({"from": "pdf-split", "into": "nowhere"}, "does not exist"),
    ({"from": "ghost", "into": "pdf-tools"}, "no skill named"),
])
def test_consolidations_that_break_a_hard_rule_are_refused(home: Path, item: dict[str, str],
                                                          reason: str) -> None:
    m = library(home)
    plan, _ = plan_from_data({"consolidations": [item]})
    accepted, refused = validate_plan(m.state.skills.skills, plan, state=m.state)
    assert accepted.empty
    [refusal] = refused
    assert reason in refusal.reason


def test_every_archived_skill_appears_in_exactly_one_list(home: Path) -> None:
    m = library(home)
    plan, _ = plan_from_data({
        "consolidations": [{"from": "pdf-split", "into": "pdf-tools"},
                           {"from": "pdf-split", "into": "web-fetch"},
                           {"from": "pdf-tools", "into": "web-fetch"}],
        "prunings": [{"name": "pdf-split"}, {"name": "old-thing"}, {"name": "pdf-tools"}],
    })
    accepted, refused = validate_plan(m.state.skills.skills, plan, state=m.state)
    assert [c.source for c in accepted.consolidations] == ["pdf-split"]
    assert [p.name for p in accepted.prunings] == ["old-thing"]
    assert len(refused) == 4


def test_a_new_umbrella_must_be_declared_and_used(home: Path) -> None:
    m = library(home)
    plan, _ = plan_from_data({
        "umbrellas": [{"name": "web", "description": "Web access"},
                      {"name": "unused"}, {"name": "pdf-tools"}, {"name": "Bad Name"}],
        "consolidations": [{"from": "web-fetch", "into": "web"}],
    })
    accepted, refused = validate_plan(m.state.skills.skills, plan, state=m.state)
    assert accepted.umbrellas == (Umbrella(name="web", description="Web access"),)
    assert sorted(r.name for r in refused) == ["Bad Name", "pdf-tools", "unused"]


# -- the built-in planner ----------------------------------------------------------------------


def test_rules_plan_merges_prefix_clusters_into_their_namesake_or_a_new_umbrella(
        home: Path) -> None:
    m = library(home)
    create(m, "pdf")
    plan = rules_plan(m.state.skills.skills, state=m.state)
    assert plan.source == "memoir-rules"
    assert {(c.source, c.into) for c in plan.consolidations} == {
        ("pdf-tools", "pdf"), ("pdf-split", "pdf"), ("pdf-merge", "pdf"),
        ("web-fetch", "web"), ("web-crawl", "web")}
    assert [u.name for u in plan.umbrellas] == ["web"]


def test_rules_plan_leaves_clusters_whose_namesake_it_may_not_change(home: Path) -> None:
    m = library(home)
    create(m, "web", provenance="user")
    plan = rules_plan(m.state.skills.skills, state=m.state)
    assert {c.into for c in plan.consolidations} == {"pdf"}


# -- applying a plan -------------------------------------------------------------------------------


def test_a_plan_is_applied_as_one_run_and_refusals_are_journaled(home: Path,
                                                                 tmp_path: Path) -> None:
    m = library(home)
    create(m, "pdf-extra", files={"scripts/run.sh": "echo hi", "references/api.md": "API"},
           content="---\nname: pdf-extra\ndescription: Extra\n---\nRun scripts/run.sh; "
                   "read references/api.md.\n")
    plan, refused = parse_plan(
        "consolidations:\n"
        "  - {from: pdf-extra, into: pdf-tools, reason: same library}\n"
        "  - {from: builtin, into: pdf-tools}\n"
        "prunings:\n  - {name: old-thing, reason: superseded}\n")
    result = run_pass(m, plan=plan, plan_refusals=refused)
    assert result is not None
    run_events = [e for e in m.events(run=result.run_id)]
    assert {e.actor for e in run_events} == {"curator"}
    types = [e.type for e in run_events]
    assert types.count("curator.plan_accepted") == 1
    rejected = [e.data for e in run_events if isinstance(e.data, SkillWriteRejected)]
    assert [r.name for r in rejected] == ["builtin"]
    skills = m.state.skills.skills
    assert skills["pdf-extra"].state == "archived"
    assert skills["pdf-extra"].absorbed_into == "pdf-tools"
    assert skills["old-thing"].archive_reason == "superseded"
    umbrella = skills["pdf-tools"]
    assert umbrella.files["scripts/pdf-extra/run.sh"] == "echo hi"
    page = umbrella.files["references/pdf-extra.md"]
    assert "../scripts/pdf-extra/run.sh" in page and "pdf-extra/api.md" in page
    assert "[references/pdf-extra.md](references/pdf-extra.md)" in umbrella.content
    assert skills["builtin"].state == "active"
    assert result.summary.startswith("auto: no changes; consolidation: plan-file: 1 consolidated, "
                                     "1 pruned, 1 refused\narchived 2 skill(s):")


def test_a_new_umbrella_lists_its_siblings_and_keeps_their_text(home: Path) -> None:
    m = library(home)
    result = run_pass(m, use_rules=True)
    assert result is not None
    web = m.state.skills.skills["web"]
    assert web.provenance == "agent" and web.created_by == "agent"
    assert web.content.startswith("---\nname: web\n")
    assert "`web-crawl`" in web.content and "`web-fetch`" in web.content
    assert "Steps for web-fetch." in web.files["references/web-fetch.md"]
    m.flush()
    assert (home / "skills/web/references/web-crawl.md").exists()
    assert result.report["added"] == ["pdf", "web"]


def test_dry_run_prints_the_changes_and_appends_nothing(home: Path) -> None:
    m = library(home)
    head = m.head
    m.flush()
    before = files_of(home)
    result = run_pass(m, use_rules=True, dry_run=True)
    assert result is not None and result.dry_run
    assert len(result.changes) > 0 and result.summary.startswith("dry-run auto: ")
    m.flush()
    assert m.head == head and files_of(home) == before


# -- the property: no plan can make the curator break a hard rule --------------------------------

NAMES = ["pdf-tools", "pdf-split", "old-thing", "pinned-one", "plan", "builtin", "hubbed",
         "notes", "ghost", "pdf", "web", "Bad Name", ""]
NAME = st.sampled_from(NAMES) | st.text(max_size=8)
VALUE = NAME | st.integers() | st.none() | st.lists(st.integers(), max_size=2)
ITEM = st.dictionaries(st.sampled_from(["from", "into", "name", "reason", "description"]),
                       VALUE, max_size=4) | VALUE
PLAN = st.fixed_dictionaries({}, optional={
    "consolidations": st.lists(ITEM, max_size=6),
    "prunings": st.lists(ITEM, max_size=4),
    "umbrellas": st.lists(ITEM, max_size=2),
})
UNTOUCHABLE = {"pinned-one", "plan", "builtin", "hubbed", "notes"}


@settings(max_examples=60)
@given(data=PLAN, prune_builtins=st.booleans())
def test_no_plan_makes_the_curator_delete_or_touch_a_guarded_skill(
        data: dict[str, Any], prune_builtins: bool) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        m = library(Path(tmp), curator={"prune_builtins": prune_builtins}, in_memory=True)
        try:
            plan, refused = plan_from_data(data)
        except ValidationError:
            return
        before = {n: (r.content, dict(r.files), r.state, r.pinned)
                  for n, r in m.state.skills.skills.items()}
        result = run_pass(m, plan=plan, plan_refusals=refused)
        assert result is not None
        for event in result.events:
            assert not isinstance(event.data, SkillDeleted)
            name = getattr(event.data, "name", None)
            if name in UNTOUCHABLE and event.type.startswith("skill."):
                assert isinstance(event.data, SkillWriteRejected), event
        after = m.state.skills.skills
        for name in UNTOUCHABLE:
            r = after[name]
            assert (r.content, r.files, r.state, r.pinned) == before[name]
        assert set(before) <= set(after)
        archived = [getattr(e.data, "name", "") for e in result.events
                    if e.type == "skill.archived"]
        assert len(archived) == len(set(archived))
        assert isinstance(result.plan, Plan)
