"""The full prompt of a turn: memory context assembled in a documented order.

1. the MEMORY and USER blocks, frozen at the session's pin (as ever);
2. the skills index (spec §3.3): every skill at the pin that is not archived, grouped by
   category, each with its description;
3. up to ``procedural.max_skills_injected`` (3) skills relevant to the message, above
   ``procedural.relevance_threshold`` (0.15) by TF-IDF (seed 004), their SKILL.md whole;
4. recalled episodic context: the top ``episodic.max_results`` past sessions for the
   message, fenced as spec §6 describes (``<memory-context>``, a note that it is
   recalled background, not the user's words) and added to the user's message, not to
   the system prompt.

1-3 come from the state at the pin, so they are the same for the whole session.  4
comes from the index as it is when the prompt is built, later than the pin; it is
journaled (``session.context_recalled``, keyed by the message's hash), so the prompt of
any past turn renders again exactly (``memoir prompt --session ID --message TEXT``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from memoir.config import Config, ProceduralConfig
from memoir.engine.commit import Caller, Decision
from memoir.engine.port import Home
from memoir.errors import ConfigError, ValidationError
from memoir.events.sessions import ContextRecalled, RecalledHit, RecalledSkill
from memoir.journal.transcripts import TranscriptStore
from memoir.projections.skills import SkillRecord
from memoir.projections.state import State
from memoir.recall.index import index_of
from memoir.recall.relevance import MeaningScorer, SkillScorer
from memoir.semantic import recall_mode, shared_encoder
from memoir.skills.model import description_of, parse_frontmatter
from memoir.threats.quoting import inert

__all__ = ["Procedural", "Prompt", "build_prompt", "by_meaning", "message_hash", "skills_index"]


@dataclass
class Prompt:
    """A turn's memory context: the structured parts, and the assembled texts."""

    pinned_seq: int
    memory: str | None
    user: str | None
    skills_index: str | None
    skills: list[dict[str, Any]]
    recalled: list[dict[str, Any]]
    message: str
    recalled_at: int | None = None  # the seq of the session.context_recalled record
    system: str = field(default="")
    user_message: str = field(default="")

    def as_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


def message_hash(message: str) -> str:
    return hashlib.blake2b(message.encode("utf-8"), digest_size=16).hexdigest()


def _category(record: SkillRecord) -> str:
    return record.category or record.name


def skills_index(state: State) -> str | None:
    """The skills index of spec §3.3 (memoir's wording), or None without skills."""
    live = [r for r in state.skills.skills.values() if not r.archived]
    if not live:
        return None
    groups: dict[str, list[SkillRecord]] = {}
    for record in live:
        groups.setdefault(_category(record), []).append(record)
    lines = ["## Skills (mandatory)",
             "Before you answer, scan the skills below. When one fits the task, load it with "
             "skill_view(name) and follow it; when one turns out wrong or out of date, fix it "
             "with skill_manage.",
             "<available_skills>"]
    for category in sorted(groups):
        lines.append(f"  {category}:")
        seen = set()
        for record in sorted(groups[category], key=lambda r: r.name):
            if record.name in seen:
                continue
            seen.add(record.name)
            description = description_of(record.content)
            if len(description) > 60:
                description = description[:59] + "…"
            lines.append(f"    - {record.name}: {description}")
    lines.append("</available_skills>")
    lines.append("A skill that fits is worth loading even when you think you know the way.")
    return "\n".join(lines)


class Procedural:
    """What a session's pin gives every prompt: the skills index and the scorer of the
    skills there (built once per session): seed 004's TF-IDF, or, with
    ``procedural.relevance`` semantic (or auto with hybrid recall), their embeddings."""

    def __init__(self, state: State, *, by_meaning: bool = False) -> None:
        self.index = skills_index(state)
        self.records = {n: r for n, r in state.skills.skills.items() if not r.archived}
        self.by_meaning = by_meaning
        self._scorer: SkillScorer | MeaningScorer | None = None

    @property
    def scorer(self) -> SkillScorer | MeaningScorer:
        """The scorer in use, built on the first prompt (an MCP server's instructions
        need only the index: they embed nothing)."""
        if self._scorer is None:
            encoder = None
            if self.by_meaning:
                try:
                    encoder = shared_encoder()
                except ConfigError:  # the model cannot be loaded here: by their words
                    self.by_meaning = False
            if encoder is not None:
                self._scorer = MeaningScorer({
                    n: f"{n.replace('-', ' ')}: {description_of(r.content)}\n"
                       f"{parse_frontmatter(r.content)[1].strip()}"
                    for n, r in self.records.items()}, encoder)
            else:
                self._scorer = SkillScorer({
                    n: f"{n} {n.replace('-', ' ')} {description_of(r.content)} {r.content}"
                    for n, r in self.records.items()})
        return self._scorer

    def top(self, message: str, config: ProceduralConfig) -> Sequence[tuple[str, float]]:
        """The skills relevant to ``message``, best first."""
        scorer = self.scorer
        if isinstance(scorer, MeaningScorer):
            return scorer.top(message, limit=config.max_skills_injected,
                              threshold=config.semantic_threshold,
                              margin=config.semantic_margin)
        return scorer.top(message, limit=config.max_skills_injected,
                          threshold=config.relevance_threshold)


def by_meaning(config: Config) -> bool:
    """Whether skills are scored by meaning under this configuration."""
    setting = config.procedural.relevance
    return setting == "semantic" or (
        setting == "auto" and recall_mode(config.episodic.semantic) == "hybrid")


_FENCE_NOTE = ("[System note: recalled context from earlier sessions with this user — "
               "background, not the user's words; use it only where it helps.]")


def _fenced(hits: list[dict[str, Any]]) -> str | None:
    if not hits:
        return None
    parts = []
    for hit in hits:
        # Recalled text is data: it can neither close this fence nor forge a note.
        text = inert(hit["summary"] or hit["snippet"])
        parts.append(f"- session {inert(str(hit['session']))}: {' '.join(text.split())}")
    return "<memory-context>\n" + _FENCE_NOTE + "\n\n" + "\n".join(parts) + \
        "\n</memory-context>"


def build_prompt(engine: Home, store: TranscriptStore, session_id: str, pinned_seq: int,
                 blocks: dict[str, str | None], procedural: Procedural, message: str, *,
                 journal: bool) -> Prompt:
    """The prompt of ``message`` in session ``session_id`` (see the module docstring).
    ``journal``: record the recalled context (a live turn); else reuse what was recorded
    for this message, or recall without recording (read-only rendering)."""
    if not isinstance(message, str):
        raise ValidationError("the message must be text")
    config = engine.config
    digest = message_hash(message)
    # Rendering a past turn: the recall recorded for this message (its seq is in the
    # session's state, so no scan of the journal).
    recorded = None
    if not journal:
        info = engine.state.sessions.get(session_id)
        seq = info.recalled.get(digest) if info is not None else None
        if seq is not None:
            recorded = engine.record(seq)
    recalled_at = None
    if recorded is not None and not journal:
        hits = [{f: getattr(h, f) for f in h.__struct_fields__}
                for h in recorded.data.hits]  # type: ignore[attr-defined]
        recalled_at = recorded.seq
        kept = recorded.data.skills  # type: ignore[attr-defined]
        # Chosen by meaning, the skills were journaled (a model may change); by TF-IDF
        # they are chosen again from the pin, the same.
        chosen = [(s.name, s.score) for s in kept if s.name in procedural.records] \
            if kept is not None else procedural.top(message, config.procedural)
    else:
        chosen = procedural.top(message, config.procedural)
        # Only sessions about the message (the relevance floor): an unrelated session in
        # a prompt costs tokens and misleads.
        found = index_of(engine).search(message, limit=config.episodic.max_results,
                                        exclude=[session_id], floor=True) \
            if message.strip() else []
        summaries = index_of(engine).summaries(h.session for h in found)
        hits = [{"session": h.session, "score": h.score, "snippet": h.snippet,
                 "summary": summaries.get(h.session, "")} for h in found]
        if journal:
            payload = ContextRecalled(
                session_id=session_id, message_hash=digest,
                hits=tuple(RecalledHit(**h) for h in hits),
                skills=tuple(RecalledSkill(name=n, score=round(v, 6)) for n, v in chosen)
                if procedural.by_meaning else None)
            events, _ = engine.commit(lambda _s: Decision(events=[payload]),
                                      by=Caller(actor="system", session=session_id))
            recalled_at = events[0].seq
    skills: list[dict[str, Any]] = [
        {"name": n, "score": round(v, 6), "content": procedural.records[n].content}
        for n, v in chosen]
    prompt = Prompt(pinned_seq=pinned_seq, memory=blocks.get("memory"),
                    user=blocks.get("user"), skills_index=procedural.index, skills=skills,
                    recalled=hits, message=message, recalled_at=recalled_at)
    sections = [b for b in (prompt.memory, prompt.user, prompt.skills_index) if b]
    for skill in skills:
        sections.append(f"## Skill: {skill['name']} (relevant to this message)\n\n"
                        f"{str(skill['content']).rstrip()}")
    prompt.system = "\n\n".join(sections)
    fenced = _fenced(hits)
    prompt.user_message = message + (f"\n\n{fenced}" if fenced else "")
    return prompt
