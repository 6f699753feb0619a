"""Forgetting: removing content for good while the journal still verifies (the
mechanics; ``memoir forget`` comes through :mod:`memoir.oversight.forget`).

Every record's hash covers a digest of its payload, not the payload
(:mod:`memoir.events.codec`), so a payload can be replaced by a tombstone carrying that
digest and the chain still holds.  :func:`plan_forget` finds what a selector names —
``text`` (every record whose payload holds the text, every transcript body that holds
it) or ``entry`` (a memory entry through all its versions, and then every text those
versions held) — and :func:`forget` removes it, in this order:

1. a ``journal.forgotten`` record is appended (which seqs, their payload digests,
   which bodies, the selector, the reason; never the content): the forget is decided;
2. each selected record's payload is overwritten in place by its tombstone, padded
   with spaces to the same length (so every offset, checkpoint position and hash stays
   valid), and the journal is synced;
3. each selected transcript body is overwritten in place by a ``[forgotten]`` message
   of the same length;
4. the caches that hold folded text (checkpoints and memory snapshots, kept prompts,
   the search index) are deleted, the state is folded again, and the projected files
   are written again;
5. any other file under the home that still holds the text (a ``.bak`` drift copy, a
   curator report, an archived skill, a hand-edited file) has it replaced by
   ``[forgotten]``.

Steps 2-5 are idempotent: :func:`finish_forgets` completes a forget that was
interrupted after step 1 from the record alone (``memoir forget --finish``).  A record
whose payload is too short to hold a tombstone, or whose envelope (not its payload)
holds the text, is reported, not changed.  Records of a journal written before the
payload digest cannot be tombstoned without changing their hash: they are refused with
that reason.  On a PostgreSQL journal step 2 is one transaction that rewrites the rows
(and the shared bodies) through the one change the schema's trigger lets through, by a
role granted it; each other home of the database finishes its own part (its packs, its
caches) with ``memoir forget --finish``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from memoir.engine.commit import Caller, Decision
from memoir.engine.forget.plan import ForgetPlan, forgettable, forms_of, holds, plan_forget
from memoir.engine.maintenance import PENDING as _PENDING
from memoir.engine.maintenance import forgets_done, mark_forget_done
from memoir.engine.prompts import PROMPTS, PromptCache
from memoir.errors import MemoirError, NotFoundError
from memoir.events.codec import Forgotten, Quarantined
from memoir.events.forget import ContentForgotten
from memoir.fs import safefs
from memoir.fs.folder import Folder
from memoir.ids import short_id
from memoir.journal.interface import Tombstoning
from memoir.journal.transcripts import FOLDER as TRANSCRIPTS
from memoir.journal.transcripts import MARK, TranscriptStore
from memoir.layout import JOURNAL_FILE
from memoir.logs import get_logger
from memoir.projections.screen import screened
from memoir.projections.state import State

if TYPE_CHECKING:
    from memoir.engine.engine import Engine

__all__ = ["ForgetInterrupted", "ForgetPlan", "finish_forgets", "forget", "plan_forget",
           "settle_restored"]

_SKIP_SCRUB = (JOURNAL_FILE, "config.yaml")
log = get_logger("memoir.engine")


class ForgetInterrupted(MemoirError):
    """A forget stopped after it was journaled (Ctrl-C, a full disk): what it selected is
    partly removed; ``memoir forget --finish`` completes it from its record."""

    def __init__(self, run: str, cause: BaseException) -> None:
        why = type(cause).__name__ if isinstance(cause, KeyboardInterrupt) else \
            f"{type(cause).__name__}: {cause}"
        super().__init__(f"the forget (run {run}) was journaled and then interrupted "
                         f"({why}); part of it is done: `memoir forget --finish` completes "
                         "it")
        self.run = run


def forget(engine: Engine, plan: ForgetPlan, *, by: str = "user", reason: str = "",
           caches: Sequence[Callable[[Path], None]] = ()) -> tuple[str, ContentForgotten]:
    """Journal ``plan`` and carry it out (see the module docstring); returns the run and
    the record."""
    if plan.empty:
        raise NotFoundError("nothing matches: nothing was forgotten")
    seqs = sorted(plan.records)
    record = ContentForgotten(seqs=seqs, digests=[plan.places[s][2] for s in seqs],
                              bodies=list(plan.bodies), selector=plan.selector,
                              reason=reason[:500], marks=plan.marks)
    run = short_id("forget-")

    def decide(_state: State) -> Decision[None]:
        return Decision(events=[record])

    # The texts wait in a private file until every step is done, so an interrupted
    # forget can be finished (the journal record never holds them).
    pending = _PendingFile(engine.home, run)
    pending.write(plan.needles)
    try:
        engine.commit(decide, by=Caller(actor=by, run=run, run_kind="forget",
                                        run_summary=f"forget ({plan.selector})"))
    except BaseException:
        pending.remove()  # not journaled: nothing was forgotten
        raise
    try:
        scrubbed = _carry_out(engine, record, plan.needles, caches, plan.places)
    except BaseException as exc:
        raise ForgetInterrupted(run, exc) from exc
    mark_forget_done(engine.home, run)
    pending.remove()
    return run, msgspec.structs.replace(record, files=scrubbed)


def finish_forgets(engine: Engine, caches: Sequence[Callable[[Path], None]] = (), *,
                   leave_waiting: bool = False) -> int:
    """Carry out, in this home, every journaled forget it has not finished: one that was
    interrupted here (its texts still wait in their private file), or one made by
    another home of a shared journal (this home's packs and caches still hold what it
    removed).  A waiting file whose forget was never journaled is dropped (nothing was
    forgotten).  ``leave_waiting``: leave the forgets whose texts still wait alone (a
    listener must not race the process carrying one out).  How many were finished."""
    records: dict[str, tuple[int, ContentForgotten]] = {
        e.run: (e.seq, e.data) for e in engine.journal.read_family("journal.forgotten")
        if isinstance(e.data, ContentForgotten) and e.run}
    finished = forgets_done(engine.home)
    done = 0
    waiting = _PendingFile.all(engine.home)
    for run, pending in waiting.items():
        if leave_waiting:
            continue
        found = records.get(run)
        if found is not None:  # made here: its waiting texts vouch for it
            _carry_out(engine, found[1], pending.read(), caches)
            mark_forget_done(engine.home, run)
            done += 1
        pending.remove()
    stones: set[int] | None = None  # the tombstoned seqs, read once when needed
    vouched = _Vouching(engine)
    for run, (seq, record) in records.items():
        if run in waiting:
            continue
        if run in finished:
            if stones is None:
                stones = {e.seq for e in engine.journal.read() if isinstance(e.data, Forgotten)}
            if not _pending(engine.home, record, stones):
                continue
        if not vouched(seq, run):
            continue
        _carry_out(engine, record, [], caches)
        mark_forget_done(engine.home, run)
        done += 1
    return done


def settle_restored(engine: Engine) -> int:
    """In a home just restored from a backup (every cache rebuilt from the journal): note
    as done here each journaled forget whose records hold their tombstones and whose
    bodies in the restored packs are blank; any other stays for ``--finish``.  How many
    were noted."""
    done = forgets_done(engine.home)
    runs = {run for run, info in engine.state.runs.items()
            if info.kind == "forget" and run not in done}
    if not runs:
        return 0
    stones = {e.seq for e in engine.journal.read() if isinstance(e.data, Forgotten)}
    settled = 0
    for event in engine.journal.read_family("journal.forgotten"):
        if event.run in runs and isinstance(event.data, ContentForgotten) and \
                not _pending(engine.home, event.data, stones):
            mark_forget_done(engine.home, event.run)
            settled += 1
    return settled


class _Vouching:
    """Whether this home may carry out another's forget: with a key, only one a seal
    made with it covers (a writer role of a shared journal can insert a well-formed
    forget naming any record; one without the key is left alone, said in the log, and
    verify reports it as not sealed).  The seals are checked once, when first asked."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._unsealed: list[tuple[int, int]] | None = None

    def __call__(self, seq: int, run: str) -> bool:
        why = _quarantined(self._engine, seq)
        if why is not None:
            log.warning("forget.quarantined", seq=seq, run=run, why=why)
            return False
        seals = self._engine.seals
        if seals is None:
            return True
        if self._unsealed is None:
            self._unsealed = seals.check(self._engine.journal).unsealed
        if any(first <= seq <= last for first, last in self._unsealed):
            log.warning("forget.not_sealed", seq=seq, run=run,
                        why="a journal.forgotten record no seal made with this home's key "
                            "covers: not carried out (forged, or written without the key)")
            return False
        return True


def _quarantined(engine: Engine, seq: int) -> str | None:
    """Why the fold left the record at ``seq`` out (None: it was folded).  The state
    keeps the first reasons; past them, the record's append is judged again."""
    state = engine.live.state
    if seq in state.quarantined:
        return state.quarantined[seq]
    if state.quarantine_count <= len(state.quarantined):
        return None
    for event in screened(engine.journal.read(after=seq - 1), state.keys):
        return event.data.reason if isinstance(event.data, Quarantined) else None
    return None


@dataclass
class _PendingFile:
    """The texts of one forget under way (``_PENDING``/<run>.json), read and written
    through the no-follow walk of memoir's own files."""

    home: Path
    run: str

    @property
    def rel(self) -> str:
        return f"{_PENDING}/{self.run}.json"

    @classmethod
    def all(cls, home: Path) -> dict[str, _PendingFile]:
        return {name[:-5]: cls(home, name[:-5]) for name in safefs.listdir(home, _PENDING)
                if name.startswith("forget-") and name.endswith(".json")}

    def write(self, needles: Sequence[str]) -> None:
        data = json.dumps({"run": self.run, "needles": list(needles)}).encode()
        fd = safefs.open_own(self.home, self.rel, os.O_WRONLY | os.O_CREAT | os.O_TRUNC,
                             0o600)
        try:
            os.fchmod(fd, 0o600)
            os.write(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)

    def read(self) -> list[str]:
        try:
            value = json.loads(safefs.read(self.home, self.rel, limit=1 << 24) or b"{}")
            return [str(n) for n in value.get("needles", []) if isinstance(n, str)]
        except (OSError, ValueError, AttributeError):
            return []

    def remove(self) -> None:
        safefs.unlink(self.home, self.rel)


def _pending(home: Path, record: ContentForgotten, stones: set[int]) -> bool:
    """Whether a forget this home carried out has records or bodies left whole here."""
    return not stones.issuperset(record.seqs) or \
        any(not TranscriptStore.in_home(home).forgotten(ref) for ref in record.bodies)


def _carry_out(engine: Engine, record: ContentForgotten, needles: Sequence[str],
               caches: Sequence[Callable[[Path], None]],
               places: dict[int, tuple[int, int, str]] | None = None) -> int:
    """Steps 2-5 of the module docstring; returns how many other files were scrubbed.
    ``places``: where each payload is (from the plan), else the journal finds them."""
    _tombstone(forgettable(engine.journal), record, places)
    _blank_bodies(engine.home, record.bodies)
    _refold(engine, caches, min(record.seqs) if record.seqs else None)
    return _scrub(engine.home, [f for n in needles for f in forms_of(n)]) if needles else 0


def _tombstone(journal: Tombstoning, record: ContentForgotten,
               places: dict[int, tuple[int, int, str]] | None) -> None:
    """Step 2 (and, for a journal that keeps the bodies itself, step 3 there)."""
    journal.tombstone(dict(zip(record.seqs, record.digests, strict=True)),
                      places={seq: (p[0], p[1]) for seq, p in places.items()}
                      if places is not None else None,
                      bodies=record.bodies)


def _blank_bodies(home: Path, bodies: Sequence[str]) -> None:
    """Step 3: blank this home's copies of the message bodies (the transcript store
    writes them; a shared journal's own copies went with its tombstones)."""
    store = TranscriptStore.in_home(home)
    for ref in bodies:
        store.blank(ref)


def _refold(engine: Engine, caches: Sequence[Callable[[Path], None]], first: int | None
            ) -> None:
    """Drop the caches that hold folded text — the checkpoints and memory snapshots from
    ``first`` (the first forgotten seq) on, the kept prompts, and what ``caches`` drop
    (the search index) — fold the state again from the last checkpoint before it, and
    write the files."""
    live = engine.live
    with live.mutex:
        if first is not None:
            for seq in engine.checkpoints.seqs():
                if seq >= first:
                    engine.checkpoints.remove(seq)
            if live.snapshots is not None:
                for seq in live.snapshots.seqs():
                    if seq >= first:
                        live.snapshots.place.unlink(f"{seq:012d}.mpk")
            live.state = live.empty()  # let the old state go before the new one is loaded
            live.reload()
    PromptCache(Folder(engine.home, PROMPTS)).clear()
    for drop in caches:
        drop(engine.home)
    engine.rewrite_files(lambda drifted: [d.path for d in drifted])
    engine.flush()


def _file_holds(path: Path, forms: Sequence[bytes], chunk: int = 1 << 20) -> bool:
    """Whether the file holds one of ``forms``, read a chunk at a time."""
    overlap = max(len(f) for f in forms) - 1
    tail = b""
    with open(path, "rb") as stream:
        while block := stream.read(chunk):
            window = tail + block
            if holds(window, forms):
                return True
            tail = window[-overlap:] if overlap else b""
    return False


def _scrub(home: Path, forms: Sequence[bytes]) -> int:
    """Replace ``forms`` by the mark in every other file under the home (a cache under
    ``.memoir/`` is deleted instead); links are not followed.  How many files changed."""
    changed = 0
    mark = MARK.encode()
    for root, dirs, files in os.walk(home, followlinks=False):
        rel_root = Path(root).relative_to(home)
        dirs[:] = [d for d in dirs if not (Path(root) / d).is_symlink()]
        for name in files:
            path = Path(root) / name
            rel = (rel_root / name).as_posix()
            if rel in _SKIP_SCRUB or path.is_symlink() or not path.is_file() or \
                    rel.startswith((TRANSCRIPTS + "/", _PENDING + "/")):
                continue
            try:
                if not _file_holds(path, forms):
                    continue
            except FileNotFoundError:
                continue  # gone meanwhile (a cache another process dropped)
            if rel.startswith(".memoir/"):
                path.unlink(missing_ok=True)
            else:
                data = path.read_bytes()  # a file that holds the text: a report, a copy
                for form in forms:
                    data = data.replace(form, mark)
                tmp = path.with_name(f".{name}.forget")
                tmp.write_bytes(data)
                os.replace(tmp, path)
            changed += 1
    return changed
