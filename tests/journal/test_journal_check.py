"""memoir journal check (issue 36): the database checked against what memoir made —
tables, guards, privileges — each problem named with the statement that fixes it, and
the fix, once run, makes the check pass again."""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
from pathlib import Path
from typing import Any

import psycopg
import pytest

from tests.support.paths import REPO


def _memoir(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "memoir", "--home", str(home), *args],
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(REPO)})


def _check(home: Path) -> tuple[int, dict[str, Any]]:
    done = _memoir(home, "--json", "journal", "check")
    return done.returncode, json.loads(done.stdout)


def _failed(report: dict[str, Any]) -> dict[str, dict[str, str]]:
    return {c["check"]: c for c in report["checks"] if c["status"] == "fail"}


@pytest.fixture
def home(tmp_path: Path, pg_url: str) -> Path:
    home = tmp_path / "home"
    made = _memoir(home, "init", "--journal", pg_url)
    assert made.returncode == 0, made.stderr
    assert _memoir(home, "memory", "add", "The build runs on the mirror.").returncode == 0
    return home


def test_a_database_as_memoir_made_it_passes(home: Path) -> None:
    code, report = _check(home)
    assert code == 0 and report["ok"], report
    names = {c["check"] for c in report["checks"]}
    assert {"tables", "columns", "keys", "version", "privileges", "this role",
            "trigger memoir_records_no_change", "function memoir_records_guard"} <= names
    shown = _memoir(home, "journal", "check")
    assert shown.returncode == 0 and "ok    trigger memoir_seals_no_truncate" in shown.stdout


def test_each_weakened_guard_is_named_with_its_fix(home: Path, pg_url: str) -> None:
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("ALTER TABLE memoir_records DISABLE TRIGGER memoir_records_no_change")
        conn.execute("CREATE OR REPLACE FUNCTION memoir_append_only() RETURNS trigger "
                     "LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END; $$")
        conn.execute("CREATE FUNCTION sneaky() RETURNS trigger LANGUAGE plpgsql AS "
                     "$$ BEGIN RETURN NEW; END; $$")
        conn.execute("CREATE TRIGGER memoir_records_sneaky BEFORE INSERT ON memoir_records "
                     "FOR EACH ROW EXECUTE FUNCTION sneaky()")
        code, report = _check(home)
        assert code == 6 and not report["ok"]
        failed = _failed(report)
        assert set(failed) == {"trigger memoir_records_no_change", "function memoir_append_only",
                               "trigger memoir_records_sneaky"}, failed
        assert "disabled" in failed["trigger memoir_records_no_change"]["detail"]
        # Each fix, run as written, puts its part right.
        for name in ("trigger memoir_records_no_change", "trigger memoir_records_sneaky"):
            conn.execute(failed[name]["fix"].split(";")[0])
        assert "memoir journal upgrade" in failed["function memoir_append_only"]["fix"]
    upgraded = _memoir(home, "journal", "upgrade", "--no-sign")
    assert upgraded.returncode == 0, upgraded.stderr
    code, report = _check(home)
    assert code == 0, _failed(report)


def test_a_role_that_may_change_records_is_named_with_the_revoke(
        home: Path, pg_url: str) -> None:
    role = f"memoir_check_{secrets.token_hex(4)}"
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(f"CREATE ROLE {role}")
        try:
            conn.execute(f"GRANT SELECT, INSERT, DELETE, TRIGGER ON memoir_records TO {role}")
            conn.execute(f"GRANT UPDATE (line) ON memoir_records TO {role}")  # a forgetter's
            conn.execute("GRANT UPDATE ON memoir_meta TO PUBLIC")
            code, report = _check(home)
            failed = _failed(report)
            assert code == 6 and set(failed) == {f"privileges of {role}",
                                                 "privileges of PUBLIC"}, failed
            mine = failed[f"privileges of {role}"]
            assert mine["detail"] == "may DELETE, TRIGGER memoir_records"
            for finding in failed.values():
                conn.execute(finding["fix"].split(";")[0])
            assert _check(home)[0] == 0
        finally:
            conn.execute(f"DROP OWNED BY {role}")
            conn.execute(f"DROP ROLE {role}")


def test_a_file_journal_is_pointed_to_verify(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert _memoir(home, "init").returncode == 0
    done = _memoir(home, "journal", "check")
    assert done.returncode == 2 and "memoir verify" in done.stderr
