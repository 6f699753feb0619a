"""This home's signing key, and when its appends are signed.

Each home that writes to a signed journal holds its own Ed25519 key in
``.memoir/signing.key`` (mode 0600, hex of the 32 private bytes): never in the
database, config.yaml or a backup.  Its public key is what the journal's owner trusts
(``memoir journal trust KEY``).  A journal is signed once its owner turned signing on
(``memoir journal upgrade --sign``, or ``memoir init --journal`` on a new database); from
then on every append this home makes ends with its signature, and a home whose key the
registry does not trust refuses to write (its appends would be quarantined everywhere)
and says which line the owner runs.

A home also *pins* the journal's owner (``.memoir/journal-owner``, the public key; not a
secret): its own key when it turns signing on, the key given to ``memoir init --journal
URL --owner KEY`` or ``memoir journal owner --pin KEY``, or else the owner it first
meets (trust on first use, said in the log and by ``memoir journal owner``).  Its folds
quarantine a record that turns signing on with any other key, and it refuses to write to
a journal whose owner is not the pinned one, or that is not signed at all once it
pinned one (a journal swapped or rolled back under the home).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from memoir.engine.commit import Caller, Decision
from memoir.errors import ConfigError, JournalError, NotFoundError, ValidationError
from memoir.events.keys import KeyRevoked, KeyTrusted, key_problem
from memoir.events.types import Draft
from memoir.fs import safefs
from memoir.ids import short_id
from memoir.journal import Journal
from memoir.logs import get_logger
from memoir.projections.keys import KeysState
from memoir.projections.screen import needs
from memoir.projections.state import State
from memoir.signatures import Signer, new_private_key, short

if TYPE_CHECKING:
    from memoir.engine.engine import Engine

__all__ = [
    "KEY_FILE", "OWNER_FILE", "NotTrusted", "Signing", "change_registry", "home_signer",
    "host_label", "join_signed", "pin_owner", "pin_problem", "pinned_owner", "signer_for",
    "start_signing", "trust_line",
]

log = get_logger("memoir.engine")

KEY_FILE = ".memoir/signing.key"
OWNER_FILE = ".memoir/journal-owner"


class NotTrusted(JournalError):
    """This home's key may not sign appends to the journal (yet, or any more)."""


def home_signer(home: Path, *, create: bool = False) -> Signer | None:
    """The home's signer (None when it has no key and ``create`` is false).  A key file
    that is not a regular file of the home's owner, or that others may read, is refused:
    a key anyone can read signs for anyone."""
    try:
        fd = safefs.open_file(home, KEY_FILE, os.O_RDONLY)
    except FileNotFoundError:
        if not create:
            return None
        return _create(home)
    except OSError as exc:
        raise ConfigError(f"{home / KEY_FILE}: {exc.strerror or exc}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ConfigError(f"{home / KEY_FILE} is not a regular file")
        if info.st_mode & 0o077:
            raise ConfigError(f"{home / KEY_FILE} may be read by others (mode "
                              f"{stat.S_IMODE(info.st_mode):o}); `chmod 600` it")
        data = os.read(fd, 256)
    finally:
        os.close(fd)
    try:
        return Signer(bytes.fromhex(data.decode("ascii").strip()))
    except (UnicodeDecodeError, ValueError):
        raise ConfigError(f"{home / KEY_FILE} does not hold a signing key (64 hex digits)") \
            from None


def _create(home: Path) -> Signer:
    private = new_private_key()
    fd = safefs.open_own(home, KEY_FILE, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.fchmod(fd, 0o600)
        os.write(fd, private.hex().encode() + b"\n")
        os.fsync(fd)
    finally:
        os.close(fd)
    return Signer(private)


def pinned_owner(home: Path) -> str:
    """The owner key this home pinned ("" when none).  A pin file that does not hold a
    key is refused with its path: a home must not fall back to trusting any owner."""
    if safefs.kind(home, OWNER_FILE) not in ("file", "missing"):
        raise ConfigError(f"{home / OWNER_FILE} is not a regular file; remove it, then "
                          "`memoir journal owner --pin KEY` writes it again")
    try:
        data = safefs.read(home, OWNER_FILE, limit=1024)
    except (OSError, safefs.LinkRefused) as exc:
        raise ConfigError(f"{home / OWNER_FILE}: {exc}") from None
    if data is None:
        return ""
    key = data.decode("ascii", "replace").strip().lower()
    if key_problem(key):
        raise ConfigError(f"{home / OWNER_FILE} does not hold an owner key (64 hex digits); "
                          "`memoir journal owner --pin KEY` writes it again")
    return key


def pin_owner(home: Path, key: str) -> str:
    """Pin ``key`` (64 hex digits) as the owner of the journal this home writes to; the
    key as pinned (lower case)."""
    key = key.strip().lower()
    problem = key_problem(key)
    if problem:
        raise ValidationError(f"{problem}: `memoir journal owner` on the owner's home "
                              "prints the owner's key")
    safefs.write_file(home, OWNER_FILE, key.encode() + b"\n", fsync=True)
    return key


def pin(engine: Engine, key: str) -> None:
    """Pin ``key`` as this home's journal owner and fold the journal by it from now on
    (again from the first record when it could change what is folded)."""
    key = pin_owner(engine.home, key)
    live = engine.live
    with live.mutex:
        live.pinned = key
        keys = live.state.keys
        if keys.root == key or not (keys.signing or live.state.quarantine_count):
            keys.pinned = key  # the fold so far is the one this pin makes
        else:
            live.refold()


def pin_on_first_sight(engine: Engine) -> None:
    """A home opened to write on a signed journal it has pinned no owner of pins the
    owner it folded (trust on first use; ``memoir journal owner`` shows it)."""
    keys = engine.live.state.keys
    if keys.pinned or not keys.signing:
        return
    try:
        pin(engine, keys.root)
    except OSError as exc:  # a home that cannot write its pin still opens
        log.warning("journal.owner_not_pinned", error=str(exc))
        return
    log.info("journal.owner_pinned", owner=keys.root, since=keys.since)


def pin_problem(keys: KeysState) -> str | None:
    """Why the journal folded into ``keys`` is not rooted in the owner the home pinned
    (None: it is, or nothing is pinned): an owner record with another key is quarantined
    here, so a journal signed under it, or not signed at all, is not the one this home
    joined."""
    if not keys.pinned or keys.root == keys.pinned:
        return None
    seen = f"is signed under owner {short(keys.root)}" if keys.signing else "is not signed"
    return (f"this home pinned the journal's owner key {short(keys.pinned)}, but the "
            f"journal {seen}: it was swapped, rolled back or forged, or its owner changed, "
            f"and this home writes nothing to it.  If the owner really changed, `memoir "
            f"journal owner --pin KEY` pins the new key (check it with the owner first)")


def check_pin(keys: KeysState) -> None:
    """NotTrusted when :func:`pin_problem` says the journal is not this home's."""
    problem = pin_problem(keys)
    if problem is not None:
        raise NotTrusted(problem)


def trust_line(key: str, label: str = "") -> str:
    """The command the journal's owner runs to admit ``key``."""
    named = f" --label {label}" if label and label.replace("-", "").replace(".", "").isalnum() \
        else ""
    return f"memoir journal trust {key}{named}"


def signer_for(keys: KeysState, signer: Signer | None, next_seq: int) -> Signer:
    """``signer``, when it may sign appends at ``next_seq`` of a journal signed under the
    registry ``keys``; NotTrusted when it may not (or the home has no key)."""
    if signer is None:
        raise NotTrusted(
            f"the journal is signed (since seq {keys.since}) and this home has no signing "
            f"key: run `memoir journal key` here, then have the journal's owner run the "
            f"line it prints")
    if keys.trusted_at(signer.key, next_seq) is None:
        info = keys.keys.get(signer.key)
        why = (f"was revoked at seq {info.until}" if info is not None and info.until
               else "is not trusted yet")
        raise NotTrusted(
            f"this home's signing key {short(signer.key)} {why} on this journal: its appends "
            f"would be quarantined by every home.  The journal's owner runs: "
            f"{trust_line(signer.key)}")
    return signer


class Signing:
    """Called by the commit path under the journal lock, before a batch is staged: sets
    the journal's signer when the journal is signed (the key is read once, when first
    needed), clears it when not; NotTrusted when this home may not sign."""

    def __init__(self, home: Path, journal: Journal) -> None:
        self._home = home
        self._journal = journal
        self._signer: Signer | None = None
        #: The owner's signer while its first record is committed (start_signing).
        self.starting: Signer | None = None

    def __call__(self, state: State, drafts: Sequence[Draft]) -> None:
        keys = state.keys
        if not keys.signing:
            # The append that turns signing on is signed by the key it names.
            if self.starting is None:
                check_pin(keys)
            self._journal.signer = self.starting
            return
        check_pin(keys)
        if self._signer is None:  # read once it exists (`memoir journal key` makes it)
            self._signer = home_signer(self._home)
        signer = signer_for(keys, self._signer, state.seq + 1)
        for draft in drafts:
            right = needs(draft.data, signer.key, keys)
            if right is not None and not keys.may(signer.key, right):
                raise NotTrusted(
                    f"this home's key {short(signer.key)} may not {right} on this signed "
                    f"journal (a {draft.data.TYPE} it signed would be quarantined by every "
                    f"home); the owner grants it with: {trust_line(signer.key)} --may {right}")
        self._journal.signer = signer


def start_signing(engine: Engine, *, label: str = "") -> tuple[bool, KeysState]:
    """Turn signing on with this home's key as the owner's (made if missing): one
    append, ``journal.key_trusted`` naming the key as owner, signed by it.  Returns
    (whether this call turned it on, the registry after); a journal already signed is
    left as it is."""
    signer = home_signer(engine.home, create=True)
    assert signer is not None
    signing = engine.signing
    if not engine.state.keys.signing and engine.state.keys.pinned != signer.key:
        # The owner pins its own key first: a forged owner record already in the journal
        # is then quarantined here, and this home's record turns signing on.
        pin(engine, signer.key)

    def decide(state: State) -> Decision[None]:
        if state.keys.signing:
            return Decision(events=[])
        return Decision(events=[KeyTrusted(key=signer.key, owner=True, label=label)],
                        summary="signing turned on")

    signing.starting = signer
    try:
        events, _ = engine.commit(decide, by=Caller(actor="user", run=short_id("keys-"),
                                                    run_kind="cli"))
    finally:
        signing.starting = None
    return bool(events), engine.state.keys


def change_registry(engine: Engine, payload: KeyTrusted | KeyRevoked) -> None:
    """Append a registry change signed by this home's key, which must hold the ``trust``
    right (the owner's): anything else would be quarantined by every home."""
    signer = home_signer(engine.home)

    def decide(state: State) -> Decision[None]:
        keys = state.keys
        if not keys.signing:
            raise ValidationError("the journal is not signed: `memoir journal upgrade` turns "
                                  "signing on, with this home's key as the owner's")
        if signer is None or not keys.may(signer.key, "trust"):
            mine = short(signer.key) if signer is not None else "none"
            raise NotTrusted(f"only the journal's owner ({short(keys.owner)}) or a key it "
                             f"let trust may change the registry; this home's key is {mine}")
        if isinstance(payload, KeyRevoked):
            if payload.key == keys.owner:
                raise ValidationError("the owner's key cannot be revoked (trust another key "
                                      "as owner first)")
            info = keys.keys.get(payload.key)
            if info is None or info.until:
                raise NotFoundError(f"key {short(payload.key)} is not trusted on this journal")
        return Decision(events=[payload])

    engine.commit(decide, by=Caller(actor="user", run=short_id("keys-"), run_kind="cli"))


def host_label() -> str:
    """The name a home's key is trusted under by default: the machine's host name."""
    import socket

    return socket.gethostname()[:200]


def join_signed(engine: Engine) -> str | None:
    """A home joining a database journal: the first one (an empty journal) turns signing
    on as its owner; a later one makes its key and, when the journal is signed and does
    not trust it yet, gets the line its owner runs (returned; None: this home may
    write)."""
    if engine.head == 0:
        start_signing(engine, label=host_label())
        return None
    signer = home_signer(engine.home, create=True)
    assert signer is not None
    keys = engine.state.keys
    if not keys.signing or keys.trusted_at(signer.key, engine.head + 1) is not None:
        return None
    return trust_line(signer.key, host_label())
