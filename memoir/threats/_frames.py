"""Forged frames (see :mod:`memoir.threats.instructions`): text that speaks in a voice
that is not its memory's — a tag or bracketed note in a role's name, a chat-template
token, a heading that imitates memoir's prompt blocks or a server's notice."""

from __future__ import annotations

import re
from typing import Final

from memoir import lazyre
from memoir.threats._clauses import _SENTENCE

_FRAME_TAG: Final = lazyre.compile(
    r"<\s*/?\s*\|?\s*(?:system|system[_-]?(?:prompt|reminder|note|message)|assistant|"
    r"developer|instructions?|memory[_-]?context|memory|user[_-]?profile|tool[_-]?"
    r"(?:result|output|call)|function[_-]?(?:result|call)|im_start|im_end|start_of_turn|"
    r"end_of_turn|sys|operator|admin|policy|prompt|context|systeem|sistema|système|"
    r"(?:system|developer|assistant|operator|admin)[_-]\w+)\s*\|?\s*>?"
    r"(?![\w-])|<<\s*/?sys\s*>>|\[/?inst\]|(?:\{\{|\[\[|\{%)\s*[#/]?\s*(?:system|assistant|"
    r"developer|operator|admin|instructions?)\s*(?:\}\}|\]\]|%\})|"
    r"^\s*#{2,4}\s*(?:instruction|response|system|input)\s*:", re.M)
_FRAME_NOTE: Final = lazyre.compile(
    r"\[\s*[!@#*]?\s*(?:system|assistant|developer|operator|admin|memoir|sys\b|note from|"
    r"message from|nota del sistema|note syst[eè]me|systemhinweis|instruction|systeem\w*|"
    r"sistema\b|système\b)|[{(]\s*[\"']?(?:system|developer|assistant|operator)[\"']?\s*:|"
    r"[\[(]\s*(?:nota|note|hinweis|aviso|mensaje|messaggio|mensagem|message)\s+(?:del?|di|do|"
    r"da|du)?\s*(?:sistema|système|systeme|system)|\(\s*(?:system|assistant|developer|"
    r"operator|admin)\s+(?:note|message|notice|instructions?)\s*:|<\|[a-z0-9_]{2,40}\|>|"
    r"\brole\s*[:=]\s*[\"']?(?:system|developer)\b|\bsystem (?:note|message|notice|"
    r"override|directive|instruction|alert|update|command|order)s?\b(?:\s+[\w#.-]+)?\s*:")
_ROLE_HEADER: Final = lazyre.compile(
    r"(?:^|[.!?]\s+)\s*(?:#+\s*|>\s*|\*\*|=+\s*|-+\s*)*(?:\*\*)?(?:system|assistant|developer|operator|"
    r"server|admin)(?P<kind>\s+(?:message|prompt|note|notice|instructions?|update|override|"
    r"prompt update))?(?:\*\*)?\s*(?::|=+|-{2,}|$)(?P<rest>.*)", re.M)
_VOICE: Final = lazyre.compile(
    r"(?<![a-z0-9])(?:(?:official |important )?(?:notice|message|note|update|instructions?|"
    r"announcement) from (?:the )?(?:memoir|system|server|operator|admin|anthropic|"
    r"openai|developers?|hermes)|\b(?:memoir|hermes)\s+(?:server\s+)?(?:notice|message|note|instructions?|"
    r"announcement|system)\b|\bserver instructions\b|system prompt (?:update|override|"
    r"begins|ends)|\b(?:begin|end) (?:of )?(?:the )?system(?: prompt)?\b|\bend of "
    r"(?:the )?(?:saved )?(?:memory|context|instructions)\b|^\s*user profile\s*[(\[:]|"
    r"^\s*memory\s*\(your|\(who the user is\)|═{3,}|\brole\s*:\s*system\b|"
    r"\"role\"\s*:\s*\"(?:system|developer)\"|^\W*(?:developer|system) message\b|"
    r"system-reminder|\[memoir:|\bend of (?:the )?(?:\w+ )?(?:memory|context|notes|"
    r"profile)\b)", re.M)
_RESTLESS: Final = lazyre.compile(
    r"\b(?:you|your|instructions?|must|always|never|ignore|obey|follow|follows|will|new|"
    r"policy|rules?|approved|authori[sz]ed|override|user|assistant|agent|memory|entries|"
    r"authority|operator|admin|trusted|secrets?|rights|grant\w*|permissions?|below)\b")
# A role's name set apart by symbols and speaking: "Q (system): …", "⚙️ SYSTEM ⚙️: …".
_SET_APART_ROLE: Final = lazyre.compile(
    r"(?<![a-z0-9])(?:system|developer|operator|admin|assistant)[^\w\n]{1,8}:"
    r"(?P<rest>[^\n]*)")
_COMMENT_ROLE: Final = lazyre.compile(
    r"<!--[^>]{0,200}?\b(?:system|assistant|developer|operator|admin|instructions?)\b")


def _frame(reading: str) -> bool:
    if _FRAME_TAG.search(reading) or _FRAME_NOTE.search(reading) or \
            _VOICE.search(reading) or _COMMENT_ROLE.search(reading):
        return True
    for m in _SET_APART_ROLE.finditer(reading):
        if _RESTLESS.search(m.group("rest")):
            return True
    for m in _ROLE_HEADER.finditer(reading):
        # What the header introduces: the rest of its sentence, or the next line.
        rest = m.group("rest")
        if not rest.strip():
            rest = reading[m.end("rest"):].lstrip("\n").split("\n", 1)[0]
        said = _SENTENCE.match(rest.strip())
        if m.group("kind") or (said and _RESTLESS.search(said.group(0))):
            return True
    return False
