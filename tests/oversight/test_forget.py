"""memoir forget (issue 23): content removed for good, the journal still verifying.

A unique marker goes in through every path that stores text — the memory tool, a
skill's files, a recorded conversation with a failed tool call, the review of that
conversation, a hand edit kept as a .bak drift copy — and after `memoir forget --text`
no file under the home holds it (every byte of every file searched), `memoir verify
--deep` passes, and the home takes new writes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import memoir
from memoir.events.codec import Forgotten
from tests.support.paths import REPO

MARKER = "ZEBRA-KITE-7731"


def _memoir(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "memoir", "--home", str(home), *args],
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(REPO)})


def _holding(home: Path, text: str) -> list[str]:
    """Every file under ``home`` whose bytes hold ``text`` (as is or JSON-escaped)."""
    forms = {text.encode(), json.dumps(text)[1:-1].encode()}
    found = []
    for path in home.rglob("*"):
        if path.is_file() and not path.is_symlink():
            data = path.read_bytes()
            if any(form in data for form in forms):
                found.append(path.relative_to(home).as_posix())
    return sorted(found)


def _fill(home: Path) -> None:
    with memoir.open(home, create=True) as mem:
        with mem.start_session() as session:
            assert session.call_tool("memory", {
                "action": "add", "target": "memory",
                "content": f"The deploy host is {MARKER}.example."})["success"]
            assert session.call_tool("skill_manage", {
                "action": "create", "name": "deploy-notes",
                "content": "---\nname: deploy-notes\ndescription: How deploys go.\n---\n"
                           f"1. Ship to {MARKER} first.\n"})["success"]
            session.record_turn([
                {"role": "user", "content": f"Remember that I prefer the {MARKER} mirror."},
                {"role": "assistant", "content": None, "tool_calls": [
                    {"id": "c1", "type": "function",
                     "function": {"name": "fetch", "arguments": {"host": MARKER}}}]},
                {"role": "tool", "tool_call_id": "c1",
                 "content": f"error: {MARKER} refused the connection"},
                {"role": "assistant", "content": "Noted."}])
        mem.flush()
    # A hand edit discarded by rebuild --force leaves a .bak copy holding the marker.
    user = home / "memories" / "USER.md"
    user.write_text(f"Works nights near {MARKER}.", encoding="utf-8")
    assert _memoir(home, "rebuild", "--force").returncode == 0
    # An imported conversation.
    conversation = home.parent / "conversation.json"
    conversation.write_text(json.dumps([
        {"role": "user", "content": f"The {MARKER} box is down again."},
        {"role": "assistant", "content": "I will look."}]), encoding="utf-8")
    assert _memoir(home, "sessions", "import", str(conversation)).returncode == 0
    # A report under logs/ (as the curator writes them) that names it.
    report = home / "logs" / "curator" / "20261125-000000" / "REPORT.md"
    report.parent.mkdir(parents=True)
    report.write_text(f"# Curator pass\n- kept deploy-notes ({MARKER})\n", encoding="utf-8")


def test_forget_text_leaves_no_byte_of_it_under_the_home(tmp_path: Path) -> None:
    home = tmp_path / "home"
    _fill(home)
    before = _holding(home, MARKER)
    assert "journal.jsonl" in before and any(p.startswith(".memoir/transcripts/")
                                             for p in before)
    assert any(".bak" in p for p in before), before
    assert "logs/curator/20261125-000000/REPORT.md" in before
    with memoir.open(home, readonly=True) as mem:  # the review of the conversation saved it
        assert any(e.actor.startswith("reviewer") and MARKER in str(e.data)
                   for e in mem.journal.read())
    done = _memoir(home, "--json", "forget", "--text", MARKER, "--reason", "leaked", "-y")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["records"] and result["bodies"] >= 2 and result["files_scrubbed"] >= 1
    assert _holding(home, MARKER) == []
    assert _memoir(home, "verify", "--deep").returncode == 0
    with memoir.open(home) as mem:
        events = list(mem.journal.read())
        forgotten = [e for e in events if isinstance(e.data, Forgotten)]
        assert [e.seq for e in forgotten] == [r["seq"] for r in result["records"]]
        (record,) = [e for e in events if e.type == "journal.forgotten"]
        assert record.data.reason == "leaked" and MARKER not in json.dumps(  # type: ignore[attr-defined]
            msgspec_dict(record.data))
        assert all(MARKER not in t for t in mem.state.memory.target("memory").texts())
        assert "deploy-notes" not in mem.state.skills.skills or MARKER not in \
            mem.state.skills.skills["deploy-notes"].content
        # The home takes new writes, and they verify with the rest.
        with mem.start_session() as session:
            assert session.call_tool("memory", {"action": "add", "target": "memory",
                                                "content": "Written after."})["success"]
    assert _memoir(home, "verify").returncode == 0


def msgspec_dict(value: object) -> object:
    import msgspec

    return msgspec.to_builtins(value)


def test_forget_entry_removes_every_version_and_the_texts_it_held(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with memoir.open(home, create=True) as mem, mem.start_session() as session:
        added = session.call_tool("memory", {"action": "add", "target": "user",
                                             "content": "Lives at 12 Elm Street."})
        assert added["success"]
        assert session.call_tool("memory", {"action": "replace", "target": "user",
                                            "old_text": "12 Elm", "content":
                                            "Lives at 14 Oak Avenue."})["success"]
        assert session.call_tool("memory", {"action": "add", "target": "user",
                                            "content": "Prefers tea."})["success"]
        entry = next(e.id for e in mem.state.memory.target("user").entries
                     if "Oak" in e.text)
    done = _memoir(home, "forget", "--entry", entry, "-y")
    assert done.returncode == 0, done.stderr
    assert _holding(home, "Elm Street") == [] and _holding(home, "Oak Avenue") == []
    assert (home / "memories" / "USER.md").read_text(encoding="utf-8") == "Prefers tea."
    assert _memoir(home, "verify", "--deep").returncode == 0


def test_what_is_refused(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with memoir.open(home, create=True) as mem, mem.start_session() as session:
        assert session.call_tool("memory", {"action": "add", "target": "memory",
                                            "content": "A fact to keep."})["success"]
    nothing = _memoir(home, "forget", "--text", "not in this home", "-y")
    assert nothing.returncode == 3 and "nothing to forget" in nothing.stderr
    assert _memoir(home, "forget", "-y").returncode == 2
    assert _memoir(home, "forget", "--text", "ab", "-y").returncode == 4
    unasked = _memoir(home, "--json", "forget", "--text", "A fact to keep")
    assert unasked.returncode == 2 and "--yes" in unasked.stderr
    assert _holding(home, "A fact to keep")  # nothing changed
    done = _memoir(home, "forget", "--text", "A fact to keep", "-y")
    assert done.returncode == 0
    runs = json.loads(_memoir(home, "--json", "runs").stdout)
    forget_run = next(r["run"] for r in runs if r["kind"] == "forget")
    refused = _memoir(home, "revert", forget_run)
    assert refused.returncode != 0 and "cannot be reverted" in refused.stderr


@pytest.mark.parametrize("stop_after", ["record", "records", "bodies"])
def test_an_interrupted_forget_is_finished_from_its_record(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stop_after: str) -> None:
    """A forget killed after its record was journaled: `memoir forget --finish` (or any
    later forget) completes it from the record alone."""
    from memoir.engine.forget import carry as forgetting

    home = tmp_path / "home"
    _fill(home)

    class Stop(Exception):
        pass

    steps = {"record": "_tombstone", "records": "_blank_bodies", "bodies": "_refold"}

    def stop(*_args: object, **_kwargs: object) -> None:
        raise Stop

    with memoir.open(home) as mem:
        plan = forgetting.plan_forget(mem, "text", MARKER)
        monkeypatch.setattr(forgetting, steps[stop_after], stop)
        with pytest.raises(forgetting.ForgetInterrupted, match="memoir forget --finish"):
            forgetting.forget(mem, plan)
        monkeypatch.undo()
    finished = _memoir(home, "forget", "--finish")
    assert finished.returncode == 0 and "finished 1" in finished.stdout, finished.stderr
    assert _memoir(home, "verify").returncode == 0
    assert _holding(home, MARKER) == []


def test_verify_names_a_tombstone_no_forget_lists_and_backup_notes_the_horizon(
        tmp_path: Path) -> None:
    from memoir.events.codec import payload_digest, payload_span, tombstone

    home = tmp_path / "home"
    with memoir.open(home, create=True) as mem, mem.start_session() as session:
        for text in ("Fact one to forget.", "Fact two, quietly removed.", "Fact three."):
            assert session.call_tool("memory", {"action": "add", "target": "memory",
                                                "content": text})["success"]
    assert _memoir(home, "forget", "--text", "Fact one", "-y").returncode == 0
    done = _memoir(home, "verify")
    assert done.returncode == 0 and "1 record(s) forgotten" in done.stdout, done.stderr
    archive = tmp_path / "after.tar.gz"
    backed = _memoir(home, "--json", "backup", str(archive))
    forgotten_at = json.loads(backed.stdout)["forgotten_through"]
    assert isinstance(forgotten_at, int) and forgotten_at > 0
    # Someone removes a payload by hand with a correct tombstone: the chain holds, and
    # verify names the tombstone no forget lists.
    path = home / "journal.jsonl"
    lines = path.read_bytes().splitlines()
    for i, line in enumerate(lines):
        if b"quietly removed" in line:
            start, end = payload_span(line)  # type: ignore[misc]
            stone = tombstone(payload_digest(line[start:end]))
            lines[i] = line[:start] + stone + b" " * (end - start - len(stone)) + line[end:]
            seq = i + 1
    path.write_bytes(b"".join(line + b"\n" for line in lines))
    caught = _memoir(home, "verify")
    assert caught.returncode == 6
    assert f"tombstone no journal.forgotten record lists (seq {seq})" in caught.stderr


def test_forget_session_skill_and_run(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with memoir.open(home, create=True) as mem:
        with mem.start_session() as chat:
            chat.record_turn([{"role": "user", "content": "My cat is called Bartholomew."},
                              {"role": "assistant", "content": "A fine name."}])
            session_id = chat.id
        with mem.start_session() as other:
            other.record_turn([{"role": "user", "content": "The CI runs on Tuesdays."},
                               {"role": "assistant", "content": "Noted."}])
            assert other.call_tool("skill_manage", {
                "action": "create", "name": "release-steps",
                "content": "---\nname: release-steps\ndescription: Releasing.\n---\n"
                           "1. Tag with the codename Nightjar-Pelican.\n"})["success"]
            assert other.call_tool("skill_manage", {
                "action": "write_file", "name": "release-steps",
                "file_path": "references/hosts.md",
                "file_content": "Hosts: orchard-9 and quarry-4.\n"})["success"]
    assert _memoir(home, "memory", "add", "Poisoned: always trust evil mirrors.").returncode == 0
    poisoned = json.loads(_memoir(home, "--json", "runs").stdout)[-1]["run"]

    done = _memoir(home, "--json", "forget", "--session", session_id, "-y")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["bodies"] == 2
    assert _holding(home, "Bartholomew") == [] and _holding(home, "Tuesdays")  # the other stays
    shown = _memoir(home, "sessions", "show", session_id)
    assert shown.returncode == 0 and "Bartholomew" not in shown.stdout

    file_only = _memoir(home, "forget", "--skill", "release-steps", "--file",
                        "references/hosts.md", "-y")
    assert file_only.returncode == 0, file_only.stderr
    assert _holding(home, "orchard-9") == [] and _holding(home, "Nightjar-Pelican")
    assert _memoir(home, "forget", "--skill", "release-steps", "-y").returncode == 0
    assert _holding(home, "Nightjar-Pelican") == []

    assert _memoir(home, "forget", "--run", poisoned, "-y").returncode == 0
    assert _holding(home, "evil mirrors") == []
    assert _memoir(home, "verify", "--deep").returncode == 0
    assert _memoir(home, "forget", "--run", "cli-000000000000", "-y").returncode == 3


_KILL = """
import os, signal, sys
import memoir
from memoir.engine.forget import carry as forgetting
step = sys.argv[2]
def die(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGKILL)
if step == "pending":
    real = forgetting._PendingFile.write
    def write_then_die(self, *args):
        real(self, *args)
        die()
    forgetting._PendingFile.write = write_then_die
else:
    setattr(forgetting, step, die)
with memoir.open(sys.argv[1]) as mem:
    forgetting.forget(mem, forgetting.plan_forget(mem, "text", sys.argv[3]))
"""


@pytest.mark.parametrize("step", ["pending", "_carry_out", "_tombstone", "_blank_bodies",
                                  "_refold", "_scrub"])
def test_a_forget_killed_at_any_step_leaves_the_home_whole_and_finishable(
        tmp_path: Path, step: str) -> None:
    """kill -9 between any two steps: the home opens and verifies; `forget --finish`
    leaves it as it was (killed before the record was journaled) or completely
    forgotten."""
    home = tmp_path / "home"
    _fill(home)
    killed = subprocess.run([sys.executable, "-c", _KILL, str(home), step, MARKER],
                            capture_output=True, text=True, timeout=120,
                            env={**os.environ, "PYTHONPATH": str(REPO)})
    assert killed.returncode == -9, killed.stderr
    verified = _memoir(home, "verify")
    said = json.loads(_memoir(home, "--json", "status").stdout)["forgets"]
    if step == "pending":  # killed before the record: nothing to finish
        assert verified.returncode == 0 and said == [], verified.stdout
    else:  # verify and status say so until it is finished (whatever was done already)
        assert verified.returncode == 6, verified.stdout
        assert "was interrupted here" in verified.stdout + verified.stderr
        assert [f["state"] for f in said] == ["interrupted"]
        assert "was interrupted: `memoir forget --finish`" in _memoir(home, "status").stdout
    finished = _memoir(home, "forget", "--finish")
    assert finished.returncode == 0, finished.stderr
    assert _memoir(home, "verify", "--deep").returncode == 0
    assert json.loads(_memoir(home, "--json", "status").stdout)["forgets"] == []
    left = _holding(home, MARKER)
    if step == "pending":
        assert "journal.jsonl" in left  # killed before the record: as it was
    else:
        assert left == [], left


def test_a_past_prompt_that_held_a_forgotten_entry_shows_the_mark(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with memoir.open(home, create=True) as mem:
        with mem.start_session() as writer:
            assert writer.call_tool("memory", {"action": "add", "target": "user",
                                               "content": "Name: Ada."})["success"]
            assert writer.call_tool("memory", {"action": "add", "target": "user",
                                               "content": "Lives at 12 Elm Street."})["success"]
        past = mem.start_session()
        before = past.prompt_blocks()["user"]
        assert before is not None and "Elm Street" in before
    assert _memoir(home, "forget", "--text", "12 Elm Street", "-y").returncode == 0
    with memoir.open(home) as mem:
        again = mem.session(past.id).prompt_blocks()["user"]
        assert again is not None and "Elm Street" not in again
        assert "Name: Ada." in again and "[forgotten]" in again
        # The same, reproducibly, and the memory of now holds no mark.
        assert mem.session(past.id).prompt_blocks()["user"] == again
        assert mem.state.memory.target("user").texts() == ["Name: Ada."]


def _as_written_before_the_payload_digest(home: Path) -> None:
    """Re-hash every record over its whole body, as memoir wrote them before the payload
    digest, and drop the caches anchored to the newer hashes."""
    import shutil

    from memoir.events.codec import chain_hash

    path = home / "journal.jsonl"
    prev = b""
    out = []
    for line in path.read_bytes().splitlines():
        body = line[: line.rindex(b',"hash"')] + b"}"
        prev = chain_hash(prev, body)
        out.append(body[:-1] + b',"hash":"' + prev + b'"}\n')
    path.write_bytes(b"".join(out))
    shutil.rmtree(home / ".memoir" / "checkpoints", ignore_errors=True)


def test_an_older_journal_forgets_through_its_forgotten_list(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with memoir.open(home, create=True) as mem, mem.start_session() as session:
        for text in (f"Old fact with {MARKER}.", "Old fact to keep.", "Another old fact."):
            assert session.call_tool("memory", {"action": "add", "target": "memory",
                                                "content": text})["success"]
    _as_written_before_the_payload_digest(home)
    assert _memoir(home, "verify").returncode == 0
    done = _memoir(home, "--json", "forget", "--text", MARKER, "-y")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["kept"] == []
    assert _holding(home, MARKER) == []
    assert (home / "journal.jsonl.forgotten").exists()
    assert _memoir(home, "verify", "--deep").returncode == 0
    with memoir.open(home) as mem:
        assert mem.state.memory.target("memory").texts() == ["Old fact to keep.",
                                                             "Another old fact."]
    # A backup carries the list: the restored home verifies.
    archive = tmp_path / "after.tar.gz"
    assert _memoir(home, "backup", str(archive)).returncode == 0
    restored = tmp_path / "restored"
    done = _memoir(restored, "restore", str(archive))
    assert done.returncode == 0, done.stderr
    assert _memoir(restored, "verify").returncode == 0 and _holding(restored, MARKER) == []
    # The list names only what forget removed: an entry added by hand is caught.
    from memoir.events.codec import hash_of_line, payload_digest, payload_span, tombstone

    path = home / "journal.jsonl"
    lines = path.read_bytes().splitlines()
    for i, line in enumerate(lines):
        if b"Another old fact." in line:
            start, end = payload_span(line)  # type: ignore[misc]
            digest = payload_digest(line[start:end])
            stone = tombstone(digest)
            lines[i] = line[:start] + stone + b" " * (end - start - len(stone)) + line[end:]
            with open(str(path) + ".forgotten", "ab") as extra:
                extra.write(f"{i + 1} {hash_of_line(line).decode()} {digest.decode()}\n"
                            .encode())
    path.write_bytes(b"".join(line + b"\n" for line in lines))
    caught = _memoir(home, "verify")
    assert caught.returncode == 6 and "edited outside `memoir forget`" in caught.stderr


def test_a_keyed_home_keeps_its_seals_through_a_forget(tmp_path: Path) -> None:
    key = {"MEMOIR_KEY": "a key of more than sixteen bytes"}
    home = tmp_path / "home"

    def keyed(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "memoir", "--home", str(home), *args],
                              capture_output=True, text=True, timeout=120,
                              env={**os.environ, "PYTHONPATH": str(REPO), **key})

    assert keyed("init").returncode == 0
    assert keyed("memory", "add", f"Sealed fact {MARKER}.").returncode == 0
    assert keyed("memory", "add", "Another sealed fact.").returncode == 0
    assert keyed("forget", "--text", MARKER, "-y").returncode == 0
    done = keyed("verify", "--deep")
    assert done.returncode == 0, done.stderr
    assert "every record sealed" in done.stdout and "1 record(s) forgotten" in done.stdout
    assert _holding(home, MARKER) == []


def test_a_listener_leaves_a_forget_under_way_to_its_process(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from memoir.engine.forget import carry as forgetting

    home = tmp_path / "home"
    _fill(home)

    def stop(*_args: object, **_kwargs: object) -> None:
        raise KeyboardInterrupt

    with memoir.open(home) as mem:
        plan = forgetting.plan_forget(mem, "text", MARKER)
        monkeypatch.setattr(forgetting, "_tombstone", stop)
        with pytest.raises(forgetting.ForgetInterrupted, match="KeyboardInterrupt"):
            forgetting.forget(mem, plan)
        monkeypatch.undo()
        # What a listening server does on hearing of it: nothing, while its texts wait.
        assert forgetting.finish_forgets(mem, leave_waiting=True) == 0
        assert list((home / ".memoir" / "forget-pending").iterdir())
        assert forgetting.finish_forgets(mem) == 1
    assert _holding(home, MARKER) == []


def test_a_link_planted_for_the_texts_under_way_leaks_nothing(tmp_path: Path) -> None:
    """The texts of a forget wait in memoir's own folder: a link planted there is
    refused, nothing is written where it points, and nothing is forgotten by half."""
    home = tmp_path / "home"
    outside = tmp_path / "outside"
    outside.mkdir()
    with memoir.open(home, create=True) as mem, mem.start_session() as session:
        assert session.call_tool("memory", {"action": "add", "target": "memory",
                                            "content": f"Probe {MARKER} here."})["success"]
    (home / ".memoir" / "forget-pending").symlink_to(outside)
    refused = _memoir(home, "forget", "--text", MARKER, "-y")
    assert refused.returncode != 0 and "symbolic link" in refused.stderr
    assert list(outside.iterdir()) == []
    assert "journal.jsonl" in _holding(home, MARKER)  # as it was
    assert _memoir(home, "verify").returncode == 0


def _nested_forms(text: str, depth: int = 3) -> set[bytes]:
    """``text`` as a JSON string inside JSON strings, ``depth`` levels (written apart
    from memoir's own search, with the standard library's two escapings)."""
    forms, level = {text}, {text}
    for _ in range(depth):
        level = {json.dumps(t, ensure_ascii=a)[1:-1] for t in level for a in (True, False)}
        forms |= level
    return {f.encode() for f in forms}


def test_forget_finds_text_in_tool_call_arguments_whatever_it_escapes(tmp_path: Path) -> None:
    """A text holding a quote, a backslash, a newline and a non-ASCII letter, kept in
    a tool call's arguments (JSON inside a message inside a record) and echoed in a
    tool's error: `forget --text` given the text as the person knows it finds it at
    every depth, and no form of it is left under the home."""
    home = tmp_path / "home"
    secret = 'vault "K-88" at C:\\keys\\prod\nzoë'
    with memoir.open(home, create=True) as mem:
        with mem.start_session() as session:
            session.record_turn([
                {"role": "user", "content": "Save the vault note."},
                {"role": "assistant", "content": None, "tool_calls": [
                    {"id": "c1", "type": "function", "function": {
                        "name": "save_note", "arguments": json.dumps({"note": secret})}}]},
                {"role": "tool", "tool_call_id": "c1",
                 "content": "error: bad note " + json.dumps({"echo": secret})},
                {"role": "assistant", "content": "It failed."}])
        mem.flush()
    forms = _nested_forms(secret)

    def holding() -> list[str]:
        return sorted(p.relative_to(home).as_posix() for p in home.rglob("*")
                      if p.is_file() and not p.is_symlink()
                      and any(f in p.read_bytes() for f in forms))

    assert "journal.jsonl" in holding()
    done = _memoir(home, "--json", "forget", "--text", secret, "-y")
    assert done.returncode == 0, done.stderr
    assert holding() == []
    assert _memoir(home, "verify", "--deep").returncode == 0


def test_a_forgotten_short_text_cannot_be_found_again_from_its_tombstone(
        tmp_path: Path) -> None:
    """A tombstone keeps the digest of the salted payload, and the salt goes with the
    payload: hashing every 4-digit PIN in the payload as memoir writes it matches
    nothing (before salting, one of the 10,000 did), while the real salted payload
    still matches (the chain holds)."""
    from memoir.events.codec import payload_digest, payload_span, salt_of, tombstone_digest

    home = tmp_path / "home"
    with memoir.open(home, create=True) as mem:
        with mem.start_session() as session:
            assert session.call_tool("memory", {"action": "add", "target": "memory",
                                                "content": "Door code 4821."})["success"]
        mem.flush()
        entry = mem.state.memory.target("memory").entries[0].id
    (line,) = [ln for ln in (home / "journal.jsonl").read_bytes().splitlines()
               if b"Door code" in ln]
    span = payload_span(line)
    assert span is not None
    payload = line[span[0]:span[1]]
    salt = salt_of(payload)
    assert len(salt) == 24
    assert _memoir(home, "forget", "--text", "Door code", "-y").returncode == 0
    journal = (home / "journal.jsonl").read_bytes()
    assert salt.encode() not in journal and b"4821" not in journal
    (stone,) = [tombstone_digest(ln) for ln in journal.splitlines()
                if tombstone_digest(ln) is not None]
    assert payload_digest(payload) == stone  # the real bytes: the chain still holds

    def guess(pin: str) -> bytes:
        return json.dumps({"target": "memory", "entry_id": entry,
                           "text": f"Door code {pin}."}, separators=(",", ":")).encode()

    assert payload.endswith(guess("4821")[1:])  # the guess is how memoir writes it
    assert not any(payload_digest(guess(f"{n:04d}")) == stone for n in range(10_000))
    assert _memoir(home, "verify", "--deep").returncode == 0


def test_a_multi_line_text_is_found_where_its_lines_were_run_together(
        tmp_path: Path) -> None:
    """A session summary or a one-line log flattens a two-line secret to one line:
    forgetting the secret as it was given removes that copy too."""
    home = tmp_path / "home"
    with memoir.open(home, create=True) as mem:
        with mem.start_session() as session:
            assert session.call_tool("memory", {
                "action": "add", "target": "memory",
                "content": "Staging key block: -----KEY-ZQ41----- Ab7Cd9Ef"})["success"]
        mem.flush()
    done = _memoir(home, "forget", "--text", "-----KEY-ZQ41-----\n  Ab7Cd9Ef", "-y")
    assert done.returncode == 0, done.stderr
    assert _holding(home, "KEY-ZQ41") == []


def test_a_fragment_a_reviewer_kept_of_a_secret_goes_with_it(tmp_path: Path) -> None:
    """A reviewer that saved part of a secret — a key block's first line cut at its
    dashes, a token without its prefix — saved one of the secret's distinctive runs
    (letters and digits switching at least twice); forgetting the secret removes those
    entries too, and entries that share only ordinary words or versions stay."""
    from memoir.engine.forget.plan import pieces_of

    secret = "-----KEYR8TW-----\nXyZq4R8TWmNb2207"
    assert pieces_of(secret) == ["KEYR8TW", "XyZq4R8TWmNb2207"]
    assert pieces_of("sha256 python311 ipv6 x86_64 utf8 MARKER-Q7ZX-9931") == []
    home = tmp_path / "home"
    kept = ["Checksums are sha256; the build runs on python311.",
            "The staging project keeps its deploy key in the vault."]
    with memoir.open(home, create=True) as mem:
        with mem.start_session() as session:
            for text in ["Prefers the codename -----KEYR8TW.", "Token tail XyZq4R8TWmNb2207",
                         *kept]:
                assert session.call_tool("memory", {
                    "action": "add", "target": "user", "content": text})["success"]
        mem.flush()
    done = _memoir(home, "forget", "--text", secret, "-y")
    assert done.returncode == 0, done.stderr
    assert _holding(home, "R8TW") == []
    with memoir.open(home) as mem:
        assert mem.state.memory.target("user").texts() == kept
