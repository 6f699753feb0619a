"""Real history as test input: a recorded journal read back as runs, replayed into a
fresh home, and checked against what folding it gives.

* :func:`recorded` reads a journal (a home, a ``journal.jsonl``, a ``postgresql://``
  URL or an open :class:`~memoir.journal.Journal`), verifies it first - a journal that
  does not verify is reported with the seq of its first bad record, never replayed - and
  returns its runs in journal order, each the records one actor wrote under one run id
  (records outside any run: one group per append).
* :func:`replay_commands` applies runs to a home, each run one commit by its actor in
  its session and run, the payloads as recorded.  What ``memoir forget`` left is not
  replayed: a forgotten record's tombstone holds no content (folds pass over it), and a
  ``journal.forgotten`` record names seqs of the journal it was written in.
* :func:`recorded_variants` (needs Hypothesis) draws prefixes, subsequences and
  perturbations (two runs swapped, a run repeated) of a recorded history, so a property
  can be checked on variations of what really happened; it shrinks towards the
  shortest prefix.
* :func:`check_history` replays a history into a scratch home run by run and checks,
  after every run, that the home's state is the fold of the recorded records up to that
  run's last seq, and at the end that the projected files are what the state renders,
byte for byte, and that the journal verifies: it returns the
  first seq where one breaks (``None``: none did).  ``pytest --memoir-journal PATH``
  (the ``memoir`` pytest plugin) runs it on a copy of a production journal.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import memoir
from memoir.config import CONFIG_FILE, load_config
from memoir.engine.commit import Caller, Decision
from memoir.errors import JournalCorrupted, MemoirError
from memoir.events.codec import Forgotten
from memoir.events.forget import ContentForgotten
from memoir.events.types import Event, Payload
from memoir.journal import Journal, is_database, open_journal, redact_url
from memoir.journal.home import is_attached
from memoir.projections.state import State

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

__all__ = ["Breach", "RecordedHistoryError", "RecordedRun", "check_history", "recorded",
           "recorded_variants", "replay_commands", "unprojected", "visible_state"]


class RecordedHistoryError(MemoirError):
    """What was given is not a journal that can be replayed (one line says why)."""


@dataclass(frozen=True)
class RecordedRun:
    """The records one actor wrote under one run id, in journal order."""

    run: str | None
    actor: str
    session: str | None
    events: tuple[Event, ...]

    @property
    def last_seq(self) -> int:
        return self.events[-1].seq


@dataclass(frozen=True)
class Breach:
    """Where a recorded history stops keeping memoir's guarantees."""

    seq: int
    invariant: str
    detail: str

    def __str__(self) -> str:
        return f"seq {self.seq}: {self.invariant}: {self.detail}"


def _journal(source: str | os.PathLike[str] | Journal) -> Journal:
    if isinstance(source, Journal):
        return source
    text = os.fspath(source)
    if is_database(text):
        return open_journal(text, readonly=True)
    path = Path(text)
    if path.is_dir():
        if (path / CONFIG_FILE).is_file():
            config = load_config(path)
            url = config.journal.url
            if url:  # a home whose journal is a database
                if os.environ.get("MEMOIR_JOURNAL_URL") != url and not is_attached(path, url):
                    # A folder handed over (a bug report's attachment) must not choose a
                    # server to connect to: the connection would hand it $PGPASSWORD.
                    raise RecordedHistoryError(
                        f"{text}: its config.yaml names the database journal "
                        f"{redact_url(url)}, which this home was never attached to here; "
                        "memoir does not connect to a server a folder names. If you trust "
                        "it, give the URL itself (a postgresql:// URL as PATH)")
                return open_journal(url, readonly=True)
        path = path / "journal.jsonl"
    if not path.is_file():
        raise RecordedHistoryError(f"{text}: not a journal (no such file, nor a home with "
                                   "a journal.jsonl)")
    try:
        return open_journal(path, durability="never", recover=False)
    except (JournalCorrupted, ValueError, OSError) as exc:
        raise RecordedHistoryError(f"{text}: not a journal memoir can read ({exc})") from None


def recorded(source: str | os.PathLike[str] | Journal,
             progress: Callable[[int, int], None] | None = None) -> list[RecordedRun]:
    """The runs of a recorded journal, verified first (see the module docstring)."""
    journal = _journal(source)
    try:
        try:
            journal.verify()
        except JournalCorrupted as exc:
            where = f"seq {exc.seq}" if getattr(exc, "seq", None) else "a record"
            raise RecordedHistoryError(f"the journal does not verify at {where}: {exc}"
                                       ) from None
        head = journal.head()
        runs: list[RecordedRun] = []
        by_run: dict[str, int] = {}
        append: list[Event] = []
        for event in journal.read():
            if progress is not None and event.seq % 10_000 == 0:
                progress(event.seq, head)
            if event.run is not None:
                at = by_run.get(event.run)
                if at is None:
                    by_run[event.run] = len(runs)
                    runs.append(RecordedRun(event.run, event.actor, event.session, (event,)))
                else:
                    run = runs[at]
                    runs[at] = RecordedRun(run.run, run.actor, run.session,
                                           (*run.events, event))
                continue
            append.append(event)
            if event.more == 0:  # the last record of its append
                runs.append(RecordedRun(None, append[0].actor, append[0].session,
                                        tuple(append)))
                append = []
        if append:
            runs.append(RecordedRun(None, append[0].actor, append[0].session, tuple(append)))
        return runs
    finally:
        if not isinstance(source, Journal):
            journal.close()


def replay_commands(runs: Iterable[RecordedRun], home: memoir.Memoir) -> list[Event]:
    """Apply ``runs`` to ``home`` (one commit each, by the run's actor, in its session
    and run); the records written."""
    written: list[Event] = []
    for run in runs:
        payloads: list[Payload] = [e.data for e in run.events
                                   if not isinstance(e.data, Forgotten | ContentForgotten)]
        if not payloads:
            continue

        def decide(_state: State, payloads: list[Payload] = payloads) -> Decision[None]:
            return Decision(events=payloads)

        events, _ = home.commit(decide, by=Caller(actor=run.actor, session=run.session,
                                                 run=run.run))
        written += events
    return written


def visible_state(state: State, *, versions: bool = True) -> dict[str, Any]:
    """What a person sees of a state: the memory entries and the skills (their text,
    files, lifecycle state, pin, category, owner and, with ``versions``, how many
    content versions they went through).  Timestamps and ids are left out: a replay
    writes new ones."""
    return {"memory": {t: state.memory.target(t).texts() for t in ("memory", "user")},
            "skills": {name: (r.content, dict(r.files), r.state, r.pinned, r.category,
                              r.created_by, r.version if versions else None)
                       for name, r in sorted(state.skills.skills.items())}}


def unprojected(home: memoir.Memoir) -> list[str]:
    """The projected files (MEMORY.md, USER.md, the skills tree) that are not, byte for
    byte, what the home's state renders; flushed first."""
    home.flush()
    return [rel for rel, expected in home.projected_files(home.state).items()
            if rel.startswith(("memories/", "skills/")) and not rel.endswith(".json")
            and _read(home.home / rel) != expected]


def _read(path: Path) -> bytes | None:
    return path.read_bytes() if path.is_file() and not path.is_symlink() else None


def check_history(runs: Sequence[RecordedRun],
                  progress: Callable[[int, int], None] | None = None) -> Breach | None:
    """Replay ``runs`` into a scratch home and check memoir's guarantees after each run
    (see the module docstring); the first breach, or None."""
    folded = State()
    total = len(runs)
    with tempfile.TemporaryDirectory(prefix="memoir-history-") as folder:
        home = Path(folder)
        (home / "journal.jsonl").touch()
        (home / "config.yaml").write_text("reviewers:\n  mode: off\njournal:\n"
                                          "  durability: never\nepisodic:\n"
                                          "  summaries: false\n", encoding="utf-8")
        with memoir.open(home) as handle:
            for done, run in enumerate(runs, 1):
                folded.apply_all(run.events)
                try:
                    replay_commands([run], handle)
                except MemoirError as exc:
                    return Breach(run.events[0].seq, "replay", str(exc))
                mine, theirs = visible_state(handle.state), visible_state(folded)
                if mine != theirs:
                    part = next(k for k in mine if mine[k] != theirs[k])
                    return Breach(run.last_seq, "fold of the journal equals the live state",
                                  f"the {part} differ after this run")
                if progress is not None and (done % 1_000 == 0 or done == total):
                    progress(done, total)
            wrong = unprojected(handle)
            if wrong:
                return Breach(runs[-1].last_seq if runs else 0,
                              "projected files are what the journal renders",
                              f"{len(wrong)} file(s) differ: {', '.join(wrong[:3])}")
            try:
                handle.verify()
            except JournalCorrupted as exc:
                return Breach(getattr(exc, "seq", None) or 0, "verify", str(exc))
    return None


def recorded_variants(runs: Sequence[RecordedRun]) -> SearchStrategy[list[RecordedRun]]:
    """Variations of a recorded history (see the module docstring)."""
    from hypothesis import strategies as st

    base = list(runs)

    @st.composite
    def variants(draw: st.DrawFn) -> list[RecordedRun]:
        end = draw(st.integers(0, len(base)))
        chosen = base[:end]
        kind = draw(st.sampled_from(["prefix", "subsequence", "swap", "repeat"]))
        if kind == "subsequence" and chosen:
            keep = draw(st.lists(st.booleans(), min_size=len(chosen), max_size=len(chosen)))
            chosen = [r for r, k in zip(chosen, keep, strict=True) if k]
        elif kind == "swap" and len(chosen) >= 2:
            i = draw(st.integers(0, len(chosen) - 2))
            chosen[i], chosen[i + 1] = chosen[i + 1], chosen[i]
        elif kind == "repeat" and chosen:
            i = draw(st.integers(0, len(chosen) - 1))
            chosen.insert(i + 1, chosen[i])
        return chosen

    return variants()
