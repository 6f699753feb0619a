"""Saved text checked again with today's threat scan (``memoir verify --threats``).

The scan grows: an entry saved before a category was known, a hand edit adopted from a
process, a skill imported long ago, a session's pinned prompt kept since — each may hold
what memoir would refuse now.  :func:`threats_now` reads the current memory entries,
every file of every skill (archived ones too: a restore brings them back) and the kept
prompt of every session, and lists what today's scan finds, with where it is and why,
never the text.  The prompt already masks such entries (it scans on every render); the
list says what to remove (``memoir memory remove``, ``memoir forget --entry``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from memoir.engine.port import Home
from memoir.projections.memory import DELIMITER, RULE
from memoir.threats import all_threats, redacted_preview

__all__ = ["Threat", "threats_now"]


@dataclass(frozen=True)
class Threat:
    """One saved text today's scan refuses: ``kind`` is ``memory``, ``skill`` or
    ``prompt``; ``where`` names it (``memory:<entry id>``, ``skill:<name>/<file>``,
    ``prompt:<session>/<block>``); ``findings`` the pattern ids."""

    kind: str
    where: str
    findings: tuple[str, ...]
    preview: str

    def as_json(self) -> dict[str, Any]:
        return {**asdict(self), "findings": list(self.findings)}


def _entries_of(block: str) -> list[str]:
    """A rendered block's entries, without memoir's own header (the separator lines and
    the title between them, which are memoir's frame, not saved text) and masks."""
    lines = block.split("\n")
    if len(lines) >= 3 and lines[0] == RULE and lines[2] == RULE:
        lines = lines[3:]
    # A "[BLOCKED: …]" part is memoir's own mask of an entry, already withheld.
    return [part for part in "\n".join(lines).split(DELIMITER)
            if part.strip() and not part.startswith("[BLOCKED:")]


def threats_now(home: Home) -> list[Threat]:
    """Every saved text today's scan would refuse (see the module docstring)."""
    state = home.state
    found: list[Threat] = []
    for target in ("memory", "user"):
        for entry in state.memory.target(target).entries:
            ids = all_threats(entry.text)
            if ids:
                found.append(Threat("memory", f"{target}:{entry.id}", tuple(ids),
                                    redacted_preview(entry.text)))
    for name, record in sorted(state.skills.skills.items()):
        for file, text in {"SKILL.md": record.content, **record.files}.items():
            ids = all_threats(text)
            if ids:
                found.append(Threat("skill", f"skill:{name}/{file}", tuple(ids),
                                    redacted_preview(text)))
    cache = home.kept_prompts()
    for session_id in sorted(state.sessions):
        kept = cache.blocks_of(session_id)
        if kept is None:
            continue
        for block, rendered in sorted(kept.items()):
            for part in _entries_of(rendered or ""):
                ids = all_threats(part)
                if ids:
                    found.append(Threat("prompt", f"prompt:{session_id}/{block}",
                                        tuple(ids), redacted_preview(part)))
    return found
