"""The docs are tested: README's Python runs, shown commands exist, every event type is
documented, and relative links resolve."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import click
import pytest

import memoir  # loads skills and curator, so REGISTRY holds every type
from memoir.cli import cli
from memoir.events.catalog import REGISTRY

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
DOCS = REPO / "docs"
#: Files whose shell examples name `memoir` commands that must exist.
COMMAND_DOCS = (README, DOCS / "cli.md", DOCS / "skills.md", DOCS / "revert.md",
                *sorted((DOCS / "integrations").glob("*.md")))
#: Where every event type must be described.
EVENT_DOCS = (DOCS / "events.md", DOCS / "skills.md", DOCS / "revert.md")

_FENCE = re.compile(r"^```([\w-]*)[^\n]*\n(.*?)^```[ \t]*$", re.DOTALL | re.MULTILINE)
_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
_INLINE_CODE = re.compile(r"`[^`\n]*`")


def _blocks(path: Path, *languages: str) -> list[str]:
    return [m.group(2) for m in _FENCE.finditer(path.read_text(encoding="utf-8"))
            if m.group(1) in languages]


def _rel(path: Path) -> str:
    return path.relative_to(REPO).as_posix()


# -- (a) README's Python runs ------------------------------------------------------------------

PYTHON_BLOCKS = [(f"README.md#{i}", code) for i, code in enumerate(_blocks(README, "python"))]


def test_readme_has_python_examples() -> None:
    assert PYTHON_BLOCKS


@pytest.mark.parametrize(("where", "code"), PYTHON_BLOCKS, ids=[w for w, _ in PYTHON_BLOCKS])
def test_readme_python_block_runs(where: str, code: str, tmp_path: Path,
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMOIR_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("MEMOIR_DURABILITY", "never")
    monkeypatch.chdir(tmp_path)
    exec(compile(code, where, "exec"), {"__name__": "__docs__"})


# -- (b) every `memoir …` line names a real command --------------------------------------------


def _shell_commands(line: str) -> list[list[str]]:
    """The simple commands of a shell line (split at ``|``, ``;``, ``&&`` …), as words."""
    lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    commands: list[list[str]] = [[]]
    for token in lexer:
        if token and set(token) <= set("|&;<>()"):
            commands.append([])
        else:
            commands[-1].append(token)
    return [c for c in commands if c]


def _command_lines(path: Path) -> list[str]:
    """The `memoir` commands of a file's ```sh blocks (and of the `$ ` lines of its
    ```console blocks), one per simple command, words joined by spaces."""
    lines: list[str] = []
    for block in _blocks(path, "sh"):
        lines += block.replace("\\\n", " ").splitlines()
    for block in _blocks(path, "console"):
        lines += [line[2:] for line in block.splitlines() if line.startswith("$ ")]
    return [shlex.join(words) for line in lines for words in _shell_commands(line)
            if words[0] == "memoir"]


def _command_path(line: str) -> list[str]:
    """The (sub)command names of one command: the words after `memoir` up to the first
    option or argument of a leaf command.  Raises LookupError for an unknown name."""
    words = shlex.split(line)[1:]
    command: click.Command = cli
    names: list[str] = []
    while words and isinstance(command, click.Group):
        word = words.pop(0)
        if word.startswith("-"):
            option = next((p for p in command.params if isinstance(p, click.Option)
                           and word.split("=")[0] in p.opts), None)
            if option is None and word not in ("-h", "--help"):
                raise LookupError(f"'memoir {' '.join(names)}' has no option {word}")
            if option is not None and not option.is_flag and "=" not in word and words:
                words.pop(0)  # the option's value, e.g. --home PATH
            continue
        sub = command.get_command(click.Context(command), word)
        if sub is None:
            raise LookupError(f"'memoir {' '.join([*names, word])}' is not a command")
        names.append(word)
        command = sub
    return names


COMMAND_LINES = [(_rel(p), line) for p in COMMAND_DOCS for line in _command_lines(p)]


def test_docs_show_memoir_commands() -> None:
    shown = {where for where, _ in COMMAND_LINES}
    assert {"README.md", "docs/cli.md"} <= shown


@pytest.mark.parametrize(("where", "line"), COMMAND_LINES,
                         ids=[f"{w}:{line[:60]}" for w, line in COMMAND_LINES])
def test_shown_command_exists(where: str, line: str) -> None:
    try:
        _command_path(line)
    except LookupError as exc:
        pytest.fail(f"{where}: `{line}`: {exc}")


def test_command_check_rejects_unknown_names() -> None:
    assert _command_path("memoir --home h skills show x --at 3") == ["skills", "show"]
    with pytest.raises(LookupError):
        _command_path("memoir skills frobnicate")


def test_cli_md_covers_every_command() -> None:
    text = (DOCS / "cli.md").read_text(encoding="utf-8")
    missing = []
    ctx = click.Context(cli)
    names = cli.list_commands(ctx)  # the root loads its commands on use
    assert len(names) > 10
    for name in names:
        command = cli.get_command(ctx, name)
        assert command is not None
        subs = command.commands if isinstance(command, click.Group) else {}
        paths = [f"memoir {name} {sub}" for sub in subs] or [f"memoir {name}"]
        missing += [p for p in paths if p not in text]
    assert not missing, f"docs/cli.md never shows: {', '.join(missing)}"


# -- (c) every event type is documented ------------------------------------------------------


def test_every_event_type_is_documented() -> None:
    text = "\n".join(p.read_text(encoding="utf-8") for p in EVENT_DOCS)
    missing = sorted(t for t in REGISTRY if f"`{t}`" not in text)
    assert not missing, f"event types missing from the docs: {', '.join(missing)}"


# -- (d) relative links resolve ------------------------------------------------------------------


def _links(path: Path) -> list[str]:
    text = _FENCE.sub("", path.read_text(encoding="utf-8"))
    text = _INLINE_CODE.sub("", text)
    return [m.group(1) for m in _LINK.finditer(text)]


def _anchors(path: Path) -> set[str]:
    """The heading anchors of a markdown file, as GitHub spells them."""
    text = _FENCE.sub("", path.read_text(encoding="utf-8"))
    headings = re.findall(r"^#{1,6}\s+(.+?)\s*$", text, re.MULTILINE)
    return {re.sub(r"[^\w\- ]", "", h.lower()).replace(" ", "-") for h in headings}


LINK_FILES = [README, *sorted(DOCS.rglob("*.md"))]
LINKS = [(_rel(p), target) for p in LINK_FILES for target in _links(p)
         if not re.match(r"^[a-z][a-z0-9+.-]*:", target)]


@pytest.mark.parametrize(("where", "target"), LINKS, ids=[f"{w}->{t}" for w, t in LINKS])
def test_relative_link_points_to_a_file(where: str, target: str) -> None:
    source = REPO / where
    file, _, anchor = target.partition("#")
    path = source.parent / file if file else source
    assert path.exists(), f"{where}: link to {target}, but {_rel(path.resolve())} is missing"
    if anchor and path.suffix == ".md":
        assert anchor in _anchors(path), f"{where}: link to {target}, but no such heading"


def _doc_texts() -> dict[str, str]:
    files = [REPO / "README.md", *sorted(DOCS.rglob("*.md"))]
    return {str(f.relative_to(REPO)): f.read_text(encoding="utf-8") for f in files}


# `memoir/x/y.py`, `bench/z.py`, `tests/t.py`: a file of the checkout a doc names.
_PATH = re.compile(r"(?<![\w./-])((?:memoir|bench|tests)/[\w./-]*\w)")


def _written_by_a_run(path: str) -> bool:
    """An output a command writes into a folder of the checkout that ignores it (results)."""
    folder = (REPO / path).parent
    return folder.is_dir() and (folder / ".gitignore").is_file()


def test_every_path_the_docs_name_exists() -> None:
    missing = []
    for where, text in _doc_texts().items():
        for path in _PATH.findall(text):
            if not (REPO / path).exists() and not _written_by_a_run(path):
                missing.append(f"{where}: {path}")
    assert missing == []


def test_every_package_of_the_layer_table_is_in_the_architecture() -> None:
    from tests.test_layers import LAYER_OF

    text = (DOCS / "architecture.md").read_text(encoding="utf-8")
    absent = []
    for module in LAYER_OF:
        leaf = module.removeprefix("memoir.").replace(".", "/")
        if module.count(".") == 1 and (REPO / "memoir" / leaf).is_dir():
            leaf += "/"
        elif module.count(".") == 1:
            leaf += ".py"
        if leaf not in text and leaf.removesuffix(".py") not in text:
            absent.append(module)
    assert absent == []


def test_the_api_reference_is_current() -> None:
    import runpy

    render = runpy.run_path(str(DOCS / "generate_api.py"))["render"]
    assert (DOCS / "api.md").read_text(encoding="utf-8") == render(), \
        "docs/api.md is out of date: run ./dev api"


def test_the_architecture_gives_the_size_limits_the_layer_test_sets() -> None:
    from tests.test_layers import MAX_CLASS_LINES, MAX_MODULE_LINES, MAX_REACH_LINES

    text = " ".join((DOCS / "architecture.md").read_text(encoding="utf-8").split())
    found = re.search(r"no module is over (\d+) lines and no class over (\d+), no class "
                      r"reaches over (\d+) lines", text)
    assert found is not None, "docs/architecture.md no longer states the size limits"
    assert tuple(int(g) for g in found.groups()) == (MAX_MODULE_LINES, MAX_CLASS_LINES,
                                                     MAX_REACH_LINES)


def _variables_read() -> set[str]:
    """Every environment variable memoir's code names: read through ``os.environ`` or
    ``os.getenv``, a click option's ``envvar``, a ``MEMOIR_*`` constant, or a default."""
    import ast

    found: set[str] = set()
    for path in (REPO / "memoir").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and \
                    re.fullmatch(r"MEMOIR_[A-Z0-9_]+", node.value):
                found.add(node.value)
            elif isinstance(node, ast.Call) and ast.unparse(node.func) in (
                    "os.environ.get", "os.getenv") and node.args and \
                    isinstance(node.args[0], ast.Constant):
                found.add(str(node.args[0].value))
            elif isinstance(node, ast.Subscript) and ast.unparse(node.value) == "os.environ" \
                    and isinstance(node.slice, ast.Constant):
                found.add(str(node.slice.value))
            elif isinstance(node, ast.keyword) and node.arg == "envvar" and \
                    isinstance(node.value, ast.Constant):
                found.add(str(node.value.value))
    from memoir.config import LLMConfig

    found.add(LLMConfig().api_key_env)  # the key's variable, by default
    return found


def test_every_environment_variable_memoir_reads_is_in_one_table() -> None:
    text = (DOCS / "config.md").read_text(encoding="utf-8")
    section = text[text.index("## Environment variables"):]
    listed = set(re.findall(r"^\| `([A-Z][A-Z0-9_]+)` \|", section, re.MULTILINE))
    read = _variables_read()
    assert sorted(read - listed) == [], "read but not in docs/config.md's table"
    assert sorted(listed - read) == [], "in the table but no longer read"


def test_the_everyday_calls_of_the_api_reference_run(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/api.md's first section runs as written, and does what its comments say."""
    import contextlib
    import io

    monkeypatch.setenv("MEMOIR_DURABILITY", "never")
    text = (DOCS / "api.md").read_text(encoding="utf-8")
    section = text.split("## The everyday calls", 1)[1].split("\n## ", 1)[0]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    home = tmp_path / "home"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "docs/api.md", "exec"), {"home": home})
    printed = out.getvalue()
    assert "Entry added." in printed and "api-" in printed
    assert "port 9443" in printed and "'target': 'memory'" in printed
    assert "Why does the deploy to staging time out?" in printed
    with memoir.open(home) as h:
        texts = [e.text for e in h.state.memory.target("memory").entries]
        assert texts == []  # the staging entry forgotten, the Tuesday one reverted
        assert not h.state.memory.target("user").entries  # removed
        runs = [r for r in h.state.runs.values() if r.kind == "api"]
        assert len(runs) == 2 and any(r.reverted_by for r in runs)
