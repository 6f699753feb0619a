"""The PostgreSQL journal as a user meets it: `memoir init --journal URL` on two
"machines" (two folders), each seeing and rendering what the other writes; what is
refused (a password in config.yaml, another scheme, a file journal already there,
another application's tables, a newer schema); the database keeping records
append-only; and following another machine's writes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

import memoir
from memoir.errors import JournalCorrupted, JournalError
from memoir.journal.postgres import PostgresJournal
from tests.commands.test_log_follow import Follower
from tests.support.paths import REPO
from tests.support.postgres import Cluster, private_cluster
from tests.support.signing import admit


def _memoir(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, "PYTHONPATH": str(REPO), "MEMOIR_DURABILITY": "always", **(env or {})}
    return subprocess.run([sys.executable, "-m", "memoir", *args], capture_output=True,
                          text=True, timeout=120, env=full)


def _own_schema(url: str) -> str:
    import secrets

    from tests.support.postgres import in_schema

    return in_schema(url, f"j_{secrets.token_hex(5)}")


def _two_machines(tmp_path: Path, url: str) -> tuple[Path, Path]:
    """Two homes on the journal at ``url``: the first one's init makes it the owner of
    the (signed) journal; it admits the second."""
    a, b = tmp_path / "laptop", tmp_path / "server"
    for home in (a, b):
        done = _memoir("--home", str(home), "init", "--journal", url)
        assert done.returncode == 0, done.stderr
    admit(_memoir, a, b)
    return a, b


def test_two_homes_share_one_journal_and_render_the_same_files(
        tmp_path: Path, pg_url: str) -> None:
    a, b = _two_machines(tmp_path, pg_url)
    assert not (a / "journal.jsonl").exists()
    assert "url:" in (a / "config.yaml").read_text(encoding="utf-8")
    assert _memoir("--home", str(a), "memory", "add", "The build uses make.").returncode == 0
    assert _memoir("--home", str(b), "memory", "add", "-t", "user", "Name: Ada.").returncode == 0
    with memoir.open(a) as left, memoir.open(b) as right:
        assert left.head == right.head
        left.flush()
        right.flush()
        for rel in ("memories/MEMORY.md", "memories/USER.md"):
            assert (a / rel).read_bytes() == (b / rel).read_bytes(), rel
        assert (a / "memories/USER.md").read_text(encoding="utf-8") == "Name: Ada."
        seqs = [e.seq for e in left.journal.read()]
        assert seqs == list(range(1, len(seqs) + 1))
    # A revert on one machine is seen by the other.
    runs = json.loads(_memoir("--home", str(a), "--json", "runs").stdout)
    mine = next(r["run"] for r in runs if r["summary"] == "memory add (user)")
    assert _memoir("--home", str(a), "revert", mine).returncode == 0
    with memoir.open(b) as right:
        assert right.state.memory.target("user").texts() == []
    assert _memoir("--home", str(b), "verify").returncode == 0


def test_two_processes_write_into_one_gapless_sequence(tmp_path: Path, pg_url: str) -> None:
    """Two writers, started together, each adding and removing its own entries: the
    sequence is gapless, and each process decided every write on the whole journal
    before it (a writer that catches up before it holds the lock folds past the other's
    records and keeps entries the other removed: its state leaves the journal's)."""
    a, b = _two_machines(tmp_path, pg_url)
    code = ("import json, memoir, sys\n"
            "with memoir.open(sys.argv[1]) as mem, mem.start_session() as s:\n"
            "    print('ready', flush=True)\n"
            "    sys.stdin.readline()\n"
            "    for i in range(40):\n"
            "        text = f'{sys.argv[2]} fact {i}'\n"
            "        r = s.call_tool('memory', {'action': 'add', 'target': 'memory',\n"
            "                                   'content': text})\n"
            "        assert r['success'], r\n"
            "        if i % 4:\n"
            "            r = s.call_tool('memory', {'action': 'remove', 'target': 'memory',\n"
            "                                       'old_text': text})\n"
            "            assert r['success'], r\n"
            "    state = mem.state  # once: the other writer may still be appending\n"
            "    print(json.dumps([state.seq, state.memory.target('memory').texts()]))\n")
    procs = [subprocess.Popen([sys.executable, "-c", code, str(home), name], text=True,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              env={**os.environ, "PYTHONPATH": str(REPO)})
             for home, name in ((a, "laptop"), (b, "server"))]
    for proc in procs:
        assert proc.stdout is not None and proc.stdout.readline() == "ready\n"
    for proc in procs:
        assert proc.stdin is not None
        proc.stdin.write("go\n")
        proc.stdin.flush()
    outs = [proc.communicate(timeout=120)[0] for proc in procs]
    assert [p.returncode for p in procs] == [0, 0]
    journal = PostgresJournal(pg_url)
    try:
        events = list(journal.read())
        assert [e.seq for e in events] == list(range(1, len(events) + 1))
        texts = [e.data.text for e in events if e.type == "memory.entry_added"]  # type: ignore[attr-defined]
        assert sorted(texts) == sorted(f"{n} fact {i}" for n in ("laptop", "server")
                                       for i in range(40))
        assert journal.verify().records == len(events)
        folded = memoir.State()
        folded.apply_all(events)
        kept = folded.memory.target("memory").texts()
        assert sorted(kept) == sorted(f"{n} fact {i}" for n in ("laptop", "server")
                                      for i in range(0, 40, 4))
        for out in outs:
            head, live = json.loads(out)
            # What each process holds is the fold of the journal up to its head.
            upto = memoir.State()
            upto.apply_all(e for e in events if e.seq <= head)
            assert live == upto.memory.target("memory").texts()
    finally:
        journal.close()


def test_what_is_refused_and_why(tmp_path: Path, pg_url: str, pg_database: str) -> None:
    home = tmp_path / "home"
    with_password = pg_url.replace("postgres@", "postgres:s3cret@")
    done = _memoir("--home", str(home), "init", "--journal", with_password)
    assert done.returncode == 2 and "a password never goes into config.yaml" in done.stderr
    assert "s3cret" not in done.stderr and not home.exists()
    done = _memoir("--home", str(home), "init", "--journal", "mysql://x@h/db")
    assert done.returncode == 2 and "not a PostgreSQL URL" in done.stderr
    # A folder that already has a file journal: the fix is `journal copy`.
    filed = tmp_path / "filed"
    assert _memoir("--home", str(filed), "init").returncode == 0
    done = _memoir("--home", str(filed), "init", "--journal", pg_url)
    assert done.returncode == 4 and "journal copy" in done.stderr
    # config.yaml holding a password is refused, naming the line.
    (filed / "config.yaml").write_text(f"journal:\n  url: {with_password}\n",
                                       encoding="utf-8")
    done = _memoir("--home", str(filed), "config", "check")
    assert done.returncode == 1 and "config.yaml:2: journal.url: holds a password" in \
        done.stderr and "s3cret" not in done.stderr
    # From the environment it may carry one, and nothing shows it.
    (filed / "config.yaml").write_text("journal:\n  durability: always\n", encoding="utf-8")
    shown = _memoir("--home", str(filed), "config", "show",
                    env={"MEMOIR_JOURNAL_URL": "postgresql://u:s3cret@127.0.0.1:1/db"})
    assert "postgresql://u:***@127.0.0.1:1/db" in shown.stdout and "s3cret" not in shown.stdout
    down = _memoir("--home", str(filed), "status",
                   env={"MEMOIR_JOURNAL_URL": "postgresql://u:s3cret@127.0.0.1:1/db",
                        "MEMOIR_PG_RETRY": "0.2"})
    assert down.returncode == 1 and "is PostgreSQL running?" in down.stderr
    # The notice that it waits, then the error: a line each.
    said = down.stderr.strip().splitlines()
    assert "s3cret" not in down.stderr and len(said) == 2 and "retrying for 0.2 s" in said[0]
    # A database holding another application's tables.
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("CREATE TABLE invoices (id int)")
    with pytest.raises(JournalError, match="other tables"):
        PostgresJournal(pg_url, create=True)
    # No journal there and no create: says how to make one.
    with pytest.raises(JournalError, match="memoir init --journal"):
        PostgresJournal(pg_url)


def test_a_newer_schema_is_refused(pg_url: str) -> None:
    PostgresJournal(pg_url, create=True).close()
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("UPDATE memoir_meta SET value = '99' WHERE key = 'schema_version'")
    with pytest.raises(JournalError, match="schema version 99 is newer"):
        PostgresJournal(pg_url)


def test_the_database_keeps_records_append_only_and_verify_catches_a_superuser(
        tmp_path: Path, pg_url: str) -> None:
    a, _b = _two_machines(tmp_path, pg_url)
    assert _memoir("--home", str(a), "memory", "add", "The build uses make.").returncode == 0
    with psycopg.connect(pg_url, autocommit=True) as conn:
        for sql in ("UPDATE memoir_records SET type = 'x' WHERE seq = 1",
                    "DELETE FROM memoir_records WHERE seq = 1",
                    "TRUNCATE memoir_records"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege, match="append-only"):
                conn.execute(sql)
        # A superuser can get round the trigger; the chain still tells.
        conn.execute("ALTER TABLE memoir_records DISABLE TRIGGER USER")
        conn.execute("UPDATE memoir_records SET line = convert_to(replace(convert_from("
                     "line, 'UTF8'), 'make', 'mako'), 'UTF8') WHERE type = "
                     "'memory.entry_added'")
        conn.execute("ALTER TABLE memoir_records ENABLE TRIGGER USER")
    done = _memoir("--home", str(a), "verify")
    assert done.returncode == 6 and "hash does not match" in done.stderr
    journal = PostgresJournal(pg_url)
    try:
        with pytest.raises(JournalCorrupted, match=r"seq \d+: hash does not match"):
            journal.verify()
    finally:
        journal.close()


def test_follow_sees_another_machines_write_within_a_second(
        tmp_path: Path, pg_url: str) -> None:
    a, b = _two_machines(tmp_path, pg_url)
    follower = Follower(a, "-n", "0")
    try:
        start = time.monotonic()
        assert _memoir("--home", str(b), "memory", "add", "Deploys need the VPN.").returncode == 0
        written = time.monotonic()
        seen = [follower.next(), follower.next()]
        latency = time.monotonic() - written
        assert [e["type"] for e in seen] == ["run.started", "memory.entry_added"]
        assert seen[1]["data"]["text"] == "Deploys need the VPN."
        assert latency < 10, (latency, written - start)  # a loaded machine's bound
    finally:
        code, err = follower.stop()
    assert code == 0, err


def test_journal_copy_moves_every_record_byte_for_byte_and_back(
        tmp_path: Path, pg_url: str) -> None:
    home = tmp_path / "home"
    assert _memoir("demo", "--home", str(home)).returncode == 0
    original = (home / "journal.jsonl").read_bytes()
    log_before = _memoir("--home", str(home), "--json", "log", "--oldest-first").stdout
    done = _memoir("--home", str(home), "--json", "journal", "copy", pg_url)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["records"] == original.count(b"\n")
    # Into a database that already holds records: refused, nothing written.
    again = _memoir("--home", str(home), "journal", "copy", pg_url)
    assert again.returncode == 4 and "copy into an empty database" in again.stderr
    # The home switched to the database reads the same journal.
    (home / "journal.jsonl").rename(tmp_path / "kept.jsonl")
    (home / "config.yaml").write_text(f'journal:\n  url: "{pg_url}"\n', encoding="utf-8")
    # A hand-edited config.yaml is not a say-so: refused until attached.
    refused = _memoir("--home", str(home), "log")
    assert refused.returncode != 0 and "journal attach" in refused.stderr
    attached = _memoir("--home", str(home), "--json", "journal", "attach")
    assert json.loads(attached.stdout) == {"url": pg_url, "attached": True, "already": False}
    assert _memoir("--home", str(home), "--json", "log", "--oldest-first").stdout == log_before
    assert _memoir("--home", str(home), "verify").returncode == 0
    back = tmp_path / "back.jsonl"
    assert _memoir("--home", str(home), "journal", "copy", str(back)).returncode == 0
    assert back.read_bytes() == original
    exists = _memoir("--home", str(home), "journal", "copy", str(back))
    assert exists.returncode == 4 and "already exists" in exists.stderr


def test_watch_writes_another_machines_changes_into_this_folder(
        tmp_path: Path, pg_url: str) -> None:
    from tests.commands.test_watch import Watcher

    a, b = _two_machines(tmp_path, pg_url)
    watcher = Watcher(a)
    try:
        assert watcher.next()["action"] == "watching"
        assert _memoir("--home", str(b), "memory", "add", "Deploys need the VPN.").returncode == 0
        memory_md = a / "memories" / "MEMORY.md"
        deadline = time.monotonic() + 60
        while not (memory_md.exists() and
                   memory_md.read_text(encoding="utf-8") == "Deploys need the VPN."):
            assert time.monotonic() < deadline, "the watcher never wrote the other's write"
            time.sleep(0.05)
    finally:
        code, err = watcher.stop()
    assert code == 0, err


def test_a_conversation_recorded_on_one_machine_is_found_on_another(
        tmp_path: Path, pg_url: str) -> None:
    a, b = _two_machines(tmp_path, pg_url)
    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps([
        {"role": "user", "content": "The nightly ETL job keeps timing out on Nomad."},
        {"role": "assistant", "content": "Raise its timeout to 2h."}]), encoding="utf-8")
    assert _memoir("--home", str(a), "sessions", "import", str(chat)).returncode == 0
    assert not (b / ".memoir" / "transcripts").exists() or not any(
        (b / ".memoir" / "transcripts").glob("pack-*"))
    found = _memoir("--home", str(b), "--json", "sessions", "search", "nomad")
    assert found.returncode == 0, found.stderr
    hits = json.loads(found.stdout)
    assert hits and "Nomad" in hits[0]["snippet"]
    shown = _memoir("--home", str(b), "sessions", "show", hits[0]["session"])
    assert "The nightly ETL job keeps timing out on Nomad." in shown.stdout


def test_a_writer_whose_connection_was_cut_reconnects_by_itself(
        pg_url: str, caplog: pytest.LogCaptureFixture) -> None:
    from tests.journal.test_journal_conformance import added

    journal = PostgresJournal(pg_url, create=True)
    try:
        journal.append([added("before the cut")])
        # The server ends every memoir connection (as a restart or an admin would).
        with psycopg.connect(pg_url, autocommit=True) as admin:
            cut = admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                                "WHERE application_name = 'memoir' AND datname = "
                                "current_database()").fetchall()
        assert cut
        with caplog.at_level("WARNING", logger="memoir"):
            (event,) = journal.append([added("after the cut", entry="e-000000000002")])
        assert event.seq == 2
        assert any("journal.reconnect" in r.getMessage() for r in caplog.records)
        assert [e.seq for e in journal.read()] == [1, 2]
        assert journal.verify().records == 2
    finally:
        journal.close()


def test_backup_of_a_database_home_restores_as_a_file_home(tmp_path: Path, pg_url: str) -> None:
    a, _b = _two_machines(tmp_path, pg_url)
    assert _memoir("--home", str(a), "memory", "add", "The build uses make.").returncode == 0
    archive = tmp_path / "a.tar.gz"
    assert _memoir("--home", str(a), "backup", str(archive)).returncode == 0
    restored = tmp_path / "restored"
    done = _memoir("--home", str(restored), "restore", str(archive))
    assert done.returncode == 0, done.stderr
    assert "journal.url" in done.stdout + done.stderr  # the config is put aside
    before = _memoir("--home", str(a), "--json", "log", "--oldest-first").stdout
    assert _memoir("--home", str(restored), "--json", "log", "--oldest-first").stdout == before
    assert (restored / "journal.jsonl").is_file()
    assert _memoir("--home", str(restored), "verify").returncode == 0


def test_upgrade_brings_a_version_1_database_up_to_date(tmp_path: Path, pg_url: str) -> None:
    a, _b = _two_machines(tmp_path, pg_url)
    assert _memoir("--home", str(a), "memory", "add", "Kept across the upgrade.").returncode == 0
    with psycopg.connect(pg_url, autocommit=True) as conn:  # as memoir made it at version 1
        conn.execute("DROP TABLE memoir_seals, memoir_sync")
        conn.execute("UPDATE memoir_meta SET value = '1' WHERE key = 'schema_version'")
    refused = _memoir("--home", str(a), "status")
    assert refused.returncode == 6, refused.stderr
    assert "missing memoir_seals, memoir_sync" in refused.stderr
    assert "`memoir journal upgrade` brings them up to date" in refused.stderr
    done = _memoir("--home", str(a), "--json", "journal", "upgrade")
    assert done.returncode == 0, done.stderr
    upgraded = json.loads(done.stdout)
    assert upgraded["signing"]["on"] and not upgraded["signing"]["started"]
    assert {k: upgraded[k] for k in ("schema_version", "current", "upgraded", "from")} == \
        {"schema_version": 3, "current": 3, "upgraded": True, "from": 1}
    again = _memoir("--home", str(a), "journal", "upgrade")
    assert "already at schema version 3" in again.stdout
    assert _memoir("--home", str(a), "memory", "add", "Written after it.").returncode == 0
    with memoir.open(a) as home:
        assert home.state.memory.target("memory").texts() == ["Kept across the upgrade.",
                                                              "Written after it."]


@pytest.mark.parametrize("committed", [True, False])
def test_a_connection_lost_at_commit_leaves_the_append_once_or_not_at_all(
        pg_url: str, monkeypatch: pytest.MonkeyPatch, committed: bool) -> None:
    """The outcome of a COMMIT whose answer never came is read back from the journal:
    present once (acknowledged after all), or absent (refused: nothing written)."""
    from memoir.errors import JournalUnavailable
    from tests.journal.test_journal_conformance import added

    journal = PostgresJournal(pg_url, create=True)
    try:
        journal.append([added("first")])
        real_commit = journal.database._commit_append

        def lost_commit(conn: Any, sql: str, params: Any) -> None:
            if committed:
                real_commit(conn, sql, params)
            conn.close()  # the answer never comes: the connection is gone (and with it
            # a transaction that had not committed)
            raise psycopg.OperationalError("server closed the connection unexpectedly")

        monkeypatch.setattr(journal.database, "_commit_append", lost_commit)
        if committed:
            (event,) = journal.append([added("second", entry="e-000000000002")])
            assert event.seq == 2
        else:
            with pytest.raises(JournalUnavailable, match="did not reach the journal"):
                journal.append([added("second", entry="e-000000000002")])
        texts = [e.data.text for e in journal.read()]  # type: ignore[attr-defined]
        assert texts == (["first", "second"] if committed else ["first"])
        # The writer carries on, on a new connection.
        monkeypatch.setattr(journal.database, "_commit_append", real_commit)
        (after,) = journal.append([added("third", entry="e-000000000003")])
        assert after.seq == len(texts) + 1
        assert journal.verify().records == len(texts) + 1
    finally:
        journal.close()


@pytest.fixture(scope="module")
def private_server() -> Iterator[Cluster]:
    """A PostgreSQL cluster of this module's own: restarting or stopping the machine's
    server would cut every other test's connections."""
    yield from private_cluster()


def test_writers_carry_on_across_a_server_restart(
        private_server: Cluster, caplog: pytest.LogCaptureFixture) -> None:
    import threading

    from memoir.errors import ConflictError, JournalUnavailable
    from tests.journal.test_journal_conformance import added

    url, restart = private_server.url, private_server.restart
    journal = PostgresJournal(url, create=True)
    acked: list[str] = []
    failed = 0
    stop = threading.Event()

    def write() -> None:
        nonlocal failed
        i = 0
        while not stop.is_set():
            i += 1
            try:
                (event,) = journal.append([added(f"fact {i}", entry=f"e-{i:012x}")])
                acked.append(event.id)
            except (JournalUnavailable, ConflictError):
                failed += 1  # not acknowledged: present once or absent, never twice
                time.sleep(0.01)

    def wait_for(count: int) -> None:
        deadline = time.monotonic() + 120
        while len(acked) < count:
            assert time.monotonic() < deadline, f"only {len(acked)} appends acknowledged"
            time.sleep(0.01)

    writer = threading.Thread(target=write)
    with caplog.at_level("WARNING", logger="memoir"):
        writer.start()
        try:
            wait_for(20)
            restart()
            wait_for(len(acked) + 20)  # the writer is back by itself
        finally:
            stop.set()
            writer.join(timeout=120)
    try:
        events = list(journal.read())
        ids = [e.id for e in events]
        assert [e.seq for e in events] == list(range(1, len(events) + 1))
        assert len(ids) == len(set(ids))  # nothing twice
        assert set(acked) <= set(ids)  # every acknowledged append is there
        assert journal.verify().records == len(events)
        assert any("journal.reconnect" in r.getMessage() for r in caplog.records)
    finally:
        journal.close()


def test_a_command_waits_for_a_server_that_is_starting(tmp_path: Path,
                                                      private_server: Cluster) -> None:
    """The server is down when `memoir log` starts: it says on stderr that it waits,
    and goes on once the server is up.  Down for longer than the window: the one-line
    error, exit 1."""
    home = tmp_path / "home"
    # A schema of the test's own: the first home of a journal owns it.
    done = _memoir("--home", str(home), "init", "--journal", _own_schema(private_server.url))
    assert done.returncode == 0, done.stderr
    assert _memoir("--home", str(home), "memory", "add", "Deploys go through CI.").returncode == 0
    private_server.stop()
    try:
        quick = _memoir("--home", str(home), "log", env={"MEMOIR_PG_RETRY": "0.3"})
        assert quick.returncode == 1, quick.stderr
        assert "is PostgreSQL running?" in quick.stderr
        assert len(quick.stderr.strip().splitlines()) <= 2, quick.stderr
        waiting = subprocess.Popen(
            [sys.executable, "-m", "memoir", "--home", str(home), "--json", "log"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env={**os.environ, "PYTHONPATH": str(REPO), "MEMOIR_PG_RETRY": "120"})
        assert waiting.stderr is not None
        said = waiting.stderr.readline()  # the readiness signal: it is waiting
        assert "journal.server_unavailable" in said and "retrying_for" in said, said
    finally:
        private_server.start()
    out, err = waiting.communicate(timeout=120)
    assert waiting.returncode == 0, err
    assert "Deploys go through CI." in out


def test_open_waits_for_a_server_that_is_starting(tmp_path: Path, private_server: Cluster,
                                                   caplog: pytest.LogCaptureFixture,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """`memoir.open()` in a host's process: the same wait, said through logging."""
    home = tmp_path / "home"
    # A schema of the test's own: the first home of a journal owns it.
    done = _memoir("--home", str(home), "init", "--journal", _own_schema(private_server.url))
    assert done.returncode == 0, done.stderr
    import threading

    from memoir.errors import JournalUnavailable
    from memoir.journal.postgres import database as pg_database

    monkeypatch.setenv("MEMOIR_PG_RETRY", "0.2")
    private_server.stop()
    try:
        with pytest.raises(JournalUnavailable, match="is PostgreSQL running"):
            memoir.open(home)
        monkeypatch.setenv("MEMOIR_PG_RETRY", "120")
        waiting = threading.Event()
        real = pg_database.log.warning

        def noted(event: str, **fields: Any) -> None:
            real(event, **fields)
            if event == "journal.server_unavailable":
                waiting.set()

        monkeypatch.setattr(pg_database.log, "warning", noted)
        opened: list[memoir.Memoir] = []
        opener = threading.Thread(target=lambda: opened.append(memoir.open(home)))
        with caplog.at_level("WARNING", logger="memoir"):
            opener.start()
            assert waiting.wait(120)
    finally:
        private_server.start()
    opener.join(timeout=120)
    assert opened
    with opened[0] as mem:
        with mem.start_session() as session:
            added = session.call_tool("memory", {"action": "add", "content": "Back."})
        assert added["success"], added
    assert any("journal.server_unavailable" in r.getMessage() for r in caplog.records)


def test_init_journal_adds_the_url_to_an_existing_config(tmp_path: Path, pg_url: str) -> None:
    import yaml

    home = tmp_path / "home"
    home.mkdir()
    # Another key ending in "url:" must not be taken for journal.url.
    (home / "config.yaml").write_text("# mine\nreviewers:\n  llm:\n    base_url: http://x\n",
                                      encoding="utf-8")
    assert _memoir("--home", str(home), "init", "--journal", pg_url).returncode == 0
    data = yaml.safe_load((home / "config.yaml").read_text(encoding="utf-8"))
    assert data["journal"]["url"] == pg_url and data["reviewers"]["llm"]["base_url"]
    assert (home / "config.yaml").read_text(encoding="utf-8").startswith("# mine\n")
    assert _memoir("--home", str(home), "memory", "add", "Kept in the database.").returncode == 0
    assert not (home / "journal.jsonl").exists()
    journal = PostgresJournal(pg_url)
    try:
        assert any(e.type == "memory.entry_added" for e in journal.read())
    finally:
        journal.close()


def test_a_keyed_shared_journal_keeps_its_seals_in_the_database(
        tmp_path: Path, pg_url: str) -> None:
    """With a key, every append is sealed in its own transaction, in the database: each
    machine checks the seals the others wrote; the database refuses to change them; a
    superuser who removes them is caught; a copy carries them."""
    from memoir.engine.seals import Seals
    from memoir.journal import FileJournal

    key = {"MEMOIR_KEY": "a key of more than sixteen bytes"}
    a, b = tmp_path / "laptop", tmp_path / "server"
    for home in (a, b):
        done = _memoir("--home", str(home), "init", "--journal", pg_url, env=key)
        assert done.returncode == 0, done.stderr
    admit(_memoir, a, b, env=key)
    assert _memoir("--home", str(a), "memory", "add", "Laptop fact.", env=key).returncode == 0
    assert _memoir("--home", str(b), "memory", "add", "Server fact.", env=key).returncode == 0
    for home in (a, b):
        done = _memoir("--home", str(home), "verify", env=key)
        assert done.returncode == 0, done.stderr
        assert "4 seal(s) checked, every record sealed" in done.stdout
        assert not (home / ".memoir" / "seals.jsonl").exists()
    with psycopg.connect(pg_url, autocommit=True) as conn:
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="append-only"):
            conn.execute("DELETE FROM memoir_seals")
        lines = [bytes(r[0]) for r in conn.execute("SELECT line FROM memoir_seals ORDER BY seq")]
    # A copy to a file carries them beside it, and they check there.
    dest = tmp_path / "copy" / "journal.jsonl"
    copied = _memoir("--home", str(a), "--json", "journal", "copy", str(dest), env=key)
    assert copied.returncode == 0, copied.stderr
    assert json.loads(copied.stdout)["seals"] == 4
    assert (dest.parent / ".memoir" / "seals.jsonl").read_bytes() == b"".join(
        line + b"\n" for line in lines)
    with FileJournal(dest, readonly=True) as journal:
        check = Seals(dest.parent, key["MEMOIR_KEY"].encode()).check(journal)
        assert (check.checked, check.problems) == (4, [])
    # A superuser goes around the trigger: verify says what is no longer sealed.
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("ALTER TABLE memoir_seals DISABLE TRIGGER USER")
        conn.execute("DELETE FROM memoir_seals WHERE seq = (SELECT max(seq) FROM memoir_seals)")
    broken = _memoir("--home", str(b), "verify", env=key)
    assert broken.returncode == 6
    assert "are not sealed" in broken.stdout + broken.stderr
    # Without the key, verify says the seals were not checked.
    unkeyed = _memoir("--home", str(b), "verify")
    assert unkeyed.returncode == 0 and "seal" in unkeyed.stdout + unkeyed.stderr


def _wait_for_text(path: Path, text: str, timeout: float = 30.0) -> float:
    """Seconds until ``path`` holds ``text`` (fails after ``timeout``)."""
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        if path.exists() and text in path.read_text(encoding="utf-8"):
            return time.monotonic() - started
        time.sleep(0.02)
    raise AssertionError(f"{path} never held {text!r}")


def test_an_idle_mcp_server_writes_another_machines_memory_into_its_folder(
        tmp_path: Path, pg_url: str) -> None:
    """No request reaches the server on the laptop: it hears of the server machine's
    commit (LISTEN/NOTIFY) and writes MEMORY.md by itself."""
    from tests.integrations.test_mcp import INIT, _raw_server, _receive, _send

    a, b = _two_machines(tmp_path, pg_url)
    server = _raw_server(a)
    try:
        _send(server, INIT)  # answered: the server is up, and following since it started
        assert "result" in _receive(server, 1)
        assert _memoir("--home", str(b), "memory", "add", "Deploys go out on Fridays.",
                       ).returncode == 0
        took = _wait_for_text(a / "memories" / "MEMORY.md", "Deploys go out on Fridays.")
        assert took < 10, took
    finally:
        assert server.stdin is not None
        server.stdin.close()
        server.wait(timeout=60)
    assert server.returncode == 0


def test_the_hermes_provider_follows_another_machine_until_shutdown(
        tmp_path: Path, pg_url: str) -> None:
    from memoir.integrations.hermes_provider import MemoirHermes

    a, b = _two_machines(tmp_path, pg_url)
    provider = MemoirHermes(a)
    provider.initialize("20261125_101010_abcdef", platform="cli")
    assert provider.memoir is not None
    tail = provider.memoir.follow()  # the one the provider opened its home with
    try:
        assert tail.running
        assert _memoir("--home", str(b), "memory", "add", "-t", "user", "Prefers tea.",
                       ).returncode == 0
        _wait_for_text(a / "memories" / "USER.md", "Prefers tea.")
    finally:
        provider.shutdown()
    assert not tail.running and provider.memoir is None


def test_a_writer_killed_mid_transaction_leaves_nothing_and_holds_nothing(
        tmp_path: Path, pg_url: str) -> None:
    """kill -9 of a writer whose rows are inserted but not committed: the server drops
    its transaction and its lock; the next writer appends at once after the last
    committed record, and the killed writer's home opens with no repair."""
    a, b = _two_machines(tmp_path, pg_url)
    assert _memoir("--home", str(a), "memory", "add", "Committed before.").returncode == 0
    code = ("import sys, time, memoir\n"
            "from memoir.journal.postgres.append import Appending\n"
            "def stuck(self, conn, sql, params):\n"
            "    conn.execute(sql, params)  # the rows, without the COMMIT\n"
            "    print('inserted', flush=True)\n"
            "    time.sleep(3600)\n"
            "Appending._commit_append = stuck\n"
            "with memoir.open(sys.argv[1]) as mem, mem.start_session() as s:\n"
            "    s.call_tool('memory', {'action': 'add', 'target': 'memory',\n"
            "                           'content': 'Never committed.'})\n")
    proc = subprocess.Popen([sys.executable, "-c", code, str(a)], stdout=subprocess.PIPE,
                            text=True, env={**os.environ, "PYTHONPATH": str(REPO)})
    try:
        assert proc.stdout is not None and proc.stdout.readline() == "inserted\n"
    finally:
        proc.kill()
        proc.wait(timeout=60)
    done = _memoir("--home", str(b), "memory", "add", "Written after the kill.")
    assert done.returncode == 0, done.stderr
    with memoir.open(a) as home:
        assert home.state.memory.target("memory").texts() == ["Committed before.",
                                                              "Written after the kill."]
        events = list(home.journal.read())
        assert [e.seq for e in events] == list(range(1, len(events) + 1))
    assert _memoir("--home", str(a), "verify").returncode == 0


def test_a_writer_far_behind_reads_everything_it_missed_under_the_lock(pg_url: str) -> None:
    """The lock brings at most FRESH records with it; a writer further behind reads the
    rest as usual, checked against the chain, before it decides."""
    from memoir.journal.postgres.database import FRESH
    from tests.journal.test_journal_conformance import added, batch

    behind = PostgresJournal(pg_url, create=True)
    ahead = PostgresJournal(pg_url)
    try:
        behind.append([added("first")])
        assert [e.seq for e in behind.read()] == [1]  # it knows seq 1
        for k in range(0, FRESH + 500, 250):
            ahead.append(batch(250, prefix=f"m{k}"))
        head = ahead.head()
        with behind.locked() as writer:
            missed = [e.seq for e in behind.read(after=1)]
            assert missed == list(range(2, head + 1))
            (mine,) = writer.append([added("after all of them")])
        assert mine.seq == head + 1
        # Under the lock again, nothing new: the caught-up check needs no query.
        with behind.locked():
            assert behind.caught_up_to(head + 1)
    finally:
        behind.close()
        ahead.close()


def test_status_names_the_shared_journal_and_never_its_password(
        tmp_path: Path, pg_url: str) -> None:
    a, _b = _two_machines(tmp_path, pg_url)
    with_password = pg_url.replace("postgres@", "postgres:sekrit-pass@", 1)
    env = {"MEMOIR_JOURNAL_URL": with_password, "MEMOIR_KEY": "a key of more than sixteen bytes"}
    done = _memoir("--home", str(a), "--json", "status", env=env)
    assert done.returncode == 0, done.stderr
    shown = json.loads(done.stdout)["journal"]
    assert shown.pop("signing")["on"] is True
    assert shown == {
        "kind": "postgresql", "where": pg_url.replace("postgres@", "postgres:***@", 1),
        "schema_version": 3, "sealed": True}
    text = _memoir("--home", str(a), "status", env=env)
    assert "sekrit" not in text.stdout + text.stderr and "(postgresql, schema 3" in text.stdout


def test_a_writer_role_with_the_documented_grants_appends_and_doctor_says_so(
        tmp_path: Path, pg_url: str) -> None:
    """docs/postgres.md's GRANTs are enough to append, and no more: the role cannot
    delete a record; `memoir doctor` says so, and warns about a superuser."""
    import secrets

    a, _b = _two_machines(tmp_path, pg_url)

    def database_check(env: dict[str, str] | None = None) -> dict[str, str]:
        done = _memoir("--home", str(a), "--json", "doctor", env=env)
        return next(c for c in json.loads(done.stdout)["checks"] if c["check"] == "database")

    assert database_check()["status"] == "warn"  # the tests connect as a superuser
    role = f"memoir_writer_{secrets.token_hex(4)}"
    with psycopg.connect(pg_url, autocommit=True) as conn:
        schema = conn.execute("SELECT current_schema()").fetchone()[0]  # type: ignore[index]
        conn.execute(f"CREATE ROLE {role} LOGIN")
        conn.execute(f"GRANT USAGE ON SCHEMA {schema} TO {role}")
        conn.execute(f"GRANT SELECT, INSERT ON memoir_records, memoir_seals, "
                     f"memoir_transcripts TO {role}")
        conn.execute(f"GRANT SELECT ON memoir_meta TO {role}")
        conn.execute(f"GRANT SELECT, INSERT, UPDATE ON memoir_sync TO {role}")
    try:
        env = {"MEMOIR_JOURNAL_URL": pg_url.replace("postgres@", f"{role}@", 1)}
        check = database_check(env)
        assert check["status"] == "ok", check
        assert "cannot change a record" in check["detail"]
        added = _memoir("--home", str(a), "memory", "add", "Written by the writer role.",
                        env=env)
        assert added.returncode == 0, added.stderr
        with psycopg.connect(env["MEMOIR_JOURNAL_URL"], autocommit=True) as conn, \
                pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("DELETE FROM memoir_records")
        # Nor may it forget: refused before anything is journaled.
        head = json.loads(_memoir("--home", str(a), "--json", "status", env=env).stdout)["head"]
        refused = _memoir("--home", str(a), "forget", "--text", "Written by the writer role",
                          "-y", env=env)
        assert refused.returncode == 4 and "may not forget" in refused.stderr
        assert json.loads(_memoir("--home", str(a), "--json", "status",
                                  env=env).stdout)["head"] == head
    finally:
        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.execute(f"DROP OWNED BY {role}")
            conn.execute(f"DROP ROLE {role}")


def test_forget_on_a_shared_journal_leaves_nothing_in_the_database(
        tmp_path: Path, pg_url: str) -> None:
    """memoir forget rewrites the rows through the one change the trigger lets through;
    the other machine finishes its own part with --finish; a writer role may not forget."""
    marker = "QUOKKA-LANTERN-5512"
    a, b = _two_machines(tmp_path, pg_url)
    code = ("import memoir, sys\n"
            "with memoir.open(sys.argv[1]) as mem, mem.start_session() as s:\n"
            f"    s.record_turn([{{'role': 'user', 'content': 'Host {marker} is ours.'}},\n"
            "                   {'role': 'assistant', 'content': 'Noted.'}])\n")
    # b records the conversation: its body is in b's pack and the shared table, never
    # in a's folder, and a's forget must find it in the database.
    assert subprocess.run([sys.executable, "-c", code, str(b)], timeout=120,
                          env={**os.environ, "PYTHONPATH": str(REPO)}).returncode == 0
    assert _memoir("--home", str(a), "memory", "add", f"The host is {marker}.").returncode == 0
    assert _memoir("--home", str(b), "status").returncode == 0  # b folded it too
    with psycopg.connect(pg_url, autocommit=True) as conn:
        # A row under a name no pack has (any writer role can insert one): not memoir's,
        # and it must not make the forget's record invalid.
        conn.execute("INSERT INTO memoir_transcripts VALUES (%s, %s)",
                     ("../../x:0:10:abc", f"stray {marker}".encode()))

        def in_database() -> int:
            rows = conn.execute(
                "SELECT (SELECT count(*) FROM memoir_records WHERE position(%s in line) > 0) "
                "+ (SELECT count(*) FROM memoir_transcripts WHERE position(%s in body) > 0 "
                "AND ref NOT LIKE '../%%')",
                (marker.encode(), marker.encode())).fetchone()
            return int(rows[0])  # type: ignore[index]

        assert in_database() >= 2
        assert not any(marker.encode() in p.read_bytes() for p in
                       (a / ".memoir" / "transcripts").glob("*"))
        done = _memoir("--home", str(a), "--json", "forget", "--text", marker, "-y")
        assert done.returncode == 0, done.stderr
        assert in_database() == 0
        # The trigger still refuses any other change.
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("UPDATE memoir_records SET line = line WHERE seq = 1")
    assert _memoir("--home", str(a), "verify").returncode == 0
    # b still holds the text in its pack and index, and says so until it has done its part.
    waiting = _memoir("--home", str(b), "verify")
    assert waiting.returncode == 6
    assert "not yet carried out here" in waiting.stdout + waiting.stderr
    said = json.loads(_memoir("--home", str(b), "--json", "status").stdout)["forgets"]
    assert [f["state"] for f in said] == ["elsewhere"]
    assert _memoir("--home", str(b), "forget", "--finish").returncode == 0
    assert _memoir("--home", str(b), "verify").returncode == 0
    assert json.loads(_memoir("--home", str(b), "--json", "status").stdout)["forgets"] == []
    for home in (a, b):
        held = [p for p in home.rglob("*") if p.is_file() and marker.encode() in p.read_bytes()]
        assert held == [], held
    shown = _memoir("--home", str(b), "sessions", "list")
    assert shown.returncode == 0 and marker not in shown.stdout


def test_a_listening_mcp_server_does_its_part_of_another_machines_forget(
        tmp_path: Path, pg_url: str) -> None:
    """The server machine holds the text in its own caches (a checkpoint, MEMORY.md);
    its MCP server hears of the laptop's forget and removes its local copies itself."""
    from tests.integrations.test_mcp import INIT, _raw_server, _receive, _send

    marker = "WOMBAT-GLACIER-9034"
    a, b = _two_machines(tmp_path, pg_url)
    assert _memoir("--home", str(a), "memory", "add", f"The relay is {marker}.").returncode == 0
    assert _memoir("--home", str(b), "rebuild").returncode == 0  # b's files and checkpoint
    assert marker in (b / "memories" / "MEMORY.md").read_text(encoding="utf-8")
    server = _raw_server(b)
    try:
        _send(server, INIT)
        assert "result" in _receive(server, 1)
        assert _memoir("--home", str(a), "forget", "--text", marker, "-y").returncode == 0
        started = time.monotonic()
        while time.monotonic() - started < 30:
            held = [p for p in b.rglob("*") if p.is_file() and marker.encode() in p.read_bytes()]
            if not held:
                break
            time.sleep(0.05)
        assert held == [], held
    finally:
        assert server.stdin is not None
        server.stdin.close()
        server.wait(timeout=60)


def test_the_documented_roles_work_as_written(tmp_path: Path) -> None:
    """docs/postgres.md's SQL, run statement by statement as the document says (with
    names of this test's own): the owner role creates the tables on PostgreSQL 15 and
    later, the writer role appends and cannot delete, the owner can forget."""
    import re
    import secrets
    from urllib.parse import urlsplit, urlunsplit

    from tests.support.postgres import SERVER

    text = (REPO / "docs" / "postgres.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```sql\n(.*?)```", text, re.DOTALL)
    assert len(blocks) == 3, blocks
    tag = secrets.token_hex(4)
    roles = {name: f"{name}_{tag}" for name in ("memoir_owner", "memoir_writer",
                                                "memoir_forgetter")}
    database = f"memoir_doc_{tag}"

    def statements(block: str) -> list[str]:
        for role, mine in roles.items():
            block = re.sub(rf"\b{role}\b", mine, block)
        block = re.sub(r"(DATABASE\s+)memoir\b", rf"\g<1>{database}", block)
        block = re.sub(r"--[^\n]*", "", block)
        return [s.strip() for s in block.split(";") if s.strip()]

    def url(role: str, db: str) -> str:
        parts = urlsplit(SERVER)
        return urlunsplit((parts.scheme, f"{roles[role]}@{parts.hostname}:{parts.port or 5432}",
                           f"/{db}", "", ""))

    def run(conninfo: str, block: str) -> None:
        with psycopg.connect(conninfo, autocommit=True) as conn:
            for statement in statements(block):
                conn.execute(statement)  # type: ignore[arg-type]

    owner_home, writer_home = tmp_path / "first", tmp_path / "second"
    try:
        run(SERVER, blocks[0])
        done = _memoir("--home", str(owner_home), "init", "--journal",
                       url("memoir_owner", database))
        assert done.returncode == 0, done.stderr
        run(url("memoir_owner", database), blocks[1])
        done = _memoir("--home", str(writer_home), "init", "--journal",
                       url("memoir_writer", database))
        assert done.returncode == 0, done.stderr
        assert "memoir journal trust" in done.stdout  # the line the owner runs
        admit(_memoir, owner_home, writer_home)
        added = _memoir("--home", str(writer_home), "memory", "add", "Written by a writer.")
        assert added.returncode == 0, added.stderr
        with psycopg.connect(url("memoir_writer", database), autocommit=True) as conn, \
                pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("DELETE FROM memoir_records")
        forgot = _memoir("--home", str(owner_home), "forget", "--text", "Written by", "-y")
        assert forgot.returncode == 0, forgot.stderr
        with psycopg.connect(SERVER, autocommit=True) as conn:
            conn.execute(f"CREATE ROLE {roles['memoir_forgetter']} LOGIN")  # type: ignore[arg-type]
        run(url("memoir_owner", database), blocks[2])
    finally:
        with psycopg.connect(SERVER, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')  # type: ignore[arg-type]
            for role in roles.values():
                conn.execute(f"DROP ROLE IF EXISTS {role}")  # type: ignore[arg-type]
