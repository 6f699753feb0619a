"""One fact per entry: an entry that coordinates facts about different things ("The
warehouse is Snowflake, transformations are in dbt, and dashboards are in Metabase.")
is kept as one entry per fact, each a sentence of its own.

Two shapes are split, both read from the entry's words alone:

- clauses with a subject and a verb of their own, joined by commas, "and" or a
  semicolon ("the database is Neon, and file uploads go to R2");
- clauses that share the first one's subject ("the cluster has six nodes, runs k3s"),
  and clauses whose verb is left out after the first ("staging is at a.dev, prod at b.dev",
  "images are stored in Cloudinary and videos in Mux", "the team uses pnpm for
  packages, Biome for linting"): the first clause's words stand in for the missing
  ones, matched at the preposition both share.

Everything else stays whole: a list of things ("Polars and DuckDB"), a clause that
points back ("…, and both sit behind Caddy", "it has a database") and a subordinate one
("…, so anything that writes to /usr fails") are part of the fact before them.
"""

from __future__ import annotations

from typing import Final

from memoir import lazyre

__all__ = ["facts_of"]

#: Where an entry may be cut: a comma (with "and"), a semicolon, a bare "and".
_JOINT: Final = lazyre.compile(r"(,\s+(?:and\s+)?|;\s+|\s+and\s+)")
_WORD: Final = r"[\w.@/&'+#-]+"
#: Verbs a fact's clause is made with (a participle after a copula is read as one too).
_VERB: Final = (
    r"is|are|was|were|has|have|runs?|goes|go|sits?|lives?|uses?|needs?|takes?|holds?|"
    r"handles?|stores?|reads?|writes?|comes?|gets?|owns?|works?|deploys?|ships?|"
    r"lands?|points?|talks?|listens?|expires?|rotates?|belongs?|means?|costs?|"
    r"depends?|requires?|speaks?|builds?|serves?|hosts?|pays?|calls?|sends?|moved|"
    r"switched|migrated|replaced|became")
#: Words no subject is made of: verbs, modals, adverbs of frequency, conjunctions.
_NOT_SUBJECT: Final = (
    rf"(?!(?:{_VERB}|must|can|should|will|may|might|could|would|shall|only|never|always|"
    r"also|not|just|and|but|so|then|please|don't|do|does|did|i|we|you|he|she|nothing|"
    r"everything|something|anything|none|everyone|nobody|no one)\b)")
_SUBJECT_START: Final = lazyre.compile(rf"(?i){_NOT_SUBJECT}")
#: A clause of its own: a subject of up to four words, then its verb and what it says.
_CLAUSE: Final = lazyre.compile(
    rf"(?i)^(?:the |our |my |a |an |each |every |all )?(?:{_NOT_SUBJECT}{_WORD} ){{0,3}}?"
    rf"{_NOT_SUBJECT}{_WORD} (?:{_VERB}) \S")
#: A subject that points back or sums up: the clause leans on the one before.
_LEANS: Final = lazyre.compile(
    r"(?i)^(?:it|its|they|them|this|that|these|those|which|who|both|all of them|each of "
    r"them|neither|either|so|because|but|though|although|since|while|unless|if|when|"
    r"whereas|then|also)\b")
#: A word pointing back inside a clause ("the doc build runs them as tests").
_BACK: Final = lazyre.compile(r"(?i)\b(?:it|its|them|they|their|those|these)\b")
_PREP: Final = r"at|in|on|to|for|with|via|through|from|behind|under|into|as"
#: A clause missing its verb: a few words, then a preposition and the rest.
_GAPPED: Final = lazyre.compile(
    rf"(?i)^(?P<head>(?:the |our |my )?{_WORD}(?: {_WORD}){{0,2}}?) (?P<prep>{_PREP}) "
    r"(?P<rest>\S.*)$")
#: Words that end a verb group: the subject's part ends before them.
_VERB_WORD: Final = lazyre.compile(
    rf"(?i)^(?:{_VERB}|be|been|being|stored|kept|hosted|deployed|managed|made|built|sent|"
    r"emailed|written|run|served|handled|done|paid|shipped|backed|based|located|"
    r"installed|mounted|pinned|set|configured|\w+ed)$")
#: Longer entries are not read for the facts they coordinate.
_LONGEST: Final = 600
_STRICT_VERB: Final = lazyre.compile(rf"(?i)^(?:{_VERB})$")
_PLURAL_VERB: Final = {"is": "are", "has": "have", "goes": "go", "runs": "run",
                       "sits": "sit", "lives": "live", "uses": "use", "was": "were"}
_SINGULAR_VERB: Final = {v: k for k, v in _PLURAL_VERB.items()}


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _agree(subject: str, verb: str) -> str:
    """``verb`` as ``subject`` takes it (its number read from its last word's ending)."""
    word = subject.split()[-1]
    last = word.lower()
    plural = last.endswith("s") and not last.endswith(("ss", "us", "is")) and \
        not word.isupper()  # "SMS", "DNS": a name
    low = verb.lower()
    if plural:
        return _PLURAL_VERB.get(low, verb)
    return _SINGULAR_VERB.get(low, verb)


def _filled(first: str, part: str) -> str | None:
    """``part``, a clause missing its verb, completed from ``first`` at the preposition
    both share; None when they share none."""
    gap = _GAPPED.match(part)
    if gap is None or _CLAUSE.match(part) or _LEANS.match(part) or _BACK.search(part) or \
            not _SUBJECT_START.match(gap.group("head")):
        return None
    words = first.split()
    prep = gap.group("prep").lower()
    at = next((i for i, w in enumerate(words) if w.lower() == prep and i > 1), None)
    if at is None:
        return None
    if _VERB_WORD.match(words[at - 1]):
        # The subject is what changes: "staging is at a.dev" + "prod at b.dev".
        verb_start = next((i for i in range(1, at) if _STRICT_VERB.match(words[i])), None)
        if verb_start is None:
            return None
        verb = [_agree(gap.group("head"), words[verb_start]), *words[verb_start + 1:at]]
        return _cap(" ".join([gap.group("head"), *verb, gap.group("prep"),
                              gap.group("rest")]))
    # The object is what changes: "the team uses pnpm for packages" + "Biome for linting".
    verb_at = next((i for i in range(at - 1, 0, -1) if _STRICT_VERB.match(words[i])), None)
    if verb_at is None:
        return None
    return _cap(" ".join([*words[:verb_at + 1], gap.group("head"), gap.group("prep"),
                          gap.group("rest")]))


def _shared_subject(first: str, part: str) -> str | None:
    """``part``, a verb phrase ("runs k3s"), with ``first``'s subject ("the cluster has
    six nodes"); None when ``part`` starts with no verb."""
    words = first.split()
    head = part.split(maxsplit=1)
    if len(head) < 2 or not _STRICT_VERB.match(head[0]) or head[0][:1].isupper():
        return None
    verb_start = next((i for i in range(1, len(words)) if _STRICT_VERB.match(words[i])),
                      None)
    if verb_start is None or verb_start > 4:
        return None
    return _cap(" ".join([*words[:verb_start], part]))


def facts_of(entry: str) -> list[str]:
    """``entry`` as one entry per fact it coordinates (itself when it holds one)."""
    body = entry.strip()
    if len(body) > _LONGEST:
        return [entry]  # no entry is this long; the memory tool judges it whole
    end = body[-1] if body.endswith((".", "!")) else "."
    body = body.rstrip(".!").strip()
    pieces = _JOINT.split(body)
    if len(pieces) < 3 or not _CLAUSE.match(pieces[0]) or _LEANS.match(pieces[0]):
        return [entry]
    facts = [pieces[0]]
    for joint, part in zip(pieces[1::2], pieces[2::2], strict=True):
        part = part.strip()
        if _CLAUSE.match(part) and not _LEANS.match(part) and not _BACK.search(part):
            facts.append(_cap(part))
            continue
        filled = _filled(facts[0], part) or _shared_subject(facts[0], part)
        if filled is not None:
            facts.append(filled)
        else:
            facts[-1] += joint + part  # part of the fact before it
    if len(facts) < 3:
        return [entry]  # two facts said in one breath stay one: "the backend is Go and the
        # frontend is Svelte" (a run of three or more is a list of facts)
    return [fact.rstrip(" ,;:") + end for fact in facts]
