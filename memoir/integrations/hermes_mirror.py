"""A memoir home that mirrors a Hermes home's memory files.

Hermes stays the writer of its ``memories/MEMORY.md`` and ``USER.md``; memoir keeps the
journal of them.  :func:`pull` makes the journal's entries of a target equal to what
Hermes's file holds (the events that get there: adds, replaces, removals, ids kept by
text), as one run — how each Hermes memory write becomes an auditable, revertable run.
:func:`revert` undoes such a run and applies the result to Hermes's files the way
Hermes itself writes them: holding Hermes's ``<file>.lock`` throughout, first
mirroring any Hermes write not yet journaled, refusing a file Hermes's own drift
guard would refuse (it is copied to ``<file>.bak.<unix seconds>``, as Hermes does),
then writing through a temp file, fsync and rename.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from memoir.engine.commit import Caller, Decision
from memoir.engine.engine import Engine
from memoir.engine.materializer import HERMES_LOCK_WAIT
from memoir.errors import ValidationError
from memoir.events.types import Event, Payload
from memoir.fs import safefs
from memoir.fs.outside import read_text
from memoir.ids import short_id
from memoir.memory.adoption import plan_adoption
from memoir.oversight.revert import OnConflict, RevertPlan, revert_run
from memoir.projections.memory import TARGETS, dedupe, file_text, parse_file, well_formed
from memoir.projections.render import memory_file
from memoir.projections.state import State
from memoir.skills.importer import MAX_RECORDS_BYTES

__all__ = ["MirrorRevert", "hermes_entries", "hermes_locks", "pull", "push", "revert"]

def _path(hermes_home: Path, target: str) -> Path:
    return hermes_home / memory_file(target)


def hermes_entries(hermes_home: Path, target: str) -> list[str]:
    """The entries of Hermes's file for ``target``, read as Hermes reads them (a
    missing file holds none)."""
    path = _path(hermes_home, target)
    if not path.exists() and not path.is_symlink():
        return []
    # Never through a link: one at MEMORY.md could make ~/.aws/credentials a memory.
    return dedupe(parse_file(read_text(path, limit=MAX_RECORDS_BYTES, what=path.name,
                                       follow_links=False)))


def _plan(state: State, hermes_home: Path, targets: Sequence[str]) -> list[Payload]:
    events: list[Payload] = []
    for target in targets:
        wanted = hermes_entries(hermes_home, target)
        if [e.text for e in state.memory.target(target).entries] != wanted:
            events += plan_adoption(state, target, wanted, memory_file(target))
    return events


def pull(engine: Engine, hermes_home: str | os.PathLike[str], *, actor: str,
         session: str | None = None, summary: str, kind: str = "mirror",
         targets: Sequence[str] = TARGETS, meta: Mapping[str, str] | None = None
         ) -> tuple[str | None, list[Event]]:
    """Journal what Hermes's memory files hold now, as one run (kind ``kind``; ``meta``
    on its records); returns the run id (None when the journal already agrees) and its
    events."""
    home = Path(hermes_home)
    run_id = short_id("hermes-")

    def decide(state: State) -> Decision[str | None]:
        payloads = _plan(state, home, targets)
        return Decision(events=payloads, result=run_id if payloads else None)

    events, result = engine.commit(decide, by=Caller(
        actor=actor, session=session, run=run_id, run_kind=kind, run_summary=summary,
        meta=meta))
    return result, events


@contextlib.contextmanager
def hermes_locks(hermes_home: Path, targets: Sequence[str] = TARGETS,
                 timeout: float = HERMES_LOCK_WAIT) -> Iterator[None]:
    """Hold Hermes's ``<file>.lock`` of each target (as Hermes does around a write)."""
    folder = hermes_home / "memories"
    folder.mkdir(parents=True, exist_ok=True)
    dfd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        with contextlib.ExitStack() as stack:
            for target in targets:
                name = memory_file(target).rpartition("/")[2]
                stack.enter_context(safefs.file_lock(dfd, f"{name}.lock", timeout=timeout))
            yield
    finally:
        os.close(dfd)


@dataclass
class MirrorRevert:
    """What :func:`revert` did: the revert's plan, the Hermes write it mirrored first
    (if any), the files it wrote and those it refused (target → the backup's path)."""

    plan: RevertPlan | None = None
    mirrored: str | None = None
    written: list[str] = field(default_factory=list)
    refused: dict[str, str] = field(default_factory=dict)


def _write_like_hermes(path: Path, text: str) -> None:
    tmp = path.with_name(f".mem_memoir_{os.getpid()}.tmp")
    with open(tmp, "w", encoding="utf-8") as out:
        out.write(text)
        out.flush()
        os.fsync(out.fileno())
    os.replace(tmp, path)


def revert(engine: Engine, hermes_home: str | os.PathLike[str], run: str, *,
           on_conflict: OnConflict = "refuse", dry_run: bool = False) -> MirrorRevert:
    """Revert ``run`` and apply the memory it changes to Hermes's files (see the module
    docstring).  A target whose Hermes file fails Hermes's drift guard is not written:
    it is backed up and named in ``refused``, and the journal keeps the revert (the
    file is brought in line once fixed, by the next revert or ``memoir hermes push``)."""
    home = Path(hermes_home)
    if not home.is_dir():
        raise ValidationError(f"{home} (hermes.home) is not a folder")
    with hermes_locks(home):
        mirrored = None
        if not dry_run:
            mirrored, _ = pull(engine, home, actor="agent", kind="mirror",
                               summary="Hermes memory writes not yet journaled")
        plan = revert_run(engine, run, dry_run=dry_run, on_conflict=on_conflict)
        result = MirrorRevert(plan=plan, mirrored=mirrored)
        if dry_run:
            return result
        _push(engine.state, home, result)
    return result


def _push(state: State, home: Path, result: MirrorRevert) -> None:
    for target in TARGETS:
        path = _path(home, target)
        texts = [e.text for e in state.memory.target(target).entries]
        raw = read_text(path, limit=MAX_RECORDS_BYTES, what=path.name) if path.exists() else ""
        if dedupe(parse_file(raw)) == texts:
            continue
        if raw.strip() and not well_formed(raw, state.memory.limits[target]):
            backup = path.with_name(f"{path.name}.bak.{int(time.time())}")
            shutil.copyfile(path, backup)
            result.refused[target] = str(backup)
            continue
        _write_like_hermes(path, file_text(texts))
        result.written.append(str(path))


def push(engine: Engine, hermes_home: str | os.PathLike[str]) -> MirrorRevert | None:
    """Write the journal's memory into Hermes's files (under Hermes's locks, with its
    drift guard), for a revert whose write was refused; None when nothing differs."""
    home = Path(hermes_home)
    if not home.is_dir():
        raise ValidationError(f"{home} (hermes.home) is not a folder")
    with hermes_locks(home):
        result = MirrorRevert()
        _push(engine.state, home, result)
    return result if result.written or result.refused else None
