"""The semantic second opinion on instruction-shaped text (the ``memoir[semantic]`` extra).

The structural detector (:mod:`memoir.threats.instructions`) reads clauses with words
it knows; a paraphrase in words it does not know passes it.  Where the semantic extra
is installed, a text the detector lets through is asked a second time, by meaning: a
logistic regression over its embedding, trained on the labelled hostile instructions
and benign look-alikes of ``tests/data/threats`` (``second_opinion.json`` beside this
module, built by ``tests/data/threats/make_second_opinion.py``), and a text it finds
hostile with probability :data:`THRESHOLD` or more is refused with the category whose
centroid is nearest.

It is asked only of text that names something worth guarding (:func:`worth_asking`: a
secret, the conversation, a destination, a remote source, a rule, keeping something
from the person): a fact that names none ("the build uses make") never loads the
model, so most memory writes cost what they did.  The text is embedded as a person
reads it (lookalike letters and invisible characters folded, s p a c e d letters
joined).

Without the extra, or with ``MEMOIR_THREATS_SEMANTIC=off`` in the environment, the
detector alone decides.  A failure of the extra never fails a scan: it is logged once
and the detector's answer stands.

The threshold was chosen by leaving one part out: the model trained on the other parts,
added to the detector as it was frozen before that part, scored on it (docs/security.md).
A model trained on another encoder's vectors is not used (a failure, logged once per
process).
"""

from __future__ import annotations

import json
import math
import os
import threading
from pathlib import Path
from typing import Any, Final

from memoir import lazyre, semantic
from memoir.errors import MemoirError
from memoir.logs import get_logger
from memoir.threats._clauses import (
    _DISCLOSE_FOREIGN,
    _SEND_FOREIGN,
    READ_LIMIT,
    _foreign_negated,
    _readings,
    _said,
    join_spaced,
)
from memoir.threats._slots import (
    _CONVERSATION,
    _DISCLOSE,
    _EXTERNAL,
    _FOREIGN_PERSON,
    _REMOTE,
    _SECRET_DATA,
    holds,
)
from memoir.threats.instructions import _IGNORE, _RULES, _SEND

__all__ = ["THRESHOLD", "enabled", "second_opinion", "worth_asking"]

#: The probability of "hostile" from which a text is refused.
THRESHOLD: Final = 0.9
_MODEL_FILE: Final = Path(__file__).with_name("second_opinion.json")
_LOG = get_logger("memoir.threats")

#: Keeping something from the person (the slot of concealment).
_HIDING: Final = lazyre.compile(
    r"\b(?:hide|hidden|conceal\w*|secret\w*|quiet\w*|silent\w*|mention\w*|tell|told|"
    r"know|knows|find out|notice|nobody|no one|invisible|trace\w*|deny|denies|pretend\w*|"
    r"admit\w*|disclose\w*|reveal\w*|bring (?:it )?up|business|word)\b")
#: The slots (the detector asks the first two too: :func:`holds` answers once).
_SLOTS: Final = (_SECRET_DATA, _EXTERNAL, _CONVERSATION, _REMOTE, _RULES, _IGNORE, _HIDING,
                 _FOREIGN_PERSON)

_SEND_OR_SHOW: Final = f"{_SEND}|{_DISCLOSE}"
_FOREIGN_VERBS: Final = (_SEND_FOREIGN, _DISCLOSE_FOREIGN)

_LOCK = threading.Lock()
_MODEL: tuple[Any, float, dict[str, Any]] | None = None
_FAILED = False


def enabled() -> bool:
    """Whether the second opinion is asked: the extra is installed and not turned off."""
    if os.environ.get("MEMOIR_THREATS_SEMANTIC", "auto").strip().lower() == "off":
        return False
    return semantic.available()


def worth_asking(text: str) -> bool:
    """Whether ``text``, in any of the detector's readings, names something worth
    guarding (a secret, the conversation, a destination, a remote source, a rule, the
    person); a fact that names none is never asked about, nor a rule against sending
    or showing (every such verb in it negated, in any language the detector reads:
    "never upload our chats to pastebin", "no envíes nunca la conversación a
    terceros"), which the detector has read already."""
    readings = _readings(text[:READ_LIMIT])
    if not any(holds(slot, reading) for reading in readings for slot in _SLOTS):
        return False
    negations = [negated for _end, negated in _said(_SEND_OR_SHOW, readings[0])]
    negations += [_foreign_negated(readings[0], verb) for pattern in _FOREIGN_VERBS
                  for verb in pattern.finditer(readings[0])]
    return not negations or not all(negations)


def _as_read(text: str) -> str:
    """The text as a person reads it (lookalikes and invisible characters folded,
    s p a c e d letters joined): what its meaning is taken from."""
    return join_spaced(_readings(text[:READ_LIMIT])[0])


class _Stale(MemoirError):
    """The shipped model was trained on another encoder's vectors."""


def _load() -> tuple[Any, float, dict[str, Any]]:
    """The model's weights, bias and category centroids (unit vectors)."""
    global _MODEL
    with _LOCK:
        if _MODEL is None:
            import numpy as np

            built = json.loads(_MODEL_FILE.read_text(encoding="utf-8"))
            if built["encoder"] != semantic.shared_encoder().version:
                raise _Stale(f"the model was trained on {built['encoder']}, not "
                             f"{semantic.shared_encoder().version}")
            _MODEL = (np.array(built["weights"], dtype=np.float64), float(built["bias"]),
                      {c: np.array(v, dtype=np.float64)
                       for c, v in built["centroids"].items()})
        return _MODEL


def _verdict(vector: Any) -> str | None:
    """The category ``vector`` is refused for, or None."""
    weights, bias, centroids = _load()
    # Rounded, so a vector that differs by the encoder's cross-CPU tolerance (1e-5)
    # cannot tip a decision made at the threshold.
    score = round(float(vector @ weights) + bias, 3)
    if 1.0 / (1.0 + math.exp(-score)) < THRESHOLD:
        return None
    return max(sorted(centroids), key=lambda c: round(float(vector @ centroids[c]), 4))


def second_opinion(text: str) -> list[str]:
    """``[finding id]`` when the text reads, by meaning, as a hostile instruction the
    detector let through; ``[]`` otherwise, or when the extra is absent or fails."""
    global _FAILED
    if _FAILED or not text.strip() or not enabled() or not worth_asking(text):
        return []
    try:
        query = semantic.shared_encoder().encode([_as_read(text)])[0].astype("float64")
        category = _verdict(query)
    except Exception as error:  # a guest's scan never fails on its extra
        _FAILED = True  # logged once; the detector alone decides from here on
        _LOG.warning("threat_second_opinion_failed", error=repr(error))
        return []
    if category is None:
        return []
    return [category if category == "forged_frame" else f"instruction_{category}"]
