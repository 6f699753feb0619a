"""A shared journal attacked by the roles that can reach it (the round-5 red team's
classes, in the suite's own words): a writer role (SELECT and INSERT, as docs/postgres.md
grants) inserting rows no memoir writes, and a role that may only connect trying to
stop everyone.  Nothing it inserts is folded or carried out; nothing it does stops
another writer; every home still opens, verifies the rest and appends."""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from memoir.events.codec import chain_hash
from tests.support.paths import REPO
from tests.support.signing import admit

KEY = "a key of more than sixteen bytes"


def _memoir(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, "PYTHONPATH": str(REPO), "MEMOIR_DURABILITY": "always", **(env or {})}
    return subprocess.run([sys.executable, "-m", "memoir", *args], capture_output=True,
                          text=True, timeout=120, env=full)


class Roles:
    """Two roles of the test's own on a journal's schema: ``writer`` with the documented
    GRANTs, ``stranger`` that may only connect."""

    def __init__(self, url: str) -> None:
        self.url = url
        tag = secrets.token_hex(4)
        self.writer, self.stranger = f"memoir_w_{tag}", f"memoir_s_{tag}"
        with psycopg.connect(url, autocommit=True) as conn:
            self.schema = conn.execute("SELECT current_schema()").fetchone()[0]  # type: ignore[index]
            for role in (self.writer, self.stranger):
                conn.execute(f"CREATE ROLE {role} LOGIN")  # type: ignore[arg-type]

    def grant_writer(self) -> None:
        with psycopg.connect(self.url, autocommit=True) as conn:
            for sql in (f"GRANT USAGE ON SCHEMA {self.schema} TO {self.writer}",
                        f"GRANT SELECT, INSERT ON memoir_records, memoir_seals, "
                        f"memoir_transcripts TO {self.writer}",
                        f"GRANT SELECT ON memoir_meta TO {self.writer}",
                        f"GRANT SELECT, INSERT, UPDATE ON memoir_sync TO {self.writer}"):
                conn.execute(sql)  # type: ignore[arg-type]
            conn.execute(f"GRANT USAGE ON SCHEMA {self.schema} TO {self.stranger}")  # type: ignore[arg-type]

    def as_role(self, role: str) -> str:
        return self.url.replace("postgres@", f"{role}@", 1)

    def drop(self) -> None:
        with psycopg.connect(self.url, autocommit=True) as conn:
            for role in (self.writer, self.stranger):
                conn.execute(f"DROP OWNED BY {role}")  # type: ignore[arg-type]
                conn.execute(f"DROP ROLE {role}")  # type: ignore[arg-type]


@pytest.fixture
def shared(tmp_path: Path, pg_url: str) -> Iterator[tuple[Path, Roles]]:
    """A keyed home on a fresh journal, and the roles around it."""
    home = tmp_path / "owner"
    done = _memoir("--home", str(home), "init", "--journal", pg_url, env={"MEMOIR_KEY": KEY})
    assert done.returncode == 0, done.stderr
    roles = Roles(pg_url)
    roles.grant_writer()
    try:
        yield home, roles
    finally:
        roles.drop()


def forge(url: str, type_: str, data: Any, *, v: int = 1, more: int = 0,
          raw_payload: bytes | None = None, run: str | None = None) -> int:
    """INSERT a record at the head as the role in ``url``: a valid chain hash (the
    algorithm is public), any payload.  Its seq."""
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute("SELECT seq, hash FROM memoir_records ORDER BY seq DESC "
                           "LIMIT 1").fetchone()
        seq, prev = (int(row[0]) + 1, str(row[1]).encode()) if row else (1, b"")
        rid = secrets.token_hex(16)
        envelope = (f'{{"seq":{seq},"id":"{rid}","ts":"2026-11-27T00:00:00.000000+00:00",'
                    f'"type":{json.dumps(type_)},"v":{v},"actor":"user","session":null,'
                    f'"run":{json.dumps(run)},"causation":null,"more":{more},"data":'
                    ).encode()
        payload = raw_payload if raw_payload is not None else \
            json.dumps(data, separators=(",", ":")).encode()
        digest = chain_hash(prev, envelope, hashlib.blake2b(payload, digest_size=16).digest(),
                            b"}")
        line = envelope + payload + b',"hash":"' + digest + b'"}'
        conn.execute("INSERT INTO memoir_records (seq, id, type, more, hash, line) VALUES "
                     "(%s, %s, %s, %s, %s, %s)", (seq, rid, type_, more, digest.decode(), line))
    return seq


def test_rows_the_writer_role_forges_are_quarantined_and_stop_nobody(
        shared: tuple[Path, Roles]) -> None:
    home, roles = shared
    writer = roles.as_role(roles.writer)
    env = {"MEMOIR_KEY": KEY}
    assert _memoir("--home", str(home), "memory", "add", "Deploys happen on Fridays.",
                   env=env).returncode == 0
    outside = home.parent / "outside.jsonl"
    outside.write_bytes(b'{"ledger":"paid 4411"}\n')
    with psycopg.connect(writer, autocommit=True) as conn:
        head = conn.execute("SELECT max(seq) FROM memoir_records").fetchone()[0]  # type: ignore[index]
        # Seal rows squatting the seqs the journal has not reached.
        conn.execute("INSERT INTO memoir_seals SELECT g, 'junk'::bytea FROM "
                     "generate_series(%s::bigint, %s::bigint) g", (head + 1, head + 500))
    forged = {
        forge(writer, "memory.entry_added", {"bogus": True}, v=2):
            "not a valid memory.entry_added record",
        forge(writer, "memory.entry_added", {"target": "memory", "entry_id": "e-0000000000aa",
                                             "text": "The checklist is long. " * 40_000},
              v=2): "unsigned (signing is on since seq",
        forge(writer, "journal.forgotten", {"seqs": [], "digests": [], "selector": "text",
                                            "bodies": ["../../outside:0:22:" + "0" * 32]},
              run="forget-00000000aaaa"):
            "is not a transcript reference",
        forge(writer, "memory.wiped", {"all": True}): "unknown event type 'memory.wiped'",
        forge(writer, "memory.entry_added", {}, v=2, raw_payload=b'{"target":'):
            "not a record: JSON is malformed",
    }
    # Every home still opens, appends (with its key: squatted seals take no place) and
    # reads the rest.
    added = _memoir("--home", str(home), "memory", "add", "Staging is at 10.0.0.7.", env=env)
    assert added.returncode == 0, added.stderr
    memory = (home / "memories" / "MEMORY.md").read_text(encoding="utf-8")
    assert "Staging is at 10.0.0.7." in memory and "checklist" not in memory
    assert outside.read_bytes() == b'{"ledger":"paid 4411"}\n'
    # verify names each forged row, and not one of the junk seals as a problem.
    verify = _memoir("--home", str(home), "--json", "verify", env=env)
    assert verify.returncode != 0
    report = json.loads(verify.stdout)
    listed = {q["seq"]: q["reason"] for q in report["quarantined"]}
    assert set(listed) == set(forged), listed
    for seq, why in forged.items():
        assert why in listed[seq], (seq, listed[seq])
    assert report["unsealed"] == len(forged)  # the forged rows, not the honest ones
    assert not any("not a seal" in p or "does not match" in p for p in report["problems"])
    status = _memoir("--home", str(home), "--json", "status", env=env)
    assert status.returncode == 0, status.stderr
    assert json.loads(status.stdout)["quarantined"]["count"] == len(forged)
    shown = _memoir("--home", str(home), "--json", "journal", "quarantine")
    rows = json.loads(shown.stdout)["records"]
    assert [r["seq"] for r in rows] == sorted(forged)
    assert {r["type"] for r in rows} >= {"memory.entry_added", "journal.forgotten",
                                         "memory.wiped"}
    # repair is for a journal file: refused here, and no stray journal.jsonl is made.
    for flags in ([], ["--accept-loss"]):
        repaired = _memoir("--home", str(home), "repair", *flags, env=env)
        assert repaired.returncode == 4 and "does not apply" in repaired.stderr
        assert not (home / "journal.jsonl").exists()
    # A forget --finish does not carry out the forged forget; the outside file is whole.
    assert _memoir("--home", str(home), "forget", "--finish", env=env).returncode == 0
    assert outside.read_bytes() == b'{"ledger":"paid 4411"}\n'


def test_a_role_that_may_only_connect_cannot_hold_the_writers_lock(
        shared: tuple[Path, Roles]) -> None:
    home, roles = shared
    stranger = roles.as_role(roles.stranger)
    with psycopg.connect(stranger, autocommit=True) as squatter:
        # The old advisory key, held for good: nobody waits for it any more.
        squatter.execute("SELECT pg_advisory_lock(%s)", (0x6D656D6F6972,))
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            squatter.execute("SELECT 1 FROM memoir_sync WHERE pid = 0 FOR UPDATE")
        started = time.monotonic()
        added = _memoir("--home", str(home), "memory", "add", "Not blocked.",
                        env={"MEMOIR_KEY": KEY})
        assert added.returncode == 0, added.stderr
        assert time.monotonic() - started < 30


def test_a_writer_that_gives_up_names_who_holds_the_lock(
        shared: tuple[Path, Roles], tmp_path: Path) -> None:
    """An insider with the writer role can still hold the lock (it is a writer): the
    writer that gives up says which role, from where, since when."""
    _home, roles = shared
    from memoir.errors import ConflictError
    from memoir.journal.postgres import PostgresJournal

    holder = psycopg.connect(roles.as_role(roles.writer))
    try:
        holder.execute("SELECT 1 FROM memoir_sync WHERE pid = 0 FOR UPDATE")
        journal = PostgresJournal(roles.url, lock_timeout=0.3)
        try:
            with pytest.raises(ConflictError, match=f"role {roles.writer}"), \
                    journal.locked():
                pass
        finally:
            journal.close()
    finally:
        holder.close()


def test_an_append_never_fails_because_its_notice_does(pg_url: str, tmp_path: Path) -> None:
    """pg_notify fails (a full notice queue, here a function that shadows it on the
    path): the append is in, and a listener still finds it by polling."""
    from memoir.journal.postgres import PostgresJournal
    from memoir.testing.journal_contract import batch

    schema_url = pg_url
    with psycopg.connect(pg_url, autocommit=True) as conn:
        schema = conn.execute("SELECT current_schema()").fetchone()[0]  # type: ignore[index]
        conn.execute(f"CREATE FUNCTION {schema}.pg_notify(text, text) RETURNS void "  # type: ignore[arg-type]
                     "LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'too many "
                     "notifications in the NOTIFY queue'; END $$")
    shadowed = schema_url.replace(f"search_path%3D{schema}",
                                  f"search_path%3D{schema}%2Cpg_catalog", 1)
    assert shadowed != schema_url
    journal = PostgresJournal(shadowed, create=True)
    reader = PostgresJournal(pg_url)
    try:
        events = journal.append(batch(2, prefix="n"))
        assert [e.seq for e in events] == [1, 2]
        assert [e.seq for e in reader.read()] == [1, 2]
        assert journal.append(batch(1, prefix="m"))[0].seq == 3
    finally:
        journal.close()
        reader.close()


def test_a_flood_of_notices_costs_a_tail_a_bounded_number_of_reads(
        pg_url: str, tmp_path: Path) -> None:
    """Any role that may connect can send memoir's notice: each wakes the tail, which
    reads the journal; a flood of them must not become a flood of reads."""
    from memoir.engine.tail import Tail
    from memoir.journal.postgres import PostgresJournal

    journal = PostgresJournal(pg_url, create=True)
    reads = 0

    class Handle:
        followers: list[Any] = []

        def __init__(self) -> None:
            self.journal = journal

        @property
        def head(self) -> int:
            nonlocal reads
            reads += 1
            return 0

    started = time.monotonic()
    tail = Tail(Handle(), poll=60.0).start()
    try:
        assert journal.wait_for_append(0.01) is False  # the listener is there
        stop = time.monotonic() + 2.0
        sent = 0
        with psycopg.connect(pg_url, autocommit=True) as flooder:
            while time.monotonic() < stop:
                flooder.execute("SELECT pg_notify('memoir_journal', g::text) FROM "
                                "generate_series(1, 500) g")
                sent += 500
    finally:
        tail.stop()
        elapsed = time.monotonic() - started
        journal.close()
    assert sent >= 1_000
    # At most one read per 20 ms gap (plus the start), however many notices came.
    assert reads <= elapsed / 0.02 + 5, (reads, sent)


def test_threads_of_one_process_keep_one_gapless_sequence_under_the_row_lock(
        pg_url: str) -> None:
    from memoir.journal.postgres import PostgresJournal
    from memoir.testing.journal_contract import batch

    journals = [PostgresJournal(pg_url, create=True) for _ in range(4)]
    errors: list[BaseException] = []

    def write(journal: PostgresJournal, tag: str) -> None:
        try:
            for i in range(15):
                journal.append(batch(2, prefix=f"{tag}{i}"))
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(j, f"t{n}"))
               for n, j in enumerate(journals)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    try:
        assert errors == []
        assert [e.seq for e in journals[0].read()] == list(range(1, 121))
        assert journals[0].verify().records == 120
    finally:
        for journal in journals:
            journal.close()


# -- connections: nothing a folder says makes memoir hand a server a password ----------------


class Listener:
    """A loopback port that notes every connection made to it (a server someone else
    chose), and answers nothing."""

    def __init__(self) -> None:
        import socket

        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.sock.setblocking(False)
        self.port = self.sock.getsockname()[1]

    def connections(self) -> int:
        count = 0
        while True:
            try:
                conn, _ = self.sock.accept()
            except BlockingIOError:
                return count
            conn.close()
            count += 1

    def close(self) -> None:
        self.sock.close()


def _handed_over(tmp_path: Path, url: str, extra: str = "") -> Path:
    """A home folder from elsewhere whose config.yaml names ``url``."""
    home = tmp_path / "their-home"
    (home / ".memoir").mkdir(parents=True)
    (home / "journal.jsonl").write_bytes(b"")
    (home / "config.yaml").write_text(f"journal:\n  url: {url}\n{extra}", encoding="utf-8")
    return home


def test_a_folder_from_elsewhere_is_never_connected_to(tmp_path: Path) -> None:
    from memoir.testing.recorded import RecordedHistoryError, recorded

    server = Listener()
    try:
        url = f"postgresql://ci@127.0.0.1:{server.port}/memoir?sslmode=disable"
        home = _handed_over(tmp_path, url)
        env = {"PGPASSWORD": "ci-db-password-7f3a9", "MEMOIR_PG_RETRY": "0"}
        with pytest.raises(RecordedHistoryError, match="never attached"):
            recorded(home)
        plugin = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
             "--memoir-journal", str(home)],
            cwd=tmp_path, capture_output=True, text=True, timeout=120,
            env={**os.environ, "PYTHONPATH": str(REPO), **env})
        assert plugin.returncode != 0 and "never attached" in plugin.stdout + plugin.stderr
        for command in (["status"], ["log"], ["verify"], ["memory", "list"]):
            done = _memoir("--home", str(home), *command, env=env)
            assert done.returncode != 0 and "journal attach" in done.stderr, (command, done)
            assert "ci-db-password" not in done.stdout + done.stderr
        assert server.connections() == 0
    finally:
        server.close()


def test_password_env_may_not_name_any_variable(tmp_path: Path) -> None:
    server = Listener()
    try:
        url = f"postgresql://ci@127.0.0.1:{server.port}/memoir"
        home = _handed_over(tmp_path, url, "  password_env: AWS_SECRET_ACCESS_KEY\n")
        env = {"AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG", "MEMOIR_JOURNAL_URL": url,
               "MEMOIR_PG_RETRY": "0"}
        done = _memoir("--home", str(home), "status", env=env)
        assert done.returncode != 0
        assert "does not look like a password variable" in done.stderr
        assert "MEMOIR_ALLOW_KEY_ENV=AWS_SECRET_ACCESS_KEY" in done.stderr
        assert server.connections() == 0
        checked = _memoir("--home", str(home), "config", "check", env=env)
        assert "journal.password_env names AWS_SECRET_ACCESS_KEY" in checked.stdout + \
            checked.stderr
        refused = _memoir("--home", str(tmp_path / "new"), "init", "--journal", url,
                          "--password-env", "AWS_SECRET_ACCESS_KEY")
        assert refused.returncode == 2 and "does not look like a password" in refused.stderr
    finally:
        server.close()


@pytest.mark.parametrize("url", [
    "postgresql://ada@127.0.0.1:1/db?password=S3cretFromQuery-77",
    "postgresql://ada@127.0.0.1:1/db?sslmode=disable&sslpassword=S3cretFromQuery-77",
    "postgresql://ada:S3cretFromQuery-77@127.0.0.1:1,127.0.0.1:2/db",
    "postgresql:///db?host=/nonexistent&user=ada&password=S3cretFromQuery-77",
])
def test_a_password_anywhere_in_the_url_is_refused_and_never_shown(
        tmp_path: Path, url: str) -> None:
    home = tmp_path / "home"
    done = _memoir("--home", str(home), "init", "--journal", url)
    assert done.returncode == 2 and "a password never goes into config.yaml" in done.stderr
    assert "S3cret" not in done.stderr and not home.exists()
    filed = tmp_path / "filed"
    assert _memoir("--home", str(filed), "init").returncode == 0
    (filed / "config.yaml").write_text(f"journal:\n  url: '{url}'\n", encoding="utf-8")
    checked = _memoir("--home", str(filed), "config", "check")
    assert checked.returncode == 1 and "journal.url: holds a password" in checked.stderr
    assert "S3cret" not in checked.stdout + checked.stderr
    # From the environment (the person's own) it is taken, and nothing shows it.
    env = {"MEMOIR_JOURNAL_URL": url, "MEMOIR_PG_RETRY": "0"}
    (filed / "config.yaml").write_text("journal:\n  durability: always\n", encoding="utf-8")
    for command in (["config", "show"], ["status"], ["doctor"]):
        shown = _memoir("--home", str(filed), *command, env=env)
        assert "S3cret" not in shown.stdout + shown.stderr, command
        assert "internal error" not in shown.stderr, (command, shown.stderr)


def test_a_host_list_url_connects_to_the_first_server_that_answers(
        tmp_path: Path, pg_database: str) -> None:
    """libpq's fail-over form: a dead host first, the live one second."""
    from urllib.parse import urlsplit

    parts = urlsplit(pg_database)
    dead = Listener()
    dead.close()  # a port nobody listens on
    url = pg_database.replace(parts.netloc, f"{parts.username}@127.0.0.1:{dead.port},"
                              f"{parts.hostname}:{parts.port or 5432}", 1)
    url = f"{url}?options=-csearch_path%3Dhosts_{secrets.token_hex(4)}"
    with psycopg.connect(pg_database, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {url.rsplit('%3D', 1)[1]}")  # type: ignore[arg-type]
    home = tmp_path / "home"
    done = _memoir("--home", str(home), "init", "--journal", url)
    assert done.returncode == 0, done.stderr
    added = _memoir("--home", str(home), "memory", "add", "Two hosts, one journal.")
    assert added.returncode == 0, added.stderr
    status = _memoir("--home", str(home), "--json", "status")
    assert json.loads(status.stdout)["journal"]["where"] == url


# -- every home converges, and says when it has not ------------------------------------------


def _out_of_date(home: Path) -> list[str]:
    """The projected files of ``home`` whose bytes are not what a fresh rebuild of its
    journal renders."""
    import memoir

    with memoir.open(home, readonly=True) as mem:
        wanted = mem.projector.projected_files()
    found = []
    for rel, data in wanted.items():
        path = home / rel
        if (path.read_bytes() if path.is_file() else None) != data:
            found.append(rel)
    return found


def _until_current(*homes: Path, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        late = {str(h.name): _out_of_date(h) for h in homes}
        if not any(late.values()):
            return
        assert time.monotonic() < deadline, late
        time.sleep(0.05)


def _status(home: Path) -> dict[str, Any]:
    done = _memoir("--home", str(home), "--json", "status")
    assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stdout))


def test_three_homes_converge_and_a_home_that_does_not_says_so(
        tmp_path: Path, pg_url: str) -> None:
    """Write on A, revert on C, forget on B: the homes that follow (B and C hold open
    handles with follow=True) equal a fresh rebuild after each step; A, which nothing
    follows, says it is behind until a command writes there."""
    import memoir

    homes = {name: tmp_path / name for name in "ABC"}
    for home in homes.values():
        assert _memoir("--home", str(home), "init", "--journal", pg_url).returncode == 0
    a, b, c = homes["A"], homes["B"], homes["C"]
    # A made the journal: it owns it, and lets B forget and C revert A's runs.
    admit(_memoir, a, b, may=["forget"])
    admit(_memoir, a, c, may=["revert"])
    followers = [memoir.open(home, follow=True) for home in (b, c)]
    try:
        added = _memoir("--home", str(a), "memory", "add", "--target", "user",
                        "Prefers tea over coffee, TEAPOT-4471.")
        assert added.returncode == 0, added.stderr
        assert _out_of_date(a) == []
        _until_current(b, c)
        reverted = _memoir("--home", str(c), "revert", "--last")
        assert reverted.returncode == 0, reverted.stderr
        _until_current(b, c)
        assert "TEAPOT" not in (b / "memories" / "USER.md").read_text(encoding="utf-8")
        # A follows nothing: its USER.md still shows the fact C reverted, and it says so.
        assert "TEAPOT" in (a / "memories" / "USER.md").read_text(encoding="utf-8")
        status = _status(a)
        assert status["stale"] == ["memories/USER.md"] and status["behind"] >= 1
        text = _memoir("--home", str(a), "status").stdout
        assert "behind   the files are behind the journal by" in text
        assert "drift    none" not in text
        doctor = _memoir("--home", str(a), "--json", "doctor")
        assert any("behind the journal" in check["detail"]
                   for check in json.loads(doctor.stdout)["checks"])
        # B forgets the text everywhere it is, B and C (which follow) carry it out.
        forgot = _memoir("--home", str(b), "forget", "--text", "TEAPOT-4471", "-y")
        assert forgot.returncode == 0, forgot.stderr
        _until_current(b, c)
        for home in (b, c):
            deadline = time.monotonic() + 60
            while True:
                held = [p for p in home.rglob("*") if p.is_file() and
                        b"TEAPOT-4471" in p.read_bytes()]
                if not held:
                    break
                assert time.monotonic() < deadline, held
                time.sleep(0.05)
        # A does its part when it next runs: --finish (or any write), then it is current.
        assert _memoir("--home", str(a), "forget", "--finish").returncode == 0
        assert _out_of_date(a) == [] and _status(a)["behind"] == 0
        assert not [p for p in a.rglob("*") if p.is_file() and
                    b"TEAPOT-4471" in p.read_bytes()]
    finally:
        for handle in followers:
            handle.close()


def test_a_keyed_home_never_carries_out_a_forget_it_cannot_vouch_for(
        shared: tuple[Path, Roles]) -> None:
    """A well-formed journal.forgotten naming a real record, inserted by the writer role
    (it cannot seal: the key is not in the database): a keyed home leaves it alone, and
    verify reports it as not sealed.  (Without a key, telling it from an honest forget
    needs signed records: issue 36, item 1.)"""
    home, roles = shared
    env = {"MEMOIR_KEY": KEY}
    added = _memoir("--home", str(home), "memory", "add", "EVIDENCE-7731 was emailed out.",
                    env=env)
    assert added.returncode == 0, added.stderr
    with psycopg.connect(roles.url, autocommit=True) as conn:
        seq, line = conn.execute("SELECT seq, line FROM memoir_records WHERE position("
                                 "'EVIDENCE' in convert_from(line, 'UTF8')) > 0").fetchone()  # type: ignore[misc]
    from memoir.events.codec import payload_digest, payload_span

    start, end = payload_span(bytes(line))  # type: ignore[misc]
    digest = payload_digest(bytes(line)[start:end]).decode()
    forge(roles.as_role(roles.writer), "journal.forgotten",
          {"seqs": [seq], "digests": [digest], "selector": "text", "reason": "GDPR"},
          run="forget-0000deadbeef")
    assert _memoir("--home", str(home), "forget", "--finish", env=env).returncode == 0
    with psycopg.connect(roles.url, autocommit=True) as conn:
        kept = conn.execute("SELECT line FROM memoir_records WHERE seq = %s",
                            (seq,)).fetchone()[0]  # type: ignore[index]
    assert b"EVIDENCE-7731" in bytes(kept)
    verify = _memoir("--home", str(home), "--json", "verify", env=env)
    assert verify.returncode != 0 and json.loads(verify.stdout)["unsealed"] == 1
