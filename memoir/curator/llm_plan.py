"""A consolidation plan asked of a model (``memoir curator run --llm``).

The model sees the skills the curator may change — name, description, category, use
counts, last activity — and answers with a plan in the same YAML as a plan file
(``consolidations``, ``prunings``, ``umbrellas``).  The answer goes through
:func:`~memoir.curator.plans.parse_plan` and the pass's validation exactly as a plan
file does: an item the rules refuse is a refusal in the report, never a write.  The
prompt is memoir's own, after the intent of Hermes's curator (spec §4).
"""

from __future__ import annotations

import json

from memoir.curator.lifecycle import candidates
from memoir.curator.plans import Plan, Refusal, parse_plan
from memoir.errors import ValidationError
from memoir.llm import LLMClient, LLMError
from memoir.projections.state import State
from memoir.skills.model import description_of

__all__ = ["SOURCE", "llm_plan"]

SOURCE = "llm"

_PROMPT = """\
You tidy an AI agent's library of skills (procedural notes, one folder per skill). \
Propose a consolidation plan: absorb narrow skills that overlap into a broader umbrella \
skill (an existing one, or a new one you name under "umbrellas"), and prune skills that \
are obsolete or never used. Keep skills that are distinct and useful. Never touch a \
skill that is not listed. Answer with YAML only, in this shape:

consolidations:
  - {from: <skill absorbed>, into: <umbrella skill>, reason: <why>}
prunings:
  - {name: <skill>, reason: <why>}
umbrellas:
  - {name: <new umbrella skill>, description: <one line>}

Leave a list empty when there is nothing to put in it."""


def llm_plan(state: State, client: LLMClient, *, prune_builtins: bool = True
             ) -> tuple[Plan, list[Refusal]]:
    """Ask ``client`` for a plan over the skills the curator manages in ``state``."""
    skills = state.skills.skills
    rows = [{"name": n, "description": description_of(skills[n].content),
             "category": skills[n].category, "state": skills[n].state,
             "uses": skills[n].use_count, "views": skills[n].view_count,
             "last_activity": skills[n].last_activity_at}
            for n in candidates(skills, prune_builtins=prune_builtins)]
    if not rows:
        return Plan(source=SOURCE), []
    messages = [{"role": "system", "content": _PROMPT},
                {"role": "user", "content": "The skills:\n" + json.dumps(rows, indent=1)}]
    reply = client.chat(messages)
    if reply.get("refusal"):
        raise LLMError(f"the model refused: {str(reply['refusal'])[:200]}")
    text = reply.get("content")
    if not isinstance(text, str) or not text.strip():
        raise LLMError("the model answered with no plan")
    try:
        return parse_plan(text, source=SOURCE)
    except ValidationError as exc:
        raise LLMError(f"the model's plan is not usable: {exc}") from None
