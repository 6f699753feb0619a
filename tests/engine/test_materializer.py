"""Projected memory files: Hermes's bytes, atomic writes, rebuild, and hand-edit drift."""

from __future__ import annotations

import os
import shutil
import threading
import time
from pathlib import Path

import pytest

import memoir
from memoir.config import Config, JournalConfig, MemoryConfig, ProjectionsConfig
from memoir.engine.materializer import Materializer, atomic_write
from memoir.errors import DriftError
from memoir.events.memory import EntryAdded
from memoir.projections.render.memory import render_memory_file


def fast(home: Path, *, adopt: bool = True) -> memoir.Memoir:
    """``adopt=False``: hand edits wait for ``memoir adopt`` (every write to an edited
    file is refused), as with ``memory.adopt_hand_edits: false``."""
    return memoir.open(home, config=Config(journal=JournalConfig(durability="never"),
                                           memory=MemoryConfig(adopt_hand_edits=adopt)))


def slow_writer(home: Path, coalesce_ms: float = 10_000, *, adopt: bool = True) -> memoir.Memoir:
    """Background projection (the default mode) whose writer waits ``coalesce_ms`` before
    writing: with the default 10 s, nothing but ``flush()`` writes files during a test."""
    mem = memoir.open(home, config=Config(journal=JournalConfig(durability="never"),
                                          memory=MemoryConfig(adopt_hand_edits=adopt),
                                          projections=ProjectionsConfig(coalesce_ms=coalesce_ms)))
    assert mem.config.projections.mode == "background"
    return mem


def add(mem: memoir.Memoir, content: str, target: str = "memory") -> dict[str, object]:
    return mem.start_session().call_tool("memory", {"action": "add", "target": target,
                                                    "content": content})


def memory_md(home: Path) -> Path:
    return home / "memories" / "MEMORY.md"


def test_files_are_joined_by_the_delimiter_without_a_trailing_newline(home: Path) -> None:
    with fast(home) as mem:
        add(mem, "one")
        add(mem, "two\nlines")
        add(mem, "Ada", "user")
    assert memory_md(home).read_bytes() == "one\n§\ntwo\nlines".encode()
    assert (home / "memories" / "USER.md").read_bytes() == b"Ada"


def test_a_target_never_written_has_no_file_and_an_emptied_one_is_empty(home: Path) -> None:
    with fast(home) as mem:
        add(mem, "only")
        assert not (home / "memories" / "USER.md").exists()
        mem.start_session().call_tool("memory", {"action": "remove", "old_text": "only"})
    assert memory_md(home).read_bytes() == b""


def test_writes_leave_no_temp_files_behind(home: Path) -> None:
    with fast(home) as mem:
        for i in range(5):
            add(mem, f"entry {i}")
    # MEMORY.md.lock is Hermes's lock file, which memoir holds while it writes.
    assert sorted(p.name for p in (home / "memories").iterdir()) == [
        "MEMORY.md", "MEMORY.md.lock"]


def test_atomic_write_replaces_through_a_symlink(tmp_path: Path) -> None:
    real = tmp_path / "real.md"
    real.write_bytes(b"old")
    link = tmp_path / "link.md"
    link.symlink_to(real)
    atomic_write(link, b"new")
    assert link.is_symlink() and real.read_bytes() == b"new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.md", "real.md"]


def test_rebuild_writes_identical_bytes_after_the_files_are_deleted(home: Path) -> None:
    with fast(home) as mem:
        session = mem.start_session()
        for text in ("café ☕", "multi\nline", "dup"):
            session.call_tool("memory", {"action": "add", "content": text})
        session.call_tool("memory", {"action": "add", "target": "user", "content": "Ada"})
        session.call_tool("memory", {"action": "replace", "old_text": "café",
                                     "content": "tea"})
        # An entry holding the delimiter is written as given and read back as two.
        session.call_tool("memory", {"action": "add", "content": "x\n§\n y"})
        mem.flush()
        before = {p.name: p.read_bytes() for p in (home / "memories").iterdir()}
        shutil.rmtree(home / "memories")
        shutil.rmtree(home / ".memoir")
        written = mem.rebuild()
        assert sorted(written) == ["memories/MEMORY.md", "memories/USER.md"]
    after = {p.name: p.read_bytes() for p in (home / "memories").iterdir()}
    assert after == before


def test_rebuild_of_unchanged_files_rewrites_nothing(home: Path) -> None:
    with fast(home) as mem:
        add(mem, "stable")
        mem.flush()
        assert mem.rebuild() == []


def test_a_well_formed_hand_edit_is_adopted_before_an_agent_write(home: Path) -> None:
    with fast(home) as mem:
        add(mem, "original")
        mem.flush()
        memory_md(home).write_text("original\n§\nadded by hand", encoding="utf-8")
        head = mem.head
        assert add(mem, "agent note")["success"] is True
        mem.flush()
        assert memory_md(home).read_text(encoding="utf-8") == \
            "original\n§\nadded by hand\n§\nagent note"
        kinds = [(e.actor, e.type) for e in mem.events(after=head)
                 if e.type != "session.started"]
        assert kinds == [("user", "run.started"), ("user", "memory.entry_added"),
                         ("agent", "memory.entry_added")]
        assert mem.drift() == []


def test_hand_edit_is_detected_and_never_overwritten_by_agent_writes(home: Path) -> None:
    with fast(home, adopt=False) as mem:
        add(mem, "original")
        mem.flush()
        memory_md(home).write_text("original\n§\nadded by hand", encoding="utf-8")
        assert [d.path for d in mem.drift()] == ["memories/MEMORY.md"]
        for args in ({"action": "add", "content": "agent note"},
                     {"action": "remove", "old_text": "original"},
                     {"operations": [{"action": "add", "content": "batched"}]}):
            result = mem.start_session().call_tool("memory", args)
            assert list(result) == ["success", "error", "drift_backup", "remediation"]
            assert result["success"] is False
            assert result["error"].startswith("Refusing to write MEMORY.md: ")
            assert "memoir adopt" in result["remediation"]
            backup = home / str(result["drift_backup"])
            assert backup.read_text(encoding="utf-8") == "original\n§\nadded by hand"
        mem.flush()
        assert memory_md(home).read_text(encoding="utf-8") == "original\n§\nadded by hand"
        # The other target is unaffected.
        assert add(mem, "Ada", "user")["success"] is True
        rejected = list(mem.events(types=["memory.write_rejected"]))
        assert len(rejected) == 3 and all(e.data.reason == "drift"  # type: ignore[attr-defined]
                                          for e in rejected)


def test_rebuild_refuses_hand_edits_unless_forced_and_keeps_a_backup(home: Path) -> None:
    with fast(home) as mem:
        add(mem, "journal truth")
        mem.flush()
        memory_md(home).write_text("hand edit", encoding="utf-8")
        with pytest.raises(DriftError, match=r"memories/MEMORY\.md edited by hand"):
            mem.rebuild()
        assert memory_md(home).read_text(encoding="utf-8") == "hand edit"
        mem.rebuild(force=True)
    assert memory_md(home).read_text(encoding="utf-8") == "journal truth"
    backups = list((home / "memories").glob("MEMORY.md.bak.*"))
    assert [b.read_text(encoding="utf-8") for b in backups] == ["hand edit"]


def test_a_deleted_file_is_not_drift_and_is_written_again(home: Path) -> None:
    with fast(home) as mem:
        add(mem, "kept in the journal")
        mem.flush()
        memory_md(home).unlink()
        assert mem.drift() == []
        # Not "empty memory": the journal's entries are still there for the agent.
        result = mem.start_session().call_tool("memory", {"action": "add",
                                                          "content": "kept in the journal"})
        assert result["message"] == "Entry already exists (no duplicate added)."
        assert mem.rebuild() == ["memories/MEMORY.md"]
    assert memory_md(home).read_text(encoding="utf-8") == "kept in the journal"


def test_a_lost_manifest_compares_against_the_current_rendering(home: Path) -> None:
    with fast(home) as mem:
        add(mem, "one")
    (home / ".memoir" / "manifest.json").unlink()
    with fast(home) as mem:
        assert mem.drift() == []
        memory_md(home).write_text("edited", encoding="utf-8")
        assert [d.path for d in mem.drift()] == ["memories/MEMORY.md"]


def test_a_file_left_behind_by_a_writer_that_died_is_not_a_hand_edit(home: Path) -> None:
    # A process that appended to the journal but died before writing the file leaves
    # memoir's own last write in place; that is not an edit, and the next write fixes it.
    with fast(home) as mem:
        add(mem, "one")
        mem.flush()
        mem.journal.append([memoir.Draft(data=EntryAdded(target="memory", entry_id="e-2",
                                                          text="two"), actor="agent")])
        assert memory_md(home).read_bytes() == b"one"
        assert mem.drift() == []
        add(mem, "three")
    assert memory_md(home).read_bytes() == "one\n§\ntwo\n§\nthree".encode()


def test_an_older_version_put_back_by_hand_is_a_hand_edit(home: Path) -> None:
    with fast(home) as mem:
        add(mem, "one")
        mem.flush()
        previous = memory_md(home).read_bytes()
        add(mem, "two")
        mem.flush()
        memory_md(home).write_bytes(previous)
        assert [d.path for d in mem.drift()] == ["memories/MEMORY.md"]


def test_materializer_backup_uses_hermes_naming(tmp_path: Path) -> None:
    (tmp_path / "memories").mkdir()
    (tmp_path / "memories" / "USER.md").write_bytes(b"raw")
    backup = Materializer(tmp_path).backup("memories/USER.md", 1718000000)
    assert backup == tmp_path / "memories" / "USER.md.bak.1718000000"
    assert backup.read_bytes() == b"raw"
    assert Materializer(tmp_path).backup("memories/MEMORY.md", 1) is None


def test_files_are_created_with_ordinary_permissions(home: Path) -> None:
    with fast(home) as mem:
        add(mem, "perm")
    assert os.stat(memory_md(home)).st_mode & 0o777 == 0o644 & ~_umask()


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


def test_removing_a_file_removes_the_folders_it_leaves_empty(tmp_path: Path) -> None:
    m = Materializer(tmp_path, fsync=False)
    m.write({"skills/cat/one/SKILL.md": b"a", "skills/cat/two/SKILL.md": b"b"}, seq=1)
    m.write({"skills/cat/one/SKILL.md": None}, seq=2)
    assert not (tmp_path / "skills" / "cat" / "one").exists()
    assert (tmp_path / "skills" / "cat" / "two" / "SKILL.md").exists()
    m.write({"skills/cat/two/SKILL.md": None}, seq=3)
    assert not (tmp_path / "skills" / "cat").exists()
    assert (tmp_path / "skills").is_dir(), "top-level folders of the home stay"


# -- background projection ------------------------------------------------------------------


def on_disk(path: Path) -> bytes | None:
    return path.read_bytes() if path.exists() else None


def test_flush_writes_exactly_the_rendering_and_until_then_the_file_is_the_previous_one(
        home: Path) -> None:
    with slow_writer(home) as mem:
        session = mem.start_session()
        previous: bytes | None = None  # no file before the first add
        for text in ("one", "two\nlines", "café ☕"):
            assert session.call_tool("memory", {"action": "add", "content": text})["success"]
            rendered = render_memory_file(mem.state, "memory")
            assert rendered is not None and rendered != previous
            # The commit returned before the file was written: it is absent or holds
            # the previous rendering, never the new one half-written or anything else.
            assert on_disk(memory_md(home)) == previous
            mem.flush()
            assert memory_md(home).read_bytes() == rendered
            previous = rendered
        assert previous == "one\n§\ntwo\nlines\n§\ncafé ☕".encode()
        assert mem.drift() == []


def test_after_flush_the_background_writer_has_nothing_left_to_do(home: Path) -> None:
    """flush() writes what the commits asked the writer for; the pass they asked for is
    withdrawn, not run later on its own (it took the projection lock, creating
    ``.memoir/lock`` again under a caller that had moved on — CI saw ``rmtree`` of
    ``.memoir`` fail with "Directory not empty")."""
    with slow_writer(home) as mem:
        add(mem, "one")
        passes: list[str] = []
        project = mem.projector.project

        def spy() -> None:
            passes.append(threading.current_thread().name)
            project()

        mem.projector.project = spy  # type: ignore[method-assign]
        mem.flush()
        assert passes == ["MainThread"]
        writer = mem.projector._writer
        assert writer is not None
        assert writer.wait(timeout=30)  # would run the asked-for pass at once
        assert passes == ["MainThread"]
        add(mem, "two")  # a later commit asks again, and the writer runs it
        assert writer.wait(timeout=30)
        assert passes == ["MainThread", "memoir-projector"]


def test_the_background_writer_catches_up_without_a_flush(home: Path) -> None:
    with fast(home) as mem:
        assert mem.config.projections.mode == "background"
        add(mem, "one")
        add(mem, "two")
        want = "one\n§\ntwo".encode()
        deadline = time.monotonic() + 10
        while on_disk(memory_md(home)) != want and time.monotonic() < deadline:
            time.sleep(0.01)
        assert on_disk(memory_md(home)) == want


@pytest.mark.parametrize("coalesce_ms", [10_000, 20], ids=["writer-not-run-yet", "default"])
def test_a_hand_edit_racing_the_background_write_is_adopted_with_the_owed_write(
        home: Path, coalesce_ms: float) -> None:
    with slow_writer(home, coalesce_ms) as mem:
        add(mem, "original")
        mem.flush()
        assert add(mem, "second")["success"] is True  # its file write is still owed
        memory_md(home).write_text("original\n§\nadded by hand", encoding="utf-8")
        mem.flush()
        assert add(mem, "agent note")["success"] is True
        mem.flush()
        texts = mem.state.memory.target("memory").texts()
        # Three-way: the person's addition and the journal's owed write are both kept.
        assert sorted(texts) == sorted(["original", "second", "added by hand", "agent note"])
        assert texts[-1] == "agent note"
        assert memory_md(home).read_text(encoding="utf-8") == "\n§\n".join(texts)


@pytest.mark.parametrize("coalesce_ms", [10_000, 20], ids=["writer-not-run-yet", "default"])
def test_a_hand_edit_made_before_the_background_write_is_drift_and_never_overwritten(
        home: Path, coalesce_ms: float) -> None:
    hand = "original\n§\nadded by hand"
    with slow_writer(home, coalesce_ms, adopt=False) as mem:
        add(mem, "original")
        mem.flush()
        assert add(mem, "second")["success"] is True  # its file write is still owed
        before_edit = on_disk(memory_md(home))
        if coalesce_ms == 10_000:
            assert before_edit == b"original"  # the edit lands before memoir's write
        else:  # the edit races the background writer: either way it is a hand edit
            assert before_edit in (b"original", "original\n§\nsecond".encode())
        memory_md(home).write_text(hand, encoding="utf-8")
        mem.flush()
        assert memory_md(home).read_text(encoding="utf-8") == hand
        assert [d.path for d in mem.drift()] == ["memories/MEMORY.md"]
        result = mem.start_session().call_tool("memory", {"action": "add",
                                                          "content": "agent note"})
        assert list(result) == ["success", "error", "drift_backup", "remediation"]
        assert result["success"] is False
        assert result["error"].startswith("Refusing to write MEMORY.md: ")
        assert "memoir adopt" in result["remediation"]
        backup = home / str(result["drift_backup"])
        assert backup.read_text(encoding="utf-8") == hand
        mem.flush()
        assert memory_md(home).read_text(encoding="utf-8") == hand
        assert mem.state.memory.target("memory").texts() == ["original", "second"]
        rejected = list(mem.events(types=["memory.write_rejected"]))
        assert [e.data.reason for e in rejected] == ["drift"]  # type: ignore[attr-defined]
    assert memory_md(home).read_text(encoding="utf-8") == hand  # closing leaves it too
