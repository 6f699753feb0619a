"""memoir as Hermes Agent's external memory provider (spec §6).

``memoir hermes install`` puts a small plugin in ``HERMES_HOME/plugins/memoir/`` whose
``register(ctx)`` calls :func:`make_provider` with Hermes's own ``MemoryProvider`` base
class, so this module never imports Hermes.  With ``memory.provider: memoir`` in
Hermes's config.yaml, Hermes keeps writing its own MEMORY.md and USER.md and the
provider, in a memoir home of its own (``HERMES_HOME/memoir`` by default):

* ``initialize`` opens the home, journals what Hermes's memory files hold (a run of
  kind ``mirror`` by ``import``, the first time and after any write made without the
  provider) and starts — or, for a session Hermes resumes, continues — the memoir
  session of the same id, platform ``hermes:<platform>``;
* ``on_memory_write`` journals each committed built-in memory write as a run of its
  own (kind ``mirror``; actor ``agent``, or ``reviewer.memory`` for Hermes's background
  review), made equal to Hermes's file, with Hermes's metadata (origin, session, tool
  call, task…) as the records' ``meta`` — so ``memoir log``, ``memoir revert`` and the
  property checks work on a Hermes home's memory;
* ``sync_turn`` records the turn (reviewers, the error-learning pipeline, recall);
* ``prefetch`` answers with the skills relevant to the message and the recalled past
  sessions (Hermes fences it as recalled context);
* ``system_prompt_block`` gives the memoir home's skills index (skills Hermes has
  itself are left out; MEMORY and USER never appear twice);
* ``on_session_end`` ends the session (its summary is written), ``on_session_switch``
  ends it and starts the next, ``shutdown`` stops following and closes the home.

From ``initialize`` to ``shutdown`` the provider follows the journal
(:mod:`memoir.engine.tail`): what other agents and machines write is folded into
the home and its files within a second (LISTEN/NOTIFY for a shared PostgreSQL journal).

Every hook catches everything: a failure is logged to the ``memoir.hermes`` logger and
the hook returns what a provider with nothing to say returns.  Nothing here blocks on
the network; the slowest hook is a journal append (an fsync).
"""

from __future__ import annotations

import functools
import hashlib
import threading
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any, TypeVar, cast

from memoir import lazyre
from memoir.api import Memoir
from memoir.config import load_config
from memoir.engine.signing import NotTrusted
from memoir.errors import NotFoundError, ValidationError
from memoir.integrations.hermes_mirror import pull
from memoir.logs import get_logger
from memoir.names import SESSION_ID
from memoir.projections.memory import TARGETS
from memoir.projections.state import State
from memoir.prompt.assemble import skills_index
from memoir.sessions.session import Session

__all__ = ["HOOK_LOCK_SECONDS", "MemoirHermes", "make_provider"]

log = get_logger("memoir.hermes")
#: The longest a hook waits for the journal lock (below Hermes's 5 s shutdown drain).
HOOK_LOCK_SECONDS = 4.0
T = TypeVar("T")
_META_TEXT = lazyre.compile(r"[\x00-\x1f\x7f]")
#: Hermes's metadata of a memory write, kept as the records' meta (spec §6).
_WRITE_META = ("write_origin", "execution_context", "session_id", "parent_session_id",
               "platform", "tool_name", "task_id", "tool_call_id", "old_text")


def _guarded(default: Any) -> Callable[[Callable[..., T]], Callable[..., T]]:
    """A hook never raises into Hermes: a failure is logged and ``default`` returned."""

    def wrap(fn: Callable[..., T]) -> Callable[..., T]:
        @functools.wraps(fn)
        def hook(*args: Any, **kwargs: Any) -> T:
            try:
                return fn(*args, **kwargs)
            except Exception as exc:
                log.warning("hermes.hook_failed", hook=fn.__name__, error=repr(exc))
                return default  # type: ignore[no-any-return]

        return hook

    return wrap


def _session_id(raw: object) -> str:
    """Hermes's session id when memoir accepts it, else a stable id derived from it."""
    text = str(raw or "")
    if SESSION_ID.fullmatch(text):
        return text
    return "hermes-" + hashlib.blake2b(text.encode(), digest_size=8).hexdigest()


def _meta_value(value: object) -> str:
    return _META_TEXT.sub(" ", str(value))[:500]


class MemoirHermes:
    """The provider's work, independent of Hermes's classes (see the module docstring)."""

    name = "memoir"

    def __init__(self, memoir_home: str | Path, hermes_home: str | Path | None = None) -> None:
        self.memoir_home = Path(memoir_home).expanduser()
        self.hermes_home = Path(hermes_home).expanduser() if hermes_home else None
        self.memoir: Memoir | None = None
        self.session: Session | None = None
        self.meta: dict[str, str] = {"client": "hermes"}
        self._lock = threading.RLock()

    # -- life cycle --------------------------------------------------------------------------

    def is_available(self) -> bool:
        """memoir needs no network or key: available when it can be imported (it is)."""
        return True

    @_guarded(None)
    def initialize(self, session_id: str, **kwargs: Any) -> None:
        with self._lock:
            if kwargs.get("hermes_home"):
                self.hermes_home = Path(str(kwargs["hermes_home"])).expanduser()
            if self.memoir is None:
                config = load_config(self.memoir_home)
                # A hook waits for the journal at most this long (Hermes drains its
                # memory worker for 5 s at shutdown and gives a prefetch 8 s).
                config.journal.lock_timeout_seconds = min(
                    config.journal.lock_timeout_seconds, HOOK_LOCK_SECONDS)
                # What other agents and machines write reaches this home's files within a
                # second (LISTEN/NOTIFY for a shared journal), not at the next hook.
                self.memoir = Memoir(self.memoir_home, create=True, config=config,
                                     follow=True)
            platform = str(kwargs.get("platform") or "cli")
            self.meta = {"client": "hermes", "platform": _meta_value(platform)}
            for key in ("agent_context", "agent_identity", "user_id"):
                if kwargs.get(key):
                    self.meta[key] = _meta_value(kwargs[key])
            try:
                self._mirror(actor="import", summary="what Hermes's memory files held "
                                                     "when the session began")
            except NotTrusted as exc:  # a home that may read but not write: a guest
                log.warning("hermes.not_mirrored", why=str(exc))
            self._start(session_id, platform=platform)

    def _start(self, session_id: str, *, platform: str, parent: str | None = None) -> None:
        assert self.memoir is not None
        sid = _session_id(session_id)
        if self.session is not None and self.session.id != sid:
            self.session.end("switched")  # initialised again for another session
        try:
            self.session = self.memoir.session(sid, meta=self.meta)
        except NotFoundError:
            try:
                self.session = self.memoir.start_session(
                    session_id=sid, platform=f"hermes:{platform}",
                    parent=_session_id(parent) if parent else None, meta=self.meta)
            except NotTrusted as exc:
                # Recall and the frozen memory still serve the agent; nothing is written.
                self.session = self.memoir.guest_session(
                    str(exc).rstrip("."), platform=f"hermes:{platform}", meta=self.meta)

    def _mirror(self, *, actor: str, summary: str, targets: tuple[str, ...] | None = None,
                meta: dict[str, str] | None = None) -> str | None:
        if self.memoir is None or self.hermes_home is None:
            return None
        session = self.session.id if self.session is not None else None
        run, _events = pull(self.memoir, self.hermes_home, actor=actor, session=session,
                            summary=summary, targets=targets or TARGETS,
                            meta={**self.meta, **(meta or {})})
        return run

    @_guarded(None)
    def on_session_end(self, messages: list[dict[str, Any]] | None = None) -> None:
        with self._lock:
            if self.session is not None:
                self.session.end("closed")

    @_guarded(None)
    def on_session_switch(self, new_session_id: str, *, parent_session_id: str | None = None,
                          reset: bool = False, **kwargs: Any) -> None:
        with self._lock:
            if self.memoir is None:
                return
            if self.session is not None and self.session.id != _session_id(new_session_id):
                self.session.end("switched")
            self._start(new_session_id, platform=self.meta.get("platform", "cli"),
                        parent=parent_session_id)

    @_guarded(None)
    def shutdown(self) -> None:
        with self._lock:
            if self.memoir is not None:
                self.memoir.close()
                self.memoir = None
                self.session = None

    # -- writes ------------------------------------------------------------------------------

    @_guarded(None)
    def on_memory_write(self, action: str, target: str, content: str,
                        metadata: dict[str, Any] | None = None) -> None:
        with self._lock:
            if self.session is not None and self.session.guest is not None:
                return  # a guest mirrors nothing (logged once, at initialize)
            meta = {"hermes_action": _meta_value(action)}
            for key in _WRITE_META:
                value = (metadata or {}).get(key)
                if value not in (None, ""):
                    meta[f"hermes_{key}"] = _meta_value(value)
            origin = str((metadata or {}).get("write_origin") or "")
            actor = "reviewer.memory" if origin.startswith("background") else "agent"
            label = "user profile" if target == "user" else "memory"
            self._mirror(actor=actor, meta=meta,
                         targets=(target,) if target in ("memory", "user") else None,
                         summary=f"Hermes {action} in {label}: {' '.join(content.split())[:80]}")

    @_guarded(None)
    def sync_turn(self, user_content: str, assistant_content: str, *, session_id: str = "",
                  messages: list[dict[str, Any]] | None = None) -> None:
        with self._lock:
            if self.session is None or self.session.guest is not None:
                return  # a guest session records nothing
            turn = _last_turn(messages) if messages else None
            pair = [{"role": "user", "content": user_content},
                    {"role": "assistant", "content": assistant_content}]
            try:
                self.session.record_turn(turn or pair)
            except ValidationError:
                self.session.record_turn(pair)

    # -- reading -----------------------------------------------------------------------------

    @_guarded("")
    def prefetch(self, query: str, *, session_id: str = "") -> str:
        with self._lock:
            if self.session is None or not query.strip():
                return ""
            prompt = self.session.prompt(query)
        parts = [f"Skill {s['name']} (relevant here):\n{str(s['content']).strip()}"
                 for s in prompt.skills]
        if prompt.recalled:
            lines = [f"- session {h['session']}: "
                     f"{' '.join(str(h['summary'] or h['snippet']).split())}"
                     for h in prompt.recalled]
            parts.append("Earlier sessions:\n" + "\n".join(lines))
        return "\n\n".join(parts)

    @_guarded("")
    def system_prompt_block(self) -> str:
        with self._lock:
            if self.memoir is None:
                return ""
            state = self.memoir.state
        own = _hermes_skill_names(self.hermes_home)
        # The index of the skills Hermes does not list itself (a read-only view).
        skills = {n: r for n, r in state.skills.skills.items() if n not in own}
        view = SimpleNamespace(skills=SimpleNamespace(skills=skills))
        return skills_index(cast(State, view)) or ""

    def get_tool_schemas(self) -> list[dict[str, Any]]:
        # memoir's own tools would shadow Hermes's core tools (memory, session_search).
        return []


def _last_turn(messages: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
    """The messages of the last turn: from the last user message to the end."""
    for i in range(len(messages) - 1, -1, -1):
        if isinstance(messages[i], dict) and messages[i].get("role") == "user":
            return [m for m in messages[i:] if isinstance(m, dict)]
    return None


def _hermes_skill_names(hermes_home: Path | None) -> set[str]:
    if hermes_home is None or not (hermes_home / "skills").is_dir():
        return set()
    return {p.parent.name for p in (hermes_home / "skills").glob("**/SKILL.md")
            if ".archive" not in p.parts}


def make_provider(base: type, *, memoir_home: str | Path,
                  hermes_home: str | Path | None = None) -> Any:
    """An instance of a subclass of Hermes's ``MemoryProvider`` (``base``) doing
    :class:`MemoirHermes`'s work."""
    core = MemoirHermes(memoir_home, hermes_home)

    class MemoirProvider(base):  # type: ignore[misc]
        @property
        def name(self) -> str:
            return "memoir"

        def is_available(self) -> bool:
            return core.is_available()

        def initialize(self, session_id: str, **kwargs: Any) -> None:
            core.initialize(session_id, **kwargs)

        def system_prompt_block(self) -> str:
            return core.system_prompt_block()

        def prefetch(self, query: str, *, session_id: str = "") -> str:
            return core.prefetch(query, session_id=session_id)

        def sync_turn(self, user_content: str, assistant_content: str, *,
                      session_id: str = "", messages: list[dict[str, Any]] | None = None
                      ) -> None:
            core.sync_turn(user_content, assistant_content, session_id=session_id,
                           messages=messages)

        def get_tool_schemas(self) -> list[dict[str, Any]]:
            return core.get_tool_schemas()

        def on_memory_write(self, action: str, target: str, content: str,
                            metadata: dict[str, Any] | None = None) -> None:
            core.on_memory_write(action, target, content, metadata)

        def on_session_end(self, messages: list[dict[str, Any]]) -> None:
            core.on_session_end(messages)

        def on_session_switch(self, new_session_id: str, *,
                              parent_session_id: str | None = None, reset: bool = False,
                              **kwargs: Any) -> None:
            core.on_session_switch(new_session_id, parent_session_id=parent_session_id,
                                   reset=reset, **kwargs)

        def shutdown(self) -> None:
            core.shutdown()

    provider = MemoirProvider()
    provider.core = core
    return provider
