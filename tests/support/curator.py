"""Shared builders for the curator, revert and runs tests (no tests of its own).

Skills are made through the real command layer (``skill_manage`` as a background review,
which is how the agent comes to own a skill, or a ``skill.created`` event for
provenances only an import or a person produces), so the curator is exercised on
exactly the events an agent's journal holds.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import memoir
import memoir.curator
import memoir.skills
from memoir.api import Memoir
from memoir.clock import FakeClock
from memoir.config import Config
from memoir.engine import Decision
from memoir.engine.commit import Caller
from memoir.events.skills import SkillCreated, SkillPinned
from memoir.events.types import Payload
from memoir.journal import InMemoryJournal
from memoir.skills import record_use, skill_manage_call

START = "2026-01-01T00:00:00+00:00"


def skill_md(name: str, description: str = "", body: str = "") -> str:
    description = description or f"How to {name.replace('-', ' ')}"
    body = body or f"Steps for {name}.\n"
    return f"---\nname: {name}\ndescription: {description}\n---\n{body}"


def open_home(path: Path, *, clock: FakeClock | None = None,
              curator: dict[str, Any] | None = None, in_memory: bool = False) -> Memoir:
    """A home on ``path`` with a fake clock; ``in_memory`` keeps the journal in memory
    (fast, for property tests) while files are still projected under ``path``, then
    synchronously: a property test's temporary folder goes away at the end of each
    example, before a background writer would have run."""
    clock = clock or FakeClock(START)
    raw: dict[str, Any] = {"curator": curator} if curator else {}
    if in_memory:
        raw["projections"] = {"mode": "sync"}
    config = Config.model_validate(raw) if raw else None
    journal = InMemoryJournal(clock=clock) if in_memory else None
    return memoir.open(path, clock=clock, config=config, journal=journal)


def create(m: Memoir, name: str, *, provenance: str = "agent", files: dict[str, str] | None = None,
           pinned: bool = False, protected: bool = False, category: str | None = None,
           actor: str | None = None, content: str | None = None) -> None:
    """Make a skill: agent skills through a background review's ``skill_manage create``
    (Hermes's provenance rule: only those belong to the agent), others as an import or
    a person would record them."""
    text = content or skill_md(name)
    if provenance == "agent" and not protected and category is None:
        result = skill_manage_call(m, {"action": "create", "name": name, "content": text},
            by=actor or "reviewer.skills")
        assert result.get("success"), result
        for path, body in (files or {}).items():
            result = skill_manage_call(m, {"action": "write_file", "name": name,
                                           "file_path": path, "file_content": body},
                                               by=actor or "reviewer.skills")
            assert result.get("success"), result
    else:
        events: list[Payload] = [SkillCreated(
            name=name, content=text, provenance=provenance,  # type: ignore[arg-type]
            files=dict(files or {}), protected=protected, category=category)]
        commit(m, events, actor=actor or ("user" if provenance == "user" else "import"))
    if pinned:
        commit(m, [SkillPinned(name=name)], actor="user")


def commit(m: Memoir, events: list[Payload], *, actor: str = "user",
           run: str | None = None) -> None:
    m.commit(lambda _s: Decision(events=list(events)), by=Caller(actor=actor, run=run))


def use(m: Memoir, name: str) -> None:
    record_use(m, name)


def files_of(home: Path, under: str = "") -> dict[str, bytes]:
    """Every projected file below ``home/under`` (journal and memoir's own folder aside)."""
    root = home / under if under else home
    out = {}
    for p in sorted(root.rglob("*")):
        rel = str(p.relative_to(home))
        if p.is_file() and not rel.startswith((".memoir", "journal")):
            out[rel] = p.read_bytes()
    return out
