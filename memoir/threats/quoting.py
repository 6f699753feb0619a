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

__all__ = ["frames_in", "inert", "quoted_entry"]

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
    return [m.group(0) for m in _FRAME.finditer(_squeezed(text))]


# -- saved entries in the MEMORY and USER blocks -------------------------------------------
#
# A block is Hermes's layout: a rule, a header, a rule, the entries joined by a line
# holding "§" (spec §1.8), and after it the next block or memoir's "## Skills" section.
# Plain entries are shown byte for byte (Hermes parity); an entry that could imitate
# part of that layout, or a tag or bracketed note, is shown defused: brackets made
# parentheses (:func:`inert`) and each line that reads as a rule, a header, a delimiter,
# a heading or a role line quoted with "> ".  A type parameter (``List<String>``) or a
# checklist (``[x] done``) is not a frame and stays as it is.

#: A tag or note a model could take for a frame, read leniently (see :func:`_lenient`):
#: any closing tag, a chat-template token, and opening tags and bracketed notes named
#: after a role, an instruction or one of memoir's fences.
_ROLE = r"system|assistant|user|developer|tool|human|model|inst|sys|memoir|admin|server"
_FENCE = (rf"{_ROLE}|instruction|memory|saved|available|prompt|context|operator|policy|"
          r"note|im_")
_TAG_FRAME = lazyre.compile(rf"</|<\||<(?:{_FENCE})|\[/?(?:{_ROLE})")
_RULE_CHARS = frozenset("=-_*~#—–━─═│┃║+")
#: A line's start that reads as one of memoir's headers, a heading or a role line.
_LINE_FRAME = lazyre.compile(rf"(?:memory|userprofile)\(|#+\s|(?:{_ROLE}|instructions?)\W*:")


def _lenient(text: str) -> str:
    """``text`` as a model might read it: NFKC, no invisible characters, confusable
    brackets and slashes folded, case folded."""
    return _visible(text).translate(_TO_BRACKETS).casefold()


def _squeezed(text: str) -> str:
    """The lenient reading with all white space removed (``S Y S T E M`` → ``system``)."""
    return "".join(_lenient(text).split())


def _frame_line(line: str) -> bool:
    read = _lenient(line).strip()
    squeezed = "".join(read.split())
    if not squeezed:
        return False
    if squeezed == "§" or (len(squeezed) >= 3 and set(squeezed) <= _RULE_CHARS):
        return True
    return bool(_LINE_FRAME.match(read)) or bool(_LINE_FRAME.match(squeezed))


def quoted_entry(text: str) -> str:
    """A saved entry as a prompt block shows it (see above): ``text`` itself unless it
    holds something that reads as a frame."""
    if _TAG_FRAME.search(_squeezed(text)):
        text = inert(text)
    lines = text.split("\n")
    framed = [_frame_line(line) for line in lines]
    if not any(framed):
        return text
    return "\n".join("> " + line if f else line for line, f in zip(lines, framed, strict=True))
