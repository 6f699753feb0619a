"""Skill telemetry written by Hermes, taken into the journal.

A Hermes agent that shares a home with memoir bumps ``skills/.usage.json`` itself (a
view, a use, a patch, ``hermes curator pin``, its curator's stale marks).  Those
records are adopted as events — ``skill.usage_set`` for counts and dates,
``skill.pinned`` / ``skill.unpinned``, ``skill.state_changed`` between ``active`` and
``stale`` — rather than left as a file that differs from memoir's for ever.
:func:`record_events` is also how ``memoir import hermes`` reads a record.
"""

from __future__ import annotations

import json
from typing import Any

from memoir.engine.adoption import adopt
from memoir.engine.files import FilesView
from memoir.engine.port import Home
from memoir.events.skills import SkillPinned, SkillStateChanged, SkillUnpinned, SkillUsageSet
from memoir.events.types import Payload
from memoir.projections.render.skills import USAGE_FILE, usage_json
from memoir.projections.skills import SkillRecord
from memoir.projections.state import State

__all__ = ["USAGE_FILE", "adopt_usage", "adoption_events", "record_events"]

_TIMES = ("created_at", "last_used_at", "last_viewed_at", "last_patched_at", "archived_at")
_COUNTS = ("use_count", "view_count", "patch_count")


def _values(raw: dict[str, Any], archived: bool) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for key in _TIMES:
        value = raw.get(key)
        values[key] = value if isinstance(value, str) and value else None
    for key in _COUNTS:
        value = raw.get(key)
        values[key] = value if isinstance(value, int) and not isinstance(value, bool) \
            and value >= 0 else 0
    if not archived:
        values["archived_at"] = None
    return values


def record_events(name: str, record: SkillRecord, raw: dict[str, Any], *,
                  source: str = "hermes", reason: str = "as Hermes recorded it"
                  ) -> list[Payload]:
    """The events that bring ``record`` to the Hermes usage record ``raw``: its counts
    and dates, its pin, its state between active and stale (archiving is not telemetry).
    Empty when they already agree."""
    events: list[Payload] = []
    values = _values(raw, record.archived)
    if any(getattr(record, key) != values[key] for key in (*_TIMES, *_COUNTS)
           if not (key == "created_at" and values[key] is None)):
        events.append(SkillUsageSet(name=name, source=source, **values))
    pinned = raw.get("pinned")
    if isinstance(pinned, bool) and pinned != record.pinned:
        events.append(SkillPinned(name=name) if pinned else SkillUnpinned(name=name))
    state = raw.get("state")
    if not record.archived and state in ("active", "stale") and state != record.state:
        events.append(SkillStateChanged(name=name, from_state=record.state,  # type: ignore[arg-type]
                                        to_state=state, reason=reason))
    return events


def adoption_events(state: State, files: FilesView) -> tuple[list[Payload], list[str]]:
    """Events that adopt ``.usage.json`` as Hermes last wrote it, and the file's path
    when it may be written again from the journal: only when every record in it is of
    a skill the journal knows (a record of a skill Hermes just created waits until its
    folder is adopted, rather than be dropped).  A file memoir wrote, a missing one or
    one that is not a JSON object is not adopted."""
    drift = files.drifted(USAGE_FILE, lambda: usage_json(state))
    if drift is None or drift.actual is None or drift.kind != "edited":
        return [], []
    try:
        data = json.loads(drift.actual)
    except ValueError:
        return [], []
    if not isinstance(data, dict):
        return [], []
    events: list[Payload] = []
    complete = True
    for name, raw in sorted(data.items()):
        record = state.skills.skills.get(str(name))
        if record is None:
            complete = False
        elif isinstance(raw, dict):
            events += record_events(str(name), record, raw)
    return events, [USAGE_FILE] if complete else []


def adopt_usage(engine: Home, *, before: str) -> str | None:
    """Adopt what Hermes wrote into ``.usage.json`` (see :func:`adoption_events`) as a
    run of its own (kind ``adopt``, actor ``user``), then write the file again from the
    journal — over the bytes adopted only, and only when it names no skill the journal
    lacks.  Returns the run id when the file was adopted whole, else None (nothing to
    adopt, a read-only home, ``skills.adopt_hand_edits`` off, or records kept waiting).
    ``before`` says what the adoption makes way for."""
    if engine.readonly or not engine.config.skills.adopt_hand_edits:
        return None
    state = engine.state
    # Checked before taking the journal lock: a session start must not pay a commit
    # when the file is memoir's own (the usual case; one stat vouches for it).
    if engine.files.drifted(USAGE_FILE, lambda: usage_json(state)) is None:
        return None
    adopted = adopt(engine, [lambda state, files, _force: adoption_events(state, files)],
                    summary=f"adopted Hermes's usage records of {USAGE_FILE} before {before}")
    return adopted.run if adopted.paths else None
