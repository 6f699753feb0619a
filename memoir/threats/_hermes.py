"""Hermes's threat patterns, matched as Hermes matches them (spec §1.5), and the scan:
normalisation, invisible characters, scopes."""

from __future__ import annotations

import unicodedata
from typing import Final

from memoir import lazyre
from memoir.errors import ValidationError
from memoir.threats._matchers import (
    _FILLER,
    SCOPES,
    Pattern,
    Scope,
    _Chain,
    _CommentWith,
    _HeadThenTail,
    _Search,
)

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



_INVISIBLE_PREFIX: Final = "invisible_unicode_"
_BLOCKED_PREFIX: Final = "[BLOCKED:"

_RANK: Final[dict[str, int]] = {scope: rank for rank, scope in enumerate(SCOPES)}

_CONFIG_VERB: Final = r"(?:update|modify|edit|write|change|append|add\s++to)\s++"
_SECRET_VAR: Final = r"\$\{?\w*(?:key|token|secret|password|credential|api)"

_PATTERNS: Final[tuple[Pattern, ...]] = (
    # --- all -------------------------------------------------------------------------
    Pattern(
        "prompt_injection", "all", (("instructions",), ("ignore",)),
        _Search(rf"ignore\s++{_FILLER}(?:previous|all|above|prior)\s++{_FILLER}instructions"),
    ),
    Pattern(
        "sys_prompt_override", "all", (("override",),),
        _Search(r"system\s++prompt\s++override"),
    ),
    Pattern(
        "disregard_rules", "all", (("disregard",),),
        _Search(
            rf"disregard\s++{_FILLER}(?:your|all|any)\s++{_FILLER}"
            r"(?:instructions|rules|guidelines)"
        ),
    ),
    Pattern(
        "bypass_restrictions", "all", (("restrictions", "limits", "rules"), ("act",)),
        _Search(
            rf"act\s++as\s++(?:if|though)\s++{_FILLER}you\s++{_FILLER}"
            rf"(?:have\s++no|don't\s++have)\s++{_FILLER}(?:restrictions|limits|rules)"
        ),
    ),
    Pattern(
        "html_comment_injection", "all", (("<!--",), ("-->",)),
        _CommentWith(r"ignore|override|system|secret|hidden", 512),
    ),
    Pattern(
        "hidden_div", "all", (("div",), ("none",)),
        _HeadThenTail(r"<\s*+div\s++style\s*+=\s*+[\"']", r"display\s*+:\s*+none", ">", 2048),
    ),
    Pattern(
        "translate_execute", "all", (("translate",), ("into",)),
        _Chain("translate", "into", r"and\s++(?:execute|run|eval)", limit=512),
    ),
    Pattern(
        "deception_hide", "all", (("tell",), ("user",)),
        _Search(rf"do\s++not\s++{_FILLER}tell\s++{_FILLER}the\s++user"),
    ),
    # --- context: identity attacks ---------------------------------------------------
    Pattern(
        "role_hijack", "context", (("now",), ("you",)),
        _Search(rf"you\s++are\s++{_FILLER}now\s++(?:a|an|the)\s"),
    ),
    Pattern(
        "role_pretend", "context", (("pretend",),),
        _Search(rf"pretend\s++{_FILLER}(?:you\s++are|to\s++be)\s"),
    ),
    Pattern(
        "leak_system_prompt", "context", (("prompt",), ("output",)),
        _Search(rf"output\s++{_FILLER}(?:system|initial)\s++prompt"),
    ),
    Pattern(
        "remove_filters", "context", (("without",),),
        _Search(
            rf"(?:respond|answer|reply)\s++without\s++{_FILLER}"
            r"(?:restrictions|limitations|filters|safety)"
        ),
    ),
    Pattern(
        "fake_update", "context", (("been",),),
        _Search(rf"you\s++have\s++been\s++{_FILLER}(?:updated|upgraded|patched)\s++to"),
    ),
    Pattern(
        "identity_override", "context", (("yourself",),),
        _Search(r"\bname\s++yourself\s++\w"),
    ),
    # --- context: command and control ------------------------------------------------
    Pattern(
        "c2_node_registration", "context", (("node",), ("register",)),
        _Search(r"register\s++(?:as\s++)?(?:a\s*+)?node"),
    ),
    Pattern(
        "c2_heartbeat", "context", (("heartbeat", "beacon", "check"),),
        _Search(r"(?:heartbeat|beacon|check[\s-]?in)\s++(?:to|with)\s"),
    ),
    Pattern(
        "c2_task_pull", "context", (("pull",), ("task",)),
        _Search(r"pull\s++(?:down\s++)?(?:new\s++)?task(?:ing|s)?\b"),
    ),
    Pattern(
        "c2_network_connect", "context", (("network",),),
        _Search(r"connect\s++to\s++the\s++network\b"),
    ),
    Pattern(
        "forced_action", "context", (("must",),),
        _Search(r"you\s++must\s++(?:\w++\s++){0,3}(?:register|connect|report|beacon)\b"),
    ),
    # --- context: anti-forensics and environment tampering ---------------------------
    Pattern(
        "anti_forensic_oneliner", "context", (("liner",),),
        _Search(r"only\s++use\s++one[\s-]?liners?\b"),
    ),
    Pattern(
        "anti_forensic_disk", "context", (("disk",), ("never",)),
        _Search(rf"never\s++{_FILLER}(?:create|write)\s++{_FILLER}(?:script|file)\s++{_FILLER}disk"),
    ),
    Pattern(
        "env_var_unset_agent", "context", (("unset",),),
        _Search(r"unset\s++\w*(?:claude|codex|hermes|agent|openai|anthropic)"),
    ),
    # --- context: named C2 tooling ---------------------------------------------------
    Pattern(
        "known_c2_framework", "context",
        (("cobalt", "sliver", "havoc", "mythic", "metasploit", "brainworm"),),
        _Search(r"\b(?:cobalt\s*+strike|sliver|havoc|mythic|metasploit|brainworm)\b"),
    ),
    Pattern(
        "c2_explicit", "context", (("c2",),),
        _Search(r"\bc2\s++(?:server|channel|infrastructure|beacon)\b"),
    ),
    Pattern(
        "c2_explicit_long", "context", (("control",),),
        _Search(r"\bcommand\s++and\s++control\b"),
    ),
    # --- all: exfiltration -----------------------------------------------------------
    Pattern(
        "exfil_curl", "all", (("curl",), ("$",)),
        _HeadThenTail(r"curl\s++", _SECRET_VAR, "\n", 2048),
    ),
    Pattern(
        "exfil_wget", "all", (("wget",), ("$",)),
        _HeadThenTail(r"wget\s++", _SECRET_VAR, "\n", 2048),
    ),
    Pattern(
        "read_secrets", "all",
        ((".env", "credentials", ".netrc", ".pgpass", ".npmrc", ".pypirc"), ("cat",)),
        _HeadThenTail(
            r"cat\s++", r"\.env|credentials|\.netrc|\.pgpass|\.npmrc|\.pypirc", "\n", 2048
        ),
    ),
    # --- strict ----------------------------------------------------------------------
    Pattern(
        "send_to_url", "strict", (("://",),),
        _Chain("send|post|upload|transmit", r"(?:to|at)\s++https?://", limit=2048),
    ),
    Pattern(
        "context_exfil", "strict", (("conversation", "chat", "previous", "context"),),
        _Search(
            rf"(?:include|output|print|share)\s++{_FILLER}"
            r"(?:conversation|chat\s++history|previous\s++messages|(?:full|entire)\s++context)"
        ),
    ),
    Pattern(
        "ssh_backdoor", "strict", (("authorized_keys",),),
        _Search(r"authorized_keys"),
    ),
    Pattern(
        "ssh_access", "strict", (("/.ssh",),),
        _Search(r"(?:~|\$home)/\.ssh"),
    ),
    Pattern(
        "hermes_env", "strict", (("/.hermes/.env",),),
        _Search(r"(?:~|\$home)/\.hermes/\.env"),
    ),
    Pattern(
        "agent_config_mod", "strict", (("agents.md", "claude.md", ".cursorrules", ".clinerules"),),
        _HeadThenTail(_CONFIG_VERB, r"agents\.md|claude\.md|\.cursorrules|\.clinerules", "\n",
                      2048),
    ),
    Pattern(
        "hermes_config_mod", "strict", ((".hermes/",),),
        _HeadThenTail(_CONFIG_VERB, r"\.hermes/(?:config\.yaml|soul\.md)", "\n", 2048),
    ),
    Pattern(
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

_INVISIBLE_RE: Final = lazyre.compile("[" + "".join(sorted(INVISIBLE_CHARS)) + "]")

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


