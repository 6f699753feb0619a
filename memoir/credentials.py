"""Finding credentials in text, so nothing secret is stored.

MEMORY.md and USER.md are pasted into every prompt and every version of them stays in
the journal, its backups and its exports; a skill is read by every agent that loads
it.  A key said in passing in a conversation ("the project uses the AWS key AKIA…")
must not end up there.  :func:`find_credentials` names what a text holds:

- tokens with a known shape: cloud and API keys (``AKIA…``, ``AIza…``, ``sk-…``,
  ``sk_live_…``), GitHub (``ghp_…``, ``github_pat_…``) and Slack (``xox?-…``) tokens,
  JSON web tokens, PEM private key blocks;
- passwords in URLs (``scheme://user:password@host``, quotes and ``@`` in the password
  included) and the credentials of an ``Authorization:`` header;
- a value given to a credential word (``password``, ``DB_PASSWORD``, ``api_key``,
  ``secret``, ``token``…), whatever characters it is made of, when it is written as a
  setting: quoted (``password: "it's a secret"``), attached (``PASSWORD=hunter2``,
  ``token:abc``) or alone at the end of its clause (``Password: correcthorse``).  In
  prose (``the password is …``, ``password: ask Alice first``) a value counts when it
  is not a plain word (6+ characters with a digit or a symbol);
- high-entropy tokens: 24+ characters mixing upper case, lower case and digits with
  more than 4.3 bits of entropy per character (random keys; not paths, hex digests,
  UUIDs or identifiers, which measure lower).

It says which kinds it found, never the secret itself.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from typing import Final

from memoir import lazyre

__all__ = ["CREDENTIAL_KINDS", "REDACTED", "credential_message", "find_credentials", "redact",
           "redact_counted", "was_redacted"]

_SHAPES: Final[tuple[tuple[str, re.Pattern[str]], ...]] = (
    ("aws_access_key",
     lazyre.compile(r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}\b")),
    ("github_token",
     lazyre.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{30,255}|github_pat_[A-Za-z0-9_]{22,255})")),
    ("api_key", lazyre.compile(r"\bsk-(?:[A-Za-z]{2,8}-)?[A-Za-z0-9_-]{20,}")),
    ("stripe_key", lazyre.compile(r"\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}")),
    ("google_api_key", lazyre.compile(r"\bAIza[0-9A-Za-z_-]{35}")),
    ("slack_token", lazyre.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}")),
    ("jwt", lazyre.compile(r"\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}")),
    ("private_key", lazyre.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----")),
    # The password runs to the last "@" of the authority (a password may hold one).
    ("url_password",
     lazyre.compile(r"\b[a-zA-Z][a-zA-Z0-9+.-]{1,20}://[^\s/:@]{1,256}:[^\s/]{1,256}@")),
)
# A credential word, also as the end of a longer name (DB_PASSWORD, github-token).
_WORD: Final = (r"(?:password|passwd|passphrase|pwd|secret|token|api[ _-]?key|access[ _-]?key|"
                r"secret[ _-]?key|private[ _-]?key|client[ _-]?secret|auth[ _-]?token)s?")
_GIVEN: Final = lazyre.compile(
    r"(?i)(?<![a-z0-9])(?:[a-z0-9]+[_-])*" + _WORD + r"(?![a-z0-9])[\"']?"
    r"(?:(?P<attached>[=:](?=[^\s\"'`]))"  # PASSWORD=x, token:x
    r"|\s*[=:]\s*(?P<q1>[\"'`])"  # password = "x", "password": "x"
    r"|(?P<set>\s*[=:]\s*)"  # password: x
    r"|\s+(?:is|was|are|:=)\s+(?P<q2>[\"'`])?)"  # the password is x
)
_AUTHORIZATION: Final = lazyre.compile(
    r"(?i)\b(?:proxy-)?authorization\s*[:=]\s*[\"']?"
    r"(?:(?P<scheme>bearer|basic|token|digest|apikey|api-key|key|sso-key|negotiate)\s+)?"
    r"(?P<value>[^\s\"']{4,4096})")
# What a value ends at when it is not quoted, and what a clause ends with.
_BARE_VALUE: Final = lazyre.compile(r"\S{1,256}")
_CLAUSE_END: Final = lazyre.compile(r"[.,;)!?]*(?:\s*$|\s*\n|[,;]|\.\s|\s+(?:and|or|but)\s)")
#: Values that stand for a credential without being one (the whole value): a variable,
#: a template slot, a reference to a secret store, a mask, a word for "nothing".
_PLACEHOLDER: Final = lazyre.compile(
    r"(?i)(?:\$\{?[a-z_][a-z0-9_]*\}?|\$\(.*\)|<[a-z][a-z _.-]*>|\{\{.*\}\}|\{[a-z_][\w.]*\}|"
    r"%\(\w+\)s|\[redacted:?[^\]]*\]?.*|\*+|x{3,}|\.{3}|…|none|null|nil|n/a|empty|"
    r"(?:env|vault|op|keyring|secret|ssm|awssm|gcpsm)://?.*|(?:os\.environ|process\.env|"
    r"getenv|env\.|secrets?\.)\S*|changeme|example|your[_-]?\w*|redacted)[.,;)]*")
_SLOT: Final = lazyre.compile(
    r"<[A-Za-z][A-Za-z _.-]{0,78}>|\{\{[^{}\n]{0,80}\}\}|\$\([^()\n]{0,80}\)")
#: What may follow a template slot that is the whole value: punctuation, then a space.
_SLOT_END: Final = lazyre.compile(r"""[.,;:)!?"'\]]*(?:\s|$)""")
_TOKEN: Final = lazyre.compile(r"[A-Za-z0-9+/=_.\-]{24,512}")
_ENTROPY_BITS: Final = 4.3

#: How a redacted credential starts in stored text (``[redacted:<kind>]``).
REDACTED: Final = "[redacted:"


def was_redacted(text: str) -> bool:
    """Whether ``text`` holds a redacted credential (``[REDACTED:`` in records made
    before the marker was spelled in lower case)."""
    return REDACTED in text or "[REDACTED:" in text


#: Every kind :func:`find_credentials` reports.
CREDENTIAL_KINDS: Final[tuple[str, ...]] = (
    *(kind for kind, _ in _SHAPES), "credential_value", "high_entropy_token")


def _entropy(text: str) -> float:
    n = len(text)
    return -sum(c / n * math.log2(c / n) for c in Counter(text).values())


def _mixed(text: str, classes: int) -> bool:
    kinds = (any(c.islower() for c in text), any(c.isupper() for c in text),
             any(c.isdigit() for c in text), any(not c.isalnum() for c in text))
    return sum(kinds) >= classes


def find_credentials(text: str) -> list[str]:
    """The kinds of credential ``text`` holds (see the module docstring), in the order
    of :data:`CREDENTIAL_KINDS`; empty when it holds none."""
    kinds = {kind for _start, _end, kind in _spans(text)}
    return [kind for kind in CREDENTIAL_KINDS if kind in kinds]


def _spans(text: str) -> list[tuple[int, int, str]]:
    """Where the credentials of ``text`` are: (start, end, kind)."""
    spans = [(m.start(), m.end(), kind) for kind, shape in _SHAPES
             for m in shape.finditer(text)]
    spans += _given_spans(text)
    for match in _TOKEN.finditer(text):
        token = match.group(0)
        if (any(c.isupper() for c in token) and any(c.islower() for c in token)
                and any(c.isdigit() for c in token) and _entropy(token) > _ENTROPY_BITS):
            end = match.start() + len(token.rstrip(".-"))
            spans.append((match.start(), end, "high_entropy_token"))
    return spans


def _given_spans(text: str) -> list[tuple[int, int, str]]:
    """Values given to a credential word or an ``Authorization:`` header."""
    spans = []
    for match in _GIVEN.finditer(text):
        start = match.end()
        quote = match.group("q1") or match.group("q2")
        end = text.find(quote, start, start + 257) if quote else -1
        if quote and end < 0:
            start -= 1  # no closing quote: the quote is the value's first character
        if end >= 0:
            value = text[start:end]
            if "\n" in value or not value.strip():
                continue
            written_as_setting = True
        elif (slot := _SLOT.match(text, start)) is not None and \
                _SLOT_END.match(text, slot.end()):
            continue  # a template slot, spaces and all: <your key here> (not <A>0000)
        else:
            bare = _BARE_VALUE.match(text, start)
            if bare is None:
                continue
            value = bare.group(0)
            # Trailing punctuation ends a sentence, not a password: it stays when the
            # value is attached (PASSWORD=abc.), where nothing but the value can follow.
            if not match.group("attached"):
                value = value.rstrip(".,;)!?")
            after = start + len(value)
            written_as_setting = bool(match.group("attached")) or (
                match.group("set") is not None and _CLAUSE_END.match(text, after) is not None)
        if not value or _PLACEHOLDER.fullmatch(value):
            continue
        if written_as_setting or (len(value) >= 6 and not value.isalpha()):
            spans.append((start, start + len(value), "credential_value"))
    for match in _AUTHORIZATION.finditer(text):
        value = match.group("value")
        if _PLACEHOLDER.fullmatch(value):
            continue
        if match.group("scheme") or not value.isalpha():
            spans.append((match.start("value"), match.end("value"), "credential_value"))
    return spans


def redact(text: str) -> str:
    """``text`` with every credential replaced by ``[redacted:<kind>]`` (what a recorded
    conversation keeps: the fact that a key was said, never the key)."""
    return redact_counted(text)[0]


def redact_counted(text: str) -> tuple[str, int]:
    """:func:`redact`, and how many credentials it replaced."""
    spans = _spans(text)
    if not spans:
        return text, 0
    out, at, count = [], 0, 0
    for start, end, kind in sorted(spans):
        if start < at:  # overlapping finds: the first one covers it
            continue
        out += [text[at:start], f"{REDACTED}{kind}]"]
        at = end
        count += 1
    out.append(text[at:])
    return "".join(out), count


def credential_message(kinds: list[str]) -> str:
    """The refusal of a write holding credentials of ``kinds``."""
    return (f"Blocked: content holds what looks like a credential ({', '.join(kinds)}). "
            "Memory and skills are kept in the journal and shown to agents: never store "
            "secrets there; refer to where they are kept (an environment variable, a "
            "secret manager) instead.")
