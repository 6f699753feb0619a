"""Projected memory files: Hermes's bytes, atomic writes, rebuild, and hand-edit drift."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

import memoir
from memoir.config import Config, JournalConfig
from memoir.errors import DriftError
from memoir.events.memory import EntryAdded
from memoir.projections.materializer import Materializer, atomic_write


def fast(home: Path) -> memoir.Memoir:
    return memoir.open(home, config=Config(journal=JournalConfig(durability="never")))


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
    assert sorted(p.name for p in (home / "memories").iterdir()) == ["MEMORY.md"]


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
        assert mem.rebuild() == []


def test_hand_edit_is_detected_and_never_overwritten_by_agent_writes(home: Path) -> None:
    with fast(home) as mem:
        add(mem, "original")
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
            backup = Path(str(result["drift_backup"]))
            assert backup.read_text(encoding="utf-8") == "original\n§\nadded by hand"
        assert memory_md(home).read_text(encoding="utf-8") == "original\n§\nadded by hand"
        # The other target is unaffected.
        assert add(mem, "Ada", "user")["success"] is True
        rejected = list(mem.events(types=["memory.write_rejected"]))
        assert len(rejected) == 3 and all(e.data.reason == "drift"  # type: ignore[attr-defined]
                                          for e in rejected)


def test_rebuild_refuses_hand_edits_unless_forced_and_keeps_a_backup(home: Path) -> None:
    with fast(home) as mem:
        add(mem, "journal truth")
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
        mem.journal.append([memoir.Draft(data=EntryAdded(target="memory", entry_id="e-2",
                                                          text="two"), actor="agent")])
        assert memory_md(home).read_bytes() == b"one"
        assert mem.drift() == []
        add(mem, "three")
    assert memory_md(home).read_bytes() == "one\n§\ntwo\n§\nthree".encode()


def test_an_older_version_put_back_by_hand_is_a_hand_edit(home: Path) -> None:
    with fast(home) as mem:
        add(mem, "one")
        previous = memory_md(home).read_bytes()
        add(mem, "two")
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
