"""The semantic reviewer (``reviewers.backend: semantic``, and ``auto``'s choice where
the semantic extra is in use): the rule reviewer, plus a classifier over the
embeddings of the clauses of the user's messages, which saves the clauses the rules
have no pattern for.

The classifier is a softmax regression (``none``, ``user``, ``memory``) over the 384
numbers of all-MiniLM-L6-v2 and the word cues of :data:`CUES` beside them, trained on
the labelled turns of ``tests/data/`` (the rules' corpus and the training part of
``tests/data/reviews/``; never a held-out part) and shipped as data
(``semantic_model.json``, written by ``tests/data/reviews/make_model.py``).  A clause
whose best class is ``user`` or ``memory`` with probability at least its
:data:`THRESHOLDS` becomes an entry of that target, as written (as its whole sentence
when it leans on it, see :class:`~memoir.reviewers.rules.Clause`); what the rules find
is kept as they find it.  :func:`clauses` says which clauses it looks at.

Measured on the held-out part written after it was frozen (docs/reviewers.md):
precision 0.975, recall 0.594 (0.75 counting every fact an entry holds), against the
rules' 1.000 and 0.135.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from memoir import lazyre
from memoir.errors import ConfigError
from memoir.logs import get_logger
from memoir.reviewers import rules
from memoir.reviewers.facts import as_fact
from memoir.reviewers.rules import (
    Clause,
    Finding,
    RulesBackend,
    _same,
    clauses_of,
    extract,
    one_fact_each,
)
from memoir.semantic import MODEL_NAME, Encoder, shared_encoder

__all__ = ["CLASSES", "CUES", "MODEL_FILE", "THRESHOLDS", "Classifier", "SemanticBackend",
           "clauses", "features", "train"]

CLASSES = ("none", "user", "memory")
#: The probability a clause's class needs to be kept, per target (chosen by five folds
#: over the training part, precision first; docs/reviewers.md).
THRESHOLDS = {"user": 0.7, "memory": 0.7}
MODEL_FILE = Path(__file__).with_name("semantic_model.json")
_log = get_logger("memoir.reviewers.semantic")
_FENCE = lazyre.compile(r"```.*?(?:```|$)", re.S)
_SPECIFIC = lazyre.compile(r"\d|`|/|\.\w|(?<=\s)[A-Z][\w-]+|\b[a-z]+[A-Z]\w*")
_CHAT = lazyre.compile(r"(?i)\b(hello|hi|hey|thanks|thank you|sorry|lol|haha|funny|quick "
                   r"question|one sec|brb|cheers|ok|okay|cool|great|awesome|gosh|ugh)\b")
_LEAD = lazyre.compile(r"(?i)^(it|this|that|they|them|these|those|there|which|from|with|for|to|"
                   r"because|then|also)\b")
_ONE_OFF = lazyre.compile(r"(?i)\b(instead|again|now|first|next|quickly|real quick|this one|"
                      r"options|for me)\b")
_I = lazyre.compile(r"(?i)\b(i|i'm|i've|me|my|mine)\b")
_WE = lazyre.compile(r"(?i)\b(we|our|us|we're|team|company)\b")
_YOU = lazyre.compile(r"(?i)\b(you|your)\b")
_MOMENT = lazyre.compile(
    r"(?i)\b(today|tonight|yesterday|tomorrow|this (?:morning|afternoon|evening|week|time)|"
    r"right now|just now|at the moment|for this (?:task|ticket|pr|one)|"
    r"i(?:'m| am) (?:working on|trying|debugging|looking at|stuck|getting)|i tried|i ran|"
    r"let's(?! encrypt)|let us|can you|could you|would you|will you|help me|"
    r"fix (?:this|the|that)|traceback|failed|failing|fails|crash(?:ed|es)?|broke|broken|"
    r"doesn't work|didn't work|not working|no longer works|timed? ?out|thanks|thank you|"
    r"lol|haha)\b")
_UNREAL = lazyre.compile(r"(?i)\bif (?:we|i|you) ever\b|\b(might|maybe|perhaps|imagine|pretend|"
                     r"let's say|wish|thinking about|at some point|someday|nothing decided|"
                     r"not decided|for this exercise)\b")
_OTHERS = lazyre.compile(r"(?i)\b(colleague|coworker|co-worker|friend|competitor'?s?|vendor|"
                     r"(?:someone|somebody) (?:on|at|from|in|said|says|told)|candidate|"
                     r"apparently|claims?|swears?|they say|people say|the book|the docs say|"
                     r"the article)\b")
_PAST = lazyre.compile(r"(?i)\b(used to|was using|were using|back in|in the past|previously|"
                   r"at my old job|last job)\b")
#: A question without its question mark (people type them so): a question word with its
#: verb, or a verb before its subject ("what is your favorite language", "do you play
#: soccer"; not "what I like is …", "do not …").
_ASKED = lazyre.compile(
    r"(?i)^(?:(?:what|who|whom|whose|where|when|why|how)(?:'s|\s+(?:is|are|was|were|"
    r"do|does|did|can|could|will|would|should|has|have|had|kind|type|much|many|far|long|"
    r"old))|(?:do|does|did|are|is|was|were|can|could|will|would|should|have|has|shall|may)"
    r"\s+(?:you|i|we|they|it|he|she|there|your|my|the|this|that))\b")
#: A remark on the assistant itself ("you are a charlatan", "you sound like Data"): what
#: it is, not what the person is or wants ("you're explaining … to someone who …" says
#: who the person is, and is left to the model).
_ABOUT_YOU = lazyre.compile(r"(?i)^(?:you(?:'re|\s+are|\s+were)\s+(?!\w+ing\b)|you\s+"
                            r"(?:sound|seem|look|act)\b)")
#: An answer whose verb stands for one said before: "I do not.", "I certainly am.", "I'm
#: also good." — nothing of its own to keep.
_ELIDED = lazyre.compile(
    r"(?i)^(?:(?:i|i'm|we|we're|you|it|they|am|is|are|was|do|does|did|don't|doesn't|can|"
    r"can't|will|won't|have|has|not|no|yes|certainly|also|too|so|really|indeed|sure|try|to|"
    r"be|of|course|good|fine|well|at|times)\b[\s,.!]*)+$")
#: A request for a talk of the moment: "tell me about relationships", "tell me a joke".
_TELL_ME = lazyre.compile(r"(?i)^(?:please\s+)?tell me (?:about|a|an|some|more)\b")
#: What is not a fact to keep, whatever the model says: of the moment (a problem, a
#: request, a passing state), not real (a plan, a wish, a supposition), someone
#: else's, or past; a question, a remark on the assistant.  Narrower than the rules'
#: transient words (an "error response" or "for now" is a cue the model weighs, not a
#: veto).
_NOT_FACT = (_MOMENT, _UNREAL, _OTHERS, _PAST, _ASKED, _ABOUT_YOU, _TELL_ME, _ELIDED)

#: What the embedding does not say well and a word does: the cues that go beside the
#: 384 numbers, each 0 or 1 (times :data:`CUE_SCALE`).  Their names are in the model
#: file; a model trained on other cues is refused.
CUES: dict[str, Callable[[str], bool]] = {
    "transient": lambda c: bool(rules._TRANSIENT.search(c)),
    "timebound": lambda c: bool(rules._TIMEBOUND.search(c)),
    "deictic": lambda c: bool(rules._DEICTIC.search(c)),
    "leads_back": lambda c: bool(_LEAD.match(c)),
    "standing": lambda c: bool(rules._STANDING.search(c)),
    "i": lambda c: bool(_I.search(c)),
    "we": lambda c: bool(_WE.search(c)),
    "you": lambda c: bool(_YOU.search(c)),
    "specific": lambda c: bool(_SPECIFIC.search(c)),
    "three_words": lambda c: len(c.split()) <= 3,
    "six_words": lambda c: len(c.split()) <= 6,
    "chat": lambda c: bool(_CHAT.search(c)),
    "task": lambda c: bool(rules._INSTRUCTION.match(c)) and not rules._STANDING.search(c),
    "rule": lambda c: bool(rules._STRONG.match(c)),
    "one_off": lambda c: bool(_ONE_OFF.search(c)),
    "exclaims": lambda c: c.endswith("!"),
    "unreal": lambda c: bool(_UNREAL.search(c)),
    "others": lambda c: bool(_OTHERS.search(c)),
    "past": lambda c: bool(_PAST.search(c)),
}
CUE_SCALE = 0.3


def clauses(text: str) -> list[Clause]:
    """The clauses of a user message the classifier looks at: not fenced code, not a
    question or a heading ("About me:"), not what :data:`_NOT_FACT` names, and not one
    the rules already keep something of - nor, for a clause kept as its whole sentence,
    a sentence the rules keep something of."""
    return [c for c in clauses_of(_FENCE.sub(" ", text))
            if not c.text.endswith(("?", ":")) and not any(r.search(c.text) for r in _NOT_FACT)
            and not extract(c.text) and not (c.leans and extract(c.sentence))]


def features(texts: list[str], encoder: Encoder) -> Any:
    """The embeddings of ``texts`` with their cues beside them."""
    import numpy as np

    cues = np.array([[float(cue(t)) for cue in CUES.values()] for t in texts],
                    dtype=np.float32).reshape(len(texts), len(CUES))
    return np.hstack([encoder.encode(texts), CUE_SCALE * cues])


def _label(clause: str, row: Mapping[str, Any]) -> int:
    low = clause.casefold()
    if any(p.casefold() in low for p in row["user"]):
        return 1
    return 2 if any(p.casefold() in low for p in row["memory"]) else 0


def train(rows: Iterable[Mapping[str, Any]], encoder: Encoder, *, epochs: int = 1000,
          rate: float = 0.5, l2: float = 1e-3) -> dict[str, Any]:
    """The model, as :data:`MODEL_FILE` holds it, from labelled turns (``text``, and the
    phrases an entry of each target must hold: ``user``, ``memory``).  Deterministic:
    class-balanced gradient descent from zero."""
    import numpy as np

    texts: list[str] = []
    labels: list[int] = []
    digest = hashlib.blake2b(digest_size=16)
    for row in rows:
        digest.update(json.dumps(row, sort_keys=True, ensure_ascii=False).encode())
        for clause in clauses(row["text"]):
            texts.append(clause.text)
            labels.append(_label(clause.text, row))
    x = features(texts, encoder).astype(np.float64)
    y = np.array(labels)
    weight = (len(y) / (3 * np.maximum(np.bincount(y, minlength=3), 1)))[y][:, None]
    onehot = np.eye(3)[y]
    w, b = np.zeros((3, x.shape[1])), np.zeros(3)
    for _ in range(epochs):
        z = x @ w.T + b
        p = np.exp(z - z.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        g = (p - onehot) * weight / len(y)
        w -= rate * (g.T @ x + l2 * w)
        b -= rate * g.sum(axis=0)
    return {"model": MODEL_NAME, "classes": list(CLASSES), "cues": list(CUES),
            "thresholds": THRESHOLDS,
            "clauses": len(texts), "trained_on": digest.hexdigest(),
            "weights": [[round(float(v), 7) for v in row] for row in w],
            "bias": [round(float(v), 7) for v in b]}


class Classifier:
    """The shipped model, checked as it is read (it is a file: shapes, classes and the
    embedding model it was trained on are verified, not trusted)."""

    def __init__(self, data: Mapping[str, Any], encoder: Encoder) -> None:
        import numpy as np

        if data.get("model") != MODEL_NAME or tuple(data.get("classes", ())) != CLASSES \
                or data.get("cues") != list(CUES):
            raise ConfigError(f"the semantic reviewer's model was trained on "
                              f"{data.get('model')!r} with classes {data.get('classes')!r} "
                              f"and cues {data.get('cues')!r}; this memoir embeds with "
                              f"{MODEL_NAME} and the cues {list(CUES)}")
        self.w = np.array(data["weights"], dtype=np.float32)
        self.b = np.array(data["bias"], dtype=np.float32)
        if self.w.shape != (3, encoder.dim + len(CUES)) or self.b.shape != (3,) or \
                not np.isfinite(self.w).all() or not np.isfinite(self.b).all():
            raise ConfigError("the semantic reviewer's model has weights of the wrong shape "
                              "or non-finite values")
        cuts = data.get("thresholds", THRESHOLDS)
        if not isinstance(cuts, dict) or set(cuts) != set(THRESHOLDS) or not all(
                isinstance(v, float) and 0 < v <= 1 for v in cuts.values()):
            raise ConfigError(f"the semantic reviewer's model has thresholds {cuts!r}: one "
                              f"number in (0, 1] for each of {sorted(THRESHOLDS)}")
        self.thresholds = {k: float(v) for k, v in cuts.items()}
        self.encoder = encoder
        self._np = np

    @classmethod
    def shipped(cls) -> Classifier:
        return cls(json.loads(MODEL_FILE.read_text(encoding="utf-8")), shared_encoder())

    def find(self, text: str, thresholds: Mapping[str, float] | None = None) -> list[Finding]:
        """What the rules find in ``text``, and the clauses the model gives a target
        (a clause that leans on its sentence's earlier ones is kept as the sentence)."""
        np = self._np
        found = list(extract(text))  # one fact per entry already
        parts = clauses(text)
        if not parts:
            return found
        added: list[Finding] = []
        z = features([c.text for c in parts], self.encoder) @ self.w.T + self.b
        p = np.exp(z - z.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        cuts = thresholds or self.thresholds
        for clause, probs in zip(parts, p, strict=True):
            k = int(probs.argmax())
            if k and probs[k] >= cuts[CLASSES[k]]:
                entry = as_fact(clause.sentence if clause.leans else clause.text,
                                CLASSES[k])
                if not any(_same(entry, f.text) for f in (*found, *added)):
                    added.append(Finding(CLASSES[k], entry))
        return found + one_fact_each(added)


class SemanticBackend(RulesBackend):
    """The rule reviewer's writing (no duplicates, keyed facts replaced, room made),
    with :meth:`Classifier.find` as what it finds.  With ``fallback`` (``auto``'s
    choice) a message the model's runtime fails on is read by the rules alone, and a
    warning logged; without (``semantic`` chosen) the failure fails the review."""

    name = "semantic"

    def __init__(self, classifier: Classifier | None = None, *, fallback: bool = False
                 ) -> None:
        self.classifier = classifier or Classifier.shipped()
        self.fallback = fallback

    def findings(self, text: str) -> list[Finding]:
        try:
            return self.classifier.find(text)
        except (RuntimeError, ValueError, OSError) as exc:
            if not self.fallback:
                raise
            _log.warning("semantic_reviewer_fell_back", error=repr(exc))
            return extract(text)
