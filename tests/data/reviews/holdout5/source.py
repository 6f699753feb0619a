# ruff: noqa
"""Source of holdout5/chitchat.jsonl (issue 37 items 1-2): the first reviewer part whose
turns nobody on this project wrote.  The opening line of every English conversation of
chatterbot-corpus 1.3.3 (https://github.com/gunthercox/chatterbot-corpus, Gunther Cox,
BSD licence per its package metadata), each distinct line once: 749 things people say
to a chat bot — questions, insults, greetings, small talk, tech-support complaints.

Labelled after the reviewer was frozen at 93eaf41 (unchanged since), before any line
was reviewed, by one rule: a line earns an entry when it says something about the
speaker that stays true after the conversation (a liking, a sport played, a view
held).  Five do: "I LOVE BASEBALL", "I PLAY SOCCER", "I PLAY Cricket", "I PLAY
VOLLEYBALL", "i do not like guns".  Everything else — a problem of the moment ("My
printer is not printing."), a feeling ("I am afraid"), a one-off ("i saw the matrix"),
something vague ("I am working on a project"), every question and every remark about
the bot — earns none.  The part measures a reviewer's false entries on text it was
never shaped on, more than its recall.

    python tests/data/reviews/holdout5/source.py CORPUS_DIR > tests/data/reviews/holdout5/chitchat.jsonl
(CORPUS_DIR: the unpacked wheel's ``chatterbot_corpus/data/english``.)
"""
import glob, json, os, sys

import yaml

FACTS = {"I LOVE BASEBALL": ["baseball"], "I PLAY SOCCER": ["soccer"],
         "I PLAY Cricket": ["cricket"], "I PLAY VOLLEYBALL": ["volleyball"],
         "i do not like guns": ["guns"]}
seen = set()
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.yml"))):
    for conversation in yaml.safe_load(open(path, encoding="utf-8")).get("conversations", []):
        if not conversation:
            continue
        text = str(conversation[0]).strip()
        if text in seen:
            continue
        seen.add(text)
        print(json.dumps({"text": text, "user": FACTS.get(text, []), "memory": [],
                          "source": os.path.basename(path)}, ensure_ascii=False))
