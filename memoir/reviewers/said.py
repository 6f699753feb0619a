"""What a user message says, read without what frames it, before a reviewer looks for
facts in it (:func:`memoir.reviewers.rules.clauses_of`).

- :func:`as_said`: one sentence without a chat log's "[09:14] me:", pictographs ("🚀 we
  ship on Tuesdays"), an opener before a colon that says nothing ("Ugh, I've told you
  three times: we use pnpm"), and with a question's leading statement kept as the
  statement ("Since we're on Postgres 15, can I use MERGE?" says "we're on Postgres 15").
- :func:`listed`: a list under a heading ("Infra:\\n- everything runs on Hetzner\\n-
  DNS is on Cloudflare") read item by item: an item that is a clause is a sentence of its
  own; the items that are names or phrases ("- Python 3.12\\n- uv") are one fact of the
  heading ("Environment: Python 3.12; uv."), or the person's own under "About me:"; a
  heading that is an instruction ("Don't:") is said before each item; a list of the
  moment (a to-do, questions, a standup's notes) is nothing to keep.
"""

from __future__ import annotations

import functools
import re
from typing import Final

from memoir import lazyre
from memoir.reviewers.facts import opener_before_colon

__all__ = ["as_said", "listed"]

_CHAT_PREFIX: Final = lazyre.compile(
    r"(?i)^\s*\[?\d{1,2}:\d{2}(?::\d{2})?\s*(?:[ap]m)?\]?\s*(?:me|i|myself)\s*:\s*")
_PICTOGRAPH: Final = lazyre.compile(
    "[\U0001F000-\U0001FAFF\u2600-\u27BF\u2B00-\u2BFF\uFE0F\u200D]+")
#: A question that carries a statement before it, said of the speaker or the project:
#: "Our logs go to Graylog, how do I search there?" (not "My mentor suggested …, what do
#: you think?": someone else's words).
_ASKS_AFTER: Final = lazyre.compile(
    r"(?i)^(?P<said>(?:since|given|because|as|now that|seeing that|considering|i|i'm|"
    r"we|we're|our|the)\b[^?]{4,}?),\s+(?:so\s+)?(?:can|could|does|do|did|is|are|should|"
    r"would|will|how|what|why|where|which|who|whom|any|is there|are there)\b[^?]*\?\s*$")
_GIVEN: Final = lazyre.compile(r"(?i)^(?:since|given that|given|because|as|now that|"
                               r"seeing that|considering)\s+")


def as_said(sentence: str) -> str:
    """``sentence`` without what frames it (see the module docstring)."""
    sentence = _PICTOGRAPH.sub(" ", _CHAT_PREFIX.sub("", sentence))
    sentence = " ".join(sentence.split())
    sentence = sentence[opener_before_colon(sentence):]
    if sentence.endswith("?") and len(sentence) <= 600 and (m := _ASKS_AFTER.match(sentence)):
        said = m.group("said")
        if said.lower().startswith("as someone"):
            return "I'm " + said[3:]  # "as someone who only knows Excel"
        return _GIVEN.sub("", said)
    return sentence


#: A heading line, and the items under it.
_BLOCK: Final = lazyre.compile(
    r"(?m)^[ \t]*(?P<heading>[^\n:]{1,40}):[ \t]*\n(?P<items>(?:[ \t]*(?:[-*•]|\d{1,2}[.)])"
    r"[ \t]+[^\n]+(?:\n|$)){2,})")
_ITEM: Final = lazyre.compile(r"(?m)^[ \t]*(?:[-*•]|\d{1,2}[.)])[ \t]+(?P<item>[^\n]+)$")
#: A list of the moment: nothing in it is kept.
_OF_THE_MOMENT: Final = lazyre.compile(
    r"(?i)\b(?:to-?dos?|to do|today|tonight|tomorrow|questions?|standup|stand-up|agenda|"
    r"tasks?|next steps|action items|plan|blockers|notes from|steps|errors?|issues)\b")
#: A heading that is an instruction for each item: "Don't:", "Always:".
_INSTRUCTION: Final = lazyre.compile(r"(?i)^(?:don'?t|do not|never|always|please|avoid|do)$")
#: Whose facts the items are: the person's, when the heading speaks of them.
_PERSONS: Final = lazyre.compile(r"(?i)\b(?:me|my|i|myself|preferences?)\b")
#: An item that names a key of the person's: "name: Bongani".
_KEYED: Final = lazyre.compile(r"(?i)^(name|role|location|time ?zone|job|title|pronouns)\s*:\s*"
                               r"(\S.*)$")
#: Words that make an item a clause of its own (a verb), not a name or a phrase.
_HAS_VERB: Final = lazyre.compile(
    r"(?i)^(?:i|i'm|we|we're|my|our)\b|\b(?:is|are|was|were|has|have|had|runs?|uses?|"
    r"needs?|lives?|live|goes|go|sits?|gets?|comes?|takes?|owns?|works?|deploys?|hates?|"
    r"loves?|likes?|prefers?|must|should|can|cannot|can't|won't|never|always)\b|'re\b|"
    r"'s\b")
#: Lead words of a heading that name no kind ("Some context", "Things to know about").
_HEADING_LEAD: Final = lazyre.compile(r"(?i)^(?:(?:some|a few|quick|a bit of|a little|"
                                      r"things to know about|notes on|about|my|our|the)"
                                      r"\s+)+")


#: A list longer than this as one fact is no fact to keep (an inventory, a log).
_LONGEST_FACT: Final = 300


@functools.lru_cache(maxsize=256)
def listed(text: str) -> tuple[str, tuple[tuple[str, str], ...]]:
    """``text`` with each list under a heading read item by item, and the (target,
    entry) of each item that is a name or a phrase (see the module docstring)."""
    if ":" not in text or "\n" not in text:
        return text, ()
    kept: list[tuple[str, str]] = []

    def read(block: re.Match[str]) -> str:
        heading = " ".join(block.group("heading").split())
        items = [m.group("item").strip().rstrip(".;,") for m in _ITEM.finditer(
            block.group("items"))]
        if _OF_THE_MOMENT.search(heading):
            return "\n"
        if _INSTRUCTION.match(heading):
            return "".join(f"{heading} {item}.\n" for item in items)
        named = _HEADING_LEAD.sub("", heading)
        target = "user" if _PERSONS.search(heading) else "memory"
        said, phrases = [], []
        for item in items:
            if _HAS_VERB.search(item):
                said.append(f"{item}.\n")
            elif named.lower() in ("me", "myself"):  # "About me:" - "based in Durban"
                key = _KEYED.match(item)
                said.append(f"My {key.group(1)} is {key.group(2)}.\n" if key else
                            f"I'm {item}.\n")
            elif named:
                phrases.append(item)
        fact = f"{named[0].upper()}{named[1:]}: {'; '.join(phrases)}." if phrases else ""
        if fact and len(fact) <= _LONGEST_FACT:  # one fact of a list: "Setup: a; b; c."
            kept.append((target, fact))
        return "".join(said) or "\n"

    return _BLOCK.sub(read, text), tuple(kept)
