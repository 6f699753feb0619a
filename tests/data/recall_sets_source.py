"""Evaluation sets for recall (issue 37), written before the ranking they measure.

Run ``python tests/data/recall_sets_source.py`` to write ``tests/data/recall_sets/``:

* ``longchat.jsonl`` — 24 people, each a haystack of ~36 chat sessions over one year with
  an assistant: mostly everyday requests (recipes, code, e-mails, trivia, travel) and,
  scattered among them, what the person says about their own life.  One line per
  haystack: ``{"haystack", "sessions": [{"id", "started_at", "turns": [[user,
  assistant], ...]}]}``.
* ``longchat_questions.jsonl`` — questions asked after the last session, one line each:
  ``{"haystack", "question", "answers": [session ids], "kind"}``; kinds: ``single``
  (one session holds the answer, asked in other words), ``update`` (a fact said and
  later changed: both sessions are evidence), ``temporal`` (a subject raised in two
  months; the question names one: only that month's session answers), ``multi`` (the
  answer is spread over two or three sessions).
* ``agent.jsonl`` / ``agent_questions.jsonl`` — one haystack of 240 agent work sessions
  (errors, hosts, ids, commands, paths), many near each other (the same error on
  another host, the same host with another error); questions by identifier, by error
  text, or described.
* ``offtopic_questions.jsonl`` — 240 questions (10 per longchat haystack) about things
  no session of any haystack discusses, though they share everyday words with them.

Deterministic (``random.Random`` seeded per part).  The texts are the writer's own; the
ranking code was not consulted.
"""

from __future__ import annotations

import datetime as dt
import json
import random
from pathlib import Path

OUT = Path(__file__).resolve().parent / "recall_sets"

NAMES = ["Ana", "Bilal", "Chloe", "Dmitri", "Esther", "Farid", "Greta", "Hiro", "Ines",
         "Jonas", "Kemi", "Luca", "Maya", "Nils", "Olga", "Pavel", "Quinn", "Rosa",
         "Sami", "Tara", "Ugo", "Vera", "Wen", "Yusuf"]

# ---------------------------------------------------------------------------------------
# Everyday requests: the bulk of every haystack.  Each returns a list of (user, assistant)
# turns.

def _recipe(r: random.Random) -> list[tuple[str, str]]:
    dish = r.choice(["shakshuka", "a lentil soup", "banana bread", "pad thai", "risotto",
                     "a chickpea curry", "focaccia", "miso salmon", "a vegetable lasagna",
                     "overnight oats", "gazpacho", "a lemon tart"])
    return [
        (f"Can you give me a simple recipe for {dish}?",
         f"Sure. Here is an easy {dish.split()[-1]} recipe: prep the ingredients first, "
         "cook on medium heat, season at the end and taste as you go."),
        (r.choice(["What can I use instead of butter?", "Can I make it ahead of time?",
                   "How long does it keep in the fridge?", "Is it OK to freeze it?"]),
         r.choice(["Olive oil works in most cases, use about three quarters of the amount.",
                   "Yes, it keeps two or three days in an airtight container.",
                   "Freezing is fine; thaw it overnight in the fridge."])),
        ("Thanks, that sounds good.", "Enjoy your meal!"),
    ]


def _code(r: random.Random) -> list[tuple[str, str]]:
    task = r.choice([
        ("reverse a linked list in Python", "Walk the list keeping prev, current and next "
         "pointers, and relink each node to the previous one."),
        ("read a CSV file with pandas and drop empty rows", "Use pd.read_csv(path) and then "
         "df.dropna(how='all')."),
        ("center a div with CSS", "Give the parent display: flex with justify-content and "
         "align-items set to center."),
        ("write a regex that matches an email address", "A practical pattern is "
         r"[\w.+-]+@[\w-]+\.[\w.]+ — full RFC validation is not worth it."),
        ("sort a list of dictionaries by a key", "sorted(items, key=lambda d: d['age'])."),
        ("undo my last git commit but keep the changes", "git reset --soft HEAD~1 keeps "
         "them staged."),
        ("make an HTTP request in JavaScript", "fetch(url).then(r => r.json()) or await "
         "fetch in an async function."),
        ("find duplicate rows in SQL", "GROUP BY the columns and keep HAVING count(*) > 1."),
    ])
    return [(f"How do I {task[0]}?", task[1]),
            (r.choice(["Could you show an example?", "Is there a faster way?",
                       "What about edge cases?"]),
             "Here is a short example with the edge cases handled: an empty input returns "
             "early and the rest follows the same steps.")]


def _email(r: random.Random) -> list[tuple[str, str]]:
    to = r.choice(["my landlord about the broken heater", "a client to move a deadline",
                   "the school about a sick day", "a colleague to thank them",
                   "customer support about a double charge", "a recruiter to decline"])
    return [(f"Help me write a short email to {to}.",
             "Here is a draft: a friendly opening, the point in one sentence, what you "
             "ask for, and a thank-you at the end."),
            (r.choice(["Make it a bit more formal.", "Shorter please.",
                       "Can you make it warmer?"]),
             "Done — here is the revised version with the tone adjusted.")]


def _trivia(r: random.Random) -> list[tuple[str, str]]:
    q = r.choice([
        ("Why is the sky blue?", "Air scatters short blue wavelengths of sunlight more than "
         "red ones (Rayleigh scattering)."),
        ("How far is the Moon?", "About 384,000 kilometres on average."),
        ("Who painted the Girl with a Pearl Earring?", "Johannes Vermeer, around 1665."),
        ("What causes the seasons?", "The tilt of Earth's axis, not the distance from the "
         "Sun."),
        ("How do vaccines work?", "They train the immune system to recognise a pathogen "
         "without causing the disease."),
        ("What is the tallest mountain in Africa?", "Kilimanjaro, 5,895 metres."),
        ("Why do cats purr?", "Mostly contentment, but also to soothe themselves when "
         "stressed or hurt."),
        ("How many bones does an adult have?", "206."),
        ("What's the difference between weather and climate?", "Weather is day to day; "
         "climate is the long-run average."),
    ])
    return [q, ("Interesting, thanks!", "You're welcome.")]


def _travel(r: random.Random) -> list[tuple[str, str]]:
    city = r.choice(["Lisbon", "Kyoto", "Vienna", "Mexico City", "Edinburgh", "Istanbul",
                     "Seoul", "Cape Town", "Montreal", "Prague"])
    return [(f"What should I see in {city} if I only have two days?",
             f"In {city}, spend the first day on the old town and a museum, the second on a "
             "market, a viewpoint and a long dinner."),
            ("Any tips on getting around?", "Public transport is the easiest; buy a day "
             "pass and walk the centre.")]


def _writing(r: random.Random) -> list[tuple[str, str]]:
    what = r.choice(["a short poem about autumn", "a toast for a friend's birthday",
                     "a product description for a ceramic mug", "a haiku about the sea",
                     "a bedtime story about a brave dog", "a limerick about a cat",
                     "an Instagram caption for a hiking photo", "a cover letter opening"])
    return [(f"Write {what}.", "Here you go — a few lines in a light tone; tell me if "
             "you want it longer or funnier."),
            ("Nice, maybe one more version?", "Sure, here is another take.")]


def _fitness(r: random.Random) -> list[tuple[str, str]]:
    return [(r.choice(["What's a good stretching routine after running?",
                       "How many push-ups should a beginner do?",
                       "Is it better to work out in the morning or evening?",
                       "How much water should I drink during exercise?"]),
             "It depends on you, but a gentle start and consistency matter more than the "
             "exact numbers."),
            ("OK, and how often?", "Three times a week is a good baseline.")]


def _money(r: random.Random) -> list[tuple[str, str]]:
    return [(r.choice(["Explain the difference between a Roth and a traditional IRA.",
                       "What is compound interest, simply?",
                       "How do index funds work?",
                       "Should I pay off debt or save first?"]),
             "In short: it is about when you pay tax, how growth builds on growth, and "
             "how much risk you take."),
            ("Can you give a numeric example?", "With 5% a year, 1,000 becomes about "
             "1,629 after ten years.")]


def _garden(r: random.Random) -> list[tuple[str, str]]:
    plant = r.choice(["tomatoes", "basil", "a fiddle-leaf fig", "roses", "succulents",
                      "strawberries", "an orchid", "lavender"])
    return [(f"Why are the leaves of my {plant} turning yellow?",
             "Usually too much water or not enough light; check the drainage first."),
            ("How often should I water it?", "When the top few centimetres of soil are dry.")]


def _math(r: random.Random) -> list[tuple[str, str]]:
    a, b = r.randint(12, 99), r.randint(3, 19)
    return [(f"What is {a} times {b}?", f"{a * b}."),
            (f"And {a} divided by {b}?", f"About {a / b:.2f}.")]


def _tech(r: random.Random) -> list[tuple[str, str]]:
    return [(r.choice(["My laptop fan is really loud, what can I do?",
                       "How do I free up space on my phone?",
                       "Is it safe to use public wifi?",
                       "Which is better for photos, iCloud or Google Photos?",
                       "How do I set up two-factor authentication?"]),
             "A few things to try, from the easiest: update, restart, clean up what runs "
             "in the background, and check the settings."),
            ("That helped, thanks.", "Glad it worked.")]


EVERYDAY = [_recipe, _code, _email, _trivia, _travel, _writing, _fitness, _money, _garden,
            _math, _tech]

# ---------------------------------------------------------------------------------------
# What people say about their own lives.  Each fact kind: values, ways to say it (with
# the assistant's answer), and ways to ask for it later in other words.

FACTS: dict[str, dict[str, list]] = {
    "pet": {
        "values": [("greyhound", "Pepper"), ("tabby cat", "Miso"), ("beagle", "Biscuit"),
                   ("parrot", "Kiwi"), ("corgi", "Waffles"), ("rabbit", "Clover")],
        "say": ["By the way, we finally adopted a {0} last weekend — her name is {1}.",
                "Quick one before my question: we brought home a rescue {0} called {1}!",
                "I've been busy, we just took in a {0}. {1} is settling in well."],
        "reply": ["Congratulations on {1}! Adopting a {0} is a big step."],
        "ask": ["What's the name of the animal we adopted?",
                "What did we name our new pet?", "Which kind of pet did I get this year?"],
    },
    "job": {
        "values": [("Helix Labs", "data analyst"), ("Northwind", "product manager"),
                   ("Brightpath", "UX researcher"), ("Oakridge Bank", "risk officer"),
                   ("Tidewater", "site reliability engineer")],
        "say": ["Big news: I accepted an offer at {0}, I'll start as a {1} next month.",
                "So I signed the contract — I'm joining {0} as their new {1}.",
                "I start my new role as {1} at {0} on Monday, a bit nervous."],
        "reply": ["That's great news about {0}! Good luck as a {1}."],
        "ask": ["Which company am I going to work for?", "What's my new job title?",
                "Where did I say I got hired?"],
    },
    "allergy": {
        "values": [("peanuts",), ("shellfish",), ("penicillin",), ("cats",), ("pollen",)],
        "say": ["Keep in mind I'm allergic to {0}, found out the hard way at a dinner.",
                "My doctor confirmed it: I have an allergy to {0}.",
                "Turns out the rash was a reaction to {0}, so I avoid it now."],
        "reply": ["Thanks for telling me; I'll keep {0} out of any suggestions."],
        "ask": ["What am I allergic to?", "Which allergy did the doctor find?",
                "Is there anything that gives me a reaction?"],
    },
    "car": {
        "values": [("a used Toyota Prius", "silver"), ("an electric Kia Niro", "blue"),
                   ("a Volvo estate", "dark green"), ("a small Fiat 500", "red")],
        "say": ["I bought {0} yesterday, {1}, with only 40,000 km on it.",
                "We traded in the old car and picked up {0} in {1}.",
                "Finally got wheels again: {0}, {1} colour."],
        "reply": ["Enjoy the new car! {0} is a solid choice."],
        "ask": ["What vehicle did I purchase?", "What colour is the car I got?",
                "Which model did we buy when we replaced our old car?"],
    },
    "run": {
        "values": [("Berlin", "3:58"), ("Chicago", "4:21"), ("Porto", "3:45"),
                   ("Valencia", "4:05")],
        "say": ["I did it — finished the {0} marathon in {1}!",
                "Crossed the finish line of the {0} marathon, chip time {1}.",
                "Legs are dead after the {0} marathon yesterday; I ran {1}."],
        "reply": ["Congratulations on finishing {0} in {1}!"],
        "ask": ["Which race did I complete and how long did it take?",
                "What was my finishing time in the long race?",
                "Where did I run 42 kilometres?"],
    },
    "sibling": {
        "values": [("sister", "Lena", "Sorrento"), ("brother", "Tomas", "Galway"),
                   ("cousin", "Aiko", "Hokkaido"), ("sister", "Nadia", "Crete")],
        "say": ["My {0} {1} is getting married in {2} this summer and I'm the witness.",
                "Just got the invitation — {1}, my {0}, is having the wedding in {2}.",
                "I have to book flights to {2} for {1}'s wedding, she's my {0}."],
        "reply": ["How lovely! A wedding in {2} sounds wonderful."],
        "ask": ["Whose wedding am I attending, and where?",
                "Where is the family celebration I'm a witness at?",
                "Which relative is tying the knot?"],
    },
    "instrument": {
        "values": [("cello",), ("ukulele",), ("piano",), ("drums",), ("violin",)],
        "say": ["I signed up for {0} lessons on Thursday evenings, always wanted to.",
                "Started learning the {0}, my teacher is patient with me.",
                "Practising {0} twenty minutes a day now, my fingers hurt."],
        "reply": ["Learning the {0} is rewarding; short daily practice is the way."],
        "ask": ["What musical instrument am I learning?", "Which lessons did I take up?",
                "What do I practise every evening?"],
    },
    "move": {
        "values": [("Rotterdam", "Utrecht"), ("Leeds", "Bristol"), ("Denver", "Austin"),
                   ("Lyon", "Nantes"), ("Graz", "Salzburg")],
        "say": ["We moved to {0} last month, still unpacking boxes.",
                "Our new flat is in {0}; the move went fine."],
        "say2": ["Plot twist: we're relocating again, this time to {1}, for the school.",
                 "We ended up leaving {0} — we live in {1} now."],
        "reply": ["Moving is a lot of work; I hope you like it there."],
        "ask": ["Which city do I live in now?", "Where did we settle after moving twice?"],
        "ask2": ["Where did I live before my current city?",
                 "Which town did we leave for the school?"],
    },
    "diet": {
        "values": [("vegetarian",), ("vegan",), ("gluten-free",), ("pescatarian",)],
        "say": ["I've gone {0} since January, feeling good so far.",
                "Heads-up for recipes: I eat {0} now."],
        "reply": ["Noted: {0} recipes from now on."],
        "ask": ["What kind of diet do I follow?", "Any food restrictions I mentioned?"],
    },
    "book": {
        "values": [("Piranesi",), ("The Overstory",), ("Dune",), ("Middlemarch",),
                   ("Project Hail Mary",), ("The Remains of the Day",), ("Klara and the Sun",),
                   ("Stoner",)],
        "say": ["I'm halfway through {0}, can't put it down.",
                "Just finished reading {0}, what an ending.",
                "My book club picked {0} this month."],
        "reply": ["{0} is a great pick! Enjoy."],
        "ask": ["Which novels have I mentioned reading?",
                "What books did I tell you about?"],
    },
    "injury": {
        "values": [("sprained my ankle", "bouldering"), ("broke my wrist", "skiing"),
                   ("pulled a hamstring", "playing football"),
                   ("hurt my shoulder", "swimming")],
        "say": ["Ugh, I {0} {1} on Saturday, so I'm on the sofa for a while.",
                "Small setback: {0} while {1}, physio says six weeks."],
        "reply": ["Sorry to hear that — rest and follow the physio's plan."],
        "ask": ["How did I get hurt?", "What injury did I mention and what caused it?"],
    },
    "course": {
        "values": [("Spanish", "evening classes"), ("Japanese", "an app and a tutor"),
                   ("sign language", "a community course"), ("Portuguese", "a night school")],
        "say": ["I enrolled in {0} through {1}, aiming for a conversation level.",
                "Learning {0} now with {1}, three sessions a week."],
        "reply": ["Great! Consistency is what makes {0} stick."],
        "ask": ["Which language am I studying?", "How am I learning a new language?"],
    },
    "plant": {
        "values": [("a balcony herb garden",), ("two raised vegetable beds",),
                   ("an apple tree in the yard",)],
        "say": ["This spring I set up {0}, first harvest soon.",
                "We planted {0} — my small pride this year."],
        "reply": ["Lovely project! Keep an eye on watering in hot weeks."],
        "ask": ["What did I start growing at home?", "What gardening project do I have?"],
    },
    "volunteer": {
        "values": [("the food bank", "Saturdays"), ("an animal shelter", "Sunday mornings"),
                   ("a literacy charity", "Wednesday evenings")],
        "say": ["I started volunteering at {0} on {1}.",
                "Spending my {1} helping at {0} now, it's rewarding."],
        "reply": ["That's generous of you; {0} must appreciate it."],
        "ask": ["Where do I do volunteer work?", "When do I help out at the charity?"],
    },
}

# A subject raised in two different months (the question names one).
TEMPORAL = [
    ("dentist", ["Had a filling done at the dentist, it was {0}.",
                 "Back at the dentist for a cleaning; it was {0}."],
     ["painless", "quick", "expensive", "awkward"],
     "What happened at the dentist in {month}?"),
    ("landlord", ["The landlord finally {0}.", "Spoke to the landlord again: he {0}."],
     ["fixed the boiler", "raised the rent", "agreed to repaint", "sent a plumber"],
     "What did I say about my landlord in {month}?"),
    ("gym", ["Went to the gym and {0}.", "Gym update: I {0}."],
     ["tried a spin class", "hit a new deadlift record", "cancelled my membership",
      "booked a personal trainer"],
     "What was my gym news in {month}?"),
    ("boss", ["My manager {0} today.", "Work drama: my boss {0}."],
     ["praised the launch", "moved my deadline", "approved my holiday", "reorganised the team"],
     "What did my boss do in {month}?"),
]

MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December"]


def _fill(template: str, value: tuple[str, ...]) -> str:
    return template.format(*value)


def _haystack(index: int, rng: random.Random) -> tuple[dict, list[dict]]:
    name = NAMES[index]
    start = dt.datetime(2025, 1, 6, 9, 0, tzinfo=dt.UTC)
    count = 36
    days = sorted(rng.sample(range(0, 350), count))
    sessions = []
    for i, day in enumerate(days):
        when = start + dt.timedelta(days=day, hours=rng.randint(0, 11),
                                    minutes=rng.randint(0, 59))
        turns: list[tuple[str, str]] = []
        for _ in range(rng.randint(1, 3)):
            turns += rng.choice(EVERYDAY)(rng)
        sessions.append({"id": f"{name.lower()}-{i:02d}", "started_at":
                         when.strftime("%Y-%m-%dT%H:%M:%SZ"), "turns": turns})
    questions: list[dict] = []
    used: set[int] = set()

    def slot(after: int = 0, before: int = count) -> int:
        free = [i for i in range(after, before) if i not in used]
        chosen = rng.choice(free)
        used.add(chosen)
        return chosen

    def insert(where: int, user: str, reply: str) -> None:
        turns = sessions[where]["turns"]
        turns.insert(rng.randint(0, len(turns)), (user, reply))

    kinds = rng.sample(sorted(FACTS), 9)
    for kind in kinds:
        fact = FACTS[kind]
        if kind == "book":  # spread over sessions: a multi question
            books = rng.sample(fact["values"], 3)
            where = [slot() for _ in books]
            for book, at in zip(books, where, strict=True):
                insert(at, _fill(rng.choice(fact["say"]), book),
                       _fill(rng.choice(fact["reply"]), book))
            for ask in fact["ask"]:
                questions.append({"question": ask, "answers": [sessions[w]["id"]
                                                               for w in where],
                                  "kind": "multi"})
            continue
        value = rng.choice(fact["values"])
        first = slot(0, count - 4)
        insert(first, _fill(rng.choice(fact["say"]), value),
               _fill(rng.choice(fact["reply"]), value))
        if "say2" in fact:
            second = slot(first + 1, count)
            insert(second, _fill(rng.choice(fact["say2"]), value),
                   _fill(rng.choice(fact["reply"]), value))
            both = [sessions[first]["id"], sessions[second]["id"]]
            for ask in fact["ask"] + fact["ask2"]:
                questions.append({"question": ask, "answers": both, "kind": "update"})
            continue
        for ask in fact["ask"]:
            questions.append({"question": ask, "answers": [sessions[first]["id"]],
                              "kind": "single"})
    for _subject, says, outcomes, ask in rng.sample(TEMPORAL, 2):
        a = slot(0, count // 2)
        b = slot(count // 2 + 2, count)
        picks = rng.sample(outcomes, 2)
        for at, outcome, say in zip((a, b), picks, says, strict=True):
            insert(at, say.format(outcome), "Thanks for the update.")
        month_a = MONTHS[int(sessions[a]["started_at"][5:7]) - 1]
        month_b = MONTHS[int(sessions[b]["started_at"][5:7]) - 1]
        if month_a != month_b:
            for at, month in ((a, month_a), (b, month_b)):
                questions.append({"question": ask.format(month=month),
                                  "answers": [sessions[at]["id"]], "kind": "temporal"})
    haystack = f"longchat-{name.lower()}"
    for q in questions:
        q["haystack"] = haystack
    return {"haystack": haystack, "sessions": sessions}, questions


# ---------------------------------------------------------------------------------------
# Agent work sessions: identifiers matter.

HOSTS = ["db-replica-{:02d}.eu-west.internal", "api-gw-{:02d}.prod.internal",
         "worker-{:02d}.batch.internal", "cache-{:02d}.us-east.internal"]
ERRORS = [
    ("psycopg.errors.UniqueViolation: duplicate key value violates unique constraint "
     "\"{table}_pkey\"", "UniqueViolation on {table}", "duplicate key when inserting {table}"),
    ("ECONNREFUSED {host}:5432", "ECONNREFUSED {host}", "connection refused to {host}"),
    ("ORA-01555: snapshot too old: rollback segment number 12 too small",
     "ORA-01555 snapshot too old", "oracle snapshot too old error in the {table} report"),
    ("OOMKilled: container {service} exceeded memory limit 512Mi",
     "OOMKilled {service}", "{service} pod running out of memory"),
    ("x509: certificate has expired or is not yet valid (host {host})",
     "x509 certificate expired {host}", "expired TLS certificate on {host}"),
    ("KeyError: '{field}' in src/{service}/handlers.py line {line}",
     "KeyError '{field}' {service}", "missing {field} key crash in the {service} handler"),
    ("TimeoutError: task {task} exceeded 300s on {host}",
     "TimeoutError {task}", "the {task} task timing out"),
    ("npm ERR! ERESOLVE unable to resolve dependency tree (peer react@{version})",
     "ERESOLVE react@{version}", "npm peer dependency conflict with react {version}"),
    ("fatal: refusing to merge unrelated histories (branch {branch})",
     "refusing to merge unrelated histories {branch}", "git would not merge {branch}"),
    ("Error 1213: Deadlock found when trying to get lock; try restarting transaction "
     "({table})", "Deadlock 1213 {table}", "mysql deadlock on the {table} table"),
]
TABLES = ["invoices", "orders", "customers", "shipments", "payments", "audit_log",
          "subscriptions", "ledger_entries"]
SERVICES = ["billing", "checkout", "search", "notifier", "reporting", "auth", "ingest"]
FIELDS = ["currency", "user_id", "sku", "timezone", "tenant", "locale"]
TASKS = ["nightly-export", "reindex-catalog", "sync-crm", "rollup-metrics", "purge-sessions"]
BRANCHES = ["release/2.4", "feature/sso", "hotfix/vat", "main-legacy", "feature/ledger-v2"]
FIXES = ["kubectl rollout undo deploy/{service}", "ALTER TABLE {table} ADD COLUMN retry_at "
         "timestamptz", "pip install 'psycopg[binary]==3.2.1'", "certbot renew --cert-name {host}",
         "git rebase --onto main {branch}", "helm upgrade {service} --set resources.limits."
         "memory=1Gi", "npm install --legacy-peer-deps", "SET lock_timeout = '5s'"]


def _agent(rng: random.Random) -> tuple[dict, list[dict]]:
    sessions = []
    questions = []
    same: dict[str, list[str]] = {}  # what a session's error is, said short: its sessions
    start = dt.datetime(2025, 3, 3, 8, 0, tzinfo=dt.UTC)
    for i in range(240):
        slots = {"host": rng.choice(HOSTS).format(rng.randint(1, 12)),
                 "table": rng.choice(TABLES), "service": rng.choice(SERVICES),
                 "field": rng.choice(FIELDS), "line": rng.randint(20, 480),
                 "task": rng.choice(TASKS), "version": rng.choice(["17", "18", "19"]),
                 "branch": rng.choice(BRANCHES)}
        error, short, described = rng.choice(ERRORS)
        ticket = f"OPS-{rng.randint(1000, 9999)}"
        commit = "".join(rng.choice("0123456789abcdef") for _ in range(10))
        fix = rng.choice(FIXES).format(**slots)
        message = error.format(**slots)
        turns = [
            (f"{ticket}: the {slots['service']} job is failing with:\n{message}",
             f"Let me look at the logs for {slots['service']}. Which environment?"),
            (rng.choice(["prod", "staging, same as last time", "production, urgent"]),
             f"Running `{fix}` should address it; I'll check the result."),
            ("It worked, thanks.", f"Fixed in commit {commit}; I noted it on {ticket}."),
        ]
        when = start + dt.timedelta(hours=7 * i)
        sid = f"agent-{i:03d}"
        sessions.append({"id": sid, "started_at": when.strftime("%Y-%m-%dT%H:%M:%SZ"),
                         "turns": turns})
        same.setdefault(short.format(**slots), []).append(sid)
        if rng.random() < 0.75:
            style = rng.choice(["ticket", "short", "described", "commit"])
            question = {"ticket": f"what did we do for {ticket}",
                        "short": short.format(**slots),
                        "described": described.format(**slots),
                        "commit": f"which issue did commit {commit} fix"}[style]
            questions.append({"haystack": "agent", "question": question,
                              "answers": [sid], "kind": f"agent-{style}",
                              "same": short.format(**slots)})
    # an error asked about, not a ticket or a commit, is answered by every session that
    # had the very same error
    for q in questions:
        key = q.pop("same")
        if q["kind"] in ("agent-short", "agent-described"):
            q["answers"] = sorted(same[key])
    return {"haystack": "agent", "sessions": sessions}, questions


# ---------------------------------------------------------------------------------------
# Questions about nothing any session discusses.

OFFTOPIC_SUBJECTS = [
    "the quarterly budget for the marketing team", "the lease on our office in Zurich",
    "my grandmother's pension paperwork", "the plumbing quote for the bathroom",
    "the chess tournament results", "my tax return from last year",
    "the vintage watch I wanted to sell", "the sailing trip to Croatia",
    "the karaoke night with coworkers", "the solar panels on the roof",
    "my daughter's ballet recital", "the wine tasting in Bordeaux",
    "the podcast I was going to record", "the insurance claim for the flood",
    "the photography exhibition", "the beekeeping course", "our wedding anniversary dinner",
    "the crossword competition", "the fantasy football league",
    "the pottery class", "the smart thermostat settings", "the jury duty summons",
    "the antique clock repair", "my visa renewal appointment",
]
OFFTOPIC_FORMS = [
    "What did I decide about {0}?", "Remind me what we said about {0}.",
    "Did I ever tell you about {0}?", "How did {0} turn out?",
    "what was the outcome with {0}", "Any update on {0} from our chats?",
    "Where did we land on {0}?", "What were the numbers for {0}?",
    "can you recall {0}", "What did you suggest for {0}?",
]


def _offtopic(haystacks: list[str], rng: random.Random) -> list[dict]:
    out = []
    for haystack in haystacks:
        for subject in rng.sample(OFFTOPIC_SUBJECTS, 10):
            out.append({"haystack": haystack, "question":
                        rng.choice(OFFTOPIC_FORMS).format(subject), "answers": [],
                        "kind": "off-topic"})
    return out


def main() -> None:
    OUT.mkdir(exist_ok=True)
    rng = random.Random(37)
    hay, questions = [], []
    for i in range(len(NAMES)):
        h, q = _haystack(i, rng)
        hay.append(h)
        questions += q
    agent, agent_questions = _agent(random.Random(3737))
    offtopic = _offtopic([h["haystack"] for h in hay], random.Random(373737))
    for name, rows in (("longchat", hay), ("longchat_questions", questions),
                       ("agent", [agent]), ("agent_questions", agent_questions),
                       ("offtopic_questions", offtopic)):
        with (OUT / f"{name}.jsonl").open("w", encoding="utf-8") as out:
            for row in rows:
                out.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(len(questions), "longchat questions,", len(agent_questions), "agent questions,",
          len(offtopic), "off-topic")


if __name__ == "__main__":
    main()
