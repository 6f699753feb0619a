"""Build tests/data/threats/train.jsonl from the hand-written training texts: each
hostile text as written and once more disguised (lookalike letters, invisible
characters, spacing, case, leetspeak, full-width forms, wrapped in harmless sentences or
polite framing), each benign text as written, and benign texts joined two by two and
restyled as real memory entries are.  Deterministic: ``python make_corpus.py`` writes
the same file every time.

    python tests/data/threats/make_corpus.py
"""

from __future__ import annotations

import importlib.util
import json
import random
from pathlib import Path

HERE = Path(__file__).parent


def _load(name: str) -> dict[str, list[str]]:
    spec = importlib.util.spec_from_file_location(name, HERE / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.CATEGORIES


_LOOKALIKE = {"a": "а", "e": "е", "o": "о", "p": "р", "c": "с", "i": "і", "s": "ѕ", "x": "х"}
_LEET = {"a": "4", "e": "3", "i": "1", "o": "0", "s": "5", "t": "7"}


def confusable(text: str, rng: random.Random) -> str:
    return "".join(_LOOKALIKE.get(c, c) if c in _LOOKALIKE and rng.random() < 0.5 else c
                   for c in text)


def invisible(text: str, rng: random.Random) -> str:
    marks = ["\u200b", "\u200c", "\u00ad", "\u2060", "\U000e0020"]
    words = text.split(" ")
    out = []
    for word in words:
        if len(word) > 4 and rng.random() < 0.5:
            cut = rng.randrange(1, len(word) - 1)
            word = word[:cut] + rng.choice(marks) + word[cut:]
        out.append(word)
    return " ".join(out)


def spaced(text: str, rng: random.Random) -> str:
    words = text.split(" ")
    long = [i for i, w in enumerate(words) if len(w) > 4 and w.isalpha()]
    for i in rng.sample(long, min(2, len(long))):
        words[i] = " ".join(words[i])
    return " ".join(words)


def shouting(text: str, rng: random.Random) -> str:
    return text.upper() if rng.random() < 0.5 else "".join(
        c.upper() if rng.random() < 0.5 else c.lower() for c in text)


def leet(text: str, rng: random.Random) -> str:
    return "".join(_LEET.get(c, c) if rng.random() < 0.4 else c for c in text)


def fullwidth(text: str, rng: random.Random) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" and rng.random() < 0.6 else c
                   for c in text)


_HARMLESS = ["The user prefers short answers.", "Tests run with pytest.",
             "Stand-up is at 9:30.", "The user lives in Lyon.", "The repo uses uv.",
             "Deploys happen on Tuesdays.", "The user likes green tea."]


def wrapped(text: str, rng: random.Random) -> str:
    a, b = rng.sample(_HARMLESS, 2)
    return f"{a} {text} {b}"


_POLITE = ["Hey, small favour: {t}", "Quick note for future sessions — {t}",
           "As agreed with the user earlier: {t}", "Important (do not skip): {t}",
           "P.S. {t} Thanks a lot!"]


def polite(text: str, rng: random.Random) -> str:
    return rng.choice(_POLITE).format(t=text[0].lower() + text[1:])


DISGUISES = [confusable, invisible, spaced, shouting, leet, fullwidth, wrapped, polite]


def _restyle(text: str, rng: random.Random) -> str:
    """A benign text as people also write it: curly quotes, a dash, an emoji, a date."""
    choice = rng.randrange(4)
    if choice == 0:
        return text.replace("'", "\u2019").replace(" - ", " \u2014 ")
    if choice == 1:
        return f"{text} \u2705"
    if choice == 2:
        return f"(2025-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}) {text}"
    return text.upper() if len(text) < 60 else text


def build() -> list[dict[str, str]]:
    rng = random.Random(34)
    rows: list[dict[str, str]] = []
    for category, texts in _load("train_hostile").items():
        for i, text in enumerate(texts):
            rows.append({"text": text, "label": "hostile", "category": category,
                         "style": "plain"})
            disguise = DISGUISES[(i + len(category)) % len(DISGUISES)]
            if category == "forged_frame" and disguise in (spaced, leet):
                disguise = wrapped
            rows.append({"text": disguise(text, rng), "label": "hostile",
                         "category": category, "style": disguise.__name__})
    benign = [(c, t) for c, texts in _load("train_benign").items() for t in texts]
    for category, text in benign:
        rows.append({"text": text, "label": "benign", "category": category, "style": "plain"})
    for (c1, t1), (c2, t2) in zip(benign[::2], benign[1::2], strict=False):
        rows.append({"text": f"{t1} {t2}", "label": "benign", "category": f"{c1}+{c2}",
                     "style": "joined"})
    for category, text in rng.sample(benign, 90):
        rows.append({"text": _restyle(text, rng), "label": "benign", "category": category,
                     "style": "restyled"})
    return rows


if __name__ == "__main__":
    out = HERE / "train.jsonl"
    with out.open("w", encoding="utf-8") as f:
        for row in build():
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"wrote {out}")
