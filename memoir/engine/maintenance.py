"""Checks and repairs of a home beyond the journal's own: the seals and checkpoints a
``memoir verify`` compares with the journal, taking a journal that lost records as it
is (``accept_loss``), the forgets not yet carried out here, and the sessions a process
left idle (:func:`idle_sessions`: a session never ended — its process exited or
crashed — is still a conversation worth reviewing; ``Learning.end_idle`` ends and
reviews what it finds, called by every handle opened to write, a handle that follows,
``memoir watch`` and ``memoir maintain``)."""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Container, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from memoir.clock import parse_ts
from memoir.engine.checkpoints import CheckpointStore
from memoir.engine.prompts import PROMPTS, PromptCache
from memoir.engine.seals import SEALS_FILE, Seals
from memoir.engine.signing import pin_problem
from memoir.events.codec import Forgotten
from memoir.events.forget import ContentForgotten
from memoir.fs import safefs
from memoir.fs.folder import Folder
from memoir.journal import Journal, LineAccess, Tombstoning
from memoir.logs import get_logger
from memoir.projections.keys import KeysState
from memoir.projections.screen import screened
from memoir.projections.state import State

if TYPE_CHECKING:
    from memoir.engine.engine import Engine

__all__ = ["DONE", "PENDING", "HomeCheck", "accept_journal_loss", "forgets_done",
           "idle_sessions", "mark_forget_done", "unfinished_here", "verify_home"]

log = get_logger("memoir.engine")


@dataclass
class HomeCheck:
    """What :meth:`Engine.verify_home` found."""

    seals: int = 0
    checkpoints: int = 0
    unchecked_seals: bool = False
    #: Records no seal covers (with a key).
    unsealed: int = 0
    #: Records whose payload was forgotten (a tombstone holds its digest).
    forgotten: int = 0
    problems: list[str] = field(default_factory=list)
    #: Records the fold left out (seq -> why; the first ones) and how many in all
    #: (:mod:`memoir.projections.vetting`).
    quarantined: dict[int, str] = field(default_factory=dict)
    quarantine_count: int = 0



def verify_home(home: Path, journal: Journal, checkpoints: CheckpointStore,
            key: bytes | None, *, deep: bool = False, state: State | None = None
                ) -> HomeCheck:
    """Check what the journal alone cannot: the seals (with the home's key) and, with
    ``deep``, every checkpoint against a fold of the journal from its first record;
    ``state`` (the head's) gives the records the fold left out."""
    found = HomeCheck()
    if state is not None:
        found.quarantined = dict(state.quarantined)
        found.quarantine_count = state.quarantine_count
    seals = Seals(home, key, journal) if key else None
    if seals is not None:
        check = seals.check(journal)
        found.seals, found.problems = check.checked, list(check.problems)
        found.unsealed = sum(b - a + 1 for a, b in check.unsealed)
    elif journal.keeps_seals:
        found.unchecked_seals = bool(journal.seal_lines())
    elif safefs.kind(home, SEALS_FILE) == "file":
        found.unchecked_seals = True
    found.forgotten, problems = _forget_problems(journal, found.quarantined)
    found.problems += problems
    if state is not None:
        found.problems += [
            f"the forget of run {run} " + ("was interrupted here" if how == "interrupted"
                                           else "is not yet carried out here") +
            ": this home's copies may still hold what it removed; `memoir forget "
            "--finish` completes it" for run, how in unfinished_here(home, state)]
    pinned = state.keys.pinned if state is not None else ""
    if state is not None and (problem := pin_problem(state.keys)) is not None:
        found.problems.append(problem)
    if deep:
        wanted = checkpoints.seqs()
        state = State(keys=KeysState(pinned=pinned))
        for event in screened(journal.read(until=wanted[-1] if wanted else 0), state.keys):
            state.apply(event)
            if event.seq in wanted:
                found.checkpoints += 1
                problem = _checkpoint_problem(checkpoints, event.seq, state)
                if problem:
                    found.problems.append(problem)
    return found



#: The forgets this home has carried out (a run id a line).
DONE = ".memoir/forgets-done"
#: The texts of each forget under way, ``<run>.json`` (mode 0600).
PENDING = ".memoir/forget-pending"


def forgets_done(home: Path) -> set[str]:
    """The runs of the forgets this home has carried out."""
    data = safefs.read(home, DONE, limit=1 << 24) or b""
    return set(data.decode("utf-8", "replace").split())


def mark_forget_done(home: Path, run: str) -> None:
    safefs.append_file(home, DONE, f"{run}\n".encode(), fsync=True)


def unfinished_here(home: Path, state: State) -> list[tuple[str, str]]:
    """The forgets folded into ``state`` that this home has not carried out, oldest
    first: (run, ``"interrupted"``) for one stopped here after it was journaled (a
    crash, a kill: its texts still wait), (run, ``"elsewhere"``) for one another home
    of the journal made (or an older memoir, which kept no record of what it finished).
    Until ``memoir forget --finish`` (or a follower) carries them out, this home's
    packs, index and files may still hold what they removed."""
    done = forgets_done(home)
    runs = sorted((info.first_seq, run) for run, info in state.runs.items()
                  if info.kind == "forget" and run not in done)
    if not runs:
        return []
    try:
        waiting = {name[:-5] for name in safefs.listdir(home, PENDING)
                   if name.endswith(".json")}
    except OSError:  # the folder of texts under way is not memoir's (a planted link)
        waiting = set()
    return [(run, "interrupted" if run in waiting else "elsewhere") for _seq, run in runs]


def _forget_problems(journal: Journal, quarantined: Container[int] = ()
                     ) -> tuple[int, list[str]]:
    """How many records hold a tombstone, and what is wrong with them: a tombstone no
    ``journal.forgotten`` record lists (content removed behind memoir's back), or a
    listed record still whole (a forget that was interrupted).  A quarantined
    ``journal.forgotten`` lists nothing: it is never carried out."""
    if isinstance(journal, LineAccess):
        tombs = {seq for seq, _offset, line in journal.read_lines() if _TOMB in line}
    else:
        tombs = {e.seq for e in journal.read() if isinstance(e.data, Forgotten)}
    listed: dict[int, str] = {}
    digests: dict[int, str] = {}
    for event in journal.read_family("journal.forgotten"):
        if isinstance(event.data, ContentForgotten) and event.seq not in quarantined:
            listed.update(dict.fromkeys(event.data.seqs, event.run or "?"))
            digests.update(zip(event.data.seqs, event.data.digests, strict=True))
    problems = []
    aside = journal.set_aside() if isinstance(journal, Tombstoning) else {}
    stray = sorted(seq for seq, (_hash, digest) in aside.items()
                   if digests.get(seq) != digest.decode())
    if stray:
        problems.append(f"the journal's .forgotten file lists {len(stray)} record(s) no "
                        f"journal.forgotten record lists with that digest (seq "
                        f"{_seqs(stray)}): it was edited outside `memoir forget`")
    unlisted = sorted(tombs - listed.keys())
    if unlisted:
        problems.append(f"{len(unlisted)} record(s) hold a tombstone no journal.forgotten "
                        f"record lists (seq {_seqs(unlisted)}): their content was removed "
                        "outside `memoir forget`")
    unfinished = sorted(listed.keys() - tombs)
    if unfinished:
        runs = ", ".join(sorted({listed[s] for s in unfinished}))
        problems.append(f"the forget of run {runs} is unfinished (seq {_seqs(unfinished)} "
                        "still whole): `memoir forget --finish` completes it")
    return len(tombs), problems


def _seqs(seqs: list[int]) -> str:
    return ", ".join(map(str, seqs[:10])) + (f" and {len(seqs) - 10} more"
                                             if len(seqs) > 10 else "")


_TOMB = b'"data":{"forgotten":"'


def _checkpoint_problem(checkpoints: CheckpointStore, seq: int, folded: State) -> str | None:
    """Why checkpoint ``seq`` is not the state the journal folds to there (None: it is)."""
    cp = checkpoints.load(seq)
    if cp is None:
        return f"checkpoint {seq} cannot be read or its digest does not match"
    try:
        cp.state.load_history()
    except OSError as exc:
        return f"checkpoint {seq}: {exc}"
    if cp.state != folded:
        return (f"checkpoint {seq} holds a state the journal does not fold to (edited); "
                "delete it, or run `memoir rebuild`, which saves a new one")
    return None



def accept_journal_loss(engine: Engine) -> None:
    """Take the journal as it is: checkpoints beyond its head go, and projected files
    that show more than it holds are kept as ``.bak`` copies before the files are
    written again from the journal."""
    head = engine.live.state.seq
    for seq in engine.checkpoints.seqs():
        if seq > head:
            engine.checkpoints.remove(seq)
    PromptCache(Folder(engine.home, PROMPTS)).clear()  # pins beyond the head are gone
    if engine.seals is not None:
        engine.seals.cut(head)
    stamp = int(time.time())
    for rel, data in engine.projector.projected_files().items():
        if engine.materializer.read(rel) not in (None, data):
            engine.materializer.backup(rel, stamp)
    engine.projector.reset()
    log.warning("journal.loss_accepted", home=str(engine.home), head=head,
                files_showed=engine.materializer.seq,
                why="the journal is taken as it is: the files are written again from "
                    "it; what they showed beyond it is in .bak copies")


def idle_sessions(state: State, minutes: float, now: dt.datetime,
                  among: Iterable[str] | None = None) -> list[str]:
    """The sessions with recorded turns and no end whose last turn the journal recorded
    ``minutes`` or more before ``now`` (of ``among`` only, when given), oldest first.

    Idleness is measured from when the journal recorded the turn, not from the time
    its messages carry: a conversation imported now with last year's dates is not idle.
    """
    live = state.open_sessions
    found = []
    for sid in live if among is None else (s for s in among if s in live):
        try:
            idle = (now - parse_ts(live[sid])).total_seconds() / 60
        except ValueError:
            continue
        info = state.sessions.get(sid) if idle >= minutes else None
        if info is not None and info.ended_at is None and info.turns:
            found.append((live[sid], sid))
    return [sid for _ts, sid in sorted(found)]
