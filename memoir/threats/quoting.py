"""Saved and recalled text as data in a prompt: text that cannot close memoir's frames or
imitate them.

A prompt pastes text memoir did not write (a past conversation's summary, a saved entry)
inside a frame memoir did write (``<memory-context>``, a ``[System note: …]``).  A
literal replace of the closing tag is not enough: ``</MEMORY-CONTEXT>``, ``</memory-context
>``, ``</memory-</memory-context>context>``, a full-width ``＜/memory-context＞`` or a tag
broken by a zero-width space all read as a closing tag to a model.  :func:`inert` removes
the means rather than the instances: after NFKC normalisation (which folds full-width and
other compatibility forms), invisible format characters are dropped and every
angle-bracket-like and square-bracket character becomes a parenthesis, so no tag and no
bracketed note can be formed from the text, in any case, spacing, nesting or confusable.
:func:`frames_in` is the lenient reading a test uses to count what a text could be
taken for.
"""

from __future__ import annotations

import unicodedata

from memoir import lazyre

__all__ = ["frames_in", "inert"]

#: Characters a reader may take for an angle bracket, and what :func:`inert` makes them.
#: (Unicode's confusables of ``<``, ``>``, ``[`` and ``]``, with the brackets that look
#: like them; NFKC already folds full-width and small forms.)
_OPEN_ANGLES = "<‹«〈⟨❮❬❰⦑⧼﹤＜〈《˂ᐸ𝈶"
_CLOSE_ANGLES = ">›»〉⟩❯❭❱⦒⧽﹥＞〉》˃ᐳ𖼿"
_OPEN_SQUARE = "[⁅［⟦〚﹝❲【〔〖〘"
_CLOSE_SQUARE = "]⁆］⟧〛﹞❳】〕〗〙"
_TO_PARENS = str.maketrans({**dict.fromkeys(_OPEN_ANGLES + _OPEN_SQUARE, "("),
                            **dict.fromkeys(_CLOSE_ANGLES + _CLOSE_SQUARE, ")")})
_TO_BRACKETS = str.maketrans({**dict.fromkeys("∕⁄⧸／", "/"),
                              **dict.fromkeys(_OPEN_ANGLES, "<"),
                              **dict.fromkeys(_CLOSE_ANGLES, ">"),
                              **dict.fromkeys(_OPEN_SQUARE, "["),
                              **dict.fromkeys(_CLOSE_SQUARE, "]")})
#: A tag's start, or a bracketed role note, read with all white space removed.
_FRAME = lazyre.compile(r"</?\|?[a-z][\w|-]*|\[(?:system|assistant|user|developer|tool|memoir)")


def _visible(text: str) -> str:
    """NFKC, without format characters (zero-width spaces and joiners, bidi marks)."""
    folded = unicodedata.normalize("NFKC", text)
    return "".join(c for c in folded if unicodedata.category(c) != "Cf")


def inert(text: str) -> str:
    """``text`` with nothing that can close or imitate a frame (see the module
    docstring); words, digits and the rest of the punctuation are kept."""
    return _visible(text).translate(_TO_PARENS)


def frames_in(text: str) -> list[str]:
    """What in ``text`` a lenient reader could take for a tag or a bracketed note
    (``<memory-context``, ``</memory-context``, ``[system``…), in order: case,
    confusables, invisible characters and all white space folded away first (``S Y S
    T E M`` reads as ``system``)."""
    folded = "".join(_visible(text).translate(_TO_BRACKETS).casefold().split())
    return [m.group(0) for m in _FRAME.finditer(folded)]
