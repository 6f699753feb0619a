"""`memoir backup` / `memoir restore`: one archive, taken while agents write, checked
whole before anything is restored."""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
import subprocess
import sys
import tarfile
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

import memoir
from memoir.cli import cli
from tests.support.paths import REPO


def run(*args: str) -> tuple[int, str]:
    """Exit code and stdout (errors, and the warnings of a journal read mid-append,
    go to stderr)."""
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout if result.exit_code == 0 else result.output


@pytest.fixture
def source(tmp_path: Path) -> Path:
    home = tmp_path / "source"
    assert run("--home", str(home), "init")[0] == 0
    (home / "config.yaml").write_text("memory:\n  memory_char_limit: 3000\n", encoding="utf-8")
    with memoir.open(home) as mem:
        session = mem.start_session()
        for text in ("Project uses uv", "CI runs ruff and mypy"):
            assert session.call_tool("memory", {"action": "add", "target": "memory",
                                                "content": text})["success"]
        session.record_turn([{"role": "user", "content": "I deploy with make deploy."},
                             {"role": "assistant", "content": "Noted."}])
    return home


def test_a_restored_home_is_the_same_home(source: Path, tmp_path: Path) -> None:
    archive = tmp_path / "b.tar.gz"
    code, out = run("--home", str(source), "--json", "backup", str(archive))
    assert code == 0, out
    made = json.loads(out)
    with tarfile.open(archive) as tar:  # standard tools read it
        names = set(tar.getnames())
    assert {"journal.jsonl", "config.yaml", "manifest.json"} <= names
    assert any(n.startswith(".memoir/transcripts/") for n in names)
    code, out = run("--home", str(tmp_path / "new"), "--json", "restore", str(archive),
                    "--with-config")
    assert code == 0, out
    assert json.loads(out)["head"] == made["head"]
    assert json.loads(out)["config"] == "config.yaml"
    with memoir.open(source, readonly=True) as a, memoir.open(tmp_path / "new") as b:
        assert b.head == a.head and b.journal.head_hash() == a.journal.head_hash()
        assert b.state.memory == a.state.memory
        assert b.config.memory.memory_char_limit == 3000
        (sid,) = list(b.state.sessions)
        assert b.learning.transcripts is not None
    assert (tmp_path / "new" / "memories" / "MEMORY.md").read_bytes() == \
        (source / "memories" / "MEMORY.md").read_bytes()
    assert run("--home", str(tmp_path / "new"), "verify")[0] == 0
    code, out = run("--home", str(tmp_path / "new"), "--json", "sessions", "show", sid)
    assert code == 0 and "make deploy" in out


def _rewrite(archive: Path, change: dict[str, bytes | None]) -> None:
    """The archive with some members replaced (None: dropped), or added."""
    with tarfile.open(archive) as tar:
        members = [(m, tar.extractfile(m).read()) for m in tar.getmembers()]  # type: ignore[union-attr]
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        for member, data in members:
            new = change.pop(member.name, data)
            if new is None:
                continue
            member.size = len(new)
            tar.addfile(member, io.BytesIO(new))
        for name, data in change.items():
            info = tarfile.TarInfo(name)
            info.size = len(data or b"")
            tar.addfile(info, io.BytesIO(data or b""))
    archive.write_bytes(out.getvalue())


@pytest.mark.parametrize("damage", ["truncated", "altered", "dropped", "hostile",
                                    "short_chain", "not_gzip"])
def test_a_damaged_archive_is_refused_and_nothing_is_restored(
        source: Path, tmp_path: Path, damage: str) -> None:
    archive = tmp_path / "b.tar.gz"
    assert run("--home", str(source), "backup", str(archive))[0] == 0
    journal = (source / "journal.jsonl").read_bytes()
    if damage == "truncated":
        archive.write_bytes(archive.read_bytes()[: archive.stat().st_size // 2])
    elif damage == "altered":
        _rewrite(archive, {"journal.jsonl": journal.replace(b"Project uses uv",
                                                            b"Project uses pip")})
    elif damage == "dropped":
        _rewrite(archive, {"config.yaml": None})
    elif damage == "hostile":
        _rewrite(archive, {"../outside.txt": b"x"})
    elif damage == "short_chain":
        # Digests made to match, but the journal stops short of the recorded head.
        cut = journal[: journal.rstrip(b"\n").rfind(b"\n") + 1]
        with tarfile.open(archive) as tar:
            manifest = json.loads(tar.extractfile("manifest.json").read())  # type: ignore[union-attr]
        manifest["files"]["journal.jsonl"] = {"size": len(cut),
                                              "sha256": hashlib.sha256(cut).hexdigest()}
        _rewrite(archive, {"journal.jsonl": cut,
                           "manifest.json": json.dumps(manifest).encode()})
    else:
        archive.write_bytes(gzip.decompress(archive.read_bytes())[:1000])
    target = tmp_path / "new"
    code, out = run("--home", str(target), "restore", str(archive))
    assert code != 0 and "not a sound memoir backup" in out and "Traceback" not in out
    assert not target.exists()
    assert not (tmp_path / "outside.txt").exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".new")] == []


def test_restore_refuses_a_home_that_is_not_empty(source: Path, tmp_path: Path) -> None:
    archive = tmp_path / "b.tar.gz"
    assert run("--home", str(source), "backup", str(archive))[0] == 0
    code, out = run("--home", str(source), "restore", str(archive))
    assert code != 0 and "not empty" in out


def test_a_backup_taken_while_an_agent_writes_restores_to_a_sound_prefix(
        source: Path, tmp_path: Path) -> None:
    writer = subprocess.Popen(
        [sys.executable, "-c", "import memoir, sys\n"
         "with memoir.open(sys.argv[1]) as mem:\n"
         "    s = mem.start_session()\n"
         "    for i in range(400):\n"
         "        s.new_turn()\n"
         "        s.record_turn([{'role': 'user', 'content': f'message {i} ' * 50}])\n"
         "        s.call_tool('memory', {'action': 'add', 'target': 'user',\n"
         "                               'content': f'fact {i}'})\n",
         str(source)], env=dict(os.environ, PYTHONPATH=str(REPO), MEMOIR_DURABILITY="never"))
    heads: list[int] = []
    start = (source / "journal.jsonl").stat().st_size
    try:
        while (source / "journal.jsonl").stat().st_size == start:  # the writer is writing
            assert writer.poll() is None
        last: int | None = None
        for i in range(5):
            # Between two backups the writer goes on (it may pause for a while on a loaded
            # machine, loading the threat scan's model say): wait for its next record.
            while last is not None and (source / "journal.jsonl").stat().st_size == last \
                    and writer.poll() is None:
                time.sleep(0.01)
            archive = tmp_path / f"b{i}.tar.gz"
            code, out = run("--home", str(source), "--json", "backup", str(archive))
            assert code == 0, out
            heads.append(json.loads(out)["head"])
            last = (source / "journal.jsonl").stat().st_size
            target = tmp_path / f"new{i}"
            code, out = run("--home", str(target), "restore", str(archive))
            assert code == 0, out
            with memoir.open(target, readonly=True) as mem:
                assert mem.head == heads[-1]
                sessions = list(mem.state.sessions)
            # Every recorded turn's bodies came along: exporting reads them all.
            for sid in sessions:
                code, out = run("--home", str(target), "--json", "sessions", "export", sid)
                assert code == 0, out
    finally:
        writer.wait(timeout=120)
    assert writer.returncode == 0
    assert heads == sorted(heads) and len(set(heads)) > 1, heads
