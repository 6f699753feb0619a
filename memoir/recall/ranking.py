"""How the episodic index ranks: the query's words, fusion, dates and the relevance floor.

* **Words.** A question's function and question words ("what", "did", "the", "about")
  are dropped before matching: they are in every session and would rank every one.
  What is left is OR-ed, so BM25 ranks a window by how many of the question's words it
  holds and how rare they are (people rarely ask with every word they used); in a large
  home the frequent words only score the documents holding a rarer one (:func:`or_plan`).
  A query written with FTS5's own operators is matched as written.
* **Fusion.** In hybrid recall, the BM25 scores and the embeddings' cosines of the
  documents either found are each min-max normalised over the candidates and added with
  weights (:data:`LEXICAL_WEIGHT`); reciprocal-rank fusion, used before, gave a weak
  match of one list as much as a strong match of the other and pulled exact keyword hits
  down.  A question naming an identifier (a host, an error code, a path) leans on the
  words (:data:`IDENTIFIER_WEIGHT`).
* **Dates.** A month or a day named in the question ("in March", "on 14 May",
  "2025-03-14") lifts the sessions active then.
* **Relevance floor.** What a prompt recalls must be about the message: the share of the
  query's word weight (IDF) its window holds, or — with the embeddings — its cosine, must
  clear a floor calibrated on questions no session discusses (docs/recall.md).
"""

from __future__ import annotations

import datetime as dt
import math
import re
import sqlite3
import threading
from collections.abc import Callable, Iterable, Sequence

from memoir import lazyre
from memoir.clock import parse_ts

__all__ = ["COMMON", "DEFAULT_WEIGHTS", "LEXICAL_WEIGHT", "OFTEN", "OLDER_WEIGHT", "Terms",
           "Tokenizer", "clean_query", "date_spans", "fuse", "in_spans", "is_identifier",
           "names_date", "or_plan", "prompt_keeps", "query_terms", "query_words", "recency_weight",
           "snippet", "title"]

_MAX_QUERY = 2048
_OPERATORS = lazyre.compile(r'[+{}():^"]')
#: The BM25 share of a fused score; the embeddings' is the rest.
LEXICAL_WEIGHT = 0.5
#: The BM25 share when the question names an identifier.
IDENTIFIER_WEIGHT = 0.8
#: How much a session active on a date the question names is lifted.
DATE_LIFT = 1.5
#: A window must hold this share of the query's word weight to be recalled into a prompt
#: by words alone...
MIN_COVERAGE = 0.5
#: ... or, with the embeddings, reach this cosine with the message, or stand this many
#: standard deviations above the message's cosines with every document.
MIN_PROMPT_COSINE = 0.45
MIN_SURPRISE = 4.0
#: With the embeddings and at least GATE_FROM candidate sessions, a message whose best
#: sessions stand out from the rest is about something the home discusses, and its first
#: GATE_KEEPS sessions are recalled by that alone (see :func:`prompt_keeps`).  How much
#: they stand out: the weighted sum of the top cosine's z-score over the home's documents
#: (over 10), the best coverage, and how far the top cosine and the best coverage are
#: above the mean of the next five; above STAND_OUT.  Calibrated on the first 8 chats of
#: the recall sets (docs/recall.md), checked on the other 16 and the agent sessions.
GATE_FROM, GATE_KEEPS, GATE_LOOKS = 6, 3, 9
STAND_OUT_WEIGHTS = (0.2, 0.3, 0.65, 0.35)
STAND_OUT = 0.33

#: A word more than this share of the documents hold (and more than COMMON_FLOOR) is left
#: out of an OR-ed query: OR-ing it would score all of them, for little.
COMMON = 0.1
#: A word more than this share hold (and more than COMMON_FLOOR) does not make a document
#: a match of an OR-ed query, it only scores those holding a rarer word of the query
#: (Lucene's "common terms"): see :func:`or_plan`.
OFTEN = 0.01
COMMON_FLOOR = 1000

#: Function and question words of English and of the other languages memoir's scan reads
#: (the common ones), dropped from a query: alone they match every session.
_STOPWORD_TEXT = """
a about above after again against all also am an and any are as at be because been before
being below between both but by can could did do does doing done down during each either
else ever few for from further get got had has have having he her here hers herself him
himself his how i if in into is it its itself just let me might mine more most much must my
myself no nor not now of off on once only or other ought our ours ourselves out over own
per please quite rather really remind same say said shall she should so some such tell
than that the their theirs them themselves then there these they this those through to
too under until up upon us very was we were what whats when where whether which while who
whom whose why will with would yet you your yours yourself yourselves ok okay anything
something everything nothing anyone someone thing things know think recall remember
mention mentioned talk talked told ask asked kind sort lot bit way
last time times earlier previously recently ago lately yesterday today
der die das und ist nicht ein eine zu den mit von was wie wo wer ich du wir sie es
le la les et est un une des du de que qui quoi comment où je tu nous vous il elle
el los las y una qué cómo dónde yo tú nosotros
"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())

# a host, a path, a dotted name; letters with digits (a hash, "OPS4412"); CamelCase.  A
# number alone (a year, a count) is not one.
_IDENTIFIER = lazyre.compile(r"\w+[._/:-][\w./:-]*\w|(?=\w*\d)(?=\w*[^\W\d])\w+"
                             r"|[A-Z][a-z]+[A-Z]\w*")
_MONTHS = {name: i + 1 for i, name in enumerate(
    ("january", "february", "march", "april", "may", "june", "july", "august",
     "september", "october", "november", "december"))}
_MONTHS.update({name[:3]: number for name, number in list(_MONTHS.items())})
_MONTHS["sept"] = 9
_MONTH_WORD = "|".join(sorted(_MONTHS, key=len, reverse=True))
_ISO_DAY = lazyre.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_DAY_MONTH = lazyre.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH_WORD})\b"
                            rf"\.?(?:\s+(\d{{4}}))?", re.IGNORECASE)
_MONTH_DAY = lazyre.compile(rf"\b({_MONTH_WORD})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?\b"
                            rf"(?:,?\s+(\d{{4}}))?", re.IGNORECASE)
# "May" alone is a month only after "in", "during", "since", "last" or with a year: "may"
# is a verb too.
_IN_MONTH = lazyre.compile(rf"\b(?:in|during|since|last|early|late|mid|back in|this|of)\s+"
                           rf"(?:early\s+|late\s+|mid-?)?({_MONTH_WORD})\b\.?(?:\s+(\d{{4}}))?"
                           rf"|\b({_MONTH_WORD})\s+(\d{{4}})\b", re.IGNORECASE)


def query_words(terms: Sequence[str]) -> list[str]:
    """The terms of a cleaned query (:func:`~memoir.recall.index.query_terms`) that say
    something: words and phrases that are not only function or question words."""
    out = []
    for term in terms:
        if term in ("AND", "OR", "NOT"):
            continue
        # "What's" is cleaned to the phrase "What s": a phrase says something when one
        # of its words does
        said = [w for w in term.strip('"').casefold().strip("*").split()
                if len(w) > 1 and w not in STOPWORDS]
        if said:
            out.append(_possessive(term))
    return out


def _possessive(term: str) -> str:
    """"app's" is cleaned to the phrase "app s"; the "s" is in most documents (every
    possessive and contraction), so matching it costs more than it says: the word alone,
    as English analysers strip the possessive."""
    inner = term[1:-1].split() if term.startswith('"') and term.endswith('"') else []
    if len(inner) < 2 or inner[-1].casefold() != "s":
        return term
    return '"' + " ".join(inner[:-1]) + '"'


def names_date(word: str) -> bool:
    """A month's name or a number: a date the question names, which sessions match by
    their time, not by their words."""
    word = word.strip('"').lower().rstrip(".")
    return word in _MONTHS or word.rstrip("stndrh").isdigit()


def is_identifier(text: str) -> bool:
    """A host, a path, an error code, an id: words that must match as written."""
    return any(_IDENTIFIER.fullmatch(token) for token in text.strip('"').split())


def fuse(lexical: Sequence[tuple[int, str, float]], near: Sequence[tuple[int, str, float]],
         *, lexical_weight: float, min_cosine: float
         ) -> list[tuple[int, str, float, float | None, float | None]]:
    """(rowid, session, fused score, BM25, cosine) per document either list found: each
    list's scores min-max normalised over its candidates, then weighted and added.  The
    embeddings vote only from ``min_cosine`` up (below, they say "unrelated")."""
    sessions: dict[int, str] = {}
    shares: dict[int, float] = {}
    scores: dict[int, float] = {}
    cosines: dict[int, float] = {}
    if lexical:
        top, bottom = lexical[0][2], lexical[-1][2]
        span = top - bottom
        for rowid, sid, score in lexical:
            sessions[rowid], scores[rowid] = sid, score
            shares[rowid] = lexical_weight * ((score - bottom) / span if span > 0 else 1.0)
    near = [n for n in near if n[2] >= min_cosine]
    if near:
        top, bottom = near[0][2], min(min_cosine, near[-1][2])
        span = top - bottom
        for rowid, sid, cosine in near:
            sessions[rowid], cosines[rowid] = sid, cosine
            shares[rowid] = shares.get(rowid, 0.0) + (1 - lexical_weight) * (
                (cosine - bottom) / span if span > 0 else 1.0)
    return [(rowid, sessions[rowid], share, scores.get(rowid), cosines.get(rowid))
            for rowid, share in shares.items()]


def date_spans(query: str, now: dt.datetime) -> list[tuple[dt.datetime, dt.datetime]]:
    """The days or months ``query`` names, as [start, end) spans; a month or day without a
    year is the last one before ``now``."""
    spans = []

    def year_for(month: int, day: int, year: str | None) -> int:
        if year:
            return int(year)
        return now.year if (month, day) <= (now.month, now.day) else now.year - 1

    def day_span(year: int, month: int, day: int) -> None:
        try:
            start = dt.datetime(year, month, day, tzinfo=dt.UTC)
        except ValueError:
            return
        spans.append((start, start + dt.timedelta(days=1)))

    for m in _ISO_DAY.finditer(query):
        day_span(int(m[1]), int(m[2]), int(m[3]))
    for m in _DAY_MONTH.finditer(query):
        if m[2] != "may":  # "option 3 may be better": the verb
            month = _MONTHS[m[2].lower()]
            day_span(year_for(month, int(m[1]), m[3]), month, int(m[1]))
    for m in _MONTH_DAY.finditer(query):
        if m[1] != "may":  # "you may 2x the limit"
            month = _MONTHS[m[1].lower()]
            day_span(year_for(month, int(m[2]), m[3]), month, int(m[2]))
    if not spans:
        for m in _IN_MONTH.finditer(query):
            name, year = (m[1], m[2]) if m[1] else (m[3], m[4])
            month = _MONTHS[name.lower()]
            first = year_for(month, 1, year)
            start = dt.datetime(first, month, 1, tzinfo=dt.UTC)
            end = dt.datetime(first + (month == 12), month % 12 + 1, 1, tzinfo=dt.UTC)
            spans.append((start, end))
    return spans


def in_spans(started: dt.datetime, last: dt.datetime,
             spans: Iterable[tuple[dt.datetime, dt.datetime]]) -> bool:
    """Whether a session active from ``started`` to ``last`` overlaps a span."""
    return any(started < end and last >= start for start, end in spans)


class Tokenizer:
    """Words as the index stems them (FTS5's porter tokenizer, in a scratch in-memory
    table), so that what a window holds is compared with the query term for term."""

    def __init__(self, tokenize: str) -> None:
        self._db = sqlite3.connect(":memory:", check_same_thread=False)
        self._db.execute(f"CREATE VIRTUAL TABLE s USING fts5(t, tokenize = '{tokenize}')")
        self._db.execute("CREATE VIRTUAL TABLE si USING fts5vocab(s, 'instance')")
        self._lock = threading.Lock()

    def terms(self, texts: Sequence[str]) -> list[set[str]]:
        """The stemmed words of each text."""
        with self._lock:
            db = self._db
            db.executemany("INSERT INTO s (rowid, t) VALUES (?, ?)", enumerate(texts))
            out: list[set[str]] = [set() for _ in texts]
            for term, doc in db.execute("SELECT term, doc FROM si"):
                out[doc].add(term)
            db.execute("DELETE FROM s")
        return out


class Terms:
    """The words of one query as the index holds them: each word's stems, how many
    documents hold each stem, and the stems' weights (BM25's IDF)."""

    def __init__(self, words: Sequence[str], tokenizer: Tokenizer, db: sqlite3.Connection,
                 *, every: bool = False) -> None:
        """``every``: count the stems of function words too (what :meth:`common` reads;
        "timing" is stemmed to "time", a function word, and matches as often)."""
        self.words = list(words)
        self.stems = tokenizer.terms([w.strip('"') for w in self.words])
        (self.documents,) = db.execute("SELECT coalesce(max(rowid), 0) FROM docs").fetchone()
        self.counts: dict[str, int] = {}
        for stem in set().union(*self.stems) - (set() if every else STOPWORDS):
            row = db.execute("SELECT doc FROM docs_terms WHERE term = ?", (stem,)).fetchone()
            self.counts[stem] = row[0] if row else 0
        # A small home weighs its words as a large one would: in ten documents a word
        # said twice is not a common word.
        total = max(self.documents, 1000)
        self.weights = {stem: math.log((total - df + 0.5) / (df + 0.5) + 1)
                        for stem, df in self.counts.items() if stem not in STOPWORDS}

    def common(self, share: float) -> list[str]:
        """The words every stem of which more than ``share`` of the documents hold (and
        more than :data:`COMMON_FLOOR`)."""
        most = max(share * self.documents, COMMON_FLOOR)
        return [word for word, stems in zip(self.words, self.stems, strict=True)
                if stems and all(self.counts.get(s, 0) > most for s in stems)]

    def coverage(self, held: set[str]) -> float:
        """The share of the query's word weight a document holding ``held`` has."""
        total = sum(self.weights.values())
        if total <= 0:
            return 0.0
        return sum(w for s, w in self.weights.items() if s in held) / total


def or_plan(words: Sequence[str], vocab: Terms) -> list[str]:
    """The FTS5 expressions an OR-ed query of ``words`` runs as; their documents, merged
    by rowid, are its matches.  The commonest words (:data:`COMMON`) are left out; when
    the rest holds both words of :data:`OFTEN` and rarer ones, the matches are the
    documents holding a rarer word, found as ``(rare) AND (often)`` and ``(rare) NOT
    (often)``: both name every word, so BM25 scores each document exactly as the whole
    OR would, without scoring the tens of thousands that hold only a frequent word (at a
    million documents the OR-ed query took 60-250 ms, the pair 8-35 ms).  A small home
    (no word past :data:`COMMON_FLOOR` documents) runs the plain OR."""
    common = set(vocab.common(COMMON))
    kept = [w for w in words if w not in common] or list(words)
    often = set(vocab.common(OFTEN)).intersection(kept)
    rare = [w for w in kept if w not in often]
    if not often or not rare:
        return [" OR ".join(kept)]
    either, frequent = " OR ".join(rare), " OR ".join(w for w in kept if w in often)
    return [f"({either}) AND ({frequent})", f"({either}) NOT ({frequent})"]


def prompt_keeps(cover: Sequence[float], cosines: Sequence[float | None],
                 spread: tuple[float, float] | None,
                 surprising: Callable[[float], bool]) -> list[bool]:
    """Which of a prompt's candidate sessions (best first: each one's coverage of the
    message's word weight and its cosine, None where it has none; ``spread`` the mean and
    deviation of the message's cosines over the home, None without the embeddings) it
    recalls: one holding half the word weight, or with a cosine of MIN_PROMPT_COSINE;
    then, in a small home, one ``surprising`` among its documents, and in a larger one
    the first few when the best stand out (:data:`STAND_OUT`)."""
    own = [c >= MIN_COVERAGE or (spread is not None and s is not None and s >= MIN_PROMPT_COSINE)
           for c, s in zip(cover, cosines, strict=True)]
    if spread is None:
        return own
    if len(cover) < GATE_FROM:
        return [k or (s is not None and surprising(s)) for k, s in zip(own, cosines, strict=True)]
    if _stands_out(cover[:GATE_LOOKS], cosines[:GATE_LOOKS], *spread):
        return [k or i < GATE_KEEPS for i, k in enumerate(own)]
    return own


def _stands_out(cover: Sequence[float], cosines: Sequence[float | None], mean: float,
                std: float) -> bool:
    sims = sorted((c or 0.0 for c in cosines), reverse=True) + [0.0] * 6
    covs = sorted(cover, reverse=True) + [0.0] * 6
    z = (sims[0] - mean) / std if std > 0 else 0.0
    features = (z / 10, covs[0], sims[0] - sum(sims[1:6]) / 5, covs[0] - sum(covs[1:6]) / 5)
    return sum(w * f for w, f in zip(STAND_OUT_WEIGHTS, features, strict=True)) > STAND_OUT


#: Seed 004's recency weights: (days, weight), newest first; older than the last: 0.7.
DEFAULT_WEIGHTS: tuple[tuple[float, float], ...] = ((7, 2.0), (30, 1.5), (90, 1.0))
OLDER_WEIGHT = 0.7


def clean_query(query: str) -> str:
    """An FTS5 MATCH expression from what a person typed (see the module docstring)."""
    return " ".join(query_terms(query))


def query_terms(query: str) -> list[str]:
    """The terms of :func:`clean_query`: words and quoted phrases."""
    text = query[:_MAX_QUERY]
    phrases = re.findall(r'"([^"]+)"', text)
    text = re.sub(r'"[^"]*"', " ", text)
    text = _OPERATORS.sub(" ", text)
    text = re.sub(r"\*+", "*", text)
    words = []
    for token in text.split():
        token = token.lstrip("*")
        if not token or token == "-":
            continue
        if re.search(r"[.\-_/@#$%&=<>,;!?~`'\\[\]|]", token):
            inner = re.sub(r'[^\w.\-_/@]+', " ", token).strip()
            if inner:
                words.append(f'"{inner}"')
            continue
        words.append(token)
    terms = [*(f'"{p.strip()}"' for p in phrases if p.strip()), *words]
    while terms and terms[0] in ("AND", "OR", "NOT"):
        terms.pop(0)
    while terms and terms[-1] in ("AND", "OR", "NOT"):
        terms.pop()
    return terms


def recency_weight(last_active: str, now: dt.datetime,
                   weights: Iterable[tuple[float, float]] = DEFAULT_WEIGHTS,
                   older: float = OLDER_WEIGHT) -> float:
    try:
        age = (now - parse_ts(last_active)).total_seconds() / 86400
    except ValueError:
        return older
    for days, weight in weights:
        if age <= days:
            return weight
    return older


def snippet(text: str, words: list[str], size: int = 14, *, mark: bool = True) -> str:
    """About ``size`` words of ``text`` around the first match, matches in [brackets]
    (``mark`` False: left as they are, for a page that highlights them itself)."""
    tokens = text.split()
    found = re.compile("|".join(re.escape(w) for w in words if w) or "(?!)", re.IGNORECASE)
    at = next((i for i, t in enumerate(tokens) if found.search(t)), 0)
    start = max(0, at - size // 3)
    window = tokens[start:start + size]
    marked = [f"[{t}]" if mark and found.search(t) else t for t in window]
    return ("…" if start else "") + " ".join(marked) + ("…" if start + size < len(tokens)
                                                       else "")


def title(first: str) -> str:
    line = " ".join(first.split())
    return line if len(line) <= 60 else line[:59] + "…"
