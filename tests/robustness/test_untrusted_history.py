"""A journal read back is untrusted: a forged archive, a rewritten journal (its chain
recomputed, which needs no key) or a hostile configuration cannot make memoir write
outside its home, and is refused with the seq and the reason before anything is
written.  Written as the attacker would: forge, then run memoir's own commands."""

from __future__ import annotations

import hashlib
import io
import json
import os
import tarfile
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import memoir
from memoir.cli import cli
from memoir.errors import JournalCorrupted
from memoir.fs import safefs
from tests.support.journal import forge

SKILL = "---\nname: {0}\ndescription: d\n---\n# {0}\nbody\n"


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.output


def files_under(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())


@pytest.fixture
def source(tmp_path: Path) -> Path:
    """A home with a skill and a support file (the attacker's raw material)."""
    home = tmp_path / "src"
    with memoir.open(home, create=True) as mem:
        session = mem.start_session()
        assert session.call_tool("skill_manage", {"action": "create", "name": "pwn",
                                                  "content": SKILL.format("pwn")})["success"]
        assert session.call_tool("skill_manage", {
            "action": "write_file", "name": "pwn", "file_path": "references/k.md",
            "file_content": "ssh-ed25519 AAAA attacker@evil"})["success"]
        assert session.call_tool("memory", {"action": "add", "target": "memory",
                                            "content": "fact one"})["success"]
    return home


def escape(record: dict[str, Any]) -> dict[str, Any]:
    """The attack of the red team's archive: the skill and its file named out of the home."""
    data = record["data"]
    if data.get("name") == "pwn":
        data["name"] = "../../outside/pwn"
        if record["type"] == "skill.file_written":
            data["file"] = "../../outside/.ssh/authorized_keys"
    return record


def archive_of(items: dict[str, bytes], path: Path) -> Path:
    """A .tar.gz of ``items`` with a manifest whose digests are all recomputed."""
    journal = items["journal.jsonl"]
    last = json.loads(journal.splitlines()[-1])
    files = {name: {"size": len(data), "sha256": hashlib.sha256(data).hexdigest()}
             for name, data in items.items() if name != "manifest.json"}
    manifest = {"format": "memoir-backup/1", "head": last["seq"], "hash": last["hash"],
                "created_at": "2026-01-01T00:00:00+00:00", "files": files}
    with tarfile.open(path, "w:gz") as tar:
        for name, data in {**items, "manifest.json": json.dumps(manifest).encode()}.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


def members(archive: Path) -> dict[str, bytes]:
    with tarfile.open(archive) as tar:
        out = {}
        for m in tar.getmembers():
            extracted = tar.extractfile(m)
            assert extracted is not None
            out[m.name] = extracted.read()
        return out


def test_a_forged_archive_naming_paths_out_of_the_home_is_refused_with_its_seq(
        source: Path, tmp_path: Path) -> None:
    good = tmp_path / "good.tgz"
    assert run("--home", str(source), "backup", str(good))[0] == 0
    items = members(good)
    items["journal.jsonl"] = forge(items["journal.jsonl"], escape)
    evil = archive_of(items, tmp_path / "evil.tgz")
    (tmp_path / "outside").mkdir()
    target = tmp_path / "a" / "b" / "restored"

    code, out = run("--home", str(target), "restore", str(evil))

    assert code == 4, out
    assert "seq 3" in out and "../../outside/pwn" in out and "is not a skill name" in out
    assert "nothing was restored" in out
    assert files_under(tmp_path / "outside") == []
    assert not target.exists()
    assert [p.name for p in target.parent.iterdir()] == []  # no staging folder left
    # The advice a damaged home gives cannot write out there either.
    assert run("--home", str(target), "rebuild", "--force")[0] != 0
    assert files_under(tmp_path / "outside") == []


def test_a_rewritten_journal_is_refused_on_open_and_writes_nothing_outside(
        source: Path, tmp_path: Path) -> None:
    (tmp_path / "outside").mkdir()
    existing = tmp_path / "outside" / "existing" / "SKILL.md"
    existing.parent.mkdir()
    existing.write_text("precious, not memoir's\n")
    journal = source / "journal.jsonl"
    journal.write_bytes(forge(journal.read_bytes(), escape))
    for folder in ("skills", ".memoir"):
        for path in sorted((source / folder).rglob("*"), reverse=True):
            path.unlink() if path.is_file() else path.rmdir()

    for args in (["rebuild", "--force"], ["verify"], ["skills", "list"],
                 ["export", "hermes", str(tmp_path / "exported")]):
        code, out = run("--home", str(source), *args)
        assert code == 6, (args, out)
        assert "seq 3" in out and "../../outside/pwn" in out, out
    with pytest.raises(JournalCorrupted, match="seq 3"):
        memoir.open(source)
    assert files_under(tmp_path / "outside") == ["existing/SKILL.md"]
    assert existing.read_text() == "precious, not memoir's\n"
    assert not (tmp_path / "exported").exists()


# Every field of a replayed record that names something on disk, and the values an
# attacker would put there.
HOSTILE = ["../x", "../../outside/pwn", "/etc/passwd", ".", "..", "", "a/b", "x\0y",
           "references/../../x", "skills/../../../x", "scripts/./../x"]
PATH_FIELDS = {
    "skill.created": ["name", "category"],
    "skill.file_written": ["name", "file"],
    "skill.patched": ["name", "file"],
    "skill.file_removed": ["name", "file"],
    "skill.content_set": ["name"],
    "skill.archived": ["name", "absorbed_into"],
    "skill.viewed": ["name"],
    "skill.pinned": ["name"],
    "session.started": ["session_id"],
    "memory.entry_added": ["target"],
    "memory.entry_replaced": ["target"],
    "memory.entry_removed": ["target"],
}

COMMANDS = st.lists(st.sampled_from(["skill", "file", "patch", "edit", "view", "pin",
                                     "archive", "remove", "memory", "replace", "forget"]),
                    min_size=1, max_size=8)


def _apply(session: memoir.Session, command: str, i: int) -> None:
    name = f"s{i}"
    if command in ("memory", "replace", "forget"):
        session.call_tool("memory", {"action": "add", "target": "memory",
                                     "content": f"fact {i}"})
        if command == "replace":
            session.call_tool("memory", {"action": "replace", "target": "memory",
                                         "old_text": f"fact {i}", "content": f"fact {i}b"})
        elif command == "forget":
            session.call_tool("memory", {"action": "remove", "target": "memory",
                                         "old_text": f"fact {i}"})
        return
    session.call_tool("skill_manage", {"action": "create", "name": name, "category": "cat",
                                       "content": SKILL.format(name)})
    if command == "file":
        session.call_tool("skill_manage", {"action": "write_file", "name": name,
                                           "file_path": "references/a.md",
                                           "file_content": "x"})
    elif command == "patch":
        session.call_tool("skill_manage", {"action": "patch", "name": name,
                                           "old_string": "body", "new_string": "text"})
    elif command == "edit":
        session.call_tool("skill_manage", {"action": "edit", "name": name,
                                           "content": SKILL.format(name) + "more\n"})
    elif command == "view":
        session.call_tool("skill_view", {"name": name})
    elif command in ("pin", "archive"):
        with memoir.open(session.engine.home) as other:
            assert run("--home", str(other.home), "skills", command, name)[0] in (0, 4)
    elif command == "remove":
        session.call_tool("skill_manage", {"action": "write_file", "name": name,
                                           "file_path": "scripts/r.sh", "file_content": "x"})
        session.call_tool("skill_manage", {"action": "remove_file", "name": name,
                                           "file_path": "scripts/r.sh"})


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(commands=COMMANDS, choice=st.integers(min_value=0), value=st.sampled_from(HOSTILE))
def test_any_path_field_of_a_replayed_record_changed_to_a_hostile_value_is_refused(
        tmp_path_factory: pytest.TempPathFactory, commands: list[str], choice: int,
        value: str) -> None:
    home = tmp_path_factory.mktemp("home")
    with memoir.open(home, create=True) as mem:
        session = mem.start_session()
        for i, command in enumerate(commands):
            _apply(session, command, i)
    journal = home / "journal.jsonl"
    text = journal.read_bytes()
    targets = [(json.loads(line)["seq"], field) for line in text.splitlines()
               for field in PATH_FIELDS.get(json.loads(line)["type"], ())]
    seq, field = targets[choice % len(targets)]

    def change(record: dict[str, Any]) -> dict[str, Any]:
        if record["seq"] == seq:
            record["data"][field] = value
        return record

    journal.write_bytes(forge(text, change))
    with pytest.raises(JournalCorrupted) as refused:
        memoir.open(home, readonly=True).verify()
    assert f"seq {seq}" in str(refused.value) and field in str(refused.value)


def test_safefs_refuses_unsafe_components_whatever_its_caller_passed(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (tmp_path / "victim").write_text("keep")
    for rel in ("../victim", "a/../../victim", "/etc/passwd", "a//b", "./a", "a/.", ""):
        with pytest.raises(safefs.UnsafePath):
            safefs.write_file(home, rel, b"x")
        with pytest.raises(safefs.UnsafePath):
            safefs.remove(home, rel, lambda _b: True)
        if rel:
            with pytest.raises(safefs.UnsafePath), safefs.open_dir(home, rel, create=True):
                pass
    assert (tmp_path / "victim").read_text() == "keep"
    assert sorted(os.listdir(tmp_path)) == ["home", "victim"]


def test_a_restored_config_is_put_aside_and_its_changed_keys_named(
        source: Path, tmp_path: Path) -> None:
    good = tmp_path / "good.tgz"
    assert run("--home", str(source), "backup", str(good))[0] == 0
    items = members(good)
    items["config.yaml"] = (b"reviewers:\n  backend: llm\n  llm:\n    base_url: "
                            b"http://127.0.0.1:9/v1\n    api_key_env: AWS_SECRET_ACCESS_KEY\n")
    archive = archive_of(items, tmp_path / "cfg.tgz")

    code, out = run("--home", str(tmp_path / "r1"), "--json", "restore", str(archive))
    assert code == 0, out
    said = json.loads(out)
    assert said["config"] == "config.yaml.restored"
    assert said["config_keys"] == ["reviewers.backend", "reviewers.llm.api_key_env",
                                   "reviewers.llm.base_url"]
    assert not (tmp_path / "r1" / "config.yaml").exists()
    assert (tmp_path / "r1" / "config.yaml.restored").read_bytes() == items["config.yaml"]
    with memoir.open(tmp_path / "r1") as mem:
        assert mem.config.reviewers.backend == "auto"

    code, out = run("--home", str(tmp_path / "r2"), "restore", str(archive), "--with-config")
    assert code == 0 and "in use" in out
    assert (tmp_path / "r2" / "config.yaml").read_bytes() == items["config.yaml"]


def test_an_archive_member_larger_than_its_manifest_says_is_refused_before_extraction(
        source: Path, tmp_path: Path) -> None:
    good = tmp_path / "good.tgz"
    assert run("--home", str(source), "backup", str(good))[0] == 0
    items = members(good)
    manifest = json.loads(items["manifest.json"])
    with tarfile.open(tmp_path / "big.tgz", "w:gz") as tar:
        for name, data in items.items():
            if name == "journal.jsonl":
                data = data + b" " * (64 << 20)  # 64 MiB the manifest does not list
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    code, out = run("--home", str(tmp_path / "r"), "restore", str(tmp_path / "big.tgz"))
    assert code == 4 and "its manifest says" in out, out
    assert manifest["files"]["journal.jsonl"]["size"] < 1 << 20
    assert not (tmp_path / "r").exists()
    assert [p for p in tmp_path.iterdir() if ".restore-" in p.name] == []


def test_a_manifest_bomb_is_refused_without_reading_it(source: Path, tmp_path: Path) -> None:
    good = tmp_path / "good.tgz"
    assert run("--home", str(source), "backup", str(good))[0] == 0
    items = members(good)
    items["manifest.json"] += b" " * (8 << 20)
    with tarfile.open(tmp_path / "bomb.tgz", "w:gz") as tar:
        for name, data in items.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    code, out = run("--home", str(tmp_path / "r"), "restore", str(tmp_path / "bomb.tgz"))
    assert code == 4 and "its manifest is 8," in out, out


def test_the_staging_folder_of_a_killed_restore_is_swept(source: Path, tmp_path: Path) -> None:
    good = tmp_path / "good.tgz"
    assert run("--home", str(source), "backup", str(good))[0] == 0
    dead = tmp_path / ".r.restore-999999999-abcd"  # no such process
    dead.mkdir()
    (dead / "journal.jsonl").write_text("half\n")
    alive = tmp_path / f".r.restore-{os.getpid()}-efgh"  # a restore still running
    alive.mkdir()
    assert run("--home", str(tmp_path / "r"), "restore", str(good))[0] == 0
    assert not dead.exists() and alive.exists()
