"""The ``memory`` tool: Hermes's semantics, decided against a state, recorded as events.

:func:`decide` is pure: given the memory state and the tool arguments it returns the
Hermes-shaped result dict and the events that record the change (none for a
failure, a ``memory.write_rejected`` for a refused hostile write).  The session
layer appends the events under the journal lock, keeps the per-turn
consolidation-failure counter (spec §1.6) and turns a drift refusal into a backup
file and a result.

Semantics follow spec §1.3–1.7, in Hermes's order: tool-level argument checks; then
per action the input is stripped, emptiness checked, add/replace content threat
scanned; then, where Hermes takes its file lock, the drift guard (replace, remove and
batch) and the re-read of the file; then matching (a case-sensitive substring test,
identical duplicates matching as one), the budget, and the write.  A batch is
all-or-nothing with the budget checked on the final state.

Hermes re-reads the file under its lock before every write, so every write works on
the entries as a re-read gives them back (:func:`~memoir.projections.memory.reread`):
deduped, and split where an entry holds the delimiter.  When a write lands, that
normalisation is recorded by explicit events before the write's own.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Container, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from memoir.credentials import credential_message, find_credentials
from memoir.events.memory import EntryAdded, EntryRemoved, EntryReplaced, Target, WriteRejected
from memoir.events.types import Payload
from memoir.ids import short_id
from memoir.memory.adoption import plan_edit
from memoir.projections.memory import (
    DELIMITER,
    FILE_NAMES,
    Entry,
    MemoryState,
    dedupe,
    parse_file,
    round_trips,
    usage_text,
)
from memoir.threats import (
    all_threats,
    redacted_preview,
    threat_message,
)

__all__ = [
    "MAX_FAILURES_PER_TURN",
    "DriftKind",
    "MemoryOutcome",
    "decide",
    "drift_result",
    "failure_cap_result",
    "prescan",
]

#: Failures per turn answered normally; the next one gets the terminal result.
MAX_FAILURES_PER_TURN = 3
_PREVIEW = 80
_SUCCESS_NOTE = "Saved to persistent memory. This write is done; do not repeat it."

#: ``edited``: a hand edit memoir has not adopted; ``malformed``: one Hermes's drift
#: guard would refuse too; ``unclean``: the journal's own entries would not read back.
DriftKind = Literal["edited", "malformed", "unclean"]
"""Why a write was refused: the file holds a hand edit (``edited``), or the file would
not read back as the entries it was written from (``unclean``, Hermes's own guard)."""


@dataclass
class MemoryOutcome:
    """What a memory tool call decided.

    ``events`` is empty unless something must be journaled.  ``failure`` marks a
    consolidation failure (counts towards the per-turn cap); ``success`` resets it.
    ``drift`` says the write was refused because of the file's state; the caller
    saves a backup and builds the result with :func:`drift_result`.  ``live`` is the
    list of entries Hermes would hold in memory for ``target`` after the call (None:
    the call did not touch it), which Hermes answers from when ``old_text`` is missing.
    """

    result: dict[str, Any]
    events: list[Payload] = field(default_factory=list)
    failure: bool = False
    success: bool = False
    target: Target | None = None
    drift: DriftKind | None = None
    live: list[str] | None = None


def _error(message: str) -> MemoryOutcome:
    # Hermes's tool-level errors put "error" first (tools.registry.tool_error).
    return MemoryOutcome({"error": message, "success": False})


def _store_error(message: str) -> MemoryOutcome:
    # Store-level errors put "success" first.
    return MemoryOutcome({"success": False, "error": message})


def _joined_len(texts: Sequence[str]) -> int:
    # Hermes counts the delimiters against the limit; an empty store is 0.
    return len(DELIMITER.join(texts)) if texts else 0


def _short_usage(texts: Sequence[str], limit: int) -> str:
    return f"{_joined_len(texts):,}/{limit:,}"


def failure_cap_result(count: int) -> dict[str, Any]:
    """The terminal result that replaces the error from the 4th failure in a turn on."""
    return {
        "success": False,
        "done": True,
        "error": (
            f"Memory consolidation failed {count} times this turn. Stop retrying memory "
            "calls — leave memory unchanged for now and continue with your reply to the "
            "user. The fact can be saved in a later turn."
        ),
    }


def drift_result(target: str, kind: DriftKind, backup: str | None) -> dict[str, Any]:
    """The refusal of a write to a drifted file, shaped as Hermes's (spec §1.7).

    ``backup`` is the path of the ``.bak.<unix>`` copy (with Hermes's suffix when the
    copy could not be written); None where there is no file to copy (a journal built
    without a home, as :func:`memoir.testing.build_journal` does).
    """
    name = FILE_NAMES[target]
    saved = "" if backup is None else f" A snapshot was saved to {backup}."
    if kind == "malformed":
        # Hermes's own refusal (its drift guard), with memoir's way out.
        error = (f"Refusing to write {name}: file on disk has content that wouldn't "
                 "round-trip through the memory tool (likely added by the patch tool, a "
                 f"shell append, a manual edit, or a concurrent session).{saved} Resolve "
                 "the drift first — either rewrite the file as a clean §-delimited list of "
                 "entries, or move the extra content out — then retry.")
        remediation = (f"Ask the user to rewrite {name} as a clean list (entries separated "
                       "by a line holding only §, each within the limit; memoir adopts it "
                       "with the next write), or to run `memoir adopt` to keep it as it "
                       "reads, or `memoir rebuild --force` to discard it; then retry.")
    else:
        if kind == "edited":
            why = ("it was edited by hand since memoir last wrote it, and this write would "
                   "overwrite the edit")
            remediation = (f"Ask the user to run `memoir adopt` to keep the edit of {name} "
                           "(or `memoir rebuild --force` to discard it), then retry.")
        else:  # unclean
            why = ("its entries would not read back as written (an entry holds the '\\n§\\n' "
                   "delimiter or blanks around it, or is longer than the whole limit), and "
                   "rewriting it would change them")
            remediation = ("Add an entry instead (an add rewrites the file as a clean list), "
                           f"or have the user fix {name} by hand and run `memoir adopt`; "
                           "then retry.")
        error = f"Refusing to write {name}: {why}.{saved}"
    result: dict[str, Any] = {"success": False, "error": error}
    if backup is not None:
        result["drift_backup"] = backup
    result["remediation"] = remediation
    return result


@functools.lru_cache(maxsize=64)
def _findings(text: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The threats in ``text``, else the kinds of credential it holds: a function of
    the text alone, kept for the few texts last scanned (see :func:`prescan`)."""
    threats = tuple(all_threats(text))
    return threats, () if threats else tuple(find_credentials(text))


def prescan(args: Mapping[str, Any]) -> None:
    """Scan the texts a ``memory`` call would write, before the journal's lock is taken.

    The scan depends on the text alone and can take long (patterns compiled on first
    use, the semantic second opinion's model): done here, the decision made under the
    lock finds it done, and other writers do not wait for it."""
    texts = [args.get("content")]
    operations = args.get("operations")
    if isinstance(operations, list):
        texts += [op.get("content") for op in operations if isinstance(op, Mapping)]
    for text in texts:
        if text and _is_text(text):
            _findings(text)


def _rejection(target: Target, action: str, text: str) -> MemoryOutcome | None:
    # Every finding, so the record names every category; the first is the one the
    # refusal message names (Hermes's first, else memoir's).  One scan: the second
    # opinion, where asked, embeds the text once.
    threats, kinds = _findings(text)
    if threats:
        ordered = list(threats)
        message, reason = threat_message(ordered[0]), "threat"
    else:
        # Nothing secret is stored, whoever writes it (the pattern ids name the kinds
        # of credential; the refusal never repeats the secret).
        if not kinds:
            return None
        message, reason = credential_message(list(kinds)), "secret"
        ordered = [f"credential:{kind}" for kind in kinds]
    event = WriteRejected(
        target=target,
        action=action,
        reason=reason,
        pattern_ids=ordered,
        preview=redacted_preview(text),
        length=len(text),
        sha256=hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest(),
    )
    return MemoryOutcome({"success": False, "error": message}, events=[event], target=target)


def _normalise(target: Target, entries: Sequence[Entry], new_id: Callable[[], str]
               ) -> tuple[list[Entry], list[Payload]]:
    """The entries as Hermes re-reads them, and the events that make the state agree."""
    texts = [e.text for e in entries]
    parsed = parse_file(DELIMITER.join(texts)) if texts else []
    events: list[Payload] = []
    current = list(entries)
    if parsed != texts:
        events, current = plan_edit(target, current, parsed, new_id)
    kept: list[Entry] = []
    dropped: list[tuple[int, Entry]] = []
    seen: set[str] = set()
    for pos, entry in enumerate(current):
        if entry.text in seen:
            dropped.append((pos, entry))
        else:
            seen.add(entry.text)
            kept.append(entry)
    # Removed last-first so each recorded position is where the entry stood.
    events += [
        EntryRemoved(target=target, entry_id=e.id, previous=e.text, position=pos,
                     reason="duplicate")
        for pos, e in reversed(dropped)
    ]
    return kept, events


class _Work:
    """A working copy of one target as Hermes holds it after re-reading under its lock."""

    def __init__(self, state: MemoryState, target: Target, new_id: Callable[[], str]) -> None:
        self.target: Target = target
        self.limit = state.limits[target]
        self.new_id = new_id
        self.entries, self._normalising = _normalise(target, state.target(target).entries,
                                                     new_id)
        self.loaded = [e.text for e in self.entries]
        self.events: list[Payload] = []

    def texts(self) -> list[str]:
        return [e.text for e in self.entries]

    def find(self, old_text: str) -> tuple[list[int], list[str]]:
        hits = [i for i, e in enumerate(self.entries) if old_text in e.text]
        return hits, [self.entries[i].text for i in hits]

    def add(self, text: str) -> None:
        entry = Entry(self.new_id(), text)
        self.entries.append(entry)
        self.events.append(EntryAdded(target=self.target, entry_id=entry.id, text=text))

    def replace(self, index: int, text: str) -> None:
        old = self.entries[index]
        self.entries[index] = Entry(old.id, text)
        self.events.append(
            EntryReplaced(target=self.target, entry_id=old.id, text=text, previous=old.text)
        )

    def remove(self, index: int) -> None:
        old = self.entries.pop(index)
        self.events.append(
            EntryRemoved(target=self.target, entry_id=old.id, previous=old.text, position=index)
        )

    def success(self, message: str, *, write: bool = True) -> MemoryOutcome:
        """Hermes's terminal success result; ``write=False`` when nothing is saved."""
        result = {
            "success": True,
            "done": True,
            "target": self.target,
            "usage": usage_text(self.texts(), self.limit),
            "entry_count": len(self.entries),
            "message": message,
            "note": _SUCCESS_NOTE,
        }
        events = [*self._normalising, *self.events] if write else []
        return MemoryOutcome(result, events=events, success=True, target=self.target,
                             live=self.texts())

    def failure(self, error: str, *, usage: bool = True) -> MemoryOutcome:
        """A consolidation failure showing the entries as re-read (nothing is written)."""
        result: dict[str, Any] = {"success": False, "error": error,
                                  "current_entries": list(self.loaded)}
        if usage:
            result["usage"] = _short_usage(self.loaded, self.limit)
        return MemoryOutcome(result, failure=True, target=self.target,
                             live=list(self.loaded))

    def refusal(self, outcome: MemoryOutcome) -> MemoryOutcome:
        """A store-level refusal after the re-read (Hermes's in-memory list is refreshed)."""
        outcome.target = self.target
        outcome.live = list(self.loaded)
        return outcome


def _previews(texts: Sequence[str]) -> list[str]:
    return [t[:_PREVIEW] + ("..." if len(t) > _PREVIEW else "") for t in texts]


def _is_text(value: Any) -> bool:
    if not isinstance(value, str):
        return False
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _drift(state: MemoryState, target: Target, edited: Container[str], *,
           guarded: bool) -> DriftKind | None:
    if target in edited:
        return "edited"
    t = state.target(target)
    if guarded and not round_trips(t.texts(), state.limits[target]):
        return "unclean"
    return None


def _drift_outcome(work: _Work | None, target: Target, kind: DriftKind) -> MemoryOutcome:
    outcome = MemoryOutcome({}, target=target, drift=kind)
    if work is not None and kind == "unclean":
        # Hermes re-reads the file even when its guard then refuses the write.
        outcome.live = list(work.loaded)
    return outcome


def decide(
    state: MemoryState,
    args: Mapping[str, Any],
    *,
    new_id: Callable[[], str] | None = None,
    live: Mapping[str, Sequence[str]] | None = None,
    edited: Container[str] = (),
) -> MemoryOutcome:
    """Decide one ``memory`` tool call against ``state`` (spec §1.3 dispatch order).

    ``live`` holds, per target, the entries the caller last held in memory (Hermes
    answers a replace or remove without ``old_text`` from them, without re-reading);
    by default the entries as a re-read gives them.  ``edited`` names the targets
    whose file holds a hand edit: every write to them is refused as drift.
    """
    mint = new_id or (lambda: short_id("e-"))
    if not isinstance(args, Mapping):
        return _error("Memory tool arguments must be a JSON object.")
    raw_target = args.get("target")
    if raw_target is None:
        raw_target = "memory"
    if raw_target not in ("memory", "user"):
        return _error(f"Invalid target '{raw_target}'. Use 'memory' or 'user'.")
    target: Target = "memory" if raw_target == "memory" else "user"
    operations = args.get("operations")
    if operations:
        if not isinstance(operations, list):
            return _error(
                "operations must be a list of {action, content?, old_text?} objects."
            )
        return _batch(state, target, operations, mint, edited)
    action = args.get("action")
    content = args.get("content")
    old_text = args.get("old_text")
    entry_id = args.get("entry_id")
    if entry_id is not None and (not isinstance(entry_id, str) or not entry_id.strip()):
        return _error("'entry_id' must be the id of an entry (a non-empty string).")
    # Hermes would crash on a non-string or on text that cannot be written as UTF-8
    # (lone surrogates); refuse it plainly instead.
    checked = {"add": ("content",), "replace": ("content", "old_text"),
               "remove": ("old_text",)}.get(action if isinstance(action, str) else "", ())
    for name in checked:
        value = args.get(name)
        if value and not _is_text(value):
            return _error(f"'{name}' must be a string of valid Unicode text.")
        if value and "\0" in value:
            # Hermes would write it; a NUL in a text file breaks the tools that read it.
            return _error(f"'{name}' contains a NUL character (U+0000), which a memory "
                          "file cannot hold; remove it and retry.")
    # Tool-level checks look at the raw values; the store-level ones below at stripped text.
    if action == "add" and not content:
        return _error("Content is required for 'add' action.")
    if action in ("replace", "remove") and not old_text:
        held = list(live[target]) if live is not None and target in live else None
        if held is None:
            held = dedupe(parse_file(DELIMITER.join(state.target(target).texts())))
        return MemoryOutcome(
            {
                "success": False,
                "error": (
                    f"'{action}' needs old_text -- a short unique substring of the entry "
                    f"to {action}. None was provided. Reissue the {action} with old_text "
                    "set to part of one of the current_entries below."
                ),
                "current_entries": held,
                "usage": _short_usage(held, state.limits[target]),
            }
        )
    if action == "replace" and not content:
        return _error("content is required for 'replace' action.")
    if action == "add":
        return _add(state, target, str(content).strip(), mint, edited)
    if action == "replace":
        return _replace(state, target, str(old_text).strip(), str(content).strip(), mint,
                        edited, entry_id)
    if action == "remove":
        return _remove(state, target, str(old_text).strip(), mint, edited, entry_id)
    return _error(f"Unknown action '{action}'. Use: add, replace, remove")


def _add(state: MemoryState, target: Target, content: str, mint: Callable[[], str],
         edited: Container[str]) -> MemoryOutcome:
    if not content:
        return _store_error("Content cannot be empty.")
    rejected = _rejection(target, "add", content)
    if rejected:
        return rejected
    # Hermes's add skips its drift guard (an add rewrites the file cleanly); a hand
    # edit still stops it here, because memoir never overwrites one.
    kind = _drift(state, target, edited, guarded=False)
    if kind is not None:
        return _drift_outcome(None, target, kind)
    work = _Work(state, target, mint)
    texts = work.texts()
    if content in texts:
        # Hermes returns before saving: nothing is written, not even a normalisation.
        return work.success("Entry already exists (no duplicate added).", write=False)
    total = _joined_len([*texts, content])
    if total > work.limit:
        return work.failure(
            f"Memory at {_joined_len(texts):,}/{work.limit:,} chars. Adding this entry "
            f"({len(content)} chars) would exceed the limit. Consolidate now: use 'replace' "
            "to merge overlapping entries into shorter ones or 'remove' stale or less "
            "important entries (see current_entries below), then retry this add — all in "
            "this turn."
        )
    work.add(content)
    return work.success("Entry added.")


def _match(work: _Work, old_text: str, action: str,
           entry_id: str | None = None) -> int | MemoryOutcome:
    """The one entry ``old_text`` names; with ``entry_id`` (memoir's selector, from a
    person's command), that entry if it still holds ``old_text``."""
    if entry_id is not None:
        chosen = [i for i, e in enumerate(work.entries) if e.id == entry_id]
        if chosen and old_text in work.entries[chosen[0]].text:
            return chosen[0]
        return work.failure(
            f"No entry {entry_id} holding '{old_text}'; it was changed or removed since it "
            f"was read. Check current_entries below and retry.",
            usage=False,
        )
    hits, texts = work.find(old_text)
    if not hits:
        return work.failure(
            f"No entry matched '{old_text}'. Check current_entries below and retry with the "
            f"exact text of the entry you want to {action}.",
            usage=False,
        )
    if len(set(texts)) > 1:
        # Not a consolidation failure: the model only has to be more specific.
        return work.refusal(MemoryOutcome({
            "success": False,
            "error": f"Multiple entries matched '{old_text}'. Be more specific.",
            "matches": _previews(texts),
        }))
    return hits[0]


def _replace(state: MemoryState, target: Target, old_text: str, content: str,
             mint: Callable[[], str], edited: Container[str],
             entry_id: str | None = None) -> MemoryOutcome:
    if not old_text:
        return _store_error("old_text cannot be empty.")
    if not content:
        return _store_error("new_content cannot be empty. Use 'remove' to delete entries.")
    rejected = _rejection(target, "replace", content)
    if rejected:
        return rejected
    kind = _drift(state, target, edited, guarded=True)
    if kind is not None:
        return _drift_outcome(_Work(state, target, mint), target, kind)
    work = _Work(state, target, mint)
    index = _match(work, old_text, "replace", entry_id)
    if isinstance(index, MemoryOutcome):
        return index
    texts = work.texts()
    texts[index] = content
    total = _joined_len(texts)
    if total > work.limit:
        return work.failure(
            f"Replacement would put memory at {total:,}/{work.limit:,} chars. Shorten the "
            "new content, or 'remove' other stale or less important entries to make room "
            "(see current_entries below), then retry — all in this turn."
        )
    work.replace(index, content)
    return work.success("Entry replaced.")


def _remove(state: MemoryState, target: Target, old_text: str, mint: Callable[[], str],
            edited: Container[str], entry_id: str | None = None) -> MemoryOutcome:
    if not old_text:
        return _store_error("old_text cannot be empty.")
    kind = _drift(state, target, edited, guarded=True)
    if kind is not None:
        return _drift_outcome(_Work(state, target, mint), target, kind)
    work = _Work(state, target, mint)
    index = _match(work, old_text, "remove", entry_id)
    if isinstance(index, MemoryOutcome):
        return index
    work.remove(index)
    return work.success("Entry removed.")


def _batch(
    state: MemoryState, target: Target, operations: list[Any], mint: Callable[[], str],
    edited: Container[str],
) -> MemoryOutcome:
    # Hermes numbers operations from 1 and scans every add/replace for threats before
    # it validates anything else, so a threat in op 5 wins over a bad action in op 3.
    # It scans the content as given, before stripping.
    for i, candidate in enumerate(operations, start=1):
        if isinstance(candidate, Mapping) and candidate.get("action") in ("add", "replace"):
            content = candidate.get("content")
            if content and _is_text(content):
                rejected = _rejection(target, "batch", content)
                if rejected:
                    rejected.result["error"] = f"Operation {i}: {rejected.result['error']}"
                    return rejected
    kind = _drift(state, target, edited, guarded=True)
    if kind is not None:
        return _drift_outcome(_Work(state, target, mint), target, kind)

    work = _Work(state, target, mint)

    def abort(i: int, action: Any, reason: str) -> MemoryOutcome:
        return work.failure(
            f"Operation {i} ({action or 'unknown'}): {reason} No operations were applied "
            "(batch is all-or-nothing)."
        )

    for i, raw in enumerate(operations, start=1):
        if raw is not None and not isinstance(raw, Mapping):
            return abort(i, type(raw).__name__,
                         "each operation must be an object {action, content?, old_text?}.")
        op: Mapping[str, Any] = raw or {}
        action = op.get("action")
        content, old_text = op.get("content"), op.get("old_text")
        if (content and not _is_text(content)) or (old_text and not _is_text(old_text)):
            return abort(i, action, "content and old_text must be strings of valid text.")
        if "\0" in (content or "") + (old_text or ""):
            return abort(i, action, "content and old_text may not contain a NUL character "
                                    "(U+0000).")
        content = (content or "").strip()
        old_text = (old_text or "").strip()
        if action == "add":
            if not content:
                return abort(i, action, "content is required.")
            if content not in work.texts():
                work.add(content)
        elif action in ("replace", "remove"):
            if not old_text:
                return abort(i, action, "old_text is required.")
            if action == "replace" and not content:
                return abort(i, action, "content is required (use action='remove' to delete).")
            hits, texts = work.find(old_text)
            if not hits:
                return abort(i, action, f"no entry matched '{old_text}'.")
            if len(set(texts)) > 1:
                return abort(i, action, f"'{old_text}' matched multiple distinct entries "
                             "-- be more specific.")
            if action == "replace":
                work.replace(hits[0], content)
            else:
                work.remove(hits[0])
        else:
            return abort(i, action, "unknown action. Use add, replace, or remove.")
    total = _joined_len(work.texts())
    if total > work.limit:
        return work.failure(
            f"After applying all {len(operations)} operations, memory would be at "
            f"{total:,}/{work.limit:,} chars -- over the limit. Remove or shorten more "
            "entries in the same batch (see current_entries below), then retry."
        )
    return work.success(f"Applied {len(operations)} operation(s).")
