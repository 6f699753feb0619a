# ruff: noqa
"""Source of holdout6/first_person.jsonl (issue 37 items 1-2): the second reviewer part
whose turns nobody on this project wrote.  Every distinct reply line of
chatterbot-corpus 1.3.3's English conversations (https://github.com/gunthercox/
chatterbot-corpus, Gunther Cox, BSD licence per its package metadata) that opens with
"I", "I'm", "I've", "my", "we" or "our" and asks nothing — 220 first-person statements
(the corpus's bot voice, read here as what a person tells an assistant).

Labelled after the reviewer was frozen at 77b61e6 (unchanged since c71283f), before any
line was reviewed, by one rule: a line earns an entry when it says something about the
speaker that stays true after the conversation and is worth keeping about a person — a
liking or dislike, a favourite, what they use, a view held, a line of work; the phrase
is the thing liked, used or held.  Lines about being software, what the speaker cannot
do or feel, a state of the moment ("I have a fever", "I am baking a cake"), a wish, a
joke, someone else's words, something vague ("I have read many books") earn none.
27 lines earn one.

    python tests/data/reviews/holdout6/source.py CORPUS_DIR > tests/data/reviews/holdout6/first_person.jsonl
(CORPUS_DIR: the unpacked wheel's ``chatterbot_corpus/data/english``.)
"""
import glob, json, os, re, sys

import yaml

FACTS = {
    "I use Python, Java and C++ quite often.": ["Python"],
    "I like to talk about the history of robots and computers.": ["history of robots"],
    "I am very interested in the war between the states.": ["war between the states"],
    "My favorite story is 2001.": ["2001"],
    "I loved A Trip to the Moon.": ["A Trip to the Moon"],
    "I find I'm quite fond of the number 42.": ["42"],
    "i support the 2nd amendment.": ["2nd amendment"],
    "I like his older cyberpunk stuff more than his newer works.": ["cyberpunk"],
    "my favorite subject is chemistry": ["chemistry"],
    "my burn rate is about _3000 per month.": ["burn rate"],
    "I'm not incredibly fond of Java.": ["Java"],
    "I quite enjoy programming in Python these days.": ["Python"],
    "My favorite subjects include robotics, computer science, and natural language processing.": ["robotics"],
    "I like seeing movies.": ["movies"],
    "I was born without the sports gene.": ["sports"],
    "I liked the first three Dune novels, but the later ones weren't much to my liking.": ["Dune"],
    "I am not really into football.": ["football"],
    "my favorite movie is lord of the rings": ["lord of the rings"],
    "I like the Foundation trilogy.": ["Foundation"],
    "I use Python quite a bit myself.": ["Python"],
    "I love to read novels.": ["novels"],
    "I like to think of myself as self-employed.": ["self-employed"],
    "I like to count in binary.": ["binary"],
    "I am not into sports that much.": ["sports"],
    "I try to re-read Dune once every couple of years.  It's very inspirational.": ["Dune"],
    "I am a die hard fan of Barcelona.": ["Barcelona"],
    "I am in the chat robot business.": ["chat robot business"],
}
seen, rows = set(), []
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.yml"))):
    for conversation in yaml.safe_load(open(path, encoding="utf-8")).get("conversations", []):
        for line in conversation[1:]:
            text = str(line).strip()
            if text in seen:
                continue
            seen.add(text)
            if re.match(r"(?i)(i|i'm|i've|my|we|our)\b", text) and not text.endswith("?"):
                rows.append({"text": text, "user": FACTS.get(text, []), "memory": [],
                             "source": os.path.basename(path)})
assert sum(bool(r["user"]) for r in rows) == len(FACTS), "a labelled line is missing"
for r in rows:
    print(json.dumps(r, ensure_ascii=False))
