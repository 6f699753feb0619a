"""The offline reviewer hears the most explicit signals (issue 21 item 5): a request to
remember, a repo's rule in the project's notes, tool failures said in plain text, and
no near-duplicate of what the agent saved itself."""

from __future__ import annotations

from pathlib import Path

import pytest

import memoir
from memoir.messages import tool_error
from memoir.reviewers.rules import Finding, _same, extract


@pytest.mark.parametrize(("said", "target", "entry"), [
    ("Remember that our access tokens live 60 minutes.", "memory",
     "The access tokens live 60 minutes."),
    ("Please remember: the staging DB is read-only.", "memory",
     "The staging DB is read-only."),
    ("Note for the future: deploys need the VPN.", "memory", "Deploys need the VPN."),
    ("Keep in mind that the CI runs on GitHub Actions.", "memory",
     "The CI runs on GitHub Actions."),
    ("Please remember that I prefer tabs.", "user", "Prefers tabs."),
    ("Remember: my name is Ada.", "user", "Name: Ada."),
    # Said as facts (issue 37): a preference of the person, a convention of the project.
    ("Remember to always answer in French.", "user", "Asks to always answer in French."),
    ("Never push directly to main in this repo.", "memory",
     "Convention: never push directly to main in this repo."),
    ("Never push to main without asking me first.", "user",
     "Asks never to push to main without asking them first."),
    # base forms that end in "ed" are still instructions
    ("Never proceed without a review.", "user", "Asks never to proceed without a review."),
    ("Always embed the diagrams.", "user", "Asks to always embed the diagrams."),
])
def test_explicit_requests_and_project_rules_are_kept_where_they_belong(
        said: str, target: str, entry: str) -> None:
    assert [Finding(f.target, f.text) for f in extract(said)] == [Finding(target, entry)]


@pytest.mark.parametrize("said", ["Remember to call Bob today.",
                                  "Don't forget to update the changelog this time.",
                                  "Remember what we did?"])
def test_a_request_about_the_moment_is_not_kept(said: str) -> None:
    assert extract(said) == []


@pytest.mark.parametrize("said", [
    # a participle after never/always says a state, not an instruction
    "The repo is split: core/ is public, plugins/ is per customer and never shared.",
    "Our nightly tests are always skipped on public holidays.",
    # what the person is not (any more) is no role
    "I'm not a manager anymore.",
    "I am not an admin on this cluster.",
])
def test_a_state_or_a_denial_is_no_preference_or_role(said: str) -> None:
    assert [f for f in extract(said) if f.key in ("role", "preference") or
            f.text.startswith(("Asks", "Role", "Never", "Always"))] == []


@pytest.mark.parametrize(("output", "error"), [
    ("bash: pytest: command not found", "bash: pytest: command not found"),
    ("Traceback (most recent call last):\n  File \"m.py\", line 3, in <module>\n"
     "KeyError: 'DATABASE_URL'", "KeyError: 'DATABASE_URL'"),
    ("Error from server (Forbidden): pods is forbidden: User cannot list",
     "Error from server (Forbidden): pods is forbidden: User cannot list"),
    ("npm run build\n> tsc\nProcess finished with exit code 1",
     "Process finished with exit code 1"),
    ("HTTP/1.1 503 Service Unavailable", "HTTP/1.1 503 Service Unavailable"),
    ("curl: (22) The requested URL returned error\n404 Not Found", "404 Not Found"),
    ("fatal: not a git repository (or any of the parent directories): .git",
     "fatal: not a git repository (or any of the parent directories): .git"),
    ('{"exit_code": 2, "stdout": "", "stderr": "error: no such option --fast"}',
     "error: no such option --fast"),
])
def test_plain_text_tool_failures_are_tool_errors(output: str, error: str) -> None:
    assert tool_error(output) == error


@pytest.mark.parametrize("output", [
    "All 42 tests passed in 3.1s", "Process finished with exit code 0",
    '{"exit_code": 0, "stdout": "ok"}',
    "line 1\nline 2\nline 3\nline 4\nline 5\nthe docs say error: is printed on failure\n"
    "line 7\nline 8\nline 9\nline 10\nline 11\nline 12"])
def test_output_that_only_mentions_an_error_is_not_one(output: str) -> None:
    assert tool_error(output) is None


def test_a_recorded_plain_text_failure_feeds_the_insights(tmp_path: Path) -> None:
    with memoir.open(tmp_path / "home", create=True) as mem, mem.start_session() as s:
        s.record_turn([
            {"role": "user", "content": "Run the tests."},
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": "c", "type": "function",
                 "function": {"name": "terminal", "arguments": '{"cmd": "pytest"}'}}]},
            {"role": "tool", "tool_call_id": "c", "content": "bash: pytest: command not found"},
            {"role": "assistant", "content": "pytest is not installed here."}])
        seen = list(mem.state.insights.signatures.values())
    assert [(i.tool, i.example) for i in seen] == [
        ("terminal", "bash: pytest: command not found")]


def test_near_duplicates_are_one_entry() -> None:
    assert _same("The build uses ninja.", "Builds use ninja.")
    assert _same("Deploys go through CI.", "All deploys go through the CI.")
    assert not _same("Name: Ada.", "Name: Bob.")
    assert not _same("Prefers tabs.", "Prefers spaces.")


def test_the_review_adds_no_near_duplicate_of_what_the_agent_saved(tmp_path: Path) -> None:
    home = tmp_path / "home"
    memoir.open(home, create=True).close()
    (home / "config.yaml").write_text("memory:\n  nudge_interval: 1\nreviewers:\n"
                                      "  mode: sync\n", encoding="utf-8")
    with memoir.open(home) as mem:
        session = mem.start_session()
        session.call_tool("memory", {"action": "add", "target": "memory",
                                     "content": "All deploys go through the CI."})
        session.record_turn([{"role": "user", "content": "Deploys go through CI."},
                             {"role": "assistant", "content": "Noted."}])
        mem.learning.flush()
        assert mem.state.memory.target("memory").texts() == ["All deploys go through the CI."]
        assert list(mem.events(types=["review.completed"]))  # the review did run


@pytest.mark.parametrize(("said", "target", "entry"), [
    # A pronoun pointing back: alone, "Don't add features to it." says nothing.
    ("The legacy admin panel is being retired at the end of the year; don't add features "
     "to it.", "memory", "The legacy admin panel is being retired at the end of the year; "
     "don't add features to it."),
    # After "so": the reason is the fact worth keeping.
    ("Just FYI I'm a night owl, I do my best work after 10pm, so don't be surprised by "
     "late messages.", "user", "A night owl, does their best work after 10pm, so don't "
     "be surprised by late messages."),
    # What the rules found in the sentence's first clause is said by the whole sentence.
    ("I really can't stand when tools auto-format my files without asking, so please "
     "never run the formatter on save.", "user", "Really can't stand when tools "
     "auto-format their files without asking, so never run the formatter on save."),
])
def test_an_instruction_that_leans_on_its_sentence_is_kept_with_it(
        said: str, target: str, entry: str) -> None:
    assert [Finding(f.target, f.text) for f in extract(said)] == [Finding(target, entry)]


def test_a_leaning_instruction_of_the_moment_is_not_kept() -> None:
    assert extract("The build is broken today, so don't merge anything.") == []
    # A clause on its own is still judged on its own.
    assert [f.text for f in extract("My name is Ada and please always answer in French.")
            ] == ["Name: Ada.", "Asks to always answer in French."]
