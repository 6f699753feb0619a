"""A stateful model of a home: :class:`HomeMachine`, a Hypothesis
``RuleBasedStateMachine`` that drives a real home (file journal, projected files) through
its public operations and checks memoir's guarantees after every step.

Rules: ``memory`` and ``skill_manage`` tool calls, new sessions, recorded turns, a hand
edit of MEMORY.md adopted, a curator pass, a revert of the newest run, a rebuild, a
reopen, and a crash (the process dies with projected files owed) and reopen.

Invariants: folding the journal from scratch gives the live state; the projected files
are what a rebuild renders, byte for byte; every session's pinned prompt renders as it
did when the session started; a revert of the newest run gives back the memory and
skills before it; the journal verifies.

Subclass it to add rules for your own code (``self.home`` is the open
:class:`memoir.Memoir`, ``self.session`` the current session), then::

    TestMyHome = MyHome.TestCase
    TestMyHome.settings = settings(max_examples=50, stateful_step_count=30, deadline=None)
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

import memoir
from memoir.clock import FakeClock
from memoir.curator.passes import run_pass
from memoir.errors import MemoirError
from memoir.oversight.revert import revert_run
from memoir.projections.state import State
from memoir.testing.builders import memory_commands, memory_texts
from memoir.testing.recorded import unprojected, visible_state

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

__all__ = ["HomeMachine", "skill_manage_calls"]

SKILL_NAMES = ("deploy-steps", "db-backup", "lint-rules")
_CONFIG = {
    "journal": {"durability": "never"},
    "reviewers": {"mode": "off"},
    "memory": {"memory_char_limit": 600, "user_char_limit": 400},
    "episodic": {"semantic": "off", "summaries": True},
    "curator": {"enabled": True},
}


def skill_manage_calls(names: tuple[str, ...] = SKILL_NAMES
                       ) -> SearchStrategy[dict[str, Any]]:
    """``skill_manage`` calls: create, edit, patch, delete, write_file and remove_file,
    over a few names (so later calls find earlier skills), now and then with a name, a
    path or frontmatter memoir must refuse."""
    name = st.one_of(st.sampled_from(names), st.sampled_from(
        ["", "Bad Name", "../escape", "a" * 80, "ok-name"]))
    body = memory_texts().map(lambda t: t[:200])
    content = st.builds(
        lambda n, d, b: f"---\nname: {n}\ndescription: {d}\n---\n{b}\n",
        st.sampled_from(names), st.sampled_from(["How we deploy", "Backups", ""]), body)
    broken = st.sampled_from(["no frontmatter at all", "---\nname: x\n", "---\n---\n"])
    path = st.sampled_from(["references/notes.md", "../outside.md", "/abs.md",
                            "scripts/run.sh", "references/../../x.md"])
    return st.one_of(
        st.fixed_dictionaries({"action": st.just("create"), "name": name,
                               "content": st.one_of(content, content, broken)}),
        st.fixed_dictionaries({"action": st.just("edit"), "name": name, "content": content}),
        st.fixed_dictionaries({"action": st.just("patch"), "name": name,
                               "old_string": st.sampled_from(["How we", "Backups", "zzz"]),
                               "new_string": body}),
        st.fixed_dictionaries({"action": st.just("delete"), "name": name}),
        st.fixed_dictionaries({"action": st.just("write_file"), "name": name,
                               "file_path": path, "file_content": body}),
        st.fixed_dictionaries({"action": st.just("remove_file"), "name": name,
                               "file_path": path}),
    )


class HomeMachine(RuleBasedStateMachine):
    """A home driven through its public operations (see the module docstring)."""

    def __init__(self) -> None:
        super().__init__()
        self.folder = Path(tempfile.mkdtemp(prefix="memoir-machine-"))
        self.path = self.folder / "home"
        self.path.mkdir()
        (self.path / "journal.jsonl").touch()
        self.config = memoir.Config.model_validate(_CONFIG)
        self.clock = FakeClock("2026-01-01T00:00:00+00:00")
        #: session id → its pinned prompt blocks when it started
        self.pins: dict[str, dict[str, str | None]] = {}
        self._open()
        self._new_session()

    def _open(self) -> None:
        self.home = memoir.open(self.path, config=self.config, clock=self.clock)

    def _new_session(self) -> None:
        self.session = self.home.start_session()
        self.pins[self.session.id] = self.session.prompt_blocks()

    # -- rules ------------------------------------------------------------------------------

    @rule(data=st.data())
    def memory_call(self, data: st.DataObject) -> None:
        state = self.home.state.memory
        existing = state.target("memory").texts() + state.target("user").texts()
        args = data.draw(memory_commands(tuple(existing)), label="memory")
        result = self.session.call_tool("memory", args)
        assert isinstance(result, dict) and "success" in result

    @rule(args=skill_manage_calls())
    def skill_call(self, args: dict[str, Any]) -> None:
        result = self.session.call_tool("skill_manage", args)
        assert isinstance(result, dict) and "success" in result

    @rule()
    def new_session(self) -> None:
        self.session.end()
        self.clock.advance(hours=1)
        self._new_session()

    @rule(text=memory_texts())
    def record_turn(self, text: str) -> None:
        # A message memoir refuses (a lone surrogate, say) records nothing.
        with contextlib.suppress(MemoirError):
            self.session.record_turn([{"role": "user", "content": text or "hello"},
                                      {"role": "assistant", "content": "Noted."}])

    @rule(text=memory_texts())
    def hand_edit_and_adopt(self, text: str) -> None:
        self.home.flush()
        target = self.path / "memories" / "MEMORY.md"
        before = target.read_text(encoding="utf-8") if target.exists() else ""
        target.parent.mkdir(exist_ok=True)
        target.write_text((before + "\n§\n" if before else "") + text, encoding="utf-8")
        try:
            self.home.adopt(force=True)
        except MemoirError:
            self.home.rebuild()  # refused: the file goes back to what the journal says

    @rule(days=st.integers(1, 120))
    def curator_pass(self, days: int) -> None:
        self.clock.advance(days=days)
        with contextlib.suppress(MemoirError):  # nothing due is not a failure
            run_pass(self.home, use_rules=True)

    @rule()
    def revert_newest_run(self) -> None:
        state = self.home.state
        runs = sorted(state.runs.values(), key=lambda r: r.first_seq)
        if not runs or runs[-1].kind == "revert" or runs[-1].last_seq != state.seq:
            return  # only a run nothing came after is undone exactly
        newest = runs[-1]
        before = visible_state(State().apply_all(self.home.events(until=newest.first_seq - 1)),
                               versions=False)
        try:
            revert_run(self.home, newest.id)
        except MemoirError:
            return
        assert visible_state(self.home.state, versions=False) == before, \
            f"revert of {newest.id}"

    @rule()
    def rebuild(self) -> None:
        self.home.rebuild()

    @rule()
    def reopen(self) -> None:
        self.home.close()
        self._open()
        self.session = self.home.session(self.session.id)

    @rule()
    def crash_and_reopen(self) -> None:
        self.home.close(flush=False)  # as if the process died with files owed
        self._open()
        self.session = self.home.session(self.session.id)

    # -- invariants -------------------------------------------------------------------------

    @invariant()
    def live_state_is_the_fold_of_the_journal(self) -> None:
        assert State().apply_all(self.home.events()) == self.home.state

    @invariant()
    def files_are_what_a_rebuild_renders(self) -> None:
        assert unprojected(self.home) == []

    @invariant()
    def pinned_prompts_are_unchanged(self) -> None:
        for sid, blocks in self.pins.items():
            assert self.home.session(sid).prompt_blocks() == blocks, sid

    @invariant()
    def journal_verifies(self) -> None:
        assert self.home.verify().records == self.home.head

    def teardown(self) -> None:
        self.home.close()
        shutil.rmtree(self.folder, ignore_errors=True)
