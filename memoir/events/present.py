"""How memoir says what a record did: one module for the CLI, the web view, runs and
the MCP server, so the words a person compares across them are the same.  (In the
events layer: it needs only the vocabulary, so a reading command such as ``memoir log``
loads nothing more for it.)

* :func:`detail` — what a payload did, in one line (never the text of a refused write:
  it may be hostile, or a secret);
* :func:`summary` — the record's type and its detail, cut to a width;
* :func:`event_row` — a record as plain JSON values, with its summary;
* :func:`write_result` — what a write reports: its run, the seqs it appended, the
  records, and what the caller adds.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from typing import Any

import msgspec

from memoir.events.codec import Forgotten
from memoir.events.keys import AppendSigned, KeyRevoked, KeyTrusted
from memoir.events.memory import WriteRejected
from memoir.events.skills import (
    SkillArchived,
    SkillContentSet,
    SkillCreated,
    SkillDeleted,
    SkillFileRemoved,
    SkillFileWritten,
    SkillPatched,
    SkillPinned,
    SkillRestored,
    SkillStateChanged,
    SkillUnpinned,
    SkillUsed,
    SkillViewed,
    SkillWriteRejected,
)
from memoir.events.types import Event, Payload

__all__ = ["clip", "detail", "event_row", "skill_detail", "summary", "write_result"]

#: The fields that say what a payload is about, the first one present wins.
_ABOUT = ("text", "name", "summary", "reason", "session_id", "previous")


def clip(text: str, width: int) -> str:
    """``text`` on one line (a newline shown as ⏎), cut to ``width`` characters."""
    line = " ".join(text.replace("\n", " ⏎ ").split())
    return line if len(line) <= width else line[: max(width - 3, 0)] + "..."


def detail(data: Payload, *, width: int = 160) -> str:
    """What ``data`` did, in one line of at most ``width`` characters."""
    if isinstance(data, Forgotten):
        return "[forgotten]"
    if isinstance(data, AppendSigned):
        return f"by key {data.signer[:16]} (seq {data.first} on)"
    if isinstance(data, KeyTrusted):
        role = "owner" if data.owner else "may " + (", ".join(data.may) or "append")
        return clip(f"key {data.key[:16]} trusted ({role}) {data.label}".strip(), width)
    if isinstance(data, KeyRevoked):
        return clip(f"key {data.key[:16]} revoked {data.reason}".strip(), width)
    if isinstance(data, WriteRejected):  # why, never its text
        return clip(f"[{data.target}] refused {data.action}: "
                    f"{', '.join(data.pattern_ids) or data.reason}", width)
    values = msgspec.to_builtins(data)
    values = values if isinstance(values, dict) else {}
    if data.TYPE.startswith("skill.") and values.get("name"):
        said = f"{values['name']}: {skill_detail(data)}"
    else:
        said = next((str(values[k]) for k in _ABOUT if values.get(k)), "")
    if values.get("flagged"):
        # An adopted hand edit the threat scan flags: kept, masked in the prompt.
        said = f"FLAGGED {','.join(values['flagged'])}: {said}"
    if "target" in values:
        said = f"[{values['target']}] {said}"
    return clip(said, width)


def summary(event: Event, *, width: int = 160) -> str:
    """The record's type and what it did, in at most ``width`` characters."""
    return clip(f"{event.type} {detail(event.data, width=width)}".strip(), width)


def event_row(event: Event) -> dict[str, Any]:
    """A record as plain JSON values (its envelope and payload) and its summary."""
    row = msgspec.to_builtins(event)
    assert isinstance(row, dict)
    row["summary"] = summary(event)
    return row


def write_result(run: str | None, events: Sequence[Event], **extra: Any) -> dict[str, Any]:
    """What a write reports: its run (None when nothing was appended), the seqs it
    appended and the records themselves, and whatever the caller adds."""
    return {"run": run if events else None, "seqs": [e.seq for e in events],
            "events": [event_row(e) for e in events], **extra}


def _diffstat(before: str | None, after: str) -> str:
    if before is None:
        return f"new, {len(after.splitlines())} lines"
    added = removed = 0
    for line in difflib.ndiff(before.splitlines(), after.splitlines()):
        if line.startswith("+ "):
            added += 1
        elif line.startswith("- "):
            removed += 1
    return f"+{added}/-{removed} lines"


def skill_detail(data: Payload) -> str:
    """A one-line account of what a skill event (its payload) did."""
    if isinstance(data, SkillCreated):
        where = f" in category '{data.category}'" if data.category else ""
        return (f"created ({data.provenance}){where} with {1 + len(data.files)} file(s)")
    if isinstance(data, SkillContentSet):
        return f"SKILL.md rewritten ({_diffstat(data.previous, data.content)})"
    if isinstance(data, SkillPatched):
        k = data.replacements
        return (f"patched {data.file}: {k} replacement{'s' if k != 1 else ''} "
                f"({_diffstat(data.previous, data.content)})")
    if isinstance(data, SkillFileWritten):
        return f"wrote {data.file} ({_diffstat(data.previous, data.content)})"
    if isinstance(data, SkillFileRemoved):
        return f"removed {data.file}"
    if isinstance(data, SkillArchived):
        umbrella = f" [absorbed into '{data.absorbed_into}']" if data.absorbed_into else ""
        return f"archived: {data.reason}{umbrella}"
    if isinstance(data, SkillRestored):
        return "restored" + (f": {data.reason}" if data.reason else "")
    if isinstance(data, SkillDeleted):
        return "deleted" + (f" (absorbed into '{data.absorbed_into}')" if data.absorbed_into
                            else "")
    if isinstance(data, SkillPinned):
        return "pinned"
    if isinstance(data, SkillUnpinned):
        return "unpinned"
    if isinstance(data, SkillStateChanged):
        return f"{data.from_state} → {data.to_state}" + (f": {data.reason}" if data.reason
                                                          else "")
    if isinstance(data, SkillViewed):
        return "viewed" + (f" {data.file}" if data.file else "")
    if isinstance(data, SkillUsed):
        return f"used ({data.via})"
    if isinstance(data, SkillWriteRejected):
        return f"refused {data.action} [{data.guard}]: {data.reason}"
    return data.TYPE
