"""The journal owns every backend difference: outside ``memoir/journal/`` nothing names a
backend class, probes a journal with ``hasattr``/``getattr`` or compares its ``kind``,
and the forget and backup code types what it is given instead of taking ``Any``.  Code
that needs what only some backends can do asks for a capability of
:mod:`memoir.journal.interface` with ``isinstance``.  Plain ``ast``."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
from pathlib import Path

import pytest

import memoir.journal
from memoir.errors import ConfigError
from memoir.journal import Journal, open_journal

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "memoir"
#: The package roots that re-export the backends users may build themselves.
RE_EXPORTS = {PACKAGE / "__init__.py", PACKAGE / "testing" / "__init__.py"}


def _backend_classes() -> set[str]:
    """Every class defined in memoir.journal that is (part of) a backend."""
    found = set()
    for info in pkgutil.walk_packages(memoir.journal.__path__, "memoir.journal."):
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if inspect.isclass(value) and value.__module__ == module.__name__ and \
                    issubclass(value, Journal) and value is not Journal:
                found.add(name)
    return found


BACKENDS = _backend_classes()


def _outside() -> list[Path]:
    return [p for p in sorted(PACKAGE.rglob("*.py"))
            if PACKAGE / "journal" not in p.parents and p not in RE_EXPORTS]


def _mentions_journal(node: ast.AST) -> bool:
    return "journal" in ast.unparse(node).lower()


def test_the_backends_are_found() -> None:
    assert {"FileJournal", "InMemoryJournal", "PostgresJournal"} <= BACKENDS


def test_nothing_outside_the_journal_names_a_backend_or_probes_one() -> None:
    wrong = []
    for path in _outside():
        rel = path.relative_to(ROOT)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Name) and node.id in BACKENDS) or \
                    (isinstance(node, ast.Attribute) and node.attr in BACKENDS):
                wrong.append(f"{rel}:{node.lineno} names {ast.unparse(node)}")
            elif isinstance(node, ast.ImportFrom) and any(a.name in BACKENDS
                                                          for a in node.names):
                wrong.append(f"{rel}:{node.lineno} imports a backend class")
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                    node.func.id in ("hasattr", "getattr") and node.args and \
                    _mentions_journal(node.args[0]):
                wrong.append(f"{rel}:{node.lineno} probes {ast.unparse(node)}")
            elif isinstance(node, ast.Compare) and isinstance(node.left, ast.Attribute) and \
                    node.left.attr == "kind" and _mentions_journal(node.left.value):
                wrong.append(f"{rel}:{node.lineno} compares {ast.unparse(node.left)}")
    assert wrong == []


def test_nothing_outside_the_journal_writes_stored_bytes_in_place() -> None:
    """Tombstones and blanked transcript bodies are written by the journal package (its
    backends and the transcript store), never by forget's planning or carrying out."""
    found = [f"{path.relative_to(ROOT)}:{node.lineno}" for path in _outside()
             for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
             if isinstance(node, ast.Attribute) and node.attr == "pwrite"]
    assert found == []


def test_forget_and_backup_take_typed_arguments() -> None:
    """The home or journal they are given is typed (the engine, a protocol), not Any."""
    untyped = []
    for path in [*sorted((PACKAGE / "engine" / "forget").glob("*.py")),
                 PACKAGE / "engine" / "backup.py"]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                for arg in [*node.args.args, *node.args.kwonlyargs]:
                    if arg.arg in ("engine", "journal", "home") and (
                            arg.annotation is None or ast.unparse(arg.annotation) == "Any"):
                        untyped.append(f"{path.name}:{node.name}({arg.arg})")
    assert untyped == []


def test_a_location_picks_its_backend(tmp_path: Path) -> None:
    assert open_journal("memory:").kind == "memory"
    for location in (tmp_path / "a.jsonl", str(tmp_path / "b.jsonl"),
                     f"file://{tmp_path / 'c.jsonl'}"):
        with open_journal(location, durability="never") as journal:
            assert journal.kind == "file" and Path(journal.where()).parent == tmp_path
    with pytest.raises(ConfigError, match="no journal backend for s3://"):
        open_journal("s3://bucket/journal")
    # A path is a path, whatever its name looks like.
    with open_journal(tmp_path / "postgresql:x.jsonl", durability="never") as journal:
        assert journal.kind == "file"


def test_a_backend_without_a_capability_is_refused_by_name(tmp_path: Path) -> None:
    """memoir forget on a journal that cannot tombstone: a clear error naming it, and
    nothing written."""
    import memoir
    from memoir.engine.forget import plan_forget
    from memoir.errors import ValidationError

    with memoir.open(tmp_path / "home", create=True,
                     journal=open_journal("memory:")) as mem:
        with mem.start_session() as session:
            session.call_tool("memory", {"action": "add", "target": "memory",
                                         "content": "A fact to forget later."})
        head = mem.head
        with pytest.raises(ValidationError, match="does not cover the memory journal"):
            plan_forget(mem, "text", "fact to forget")
        assert mem.head == head
