"""Properties of revert over generated journals: undoing a run that nothing later touched
gives the state the journal would have without it; undoing the revert gives back the
state before it; a forced revert puts every entity of the run back as it was."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from hypothesis import assume, event, given, settings
from hypothesis import strategies as st

from memoir.api import Memoir
from memoir.engine import Decision
from memoir.engine.commit import Caller
from memoir.events.curator import CuratorPaused, CuratorResumed
from memoir.events.memory import EntryAdded, EntryRemoved, EntryReplaced
from memoir.events.runs import RunStarted
from memoir.events.skills import (
    SkillArchived,
    SkillContentSet,
    SkillCreated,
    SkillDeleted,
    SkillFileRemoved,
    SkillFileWritten,
    SkillPinned,
    SkillRestored,
    SkillStateChanged,
    SkillUnpinned,
    SkillUsed,
    SkillViewed,
)
from memoir.events.types import Payload
from memoir.oversight.revert import change_keys, revert_run
from memoir.projections.state import State
from tests.support.curator import open_home

SKILLS = ["alpha", "beta", "gamma"]
TEXT = st.text(alphabet="abcxyz ", min_size=1, max_size=6).map(str.strip).filter(bool)


def command(data: st.DataObject, state: State, i: int) -> list[Payload]:
    """One generated change, valid against ``state``."""
    skills = state.skills.skills
    entries = {t: state.memory.target(t).entries for t in ("memory", "user")}
    kinds = ["add", "add", "create", "pause"]
    if any(entries.values()):
        kinds += ["remove", "replace"]
    if skills:
        kinds += ["content", "file", "pin", "archive", "delete", "telemetry", "state"]
    kind = data.draw(st.sampled_from(kinds))
    out: list[Payload] = []
    if kind == "add":
        target = data.draw(st.sampled_from(["memory", "user"]))
        for j in range(data.draw(st.integers(1, 2))):
            out.append(EntryAdded(target=target, entry_id=f"e{i}-{j}",  # type: ignore[arg-type]
                                  text=data.draw(TEXT)))
    elif kind in ("remove", "replace"):
        target = data.draw(st.sampled_from([t for t, e in entries.items() if e]))
        entry = data.draw(st.sampled_from(entries[target]))
        if kind == "remove":
            out.append(EntryRemoved(target=target, entry_id=entry.id,  # type: ignore[arg-type]
                                    previous=entry.text,
                                    position=entries[target].index(entry)))
        else:
            out.append(EntryReplaced(target=target, entry_id=entry.id,  # type: ignore[arg-type]
                                     text=data.draw(TEXT), previous=entry.text))
    elif kind == "create":
        free = [n for n in SKILLS if n not in skills]
        if free:
            name = data.draw(st.sampled_from(free))
            out.append(SkillCreated(name=name, content=f"v{i}", provenance="agent",
                                    files={"references/r.md": f"r{i}"}))
    elif kind == "pause":
        out.append(CuratorResumed() if state.curator.paused else CuratorPaused())
    else:
        name = data.draw(st.sampled_from(sorted(skills)))
        record = skills[name]
        if kind == "content":
            out.append(SkillContentSet(name=name, content=f"c{i}", previous=record.content))
        elif kind == "file":
            path = data.draw(st.sampled_from(["references/r.md", "scripts/s.sh"]))
            if path in record.files and data.draw(st.booleans()):
                out.append(SkillFileRemoved(name=name, file=path, previous=record.files[path]))
            else:
                out.append(SkillFileWritten(name=name, file=path, content=f"f{i}",
                                            previous=record.files.get(path)))
        elif kind == "pin":
            out.append(SkillUnpinned(name=name) if record.pinned else SkillPinned(name=name))
        elif kind == "archive":
            if record.state == "archived":
                out.append(SkillRestored(name=name))
            else:
                out.append(SkillArchived(name=name, reason="prune",
                                         previous_state=record.state))  # type: ignore[arg-type]
        elif kind == "delete":
            out.append(SkillDeleted(name=name, content=record.content, files=dict(record.files),
                                    provenance="agent", created_by=record.created_by))
        elif kind == "state" and record.state in ("active", "stale"):
            to = "stale" if record.state == "active" else "active"
            out.append(SkillStateChanged(name=name, from_state=record.state,  # type: ignore[arg-type]
                                         to_state=to))  # type: ignore[arg-type]
        else:
            out.append(SkillUsed(name=name) if data.draw(st.booleans()) else SkillViewed(name=name))
    return out


PRELUDE: list[Payload] = [
    SkillCreated(name="alpha", content="a0", provenance="agent", files={"references/r.md": "r"}),
    SkillCreated(name="beta", content="b0", provenance="user"),
    EntryAdded(target="memory", entry_id="m0", text="first"),
    EntryAdded(target="memory", entry_id="m1", text="second"),
    EntryAdded(target="user", entry_id="u0", text="name"),
]


def build(data: st.DataObject, home: Path, n: int) -> tuple[Memoir, list[list[Payload]]]:
    """A journal of ``n`` generated runs after a prelude run of skills and entries."""
    m = open_home(home, in_memory=True)
    runs: list[list[Payload]] = [list(PRELUDE)]
    apply_run(m, 0, PRELUDE)
    for i in range(1, n + 1):
        payloads = command(data, m.state, i)
        runs.append(payloads)
        if payloads:
            apply_run(m, i, payloads)
    return m, runs


def apply_run(m: Memoir, i: int, payloads: list[Payload]) -> None:
    events = [RunStarted(run_id=f"r{i}", kind="cli", summary="generated"), *payloads]
    m.commit(lambda _s: Decision(events=events), by=Caller(actor="user", run=f"r{i}"))


def picture(state: State) -> dict[str, Any]:
    """What a revert restores, telemetry and times aside."""
    return {
        "memory": {t: [(e.id, e.text) for e in state.memory.target(t).entries]
                   for t in ("memory", "user")},
        "skills": {n: (r.category, r.content, r.files, r.state, r.pinned, r.provenance,
                       r.created_by) for n, r in state.skills.skills.items()},
        "paused": state.curator.paused,
    }


def keys_of(m: Memoir, run: str) -> set[str]:
    return {k for e in m.events(run=run) for k in change_keys(e)}


@settings(max_examples=60)
@given(data=st.data(), n=st.integers(1, 12))
def test_reverting_an_untouched_run_gives_the_journal_without_it(data: st.DataObject,
                                                                   n: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        m, runs = build(data, Path(tmp) / "a", n)
        applied = [i for i, p in enumerate(runs) if p]
        untouched = [i for i in applied
                     if not keys_of(m, f"r{i}") & set().union(*(
                         keys_of(m, f"r{j}") for j in applied if j > i))]
        assume(untouched)
        k = data.draw(st.sampled_from(untouched))
        event(" ".join(sorted({p.TYPE for p in runs[k]})))
        before = picture(m.state)
        plan = revert_run(m, f"r{k}")
        assert plan.conflicts == []
        without = open_home(Path(tmp) / "b", in_memory=True)
        for i in applied:
            if i != k:
                apply_run(without, i, runs[i])
        assert picture(m.state) == picture(without.state)
        revert_run(m, plan.run_id)
        assert picture(m.state) == before


@settings(max_examples=40)
@given(data=st.data(), n=st.integers(1, 12))
def test_a_forced_revert_puts_every_entity_of_the_run_back(data: st.DataObject, n: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        m, runs = build(data, Path(tmp), n)
        applied = [i for i, p in enumerate(runs) if p]
        assume(applied)
        k = data.draw(st.sampled_from(applied))
        run = m.state.runs[f"r{k}"]
        pre = picture(m.view(run.first_seq - 1))
        revert_run(m, f"r{k}", on_conflict="force")
        now = picture(m.state)
        for key in keys_of(m, f"r{k}"):
            kind, _, rest = key.partition(":")
            if kind == "skill":
                assert now["skills"].get(rest) == pre["skills"].get(rest), key
            elif kind == "memory":
                target, _, entry_id = rest.partition(":")
                assert (dict(now["memory"][target]).get(entry_id)
                        == dict(pre["memory"][target]).get(entry_id)), key
            else:
                assert now["paused"] == pre["paused"]
