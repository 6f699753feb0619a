"""The forgiving find-and-replace behind ``skill_manage patch``."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from memoir.skills.fuzzy import closest_lines, find_and_replace

CODE = "def main():\n    if ready:\n        run()\n    return 0\n"


def test_exact_match_replaces_the_text() -> None:
    r = find_and_replace(CODE, "run()", "start()")
    assert (r.content, r.count, r.strategy) == (CODE.replace("run()", "start()"), 1, "exact")


def test_trailing_whitespace_differences_match_whole_lines() -> None:
    r = find_and_replace(CODE, "if ready:   \n        run()", "if ready:\n        go()")
    assert r.ok and r.strategy == "line_trimmed"
    assert "go()" in r.content and "run()" not in r.content


def test_collapsed_spaces_match_runs_of_spaces_and_tabs() -> None:
    text = "x  =\t\t1\ny = 2\n"
    r = find_and_replace(text, "x = 1", "x = 3")
    assert (r.content, r.strategy) == ("x = 3\ny = 2\n", "whitespace_normalized")


def test_a_match_after_a_double_space_keeps_the_whole_run() -> None:
    r = find_and_replace("a  b  c", "b c", "B C")
    assert r.content == "a  B C"


def test_other_indentation_matches_and_the_replacement_is_reindented() -> None:
    # The model's base indent is 2 spaces where the file's is 4; its nesting (4 more)
    # is kept on top of the file's base.
    old = "  if ready:\n      run()"
    new = "  if ready:\n      run()\n      log()"
    r = find_and_replace(CODE, old, new)
    assert r.ok and r.strategy != "exact"
    assert r.content == "def main():\n    if ready:\n        run()\n        log()\n    return 0\n"


def test_typed_escapes_match_real_newlines() -> None:
    r = find_and_replace("one\ntwo\n", "one\\ntwo", "1\n2")
    assert (r.content, r.strategy) == ("1\n2\n", "escape_normalized")


def test_ascii_quotes_match_typographic_ones_and_keep_them() -> None:
    text = "Say \u201chello\u201d \u2014 then wait.\n"
    r = find_and_replace(text, 'Say "hello" -- then wait.', 'Say "hello" -- then leave.')
    assert r.ok and r.strategy == "unicode_normalized"
    assert r.content == "Say \u201chello\u201d \u2014 then leave.\n"


def test_block_anchor_matches_first_and_last_lines_with_a_similar_middle() -> None:
    text = "start\n  alpha beta gamma\nend\nother\n"
    r = find_and_replace(text, "start\n  alpha beta gamma!\nend", "begin\nfinish")
    assert r.ok and r.strategy == "block_anchor"
    assert r.content == "begin\nfinish\nother\n"


def test_ambiguous_match_needs_replace_all() -> None:
    text = "x = 1\nx = 1\n"
    refused = find_and_replace(text, "x = 1", "x = 2")
    assert not refused.ok and "Found 2 matches" in (refused.error or "")
    assert refused.content == text
    r = find_and_replace(text, "x = 1", "x = 2", replace_all=True)
    assert (r.content, r.count) == ("x = 2\nx = 2\n", 2)


def test_no_match_and_degenerate_inputs_are_errors() -> None:
    assert not find_and_replace(CODE, "nothing like it at all, truly", "x").ok
    assert not find_and_replace(CODE, "", "x").ok
    assert not find_and_replace(CODE, "run()", "run()").ok


def test_tab_escapes_become_tabs_where_the_file_has_tabs() -> None:
    text = "a:\n\tb\n"
    r = find_and_replace(text, "\tb", "\\tc")
    assert r.content == "a:\n\tc\n"
    literal = 'sep = "\\t"\n'
    r2 = find_and_replace(literal, 'sep = "\\t"', 'sep = "\\t|"')
    assert r2.content == 'sep = "\\t|"\n'


def test_escape_drift_in_a_loose_match_is_refused() -> None:
    text = "it's   here\n"
    r = find_and_replace(text, "it\\'s here", "it\\'s there")
    assert not r.ok and "backslash" in (r.error or "")


def test_closest_lines_points_at_the_likely_place() -> None:
    hint = closest_lines("if redy:", CODE)
    assert "   2|     if ready:" in hint


@given(st.text(alphabet="ab \n\t", max_size=40), st.text(alphabet="ab \n", min_size=1,
                                                          max_size=6))
def test_an_exact_unique_substring_is_always_replaced_exactly(prefix: str, needle: str) -> None:
    content = prefix + "<<" + needle + ">>"
    r = find_and_replace(content, "<<" + needle + ">>", "Z")
    assert r.content == prefix + "Z"


@given(st.text(max_size=60), st.text(min_size=1, max_size=10), st.text(max_size=10),
       st.booleans())
def test_a_failed_match_never_changes_the_text(content: str, old: str, new: str,
                                               replace_all: bool) -> None:
    r = find_and_replace(content, old, new, replace_all)
    if not r.ok:
        assert r.content == content and r.count == 0
    else:
        assert r.count >= 1
