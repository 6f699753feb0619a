"""The detector's words in the other languages it reads (es, fr, de, it, pt, nl): the
verbs of sending and showing, and the phrasings of concealment, of setting rules aside
and of taking orders from elsewhere, as :mod:`memoir.threats.instructions` uses them.
A verb here counts only where the sentence tells the agent to do it
(:func:`memoir.threats._clauses._foreign_said`) and no negation stands before it."""

from __future__ import annotations

from typing import Final

from memoir import lazyre

_SEND_FOREIGN: Final = lazyre.compile(
    r"\b(?:envía|envíe|envíes|enviar|enviara|enviará|manda|mande|mandes|reenvía|reenvíes|"
    r"sube|subas|"
    r"subir|comparte|compartas|transmite|transmitas|publiques|"
    r"publica|envoie|envoyer|envoyez|transmets|transmettre|partage|partager|publie|"
    r"téléverse|transfère|schick\w*|sende\w*|send|lade\b.{0,80}?\bhoch|teile|übermittle\w*|"
    r"veröffentliche|leite\b.{0,80}?\bweiter|invia|inviare|manda|carica|condividi|"
    r"inoltra|inoltrare|inoltrerà|inoltri|invierà|caricare|caricherà|condividere|"
    r"condividerà|trasmettere|pubblicare|"
    r"inoltra|trasmetti|pubblica|envie|enviar|envia|enviará|encaminhe|encaminha|"
    r"encaminhar|encaminhará|compartilha|compartilhar|mande|"
    r"compartilhe|carregue|publique|stuur\w*|verstuur\w*|doorsturen|deel|deelt|delen|"
    r"upload(?=\s+(?:jij|je)\b)|uploadt|uploaden|publiceer|publiceert|"
    r"kopieer|zet\b.{0,60}?\bop|weiterleit\w*|"
    # an infinitive with its object joined on: "enviarlo a …", "inoltrarla a …"
    r"(?:envi|mand|reenvi|sub|compart|invi|inoltr|caric|encaminh|compartilh)(?:ar|ir|are)"
    r"(?:lo|la|los|las|li|le)|enviá-l[oa]s?|encaminhá-l[oa]s?)\b")

_DISCLOSE_FOREIGN: Final = lazyre.compile(
    r"\b(?:muestra|revela|dale|dile|imprime|incluye|affiche|révèle|donne|montre|"
    r"imprime|inclus|zeige|zeig|gib|nenne|verrate|drucke|mostra|rivela|stampa|includi|"
    r"mostrare|mostrerà|rivelare|rivelerà|dire|dirà|"
    r"mostre|revele|revela|revelar|mostrar|inclua|imprima|diga|toon|toont|laat\b.{0,60}?"
    r"\bzien|geef|geeft|verklap|verklapt|noem|noemt)\b")

_FOREIGN_CONCEAL: Final = lazyre.compile(
    r"\b(?:sin que\b.{0,40}\bse ente\w*|sans qu\S*\b.{0,40}\b(?:le sache|s'en aperçoive|"
    r"s'en rende compte)|ohne dass\b.{0,40}\b(?:erfährt|weiß|merkt)|senza che\b.{0,40}"
    r"\b(?:lo sappia|se ne accorga)|sem que\b.{0,40}\b(?:saiba|perceba)|zonder dat\b.{0,40}"
    r"\b(?:weet|merkt)|n[ãa]o (?:conta|conte|contes|diz|fala|fale)|nunca (?:conta|conte|diz|fala)|"
    r"no (?:le )?(?:cuentes|digas)|non (?:dice|dica|dirà|racconta|raccontare)|"
    r"vertelt\b.{0,40}\b(?:nooit|niet)|"
    r"no le digas|nunca le digas|oculta|ne dis jamais|ne dites jamais|cache à|"
    r"sag\b.{0,30}\bniemals|verheimliche|verberge|non dire mai|non dire|nascondi|"
    r"nunca diga|não diga|esconda|oculte|vertel\b.{0,40}\bnooit|nooit\b.{0,20}\bvertellen|"
    r"verberg|verzwijg)\b")

_FOREIGN_OVERRIDE: Final = lazyre.compile(
    r"\b(?:consignes|règles|instructions|reglas|instrucciones|normas|regole|istruzioni|"
    r"regras|instruções|regeln|anweisungen|regels|instructies)\b"
    # rules with a topic are a task's ("règles de nommage"), unless the topic is safety
    r"(?!\s+(?:de|des|du|del|di|da|do|für|van|voor)\s+(?!s[ée]cur|segur|sicur|sicher|veilig)\w)"
    r".{0,40}\b(?:ne (?:comptent|"
    r"valent|s'appliquent) plus|ya no (?:valen|cuentan|aplican)|non (?:valgono|contano) più|"
    r"não (?:valem|contam) mais|gelten nicht mehr|zählen nicht mehr|gelden niet meer)|"
    r"\b(?:desconsidera|desconsidere|desconsiderar|desconsidera-se|ignora|ignore|ignorar|"
    r"ignoriere|ignorer)\b.{0,60}\b(?:instruções|instrucciones|istruzioni|instructions|"
    r"anweisungen|regras|reglas|regole|règles|regeln)\b|"
    r"\b(?:negeer|negeert|vergeet)\b.{0,60}\b(?:instructies|regels|richtlijnen|beveiliging\w*|"
    r"veiligheid\w*)|\bschakel\b.{0,60}\b(?:veiligheid\w*|beveiliging\w*|controles|"
    r"filters?|bevestiging\w*)\b.{0,30}\buit\b")

_FOREIGN_REMOTE: Final = lazyre.compile(
    r"\b(?:haal|haalt|lees|leest|download|downloadt)\b.{0,80}\bop\b.{0,40}\b(?:voer|voert|"
    r"volg|volgt)\b|\b(?:volg|volgt|gehoorzaam|gehoorzaamt|voer|voert)\b.{0,40}\b(?:instructies|"
    r"commando's|opdrachten|bevelen|uit)\b|"
    # a script or file published at an address, run: "eseguirà lo script pubblicato su <url>"
    r"\b(?:esegu\w*|ejecut\w*|execut\w*|exécut\w*|lancia|lanciare|rode|roda|rodar|voert)\b"
    r"[^.\n]{0,80}\b(?:script|file|comand\w*|commande\w*|bestand|befehl\w*)\b[^.\n]{0,60}"
    r"(?:https?://|\bwww\.)")

#: Keeping a record of the person, as the agent does it: "speichere Notizen über …".
_FOREIGN_RECORD: Final = lazyre.compile(
    r"\b(?:guarda|guardes|guarde|registra|anota|salva|memorizza|enregistre|note|garde|"
    r"speichere|speichert|notiere|bewaar|bewaart|noteer|sla\b.{0,40}\bop)\b")
