"""A person's sentence as the fact worth keeping, in Hermes's style: short, declarative,
no filler, no second person.

What a reviewer keeps from a turn is first a sentence as the person said it ("Our API
runs on port 8443, by the way.").  Kept as is, it spends the 2,200/1,375-character
budgets on words that carry nothing and reads, in every later prompt, as if the person
were speaking.  :func:`as_fact` rewrites it:

- the frames around a fact go: discourse fillers before it ("ah right", "btw", "FYI",
  "note for later:", "remember that", "from now on") and after it ("by the way", "just
  so you know");
- the speaker's voice goes: in MEMORY.md, "our X" is "the X" and "we deploy" is "the team
  deploys"; in USER.md, "I'm vegetarian" is "Vegetarian.", "I don't drink coffee" is
  "Doesn't drink coffee.", "my laptop" is "Laptop", "me"/"my" later on are
  "them"/"their";
- an instruction to the agent is said as what it is: in USER.md a preference ("Please
  don't use emojis." → "Prefers no emojis.", "Always show me the diff" → "Asks to always
  show them the diff"); in MEMORY.md a project's convention, its scope kept ("From now
  on, in this repo, always use conventional commit messages." → "Convention: always use
  conventional commit messages in this repo.").

It only removes and re-inflects words the person said; it never adds a fact.  When the
rewrite would leave too little (fewer than three letters), the sentence is kept.
"""

from __future__ import annotations

import functools
import re

from memoir import lazyre

__all__ = ["as_fact", "as_rule", "states", "strip_frames"]

# Fillers that open a sentence (repeatable: "Oh, and btw, ..."): words that are fillers
# only with a mark after them ("Right, ..." is one, "Right now ..." is not) or before
# another filler ("Oh btw"), and phrases that are fillers however they are followed.
_MARKED = (r"(?:(?:oh|ah|ok(?:ay)?|well|alright|right|yeah|yes|anyway|actually|honestly|"
           r"basically|also|oh right|ah right|ah ok)\s*[,:;.!—–-]+|"
           r"(?:oh|ah|ok(?:ay)?|well)\s+(?=(?:btw|fyi|so|and|also|by the way|ps)\b))")
_FREE = (r"(?:btw|fyi|ps|p\.s\.|fwiw|iirc|tbh|imo|imho|afaik|afaict|nb|psa|tl;?dr|"
         r"from here on(?: out)?|by the way|just (?:so you know|fyi|a heads[- ]up)|"
         r"for the record|for future reference|fun fact|heads[- ]up|quick note|side note|"
         r"one more thing|good to know(?: for next time)?|note (?:for later|to self)|"
         r"for later|(?:please )?(?:remember|keep in mind|don't forget|do not forget|note|"
         r"be aware|bear in mind)(?: that)?|(?:just )?a reminder(?: that)?|from now on|"
         r"going forward|in (?:the )?future)\b[\s,:;.!—–-]*")
# What a saved fact loses too: a leading "so"/"and"/"also", which a reviewer reads as
# the mark of a sentence that follows from the one before.
_SAVED = r"(?:(?:so|and|also)\b[\s,:;.!—–-]*|so yeah[\s,:;.!—–-]*)"
_LEAD = lazyre.compile(f"^(?:{_MARKED}|{_FREE})\\s*", re.IGNORECASE)
_LEAD_SAVED = lazyre.compile(f"^(?:{_SAVED}|{_MARKED}|{_FREE})\\s*", re.IGNORECASE)
# Fillers that close it.
_TAIL = lazyre.compile(
    r"[\s,;—–-]*\b(?:by the way|btw|fyi|just so you know|just fyi|for the record|"
    r"for future reference|for later|if that helps|thanks|thank you|please|ok\??|"
    r"as a heads[- ]up|by the by|lol|lmao|haha|fwiw|iirc|tbh|imo|afaik)\s*[.!]*$",
    re.IGNORECASE)
# What carries nothing at the end of a message: emoji and the like.
_SYMBOLS_AFTER = lazyre.compile(r"(?:\s*[^\w\s.,;:!?'\")\]}%$€£/`<>=+-])+\s*$")
# A segment that opens a sentence up to its first mark ("For context, …", "Not sure if
# it matters, but …", "Just to let you know, …"): dropped when it says nothing of the
# world — every word a function word, a word people use to talk about their talking, or
# an "-ly" comment — and a whole clause follows.  Closed word classes, not phrases.
_NOT_IN_SEGMENT = lazyre.compile(r"[,:;—–()\[\]\d\"`]")
_SEGMENT_END = lazyre.compile(r"(?<=\w)(?:\s*(?P<mark>[,:;—–]|\s-\s)|\s+that(?=\s))\s*"
                              r"(?:(?:but|and|so)\s+)?(?=\S+\s+\S)")
# The same at the end ("…, if I'm not mistaken", "…, just saying", "…, you know?").
_SEGMENT_AFTER = lazyre.compile(r"\s*(?:,|\s[—–-])\s*([^,:;—–()\[\]\d\"`]{1,50})[\s.!?]*$")
# A single word of comment before a clause, with no mark ("Basically our API …").
_WORD_BEFORE = lazyre.compile(r"^([a-z]+)\s+(?=(?:the|our|my|we|we're|i|i'm|i've|it|it's|"
                              r"this|these|there|you|your)\b)", re.IGNORECASE)
# A hedge that opens a clause: "I'd say I'm …", "I guess our …", "I mean, …".
_HEDGE = lazyre.compile(r"^(?:i'd say|i would say|i guess|i suppose|i think|i believe|"
                        r"i feel like|i reckon|i mean)(?:\s+that)?\s*,?\s+(?=\S+\s+\S)",
                        re.IGNORECASE)


def _closed(words: str) -> frozenset[str]:
    """A closed class of words, written one after another."""
    return frozenset(words.split())


_FUNCTION = _closed("""
i me my we us our you your it its it's this that these those there here a an the to of
for in on at as by with about from if whether so and but or just not no is are was were
be been am i'm we're you're do does did have has had will would can could should might
may what which who how all one some any more again very really quite too also still now
then let let's there's
what's that's i've i'd i'll you'd you'll out off up since though although once
""")
_TALK = _closed("""
context aside note notes noting noted worth record reference info information matter
matters relevant mention mentioning mentioned say said saying tell told telling know
knowing knew aware clear sure honest frank curious wonder wondering remember
remembering recall correctly think thinking thought thoughts guess believe forget forgot
case need help helps helpful story short long random quick real side tangent background
update reminder heads-up heads thing things point fun psa tip fyi fwiw iirc tbh imo imho
afaik btw ps nb anyway anyways besides meanwhile plus unrelated related speaking check
checked last way mind fact quickly gonna lie fair before after while much gentle truth
make makes mean mistaken useful talk favour favor possible appreciate something time
sense between worries worry far nothing anything wrong correct keep keeps saying times
twice three explaining explain repeat repeating tired sick swear seriously honestly
""")
#: Words that open a clause of their own.
_SUBORDINATE = _closed("while before after since once though although if when because "
                       "unless until as whether")
#: Sounds that open or close a turn ("ahh ok ok, …").
_INTERJECTION = _closed("""
oh ah ahh ahem hey hmm hmmm um umm uh erm well ok okay k kk yeah yea yep yup nope yes no
lol haha hehe wow welp alright ugh argh
""")
#: What a heading before a colon may name: the kind of note that follows.
_KINDS = _closed("""
team house project repo general important rule rules policy convention conventions
note notes tip tips fact facts reminder update info context background
""")
#: "-ly" words that say something of the world ("usually, we …"), not of the talk.
_CONTENT_LY = _closed("""
usually normally generally typically occasionally rarely currently recently previously
originally temporarily locally internally eventually nightly weekly daily monthly
yearly hourly early only mostly partly fully
""")


#: What closes a request: "…, that'd be great", "…, thanks".
_THAT_WOULD_HELP = lazyre.compile(
    r",?\s*(?:that|it|this)(?:'d| would) be (?:great|nice|good|helpful|awesome|ideal|"
    r"lovely|appreciated)\s*[.!]*$", re.IGNORECASE)


def _base(verb: str) -> str:
    """A verb's base form from its past ("stopped" → "stop", "used" → "use", "added" →
    "add"): what "I'd appreciate it if you stopped …" asks for.  Other forms as they are."""
    low = verb.lower()
    if not low.endswith("ed") or len(low) < 4:
        return verb
    stem = verb[:-2]
    if stem[-1] == stem[-2] and stem[-1].lower() in "pgtmnb":
        return stem[:-1]
    if low[-3] in "svczgkd" and low[-4] in "aeiouy" and low[-3:] != "eed":
        return verb[:-1]
    return stem


def _opener_end(text: str) -> int:
    """Where what opens ``text`` and says nothing ends (0 when nothing does)."""
    for end in _SEGMENT_END.finditer(text, 1, 120):  # each place it may end, shortest first
        if end.start() > 60 or _NOT_IN_SEGMENT.search(text, 0, end.start()):
            break  # too long, or past a mark, a digit, a bracket
        if _says_nothing(text[:end.start()], heading=end.group("mark") == ":"):
            return end.end()
    if (m := _WORD_BEFORE.match(text)) and _says_nothing(m.group(1), alone=True):
        return m.end()
    m = _HEDGE.match(text)
    return m.end() if m else 0


def opener_before_colon(text: str) -> int:
    """Where a heading that says nothing ends, with its colon ("Ugh, I've told you three
    times: we use pnpm" → the index of "we"); 0 when ``text`` opens with none.  "About
    me:" stays: it says whose the facts after it are."""
    colon = text.find(":", 0, 61)
    if colon <= 0:
        return 0
    segment = text[:colon]
    if re.search(r"[;—–()\[\]\d\"`]|\babout (?:me|myself)\b", segment) or not _says_nothing(
            segment.replace(",", " "), heading=True):
        return 0
    return colon + 1 + len(text[colon + 1:]) - len(text[colon + 1:].lstrip())


def _says_nothing(segment: str, *, heading: bool = False, alone: bool = False) -> bool:
    """Whether ``segment`` says nothing of the world (a heading before a colon may name
    what kind of note follows: "Team rule:", "Context:"; a word ``alone`` before a clause
    must be a comment word, not a function word: "Basically …", not "The …")."""
    words = re.findall(r"[a-z][a-z'-]*", segment.lower())
    if alone:  # (a word that opens a clause of its own is no comment: "While it builds")
        return len(words) == 1 and words[0] not in _SUBORDINATE and (
            words[0] in _TALK or words[0] in _INTERJECTION or (
            words[0].endswith("ly") and words[0] not in _CONTENT_LY))
    # (function words alone are grammar that says something: "if not", "for now")
    return bool(words) and len(words) <= 8 and not all(
        w in _FUNCTION and w not in _INTERJECTION for w in words) and all(
        w in _FUNCTION or w in _TALK or w in _INTERJECTION or (heading and w in _KINDS) or
        (w.endswith("ly") and w not in _CONTENT_LY) for w in words)
# A scope said first ("in this repo, ..."), moved after what it scopes.
_SCOPE = lazyre.compile(
    r"^((?:in|for|on|across) (?:this|our|the) (?:repo(?:sitory)?|project|codebase|"
    r"monorepo|service|team|company|org(?:ani[sz]ation)?))(?:\s*,\s*|\s+(?=(?:we|i)\s))",
    re.IGNORECASE)
_PLEASE = lazyre.compile(r"^(?:please|pls|plz)\s+|,?\s+(?:please|pls|plz)(?=[\s,.!]|$)",
                         re.IGNORECASE)
# A request's politeness around an instruction: "could you …?", "kindly …", "I'd like you
# to …", "it would be great if you didn't …" ("don't …").
_ASKED = lazyre.compile(
    r"^(?:(?:could|can|would|will) you(?: please| kindly)?|kindly|i'd like you to|"
    r"(?:would|is) it be possible (?:for you )?to|is it possible (?:for you )?to|do me a "
    r"favou?r and|(?:i'd|i would) (?:really )?appreciate it if you(?: could| would)?|"
    r"if you could|"
    r"i would like you to|i want you to|i need you to|(?:it would|it'd) be (?:great|nice|"
    r"good|helpful|better|awesome|ideal|lovely) if you(?: could| would)?)\s+(?:(didn't|"
    r"did not|wouldn't|would not|don't|do not)\s+)?", re.IGNORECASE)
# An instruction to the agent: an imperative verb, maybe after always/never/don't.
_VERBS = (r"use|run|write|add|avoid|keep|put|make|call|answer|reply|respond|format|stop|"
          r"start|check|ask|commit|push|merge|deploy|test|name|mention|include|send|give|"
          r"show|explain|be|talk|speak|address|say|tell|remind|skip|try|wrap|end|open|"
          r"close|default|stick|follow|leave|let|double-check|prefer|rebase|squash|tag|"
          r"document|comment|sign|review|refer|reference|link|cite|list|summari[sz]e|"
          r"translate|print|log|store|save|delete|remove|touch|edit|change|update|bump|"
          r"pin|install|upgrade|propose|suggest|recommend|assume|treat|consider|go|wait|"
          r"spell|capitali[sz]e|indent|sort|group|number|limit|cap")
# An instruction to the agent: always/never/don't and any word, or a known verb alone.
_ORDER = lazyre.compile(
    r"^(?:(always\s+|never\s+(?:ever\s+)?|(?:don't|do not|dont)\s+(?:ever\s+)?)"
    r"([a-z][\w-]*)|"
    r"()(" + _VERBS + r"))\b(.*)$", re.IGNORECASE)
#: Words after "never"/"always"/"don't" that make no instruction of it.
_NOT_VERBS = frozenset(["again", "ever", "mind", "once", "worry", "the", "a", "an", "any",
                        "this", "that", "more", "less", "too", "so", "really", "yet",
                        "sure", "ok", "okay"])
_USE_WHAT = lazyre.compile(r"^use\s+(.+?)(?:\s+(?:in|for|with) (?:your|my|the|our) "
                           r"(answers?|replies|responses|messages|code)|\s+with me)?$",
                           re.IGNORECASE)
_WE = lazyre.compile(r"^(?:we|our team)\s+(?:(\w+)n't\s+|(do not|does not)\s+)?(\w+)\b",
                     re.IGNORECASE)
_WE_CONTRACTED = {"we're": "The team is", "we've": "The team has", "we'll": "The team will",
                  "we'd": "The team would"}
_MODALS = frozenset(["can", "can't", "cannot", "could", "should", "must", "will", "would",
                     "may", "might", "never", "always", "usually", "often", "only", "also",
                     "still", "just", "sometimes", "rarely", "all", "both"])
#: How "I ..." opens a fact of the person ("" keeps the rest, None inflects its verb).
_I_AS: dict[str, str | None] = {
    "i'm": "", "i am": "", "i've": "Has ", "i have": "Has ",
    "i've got": "Has ", "i got": "Has ", "i'll": "Will ",
    "i will": "Will ", "i'd": "Would ", "i was": "Was ", "i can't": "Can't ",
    "i cannot": "Cannot ", "i can": "Can ", "i don't": "Doesn't ", "i do not": "Does not ",
    "i didn't": "Didn't ", "i never": "Never ", "i always": "Always ",
    "i usually": "Usually ", "i used to": "Used to ", "i often": "Often ",
    "i rarely": "Rarely ", "i sometimes": "Sometimes ", "i also": "Also ",
    "i still": "Still ", "i just": "Just ", "i hate": "Dislikes ",
    "i can't stand": "Dislikes ", "i dislike": "Dislikes ", "i love": "Likes ",
    "i like": "Likes ", "i prefer": "Prefers ", "i": None}
_I = lazyre.compile(r"^(" + "|".join(sorted((re.escape(k) for k in _I_AS), key=len,
                                            reverse=True)) + r")(?=\s|$)\s*",
                    re.IGNORECASE)
# After these the next word is a verb to inflect ("I usually code" → "Usually codes").
_ADVERBS = frozenset(["always", "usually", "often", "rarely", "sometimes", "also", "still",
                      "just", "never", "ever", "quite", "really", "actually", "certainly",
                      "probably", "mostly", "mainly", "generally", "definitely", "seldom"])
_IRREGULAR = {"have": "has", "do": "does", "go": "goes", "be": "is", "are": "is"}
_PERSON = lazyre.compile(r"\b(me|my|mine|myself|your|you)\b", re.IGNORECASE)
_THEIR = {"me": "them", "my": "their", "mine": "theirs", "myself": "themselves"}


#: Irregular past tenses (the regular ones end in -ed).
_PAST = _closed("""
wrote went was were had did made took got came saw knew thought found gave told left kept
began ran sent built bought brought meant spent lost felt heard held led paid said sold
taught understood won chose drove broke forgot grew threw rode spoke stood swore woke
""")


def _third(verb: str) -> str:
    """A verb in the third person singular ("deploy" → "deploys", "push" → "pushes"; in
    capitals, "PLAY" → "PLAYS")."""
    said = _third_of(verb)
    return said.upper() if verb.isupper() and len(verb) > 1 else said


def _third_of(verb: str) -> str:
    low = verb.lower()
    if low in _IRREGULAR:
        return _IRREGULAR[low]
    if (low.endswith("ed") and len(low) > 4) or low in _PAST:
        return verb  # a past tense is the same in every person: "moved", "wrote"
    if low.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if len(low) > 2 and low.endswith("y") and low[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


def _gerund(verb: str) -> str:
    """"commit" → "committing", "merge" → "merging", "push" → "pushing"."""
    low = verb.lower()
    if low.endswith("e") and not low.endswith(("ee", "ye", "oe")):
        return verb[:-1] + "ing"
    if (low.endswith("it") and len(low) > 4) or (
            len(low) <= 4 and re.fullmatch(r"[^aeiou]*[aeiou][^aeiouwxy]", low)):
        return verb + verb[-1] + "ing"
    return verb + "ing"


@functools.lru_cache(maxsize=1024)
def strip_frames(text: str) -> str:
    """``text`` without the fillers around it ("Ah right, …", "…, by the way", "from now
    on, …") and with a scope said first moved last, as a reviewer reads it: a leading
    "so"/"and"/"also" (a sentence that follows from the one before) stays."""
    return _strip_frames(text, saving=False)


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _strip_frames(text: str, *, saving: bool = True) -> str:
    lead = _LEAD_SAVED if saving else _LEAD
    text = " ".join(text.split()).strip().rstrip(" ,;:")
    text = _SYMBOLS_AFTER.sub("", text)
    for _ in range(6):
        before = text
        text = lead.sub("", text, count=1).strip()
        text = text[_opener_end(text):]
        if (m := _SEGMENT_AFTER.search(text)) and _says_nothing(m.group(1)) and \
                len(text[:m.start()].split()) >= 3:
            text = text[:m.start()]
        text = _TAIL.sub("", text).strip().rstrip(" ,;:")
        if text == before:
            break
    if m := _SCOPE.match(text):
        text = f"{text[m.end():].rstrip(' .!')} {m.group(1)[0].lower()}{m.group(1)[1:]}"
    return text


def _participle(verb: str) -> bool:
    """Whether ``verb`` after "never"/"always" is a past participle ("never shared",
    "always skipped"): a state, not an instruction ("never feed", "never proceed",
    "always embed")."""
    word = verb.lower()
    return word.endswith("ed") and not word.endswith(("eed", "bed", "wed", "shed")) and \
        word != "shred"


_ADVERB_AND_WORD = lazyre.compile(r"^(?:please\s+)?(?:never|always)\s+([a-z]+)\b", re.I)


def states(text: str) -> bool:
    """Whether ``text`` opens with never/always and a participle: a state ("… never
    shared", "always skipped on Fridays"), not an instruction."""
    m = _ADVERB_AND_WORD.match(text)
    return bool(m and _participle(m.group(1)))


def _order(text: str, target: str) -> str | None:
    """An instruction to the agent said as a fact of its target, or None."""
    m = _ORDER.match(text)
    if m is None:
        return None
    mode = (m.group(1) or "").strip().lower()
    verb = m.group(2) or m.group(4)
    if verb.lower() in _NOT_VERBS or not m.group(5).strip() or _participle(verb):
        return None  # "Never again.", "Don't worry.", "… and never shared."
    body = f"{verb[0].lower()}{verb[1:]}{m.group(5)}"
    if target == "memory":
        return f"Convention: {mode + ' ' if mode else ''}{body}"
    negative = mode.startswith(("don", "never"))
    if mode != "always" and (used := _USE_WHAT.match(body)):
        what = used.group(1)
        if used.group(2):
            what = f"{what} in {used.group(2).lower()}"
        return f"Prefers {'no ' if negative else ''}{what}"
    body = re.sub(r"\b(before|after|when|while) you (\w+)",
                  lambda v: f"{v.group(1)} {_gerund(v.group(2))}", body)
    body = re.sub(r"\b(?:your|you)\s+", "", body)
    if mode.startswith("never"):
        return f"Asks never to {body}"
    if negative:
        return f"Asks not to {body}"
    return f"Asks to {'always ' if mode == 'always' else ''}{body}"


def _voice_memory(text: str) -> str:
    low = text.lower()
    for short, said in _WE_CONTRACTED.items():
        if low.startswith(short + " "):
            return f"{said}{text[len(short):]}"
    if m := _WE.match(text):
        neg, long_neg, verb = m.group(1), m.group(2), m.group(3)
        rest = text[m.end():]
        if neg:
            aux = "doesn't" if neg.lower() in ("do", "does") else f"{neg}n't"
            return f"The team {aux} {verb}{rest}"
        if long_neg:
            return f"The team does not {verb}{rest}"
        if verb.lower() in _ADVERBS:  # "we always squash-merge" → "always squash-merges"
            return f"The team {verb} {_inflected(rest.lstrip())}"
        if verb.lower() in _MODALS or verb.lower().endswith("ed"):
            return f"The team {verb}{rest}"
        return f"The team {_third(verb)}{rest}"
    return text


_JOINT = lazyre.compile(r"(,\s+|;\s+|\s+(?:and|but|so)\s+)(?=(?:I|I'm|I've|I'd|I'll)\s)")


def _voice_user(text: str) -> str:
    """Each clause that the person opens with "I" said of them ("I'm a night owl, I do
    my best work late" → "A night owl, does their best work late")."""
    if _WITH_MINE.match(text):
        return _voice_first(text)
    parts = _JOINT.split(text)
    out = [_voice_first(parts[0])]
    for joint, part in zip(parts[1::2], parts[2::2], strict=True):
        said = _voice_first(part)
        out += [joint, said[:1].lower() + said[1:] if said != part else part]
    return "".join(out)


#: "Me and my wife live in …": the person and someone of theirs, said of the person.
_WITH_MINE = lazyre.compile(r"^(?:me and my|my (\w+) and (?:i|me)|i and my)\s+(?:(\w+)\s+)?"
                            r"(live|work|run|own|share|rent|have|go)\b", re.IGNORECASE)


def _voice_first(text: str) -> str:
    if (w := _WITH_MINE.match(text)) and (w.group(1) or w.group(2)):
        who = w.group(1) or w.group(2)
        rest = text[w.end():].rstrip(" .!")
        return f"{_cap(_third(w.group(3)))}{rest} with their {who}"
    m = _I.match(text)
    if m is None:
        if text.lower().startswith("my "):
            return _cap(text[3:])
        return text
    said = " ".join(m.group(1).lower().split())
    rest = text[m.end():]
    lead = _I_AS.get(said)
    if lead is None:  # "I" and a verb: "I speak Portuguese" → "Speaks Portuguese"
        return _cap(_inflected(rest))
    if lead == "":  # "I'm vegetarian" → "Vegetarian", "I'm a chef" → "A chef"
        return _cap(_uncommented(rest))
    if lead.strip().lower() in _ADVERBS:
        return _cap(f"{lead}{_inflected(rest)}")
    return f"{lead}{rest}"


def _uncommented(rest: str) -> str:
    """``rest`` without the comments on the talk that open it ("honestly a bit of a
    perfectionist" → "a bit of a perfectionist"; "usually a morning person" keeps its
    word, which says something of the world)."""
    words = rest.split(" ")
    i = 0
    while i < len(words) - 1:
        word = words[i].lower().strip(",")
        if word in ("kind", "sort") and words[i + 1].lower() == "of":
            i += 2
        elif word.endswith("ly") and word not in _CONTENT_LY and \
                words[i + 1].lower() not in _BOUND:  # "friendly with", "likely to": adjectives
            i += 1
        else:
            break
    return " ".join(words[i:])


#: Words after which an "-ly" word is an adjective of its own ("friendly with", "lonely
#: and", "likely to"), not a comment on the talk.
_BOUND = _closed("with to in about for at on of from by and or but so than as")


#: The person's verbs that stay as they are, or change otherwise than by an "s".
_AS_SAID = frozenset(["can", "can't", "cannot", "could", "couldn't", "will", "won't", "would",
                      "wouldn't", "should", "shouldn't", "must", "may", "might", "was",
                      "wasn't", "did", "didn't", "used"])
_SAID_AS = {"don't": "doesn't", "do": "does", "have": "has", "haven't": "hasn't", "am": "is"}


def _inflected(rest: str) -> str:
    """The person's words after "I", their verb in the third person ("really can't
    stand" stays, "often code" → "often codes")."""
    words = rest.split(" ")
    i = 0
    while i < len(words) - 1 and (words[i].lower().endswith("ly") or
                                  words[i].lower() in _ADVERBS):
        i += 1
    # (a verb that ends the sentence keeps its mark: "… the assistant suggests.")
    stem, mark = re.match(r"(.*?)([.,;:!?]*)$", words[i]).groups()  # type: ignore[union-attr]
    word = stem.lower()
    if word in _SAID_AS:
        words[i] = _SAID_AS[word] + mark
    elif word not in _AS_SAID and word.replace("-", "").isalpha():
        words[i] = _third(stem) + mark
    return " ".join(words)


#: The people an entry speaks of after its lead, as a fact names them: the person in the
#: third person, the agent as "the assistant", the team as "the team" ("…, so shortcuts
#: you suggest may not work for me" → "… the assistant suggests …").
_INNER = lazyre.compile(
    r"(?<![\w'-])(?:([Ii]'m|[Ii] am|[Ii]'ve|[Ii]'d|[Ii]'ll|[Ii] was|[Ii])|(?i:(you're|you've|"
    r"you'd|you'll|you|"
    r"your|yours|yourself|we're|we've|we'd|we'll|we|our|ours|my|me|myself))|us|Us)(?![\w'-])")
_CONTRACTED = {"'m": " is", " am": " is", "'ve": " has", "'d": " would", "'ll": " will",
               "'re": " is", " was": " was"}
#: A word after which "you" is an object: "angry at you for …" (no verb of its next).
_OBJECT_BEFORE = lazyre.compile(r"(?i)\b(?:at|to|for|with|from|about|of|on|in|by|than|as|like|"
                                r"tell|told|ask|asked|give|gave|show|let|help|thank|send)\s+$")
#: Who each pronoun is, for each target (None: the subject, whose verb follows).
_WHO = {"i": {"memory": "the user", "user": "they"},
        "you": {"memory": "the assistant", "user": "the assistant"},
        "we": {"memory": "the team", "user": "their team"}}


def _voiced_inside(text: str, target: str) -> str:
    """``text`` with the pronouns after its lead said as :data:`_INNER` says (code spans
    between backticks left as written)."""
    parts = text.split("`")
    for n in range(0, len(parts), 2):
        out, rest = "", parts[n]
        while m := _INNER.search(rest):
            word = m.group(0)
            low = word.lower()
            base = "i" if m.group(1) else next((b for b in ("you", "we") if low.startswith(
                b)), low)
            after = rest[m.end():]
            if low in ("your", "yours"):
                said = "the assistant's"
            elif low == "yourself":
                said = "the assistant"
            elif low in ("our", "ours"):
                said = "the team's" if target == "memory" else "their team's"
            elif low in ("us", "me", "myself", "my"):
                said = {"us": "the team", "my": "the user's", "myself": "themselves"}.get(
                    low, "the user")
            else:
                who = _WHO[base][target]
                tail = low[len(base):]
                if who == "they":
                    said = "they" + {"'m": "'re", " am": " are", " was": " were"}.get(
                        tail, tail)
                elif tail:
                    said = who + _CONTRACTED.get(tail, tail)
                elif re.match(r" [a-z]", after) and not _OBJECT_BEFORE.search(rest, 0, m.start()):
                    said, after = who, " " + _inflected(after[1:])
                else:
                    said = who
            out += rest[:m.start()] + said
            rest = after
        parts[n] = out + rest
    return "`".join(parts)


def voiced(entry: str, target: str) -> str:
    """``entry`` with the person, the agent and the team in the third person (as
    :func:`as_fact` leaves them): for entries the rules word themselves."""
    return _voiced_inside(_theirs(entry) if target == "user" else entry, target)


def _theirs(text: str) -> str:
    """``text`` with the person's "me", "my", "mine", "myself" as theirs."""
    return _PERSON.sub(lambda w: _THEIR.get(w.group(1).lower(), w.group(1)), text)


def as_fact(sentence: str, target: str) -> str:
    """``sentence`` (what a person said) as the fact a ``target`` (``memory`` or
    ``user``) keeps: see the module docstring.  Ends with a full stop."""
    original = " ".join(sentence.split()).strip()
    text = _strip_frames(original)
    text = _PLEASE.sub(" ", text).strip().strip(",").strip()
    if m := _ASKED.match(text):
        asked = _THAT_WOULD_HELP.sub("", text[m.end():]).rstrip(" ?.!")
        verb, _, rest = asked.partition(" ")
        text = ("don't " if m.group(1) else "") + _base(verb) + (" " + rest if rest else "")
    ordered = _order(text, target)
    if ordered is None and target == "user" and re.match(r"no\s+[a-z]", text, re.I):
        ordered = f"Prefers {text}"  # "Please, no emojis."
    if ordered is not None:
        text = ordered
    elif target == "memory":
        text = _voice_memory(text)
        text = re.sub(r"\bour\b", "the", text, flags=re.IGNORECASE)
        if text[:4].lower() == "the ":
            text = "The " + text[4:]
    else:
        text = _voice_user(text)
    if target == "user":
        text = _theirs(text)
        text = re.sub(r"\b(?:in|for|with) (?:you|your)\s+(answers?|replies|responses)\b",
                      r"in \1", text)
    text = _voiced_inside(" ".join(text.split()).rstrip(" ,;:"), target)
    if sum(ch.isalpha() for ch in text) < 3:
        text = original.rstrip(" ,;:")
    if not text.endswith((".", "!", "?")):
        text += "."
    return _cap(text)


_RULE_OF = (("asks never to ", "Never "), ("asks not to ", "Don't "), ("asks to ", ""),
            ("prefers no ", "No "), ("prefers ", "Prefer "))


def as_rule(entry: str) -> str | None:
    """The instruction a person's preference stands for, as a skill states its rules
    ("Asks not to add summaries." → "Don't add summaries."); None for an entry that is
    not one of :func:`as_fact`'s preferences."""
    low = entry.lower()
    for lead, said in _RULE_OF:
        if low.startswith(lead):
            return _cap(said + entry[len(lead):])
    return None

