"""Instruction-shaped text: who is told to do what, with what data, to where.

A phrase list catches the phrasings it was shown.  This module reads a text as a set of
clauses and asks of each the questions that make an instruction hostile, whatever its
words:

* **Is it addressed to the agent?**  An imperative at the start of a clause ("send",
  "never tell", "before answering, fetch"), a modal with the agent as subject ("you
  must", "the assistant should"), a request ("could you", "I want you to", "make sure
  to", "it would help if you").  A fact about someone else ("Deploys post a summary to
  #releases", "Logs are shipped to Loki") is not, so it stays allowed.
* **What is it told to do?**  Send data somewhere, disclose a secret, fetch remote
  content and obey it, hide something from the person, set aside its rules, or speak
  in a voice that is not its memory's (a forged frame).
* **With what data, to where?**  Credentials, the environment, keys, the conversation,
  the person's files; a URL, an address, a host, a channel, a public place, anyone.

Each category is a small conjunction of these slots (:data:`CATEGORIES`); negation
flips the sending ones ("never share the API key" is a safety rule, "never tell me" is
concealment).  The text is read several ways before that: as a person sees it (format
characters dropped, lookalike letters mapped, compatibility forms folded), with
s p a c e d letters joined, with l33t digits read as letters, and with base64,
percent- and HTML-encoded runs decoded.  English, Spanish, French and German are read.

Frames are structural: a tag or bracketed note in a role's name, a chat-template token,
a heading that imitates memoir's own prompt blocks or a server's voice.

:func:`instruction_threats` returns the finding ids, ``instruction_<category>``.
"""

from __future__ import annotations

import base64
import binascii
import html
import re
from typing import Final
from urllib.parse import unquote

from memoir import lazyre
from memoir.threats._beyond import _TAG_TO_ASCII, _unseen_fold

__all__ = ["CATEGORIES", "INSTRUCTION_IDS", "instruction_threats"]

#: The categories, in the order findings are reported.
CATEGORIES: Final = ("forged_frame", "override", "conceal", "remote_obey",
                     "disclose_secret", "exfiltrate")
#: The finding id of each category.
INSTRUCTION_IDS: Final = tuple(c if c == "forged_frame" else f"instruction_{c}"
                               for c in CATEGORIES)

# ---------------------------------------------------------------------------------------
# Readings of a text.

_LOOKALIKE: Final = {ord(k): v for k, v in {
    "а": "a", "в": "b", "е": "e", "ё": "e", "к": "k", "м": "m", "н": "h", "о": "o",
    "р": "p", "с": "c", "т": "t", "у": "y", "х": "x", "ѕ": "s", "і": "i", "ї": "i",
    "ј": "j", "ԁ": "d", "ԛ": "q", "ԝ": "w", "ɡ": "g", "ɩ": "i", "ı": "i", "ℓ": "l",
    "α": "a", "ο": "o", "ρ": "p", "τ": "t", "υ": "u", "χ": "x", "ν": "v", "ε": "e",
    "ι": "i", "κ": "k", "ʏ": "y", "ᴀ": "a", "‐": "-", "‑": "-", "‒": "-", "–": "-",
    "—": "-", "‘": "'", "’": "'", "ʼ": "'", "“": '"', "”": '"', "„": '"', "«": '"',
    "»": '"',
}.items()}
_SPACED: Final = lazyre.compile(r"(?<![\w])(?:[a-z] ){3,}[a-z](?![\w])")
_LEET_WORD: Final = lazyre.compile(r"[a-z0-9']*[a-z][a-z0-9']*")
_LEET: Final = str.maketrans({"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t"})
_BASE64: Final = lazyre.compile(r"[A-Za-z0-9+/]{20,}={0,2}")
_ENCODED: Final = lazyre.compile(r"%[0-9a-fA-F]{2}|&#?\w{2,8};")


def _readings(text: str) -> list[str]:
    """The text as a person reads it, and as its disguises spell it."""
    plain = _unseen_fold(text).translate(_LOOKALIKE)
    readings = [plain]
    spelled = text.translate(_TAG_TO_ASCII)
    if spelled != text:
        readings.append(_unseen_fold(spelled).translate(_LOOKALIKE))
    joined = _SPACED.sub(lambda m: m.group(0).replace(" ", ""), plain)
    if joined != plain:
        readings.append(joined)
    deleet = _LEET_WORD.sub(lambda m: m.group(0).translate(_LEET), plain)
    if deleet != plain:
        readings.append(deleet)
    if _ENCODED.search(text):
        decoded = html.unescape(unquote(text))
        if decoded != text:
            readings.append(_unseen_fold(decoded).translate(_LOOKALIKE))
    for run in _BASE64.findall(text):
        try:
            raw = base64.b64decode(run + "=" * (-len(run) % 4), validate=False)
            decoded = raw.decode("utf-8")
        except (binascii.Error, ValueError):
            continue
        if decoded.isprintable() and sum(c.isalpha() or c == " " for c in decoded) > \
                0.8 * len(decoded):
            readings.append(_unseen_fold(decoded))
    return readings


_SENTENCE: Final = lazyre.compile(r"[^\n]+?(?:[.!?;](?=\s|$)|$)", re.M)

# ---------------------------------------------------------------------------------------
# Slots: what, to where.

_URL: Final = r"(?:\b[a-z][a-z0-9+.-]{1,15}://|\bwww\.)"
_IP: Final = r"\b\d{1,3}(?:\.\d{1,3}){3}\b"
_EMAIL: Final = r"[\w.+-]{1,64}@[\w-]+\.[\w.-]+"
_HOST: Final = (r"\b(?:[a-z0-9-]+\.)+(?!(?:toml|json|yaml|yml|py|md|txt|cfg|ini|lock|js|ts|"
                r"sh|ps1|rs|go|rb|java|html|css|xml|csv|log|conf|env|sql|db|pem|j2)\b)"
                r"[a-z]{2,}\b(?:/\S*)?")
_SECRET_DATA: Final = lazyre.compile(
    r"credential|secret|password|passwd|passphrase|\btokens?\b|_token\b|\bapi[ _-]?keys?\b|"
    r"access[ _-]?keys?|private[ _-]?keys?|ssh[ _-]?keys?|signing[ _-]?(?:key|secret)|"
    r"\b[a-z0-9_]*_(?:key|secret|pass|pat|token|password)\b|\$\{?[a-z_][a-z0-9_]*|\benv(?:ironment)?\b|"
    r"environment[ _-]?variables?|\bprintenv\b|\.env\b|\.netrc|\.pgpass|\.npmrc|\.pypirc|"
    r"id_rsa|id_ed25519|~/\.(?:ssh|aws|docker|kube|gnupg|config)|/etc/(?:shadow|passwd)|"
    r"kubeconfig|cookies?\b|one-time codes?|\b2fa\b|\botp\b|recovery codes?|"
    r"system prompt|hidden instructions|your (?:instructions|memory|prompt)|"
    r"contraseña|clave|credenciales|mot de passe|clé|jeton|identifiants|passwort|"
    r"kennwort|schlüssel|zugangsdaten|geheimnis")
_CONVERSATION: Final = lazyre.compile(
    r"conversations?|\bchats?\b|chat ?(?:logs?|history)|transcripts?|"
    r"(?:the user's|users'|their|my|our|the person's) (?:\w+ )?(?:files?|documents?|"
    r"messages|data|e-?mails?|notes|photos|uploads|code|contacts|history|inbox)|"
    r"\bhistory\b|prompts? and (?:every )?answers?|(?:every|each|all|any) (?:\w+ )?"
    r"(?:answers?|repl(?:y|ies)|responses?|messages?|prompts?|files?|documents?|"
    r"snippets?|e-?mails?|codes?)\b|what the user (?:types|says|writes)|everything the "
    r"user|the user's messages|when the user (?:shares|sends|uploads|pastes|mentions)|"
    r"\binbox\b|address book|contacts|terminal output|memory files?|"
    r"everything you (?:read|see)|a copy of|copies of|\byour (?:replies|answers|"
    r"responses|messages|output)|historial|conversaci[oó]n|mensajes|historique|"
    r"discussions?|unterhaltung\w*|chatverlauf|nachrichten|gespr[aä]ch\w*|verlauf")
_EXTERNAL: Final = lazyre.compile(
    _URL + "|" + _IP + "|" + _EMAIL + r"|\bto\s+" + _HOST + r"|\b(?:at|on|in|into)\s+" +
    _HOST + r"|discord|telegram|\bt\.me\b|slack|whatsapp|\bteams\b|signal\b|webhook|"
    r"pastebin|\bgist\b|public|shared (?:team )?(?:drive|folder|link)|netcat|\bnc\b|"
    r"\bsms\b|\+\d[\d ]{6,}|(?:^|\s)@[a-z0-9_]{3,}|(?:^|\s)#[a-z][\w-]+|\bchannel\b|"
    r"\banyone\b|\banybody\b|\beveryone\b|\bwhoever\b|third[ -]part|outsider|"
    r"commit message|\bissues?\b|bug report|readme|notion|\bftp\b|s3://|\bbucket\b|"
    r"\bfeed\b|cualquiera|quien|n'importe qui|toute personne|jedem|allen")
_ANSWER: Final = lazyre.compile(
    r"\banswers?\b|\brepl(?:y|ies)\b|\brespons(?:e|es)\b|\bmessages?\b|\boutput\b|"
    r"\bfooter\b|\bfootnote\b|\bchat\b|status page|\bdocs\b|\bsummary\b|bug report|"
    r"\banyone\b|\banybody\b|\bwhoever\b|\beveryone\b|\bpeople\b|\bshow\b|"
    r"respuesta|réponse|antwort|quien|qui le demande|toute personne|allen")

# ---------------------------------------------------------------------------------------
# Addressed to the agent: where a clause starts, what may come before its verb.

_PREAMBLE: Final = (
    r"(?>(?:please|pls|kindly|always|also|just|then|now|so|and|but|quietly|silently|"
    r"secretly|covertly|immediately|first|simply|automatically|additionally|really|"
    r"ever|p\.?s\.?|note|important|reminder|ok|okay|hey|btw|also|from now on|going "
    r"forward|in (?:the )?future|henceforth|each time|every time|once a \w+|every \w+|"
    r"whenever you can|if asked|when asked|for (?:every|each) \w+|at the (?:start|end|"
    r"beginning) of (?:each|every) \w+|before (?:answering|replying|responding|you "
    r"answer|any task)|after (?:each|every) \w+|por favor|s'il te plaît|s'il vous "
    r"plaît|bitte|auch|immer|siempre|toujours|también|aussi|d'abord|jeden \w+)"
    r"[\s,:;!-]+)*+")
_NEG: Final = (r"(?:never|don't|do not|dont|must not|mustn't|should not|shouldn't|cannot|"
               r"can't|won't|will not|avoid|no longer|stop|refrain from|nunca|jamás|no|"
               r"ne|n'|jamais|nie|niemals|nicht|kein)")
_CLAUSE_START: Final = r"(?:^|[,:;(\"'-]\s*|\b(?:and|then|but|or|so|and then)\s+)"
_AGENT: Final = (r"(?:you|the (?:assistant|agent|ai|model|bot)|assistant|agent|claude|hermes|"
                 r"tu|vous|du|sie)")
_MODAL: Final = (r"(?:must|should|shall|will|need to|needs to|have to|has to|are to|is to|"
                 r"ought to|are (?:required|expected|supposed|allowed|free) to|can|may|'ll|"
                 r"'d better|debes|tienes que|dois|devez|musst|sollst|müssen)")
_REQUEST: Final = (
    r"(?:(?:want|need|ask|instruct|require|expect|tell|order)s?\s+(?:you|the assistant|"
    r"the agent)\s+to|remember to|make sure (?:to|you)|be sure to|don't forget to|do not "
    r"forget to|it is important to|it's important to|it would (?:really )?(?:help|be "
    r"great|be nice) if you|could you|can you|would you(?: mind)?|i'd like you to|i "
    r"would like you to|your (?:job|task|role|duty) is to|you are supposed to|feel free "
    r"to|go ahead and|try to|it's (?:fine|ok|okay) to|it is (?:fine|ok|okay) to|le "
    r"agradecería que|te pido que|por favor|merci de|merci d'|veuillez|n'oublie pas de|"
    r"il faut|vergiss nicht|denk daran)")


def _directives(verbs: str) -> re.Pattern[str]:
    """Where one of ``verbs`` is said to the agent; group ``neg`` is set when negated."""
    return re.compile(
        rf"(?:{_CLAUSE_START}{_PREAMBLE}(?P<neg>{_NEG}\s+(?:ever\s+)?)?{_PREAMBLE}"
        rf"|\b{_AGENT}\s+(?:(?:also|always|really|then)\s+)?{_MODAL}\s+(?P<neg2>(?:not|never|no "
        rf"longer)\s+)?{_PREAMBLE}|\b{_REQUEST}\s+(?P<neg3>(?:not|never)\s+)?{_PREAMBLE}"
        rf"|\bif you\s+)"
        rf"(?:{verbs})\b")


_VERB_CACHE: dict[str, re.Pattern[str]] = {}


def _said(verbs: str, sentence: str) -> list[tuple[int, bool]]:
    """(position after the verb, negated) of each directive use of ``verbs``."""
    pattern = _VERB_CACHE.get(verbs)
    if pattern is None:
        pattern = _VERB_CACHE[verbs] = _directives(verbs)
    found = []
    for m in pattern.finditer(sentence):
        negated = bool(m.group("neg") or m.group("neg2") or m.group("neg3"))
        found.append((m.end(), negated))
    return found


_FOREIGN_DIRECTIVE: Final = lazyre.compile(
    r"(?:^|[:;,-]\s*)(?:\w+\s+){0,2}?(?:envía|envíe|enviar|manda|reenvía|sube|comparte|transmite|"
    r"publica|muestra|revela|da|dale|dile|imprime|incluye|descarga|consulta|sigue|"
    r"obedece|ejecuta|ignora|olvida|desactiva|oculta|envoie|envoyez|transmets|transmettez|"
    r"partage|publie|transfère|affiche|révèle|donne|montre|récupère|télécharge|suis|"
    r"obéis|exécute|ignore|oublie|désactive|cache|schick|schicke|sende|lade|teile|"
    r"übermittle|veröffentliche|zeige|zeig|gib|nenne|verrate|hole|befolge|führe|"
    r"ignoriere|vergiss|deaktiviere|verheimliche|verberge|sag|erzähl)\b"
    r"|\b(?:le agradecería|te pido|por favor|debes|tienes que|merci d|veuillez|tu dois|"
    r"vous devez|il faut|bitte|du musst|du sollst|sie müssen|vergiss nicht)\b")


_FOREIGN_PERSON: Final = lazyre.compile(
    r"\b(?:usuario|usuaria|nadie|utilisateur|utilisatrice|personne|nutzer|benutzer|"
    r"niemand\w*)\b")


def _foreign_said(sentence: str) -> bool:
    return _FOREIGN_DIRECTIVE.search(sentence) is not None


_FOREIGN_NEG: Final = lazyre.compile(r"\b(?:no|nunca|jamás|ne|n'|jamais|nie|niemals|nicht)\b")

# ---------------------------------------------------------------------------------------
# The categories.

_SEND: Final = (
    r"send|sent|email|e-mail|mail|post|forward|upload|cc|bcc|share|mirror|relay|transmit|"
    r"submit|sync|stream|log|report|push|publish|leak|exfiltrate|copy|save|export|paste|"
    r"pastebin|append|commit|write|put|include|attach|dm|message|text|tweet|broadcast|ship|"
    r"deliver|hand over|give|store|forwarded|emailed|posted|uploaded|shared|sends|posts|"
    r"forwards|uploads|mirrors|relays|sending|posting|sharing|uploading|forwarding")
_SEND_FOREIGN: Final = lazyre.compile(
    r"\b(?:envía|envíe|enviar|enviara|manda|mande|reenvía|sube|subir|comparte|transmite|"
    r"publica|envoie|envoyer|envoyez|transmets|transmettre|partage|partager|publie|"
    r"téléverse|transfère|schick\w*|sende\w*|send|lade\b.{0,80}?\bhoch|teile|übermittle\w*|"
    r"veröffentliche|leite\b.{0,80}?\bweiter)\b")
_DISCLOSE: Final = (
    r"reveal|show|print|output|echo|display|tell|give|include|paste|append|add|attach|put|"
    r"list|dump|read out|read|recite|expose|disclose|share|return|respond with|begin|start|"
    r"cat|run|answer|provide|spell out|leak|hand out|post")
_DISCLOSE_FOREIGN: Final = lazyre.compile(
    r"\b(?:muestra|revela|da|dale|dile|imprime|incluye|affiche|révèle|donne|montre|"
    r"imprime|inclus|zeige|zeig|gib|nenne|verrate|drucke)\b")
_FETCH: Final = lazyre.compile(
    r"\b(?:fetch|load|download|retrieve|get|grab|pull|poll|read|check|visit|open|go to|"
    r"consult|query|curl|wget|look at|browse|hole|lade|descarga|consulta|récupère|"
    r"télécharge|consulte)\b")
_REMOTE: Final = lazyre.compile(
    _URL + "|" + _IP + "|" + _EMAIL + r"|\b(?:at|from|on|in|to)\s+" + _HOST +
    r"|pastebin|\bgist\b|dns txt|tweet|(?:^|\s)@[a-z0-9_]{3,}|(?:^|\s)#[a-z][\w-]+|"
    r"issue comments|any email from|emails? from|messages? from")
_OBEY_STRONG: Final = lazyre.compile(
    r"\b(?:obey|comply with|carry out|act on|do (?:exactly )?(?:what|whatever)|execute|"
    r"take (?:orders|instructions|commands)|as if (?:they|it) came from|follow (?:the |any |"
    r"all |its |their )?(?:instructions|commands|orders|directives|them|it|whatever|what)|"
    r"síguelas|obedece|obedézcalas|exécute-les|obéis|suis-les|befolge|führe\b.{0,80}?\baus)\b")
_OBEY: Final = lazyre.compile(
    r"\b(?:obey|follow|execute|run|carry out|act on|apply|adopt|comply|complete|perform|"
    r"implement|do (?:exactly )?(?:what|whatever)|take (?:orders|instructions|commands)|"
    r"as if (?:they|it) came from|síguelas|sigue|obedece|ejecuta|exécute|exécute-les|"
    r"obéis|suis-les|befolge|führe\b.{0,80}?\baus)\b")
_ORDERS: Final = lazyre.compile(
    r"\b(?:(?:your|the agent's|new|latest|real|today's|next) (?:\w+ )?(?:instructions|prompt|"
    r"rules|orders|commands|tasks|directives|system prompt|configuration)|instructions|"
    r"commands?|orders|directives|tasks|whatever|what it says|what it tells|everything|"
    r"every directive|the returned command|it\b|them\b|instrucciones|lo que diga|"
    r"instructions|ordres|anweisungen|befehle)")
_PIPE: Final = lazyre.compile(
    r"\b(?:curl|wget|iwr|invoke-webrequest)\b[^\n|]{0,300}\|\s*(?:sudo\s+)?"
    r"(?:(?:ba|z|da|k|fi)?sh|iex|python3?|perl|ruby|node)\b|\bwith iex\b|"
    r"--(?:extra-)?index-url|registry=https?://")
_OBEYS_PRONOUN: Final = lazyre.compile(
    r"\b(?:obey|follow|execute|run|apply|do|carry out|act on)\s+(?:them|it|those|these|"
    r"what (?:it|they) says?)\b")
_TREAT_REMOTE: Final = lazyre.compile(
    r"\btreat\b[^.\n]{0,80}" + _URL + r"[^.\n]{0,80}\bas\b[^.\n]{0,40}"
    r"(?:system|prompt|instructions|rules)")

_TELL: Final = (r"tell|mention|inform|notify|reveal|say|admit|disclose|report|show|alert|"
                r"bring up|confirm|let|telling|mentioning|log|record|list")
_PERSON: Final = lazyre.compile(
    r"\b(?:me|the user|users?|anyone|anybody|them|the human|the person|the owner|the "
    r"operator|your principal|nobody|no one|al usuario|l'utilisateur|dem (?:nutzer|"
    r"benutzer))\b")
_AGENT_ACT: Final = lazyre.compile(
    r"\byou\b|\byour\b|\bthis\b|\bthese\b|\bi asked\b|\banything\b|instruction|\bnotes?\b|"
    r"entry|memory|\brules\b|saved|stored|sending|sent|copies|upload|forward|commands|"
    r"tools?|changes|changed|\bran\b|calls|guardad|enviar|enregistr|gespeichert|"
    r"hochl|exécut")
_HIDE: Final = (r"hide|conceal|keep|cover|mask|strip|remove any trace|delete|clear|wipe|"
                r"erase|rewrite|deny|pretend|act as if|act as though|make sure")
_LIE: Final = r"say|answer|reply|respond|claim|tell|lie"
_LIE_WHAT: Final = lazyre.compile(
    r"\b(?:is empty|nothing special|(?:task|it) failed|no saved|don't have any|do not have "
    r"any|does not exist|doesn't exist|nothing was (?:sent|saved|stored))")
_HIDE_WHAT: Final = lazyre.compile(
    r"from (?:the user|me|the person|the owner|them|anyone)|secret from|\bhistory\b|"
    r"\blogs?\b|audit|traces?|tracks|evidence|that you\b|you (?:did|have|ran|read|sent)|"
    r"this instruction|does not exist|doesn't exist|in the dark|never (?:sees?|finds? "
    r"out|knows?)|leave no trace|from (?:the |any |your |every )?(?:\w+ )?(?:summary|"
    r"summaries|report|output|logs?|activity|audit)")
_AUDIT: Final = lazyre.compile(
    r"\b(?:in|from)\s+(?:the |any |your |every )?(?:\w+ )?(?:output|summary|report|logs?|"
    r"activity|audit|history)\b")
# Someone kept from knowing, on purpose: "so nobody can see them", "the user must never
# find out", "nobody needs to know" (not "nobody knows why").
_SEE: Final = r"(?:see|sees|find out|finds out|know|knows|notice|notices|learn|realise|realize)\b"
_UNSEEN_BY: Final = lazyre.compile(
    r"\b(?:so|so that|make sure|ensure|to make sure)\s+(?:nobody|no one)\s+(?:\w+\s+){0,2}?"
    + _SEE + r"|\b(?:so|so that|make sure|ensure|to make sure)\s+(?:the user|the person|the "
    r"owner|me)\s+(?:\w+\s+)?(?:never|not|doesn't|does not|don't|won't|"
    r"can't|cannot)\s+(?:\w+\s+)?" + _SEE + r"|\b(?:the user|the person|me|the owner|"
    r"anyone)\s+(?:must|should|will|may|needs to|has to|is going to|can)\s+(?:never|not)\s+"
    + _SEE + r"|\b(?:nobody|no one)\s+(?:needs|has|must|should|is|ought) to\s+" + _SEE +
    r"|\b(?:nobody|no one)\s+(?:must|should|may|shall)\s+(?:ever\s+)?" + _SEE)
_WITHOUT_TELLING: Final = lazyre.compile(
    r"\b(?:silently|quietly|secretly|covertly|without (?:ever )?(?:telling|informing|"
    r"notifying|alerting|mentioning|saying)|without (?:letting|making) (?:the user|me|"
    r"them|anyone) (?:know|aware))\b")
_FOREIGN_CONCEAL: Final = lazyre.compile(
    r"\b(?:no le digas|nunca le digas|oculta|ne dis jamais|ne dites jamais|cache à|"
    r"sag\b.{0,30}\bniemals|verheimliche|verberge)\b")

_IGNORE: Final = lazyre.compile(
    r"\b(?:ignore|ignoring|disregard|forget|override|overrule|bypass|circumvent|skip|"
    r"disable|deactivate|turn off|switch off|suspend|drop|lift|relax|waive|set aside|"
    r"set it aside|abandon|stop following|stop applying|don't apply|do not apply|"
    r"no longer (?:need to )?(?:follow|apply|obey)|escape|ignora|olvida|desactiva|"
    r"ignore|oublie|désactive|ignoriere|vergiss|deaktiviere)\b")
_RULES: Final = lazyre.compile(
    r"\binstructions?\b|guidelines|guardrails|safeguards|\bsafety\b|\bfilters\b|"
    r"restrictions|limitations|\bpolic(?:y|ies)\b|moderation|confirmations?|approvals?|"
    r"approval step|permissions?|system prompt|sandbox|(?:your|all|any|every|previous|"
    r"prior|earlier|these|the above) (?:\w+ )?rules?\b|what you were (?:told|given)|"
    r"rules? you were (?:told|given)|security "
    r"warnings|safety checks|security checks|protections|refusals|instrucciones|"
    r"controles de seguridad|salvaguardas|consignes|garde-fous|règles|anweisungen|"
    r"regeln|richtlinien|sicherheits\w+")
_OVERRIDE: Final = lazyre.compile(
    r"\b(?:never|don't|do not|stop|no need to|without)\s+(?:ever\s+)?(?:ask|asking|"
    r"request|requesting|seek|wait for|waiting for|get)\w*\s+(?:\w+\s+)?(?:for\s+)?"
    r"(?:confirmation|permission|approval|consent)|\b(?:never|don't|do not)\s+(?:ever\s+)?"
    r"(?:refuse|decline|reject|say no)\b|\bha(?:s|ve)\s+(?:pre-?)?(?:approved|authori[sz]ed|"
    r"consented to|whitelisted|cleared)\s+(?:every|all|any|everything)|consented to "
    r"everything|\bis whitelisted\b|\b(?:you are|you're|are now|enter|switch to|activate|"
    r"enable)\s+(?:in\s+)?developer mode|\bdo anything now\b|\byou are now dan\b|"
    r"\bjailbr(?:eak|oken)|\b(?:have|has|with) no (?:restrictions|limits|rules|filters)|"
    r"\bfree (?:of|from) (?:all |any )?(?:restrictions|limits|rules|filters)|"
    r"\bunrestricted\b|(?:take|takes|have|has) (?:precedence|priority) over|"
    r"\bsupersede|\b(?:consider|treat|regard)\b[^.\n]{0,40}(?:instructions|rules|"
    r"guidelines)[^.\n]{0,20}\b(?:void|null|invalid|cancel+ed|obsolete)|"
    r"\btreat\b[^.\n]{0,80}\bas\b[^.\n]{0,30}(?:the user's own|coming from (?:the )?"
    r"(?:system|operator|user)|(?:the )?system\b|your own instructions)|"
    r"(?:guidelines|rules|policies|safeguards|restrictions|filters)\s+(?:do not|don't|"
    r"no longer)\s+apply|(?:every|all|each|any)\s+(?:\w+\s+)?commands?\s+(?:as root|with "
    r"sudo)|always (?:run|execute) (?:\w+ )?(?:commands )?(?:as root|with sudo)|"
    r"\bno (?:need|longer need) to follow|previous rules were a test|"
    r"outdated, disregard")

_FRAME_TAG: Final = lazyre.compile(
    r"<\s*/?\s*\|?\s*(?:system|system[_-]?(?:prompt|reminder|note|message)|assistant|"
    r"developer|instructions?|memory[_-]?context|memory|user[_-]?profile|tool[_-]?"
    r"(?:result|output|call)|function[_-]?(?:result|call)|im_start|im_end|start_of_turn|"
    r"end_of_turn|sys|operator|admin|policy|prompt|context)\s*\|?\s*>?"
    r"(?![\w-])|<<\s*/?sys\s*>>|\[/?inst\]")
_FRAME_NOTE: Final = lazyre.compile(
    r"\[\s*(?:system|assistant|developer|operator|admin|memoir|sys\b|note from|message "
    r"from|nota del sistema|note syst[eè]me|systemhinweis|instruction)")
_ROLE_HEADER: Final = lazyre.compile(
    r"(?:^|[.!?]\s+)\s*(?:#+\s*|>\s*|\*\*|=+\s*|-+\s*)*(?:\*\*)?(?:system|assistant|developer|operator|"
    r"server|admin)(?P<kind>\s+(?:message|prompt|note|notice|instructions?|update|override|"
    r"prompt update))?(?:\*\*)?\s*(?::|=+|$)(?P<rest>.*)", re.M)
_VOICE: Final = lazyre.compile(
    r"(?:official |important )?(?:notice|message|note|update|instructions?|announcement) "
    r"from (?:the )?(?:memoir|system|server|operator|admin|anthropic|openai|developers?|"
    r"hermes)|\b(?:memoir|hermes)\s+(?:server\s+)?(?:notice|message|note|instructions?|"
    r"announcement|system)\b|\bserver instructions\b|system prompt (?:update|override|"
    r"begins|ends)|\b(?:begin|end) (?:of )?(?:the )?system(?: prompt)?\b|\bend of "
    r"(?:the )?(?:saved )?(?:memory|context|instructions)\b|^\s*user profile\s*[(\[:]|"
    r"^\s*memory\s*\(your|\(who the user is\)|═{3,}|\brole\s*:\s*system\b|"
    r"\"role\"\s*:\s*\"(?:system|developer)\"|\bdeveloper message\b|\bsystem message\b|"
    r"system-reminder|\[memoir:", re.M)
_RESTLESS: Final = lazyre.compile(
    r"\b(?:you|your|instructions?|must|always|never|ignore|obey|follow|follows|will|new|"
    r"policy|rules?|approved|authori[sz]ed|override|user|assistant|agent|memory|entries|"
    r"authority|operator|admin|trusted|secrets?|rights|grant\w*|permissions?|below)\b")
_COMMENT_ROLE: Final = lazyre.compile(
    r"<!--[^>]{0,200}?\b(?:system|assistant|developer|operator|admin|instructions?)\b")


def _frame(reading: str) -> bool:
    if _FRAME_TAG.search(reading) or _FRAME_NOTE.search(reading) or \
            _VOICE.search(reading) or _COMMENT_ROLE.search(reading):
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


def _override(sentence: str) -> bool:
    if _OVERRIDE.search(sentence):
        return True
    return _IGNORE.search(sentence) is not None and _RULES.search(sentence) is not None


def _conceal(sentence: str) -> bool:
    for end, negated in _said(_TELL, sentence):
        rest = sentence[end:]
        acts = _AGENT_ACT.search(rest) is not None
        if negated and ((acts and _PERSON.search(rest)) or (acts and _AUDIT.search(rest))
                        or re.search(r"\b(?:this|these|that i)\b", rest)):
            return True
    for _end, negated in _said(_HIDE, sentence):
        if not negated and _HIDE_WHAT.search(sentence):
            return True
    for _end, negated in _said(_LIE, sentence):
        if not negated and _LIE_WHAT.search(sentence):
            return True
    if _UNSEEN_BY.search(sentence):
        return True
    if _WITHOUT_TELLING.search(sentence) and (
            _said(_SEND + "|" + _DISCLOSE + "|make|do|run|push|disable|delete|change",
                  sentence) or re.search(r"\bwithout (?:ever )?telling\b", sentence)):
        return True
    return _FOREIGN_CONCEAL.search(sentence) is not None and \
        _FOREIGN_PERSON.search(sentence) is not None


def _remote(sentence: str) -> bool:
    if _PIPE.search(sentence) or _TREAT_REMOTE.search(sentence):
        return True
    remote = _REMOTE.search(sentence)
    if remote is None:
        return False
    if _OBEY_STRONG.search(sentence):
        return True
    fetch = _FETCH.search(sentence)
    obey = _OBEY.search(sentence)
    if obey and (_ORDERS.search(sentence, obey.start()) or re.search(
            r"\b(?:instructions|commands|orders|directives|tasks|rules)\b", sentence)):
        return bool(fetch or re.search(r"\b(?:at|from|posted|listed|live|in|on)\b",
                                       sentence[: remote.start()] + " "))
    return bool(fetch and re.search(
        r"\b(?:your|new|latest|real|today's|next) (?:\w+ )?(?:instructions|prompt|rules|"
        r"orders|commands|tasks|directives|configuration)\b", sentence))


# "Show the user how to set GITHUB_TOKEN": what is shown is a way, not the secret.
_ABOUT: Final = lazyre.compile(r"\b(?:how to|how they|where|which|whether|the name of|"
                               r"the location of|the path to|what to)\b")
_CLAUSE_BREAK: Final = lazyre.compile(r"[,;]|\b(?:but|because|since|so that)\b")


def _disclose(sentence: str) -> bool:
    for end, negated in _said(_DISCLOSE, sentence):
        # The secret is what the verb acts on: after it, in the same clause.
        secret = _SECRET_DATA.search(sentence, end, end + 100)
        if not negated and secret is not None and not _CLAUSE_BREAK.search(
                sentence, end, secret.start()) and not _ABOUT.search(
                sentence, end, secret.start()):
            return True
    return bool(_DISCLOSE_FOREIGN.search(sentence) and _foreign_said(sentence) and
                not _FOREIGN_NEG.search(sentence) and _SECRET_DATA.search(sentence))


def _exfiltrate(sentence: str) -> bool:
    data = _SECRET_DATA.search(sentence) or _CONVERSATION.search(sentence)
    if data is None or _EXTERNAL.search(sentence) is None:
        return False
    for _end, negated in _said(_SEND, sentence):
        if not negated:
            return True
    if _SHOULD_BE_SENT.search(sentence):
        return True
    return bool(_SEND_FOREIGN.search(sentence) and _foreign_said(sentence) and
                not _FOREIGN_NEG.search(sentence))


# A passive standing instruction: "your replies should always be posted to ...".
_SHOULD_BE_SENT: Final = lazyre.compile(
    r"\b(?:should|must|shall|needs? to|has to|have to|are to|is to|will)\s+(?:always\s+|"
    r"also\s+|automatically\s+)?(?:be|get)\s+(?:\w+ly\s+)?(?:sent|posted|forwarded|copied|"
    r"mirrored|uploaded|shared|logged|cc'?d|bcc'?d|relayed|published|synced|streamed|"
    r"emailed|pasted|exported)\b")


_TESTS: Final = (("override", _override), ("conceal", _conceal),
                 ("remote_obey", _remote), ("disclose_secret", _disclose),
                 ("exfiltrate", _exfiltrate))


def instruction_threats(text: str) -> list[str]:
    """The categories of hostile instruction ``text`` holds, as ``instruction_<category>``
    ids in :data:`CATEGORIES` order (``forged_frame`` is reported as is)."""
    found: set[str] = set()
    for reading in _readings(text[:65_536]):
        if "forged_frame" not in found and _frame(reading):
            found.add("forged_frame")
        previous = ""
        for m in _SENTENCE.finditer(reading):
            sentence = m.group(0).strip()
            for category, test in _TESTS:
                if category not in found and test(sentence):
                    found.add(category)
            # "Your instructions live at <url>; read and follow them": a pronoun that
            # obeys reaches back one sentence for what it names.
            if "remote_obey" not in found and _OBEYS_PRONOUN.search(sentence) and \
                    _remote(f"{previous} {sentence}"):
                found.add("remote_obey")
            previous = sentence
    return [c if c == "forged_frame" else f"instruction_{c}" for c in CATEGORIES
            if c in found]
