"""The ``memory`` tool: Hermes's semantics, decided against a state, recorded as events.

:func:`decide` is pure: given the memory state and the tool arguments it returns the
Hermes-shaped result dict and the events that record the change (none for a
failure, a ``memory.write_rejected`` for a refused hostile write).  The session
layer appends the events under the journal lock and keeps the per-turn
consolidation-failure counter (spec §1.6).

Semantics follow spec §1.3–1.6: input is stripped; add/replace content is threat
scanned first; matching is a case-sensitive substring test; identical duplicates
match as one; a batch is all-or-nothing with the budget checked on the final state.
Every write works on the deduped list, as Hermes re-reads and dedupes under its
lock; when a write lands, the collapsed duplicates are removed by explicit events.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from memoir.events.memory import EntryAdded, EntryRemoved, EntryReplaced, WriteRejected
from memoir.events.types import Payload
from memoir.ids import short_id
from memoir.projections.memory import (
    DELIMITER,
    Entry,
    MemoryState,
    usage_numbers,
    usage_text,
)
from memoir.threats import first_threat_id, first_threat_message, scan_for_threats

__all__ = [
    "MAX_FAILURES_PER_TURN",
    "MemoryOutcome",
    "decide",
    "failure_cap_result",
]

MAX_FAILURES_PER_TURN = 3
_PREVIEW = 80
_SUCCESS_NOTE = "Saved to persistent memory. This write is done; do not repeat it."


@dataclass
class MemoryOutcome:
    """What a memory tool call decided.

    ``events`` is empty unless something must be journaled.  ``failure`` marks a
    consolidation failure (counts towards the per-turn cap); ``success`` resets it.
    """

    result: dict[str, Any]
    events: list[Payload] = field(default_factory=list)
    failure: bool = False
    success: bool = False


def _error(message: str) -> MemoryOutcome:
    return MemoryOutcome({"error": message, "success": False})


def _short_usage(texts: Sequence[str], limit: int) -> str:
    current, _ = usage_numbers(texts, limit)
    return f"{current:,}/{limit:,}"


def failure_cap_result(count: int) -> dict[str, Any]:
    """The terminal result that replaces the error from the 4th failure in a turn on."""
    return {
        "success": False,
        "done": True,
        "error": (
            f"Memory consolidation failed {count} times this turn. Stop retrying memory "
            "calls: leave memory as it is, go on with your reply, and save the fact in a "
            "later turn."
        ),
    }


def _rejection(target: str, action: str, text: str) -> MemoryOutcome | None:
    message = first_threat_message(text)
    if message is None:
        return None
    ids = scan_for_threats(text)
    first = first_threat_id(text)
    ordered = [first, *[i for i in ids if i != first]] if first else ids
    event = WriteRejected(
        target=target,  # type: ignore[arg-type]
        action=action,
        reason="threat",
        pattern_ids=ordered,
        preview=text[:200],
        length=len(text),
        sha256=hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest(),
    )
    return MemoryOutcome({"success": False, "error": message}, events=[event])


class _Work:
    """A working copy of one target: the deduped entries plus the events so far."""

    def __init__(self, state: MemoryState, target: str, new_id: Callable[[], str]) -> None:
        self.target = target
        self.limit = state.limits[target]
        self.new_id = new_id
        self.entries: list[Entry] = []
        self.events: list[Payload] = []
        seen: set[str] = set()
        original = state.target(target).entries
        dropped: list[tuple[int, Entry]] = []
        for pos, entry in enumerate(original):
            if entry.text in seen:
                dropped.append((pos, entry))
            else:
                seen.add(entry.text)
                self.entries.append(entry)
        # Removed last-first so each recorded position is valid when it is applied.
        self._dedupe_events: list[Payload] = [
            EntryRemoved(target=target, entry_id=e.id, previous=e.text, position=pos,  # type: ignore[arg-type]
                         reason="duplicate")
            for pos, e in reversed(dropped)
        ]

    def texts(self) -> list[str]:
        return [e.text for e in self.entries]

    def total_with(self, texts: Sequence[str]) -> int:
        return len(DELIMITER.join(texts)) if texts else 0

    def find(self, old_text: str) -> tuple[list[int], list[str]]:
        hits = [i for i, e in enumerate(self.entries) if old_text in e.text]
        return hits, [self.entries[i].text for i in hits]

    def add(self, text: str) -> None:
        entry = Entry(self.new_id(), text)
        self.entries.append(entry)
        self.events.append(EntryAdded(target=self.target, entry_id=entry.id, text=text))  # type: ignore[arg-type]

    def replace(self, index: int, text: str) -> None:
        old = self.entries[index]
        self.entries[index] = Entry(old.id, text)
        self.events.append(
            EntryReplaced(target=self.target, entry_id=old.id, text=text, previous=old.text)  # type: ignore[arg-type]
        )

    def remove(self, index: int) -> None:
        old = self.entries.pop(index)
        self.events.append(
            EntryRemoved(target=self.target, entry_id=old.id, previous=old.text, position=index)  # type: ignore[arg-type]
        )

    def committed(self) -> list[Payload]:
        return [*self._dedupe_events, *self.events]

    def success(self, message: str) -> MemoryOutcome:
        result = {
            "success": True,
            "done": True,
            "target": self.target,
            "usage": usage_text(self.texts(), self.limit),
            "entry_count": len(self.entries),
            "message": message,
            "note": _SUCCESS_NOTE,
        }
        return MemoryOutcome(result, events=self.committed(), success=True)

    def failure(self, error: str, **extra: Any) -> MemoryOutcome:
        result: dict[str, Any] = {"success": False, "error": error}
        result.update(extra)
        result.setdefault("current_entries", self.texts())
        result.setdefault("usage", _short_usage(self.texts(), self.limit))
        return MemoryOutcome(result, failure=True)


def _previews(texts: Sequence[str]) -> list[str]:
    return [t[:_PREVIEW] + ("..." if len(t) > _PREVIEW else "") for t in texts]


def _as_text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def decide(
    state: MemoryState, args: Mapping[str, Any], *, new_id: Callable[[], str] | None = None
) -> MemoryOutcome:
    """Decide one ``memory`` tool call against ``state`` (spec §1.3 dispatch order)."""
    mint = new_id or (lambda: short_id("e-"))
    if not isinstance(args, Mapping):
        return _error("Memory tool arguments must be a JSON object.")
    target = args.get("target")
    if target is None:
        target = "memory"
    if not isinstance(target, str) or target not in ("memory", "user"):
        return _error(f"Invalid target '{target}'. Use 'memory' or 'user'.")
    operations = args.get("operations")
    if operations:
        if not isinstance(operations, list):
            return _error(
                "operations must be a list of {action, content?, old_text?} objects."
            )
        return _batch(state, target, operations, mint)
    action = args.get("action")
    content = args.get("content")
    old_text = args.get("old_text")
    # Tool-level checks look at the raw values; the store-level ones below at stripped text.
    if action == "add" and not content:
        return _error("Content is required for 'add' action.")
    if action in ("replace", "remove") and not old_text:
        texts = state.target(target).texts()
        return MemoryOutcome(
            {
                "success": False,
                "error": (
                    f"'{action}' needs old_text: a short substring that picks out exactly one "
                    f"entry. None was given. Retry the {action} with old_text set to part of "
                    "one of the current_entries below."
                ),
                "current_entries": texts,
                "usage": _short_usage(texts, state.limits[target]),
            }
        )
    if action == "replace" and not content:
        return _error("content is required for 'replace' action.")
    if action not in ("add", "replace", "remove"):
        return _error(f"Unknown action '{action}'. Use: add, replace, remove")
    for name, value in (("content", content), ("old_text", old_text)):
        if value is not None and not isinstance(value, str):
            return _error(f"'{name}' must be a string.")
    work = _Work(state, target, mint)
    if action == "add":
        return _add(work, _as_text(content))
    if action == "replace":
        return _replace(work, _as_text(old_text), _as_text(content))
    return _remove(work, _as_text(old_text))


def _add(work: _Work, content: str) -> MemoryOutcome:
    if not content:
        return MemoryOutcome({"success": False, "error": "Content cannot be empty."})
    rejected = _rejection(work.target, "add", content)
    if rejected:
        return rejected
    texts = work.texts()
    if content in texts:
        outcome = work.success("Entry already exists (no duplicate added).")
        outcome.events = []  # Hermes returns before saving: nothing is written.
        return outcome
    total = work.total_with([*texts, content])
    if total > work.limit:
        current = work.total_with(texts)
        return work.failure(
            f"Memory at {current:,}/{work.limit:,} chars. Adding this entry "
            f"({len(content)} chars) would exceed the limit. Make room first: 'replace' "
            "overlapping entries with one shorter entry, or 'remove' entries that matter "
            "less (current_entries lists them), then retry this add in the same turn."
        )
    work.add(content)
    return work.success("Entry added.")


def _match(work: _Work, old_text: str, action: str) -> tuple[int | None, MemoryOutcome | None]:
    hits, texts = work.find(old_text)
    if not hits:
        outcome = work.failure(
            f"No entry matched '{old_text}'. Look at current_entries and retry with text "
            f"copied from the entry you want to {action}."
        )
        del outcome.result["usage"]
        return None, outcome
    if len(set(texts)) > 1:
        return None, MemoryOutcome(
            {
                "success": False,
                "error": f"Multiple entries matched '{old_text}'. Be more specific.",
                "matches": _previews(texts),
            }
        )
    return hits[0], None


def _replace(work: _Work, old_text: str, content: str) -> MemoryOutcome:
    if not old_text:
        return MemoryOutcome({"success": False, "error": "old_text cannot be empty."})
    if not content:
        return MemoryOutcome(
            {"success": False,
             "error": "new_content cannot be empty. Use 'remove' to delete entries."}
        )
    rejected = _rejection(work.target, "replace", content)
    if rejected:
        return rejected
    index, problem = _match(work, old_text, "replace")
    if problem is not None or index is None:
        return problem  # type: ignore[return-value]
    texts = work.texts()
    texts[index] = content
    total = work.total_with(texts)
    if total > work.limit:
        return work.failure(
            f"Replacement would put memory at {total:,}/{work.limit:,} chars. Shorten the "
            "new content or 'remove' entries that matter less (current_entries lists them), "
            "then retry in the same turn."
        )
    work.replace(index, content)
    return work.success("Entry replaced.")


def _remove(work: _Work, old_text: str) -> MemoryOutcome:
    if not old_text:
        return MemoryOutcome({"success": False, "error": "old_text cannot be empty."})
    index, problem = _match(work, old_text, "remove")
    if problem is not None or index is None:
        return problem  # type: ignore[return-value]
    work.remove(index)
    return work.success("Entry removed.")


def _batch(
    state: MemoryState, target: str, operations: list[Any], mint: Callable[[], str]
) -> MemoryOutcome:
    # Hermes numbers operations from 1 and scans every add/replace for threats before
    # it validates anything else, so a threat in op 5 wins over a bad action in op 3.
    for i, op in enumerate(operations, start=1):
        if isinstance(op, Mapping) and op.get("action") in ("add", "replace"):
            content = op.get("content")
            if content and isinstance(content, str):
                rejected = _rejection(target, "batch", content.strip())
                if rejected:
                    rejected.result["error"] = f"Operation {i}: {rejected.result['error']}"
                    return rejected

    def abort(i: int, op: Mapping[str, Any], reason: str) -> MemoryOutcome:
        action = op.get("action")
        label = action if action not in (None, "") else "unknown"
        clean = _Work(state, target, mint)
        return clean.failure(
            f"Operation {i} ({label}): {reason} No operations were applied "
            "(batch is all-or-nothing)."
        )

    work = _Work(state, target, mint)
    for i, raw in enumerate(operations, start=1):
        op: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}
        if raw is not None and not isinstance(raw, Mapping):
            return abort(i, {"action": type(raw).__name__},
                         "each operation must be an object {action, content?, old_text?}.")
        action = op.get("action")
        content, old_text = op.get("content"), op.get("old_text")
        if not isinstance(content, str | None) or not isinstance(old_text, str | None):
            return abort(i, op, "content and old_text must be strings.")
        content, old_text = _as_text(content), _as_text(old_text)
        if action == "add":
            if not content:
                return abort(i, op, "content is required.")
            if content not in work.texts():
                work.add(content)
        elif action in ("replace", "remove"):
            if not old_text:
                return abort(i, op, "old_text is required.")
            if action == "replace" and not content:
                return abort(i, op, "content is required (use action='remove' to delete).")
            hits, texts = work.find(old_text)
            if not hits:
                return abort(i, op, f"no entry matched '{old_text}'.")
            if len(set(texts)) > 1:
                return abort(i, op, f"'{old_text}' matched several different entries; "
                             "be more specific.")
            if action == "replace":
                work.replace(hits[0], content)
            else:
                work.remove(hits[0])
        else:
            return abort(i, op, "unknown action. Use add, replace, or remove.")
    total = work.total_with(work.texts())
    if total > work.limit:
        clean = _Work(state, target, mint)
        return clean.failure(
            f"After applying all {len(operations)} operations, memory would be at "
            f"{total:,}/{work.limit:,} chars, over the limit. Remove or shorten more "
            "entries in the same batch (current_entries lists them), then retry."
        )
    return work.success(f"Applied {len(operations)} operation(s).")
