"""Opening a home's journal: refusing what is no home, and refusing a journal that
ends before what the home has seen (:class:`~memoir.errors.JournalLost`), before any
state is folded."""

from __future__ import annotations

from pathlib import Path

from memoir.clock import Clock
from memoir.config import Config
from memoir.engine.checkpoints import CheckpointStore
from memoir.engine.materializer import Materializer
from memoir.errors import JournalLost, NotFoundError, ValidationError
from memoir.journal import Journal, open_journal
from memoir.journal.home import home_journal, shared_journal
from memoir.layout import JOURNAL_FILE, no_home_message

__all__ = ["check_home", "home_journal", "open_home_journal", "seen_seq", "shared_journal"]


def check_home(home: Path, *, must_exist: bool) -> None:
    """Refuse a file given as a home, and (``must_exist``) a folder that is no home."""
    if home.exists() and not home.is_dir():
        raise ValidationError(f"{home} is a file, not a memoir home (a home is a folder)")
    if must_exist and not (home / JOURNAL_FILE).is_file() and not (home / ".memoir").is_dir():
        raise NotFoundError(no_home_message(home))



def seen_seq(checkpoints: CheckpointStore, materializer: Materializer) -> int:
    """The newest seq anything derived from the journal says the home reached."""
    seqs = checkpoints.seqs()
    return max(seqs[-1] if seqs else 0, materializer.seq)


def open_home_journal(home: Path, config: Config, clock: Clock, journal: Journal | None, *,
                 readonly: bool, seen: int, accept_loss: bool) -> tuple[Journal, int, int]:
    """The home's journal (``journal`` if given, else its file), the seq the home has
    seen, and the seq the journal must reach: with durability ``always`` a journal never
    ends before what its checkpoints and files show (unless ``accept_loss``)."""
    if journal is None and config.journal.url:
        journal = shared_journal(config, clock, readonly=readonly, home=home)
    if readonly and journal is None and not (home / JOURNAL_FILE).is_file():
        if seen:
            raise JournalLost(home / JOURNAL_FILE, 0, seen)
        raise NotFoundError(no_home_message(home))
    durable = config.journal.durability == "always"
    # The seq this home is known to have reached, from what was derived from the
    # journal (checkpoints, projected files): a durable journal never ends before it.
    acknowledged = seen if durable and not accept_loss else 0
    if journal is None:
        path = home / JOURNAL_FILE
        if acknowledged and not path.exists():
            raise JournalLost(path, 0, acknowledged)
        # The journal is checked from the newest valid checkpoint on, not from its
        # first byte: opening a home with a long history stays fast, and
        # `memoir verify` (or any full replay) checks the whole chain.
        journal = open_journal(
            path,
            durability=config.journal.durability,
            clock=clock,
            lock_timeout=config.journal.lock_timeout_seconds,
            scan=False,
            readonly=readonly,
        )
    return journal, seen, acknowledged
