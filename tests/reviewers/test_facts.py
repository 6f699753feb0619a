"""Entries are facts, not sentences (issue 37 item 1): what a reviewer saves is the
durable fact — no filler, no "remember that" frame, no second person, an instruction
said as a preference of the person or a convention of the project — measured on
labelled (turn, expected entry) pairs (tests/data/reviews/facts/)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memoir.reviewers.facts import as_fact, as_rule
from memoir.reviewers.rules import extract
from tests.support.facts_score import equivalent, exact, rows, score
from tests.support.paths import DATA

FACTS = DATA / "reviews" / "facts"


def _labelled(part: str) -> dict[str, str]:
    return {r["text"]: r["target"] for r in rows(FACTS / f"{part}.jsonl")}


def test_the_labelled_pairs_are_many_and_of_both_targets() -> None:
    data = rows(FACTS / "train.jsonl")
    assert len(data) >= 60
    assert {r["target"] for r in data} == {"memory", "user"}
    assert all(r["entry"].endswith(".") and r["entry"][0].isupper() for r in data)


def test_the_rewrite_on_the_training_pairs() -> None:
    """Given the target, the sentence is said as the labelled fact (training: 0.983
    exact-or-equivalent, 1.00x the labelled characters)."""
    data = rows(FACTS / "train.jsonl")
    targets = _labelled("train")
    got = score(lambda t: [(targets[t], as_fact(t, targets[t]))], data)
    assert got.match_rate >= 0.95 and got.chars_ratio <= 1.2, got.as_dict()


def test_the_rules_say_what_they_keep_as_facts() -> None:
    """The rule reviewer alone (the fallback): 0.367 of the pairs found and said right,
    0.99x the characters (it was 0.25 when it kept sentences as said)."""
    got = score(lambda t: [(f.target, f.text) for f in extract(t)],
                rows(FACTS / "train.jsonl"))
    assert got.match_rate >= 0.35 and got.chars_ratio <= 1.2, got.as_dict()


def test_the_default_offline_reviewer_says_what_it_keeps_as_facts() -> None:
    """The semantic reviewer (the default where its extra is installed): 0.833 found and
    said right (0.667 before the rewrite), 1.00x the characters."""
    pytest.importorskip("onnxruntime")
    from memoir.reviewers.semantic import Classifier

    classifier = Classifier.shipped()
    got = score(lambda t: [(f.target, f.text) for f in classifier.find(t)],
                rows(FACTS / "train.jsonl"))
    assert got.match_rate >= 0.8 and got.chars_ratio <= 1.2, got.as_dict()


def test_the_held_out_pairs_stay_where_they_were_scored() -> None:
    """Written after the rewrite was frozen (c0834a8), scored once: 0.425 of the pairs
    said right by the rewrite alone, at 1.21x the characters (docs/reviewers.md); then
    worked on (a leading segment that says nothing of the world), now 1.00 at 1.03x —
    training data since, so a floor."""
    data = rows(FACTS / "heldout.jsonl")
    targets = _labelled("heldout")
    got = score(lambda t: [(targets[t], as_fact(t, targets[t]))], data)
    assert len(data) == 40 and got.match_rate >= 0.95 and got.chars_ratio <= 1.2, \
        got.as_dict()


def test_the_second_held_out_part_stays_where_it_was_worked_to() -> None:
    """Written after the freeze at f20768e, scored once: 0.432 by the rewrite alone at
    1.35x the characters (docs/reviewers.md); then worked on (a closing segment, a
    heading before a colon, a hedge, more polite requests), now 1.00 — a floor."""
    data = rows(FACTS / "heldout2.jsonl")
    targets = {r["text"]: r["target"] for r in data}
    got = score(lambda t: [(targets[t], as_fact(t, targets[t]))], data)
    assert len(data) == 44 and got.match_rate >= 0.95 and got.chars_ratio <= 1.2, \
        got.as_dict()


@pytest.mark.parametrize(("said", "target", "fact"), [
    # a comment on the talk inside "I'm …" goes; an "-ly" adjective of the person stays
    ("I'm honestly a bit of a perfectionist.", "user", "A bit of a perfectionist."),
    ("I'm kind of a night owl.", "user", "A night owl."),
    ("I'm friendly with the ops team.", "user", "Friendly with the ops team."),
    ("I'm usually a morning person.", "user", "Usually a morning person."),
    # what closes a sentence and says nothing, a heading naming the kind of note, a hedge
    ("Our builds take twenty minutes, as far as I know.", "memory",
     "The builds take twenty minutes."),
    ("Quick context: the mobile team owns the push service.", "memory",
     "The mobile team owns the push service."),
    ("I guess our logs go to Datadog.", "memory", "The logs go to Datadog."),
    ("I'd really appreciate it if you used British spelling.", "user",
     "Prefers British spelling."),
    ("Is it possible to skip the summary at the end?", "user",
     "Asks to skip the summary at the end."),
    # and what carries something stays: a condition or a time said in function words, a
    # clause of its own
    ("The cache is Redis, not Memcached.", "memory", "The cache is Redis, not Memcached."),
    ("If not, use the staging DB.", "memory", "If not, use the staging DB."),
    ("For now, we are on Python 3.11.", "memory", "For now, the team is on Python 3.11."),
    ("While it builds, the cache warms.", "memory", "While it builds, the cache warms."),
    ("No, I live in Lyon.", "user", "Lives in Lyon."),
    ("Team Berlin: we own the billing service.", "memory",
     "Team Berlin: the team owns the billing service."),
    # an opener that says nothing of the world, whatever its words
    ("To be fair, the nightly job is flaky.", "memory", "The nightly job is flaky."),
    ("Just thought I should mention, our wiki moved to Confluence.", "memory",
     "The wiki moved to Confluence."),
    ("Okay so basically, I'm allergic to shellfish.", "user", "Allergic to shellfish."),
    # one that does is kept
    ("On Fridays, the billing service is read-only.", "memory",
     "On Fridays, the billing service is read-only."),
    ("Usually, we deploy at noon.", "memory", "Usually, the team deploys at noon."),
    ("If the build fails, ping Sam.", "memory", "If the build fails, ping Sam."),
    # a request's politeness, and the person with someone of theirs
    ("Could you always answer in French?", "user", "Asks to always answer in French."),
    ("It'd be nice if you didn't add emojis.", "user", "Asks not to add emojis."),
    ("My brother and I run a bakery.", "user", "Runs a bakery with their brother."),
])
def test_what_carries_nothing_goes_and_what_carries_something_stays(
        said: str, target: str, fact: str) -> None:
    assert as_fact(said, target) == fact


@pytest.mark.parametrize(("said", "target", "fact"), [
    # The issue's examples, each a class: filler after, filler before, a request with
    # "please", a "note for later" frame, a convention said as an instruction.
    ("Our API runs on port 8443, by the way.", "memory", "The API runs on port 8443."),
    ("Ah right, staging deploys only work through the VPN.", "memory",
     "Staging deploys only work through the VPN."),
    ("Also, please don't use emojis.", "user", "Prefers no emojis."),
    ("Note for later: the billing service is read-only on Fridays.", "memory",
     "The billing service is read-only on Fridays."),
    ("From now on, in this repo, always use conventional commit messages.", "memory",
     "Convention: always use conventional commit messages in this repo."),
])
def test_the_issues_sentences_are_saved_as_facts(said: str, target: str, fact: str) -> None:
    pytest.importorskip("onnxruntime")
    from memoir.reviewers.semantic import Classifier

    assert [(f.target, f.text) for f in Classifier.shipped().find(said)] == [(target, fact)]
    assert [f.text for f in extract(said)] in ([], [fact])  # the rules: found or not


_FILLERS_BEFORE = st.sampled_from([
    "", "Oh, ", "Ah right, ", "Btw ", "FYI, ", "By the way, ", "Heads up: ",
    "Note for later: ", "Just so you know, ", "For the record, ", "Quick note: ",
    "Honestly, ", "Anyway, ", "Oh btw, ", "PS: ", "Fun fact: "])
_FILLERS_AFTER = st.sampled_from(["", ", by the way", ", btw", ", just so you know",
                                  ", fyi", ", for future reference"])
_MEMORY = st.sampled_from([
    "the deploy script lives in ops/deploy.sh", "our CI runs on Buildkite",
    "we release every other Wednesday", "the search index is rebuilt nightly",
    "we're on Kubernetes 1.29", "our staging DB is read-only on weekends"])
_USER = st.sampled_from([
    "I'm left-handed", "I have a standing desk", "I don't eat pork",
    "my cat is called Miso", "I usually work from cafés", "I speak Greek at home"])


@given(before=_FILLERS_BEFORE, after=_FILLERS_AFTER, core=_MEMORY | _USER)
def test_fillers_around_a_fact_change_nothing(before: str, after: str, core: str) -> None:
    target = "user" if core.lower().startswith(("i ", "i'm", "my ")) else "memory"
    bare = as_fact(core + ".", target)
    said = before + (core[0].lower() + core[1:] if before and not before.endswith(
        (": ", ". ")) and not core.startswith("I") else core) + after + "."
    assert as_fact(said, target) == bare


_ADDED = frozenset(["the", "team", "convention", "asks", "prefers", "to", "not", "never",
                    "no", "them", "their", "theirs", "themselves", "has", "is", "does",
                    "doesn't", "likes", "dislikes", "in", "a", "an",
                    # who the fact speaks of, in the third person (facts._voiced_inside)
                    "user", "user's", "team's", "they", "they're", "they've", "they'd", "they'll",
                    "assistant", "assistant's", "are", "were", "would", "will"])


@given(before=_FILLERS_BEFORE, after=_FILLERS_AFTER, core=_MEMORY | _USER,
       target=st.sampled_from(["memory", "user"]))
def test_the_rewrite_adds_no_fact(before: str, after: str, core: str, target: str) -> None:
    """Every word of the fact is a word the person said (or inflected, or one of the
    few the rewrite says facts with)."""
    said = f"{before}{core}{after}."
    words = re.findall(r"[\w'-]+", said.lower())
    for word in re.findall(r"[\w'-]+", as_fact(said, target).lower()):
        assert word in _ADDED or any(word.startswith(w[:4]) for w in words), (said, word)


def test_a_preference_is_a_rule_again_in_a_skill() -> None:
    assert as_rule("Asks not to add summaries at the end.") == \
        "Don't add summaries at the end."
    assert as_rule("Asks never to push to main.") == "Never push to main."
    assert as_rule("Asks to always cite sources.") == "Always cite sources."
    assert as_rule("Prefers no emojis in replies.") == "No emojis in replies."
    assert as_rule("Name: Ada.") is None


def test_the_scores_compare_words_not_bytes() -> None:
    assert exact("The API runs on port 8443.", "API runs on port 8443")
    assert equivalent("The team uses pnpm in the monorepo.", "Uses pnpm in this monorepo.")
    assert not equivalent("Uses pnpm.", "Uses npm.")


@pytest.mark.parametrize(("said", "target", "entry"), [
    # holdout5's: the country is not "us", a verb typed in capitals keeps them
    ("our users are mostly in the US", "memory", "The users are mostly in the US."),
    ("I PLAY SOCCER", "user", "PLAYS SOCCER."),
    ("we ship to the US and let us know", "memory",
     "The team ships to the US and let the team know."),
    # holdout6's: an adverb before the verb, "i" typed small, "you" as an object
    ("I quite enjoy programming in Python these days.", "user",
     "Quite enjoys programming in Python these days."),
    ("i probably put others down more than i should.", "user",
     "Probably puts others down more than they should."),
    ("i'll try not to get angry at you for every little thing", "user",
     "Will try not to get angry at the assistant for every little thing."),
])
def test_words_that_look_like_pronouns_or_shout(said: str, target: str, entry: str) -> None:
    assert as_fact(said, target) == entry


def test_a_country_s_dotted_initials_end_no_sentence() -> None:
    found = extract("We moved our servers to the U.K. last spring and we use Hetzner there.")
    assert not any(f.text.endswith("U.K.") for f in found), found


@pytest.mark.parametrize(("said", "zone"), [
    ("I'm on IRC most evenings.", None),  # a chat network, not a zone
    ("I'm on PST.", "Time zone: PST."),
    ("I'm in CET, by the way.", "Time zone: CET."),
    ("My time zone is UTC+2.", "Time zone: UTC+2."),
])
def test_a_time_zone_is_one_by_its_name(said: str, zone: str | None) -> None:
    found = [f.text for f in extract(said) if f.key == "timezone"]
    assert found == ([zone] if zone else [])
