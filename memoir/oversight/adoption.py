"""Adopting every hand edit at once (``memoir adopt``, :meth:`Memoir.adopt`): the memory
files, the skills tree and Hermes's usage records, each domain's ``adoption_events`` an
adopter of the one adoption door (:func:`memoir.engine.adoption.adopt`).

Adoption is three-way: an edit is compared with the version the person most likely
started from — for a memory file the version :func:`~memoir.memory.adoption.edit_base`
finds (an editor buffer opened before an agent's write does not drop that write), for a
skill file what memoir last wrote there — and writes journaled since are kept.  When
both changed the same entry or skill file, nothing is adopted
(:class:`~memoir.errors.AdoptionConflict`) unless ``force``: then the hand edit wins.
"""

from __future__ import annotations

from memoir.engine.adoption import adopt
from memoir.engine.files import FilesView
from memoir.engine.port import Home
from memoir.events.types import Event, Payload
from memoir.ids import short_id
from memoir.memory import adoption as memory_adoption
from memoir.projections.memory import TARGETS
from memoir.projections.render.memory import memory_file
from memoir.projections.state import State
from memoir.skills import adopt as skills_adoption
from memoir.skills import usage as skills_usage

__all__ = ["adopt_everything"]

#: What an adopter returns: the events, and the files adopted whole.
Adoption = tuple[list[Payload], list[str]]


def adopt_everything(engine: Home, *, run: str | None = None, force: bool = False,
                     notes: list[str] | None = None) -> tuple[str, list[Event]]:
    """Adopt every hand edit as ``user`` events of one run (see the module docstring);
    returns the run id and its events.  ``notes`` (a list, if given) receives a line per
    memory entry kept because it was journaled after the version the edit started
    from, saying why.  Every projected file is written afterwards (a deleted one too)."""
    engine.files.reload()
    edit_bases = {t: b for t in TARGETS if (b := memory_adoption.edit_base(engine, t))}
    memory_bases = {memory_file(t): base.entries for t, base in edit_bases.items()}
    skill_bases = skills_adoption.adoption_bases(engine, engine.state)

    def memory(state: State, files: FilesView, force: bool) -> Adoption:
        return memory_adoption.adoption_events(state, files, bases=memory_bases, force=force)

    def skills(state: State, files: FilesView, force: bool) -> Adoption:
        found, paths, _ignored = skills_adoption.adoption_events(
            state, files, bases=skill_bases, force=force)
        return found, paths

    def usage(state: State, files: FilesView, _force: bool) -> Adoption:
        return skills_usage.adoption_events(state, files)

    run_id = run or short_id("adopt-")
    adopted = adopt(engine, [memory, skills, usage], force=force, run=run_id,
                    rewrite_all=True)
    if notes is not None:
        for target, base in edit_bases.items():
            if memory_file(target) in adopted.paths:
                notes += base.kept(engine.state.memory.target(target).entries)
    return run_id, adopted.events
