"""Backups that prove themselves: one gzip'd tar of what a home cannot rebuild.

An archive holds the journal up to its last complete append, the transcript store's
packs, ``config.yaml`` when there is one, and ``manifest.json``: the head seq, the chain
hash of that record, and the size and SHA-256 of every file.  Everything else (MEMORY.md,
USER.md, the skills tree, checkpoints, the search index) is a projection and is rebuilt
on restore.

It is taken while agents write, without stopping them: the journal's end is fixed
first and only the bytes before it are copied; transcript bodies are written before the
events that refer to them, and packs only grow, so every pack copied after that point
holds what those events reference.  Restoring checks the manifest, every file's digest
and the whole hash chain up to the recorded head before anything is written to the new
home, and refuses a truncated, altered or hostile archive with the reason.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import io
import json
import os
import shutil
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from memoir.errors import JournalCorrupted, NotFoundError, ValidationError
from memoir.journal import FileJournal
from memoir.layout import JOURNAL_FILE

__all__ = ["BACKUP_FORMAT", "BackupInfo", "restore_archive", "write_backup"]

BACKUP_FORMAT = "memoir-backup/1"
MANIFEST = "manifest.json"
_TRANSCRIPTS = ".memoir/transcripts"
_CHUNK = 1 << 20


@dataclass(frozen=True)
class BackupInfo:
    """What an archive holds, from its manifest."""

    head: int
    hash: str
    files: dict[str, dict[str, Any]]
    created_at: str

    def as_json(self) -> dict[str, Any]:
        return {"head": self.head, "hash": self.hash, "created_at": self.created_at,
                "files": len(self.files),
                "bytes": sum(int(f["size"]) for f in self.files.values())}


def _add_prefix(tar: tarfile.TarFile, name: str, path: Path, size: int) -> dict[str, Any]:
    """Add the first ``size`` bytes of ``path`` as ``name``; its size and digest."""
    digest = hashlib.sha256()

    class Reader(io.RawIOBase):
        def __init__(self, f: Any) -> None:
            self.f, self.left = f, size

        def readable(self) -> bool:
            return True

        def readinto(self, buffer: Any) -> int:
            want = min(len(buffer), self.left)
            data = self.f.read(want)
            if len(data) < want:
                raise OSError(f"{path} shrank while it was being backed up")
            buffer[:len(data)] = data
            digest.update(data)
            self.left -= len(data)
            return len(data)

    info = tarfile.TarInfo(name)
    info.size = size
    info.mtime = int(os.stat(path).st_mtime)
    with open(path, "rb") as f:
        tar.addfile(info, io.BufferedReader(Reader(f), _CHUNK))
    return {"size": size, "sha256": digest.hexdigest()}


def write_backup(home: Path, target: Path) -> BackupInfo:
    """Write an archive of ``home`` to ``target`` (written aside, then renamed into
    place, so a failed backup leaves no half archive under the name)."""
    journal_path = home / JOURNAL_FILE
    if not journal_path.is_file():
        raise NotFoundError(f"no journal at {journal_path}: nothing to back up")
    journal = FileJournal(journal_path, readonly=True, scan=False)
    try:
        end = journal.end()
    finally:
        journal.close()
    packs = sorted((home / _TRANSCRIPTS).glob("*")) if (home / _TRANSCRIPTS).is_dir() else []
    sizes = {p: p.stat().st_size for p in packs if p.is_file() and not p.name.endswith(".lock")}
    files: dict[str, dict[str, Any]] = {}
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    tmp = Path(tmp_name)
    try:
        # gzip's own default level: tarfile's 9 took 2.6x as long as `tar czf` for a
        # 1% smaller archive; at 6 a backup takes 0.78x of `tar czf` (docs/cli.md).
        with os.fdopen(fd, "wb") as raw, \
                tarfile.open(fileobj=raw, mode="w:gz", compresslevel=6) as tar:
            files[JOURNAL_FILE] = _add_prefix(tar, JOURNAL_FILE, journal_path, end.offset)
            for pack, size in sizes.items():
                name = f"{_TRANSCRIPTS}/{pack.name}"
                files[name] = _add_prefix(tar, name, pack, size)
            config = home / "config.yaml"
            if config.is_file():
                files["config.yaml"] = _add_prefix(tar, "config.yaml", config,
                                                   config.stat().st_size)
            info = BackupInfo(end.seq, end.hash.decode(), files,
                              dt.datetime.now(dt.UTC).isoformat(timespec="seconds"))
            manifest = json.dumps({"format": BACKUP_FORMAT, "head": info.head,
                                   "hash": info.hash, "created_at": info.created_at,
                                   "files": files}, indent=2, sort_keys=True).encode()
            entry = tarfile.TarInfo(MANIFEST)
            entry.size = len(manifest)
            tar.addfile(entry, io.BytesIO(manifest))
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
    path = PurePosixPath(name)
    if path.is_absolute() or ".." in path.parts or not path.parts:
        return False
    return name in (JOURNAL_FILE, "config.yaml", MANIFEST) or (
        str(path.parent) == _TRANSCRIPTS and not path.name.startswith("."))


def read_backup(archive: Path, into: Path) -> BackupInfo:
    """Extract and check ``archive`` into the empty folder ``into``: known names only,
    regular files only, every digest and the whole chain as the manifest says."""
    try:
        with tarfile.open(archive, mode="r:gz") as tar:
            members = tar.getmembers()
            for member in members:
                if not member.isfile() or not _safe_name(member.name):
                    raise _refuse(archive, f"it holds {member.name!r}, which a memoir "
                                           "backup never does")
            names = {m.name for m in members}
            if MANIFEST not in names or JOURNAL_FILE not in names:
                raise _refuse(archive, "its manifest or journal is missing")
            extracted = tar.extractfile(MANIFEST)
            assert extracted is not None
            manifest = json.loads(extracted.read())
            if manifest.get("format") != BACKUP_FORMAT:
                raise _refuse(archive, f"unknown format {manifest.get('format')!r}")
            files: dict[str, dict[str, Any]] = manifest["files"]
            if set(files) != names - {MANIFEST}:
                raise _refuse(archive, "its files differ from those its manifest lists")
            for member in members:
                if member.name == MANIFEST:
                    continue
                source = tar.extractfile(member)
                assert source is not None
                path = into / member.name
                path.parent.mkdir(parents=True, exist_ok=True)
                digest = hashlib.sha256()
                with open(path, "wb") as out:
                    while chunk := source.read(_CHUNK):
                        digest.update(chunk)
                        out.write(chunk)
                want = files[member.name]
                if member.size != want["size"] or digest.hexdigest() != want["sha256"]:
                    raise _refuse(archive, f"{member.name} does not match its digest "
                                           "(altered or truncated)")
    except (tarfile.TarError, EOFError, OSError, ValueError, KeyError, TypeError) as exc:
        raise _refuse(archive, f"it cannot be read ({type(exc).__name__}: {exc})") from None
    info = BackupInfo(int(manifest["head"]), str(manifest["hash"]), files,
                      str(manifest.get("created_at", "")))
    journal = FileJournal(into / JOURNAL_FILE, readonly=True)  # scans: checks the chain
    try:
        end = journal.end()
        if journal.head() != info.head or end.seq != info.head or end.hash.decode() != info.hash:
            raise _refuse(archive, f"its journal ends at record {end.seq}, not at the head "
                                   f"{info.head} its manifest records")
    except JournalCorrupted as exc:
        raise _refuse(archive, f"its journal fails verification ({exc})") from None
    finally:
        journal.close()
    return info


def restore_archive(archive: Path, home: Path) -> BackupInfo:
    """Check ``archive`` fully, then move its files into ``home`` (which must not exist
    or be empty).  The projections are the caller's to rebuild (open the home)."""
    if home.exists() and (not home.is_dir() or any(home.iterdir())):
        raise ValidationError(f"{home} is not empty: restore into a new folder")
    if not archive.is_file():
        raise NotFoundError(f"no backup at {archive}")
    home.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{home.name}.restore-", dir=home.parent))
    try:
        info = read_backup(archive, staging)
        if home.exists():
            home.rmdir()
        os.replace(staging, home)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return info

