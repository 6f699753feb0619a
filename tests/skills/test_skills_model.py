"""Skill validation: names, categories, SKILL.md frontmatter, sizes and file paths."""

from __future__ import annotations

import pytest

from memoir.skills.model import (
    MAX_FILE_BYTES,
    MAX_SKILL_CHARS,
    canonical_file_path,
    check_category,
    check_file_content,
    check_found_skill_md,
    check_name,
    check_skill_md,
    description_of,
    matches_platform,
    parse_frontmatter,
)


def skill_md(name: str = "foo", description: str = "does foo", body: str = "# Foo\n\nStep 1.\n",
             extra: str = "") -> str:
    return f"---\nname: {name}\ndescription: {description}\n{extra}---\n{body}"


@pytest.mark.parametrize("name", ["a", "foo", "foo-bar_baz.v2", "0day", "x" * 64])
def test_valid_names_pass(name: str) -> None:
    assert check_name(name) is None


@pytest.mark.parametrize("name", ["", "Foo", "-foo", ".foo", "_foo", "foo bar", "foo/bar",
                                  "x" * 65, "fóo", None, 3])
def test_invalid_names_are_refused(name: object) -> None:
    assert check_name(name) is not None


@pytest.mark.parametrize("category", [None, "", "  ", "devops", "data-science"])
def test_valid_or_absent_categories_pass(category: object) -> None:
    assert check_category(category) is None


@pytest.mark.parametrize("category", ["a/b", "a\\b", "Dev", "x" * 65, "../x", 7])
def test_categories_must_be_one_folder_name(category: object) -> None:
    assert check_category(category) is not None


def test_a_well_formed_skill_md_passes() -> None:
    assert check_skill_md(skill_md(), "foo") is None


def test_a_leading_bom_is_tolerated() -> None:
    assert check_skill_md("\ufeff" + skill_md(), "foo") is None


@pytest.mark.parametrize(("content", "fragment"), [
    ("", "empty"),
    ("   \n", "empty"),
    ("# no frontmatter\n", "must start with YAML frontmatter"),
    ("---\nname: foo\ndescription: d\n", "closing"),
    ("---\n- a\n- b\n---\nbody\n", "mapping"),
    ("---\nname: [\n---\nbody\n", "YAML"),
    ("---\ndescription: d\n---\nbody\n", "'name'"),
    ("---\nname: foo\n---\nbody\n", "'description'"),
    ("---\nname: foo\ndescription: d\n---\n  \n\n", "content after the frontmatter"),
])
def test_malformed_skill_md_is_refused_with_a_reason(content: str, fragment: str) -> None:
    problem = check_skill_md(content, "foo")
    assert problem is not None and fragment in problem


def test_the_frontmatter_name_may_differ_from_the_skill_name_as_in_hermes() -> None:
    # The folder names the skill; the frontmatter's name is what the index shows.
    assert check_skill_md(skill_md(name="other"), "foo") is None
    assert check_skill_md(skill_md(name="x" * 65), "foo") is None


def test_a_skill_md_a_person_placed_is_taken_as_text() -> None:
    assert check_found_skill_md("# just a body, no frontmatter\n") is None
    assert check_found_skill_md("---\nname: x\ndescription: d\n---\n") is None  # no body
    assert check_found_skill_md("  \n") == "SKILL.md is empty."
    assert "NUL" in (check_found_skill_md("a\0b") or "")


def test_limits_on_name_description_and_size() -> None:
    assert check_skill_md(skill_md(description="d" * 1024), "foo") is None
    assert "1024" in (check_skill_md(skill_md(description="d" * 1025), "foo") or "")
    big = skill_md(body="x" * MAX_SKILL_CHARS)
    assert "100,000" in (check_skill_md(big, "foo") or "")


def test_support_files_are_limited_in_bytes_and_characters() -> None:
    assert check_file_content("x" * MAX_SKILL_CHARS, "references/a.md") is None
    assert check_file_content("x" * (MAX_SKILL_CHARS + 1), "references/a.md") is not None
    # 4-byte characters: under the character limit but over 1 MiB.
    wide = "😀" * (MAX_FILE_BYTES // 4 + 1)
    assert len(wide) < MAX_SKILL_CHARS * 3
    assert "bytes" in (check_file_content(wide, "assets/e.txt") or "")


@pytest.mark.parametrize(("given", "expected"), [
    ("references/api.md", "references/api.md"),
    # Written as pathlib (and so Hermes) reads them.
    ("references//a.md", "references/a.md"),
    ("references/./a.md", "references/a.md"),
    ("./references/a.md", "references/a.md"),
    ("templates/sub/x.yaml", "templates/sub/x.yaml"),
    ("scripts/run.sh", "scripts/run.sh"),
    ("assets/logo.svg", "assets/logo.svg"),
    ("SKILL.md", "SKILL.md"),
    ("foo/SKILL.md", "SKILL.md"),
])
def test_acceptable_file_paths_are_canonical(given: str, expected: str) -> None:
    assert canonical_file_path(given, "foo") == (expected, None)


@pytest.mark.parametrize("given", [
    "../x.md", "references/../../x.md", "/etc/passwd", "references/", "references",
    "other/a.md", "references\\a.md", "bar/SKILL.md", "", "references/a\0.md", "..",
])
def test_path_escapes_and_other_folders_are_refused(given: str) -> None:
    path, problem = canonical_file_path(given, "foo")
    assert path is None and problem


def test_frontmatter_parses_to_a_mapping_and_body() -> None:
    frontmatter, body = parse_frontmatter(skill_md(extra="tags: [a, b]\n"))
    assert frontmatter == {"name": "foo", "description": "does foo", "tags": ["a", "b"]}
    assert body == "# Foo\n\nStep 1.\n"


def test_description_falls_back_to_the_first_body_line() -> None:
    assert description_of(skill_md()) == "does foo"
    assert description_of("---\nname: x\n---\n# Title\n\nFirst line.\n") == "First line."
    assert description_of(skill_md(description="d" * 2000)).endswith("...")


def test_platform_filter_follows_the_platforms_list() -> None:
    assert matches_platform({}, "linux")
    assert matches_platform({"platforms": ["linux"]}, "linux")
    assert not matches_platform({"platforms": ["macos", "windows"]}, "linux")
    assert matches_platform({"platforms": "macos"}, "darwin")
