"""The one door for adopting hand edits: what a person changed in the projected files
becomes their events (actor ``user``), in a run of its own (kind ``adopt``).

Every adoption takes the same steps, whatever it adopts — MEMORY.md and USER.md, a
skill's folder, the skills tree, Hermes's ``.usage.json``: mint a run, read the files
through a view that remembers the bytes it read, let *adopters* (the domains'
``adoption_events`` functions) turn the edits into events, commit them as ``user`` with
``run.started`` first, then write the adopted files again in memoir's canonical form —
over the bytes adopted only (a hand edit saved since is another edit, left alone).

An adopter is ``adopter(state, files, force) -> (events, paths adopted whole)``; it
raises :class:`~memoir.errors.MemoirError` for an edit it cannot adopt (a conflict, a
rule the edit breaks).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from memoir.engine.commit import Caller, Decision
from memoir.engine.files import FilesView, RecordingFiles
from memoir.engine.port import Home
from memoir.errors import MemoirError
from memoir.events.types import Event, Payload
from memoir.ids import short_id
from memoir.projections.state import State

__all__ = ["Adopted", "Adopter", "adopt"]

Adopter = Callable[[State, FilesView, bool], tuple[list[Payload], list[str]]]


@dataclass
class Adopted:
    """What :func:`adopt` did: its run (None when nothing was journaled), its events, and
    the files adopted whole (written again in canonical form)."""

    run: str | None
    events: list[Event] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)


def adopt(engine: Home, adopters: Sequence[Adopter], *, before: str | None = None,
          summary: str | None = None, force: bool = False, run: str | None = None,
          lenient: bool = False, rewrite_all: bool = False) -> Adopted:
    """Adopt what ``adopters`` find as one run (see the module docstring).

    ``before`` names what the adoption makes way for (a session start, an agent's write)
    and ends the run's summary, unless ``summary`` gives it whole.  ``force`` is handed to
    the adopters (a conflicting hand edit wins).  ``lenient``: an edit an adopter cannot
    adopt is left for the write that follows to refuse (nothing is journaled), instead
    of raising — what adopting before a write does.  ``rewrite_all``: write every
    projected file afterwards, even when nothing was adopted (``memoir adopt`` also puts
    back files deleted by hand).
    """
    run_id = run or short_id("adopt-")
    read: list[RecordingFiles] = []

    def decide(state: State, files: FilesView) -> Decision[list[str]]:
        recording = RecordingFiles(files)
        read[:] = [recording]
        payloads: list[Payload] = []
        paths: list[str] = []
        for adopter in adopters:
            try:
                found, adopted = adopter(state, recording, force)
            except MemoirError:
                if lenient:
                    return Decision(events=[], result=[])
                raise
            payloads += found
            paths += adopted
        what = summary or (f"adopted hand edits of {', '.join(paths) or 'the files'}"
                           + (f" before {before}" if before else ""))
        return Decision(events=payloads, result=paths, summary=what)

    events, paths = engine.commit_with_files(decide, by=Caller(actor="user", run=run_id,
                                                               run_kind="adopt"))
    adopted = list(paths or ())
    if (adopted or rewrite_all) and read:
        seen = read[0]
        # The adopted files now hold what the journal says, in its canonical form; other
        # hand edits, and any saved since adoption read the file, stay as they are.
        engine.rewrite_files(lambda drifted: [
            d.path for d in drifted if d.path not in adopted or not seen.unchanged(d)])
    return Adopted(run_id if events else None, list(events), adopted)
