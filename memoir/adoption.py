"""Adopting hand edits of MEMORY.md / USER.md as ordinary ``user`` events.

The edit is diffed against the journal's entries so unchanged entries keep their
ids, an entry edited in place becomes a replace, and the resulting order is exactly
the file's.  The adopted state must pass the rules every write passes.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence

from memoir.errors import RejectedError, ValidationError
from memoir.events.memory import EntryAdded, EntryRemoved, EntryReplaced
from memoir.events.types import Payload
from memoir.ids import short_id
from memoir.projections.memory import DELIMITER, dedupe
from memoir.projections.state import State
from memoir.threats import first_threat_id

__all__ = ["plan_adoption"]


def plan_adoption(state: State, target: str, texts: Sequence[str], rel: str) -> list[Payload]:
    """Events that turn ``target``'s entries into ``texts`` (as parsed from ``rel``)."""
    new = dedupe(texts)
    limit = state.memory.limits[target]
    total = len(DELIMITER.join(new)) if new else 0
    if total > limit:
        raise ValidationError(
            f"{rel} was edited by hand and holds {total:,}/{limit:,} chars, over the limit; "
            "shorten it and run `memoir adopt` again, or `memoir rebuild --force` to discard "
            "the edit"
        )
    old = list(state.memory.target(target).entries)
    for i, text in enumerate(new, start=1):
        if any(text == e.text for e in old):
            continue
        pattern = first_threat_id(text)
        if pattern is not None:
            raise RejectedError(
                f"{rel} was edited by hand and entry {i} matches threat pattern '{pattern}'; "
                "remove it from the file and run `memoir adopt` again"
            )
    events: list[Payload] = []
    t = target  # narrowed for the event constructors
    matcher = difflib.SequenceMatcher(a=[e.text for e in old], b=new, autojunk=False)
    pos = 0  # index in the list as it evolves while events apply in order
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            pos += i2 - i1
            continue
        paired = min(i2 - i1, j2 - j1) if op == "replace" else 0
        for k in range(paired):
            entry = old[i1 + k]
            events.append(EntryReplaced(target=t, entry_id=entry.id, text=new[j1 + k],  # type: ignore[arg-type]
                                        previous=entry.text))
            pos += 1
        for k in range(i1 + paired, i2):
            events.append(EntryRemoved(target=t, entry_id=old[k].id, previous=old[k].text,  # type: ignore[arg-type]
                                       position=pos))
        for k in range(j1 + paired, j2):
            events.append(EntryAdded(target=t, entry_id=short_id("e-"), text=new[k],  # type: ignore[arg-type]
                                     position=pos))
            pos += 1
    return events
