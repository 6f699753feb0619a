"""Rendered prompt blocks, kept per session, so re-opening a session's frozen prompt is
a file read, however old its pin (re-rendering a pin before the newest checkpoint folds
the journal from the checkpoint before it, seconds on a long history).

A cache, not a record: one small JSON file per session under ``.memoir/prompts/``,
written when the session starts (or first re-renders).  It is used only when it names
the same pin, the record at the pin still has the hash it saw, the enabled blocks are
the same, and its BLAKE2b digest (keyed with the home's key when there is one, as the
checkpoints are) matches; anything else is ignored and the blocks are rendered again.
Deleting the folder loses nothing.  Files are read and written through
:class:`~memoir.fs.safefs.Folder` (no link followed, one plain name per session).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from memoir.fs.folder import Folder
from memoir.logs import get_logger

__all__ = ["PROMPTS", "PromptCache"]

#: Where a home keeps them.
PROMPTS = ".memoir/prompts"

log = get_logger("memoir.prompts")
#: A kept prompt is a few KB (the memory blocks); a bigger file is not one.
_LIMIT = 16 << 20


class PromptCache:
    """The rendered blocks of sessions (see the module docstring)."""

    def __init__(self, folder: Path | Folder, *, key: bytes | None = None,
                 readonly: bool = False) -> None:
        self.place = Folder.of(folder)
        self.key = key
        self.readonly = readonly

    def _read(self, session_id: str) -> bytes:
        data = self.place.read(f"{session_id}.json", limit=_LIMIT)
        if data is None:
            raise FileNotFoundError(session_id)
        return data

    def _digest(self, body: bytes) -> str:
        return hashlib.blake2b(body, digest_size=16, key=self.key or b"").hexdigest()

    def _body(self, session_id: str) -> dict[str, Any] | None:
        """The kept body of a session, if its file is whole (its digest matches)."""
        try:
            raw = json.loads(self._read(session_id))
            body = raw["body"]
            encoded = json.dumps(body, sort_keys=True, ensure_ascii=False).encode()
            if raw["digest"] != self._digest(encoded) or not isinstance(body, dict):
                return None
            dict(body["blocks"])  # a body without blocks is not whole either
            return body
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def get(self, session_id: str, seq: int, record_hash: str,
            enabled: Sequence[str]) -> dict[str, str | None] | None:
        body = self._body(session_id)
        if body is None or body.get("seq") != seq or body.get("hash") != record_hash \
                or body.get("enabled") != list(enabled):
            return None
        return dict(body["blocks"])

    def lookup(self, session_id: str, enabled: Sequence[str]
               ) -> tuple[int, str, dict[str, str | None]] | None:
        """(pinned seq, actor, blocks) kept for a session, if the file is whole (its
        digest matches) and was made for the same enabled blocks."""
        body = self._body(session_id)
        if body is None or body.get("enabled") != list(enabled):
            return None
        try:
            return int(body["seq"]), str(body.get("actor") or "agent"), dict(body["blocks"])
        except (KeyError, TypeError, ValueError):
            return None

    def blocks_of(self, session_id: str) -> dict[str, str | None] | None:
        """The blocks kept for a session, whatever they were made for, if the file is
        whole (an audit reads what a session was given; :meth:`lookup` also checks
        they suit the current config)."""
        body = self._body(session_id)
        return None if body is None else dict(body["blocks"])

    def clear(self) -> None:
        """Forget every kept prompt (the journal was cut: pins may have moved)."""
        for name in self.place.names():
            if name.endswith(".json"):
                self.place.unlink(name)

    def put(self, session_id: str, seq: int, record_hash: str, enabled: Sequence[str],
            blocks: dict[str, str | None], actor: str = "agent") -> None:
        """Keep the blocks (best effort: a cache that cannot be written is logged)."""
        if self.readonly:
            return
        body = {"seq": seq, "hash": record_hash, "enabled": list(enabled),
                "blocks": dict(blocks), "actor": actor}
        data = json.dumps({"body": body, "digest": self._digest(json.dumps(
            body, sort_keys=True, ensure_ascii=False).encode())}, ensure_ascii=False)
        try:
            self.place.write(f"{session_id}.json", data.encode("utf-8"))
        except OSError as exc:
            log.warning("prompt_cache.not_written", session=session_id, error=str(exc))
