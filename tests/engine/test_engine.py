"""The engine's units, driven directly: the live state, the projector, the followers, the
read-only files view, toolsets and call contexts."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from memoir.api import Memoir
from memoir.config import Config
from memoir.engine import (
    CallContext,
    Caller,
    CommitQueue,
    Decision,
    Engine,
    FilesView,
    LiveState,
    Materializer,
    Pending,
    Projector,
)
from memoir.engine.checkpoints import CheckpointStore
from memoir.events.memory import EntryAdded
from memoir.events.types import Draft, Event
from memoir.journal import FileJournal, InMemoryJournal
from memoir.projections.render import RENDERERS
from memoir.projections.state import State
from memoir.tools import DEFAULT_TOOLS, Tool

SYNC = Config.model_validate({"projections": {"mode": "sync"}})


def _added(text: str, entry: str) -> Draft:
    return Draft(data=EntryAdded(target="memory", entry_id=entry, text=text), actor="agent")


def _add(text: str) -> Any:
    def decide(_state: State) -> Decision[None]:
        return Decision(events=[EntryAdded(target="memory", entry_id=f"e-{text}", text=text)])

    return decide


class _Recorder:
    """A listener / follower that writes down what it is told."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []

    @property
    def seq(self) -> int:
        return max((e.seq for name, evs in self.calls if name == "folded" for e in evs),
                   default=0)

    def opened(self) -> None:
        self.calls.append(("opened", None))

    def folded(self, events: Sequence[Event]) -> None:
        self.calls.append(("folded", list(events)))

    def advanced(self, *, committed: bool) -> None:
        self.calls.append(("advanced", committed))

    def reset(self) -> None:
        self.calls.append(("reset", None))

    def flush(self) -> None:
        self.calls.append(("flush", None))

    def close(self, *, flush: bool = True) -> None:
        self.calls.append(("close", flush))

    def named(self, name: str) -> list[Any]:
        return [arg for n, arg in self.calls if n == name]


# -- the live state -------------------------------------------------------------------------


def test_live_state_catches_up_with_other_writers_and_tells_its_listener(
    tmp_path: Path,
) -> None:
    journal = FileJournal(tmp_path / "j.jsonl", durability="never")
    listener = _Recorder()
    live = LiveState(journal, None, listener=listener)
    other = FileJournal(tmp_path / "j.jsonl", durability="never")
    other.append([_added("one", "e-1"), _added("two", "e-2")])
    assert live.catch_up() == 2
    assert live.state.memory.memory.texts() == ["one", "two"]
    assert [e.seq for e in listener.named("folded")[0]] == [1, 2]
    assert listener.named("advanced") == [False]
    assert live.catch_up() == 0  # nothing new: nobody is told anything
    assert len(listener.calls) == 2
    other.close()
    journal.close()


def test_live_state_views_any_seq_and_starts_from_an_anchored_checkpoint(
    tmp_path: Path,
) -> None:
    journal = FileJournal(tmp_path / "j.jsonl", durability="never")
    checkpoints = CheckpointStore(tmp_path / "checkpoints")
    live = LiveState(journal, checkpoints, checkpoint_every=100)
    for i in range(5):
        journal.append([_added(f"fact {i}", f"e-{i}")])
    live.catch_up()
    live.maybe_checkpoint(force=True)
    assert checkpoints.seqs() == [5]
    journal.append([_added("after", "e-after")])
    # A new handle starts from the checkpoint and folds only what follows it.
    again = LiveState(FileJournal(tmp_path / "j.jsonl", durability="never", scan=False),
                      checkpoints)
    assert again.state.seq == 5 and again.last_checkpoint == 5
    again.catch_up()
    assert again.state.memory.memory.texts()[-1] == "after"
    assert again.view(3).memory.memory.texts() == ["fact 0", "fact 1", "fact 2"]
    assert again.view(3) == again.replay_to(3)
    journal.close()


def test_an_in_memory_journal_keeps_no_checkpoints(tmp_path: Path) -> None:
    checkpoints = CheckpointStore(tmp_path / "checkpoints")
    live = LiveState(InMemoryJournal(), checkpoints)
    assert live.checkpoints is None
    live.journal.append([_added("x", "e-x")])
    live.catch_up()
    live.maybe_checkpoint(force=True)
    assert checkpoints.seqs() == []


def test_live_state_reload_tells_the_listener_to_assume_nothing() -> None:
    journal = InMemoryJournal()
    listener = _Recorder()
    live = LiveState(journal, None, listener=listener)
    journal.append([_added("x", "e-x")])
    live.state.memory.memory.entries.clear()  # a state gone wrong
    live.reload()
    assert live.state.memory.memory.texts() == ["x"]
    assert listener.named("reset") == [None]
    assert listener.named("folded") == []  # refolding history is not news


# -- the commit queue -----------------------------------------------------------------------


def test_the_commit_queue_decides_writes_folds_and_reports_what_it_wrote() -> None:
    journal = InMemoryJournal()
    written: list[list[Event]] = []
    queue = CommitQueue(LiveState(journal, None), written=lambda evs: written.append(list(evs)))
    pending: Pending[None] = Pending(_add("hello"), Caller(actor="agent", session="s-1"))
    queue.run(pending)
    assert [e.seq for e in pending.events] == [1]
    assert pending.events[0].session == "s-1"
    assert queue.live.state.memory.memory.texts() == ["hello"]
    assert written == [pending.events]

    def nested(_state: State) -> Decision[None]:
        queue.run(Pending(_add("x"), "agent"))
        return Decision()

    with pytest.raises(RuntimeError, match="inside a decide"):
        queue.run(Pending(nested, "agent"))


# -- the projector ------------------------------------------------------------------------


def test_the_projector_writes_only_what_commits_owe(tmp_path: Path) -> None:
    journal = InMemoryJournal()
    live = LiveState(journal, None)
    materializer = Materializer(tmp_path, fsync=False)
    projector = Projector(live, materializer, background=False)
    projector.opened()
    queue = CommitQueue(live, written=projector.folded)
    pending: Pending[None] = Pending(_add("note"), "agent")
    queue.run(pending)
    assert projector.owed == 1
    projector.advanced(committed=True)  # sync mode: writes now
    assert (tmp_path / "memories/MEMORY.md").read_bytes() == b"note"
    assert projector.owed == 0 and projector.seq == 1
    assert materializer.seq == 1


def test_the_projector_skips_a_hand_edited_file_and_reports_it(tmp_path: Path) -> None:
    journal = InMemoryJournal()
    live = LiveState(journal, None)
    projector = Projector(live, Materializer(tmp_path, fsync=False), background=False)
    queue = CommitQueue(live, written=projector.folded)
    queue.run(Pending(_add("one"), "agent"))
    projector.flush()
    (tmp_path / "memories/MEMORY.md").write_text("edited by hand")
    queue.run(Pending(_add("two"), "agent"))
    projector.flush()
    assert (tmp_path / "memories/MEMORY.md").read_text() == "edited by hand"
    assert [d.path for d in projector.drift()] == ["memories/MEMORY.md"]


def test_renderers_are_a_fixed_table_with_distinct_names() -> None:
    names = [r.name for r in RENDERERS]
    assert names == ["memory", "skills", "curator"]
    assert len(set(names)) == len(names)


# -- followers ------------------------------------------------------------------------------


def test_an_engine_wires_its_followers_and_tells_them_everything(tmp_path: Path) -> None:
    follower = _Recorder()
    engine = Engine(tmp_path / "home", config=SYNC, followers=[follower])
    assert follower.named("opened") == [None]
    engine.commit(_add("mine"), by="agent")  # the configured limits go first
    assert [e.type for e in follower.named("folded")[-1]] == ["memory.limits_set",
                                                             "memory.entry_added"]
    assert follower.named("advanced")[-1] is True
    other = Engine(tmp_path / "home", config=SYNC)
    other.commit(_add("theirs"), by="agent")
    other.close()
    assert engine.head == 3  # catch-up: limits, mine, theirs
    assert [e.data.text for e in follower.named("folded")[-1]] == ["theirs"]
    assert follower.named("advanced")[-1] is False
    engine.flush()
    assert follower.named("flush") == [None]
    engine.close()
    assert follower.named("close") == [True]


def test_history_folded_at_open_is_not_news_to_followers(tmp_path: Path) -> None:
    with Engine(tmp_path / "home", config=SYNC) as engine:
        engine.commit(_add("old"), by="agent")
    follower = _Recorder()
    with Engine(tmp_path / "home", config=SYNC, followers=[follower]) as engine:
        assert engine.head == 2
        assert follower.named("folded") == []


# -- the files view --------------------------------------------------------------------------


def test_the_files_view_reads_and_finds_hand_edits_but_cannot_write(tmp_path: Path) -> None:
    materializer = Materializer(tmp_path, fsync=False)
    materializer.write({"skills/a/SKILL.md": b"x", "skills/a/references/r.md": b"y"}, seq=1)
    (tmp_path / "skills/a/notes.md.bak.123").write_text("a backup")
    (tmp_path / "skills/.hidden").mkdir()
    (tmp_path / "skills/.hidden/h.md").write_text("other tool")
    view = FilesView(materializer)
    assert view.read("skills/a/SKILL.md") == b"x"
    assert view.wrote("skills/a/SKILL.md") and not view.wrote("skills/a/other.md")
    assert view.files_under("skills") == ["skills/a/SKILL.md", "skills/a/references/r.md"]
    assert view.files_under("skills", hidden=("skills/.hidden",))[0] == "skills/.hidden/h.md"
    assert view.drifted("skills/a/SKILL.md", b"x") is None
    (tmp_path / "skills/a/SKILL.md").write_text("edited")
    drift = view.drifted("skills/a/SKILL.md", b"x")
    assert drift is not None and drift.actual == b"edited"
    assert not [m for m in dir(view) if m.startswith(("write", "remove", "backup"))]


# -- tools and call contexts --------------------------------------------------------------------


def test_a_narrowed_toolset_offers_and_answers_only_its_tools(tmp_path: Path) -> None:
    reviewer_tools = DEFAULT_TOOLS.only({"memory", "skills_list"})
    assert reviewer_tools.names == ["memory", "skills_list"]
    assert [s["function"]["name"] for s in reviewer_tools.schemas()] == reviewer_tools.names
    with pytest.raises(ValueError, match="no such tool"):
        DEFAULT_TOOLS.only({"memory", "shell"})
    with Memoir(tmp_path / "home") as home:
        session = home.start_session(tools=reviewer_tools)
        refused = session.call_tool("skill_manage", {"action": "create", "name": "x"})
        assert refused["success"] is False and "Unknown tool 'skill_manage'" in refused["error"]
        assert session.call_tool("memory", {"action": "add", "target": "user",
                                            "content": "Name: Ada"})["success"]
    assert DEFAULT_TOOLS.names == ["memory", "memory_search", "session_search", "skill_manage",
                                  "skill_view",
                                  "skills_list"]


def test_a_toolset_can_grow_but_never_holds_two_tools_of_one_name() -> None:
    echo = Tool({"type": "function", "function": {"name": "echo", "parameters": {}}},
                lambda engine, ctx, args: {"success": True, "echo": args, "actor": ctx.actor})
    grown = DEFAULT_TOOLS.plus(echo)
    assert "echo" in grown and "echo" not in DEFAULT_TOOLS
    with pytest.raises(ValueError, match="two tools"):
        grown.plus(echo)
    ctx = CallContext(actor="reviewer.memory")
    assert grown.dispatch(None, ctx, "echo", {"a": 1}) == {  # type: ignore[arg-type]
        "success": True, "echo": {"a": 1}, "actor": "reviewer.memory"}


def test_each_caller_keeps_its_own_read_marks_and_failure_count(tmp_path: Path) -> None:
    with Memoir(tmp_path / "home") as home:
        one, two = home.start_session(), home.start_session()
        content = "---\nname: tips\ndescription: Tips.\n---\nBody.\n"
        assert one.call_tool("skill_manage", {"action": "create", "name": "tips",
                                              "content": content})["success"]
        assert one.call_tool("skill_view", {"name": "tips"})["success"]
        assert len(one.context.viewed) == 1 and two.context.viewed == set()
        for _ in range(2):
            one.call_tool("memory", {"action": "remove", "target": "memory",
                                     "old_text": "nothing like this"})
        assert one.context.failures == 2 and two.context.failures == 0
        one.new_turn()
        assert one.context.failures == 0
