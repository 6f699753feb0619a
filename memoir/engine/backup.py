"""Backups that prove themselves: one gzip'd tar of what a home cannot rebuild.

An archive holds the journal up to its last complete append, the transcript store's
packs, the seals of those records (a home with a key), ``config.yaml`` when there is
one, the owner key the home pinned (``.memoir/journal-owner``), its signing key only when
asked (``with_key``: a private key in an archive signs for the home wherever the archive
goes), and ``manifest.json``: the head seq, the chain
hash of that record, and the size and SHA-256 of every file.  Everything else (MEMORY.md,
USER.md, the skills tree, checkpoints, the search index) is a projection and is rebuilt
on restore.

It is taken while agents write, without stopping them: the journal's end is fixed
first and only the bytes before it are copied; transcript bodies are written before the
events that refer to them, and packs only grow, so every pack copied after that point
holds what those events reference.  Restoring checks the manifest, every file's digest
and the whole hash chain up to the recorded head before anything is written to the new
home, and refuses a truncated, altered or hostile archive with the reason: a member
that is not a file memoir writes, larger than its manifest says, or a journal holding
a record no command would write (a skill named ``../../x``, its chain recomputed).  A
backup never reads through a link.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import io
import json
import os
import shutil
import stat
import tarfile
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import yaml

from memoir import lazyre
from memoir.config import CONFIG_FILE, Config
from memoir.engine.seals import SEALS_FILE, seal_lines
from memoir.engine.signing import KEY_FILE, OWNER_FILE
from memoir.errors import JournalCorrupted, NotFoundError, UnknownEventType, ValidationError
from memoir.events.codec import hash_of_line
from memoir.fs import safefs
from memoir.journal import FileBacked, Journal, LineAccess, open_journal
from memoir.journal.transcripts import FOLDER as TRANSCRIPTS
from memoir.layout import FORGOTTEN_LIST, JOURNAL_FILE

__all__ = ["BACKUP_FORMAT", "BackupInfo", "Restored", "backup_home", "restore_archive",
           "write_backup"]

BACKUP_FORMAT = "memoir-backup/1"
MANIFEST = "manifest.json"
_PACK = lazyre.compile(r"pack-[0-9]{6,9}\.jsonl")
_CHUNK = 1 << 20
# A manifest lists a few files: kilobytes.  A bigger one is refused before it is read.
_MANIFEST_LIMIT = 1 << 20


class OpenJournal(Protocol):
    """What a backup needs of an open home: its folder and its journal."""

    home: Path
    journal: Journal


@dataclass(frozen=True)
class BackupInfo:
    """What an archive holds, from its manifest."""

    head: int
    hash: str
    files: dict[str, dict[str, Any]]
    created_at: str
    #: The forget horizon: the seq of the last ``journal.forgotten`` record the archive
    #: holds (what was forgotten before it is not in the archive), None if none.
    forgotten_through: int | None = None

    def as_json(self) -> dict[str, Any]:
        return {"head": self.head, "hash": self.hash, "created_at": self.created_at,
                "files": len(self.files),
                "bytes": sum(int(f["size"]) for f in self.files.values()),
                "forgotten_through": self.forgotten_through,
                "with_key": KEY_FILE in self.files}


def _add_prefix(tar: tarfile.TarFile, name: str, fd: int, size: int) -> dict[str, Any]:
    """Add the first ``size`` bytes of the open file ``fd`` as ``name``; its size and
    digest."""
    digest = hashlib.sha256()
    offset = [0]

    class Reader(io.RawIOBase):
        def readable(self) -> bool:
            return True

        def readinto(self, buffer: Any) -> int:
            want = min(len(buffer), size - offset[0])
            data = os.pread(fd, want, offset[0])
            if len(data) < want:
                raise OSError(f"{name} shrank while it was being backed up")
            buffer[:len(data)] = data
            digest.update(data)
            offset[0] += len(data)
            return len(data)

    info = tarfile.TarInfo(name)
    info.size = size
    info.mtime = int(os.fstat(fd).st_mtime)
    tar.addfile(info, io.BufferedReader(Reader(), _CHUNK))
    return {"size": size, "sha256": digest.hexdigest()}


def _add_bytes(tar: tarfile.TarFile, name: str, data: bytes) -> dict[str, Any]:
    entry = tarfile.TarInfo(name)
    entry.size = len(data)
    tar.addfile(entry, io.BytesIO(data))
    return {"size": len(data), "sha256": hashlib.sha256(data).hexdigest()}


def _open_regular(home: Path, rel: str) -> int | None:
    """A descriptor of the regular file at ``rel`` (never through a link); None when
    there is none."""
    try:
        fd = safefs.open_file(home, rel, os.O_RDONLY)
    except (FileNotFoundError, NotADirectoryError, safefs.LinkRefused):
        return None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        return None
    return fd


def backup_home(engine: OpenJournal, target: Path, *, with_key: bool = False) -> BackupInfo:
    """Write an archive of the open home ``engine`` (see :func:`write_backup`).  A home
    whose journal is a database gets the journal's records as of now as the archive's
    journal file: restored, it is a home with a file journal (`memoir journal copy`
    puts it back into a database)."""
    journal = engine.journal
    forgets = [e.seq for e in journal.read_family("journal.forgotten")]
    horizon = forgets[-1] if forgets else None
    if isinstance(journal, FileBacked):  # the home's journal.jsonl, archived as it is
        return write_backup(Path(engine.home), target, forgotten_through=horizon,
                            with_key=with_key)
    if not isinstance(journal, LineAccess):
        raise ValidationError(f"{journal.where()}: this journal cannot give its records "
                              "as lines, so it cannot be backed up; nothing was written")
    with tempfile.TemporaryFile() as spool:
        last = None
        for seq, _offset, line in journal.read_lines():
            spool.write(line + b"\n")
            last = (seq, line)
        spool.flush()
        seq, head_hash = (last[0], hash_of_line(last[1]).decode()) if last else (0, "")
        return write_backup(Path(engine.home), target,
                            spooled=(spool.fileno(), spool.tell(), seq, head_hash),
                            seals=seal_lines(Path(engine.home), seq, journal),
                            forgotten_through=horizon, with_key=with_key)


def write_backup(home: Path, target: Path, *,
                 spooled: tuple[int, int, int, str] | None = None,
                 seals: bytes | None = None,
                 forgotten_through: int | None = None,
                 with_key: bool = False) -> BackupInfo:
    """Write an archive of ``home`` to ``target`` (written aside, then renamed into
    place, so a failed backup leaves no half archive under the name).  Every file is
    opened without following a link: an archive holds the home's own files only.
    ``spooled``: (descriptor, size, head seq, head hash) of journal lines to archive
    instead of the home's journal.jsonl (a database's records); ``seals``: theirs (a
    database keeps them); ``with_key``: hold the home's signing key too (refused when
    it has none)."""
    journal_path = home / JOURNAL_FILE
    journal_fd = os.dup(spooled[0]) if spooled else _open_regular(home, JOURNAL_FILE)
    if journal_fd is None:
        raise NotFoundError(f"no journal at {journal_path}: nothing to back up")
    fds: dict[str, tuple[int, int]] = {}
    try:
        if spooled is not None:
            end_offset, end_seq, end_hash = spooled[1], spooled[2], spooled[3]
        else:
            with open_journal(journal_path, readonly=True, scan=False) as journal:
                assert isinstance(journal, FileBacked)
                end = journal.file_end()
            end_offset, end_seq, end_hash = end.offset, end.seq, end.hash
        fds[JOURNAL_FILE] = (journal_fd, end_offset)
        for name in sorted(safefs.listdir(home, TRANSCRIPTS)):
            if _PACK.fullmatch(name):
                fd = _open_regular(home, f"{TRANSCRIPTS}/{name}")
                if fd is not None:
                    fds[f"{TRANSCRIPTS}/{name}"] = (fd, os.fstat(fd).st_size)
        config_fd = _open_regular(home, CONFIG_FILE)
        if config_fd is not None:
            fds[CONFIG_FILE] = (config_fd, os.fstat(config_fd).st_size)
        # The forgotten records an older journal's chain cannot vouch for by itself.
        listed_fd = _open_regular(home, FORGOTTEN_LIST) if spooled is None else None
        if listed_fd is not None:
            fds[FORGOTTEN_LIST] = (listed_fd, os.fstat(listed_fd).st_size)
        for rel, wanted in ((OWNER_FILE, True), (KEY_FILE, with_key)):
            fd = _open_regular(home, rel) if wanted else None
            if fd is not None:
                fds[rel] = (fd, os.fstat(fd).st_size)
        if with_key and KEY_FILE not in fds:
            raise NotFoundError(f"no signing key at {home / KEY_FILE}: nothing to back up "
                                "with the archive (`memoir journal key` makes one)")
        if seals is None:
            seals = seal_lines(home, end_seq)
        return _write_archive(target, fds, seals, end_seq, end_hash, forgotten_through)
    finally:
        for fd, _size in fds.values():
            os.close(fd)
        if JOURNAL_FILE not in fds:
            os.close(journal_fd)


def _write_archive(target: Path, fds: dict[str, tuple[int, int]], seals: bytes, head: int,
                   head_hash: str, forgotten_through: int | None = None) -> BackupInfo:
    files: dict[str, dict[str, Any]] = {}
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    tmp = Path(tmp_name)
    try:
        # gzip's own default level: tarfile's 9 took 2.6x as long as `tar czf` for a
        # 1% smaller archive; at 6 a backup takes 0.78x of `tar czf` (docs/cli.md).
        with os.fdopen(fd, "wb") as raw, \
                tarfile.open(fileobj=raw, mode="w:gz", compresslevel=6) as tar:
            for name, (source, size) in fds.items():
                files[name] = _add_prefix(tar, name, source, size)
            if seals:
                files[SEALS_FILE] = _add_bytes(tar, SEALS_FILE, seals)
            info = BackupInfo(head, head_hash, files,
                              dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
                              forgotten_through)
            manifest = json.dumps({"format": BACKUP_FORMAT, "head": info.head,
                                   "hash": info.hash, "created_at": info.created_at,
                                   "forgotten_through": forgotten_through,
                                   "files": files}, indent=2, sort_keys=True).encode()
            _add_bytes(tar, MANIFEST, manifest)
            raw.flush()
            os.fsync(raw.fileno())
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return info


def _refuse(archive: Path, why: str) -> ValidationError:
    return ValidationError(f"{archive} is not a sound memoir backup: {why}; nothing was "
                           "restored")


def _safe_name(name: str) -> bool:
    return name in (JOURNAL_FILE, CONFIG_FILE, MANIFEST, SEALS_FILE, FORGOTTEN_LIST,
                    OWNER_FILE, KEY_FILE) or (
        name.startswith(TRANSCRIPTS + "/") and bool(_PACK.fullmatch(name[len(TRANSCRIPTS) + 1:])))


def _manifest(archive: Path, tar: tarfile.TarFile, member: tarfile.TarInfo) -> dict[str, Any]:
    """The manifest, read within its bound and checked for shape."""
    if member.size > _MANIFEST_LIMIT:
        raise _refuse(archive, f"its manifest is {member.size:,} bytes (a manifest is a few "
                               f"KB; at most {_MANIFEST_LIMIT:,} are read)")
    extracted = tar.extractfile(member)
    assert extracted is not None
    manifest = json.loads(extracted.read(_MANIFEST_LIMIT + 1))
    if not isinstance(manifest, dict) or manifest.get("format") != BACKUP_FORMAT:
        got = manifest.get("format") if isinstance(manifest, dict) else None
        raise _refuse(archive, f"unknown format {got!r}")
    files = manifest.get("files")
    if not isinstance(files, dict) or not all(
            isinstance(f, dict) and isinstance(f.get("size"), int) and f["size"] >= 0
            and isinstance(f.get("sha256"), str) for f in files.values()):
        raise _refuse(archive, "its manifest's file list is malformed")
    if not isinstance(manifest.get("head"), int) or not isinstance(manifest.get("hash"), str):
        raise _refuse(archive, "its manifest names no head")
    return manifest


def read_backup(archive: Path, into: Path) -> BackupInfo:
    """Extract and check ``archive`` into the empty folder ``into``: known names only,
    regular files only, each no larger than the manifest says (checked before a byte of
    it is written), every digest, the whole chain as the manifest says, and every
    record against the rules a command obeys (no name or path that leaves the home)."""
    try:
        with tarfile.open(archive, mode="r:gz") as tar:
            members = tar.getmembers()
            for member in members:
                if not member.isfile() or not _safe_name(member.name):
                    raise _refuse(archive, f"it holds {member.name!r}, which a memoir "
                                           "backup never does")
            by_name = {m.name: m for m in members}
            if len(by_name) != len(members):
                raise _refuse(archive, "it holds a file twice")
            if MANIFEST not in by_name or JOURNAL_FILE not in by_name:
                raise _refuse(archive, "its manifest or journal is missing")
            manifest = _manifest(archive, tar, by_name[MANIFEST])
            files: dict[str, dict[str, Any]] = manifest["files"]
            if set(files) != set(by_name) - {MANIFEST}:
                raise _refuse(archive, "its files differ from those its manifest lists")
            for member in members:
                if member.name == MANIFEST:
                    continue
                want = files[member.name]
                if member.size != want["size"]:
                    raise _refuse(archive, f"{member.name} is {member.size:,} bytes, its "
                                           f"manifest says {want['size']:,}")
                _extract(archive, tar, member, into, want)
    except (tarfile.TarError, EOFError, OSError, ValueError, KeyError, TypeError) as exc:
        raise _refuse(archive, f"it cannot be read ({type(exc).__name__}: {exc})") from None
    through = manifest.get("forgotten_through")
    info = BackupInfo(manifest["head"], manifest["hash"], files,
                      str(manifest.get("created_at", "")),
                      through if isinstance(through, int) else None)
    try:
        journal = open_journal(into / JOURNAL_FILE, readonly=True)  # scans: checks the chain
    except (JournalCorrupted, UnknownEventType) as exc:
        raise _refuse(archive, f"its journal fails verification ({exc})") from None
    try:
        assert isinstance(journal, FileBacked)
        end = journal.file_end()
        if journal.head() != info.head or end.seq != info.head or end.hash != info.hash:
            raise _refuse(archive, f"its journal ends at record {end.seq}, not at the head "
                                   f"{info.head} its manifest records")
        # Every payload decoded: a record naming a skill '../../x' (its chain recomputed,
        # which needs no key) is refused here, with its seq, before anything is restored.
        journal.verify()
    except (JournalCorrupted, UnknownEventType) as exc:
        raise _refuse(archive, f"its journal fails verification ({exc})") from None
    finally:
        journal.close()
    return info


def _extract(archive: Path, tar: tarfile.TarFile, member: tarfile.TarInfo, into: Path,
             want: dict[str, Any]) -> None:
    source = tar.extractfile(member)
    assert source is not None
    digest = hashlib.sha256()
    left = member.size
    # A signing key is private to the home's owner, as `memoir journal key` makes it.
    mode = 0o600 if member.name == KEY_FILE else 0o644
    fd = safefs.open_file(into, member.name, os.O_WRONLY | os.O_CREAT | os.O_EXCL,
                          mode, create_dirs=True)
    os.fchmod(fd, mode)
    with os.fdopen(fd, "wb") as out:
        while left > 0 and (chunk := source.read(min(_CHUNK, left))):
            digest.update(chunk)
            out.write(chunk)
            left -= len(chunk)
    if left or digest.hexdigest() != want["sha256"]:
        raise _refuse(archive, f"{member.name} does not match its digest (altered or "
                               "truncated)")


@dataclass(frozen=True)
class Restored:
    """What :func:`restore_archive` did: the archive's manifest, and what became of the
    configuration it carried."""

    info: BackupInfo
    #: ``config.yaml`` (applied), ``config.yaml.restored`` (put aside) or None.
    config: str | None = None
    #: The archived configuration's keys that differ from the defaults (dotted).
    config_keys: list[str] = field(default_factory=list)


def restore_archive(archive: Path, home: Path, *, with_config: bool = False) -> Restored:
    """Check ``archive`` fully, then move its files into ``home`` (which must not exist
    or be empty).  The archive's ``config.yaml`` is put aside as
    ``config.yaml.restored`` unless ``with_config``: a configuration from elsewhere could
    send the home's conversations to another server.  Staging folders of restores that
    were killed are removed first.  The projections are the caller's to rebuild (open
    the home)."""
    if home.exists() and (not home.is_dir() or any(home.iterdir())):
        raise ValidationError(f"{home} is not empty: restore into a new folder")
    if not archive.is_file():
        raise NotFoundError(f"no backup at {archive}")
    home.parent.mkdir(parents=True, exist_ok=True)
    _sweep_staging(home)
    staging = Path(tempfile.mkdtemp(prefix=f"{_staging_prefix(home)}{os.getpid()}-",
                                    dir=home.parent))
    try:
        info = read_backup(archive, staging)
        config, keys = None, []
        if CONFIG_FILE in info.files:
            keys = _changed_keys(staging / CONFIG_FILE)
            config = CONFIG_FILE
            if not with_config:
                config = f"{CONFIG_FILE}.restored"
                os.rename(staging / CONFIG_FILE, staging / config)
        if home.exists():
            home.rmdir()
        os.replace(staging, home)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return Restored(info, config, keys)


def _staging_prefix(home: Path) -> str:
    return f".{home.name}.restore-"


def _sweep_staging(home: Path) -> None:
    """Remove the staging folders restores into ``home`` left when they were killed
    (``.<name>.restore-<pid>-…`` whose process is gone)."""
    prefix = _staging_prefix(home)
    try:
        entries = list(os.scandir(home.parent))
    except OSError:
        return
    for entry in entries:
        if not entry.name.startswith(prefix) or not entry.is_dir(follow_symlinks=False):
            continue
        pid = entry.name[len(prefix):].split("-", 1)[0]
        if not pid.isdigit() or not safefs.pid_alive(int(pid)):
            shutil.rmtree(entry.path, ignore_errors=True)


def _changed_keys(path: Path) -> list[str]:
    """The dotted keys of the YAML configuration at ``path`` whose values differ from the
    defaults (what applying it would change)."""
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return ["(not readable YAML)"]
    defaults = Config().model_dump(mode="json")
    out: list[str] = []

    def walk(value: Any, default: Any, keys: tuple[str, ...]) -> None:
        if isinstance(value, dict) and (isinstance(default, dict) or default is None):
            for key, inner in value.items():
                walk(inner, (default or {}).get(str(key)), (*keys, str(key)))
        elif value != default:
            out.append(".".join(keys))

    walk(raw if isinstance(raw, dict) else {}, defaults, ())
    return sorted(out)
