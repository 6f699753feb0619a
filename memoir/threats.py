"""Threat scanning for memory text, matching Hermes's ``scan_for_threats`` (spec §1.5).

Memory entries are pasted into the system prompt, so a write that tries to steer the
agent, leak secrets or plant a backdoor is refused, and an entry that slipped in by
hand is masked when the prompt is built.  This module reproduces which pattern ids
Hermes reports for a text, in Hermes's order, with its own regexes and matchers::

    scan_for_threats(text, scope)      every finding: invisible characters, then patterns
    first_threat_id(text)              the finding a refused write reports
    first_threat_message(text)         the refusal message for that finding
    sanitize_for_prompt(entries, f)    entries as the system prompt may show them

A scan truncates the text to :data:`MAX_SCAN_CHARS`, reports each invisible character
(checked on the raw text), then NFKC-normalises and searches each pattern of the
scope case-insensitively.  Scopes nest: ``all`` ⊂ ``context`` ⊂ ``strict``.

Two rules are memoir's own, where Hermes is not deterministic or not fast:

* Invisible characters are reported in order of first appearance.  Hermes reports them
  in the iteration order of a frozenset of strings, which changes with the process's
  hash seed, so its order (and hence its refusal message) varies between runs.
* A scan takes time close to linear in the text, whatever the text.  Hermes's patterns
  with unbounded gaps (``.*``, ``[^>]*``) backtrack quadratically or worse on hostile
  input (a 64 KiB write can take minutes); here those gaps are resolved by looking up
  anchor positions instead of by backtracking.  CPython's own NFKC is quadratic in a
  run of combining marks, so long texts are normalised piecewise to the same result.

Matching runs on a case-folded copy of the normalised text rather than with
``re.IGNORECASE``: every pattern is ASCII, and besides ASCII letters only four code
points fold onto an ASCII letter under Python's ignore-case rules (U+0130 and U+0131,
the dotted and dotless i; U+017F, long s; U+212A, the Kelvin sign), so the fold is exact
and several times faster.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final, Literal, get_args

from memoir.errors import ValidationError

__all__ = [
    "INVISIBLE_CHARS",
    "MAX_SCAN_CHARS",
    "OWN_PATTERN_IDS",
    "PATTERN_IDS",
    "SCOPES",
    "Scope",
    "all_threats",
    "blocked_placeholder",
    "first_threat_id",
    "first_threat_message",
    "pattern_scope",
    "prompt_threats",
    "redacted_preview",
    "sanitize_for_prompt",
    "scan_beyond_hermes",
    "scan_for_threats",
]

MAX_SCAN_CHARS: Final = 65_536
"""Only this many leading characters of a text are scanned (Hermes's limit)."""

INVISIBLE_CHARS: Final[frozenset[str]] = frozenset(
    {
        "\u200b",  # zero width space
        "\u200c",  # zero width non-joiner
        "\u200d",  # zero width joiner
        "\u2060",  # word joiner
        "\u2062",  # invisible times
        "\u2063",  # invisible separator
        "\u2064",  # invisible plus
        "\ufeff",  # zero width no-break space (byte order mark)
        *(chr(cp) for cp in range(0x202A, 0x202F)),  # bidi embeddings and overrides
        *(chr(cp) for cp in range(0x2066, 0x206A)),  # bidi isolates
    }
)
"""The 17 characters a scan reports as ``invisible_unicode_U+XXXX``."""

Scope = Literal["all", "context", "strict"]
"""How much to look for; each scope includes the patterns of the ones before it."""

SCOPES: Final[tuple[Scope, ...]] = get_args(Scope)

_INVISIBLE_PREFIX: Final = "invisible_unicode_"
_BLOCKED_PREFIX: Final = "[BLOCKED:"

_RANK: Final[dict[str, int]] = {scope: rank for rank, scope in enumerate(SCOPES)}

# ---------------------------------------------------------------------------------------
# Matchers.  Each takes the folded text (NFKC, then lower-cased) and says whether its
# pattern occurs anywhere in it.

# Hermes's "filler": up to eight words, each followed by whitespace.  The possessive
# quantifiers are safe because a word is always followed by whitespace and whitespace
# by a word or a keyword, so giving back characters could never help a match; only the
# word count is backtracked over.
_FILLER: Final = r"(?:\w++\s++){0,8}"


class _Search:
    """A pattern that a plain regex search finds in linear time."""

    def __init__(self, pattern: str) -> None:
        self._regex = re.compile(pattern)

    def __call__(self, text: str) -> bool:
        return self._regex.search(text) is not None


class _HeadThenTail:
    """``head`` then, before the next ``barrier`` character and at most ``limit``
    characters on, ``tail``.

    This is the shape ``head [^barrier]{0,limit} tail`` where ``head`` ends in whatever
    the gap may start after (typically ``\\s+``) and ``tail`` starts with a character
    that is neither whitespace nor the barrier.  A backtracking regex retries the gap
    from every head, which is quadratic when many heads share a line; here each head
    only asks where the next tail and the next barrier are (the nearest tail is the
    only one that can be within the limit), and both answers are reused by later
    heads until they fall behind.
    """

    def __init__(self, head: str, tail: str, barrier: str, limit: int) -> None:
        self._head = re.compile(head)
        self._tail = re.compile(tail)
        self._barrier = barrier
        self._limit = limit

    def __call__(self, text: str) -> bool:
        tail_at = barrier_at = -1
        for head in self._head.finditer(text):
            gap = head.end()
            if tail_at < gap:
                tail = self._tail.search(text, gap)
                if tail is None:
                    return False
                tail_at = tail.start()
            if barrier_at < gap:
                barrier_at = text.find(self._barrier, gap)
                if barrier_at < 0:
                    barrier_at = len(text)
            if tail_at < barrier_at and tail_at - gap <= self._limit:
                return True
        return False


class _Chain:
    """Words joined by Hermes's ``\\s+[^\\n]{0,limit}\\s+`` gap: ``w1 … w2 … w3``.

    The gap's middle holds no newline but ``\\s`` does, so two words link when the
    text between them is a whitespace run of two or more characters, or is
    ``<whitespace><at most limit characters, no newline><whitespace>``.  Taking the
    whole run after the first word and the whole run before the second as the ``\\s+``
    parts is always the best choice, which reduces the test to: the text strictly
    between the two runs holds no newline and is at most ``limit`` long — so of the
    earlier words, the nearest one decides.  Occurrences are linked level by level
    with a binary search, in O(n log n) instead of the regex's polynomial backtracking.
    """

    def __init__(self, *words: str, limit: int) -> None:
        self._limit = limit
        # One match per occurrence of the word, starting where the whitespace before it
        # starts (or at the word).  Groups: the run before, the run after.
        self._words = tuple(
            re.compile(rf"(?<!\s)(\s*+)(?:{word})(?=(\s*+))") for word in words
        )

    def __call__(self, text: str) -> bool:
        first, *rest = self._words
        # Occurrences of the previous word that a chain reaches and that whitespace
        # follows, so a gap can start there: (end of word, end of its run), in text order.
        reached = [(m.start(2), m.end(2)) for m in first.finditer(text) if m.end(2) > m.start(2)]
        for level, regex in enumerate(rest, start=1):
            last = level == len(rest)
            trails = [trail for _, trail in reached]
            end_by_trail = dict((trail, end) for end, trail in reached)
            linked: list[tuple[int, int]] = []
            newline = -1  # the last newline before ``lead``; leads only grow
            for m in regex.finditer(text):
                lead, word = m.start(), m.end(1)
                if lead == word:
                    continue  # the gap must end in whitespace
                end = end_by_trail.get(word)
                if end is not None and word - end >= 2:
                    ok = True  # one run of whitespace, split into both \s+ parts
                else:
                    newline = max(newline, text.rfind("\n", newline + 1, lead))
                    i = bisect.bisect_left(trails, lead) - 1  # the nearest earlier word
                    ok = i >= 0 and trails[i] > newline and lead - trails[i] <= self._limit
                if ok:
                    if last:
                        return True
                    if m.end(2) > m.start(2):
                        linked.append((m.start(2), m.end(2)))
            if not linked:
                return False
            reached = linked
        return False


class _CommentWith:
    """An HTML comment holding a keyword: ``<!--[^>]{0,limit}keyword[^>]{0,limit}-->``.

    The comment runs from ``<!--`` to the first ``>`` after it, which must close a
    ``-->``.  Between an opener and that ``>`` a keyword must start at most ``limit``
    characters after the opener and end at most ``limit`` characters before the
    ``-->``; openers between the first and the ``>`` only move the start later, so the
    keywords of the stretch are found once and each opener checks the window it allows.
    """

    def __init__(self, keyword: str, limit: int) -> None:
        self._keyword = re.compile(keyword)
        self._limit = limit

    def __call__(self, text: str) -> bool:
        pos = 0
        limit = self._limit
        while (opener := text.find("<!--", pos)) >= 0:
            close = text.find(">", opener + 4)
            if close < 0:
                return False
            end = close - 2
            if text.startswith("--", end):
                # Only keywords ending within `limit` of the close can match; each needs
                # an opener at most `limit` before it.
                openers = [m.start() for m in re.finditer("<!--", text[opener:end])]
                for m in self._keyword.finditer(text, max(opener + 4, end - limit - 16), end):
                    if end - m.end() > limit:
                        continue
                    latest = m.start() - 4 - opener  # relative to the first opener
                    i = bisect.bisect_right(openers, latest) - 1
                    if i >= 0 and latest - openers[i] <= limit:
                        return True
            pos = close + 1
        return False


# ---------------------------------------------------------------------------------------
# The patterns, in Hermes's order.  ``needs`` lists words a match cannot do without:
# every group must have a member in the folded text.  Substring tests are far cheaper
# than any regex, so a clean entry is settled by them alone; the first group holds the
# rarest words, and only patterns whose first group is present are looked at further.


@dataclass(frozen=True, slots=True)
class _Pattern:
    id: str
    scope: Scope
    needs: tuple[tuple[str, ...], ...]
    found: Callable[[str], bool]


_CONFIG_VERB: Final = r"(?:update|modify|edit|write|change|append|add\s++to)\s++"
_SECRET_VAR: Final = r"\$\{?\w*(?:key|token|secret|password|credential|api)"

_PATTERNS: Final[tuple[_Pattern, ...]] = (
    # --- all -------------------------------------------------------------------------
    _Pattern(
        "prompt_injection", "all", (("instructions",), ("ignore",)),
        _Search(rf"ignore\s++{_FILLER}(?:previous|all|above|prior)\s++{_FILLER}instructions"),
    ),
    _Pattern(
        "sys_prompt_override", "all", (("override",),),
        _Search(r"system\s++prompt\s++override"),
    ),
    _Pattern(
        "disregard_rules", "all", (("disregard",),),
        _Search(
            rf"disregard\s++{_FILLER}(?:your|all|any)\s++{_FILLER}"
            r"(?:instructions|rules|guidelines)"
        ),
    ),
    _Pattern(
        "bypass_restrictions", "all", (("restrictions", "limits", "rules"), ("act",)),
        _Search(
            rf"act\s++as\s++(?:if|though)\s++{_FILLER}you\s++{_FILLER}"
            rf"(?:have\s++no|don't\s++have)\s++{_FILLER}(?:restrictions|limits|rules)"
        ),
    ),
    _Pattern(
        "html_comment_injection", "all", (("<!--",), ("-->",)),
        _CommentWith(r"ignore|override|system|secret|hidden", 512),
    ),
    _Pattern(
        "hidden_div", "all", (("div",), ("none",)),
        _HeadThenTail(r"<\s*+div\s++style\s*+=\s*+[\"']", r"display\s*+:\s*+none", ">", 2048),
    ),
    _Pattern(
        "translate_execute", "all", (("translate",), ("into",)),
        _Chain("translate", "into", r"and\s++(?:execute|run|eval)", limit=512),
    ),
    _Pattern(
        "deception_hide", "all", (("tell",), ("user",)),
        _Search(rf"do\s++not\s++{_FILLER}tell\s++{_FILLER}the\s++user"),
    ),
    # --- context: identity attacks ---------------------------------------------------
    _Pattern(
        "role_hijack", "context", (("now",), ("you",)),
        _Search(rf"you\s++are\s++{_FILLER}now\s++(?:a|an|the)\s"),
    ),
    _Pattern(
        "role_pretend", "context", (("pretend",),),
        _Search(rf"pretend\s++{_FILLER}(?:you\s++are|to\s++be)\s"),
    ),
    _Pattern(
        "leak_system_prompt", "context", (("prompt",), ("output",)),
        _Search(rf"output\s++{_FILLER}(?:system|initial)\s++prompt"),
    ),
    _Pattern(
        "remove_filters", "context", (("without",),),
        _Search(
            rf"(?:respond|answer|reply)\s++without\s++{_FILLER}"
            r"(?:restrictions|limitations|filters|safety)"
        ),
    ),
    _Pattern(
        "fake_update", "context", (("been",),),
        _Search(rf"you\s++have\s++been\s++{_FILLER}(?:updated|upgraded|patched)\s++to"),
    ),
    _Pattern(
        "identity_override", "context", (("yourself",),),
        _Search(r"\bname\s++yourself\s++\w"),
    ),
    # --- context: command and control ------------------------------------------------
    _Pattern(
        "c2_node_registration", "context", (("node",), ("register",)),
        _Search(r"register\s++(?:as\s++)?(?:a\s*+)?node"),
    ),
    _Pattern(
        "c2_heartbeat", "context", (("heartbeat", "beacon", "check"),),
        _Search(r"(?:heartbeat|beacon|check[\s-]?in)\s++(?:to|with)\s"),
    ),
    _Pattern(
        "c2_task_pull", "context", (("pull",), ("task",)),
        _Search(r"pull\s++(?:down\s++)?(?:new\s++)?task(?:ing|s)?\b"),
    ),
    _Pattern(
        "c2_network_connect", "context", (("network",),),
        _Search(r"connect\s++to\s++the\s++network\b"),
    ),
    _Pattern(
        "forced_action", "context", (("must",),),
        _Search(r"you\s++must\s++(?:\w++\s++){0,3}(?:register|connect|report|beacon)\b"),
    ),
    # --- context: anti-forensics and environment tampering ---------------------------
    _Pattern(
        "anti_forensic_oneliner", "context", (("liner",),),
        _Search(r"only\s++use\s++one[\s-]?liners?\b"),
    ),
    _Pattern(
        "anti_forensic_disk", "context", (("disk",), ("never",)),
        _Search(rf"never\s++{_FILLER}(?:create|write)\s++{_FILLER}(?:script|file)\s++{_FILLER}disk"),
    ),
    _Pattern(
        "env_var_unset_agent", "context", (("unset",),),
        _Search(r"unset\s++\w*(?:claude|codex|hermes|agent|openai|anthropic)"),
    ),
    # --- context: named C2 tooling ---------------------------------------------------
    _Pattern(
        "known_c2_framework", "context",
        (("cobalt", "sliver", "havoc", "mythic", "metasploit", "brainworm"),),
        _Search(r"\b(?:cobalt\s*+strike|sliver|havoc|mythic|metasploit|brainworm)\b"),
    ),
    _Pattern(
        "c2_explicit", "context", (("c2",),),
        _Search(r"\bc2\s++(?:server|channel|infrastructure|beacon)\b"),
    ),
    _Pattern(
        "c2_explicit_long", "context", (("control",),),
        _Search(r"\bcommand\s++and\s++control\b"),
    ),
    # --- all: exfiltration -----------------------------------------------------------
    _Pattern(
        "exfil_curl", "all", (("curl",), ("$",)),
        _HeadThenTail(r"curl\s++", _SECRET_VAR, "\n", 2048),
    ),
    _Pattern(
        "exfil_wget", "all", (("wget",), ("$",)),
        _HeadThenTail(r"wget\s++", _SECRET_VAR, "\n", 2048),
    ),
    _Pattern(
        "read_secrets", "all",
        ((".env", "credentials", ".netrc", ".pgpass", ".npmrc", ".pypirc"), ("cat",)),
        _HeadThenTail(
            r"cat\s++", r"\.env|credentials|\.netrc|\.pgpass|\.npmrc|\.pypirc", "\n", 2048
        ),
    ),
    # --- strict ----------------------------------------------------------------------
    _Pattern(
        "send_to_url", "strict", (("://",),),
        _Chain("send|post|upload|transmit", r"(?:to|at)\s++https?://", limit=2048),
    ),
    _Pattern(
        "context_exfil", "strict", (("conversation", "chat", "previous", "context"),),
        _Search(
            rf"(?:include|output|print|share)\s++{_FILLER}"
            r"(?:conversation|chat\s++history|previous\s++messages|(?:full|entire)\s++context)"
        ),
    ),
    _Pattern(
        "ssh_backdoor", "strict", (("authorized_keys",),),
        _Search(r"authorized_keys"),
    ),
    _Pattern(
        "ssh_access", "strict", (("/.ssh",),),
        _Search(r"(?:~|\$home)/\.ssh"),
    ),
    _Pattern(
        "hermes_env", "strict", (("/.hermes/.env",),),
        _Search(r"(?:~|\$home)/\.hermes/\.env"),
    ),
    _Pattern(
        "agent_config_mod", "strict", (("agents.md", "claude.md", ".cursorrules", ".clinerules"),),
        _HeadThenTail(_CONFIG_VERB, r"agents\.md|claude\.md|\.cursorrules|\.clinerules", "\n",
                      2048),
    ),
    _Pattern(
        "hermes_config_mod", "strict", ((".hermes/",),),
        _HeadThenTail(_CONFIG_VERB, r"\.hermes/(?:config\.yaml|soul\.md)", "\n", 2048),
    ),
    _Pattern(
        "hardcoded_secret", "strict", (("key", "token", "secret", "password"),),
        _Search(r"(?:api[_-]?key|token|secret|password)\s*+[=:]\s*+[\"'][a-z0-9+/=_-]{20}"),
    ),
)

PATTERN_IDS: Final[tuple[str, ...]] = tuple(p.id for p in _PATTERNS)
"""Every pattern id, in the order a scan reports them."""

_SCOPE_OF: Final[dict[str, Scope]] = {p.id: p.scope for p in _PATTERNS}


def _index_first_needs() -> tuple[tuple[str, tuple[int, ...]], ...]:
    index: dict[str, list[int]] = {}
    for i, pattern in enumerate(_PATTERNS):
        for word in pattern.needs[0]:
            index.setdefault(word, []).append(i)
    return tuple((word, tuple(indexes)) for word, indexes in index.items())


# (word, indexes of the patterns whose first group holds it)
_FIRST_NEEDS: Final = _index_first_needs()

_INVISIBLE_RE: Final = re.compile("[" + "".join(sorted(INVISIBLE_CHARS)) + "]")

# Non-ASCII characters that Python's ignore-case matching equates with an ASCII letter.
# U+0130 must go before str.lower(), which would turn it into two characters.
_FOLD_TO_ASCII: Final[dict[int, str]] = {0x0130: "i", 0x0131: "i", 0x017F: "s", 0x212A: "k"}


def pattern_scope(pattern_id: str) -> Scope:
    """The narrowest scope that reports ``pattern_id``; ValueError for an unknown id."""
    try:
        return _SCOPE_OF[pattern_id]
    except KeyError:
        raise ValidationError(f"unknown threat pattern id {pattern_id!r}") from None


def _scope_rank(scope: str) -> int:
    try:
        return _RANK[scope]
    except KeyError:
        raise ValidationError(
            f"unknown threat scan scope {scope!r}; use one of {', '.join(SCOPES)}"
        ) from None


# CPython puts combining marks in canonical order with an insertion sort, so normalising
# one letter followed by tens of thousands of marks in mixed classes takes seconds.
# Texts longer than this are decomposed in pieces and their marks ordered here instead.
_DIRECT_NFKC_CHARS: Final = 1_024
_NFKD_PIECE_CHARS: Final = 128


def _nfkc(text: str, *, direct_chars: int = _DIRECT_NFKC_CHARS) -> str:
    """``unicodedata.normalize("NFKC", text)``, in O(n log n) whatever the marks."""
    if len(text) <= direct_chars or unicodedata.is_normalized("NFKC", text):
        return unicodedata.normalize("NFKC", text)
    # Decomposition is per character; only the ordering of a run of marks (characters
    # of non-zero combining class) looks across characters.  So decompose short pieces,
    # then re-sort just the runs that straddle a cut: stably by combining class, as
    # canonical ordering is defined.  NFKC of the result equals NFKC of the text and
    # meets no disordered run.
    pieces = [
        unicodedata.normalize("NFKD", text[i : i + _NFKD_PIECE_CHARS])
        for i in range(0, len(text), _NFKD_PIECE_CHARS)
    ]
    decomposed = "".join(pieces)
    combining = unicodedata.combining
    parts: list[str] = []
    done = 0  # decomposed[:done] is in parts
    cut = 0
    for piece in pieces[:-1]:
        cut += len(piece)
        if cut <= done or not (combining(decomposed[cut - 1]) and combining(decomposed[cut])):
            continue
        start = cut - 1
        while start > done and combining(decomposed[start - 1]):
            start -= 1
        stop = cut + 1
        while stop < len(decomposed) and combining(decomposed[stop]):
            stop += 1
        parts.append(decomposed[done:start])
        parts.append("".join(sorted(decomposed[start:stop], key=combining)))
        done = stop
    parts.append(decomposed[done:])
    return unicodedata.normalize("NFKC", "".join(parts))


def _fold(text: str) -> str:
    """NFKC-normalise ``text`` and fold its case the way ``re.IGNORECASE`` compares.

    Only ASCII letters change case: no other character can match an ASCII pattern
    character, and leaving them alone keeps every ``\\w`` and ``\\s`` as it was.
    """
    text = _nfkc(text)
    # NFKC maps long s and the Kelvin sign to ASCII already; only the two i's remain.
    if "\u0130" in text or "\u0131" in text:
        text = text.translate(_FOLD_TO_ASCII)
    return text.encode("utf-8", "surrogatepass").lower().decode("utf-8", "surrogatepass")


def _invisible_ids(text: str) -> list[str]:
    present = INVISIBLE_CHARS.intersection(text)
    return [f"{_INVISIBLE_PREFIX}U+{ord(ch):04X}" for ch in sorted(present, key=text.index)]


def _scan(text: str, scope: str, *, first_only: bool) -> list[str]:
    rank = _scope_rank(scope)
    text = text[:MAX_SCAN_CHARS]
    found: list[str] = []
    if text.isascii():
        # Pure ASCII holds no invisible characters and is already NFKC.
        folded = text.lower()
    else:
        if _INVISIBLE_RE.search(text):
            found = _invisible_ids(text)
            if first_only:
                return found[:1]
        folded = _fold(text)
    candidates: set[int] = set()
    for word, indexes in _FIRST_NEEDS:
        if word in folded:
            candidates.update(indexes)
    for i in sorted(candidates):
        pattern = _PATTERNS[i]
        if _RANK[pattern.scope] > rank:
            continue
        if all(any(word in folded for word in group) for group in pattern.needs[1:]) and (
            pattern.found(folded)
        ):
            found.append(pattern.id)
            if first_only:
                break
    return found


# ---------------------------------------------------------------------------------------
# Beyond Hermes.  The patterns above are Hermes's, matched as Hermes matches them, so the
# same texts are refused.  They are easy to slip past: a soft hyphen or a Unicode tag
# character inside "ignore", a Cyrillic "о" for a Latin "o", another language, a shell
# pipe, a payload in base64.  A second look normalises harder and adds patterns of
# memoir's own; what it finds is refused too, after Hermes's findings.

# Lookalikes that NFKC leaves alone: Cyrillic, Greek and a few others that render like a
# Latin letter in common fonts (a subset of Unicode's confusables, lower case; capitals
# are folded first).
_CONFUSABLE: Final[dict[int, str]] = {ord(k): v for k, v in {
    "а": "a", "в": "b", "е": "e", "ё": "e", "к": "k", "м": "m", "н": "h", "о": "o",
    "р": "p", "с": "c", "т": "t", "у": "y", "х": "x", "ѕ": "s", "і": "i", "ї": "i",
    "ј": "j", "ԁ": "d", "ԛ": "q", "ԝ": "w", "ɡ": "g", "ɩ": "i", "ı": "i", "ℓ": "l",
    "α": "a", "β": "b", "γ": "y", "ε": "e", "η": "n", "ι": "i", "κ": "k", "ν": "v",
    "ο": "o", "ρ": "p", "τ": "t", "υ": "u", "χ": "x", "ω": "w", "ʏ": "y", "ᴀ": "a",
}.items()}
# Characters that change nothing a reader sees: format characters (soft hyphen, zero
# width and bidi controls, the U+E0000 tag block) and variation selectors.
_UNSEEN: Final = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f"
    "\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0"
    "\U000e0000-\U000e0fff]"
)


def _unseen_fold(text: str) -> str:
    """``_fold`` after removing unseen characters (NFKC first: it makes some)."""
    return _fold(_UNSEEN.sub("", unicodedata.normalize("NFKC", text).lower()))


_FOREIGN_INJECTION: Final = (
    # "ignore the previous instructions" in Spanish, French, German, Portuguese,
    # Italian, Dutch, Russian, Chinese and Japanese.
    r"ignor(?:a|ar|e|ez|er)\s++(?:\w++\s++){0,4}(?:instrucciones|instructions|instruções|"
    r"istruzioni|instructies)\s++(?:anteriores|previas|précédentes|precedentes|antérieures|"
    r"precedenti|vorige|eerdere)"
    r"|ignorier\w*\s++(?:\w++\s++){0,4}(?:vorherigen|bisherigen|obigen|früheren)\s++"
    r"(?:anweisungen|instruktionen)"
    r"|игнорир\w*\s++(?:\w++\s++){0,4}(?:предыдущие|прежние|все)\s++(?:\w++\s++){0,2}"
    r"инструкци"
    r"|忽略(?:之前|以上|先前|前面|所有)(?:的|所有的)?(?:指令|指示|说明|提示)"
    r"|(?:以前|前|これまで)の(?:指示|命令)を(?:すべて)?無視"
)

#: memoir's own patterns (strict scope), checked on the harder normalisation.
_OWN_PATTERNS: Final[tuple[_Pattern, ...]] = (
    _Pattern(
        "disregard_above", "strict", (("disregard", "forget", "ignore"),),
        _Search(
            r"(?:disregard|forget|ignore)\s++(?:everything|anything|all)\s++"
            r"(?:(?:of\s++)?(?:that|this|the)\s++)?(?:\w++\s++){0,2}"
            r"(?:above|before|prior|previous|earlier|you\s++(?:were|have\s++been)\s++told)"
        ),
    ),
    _Pattern(
        "pipe_to_shell", "strict", (("|",), ("curl", "wget", "iwr", "invoke-webrequest")),
        _HeadThenTail(
            r"\b(?:curl|wget|iwr|invoke-webrequest)\b",
            r"\|\s*+(?:sudo\s++)?(?:(?:ba|z|da|k|fi)?sh|iex|invoke-expression|python3?|"
            r"perl|ruby|node)\b",
            "\n", 2048,
        ),
    ),
    _Pattern(
        "encoded_payload", "strict", (),
        _Search(r"[a-z0-9+/]{200,}+={0,2}"),
    ),
    _Pattern(
        "foreign_injection", "strict", (),
        _Search(_FOREIGN_INJECTION),
    ),
)

#: memoir's own pattern ids (reported after Hermes's, see :func:`scan_beyond_hermes`).
OWN_PATTERN_IDS: Final[tuple[str, ...]] = tuple(p.id for p in _OWN_PATTERNS)


def scan_beyond_hermes(text: str) -> list[str]:
    """What memoir finds in ``text`` that Hermes's scan does not: Hermes's patterns after
    the harder normalisation (unseen characters removed, lookalikes mapped), then
    memoir's own patterns.  Ids as in :data:`PATTERN_IDS` and :data:`OWN_PATTERN_IDS`."""
    text = text[:MAX_SCAN_CHARS]
    hermes = set(_scan(text, "strict", first_only=False))
    plain = _unseen_fold(text)
    latin = plain.translate(_CONFUSABLE)  # other scripts' words are looked for in `plain`
    found = [p.id for p in _PATTERNS if p.id not in hermes and p.found(latin)]
    for p in _OWN_PATTERNS:
        seen = plain if p.id == "foreign_injection" else latin
        if all(any(w in seen for w in group) for group in p.needs) and p.found(seen):
            found.append(p.id)
    return found


def scan_for_threats(text: str, scope: Scope = "strict") -> list[str]:
    """Every threat finding in ``text`` at ``scope``, as Hermes reports them.

    Invisible characters come first (``invisible_unicode_U+XXXX``, in order of first
    appearance), then pattern ids in pattern order; each id at most once.  An unknown
    scope raises :class:`~memoir.errors.ValidationError` (a ValueError).
    """
    return _scan(text, scope, first_only=False)


def first_threat_id(text: str) -> str | None:
    """The finding a write of ``text`` is refused for (strict scope), or None if clean:
    Hermes's first finding, else memoir's first (:func:`scan_beyond_hermes`)."""
    found = _scan(text, "strict", first_only=True)
    if found:
        return found[0]
    beyond = scan_beyond_hermes(text)
    return beyond[0] if beyond else None


def all_threats(text: str) -> list[str]:
    """Every finding memoir refuses a write for: Hermes's scan, then what memoir finds
    beyond it."""
    return scan_for_threats(text, "strict") + scan_beyond_hermes(text)


def first_threat_message(text: str) -> str | None:
    """The error a write of ``text`` is refused with (strict scope), or None if clean."""
    threat = first_threat_id(text)
    if threat is None:
        return None
    if threat.startswith(_INVISIBLE_PREFIX):
        code = threat.removeprefix(_INVISIBLE_PREFIX)
        return (
            f"Blocked: content contains invisible unicode character {code} "
            "(possible injection)."
        )
    return (
        f"Blocked: content matches threat pattern '{threat}'. Content is injected into the "
        "system prompt and must not contain injection or exfiltration payloads."
    )


def blocked_placeholder(file_name: str, pattern_ids: Sequence[str]) -> str:
    """The line that stands in the system prompt for an entry that matched threats."""
    return (
        f"{_BLOCKED_PREFIX} {file_name} entry contained threat pattern(s): "
        f"{', '.join(pattern_ids)}. Removed from system prompt; use memory(action=remove) "
        "to delete the original.]"
    )


def prompt_threats(text: str) -> list[str]:
    """The findings that keep ``text`` out of the prompt: Hermes's (strict scope), as
    Hermes shows them, and memoir's own only where Hermes finds nothing."""
    return scan_for_threats(text, "strict") or scan_beyond_hermes(text)


def sanitize_for_prompt(entries: Sequence[str], file_name: str) -> list[str]:
    """``entries`` as the system prompt may show them (Hermes's load-time rule).

    Each entry is scanned at strict scope (and, where Hermes finds nothing, by
    :func:`scan_beyond_hermes`); a matching one is replaced by
    :func:`blocked_placeholder`.  Empty entries and entries that already start with
    ``[BLOCKED:`` are kept as they are.  The stored entries are never changed, so the
    user can still see and remove the original.
    """
    shown: list[str] = []
    for entry in entries:
        if entry and not entry.startswith(_BLOCKED_PREFIX):
            found = prompt_threats(entry)
            if found:
                entry = blocked_placeholder(file_name, found)
        shown.append(entry)
    return shown


def redacted_preview(text: str, limit: int = 60) -> str:
    """The shape of a refused text without what it could leak: each word longer than
    three characters cut to its first three (``api_key=sk-…`` keeps ``api…``), at most
    ``limit`` characters.  Enough to recognise an attempt in the audit log; a secret or
    a payload cannot be read back from it."""
    words = re.split(r"(\s+)", text[: limit * 4])
    shown = "".join(w if w.isspace() or len(w) <= 3 else w[:3] + "…" for w in words)
    return shown[:limit]
