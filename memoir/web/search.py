"""The web view's one search box: memory entries, skills, sessions, runs and records.

Each kind is searched the way its own page searches it, so a result is never one the
page would not show: memory entries and skills by their words (every word of the
query, any case), sessions through the episodic index (``memoir sessions search``,
hybrid where the semantic extra is in use), runs and records through the timeline's
text filter (what ``memoir log --grep`` finds).  The answer names the words matched,
and the page marks them (``<mark>``, never ``[brackets]``, which code holds too).
"""

from __future__ import annotations

import re
from typing import Any

from memoir.api import Memoir
from memoir.errors import ValidationError
from memoir.projections.memory import TARGETS
from memoir.skills.model import parse_frontmatter
from memoir.web import pages
from memoir.web.timeline import Filters, timeline

__all__ = ["search"]

#: Results per kind.
PER_KIND = 20
#: Records the runs' part reads at most, newest first (the timeline pages further).
RUNS_BUDGET = 5_000
#: The longest query taken (a search box, not a document).
MAX_QUERY = 500


def _words(query: str) -> list[str]:
    """The query's words, as the memory and skill searches match them."""
    return [w for w in re.findall(r"\w[\w.:/@-]*", query.casefold()) if len(w) > 1] or \
        [query.casefold().strip()]


def _holds(text: str, words: list[str]) -> bool:
    folded = text.casefold()
    return all(w in folded for w in words)


def _line(text: str, words: list[str], width: int = 160) -> str:
    """The first line of ``text`` holding a word (clipped around it)."""
    for line in text.splitlines():
        folded = line.casefold()
        at = min((folded.find(w) for w in words if w in folded), default=-1)
        if at >= 0:
            start = max(0, at - width // 3)
            return ("…" if start else "") + line[start:start + width].strip() + \
                ("…" if start + width < len(line) else "")
    return ""


def search(home: Memoir, query: str) -> dict[str, Any]:
    """Everything the query finds, grouped by kind (each at most :data:`PER_KIND`)."""
    query = (query or "").strip()
    if not query:
        raise ValidationError("give something to search for (q=…)")
    if len(query) > MAX_QUERY:
        raise ValidationError(f"the query is longer than {MAX_QUERY} characters")
    words = _words(query)
    state = home.state
    memory = [{"target": target, "id": e.id, "text": e.text}
              for target in TARGETS for e in state.memory.target(target).entries
              if _holds(e.text, words)][:PER_KIND]
    skills = []
    for record in sorted(state.skills.skills.values(), key=lambda r: r.name):
        texts = [record.name, record.content, *record.files.values()]
        if record.archived or not _holds("\n".join(texts), words):
            continue
        meta, body = parse_frontmatter(record.content)
        skills.append({"name": record.name, "category": record.category,
                       "description": str(meta.get("description") or ""),
                       "line": _line("\n".join([body, *texts[2:]]), words)})
        if len(skills) >= PER_KIND:
            break
    sessions = pages.sessions(home, query, limit=PER_KIND)["hits"]
    runs = timeline(home, limit=PER_KIND, filters=Filters(text=query), budget=RUNS_BUDGET)
    found = {"memory": memory, "skills": skills, "sessions": sessions,
             "runs": runs["items"]}
    marked = sorted({*words, *(w for hit in sessions for w in hit.get("words", ()))},
                    key=len, reverse=True)
    return {"query": query, "words": marked, **found,
            "counts": {kind: len(items) for kind, items in found.items()},
            # How far back the runs' search read (a bounded part of the journal).
            "runs_scanned": runs["scanned"], "runs_next": runs["next"]}
