"""Find-and-replace that forgives the ways a model misquotes a file.

``skill_manage patch`` sends ``old_string`` as the model remembers it: often with
other indentation, trailing spaces, collapsed runs of spaces, ``\\n`` typed as two
characters, or ASCII quotes where the file has typographic ones.  Like Hermes
(tools/fuzzy_match.py), :func:`find_and_replace` tries a chain of matchers from
strict to loose and uses the first that finds anything:

1. ``exact`` — the text as given;
2. ``line_trimmed`` — whole lines, each compared without leading/trailing whitespace;
3. ``whitespace_normalized`` — runs of spaces and tabs count as one space;
4. ``indentation_flexible`` — whole lines, leading whitespace ignored;
5. ``escape_normalized`` — ``\\n``, ``\\t``, ``\\r`` typed as escapes mean the characters;
6. ``trimmed_boundary`` — whole lines, whitespace ignored on the first and last only;
7. ``unicode_normalized`` — typographic quotes, dashes, ellipsis and no-break spaces
   compare as their ASCII spellings (then exact, then line-trimmed);
8. ``block_anchor`` — first and last lines equal (trimmed), the middle similar
   (≥50% for a single candidate, ≥70% when several);
9. ``context_aware`` — a block of as many lines where at least half the lines are
   ≥80% similar.

A match must be unique unless ``replace_all``.  After a loose match the replacement
is fitted to the file: re-indented from the model's base indentation to the file's,
and typographic characters the model flattened to ASCII are kept where the model did
not change them.  After any match, ``\\t``/``\\r`` escapes in the replacement become
real characters where the matched text has them.  A loose match whose old and new
strings both hold ``\\'`` or ``\\"`` while the file does not is refused: the
backslash came from the tool-call transport (escape drift).

Where whitespace runs are collapsed, a match is mapped back to the exact run
boundaries in the file (Hermes's mapping can start such a match one space early or
leave part of a trailing run behind).
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from memoir import lazyre

__all__ = ["STRATEGIES", "FuzzyResult", "closest_lines", "find_and_replace"]

Span = tuple[int, int]

_TYPOGRAPHIC = {
    "\u201c": '"', "\u201d": '"', "\u2018": "'", "\u2019": "'",
    "\u2014": "--", "\u2013": "-", "\u2026": "...", "\u00a0": " ",
}
_BLANKS = lazyre.compile(r"[ \t]+")


@dataclass(frozen=True)
class FuzzyResult:
    """The new text and how many places changed, or the original text and an error."""

    content: str
    count: int
    strategy: str | None
    error: str | None

    @property
    def ok(self) -> bool:
        return self.error is None


# -- line helpers ----------------------------------------------------------------------------


def _line_starts(lines: Sequence[str]) -> list[int]:
    starts, pos = [], 0
    for line in lines:
        starts.append(pos)
        pos += len(line) + 1
    return starts


def _line_span(lines: Sequence[str], starts: Sequence[int], first: int, count: int) -> Span:
    """Offsets from the start of line ``first`` to the end of line ``first+count-1``
    (its newline excluded)."""
    last = first + count - 1
    return starts[first], starts[last] + len(lines[last])


def _line_windows(
    content: str, pattern: str, key: Callable[[str], str],
    first_last: Callable[[str], str] | None = None,
) -> list[Span]:
    """Blocks of whole lines that equal the pattern's lines once each line is passed
    through ``key`` (``first_last`` instead, for the first and last lines, if given)."""
    lines = content.split("\n")
    wanted = pattern.split("\n")
    n = len(wanted)
    edge = first_last or key

    def norm(block: Sequence[str]) -> list[str]:
        out = [key(line) for line in block]
        out[0] = edge(block[0])
        out[-1] = edge(block[-1])
        return out

    target = norm(wanted)
    starts = _line_starts(lines)
    return [
        _line_span(lines, starts, i, n)
        for i in range(len(lines) - n + 1)
        if norm(lines[i : i + n]) == target
    ]


# -- the matchers --------------------------------------------------------------------------------


def _exact(content: str, pattern: str) -> list[Span]:
    spans, pos = [], content.find(pattern)
    while pos != -1:
        spans.append((pos, pos + len(pattern)))
        # Continue after the whole match: overlapping matches cannot all be replaced.
        pos = content.find(pattern, pos + len(pattern))
    return spans


def _line_trimmed(content: str, pattern: str) -> list[Span]:
    return _line_windows(content, pattern, str.strip)


def _whitespace_normalized(content: str, pattern: str) -> list[Span]:
    squeezed, origin = _squeeze(content)
    spans = []
    for start, end in _exact(squeezed, _BLANKS.sub(" ", pattern)):
        spans.append((origin[start][0], origin[end - 1][1]))
    return spans


def _squeeze(text: str) -> tuple[str, list[Span]]:
    """``text`` with blank runs collapsed, and for each kept character the span of
    the original characters it stands for."""
    out: list[str] = []
    origin: list[Span] = []
    pos = 0
    for run in _BLANKS.finditer(text):
        for i in range(pos, run.start()):
            out.append(text[i])
            origin.append((i, i + 1))
        out.append(" ")
        origin.append((run.start(), run.end()))
        pos = run.end()
    for i in range(pos, len(text)):
        out.append(text[i])
        origin.append((i, i + 1))
    return "".join(out), origin


def _indentation_flexible(content: str, pattern: str) -> list[Span]:
    return _line_windows(content, pattern, str.lstrip)


def _escape_normalized(content: str, pattern: str) -> list[Span]:
    unescaped = pattern.replace("\\n", "\n").replace("\\t", "\t").replace("\\r", "\r")
    return _exact(content, unescaped) if unescaped != pattern else []


def _trimmed_boundary(content: str, pattern: str) -> list[Span]:
    return _line_windows(content, pattern, lambda line: line, first_last=str.strip)


def _plain(text: str) -> str:
    for char, ascii_form in _TYPOGRAPHIC.items():
        text = text.replace(char, ascii_form)
    return text


def _plain_offsets(text: str) -> list[int]:
    """For each index of ``text`` (and one past the end), its index in ``_plain(text)``."""
    offsets, pos = [], 0
    for char in text:
        offsets.append(pos)
        pos += len(_TYPOGRAPHIC.get(char, char))
    offsets.append(pos)
    return offsets


def _unicode_normalized(content: str, pattern: str) -> list[Span]:
    plain_content, plain_pattern = _plain(content), _plain(pattern)
    if plain_content == content and plain_pattern == pattern:
        return []
    found = _exact(plain_content, plain_pattern) or _line_trimmed(plain_content, plain_pattern)
    if not found:
        return []
    offsets = _plain_offsets(content)
    first_at: dict[int, int] = {}
    for i, off in enumerate(offsets[:-1]):
        first_at.setdefault(off, i)
    spans = []
    for start, end in found:
        if start not in first_at:
            continue  # the match begins inside an expanded character
        orig_start = orig_end = first_at[start]
        while orig_end < len(content) and offsets[orig_end] < end:
            orig_end += 1
        spans.append((orig_start, orig_end))
    return spans


def _similarity(a: str, b: str) -> float:
    return difflib.SequenceMatcher(None, a, b).ratio()


def _block_anchor(content: str, pattern: str) -> list[Span]:
    wanted = _plain(pattern).split("\n")
    n = len(wanted)
    if n < 2:
        return []
    lines = _plain(content).split("\n")
    first, last = wanted[0].strip(), wanted[-1].strip()
    candidates = [
        i for i in range(len(lines) - n + 1)
        if lines[i].strip() == first and lines[i + n - 1].strip() == last
    ]
    threshold = 0.5 if len(candidates) == 1 else 0.7
    middle = "\n".join(wanted[1:-1])
    original = content.split("\n")
    starts = _line_starts(original)
    spans = []
    for i in candidates:
        score = 1.0 if n <= 2 else _similarity("\n".join(lines[i + 1 : i + n - 1]), middle)
        if score >= threshold:
            spans.append(_line_span(original, starts, i, n))
    return spans


def _context_aware(content: str, pattern: str) -> list[Span]:
    wanted = [line.strip() for line in pattern.split("\n")]
    n = len(wanted)
    lines = content.split("\n")
    stripped = [line.strip() for line in lines]
    starts = _line_starts(lines)
    spans = []
    for i in range(len(lines) - n + 1):
        close = sum(
            1 for p, c in zip(wanted, stripped[i : i + n], strict=True)
            if _similarity(p, c) >= 0.8
        )
        if close >= n * 0.5:
            spans.append(_line_span(lines, starts, i, n))
    return spans


#: The matchers in the order they are tried.
STRATEGIES: tuple[tuple[str, Callable[[str, str], list[Span]]], ...] = (
    ("exact", _exact),
    ("line_trimmed", _line_trimmed),
    ("whitespace_normalized", _whitespace_normalized),
    ("indentation_flexible", _indentation_flexible),
    ("escape_normalized", _escape_normalized),
    ("trimmed_boundary", _trimmed_boundary),
    ("unicode_normalized", _unicode_normalized),
    ("block_anchor", _block_anchor),
    ("context_aware", _context_aware),
)


# -- fitting the replacement to the file ---------------------------------------------------------


def _indent_of(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def _first_text_line(text: str) -> str | None:
    return next((line for line in text.split("\n") if line.strip()), None)


def _reindent(region: str, old: str, new: str) -> str:
    """``new`` moved from the model's base indentation (``old``'s first non-blank
    line) to the file's (``region``'s), keeping the model's relative nesting."""
    old_first, file_first = _first_text_line(old), _first_text_line(region)
    if not new or old_first is None or file_first is None:
        return new
    model_base, file_base = _indent_of(old_first), _indent_of(file_first)
    if model_base == file_base:
        return new
    out = []
    for line in new.split("\n"):
        if not line.strip():
            out.append(line)
        elif _indent_of(line).startswith(model_base):
            out.append(file_base + line[len(model_base) :])
        else:
            out.append(file_base + line.lstrip(" \t"))
    return "\n".join(out)


def _unescape_controls(new: str, regions: str) -> str:
    # Models often send a tab or CR as the two characters \t / \r; only convert where
    # the file's matched text really has that control character (a literal "\t" in
    # source code stays literal).
    if "\\t" in new and "\t" in regions:
        new = new.replace("\\t", "\t")
    if "\\r" in new and "\r" in regions:
        new = new.replace("\\r", "\r")
    return new


def _keep_typography(region: str, old: str, new: str) -> str:
    """Apply the model's edit (``old`` → ``new``, both ASCII) to ``region`` so the
    file's typographic characters survive wherever the model changed nothing."""
    plain_old = _plain(old)
    if _plain(region) != plain_old:
        return new
    offsets = _plain_offsets(region)
    out = []
    ops = difflib.SequenceMatcher(None, plain_old, new).get_opcodes()
    for tag, i1, i2, j1, j2 in ops:
        if tag == "equal":
            lo = next(k for k, off in enumerate(offsets) if off >= i1)
            hi = next(k for k, off in enumerate(offsets) if off >= i2)
            out.append(region[lo:hi])
        elif tag in ("replace", "insert"):
            out.append(new[j1:j2])
    return "".join(out)


def _escape_drift(regions: str, old: str, new: str) -> str | None:
    for suspect in ("\\'", '\\"'):
        if suspect in new and suspect in old and suspect not in regions:
            # Hermes's wording, with the tool a memoir agent re-reads a skill with.
            return (
                f"Escape-drift detected: old_string and new_string contain the literal "
                f"sequence {suspect!r} but the matched region of the file does not. This is "
                "almost always a tool-call serialization artifact where an apostrophe or "
                "quote got prefixed with a spurious backslash. Re-read the file with "
                "skill_view and pass old_string/new_string without backslash-escaping "
                f"{suspect[1]!r} characters."
            )
    return None


def _without_overlaps(spans: Sequence[Span]) -> list[Span]:
    kept: list[Span] = []
    for span in sorted(spans):
        if not kept or span[0] >= kept[-1][1]:
            kept.append(span)
    return kept


#: The error when no matcher finds ``old`` (Hermes's wording; a hint may follow it).
NOT_FOUND = "Could not find a match for old_string in the file"


def find_and_replace(
    content: str, old: str, new: str, replace_all: bool = False
) -> FuzzyResult:
    """Replace ``old`` by ``new`` in ``content`` with the first matcher that finds it."""
    if not old:
        return FuzzyResult(content, 0, None, "old_string cannot be empty")
    if old == new:
        return FuzzyResult(content, 0, None, "old_string and new_string are identical")
    for strategy, matcher in STRATEGIES:
        spans = matcher(content, old)
        if not spans:
            continue
        if len(spans) > 1 and not replace_all:
            return FuzzyResult(content, 0, None, (
                f"Found {len(spans)} matches for old_string. Provide more context to make it "
                "unique, or use replace_all=True."
            ))
        spans = _without_overlaps(spans)
        count = len(spans)
        regions = "".join(content[s:e] for s, e in spans)
        if strategy != "exact":
            drift = _escape_drift(regions, old, new)
            if drift:
                return FuzzyResult(content, 0, None, drift)
        fitted = _unescape_controls(new, regions)
        result = content
        for start, end in reversed(spans):
            replacement = fitted
            if strategy == "unicode_normalized":
                replacement = _keep_typography(content[start:end], old, replacement)
            if strategy != "exact":
                replacement = _reindent(content[start:end], old, replacement)
            result = result[:start] + replacement + result[end:]
        return FuzzyResult(result, count, strategy, None)
    return FuzzyResult(content, 0, None, NOT_FOUND)


def closest_lines(old: str, content: str, context: int = 2, limit: int = 3) -> str:
    """Numbered snippets of the lines most like ``old``'s first line, for an error."""
    anchor = next((line.strip() for line in old.splitlines() if line.strip()), "")
    lines = content.splitlines()
    if not anchor or not lines:
        return ""
    scored = sorted(
        ((_similarity(anchor, line.strip()), i) for i, line in enumerate(lines) if line.strip()),
        key=lambda pair: -pair[0],
    )
    height = len(old.splitlines())
    snippets, seen = [], set()
    for score, i in scored[:limit]:
        if score <= 0.3:
            break
        lo, hi = max(0, i - context), min(len(lines), i + height + context)
        if (lo, hi) in seen:
            continue
        seen.add((lo, hi))
        snippets.append("\n".join(f"{k + 1:4d}| {lines[k]}" for k in range(lo, hi)))
    return "\n---\n".join(snippets)
