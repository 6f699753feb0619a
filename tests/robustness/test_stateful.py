"""A state machine driving the real journal and memory projection against a plain model.

The system under test is a real memoir home (``memoir.open``: file journal, folds,
materialized MEMORY.md / USER.md) taking ``memory`` tool calls through a session.  The
model is a few lists of strings with Hermes's rules written out plainly.  Besides tool
calls the machine flushes, re-opens, and crashes: it closes the home, cuts the journal
file anywhere between what was fsynced and its end (mid-line included), and re-opens;
the model rolls back to the last command whose records all survived.

After every step: the live state equals the model; folding the journal from scratch
gives the live state exactly; MEMORY.md / USER.md hold, byte for byte, what a fresh
rebuild renders once the handle is flushed (files are written in the background, and
re-opening after a crash brings them back in line before it returns); the journal
verifies.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from hypothesis import Phase, find, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

import memoir
from memoir.journal import FileJournal
from memoir.testing import (
    FakeClock,
    build_journal,
    memory_command_lists,
    memory_commands,
    replay,
)
from memoir.threats import first_threat_message

LIMITS = {"memory": 300, "user": 200}
CONFIG = {
    "journal": {"durability": "never", "checkpoint_every": 100},
    "memory": {"memory_char_limit": LIMITS["memory"], "user_char_limit": LIMITS["user"]},
    # The background writer waits 10 s, so within a test only flushes write files and
    # a rule can leave files owed on purpose.
    "projections": {"coalesce_ms": 10_000},
}
Model = dict[str, list[str]]


# -- the model: Hermes's memory rules, written out plainly -------------------------------------


def _size(texts: list[str]) -> int:
    return len("\n§\n".join(texts)) if texts else 0


def _reread(texts: list[str]) -> list[str]:
    """The entries as Hermes gets them back when it re-reads its file before a write:
    split on the delimiter (an entry may hold it), stripped, empties and duplicates dropped."""
    raw = "\n§\n".join(texts)
    return list(dict.fromkeys(p.strip() for p in raw.split("\n§\n") if p.strip()))


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def _pick(texts: list[str], old: str) -> int | None:
    """The one entry ``old`` picks out (identical duplicates count as one), or None."""
    hits = [i for i, t in enumerate(texts) if old in t]
    if not hits or len({texts[i] for i in hits}) > 1:
        return None
    return hits[0]


def model_call(model: Model, args: dict[str, Any]) -> tuple[bool, Model]:
    """(success, the model after the call) for one ``memory`` tool call."""
    target = args.get("target")
    target = "memory" if target is None else target
    if not isinstance(target, str) or target not in LIMITS:
        return False, model
    ops = args.get("operations")
    if ops:
        return _model_batch(model, target, ops)
    action, content, old = args.get("action"), args.get("content"), args.get("old_text")
    if action not in ("add", "replace", "remove"):
        return False, model
    if not isinstance(content, str | None) or not isinstance(old, str | None):
        return False, model
    checked = {"add": (content,), "replace": (content, old), "remove": (old,)}[action]
    if any(value and "\0" in value for value in checked):
        return False, model  # memoir refuses NUL (a memory file cannot hold it)
    if (action in ("add", "replace") and not _text(content)) or (
        action != "add" and not _text(old)
    ):
        return False, model
    if action != "remove" and first_threat_message(_text(content)):
        return False, model  # refused (and journaled as write_rejected)
    texts = _reread(model[target])
    if action == "add":
        if _text(content) in texts:
            return True, model  # "already exists": nothing is written
        texts.append(_text(content))
    elif not _edit(texts, action, old, content):
        return False, model
    if _size(texts) > LIMITS[target]:
        return False, model
    return True, {**model, target: texts}


def _edit(texts: list[str], action: str, old: Any, content: Any) -> bool:
    """Replace or remove the one entry ``old`` picks out, in place; False if none does."""
    index = _pick(texts, _text(old))
    if index is None:
        return False
    if action == "replace":
        texts[index] = _text(content)
    else:
        del texts[index]
    return True


def _model_batch(model: Model, target: str, ops: Any) -> tuple[bool, Model]:
    if not isinstance(ops, list):
        return False, model
    for op in ops:  # every add/replace is threat-scanned before anything else
        if isinstance(op, Mapping) and op.get("action") in ("add", "replace"):
            content = op.get("content")
            if content and isinstance(content, str) and first_threat_message(content.strip()):
                return False, model
    texts = _reread(model[target])
    for raw in ops:
        if raw is not None and not isinstance(raw, Mapping):
            return False, model
        op = raw or {}
        action, content, old = op.get("action"), op.get("content"), op.get("old_text")
        if not isinstance(content, str | None) or not isinstance(old, str | None):
            return False, model
        if "\0" in (content or "") + (old or ""):
            return False, model  # memoir refuses NUL (a memory file cannot hold it)
        if action == "add":
            if not _text(content):
                return False, model
            if _text(content) not in texts:
                texts.append(_text(content))
        elif action in ("replace", "remove"):
            if not _text(old) or (action == "replace" and not _text(content)):
                return False, model
            if not _edit(texts, action, old, content):
                return False, model
        else:
            return False, model
    if _size(texts) > LIMITS[target]:
        return False, model
    return True, {**model, target: texts}


def _plain(args: dict[str, Any]) -> dict[str, Any]:
    """``args`` without carriage returns and section signs in its texts.

    Those make Hermes's re-read of its file differ from what was written (newline
    translation, entries split on the delimiter, the drift guard refusing such files);
    the memory tool's own tests and the Hermes differential tests cover that.  Here
    they would only make the model a copy of the tool.  Malformed calls are left out
    for the same reason.
    """

    def clean(value: Any) -> Any:
        return value.replace("\r", "").replace("§", "S") if isinstance(value, str) else value

    out = {k: clean(v) for k, v in args.items() if k != "operations"}
    if "operations" in args:
        out["operations"] = [{k: clean(v) for k, v in op.items()} for op in args["operations"]]
    return out


# -- the machine -------------------------------------------------------------------------------


class MemoryHome(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.folder = Path(tempfile.mkdtemp(prefix="memoir-stateful-"))
        self.home = self.folder / "home"
        self.config = memoir.Config.model_validate(CONFIG)
        self.model: Model = {"memory": [], "user": []}
        # (journal size after a command, the model then): what a cut can roll back to.
        self.history: list[tuple[int, Model]] = [(0, self.model)]
        self._open()

    @property
    def journal(self) -> FileJournal:
        assert isinstance(self.mem.journal, FileJournal)
        return self.mem.journal

    def _open(self) -> None:
        self.mem = memoir.open(self.home, config=self.config)
        self.session = self.mem.start_session()
        self._acknowledged()

    def _acknowledged(self) -> None:
        self.history.append((self.journal.path.stat().st_size, self.model))

    @rule(data=st.data())
    def call_memory(self, data: st.DataObject) -> None:
        existing = self.model["memory"] + self.model["user"]
        args = data.draw(memory_commands(existing).map(_plain), label="args")
        success, after = model_call(self.model, args)
        result = self.session.call_tool("memory", args)
        assert result["success"] is success, result
        self.model = after
        self._acknowledged()

    @rule()
    def new_turn(self) -> None:
        self.session.new_turn()

    @rule()
    def flush(self) -> None:
        self.journal.flush()

    @rule()
    def reopen(self) -> None:
        self.mem.close()
        self._open()

    @rule(data=st.data())
    def crash(self, data: st.DataObject) -> None:
        path = self.journal.path
        synced, size = self.journal.synced_offset, path.stat().st_size
        self.mem.close()
        cut = data.draw(st.integers(synced, size), label="cut at byte")
        os.truncate(path, cut)
        self.history = [entry for entry in self.history if entry[0] <= cut]
        self.model = self.history[-1][1]
        self._open()
        # MEMORY.md / USER.md were written after records the cut took away, so they can be
        # ahead of the journal; opening the home re-renders stale files before it returns.
        self._assert_memory_files_match_the_journal()
        self.mem.rebuild()

    @rule(data=st.data())
    def die_with_files_owed(self, data: st.DataObject) -> None:
        """The process dies right after a call: it is in the journal, its files are not."""
        self.call_memory(data)
        self.mem.close(flush=False)  # as if the process died: the owed files stay owed
        self._open()
        # Opening the home writes the files the dead process owed before it returns.
        self._assert_memory_files_match_the_journal()

    @invariant()
    def live_state_is_the_model(self) -> None:
        memory = self.mem.state.memory
        assert {t: memory.target(t).texts() for t in LIMITS} == self.model

    @invariant()
    def live_state_is_a_fresh_replay(self) -> None:
        assert replay(self.journal) == self.mem.state

    @invariant()
    def files_are_what_a_fresh_rebuild_renders(self) -> None:
        # Projected files are written in the background; compare them once flushed.
        self.mem.flush()
        self._assert_memory_files_match_the_journal()

    def _assert_memory_files_match_the_journal(self) -> None:
        for rel, expected in self.mem.projected_files(replay(self.journal)).items():
            if not rel.startswith("memories/"):
                continue
            on_disk = self.home / rel
            actual = on_disk.read_bytes() if on_disk.exists() else None
            assert actual == expected, rel

    @invariant()
    def journal_verifies(self) -> None:
        report = self.journal.verify()
        assert report.records == self.mem.head and report.pending_bytes == 0

    def teardown(self) -> None:
        self.mem.close()
        shutil.rmtree(self.folder, ignore_errors=True)


MemoryHome.TestCase.settings = settings(stateful_step_count=30, deadline=None)
test_memory_home_matches_the_model = MemoryHome.TestCase


# -- the public testing module -------------------------------------------------------------------


def test_testing_module_exports_its_documented_names() -> None:
    import memoir.testing as testing

    assert testing.__all__ == sorted(testing.__all__)
    assert testing.FakeClock is memoir.FakeClock
    assert testing.InMemoryJournal is memoir.InMemoryJournal
    for name in testing.__all__:
        assert getattr(testing, name).__doc__, name


@given(commands=memory_command_lists(max_size=12))
@settings(max_examples=20)
def test_build_journal_records_what_the_memory_tool_does_in_a_real_home(
    commands: list[dict[str, Any]], tmp_path_factory: pytest.TempPathFactory
) -> None:
    results: list[dict[str, Any]] = []
    built = replay(build_journal(None, commands, clock=FakeClock(), results=results))
    on_disk = tmp_path_factory.mktemp("built") / "journal.jsonl"
    assert replay(build_journal(on_disk, commands)).memory.memory.texts() == (
        built.memory.memory.texts())
    with memoir.open(tmp_path_factory.mktemp("home")) as mem:
        session = mem.start_session()
        for args, result in zip(commands, results, strict=True):
            session.new_turn()  # no failure cap: one call per turn
            assert session.call_tool("memory", args)["success"] == result["success"], args
        for target in LIMITS:
            assert mem.state.memory.target(target).texts() == built.memory.target(target).texts()


# find() only has to show that such examples come up; shrinking them would be wasted time.
NO_SHRINK = settings(database=None, phases=[Phase.generate], max_examples=2000)


def test_commands_draw_old_text_from_pieces_of_existing_entries() -> None:
    existing = ["User prefers tabs over spaces", "Project uses uv"]

    def aims_inside(command: dict[str, Any]) -> bool:
        old = command.get("old_text")
        return (command.get("action") == "remove" and isinstance(old, str)
                and any(old in t and old != t for t in existing))

    found = find(memory_commands(existing), aims_inside, settings=NO_SHRINK)
    assert found["old_text"]


def test_command_lists_aim_later_commands_at_texts_written_earlier() -> None:
    def aims_back(commands: list[dict[str, Any]]) -> bool:
        first = commands[0]
        if first.get("action") != "add" or len(commands) < 2:
            return False
        later = commands[1]
        old = later.get("old_text")
        return (later.get("action") in ("replace", "remove") and isinstance(old, str)
                and old in first["content"].strip() and old != first["content"].strip())

    found = find(memory_command_lists(min_size=2, max_size=2), aims_back, settings=NO_SHRINK)
    assert found[1]["old_text"] in found[0]["content"]


def test_build_journal_reports_a_refused_write_to_an_unclean_target_as_the_tool_does(
        tmp_path: Path) -> None:
    # Found by Hypothesis: an entry holding the delimiter makes MEMORY.md unclean, and a
    # replace is then refused; the pure path reported an empty result for it.
    commands = [{"action": "add", "target": "memory", "content": "0 \n§"},
                {"action": "add", "target": "memory", "content": "User prefers tabs"},
                {"action": "replace", "target": "memory", "old_text": "0",
                 "content": "User prefers tabs"}]
    results: list[dict[str, Any]] = []
    build_journal(None, commands, clock=FakeClock(), results=results)
    assert results[2]["success"] is False
    assert results[2]["error"].startswith("Refusing to write MEMORY.md: its entries")
    assert "snapshot" not in results[2]["error"] and "drift_backup" not in results[2]
    with memoir.open(tmp_path / "home") as mem:
        session = mem.start_session()
        for args, built in zip(commands, results, strict=True):
            session.new_turn()
            real = session.call_tool("memory", args)
            assert real["success"] == built["success"]
        assert real["error"].split(".")[0] == results[2]["error"].split(".")[0]
        assert "drift_backup" in real
