"""memoir's layers run one way, and nothing is joined by importing a module.

The layers, bottom to top (docs/architecture.md draws them)::

    errors < base < events < journal < projections < engine < domains < tools
           < sessions < api < edges

A module imports only from its own layer or below (every import counts, those inside
functions too); inside a layer only the sideways imports listed in ``SIDEWAYS`` are
allowed.  Only the edges (the CLI, the demo, the test doubles) import the package
root, whose names are loaded on first use.  There are no import cycles, and outside
the CLI no function imports a memoir module.  Plain ``ast``: no import-linter needed.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "memoir"

#: Module (or package prefix) → layer.  The longest matching prefix wins.
LAYER_OF: dict[str, str] = {
    "memoir.errors": "errors",
    # Below everything with the errors: regular expressions compiled on first use.
    "memoir.lazyre": "errors",
    "memoir.clock": "base",
    "memoir.ids": "base",
    "memoir.lookup": "base",
    "memoir.layout": "base",
    "memoir.messages": "base",
    "memoir.llm": "base",
    "memoir.config": "base",
    "memoir.threats": "base",
    "memoir.credentials": "base",
    "memoir.logs": "base",
    "memoir.names": "base",
    "memoir.install": "base",
    # Database URLs as people see them: which carry a password, how one is shown.
    "memoir.urls": "base",
    # Ed25519 over appends: signing and checking (the key files are the engine's).
    "memoir.signatures": "base",
    # The semantic extra's encoder: recall, the reviewers and the threat scan use it.
    "memoir.semantic": "base",
    # File-system safety below a home: walks that follow no link, private folders, locks.
    "memoir.fs": "base",
    # The one background worker under the projector, the tail, the index and reviews.
    "memoir.worker": "base",
    "memoir.events": "events",
    "memoir.journal": "journal",
    "memoir.projections": "projections",
    "memoir.engine": "engine",
    "memoir.memory": "domains",
    "memoir.skills": "domains",
    "memoir.recall": "domains",
    "memoir.insights": "domains",
    "memoir.reviewers": "reviewers",
    "memoir.curator": "domains",
    "memoir.tools": "tools",
    "memoir.oversight": "tools",
    "memoir.prompt": "tools",
    "memoir.sessions": "sessions",
    "memoir.api": "api",
    "memoir.cli": "edges",
    "memoir.commands": "edges",
    "memoir.integrations": "edges",
    "memoir.web": "edges",

    "memoir.testing": "edges",
    "memoir.sdk": "edges",
    "memoir.__main__": "edges",
}
ORDER = ["errors", "base", "events", "journal", "projections", "engine", "domains", "tools",
         "sessions", "reviewers", "api", "edges"]
#: Packages of one layer that may import each other, one way (importer, imported).
SIDEWAYS = {
    ("memoir.curator", "memoir.skills"),
    ("memoir.recall", "memoir.skills"),
    ("memoir.insights", "memoir.skills"),
    ("memoir.config", "memoir.fs"),
    ("memoir.config", "memoir.lookup"),
    ("memoir.config", "memoir.urls"),
    ("memoir.llm", "memoir.config"),
    ("memoir.llm", "memoir.install"),
    ("memoir.semantic", "memoir.install"),
    ("memoir.fs", "memoir.names"),
    ("memoir.threats", "memoir.semantic"),
    ("memoir.threats", "memoir.logs"),
    ("memoir.__main__", "memoir.cli"),
    ("memoir.cli", "memoir.commands"),

    ("memoir.commands", "memoir.integrations"),
    ("memoir.commands", "memoir.web"),
}
#: Modules allowed to import memoir modules inside functions (the CLI loads commands
#: on use, so `memoir --version` stays fast).
LAZY_OK = ("memoir.cli", "memoir.commands")
#: The other imports made inside a function, each named with why: what a reading command,
#: or a pytest session with the plugin idle, must not load (tests/test_import_budget.py).
LAZY_EDGES = {
    ("memoir.api", "memoir.reviewers.loop"): "the learning loop, on first use",
    ("memoir.api", "memoir.engine.tail"): "the tail, for a handle that follows",
    ("memoir.api", "memoir.oversight.forget"): "other writers' forgets, with the tail",
    ("memoir.journal.choose", "memoir.journal.postgres"): "the database backend, only "
                                                          "for a database's URL",
    ("memoir.journal.home", "memoir.config"): "no pydantic for memoir log",
    ("memoir.journal.home", "memoir.fs.safefs"): "memoir log on a file home reads no "
    "attachment",
    ("memoir.projections.memory", "memoir.threats"): "the scanner, when a prompt is built",
    ("memoir.projections.memory", "memoir.threats.quoting"): "with the scanner",
    ("memoir.recall.index", "memoir.recall.parts"): "BM25's threads, for an index "
                                                    "made to search (not memoir status)",
    ("memoir.testing.pytest_plugin", "memoir.testing.recorded"): "the plugin, until "
                                                                 "--memoir-journal",
}
MAX_MODULE_LINES = 600
MAX_CLASS_LINES = 300
#: A class with every memoir class it derives from (see test_no_module_or_class_is_too_big).
MAX_REACH_LINES = 600


def _modules() -> dict[str, Path]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


MODULES = _modules()


def _layer(module: str) -> str:
    best = max((p for p in LAYER_OF if module == p or module.startswith(p + ".")), key=len)
    return LAYER_OF[best]


def _package(module: str) -> str:
    """The unit sideways rules speak of: ``memoir.skills.tools`` → ``memoir.skills``."""
    parts = module.split(".")
    return ".".join(parts[:2])


def _imports(module: str, path: Path) -> Iterator[tuple[str, int, bool]]:
    """(imported memoir module, line, inside a function) for every import in ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    is_package = path.name == "__init__.py"

    def resolve(node: ast.ImportFrom) -> list[str]:
        if node.level:
            base = module.split(".")
            base = base[: len(base) - node.level + (1 if is_package else 0)]
            stem = ".".join([*base, node.module] if node.module else base)
        else:
            stem = node.module or ""
        # `from memoir.x import y` may import the module memoir.x.y.
        return [f"{stem}.{a.name}" if f"{stem}.{a.name}" in MODULES else stem
                for a in node.names]

    def visit(node: ast.AST, in_function: bool, type_only: bool) -> Iterator[tuple[str, int, bool]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import):
                names = [a.name for a in child.names]
            elif isinstance(child, ast.ImportFrom):
                names = resolve(child)
            else:
                names = []
            for name in names:
                if (name == "memoir" or name.startswith("memoir.")) and not type_only:
                    assert isinstance(child, ast.Import | ast.ImportFrom)
                    yield name, child.lineno, in_function
            inner_function = in_function or isinstance(
                child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
            # `if TYPE_CHECKING:` imports are for the type checker, not the interpreter.
            checking = isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test)
            yield from visit(child, inner_function, type_only or checking)

    yield from visit(tree, False, False)


def _graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for module, path in MODULES.items():
        targets = graph.setdefault(module, set())
        for name, _line, _inner in _imports(module, path):
            if name in MODULES and name != module:
                targets.add(name)
    return graph


def test_every_module_has_a_layer() -> None:
    missing = [m for m in MODULES if m != "memoir" and not any(
        m == p or m.startswith(p + ".") for p in LAYER_OF)]
    assert missing == []


def test_imports_point_down_the_layers() -> None:
    wrong = []
    for module, path in MODULES.items():
        if module == "memoir":
            continue  # the package root only re-exports (loaded on first use)
        mine = ORDER.index(_layer(module))
        for name, line, _inner in _imports(module, path):
            if name == "memoir":
                if _layer(module) != "edges":
                    wrong.append(f"{module}:{line} imports the package root")
                continue
            theirs = ORDER.index(_layer(name))
            if theirs > mine:
                wrong.append(f"{module}:{line} imports {name} ({_layer(name)} is above "
                             f"{_layer(module)})")
            elif theirs == mine and _package(name) != _package(module) and (
                    _package(module), _package(name)) not in SIDEWAYS:
                wrong.append(f"{module}:{line} imports {name} sideways")
    assert wrong == []


def test_there_are_no_import_cycles() -> None:
    graph = _graph()
    # Packages import their own modules; a cycle through a package's __init__ and one
    # of its modules is the package re-exporting, not a circle of concepts.
    edges = {m: {t for t in ts if not m.startswith(t + ".")} for m, ts in graph.items()}
    cycles = []
    state: dict[str, int] = {}
    stack: list[str] = []

    def walk(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                cycles.append(" -> ".join([*stack[stack.index(nxt):], nxt]))
            elif nxt not in state:
                walk(nxt)
        stack.pop()
        state[node] = 2

    for module in sorted(edges):
        if module not in state:
            walk(module)
    assert cycles == []


def test_no_function_imports_a_memoir_module_outside_the_cli() -> None:
    found = [
        f"{module}:{line} imports {name}"
        for module, path in MODULES.items()
        if not (module in LAZY_OK or module.startswith(tuple(p + "." for p in LAZY_OK)))
        for name, line, inner in _imports(module, path)
        if inner and (module, name) not in LAZY_EDGES
    ]
    assert found == []


def _classes() -> dict[tuple[str, str], tuple[int, list[str]]]:
    """(module, class) -> (its own lines, the memoir classes it derives from, as
    (module, class) keys): a base is found where its name is defined or imported from,
    following re-exports (``from memoir.journal import Journal``)."""
    trees = {module: ast.parse(path.read_text(encoding="utf-8"))
             for module, path in MODULES.items()}
    defined = {module: {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
               for module, tree in trees.items()}
    imported = {module: {alias.asname or alias.name: (node.module, alias.name)
                         for node in tree.body if isinstance(node, ast.ImportFrom)
                         and node.module and node.module.startswith("memoir")
                         for alias in node.names}
                for module, tree in trees.items()}

    def find(module: str, name: str, depth: int = 0) -> str | None:
        if name in defined.get(module, {}):
            return f"{module}:{name}"
        source = imported.get(module, {}).get(name)
        if source is None or depth > 5:
            return None
        origin, real = source
        return find(origin, real, depth + 1)

    found = {}
    for module, classes in defined.items():
        for name, node in classes.items():
            bases = []
            for base in node.bases:
                target = base.value if isinstance(base, ast.Subscript) else base
                if isinstance(target, ast.Name):
                    key = find(module, target.id)
                    if key is not None:
                        bases.append(key)
            assert node.end_lineno is not None
            found[f"{module}:{name}"] = (node.end_lineno - node.lineno + 1, bases)
    return found  # type: ignore[return-value]


def _reach(key: str, classes: dict, seen: set[str] | None = None) -> int:  # type: ignore[type-arg]
    """The lines of a class and of every memoir class it derives from, each once."""
    seen = set() if seen is None else seen
    if key in seen or key not in classes:
        return 0
    seen.add(key)
    own, bases = classes[key]
    return int(own) + sum(_reach(base, classes, seen) for base in bases)


def test_no_module_or_class_is_too_big() -> None:
    """A module, a class's own lines, and what a class reaches through the memoir
    classes it derives from (an interface's abstract methods count too): a chain of
    bases does not hide size."""
    big = []
    for module, path in MODULES.items():
        text = path.read_text(encoding="utf-8")
        lines = text.count("\n")
        if lines > MAX_MODULE_LINES:
            big.append(f"{module}: {lines} lines")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ClassDef) and node.end_lineno is not None:
                size = node.end_lineno - node.lineno + 1
                if size > MAX_CLASS_LINES:
                    big.append(f"{module}.{node.name}: {size} lines")
    classes = _classes()
    for key in classes:
        reach = _reach(key, classes)
        if reach > MAX_REACH_LINES:
            big.append(f"{key}: {reach} lines with its bases")
    assert big == []


def test_the_reach_of_a_class_counts_its_bases() -> None:
    """The guard above sees through re-exports and chains (so it would catch the
    journals of issue 35 again)."""
    classes = _classes()
    journal = classes["memoir.journal.interface:Journal"][0]
    file_journal = classes["memoir.journal.file.journal:FileJournal"]
    assert "memoir.journal.interface:Journal" in file_journal[1]
    assert _reach("memoir.journal.file.journal:FileJournal", classes) > \
        file_journal[0] + journal
    appending = _reach("memoir.journal.file.appending:JournalFile", classes)
    assert appending == sum(classes[k][0] for k in (
        "memoir.journal.file.appending:JournalFile", "memoir.journal.file.reader:FileReader"))
    assert _reach("memoir.api:Memoir", classes) > classes["memoir.engine.engine:Engine"][0]


def _loaded_by(statement: str) -> list[str]:
    code = (f"import sys; {statement}; "
            "print('\\n'.join(sorted(m for m in sys.modules if m.startswith('memoir'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=ROOT)
    return out.stdout.split()


@pytest.mark.parametrize("base", ["memoir.ids", "memoir.errors", "memoir.clock"])
def test_a_base_module_loads_only_itself(base: str) -> None:
    loaded = _loaded_by(f"import {base}")
    assert set(loaded) <= {"memoir", base, "memoir.errors", "memoir.lazyre"}


def test_the_cli_root_loads_no_command_and_no_engine() -> None:
    loaded = _loaded_by("import memoir.cli")
    assert not [m for m in loaded if m.startswith(("memoir.api", "memoir.engine",
                                                   "memoir.commands.home"))]
    heavy = subprocess.run(
        [sys.executable, "-c", "import sys, memoir.cli; "
         "print(sorted(m for m in ('pydantic', 'structlog', 'yaml', 'msgspec') "
         "if m in sys.modules))"],
        capture_output=True, text=True, check=True, cwd=ROOT).stdout.strip()
    assert heavy == "[]"


def test_importing_memoir_registers_nothing_and_loads_nothing_heavy() -> None:
    loaded = _loaded_by("import memoir")
    assert loaded == ["memoir"]


#: The engine's internals: only ``engine/`` and ``api.py`` reach them; everything else
#: works through the :class:`~memoir.engine.port.Home` port.
INTERNALS = {"journal", "projector", "materializer", "checkpoints", "seals", "followers",
             "commits", "live"}
#: Names that mean something else where they follow these (a config section, the
#: skills state's ``live`` lookup, a memory outcome's ``live`` entries, the counts of
#: ``verify_home``'s check).
NOT_THE_ENGINE = {"config", "cfg", "shared_config", "skills", "outcome", "check"}


def test_nothing_outside_the_engine_and_the_api_touches_the_engines_internals() -> None:
    reached = []
    for module, path in MODULES.items():
        if module.startswith("memoir.engine") or module == "memoir.api":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Attribute) or node.attr not in INTERNALS:
                continue
            base = node.value
            name = base.attr if isinstance(base, ast.Attribute) else \
                base.id if isinstance(base, ast.Name) else ""
            if name not in NOT_THE_ENGINE:
                reached.append(f"{module}:{node.lineno} .{node.attr}")
    assert reached == []


#: What a fold or a renderer may not read: a hidden input (context variables, thread
#: state, the clock, randomness, the environment).  Folds are functions of the state and
#: the event, and of what their caller passes explicitly.
HIDDEN_INPUTS = {"contextvars", "threading", "time", "random", "datetime"}


def test_the_folds_take_no_hidden_input() -> None:
    found = []
    for module, path in MODULES.items():
        if not module.startswith("memoir.projections"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            found += [f"{module}:{node.lineno} imports {n}" for n in names
                      if n.split(".")[0] in HIDDEN_INPUTS]
            if isinstance(node, ast.Attribute) and node.attr in ("environ", "getenv"):
                found.append(f"{module}:{node.lineno} reads the environment")
    assert found == []


#: Payloads only one module builds: the door each kind of record goes through.
ONE_DOOR = {"WritePending": "memoir.engine.gate", "PendingApproved": "memoir.engine.gate"}


def test_held_and_approved_writes_go_through_the_one_approval_gate() -> None:
    built = {name: set() for name in ONE_DOOR}
    for module, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                    node.func.id in ONE_DOOR:
                built[node.func.id].add(module)
    assert built == {name: {door} for name, door in ONE_DOOR.items()}
