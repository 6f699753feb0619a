"""``memoir journal check``: is the database still what memoir made it, and may the
roles do only what docs/postgres.md grants them?

Every check reads the catalogue (nothing is changed) and, when it fails, says the one
statement or command that puts it right:

- the schema: memoir's tables, each column with its type, the keys of
  ``memoir_records``, the schema version and the writers' lock row;
- the guards: the four triggers that keep ``memoir_records`` and ``memoir_seals``
  append-only, each present, enabled and firing as made, their functions' bodies as
  memoir wrote them, and no other trigger on memoir's tables (a trigger someone added
  runs on every append, with the inserting role's rights);
- the privileges: no role but the tables' owner may UPDATE, DELETE, TRUNCATE or add a
  TRIGGER to the records or the seals, or change ``memoir_meta``, nor delete shared
  bodies (a column grant of UPDATE (line), which `memoir forget` needs, is allowed); the
  connected role may append and, unless it is the owner, cannot change a record.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from memoir.journal.postgres.database import _SCHEMA, LOCK_ROW, SCHEMA_VERSION, TABLES
from memoir.journal.postgres.journal import PostgresJournal

if TYPE_CHECKING:
    from memoir.journal.interface import Journal

__all__ = ["APPEND_RIGHTS", "Finding", "check_database"]

Status = Literal["ok", "warn", "fail"]


@dataclass(frozen=True)
class Finding:
    """One check: its name, how it went, what was found, and what to change."""

    check: str
    status: Status
    detail: str
    fix: str = ""

    def as_json(self) -> dict[str, str]:
        return {"check": self.check, "status": self.status, "detail": self.detail,
                "fix": self.fix}


#: Each table's columns and their types, as memoir makes them.
COLUMNS = {
    "memoir_meta": {"key": "text", "value": "text"},
    "memoir_records": {"seq": "bigint", "id": "text", "type": "text", "more": "integer",
                       "hash": "text", "line": "bytea"},
    "memoir_transcripts": {"ref": "text", "body": "bytea"},
    "memoir_seals": {"seq": "bigint", "line": "bytea"},
    "memoir_sync": {"pid": "integer", "n": "bigint"},
}
#: Each guard trigger: (table, the definition as PostgreSQL gives it, schema names
#: taken out).
TRIGGERS = {
    "memoir_records_no_change": (
        "memoir_records", "BEFORE DELETE OR UPDATE ON memoir_records FOR EACH ROW EXECUTE "
        "FUNCTION memoir_records_guard()"),
    "memoir_records_no_truncate": (
        "memoir_records", "BEFORE TRUNCATE ON memoir_records FOR EACH STATEMENT EXECUTE "
        "FUNCTION memoir_append_only()"),
    "memoir_seals_no_change": (
        "memoir_seals", "BEFORE DELETE OR UPDATE ON memoir_seals FOR EACH ROW EXECUTE "
        "FUNCTION memoir_append_only()"),
    "memoir_seals_no_truncate": (
        "memoir_seals", "BEFORE TRUNCATE ON memoir_seals FOR EACH STATEMENT EXECUTE "
        "FUNCTION memoir_append_only()"),
}
#: What only the tables' owner may do, by table (any other grantee is a finding).
OWNER_ONLY = {
    "memoir_records": ("UPDATE", "DELETE", "TRUNCATE", "TRIGGER"),
    "memoir_seals": ("UPDATE", "DELETE", "TRUNCATE", "TRIGGER"),
    "memoir_meta": ("INSERT", "UPDATE", "DELETE", "TRUNCATE", "TRIGGER"),
    "memoir_transcripts": ("DELETE", "TRUNCATE", "TRIGGER"),
    "memoir_sync": ("DELETE", "TRUNCATE", "TRIGGER"),
}
#: What a role needs to append (``PostgresJournal.privileges`` names).
APPEND_RIGHTS = ("memoir_records:SELECT", "memoir_records:INSERT", "memoir_seals:INSERT",
                 "memoir_sync:INSERT", "memoir_sync:UPDATE", "memoir_transcripts:INSERT")
_UPGRADE = "run `memoir journal upgrade` as the tables' owner (it makes them again)"
_QUALIFIED = re.compile(r"\b[\w\"]+\.(?=memoir_)")


def _functions() -> dict[str, str]:
    """The bodies of memoir's trigger functions, as :data:`_SCHEMA` writes them."""
    found = re.findall(r"CREATE OR REPLACE FUNCTION (\w+)\(\).*?\$\$(.*?)\$\$", _SCHEMA,
                       re.S)
    return {name: body for name, body in found}


def _same(a: str, b: str) -> bool:
    return " ".join(a.split()) == " ".join(b.split())


def check_database(journal: Journal) -> list[Finding] | None:
    """Check the database of ``journal`` (see the module docstring; None: not a
    PostgreSQL journal); raises JournalError when it cannot be read at all."""
    if not isinstance(journal, PostgresJournal):
        return None
    query: Callable[..., list[tuple[Any, ...]]] = journal.database._query
    findings: list[Finding] = []
    findings += _schema(query, journal.schema_version())
    if any(f.status == "fail" and f.check == "tables" for f in findings):
        return findings
    findings += _guards(query)
    findings += _grants(query)
    findings += _connected(journal)
    return findings


def _schema(query: Callable[..., list[tuple[Any, ...]]], version: int) -> list[Finding]:
    found: list[Finding] = []
    rows = query("SELECT table_name, column_name, data_type FROM information_schema.columns "
                 "WHERE table_schema = current_schema() AND table_name = ANY(%s)",
                 (sorted(TABLES),))
    columns: dict[str, dict[str, str]] = {}
    for table, column, kind in rows:
        columns.setdefault(str(table), {})[str(column)] = str(kind)
    missing = sorted(TABLES - columns.keys())
    if missing:
        return [Finding("tables", "fail", f"missing {', '.join(missing)}", _UPGRADE)]
    found.append(Finding("tables", "ok", f"{len(TABLES)} tables"))
    wrong = [f"{table}.{column} is {columns[table].get(column, 'missing')}, not {kind}"
             for table, wanted in COLUMNS.items() for column, kind in wanted.items()
             if columns[table].get(column) != kind]
    wrong += [f"{table}.{column} is not memoir's" for table, have in columns.items()
              for column in sorted(have.keys() - COLUMNS[table].keys())]
    found.append(Finding("columns", "fail", "; ".join(wrong),
                         "give memoir a database of its own: `memoir journal copy` moves "
                         "the journal into a new one") if wrong else
                 Finding("columns", "ok", "every column as memoir makes it"))
    keys = {str(d) for (d,) in query(
        "SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = "
        "'memoir_records'::regclass AND contype IN ('p', 'u')")}
    lacking = sorted({"PRIMARY KEY (seq)", "UNIQUE (id)"} - keys)
    found.append(Finding("keys", "fail", f"memoir_records lacks {', '.join(lacking)} "
                         "(two rows could claim one seq or one id)", _UPGRADE) if lacking
                 else Finding("keys", "ok", "one row a seq, one row an id"))
    found.append(Finding("version", "ok", f"schema {version}") if version == SCHEMA_VERSION
                 else Finding("version", "fail", f"schema {version}, this memoir's is "
                              f"{SCHEMA_VERSION}", _UPGRADE))
    locked = query("SELECT 1 FROM memoir_sync WHERE pid = %s", (LOCK_ROW,))
    found.append(Finding("lock row", "ok", f"memoir_sync row {LOCK_ROW}") if locked else
                 Finding("lock row", "warn", f"memoir_sync row {LOCK_ROW} is missing (the "
                         "next writer puts it back)", _UPGRADE))
    return found


def _guards(query: Callable[..., list[tuple[Any, ...]]]) -> list[Finding]:
    found: list[Finding] = []
    rows = query(
        "SELECT t.tgname, c.relname, t.tgenabled, pg_get_triggerdef(t.oid) FROM pg_trigger t "
        "JOIN pg_class c ON c.oid = t.tgrelid WHERE NOT t.tgisinternal AND "
        "c.relnamespace = current_schema()::regnamespace AND c.relname = ANY(%s)",
        (sorted(TABLES),))
    have = {str(name): (str(table), str(enabled), _QUALIFIED.sub("", str(made)))
            for name, table, enabled, made in rows}
    for name, (table, made) in TRIGGERS.items():
        if name not in have:
            found.append(Finding(f"trigger {name}", "fail", f"missing: {table} is no longer "
                                 "append-only against a role that may change it", _UPGRADE))
            continue
        on, enabled, actual = have[name]
        if not actual.endswith(made) or on != table:
            found.append(Finding(f"trigger {name}", "fail", f"changed: {actual}", _UPGRADE))
        elif enabled not in ("O", "A"):
            state = "disabled" if enabled == "D" else "set to fire on replicas only"
            found.append(Finding(f"trigger {name}", "fail", state,
                                 f"ALTER TABLE {table} ENABLE ALWAYS TRIGGER {name}; (as the "
                                 "tables' owner)"))
        else:
            found.append(Finding(f"trigger {name}", "ok", f"guards {table}"))
    for name in sorted(have.keys() - TRIGGERS.keys()):
        table = have[name][0]
        found.append(Finding(f"trigger {name}", "fail", f"on {table}, not memoir's: it runs "
                             "on every change of the table", f"DROP TRIGGER {name} ON {table};"
                             " (as the tables' owner, once you know who made it)"))
    wanted = _functions()
    bodies = {str(name): str(body) for name, body in query(
        "SELECT proname, prosrc FROM pg_proc WHERE proname = ANY(%s) AND pronamespace = "
        "current_schema()::regnamespace", (sorted(wanted),))}
    for name, body in wanted.items():
        if name not in bodies:
            found.append(Finding(f"function {name}", "fail", "missing", _UPGRADE))
        elif not _same(bodies[name], body):
            found.append(Finding(f"function {name}", "fail", "its body is not memoir's (a "
                                 "guard that lets changes through)", _UPGRADE))
        else:
            found.append(Finding(f"function {name}", "ok", "as memoir wrote it"))
    return found


def _grants(query: Callable[..., list[tuple[Any, ...]]]) -> list[Finding]:
    rows = query(
        "SELECT c.relname, CASE WHEN a.grantee = 0 THEN 'PUBLIC' ELSE "
        "pg_get_userbyid(a.grantee) END, a.privilege_type, pg_get_userbyid(c.relowner) "
        "FROM pg_class c, aclexplode(coalesce(c.relacl, acldefault('r', c.relowner))) a "
        "WHERE c.relnamespace = current_schema()::regnamespace AND c.relname = ANY(%s) "
        "AND a.grantee <> c.relowner", (sorted(TABLES),))
    extra: dict[tuple[str, str], list[str]] = {}
    for table, grantee, right, _owner in rows:
        if str(right) in OWNER_ONLY.get(str(table), ()):
            extra.setdefault((str(grantee), str(table)), []).append(str(right))
    if not extra:
        return [Finding("privileges", "ok", "no role but the owner may change a record, a "
                        "seal or the schema's version")]
    return [Finding(f"privileges of {grantee}", "fail",
                    f"may {', '.join(sorted(rights))} {table}",
                    f"REVOKE {', '.join(sorted(rights))} ON {table} FROM "
                    f"{'PUBLIC' if grantee == 'PUBLIC' else _ident(grantee)}; (as the "
                    "tables' owner)")
            for (grantee, table), rights in sorted(extra.items())]


def _connected(journal: PostgresJournal) -> list[Finding]:
    rights = journal.privileges()
    lacking = [n for n in APPEND_RIGHTS if not rights.get(n)]
    if lacking:
        return [Finding("this role", "fail", f"cannot append: it lacks {', '.join(lacking)}",
                        "grant the writer role's privileges in docs/postgres.md (Roles "
                        "and GRANTs)")]
    if rights.get("superuser"):
        return [Finding("this role", "warn", "a superuser: it could disable the guards",
                        "connect as a writer role (docs/postgres.md, Roles and GRANTs)")]
    return [Finding("this role", "ok", "may append")]


def _ident(name: str) -> str:
    return name if re.fullmatch(r"[a-z_][a-z0-9_$]*", name) else \
        '"' + name.replace('"', '""') + '"'
