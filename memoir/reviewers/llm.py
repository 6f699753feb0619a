"""The LLM reviewer: any server that speaks OpenAI chat completions with tool calling.

Configuration (``reviewers.llm``): ``base_url``, ``model``, ``api_key_env`` (the name of
the variable holding the key), ``timeout_seconds``, ``max_iterations`` (16, as Hermes's
review fork), ``max_retries``.  Unset, they fall back to ``$OPENAI_BASE_URL``,
``$MEMOIR_LLM_MODEL`` and ``$OPENAI_API_KEY``, as OpenAI-compatible tools do.  The
client is the maintained ``openai`` package (the ``llm`` extra), whose retries
handle HTTP 429 and 5xx with backoff (honouring ``Retry-After``).

A review is one conversation with the model: a system prompt (in memoir's words,
following the intent of Hermes's review prompts, spec §2.3), then the turns under
review as text — the whole of them, or Hermes's digest for long ones (spec §2.2: the
last 24 messages verbatim, the older ones one line each) — with the current memory and
skill names.  The model calls the review's tools (:data:`~memoir.reviewers.review.
REVIEW_TOOLS` only); each result goes back to it; the review ends when it answers
without calling a tool.  Every way this can go wrong is bounded and becomes the review's
``review.failed`` reason: the server down or timing out after the retries, a refusal,
no answer, more than ``max_iterations`` rounds of tool calls.  Malformed arguments and
unknown tools are answered with an error result the model can correct.

The client (:class:`memoir.llm.LLMClient`) is not specific to reviews: the curator's
consolidation plan uses the same one.
"""

from __future__ import annotations

import json
from typing import Any

from memoir.llm import LLMClient, LLMError
from memoir.messages import message_text
from memoir.reviewers.review import REVIEW_TOOLS, Review

__all__ = ["LLMBackend", "ReviewFailure", "digest", "llm_summary", "prompt_for"]

#: What a review that the model could not complete raises (its reason is journaled).
ReviewFailure = LLMError

#: Messages kept verbatim at the end of a long review's transcript (spec §2.2).
_KEEP = 24


_MEMORY_TASK = """\
Decide what the assistant should remember from this conversation in later sessions, and \
save it with the memory tool. Look for what the user revealed about themselves — who \
they are, their work, their preferences, how they want the assistant to answer and \
behave — and save it to target "user". Save durable facts about their projects and \
environment — tools and versions, where things live, conventions, commands that \
worked — to target "memory". Leave out task progress, one-off details, passing errors \
and anything memory already holds; keep each entry short and able to stand alone; \
when a target is full, replace or merge entries instead of adding. If nothing is worth \
keeping, answer exactly: Nothing to save."""

_SKILLS_TASK = """\
Keep the skill library useful. Corrections of style, format or workflow, and \
techniques or fixes that took real work, belong in skills. In order of preference: \
patch a skill the conversation used; patch an existing umbrella skill that covers the \
topic; add a support file (references/, templates/, scripts/) with a one-line pointer \
in its SKILL.md; create a new skill for a whole class of tasks (never named after a \
ticket, an error message or a one-off task). Put the user's preferences into the \
skills they apply to. Do not record failures that depend on one machine, claims that a \
tool does not work, or passing errors: record the fix. Leave merging overlapping skills \
to the curator. Answer "Nothing to save." only when there is truly nothing."""

_RULES = """\
Only the memory, skills_list, skill_view and skill_manage tools may be called; any \
other call is refused. Finish by answering in one sentence, without a tool call."""


def prompt_for(kinds: tuple[str, ...]) -> str:
    """The system prompt of a review of ``kinds`` (memory, skills, or both)."""
    parts = ["You are reviewing a finished conversation between a user and an AI "
             "assistant, on the assistant's behalf."]
    if "memory" in kinds:
        parts.append(_MEMORY_TASK)
    if "skills" in kinds:
        parts.append(_SKILLS_TASK)
    parts.append(_RULES)
    return "\n\n".join(parts)




def _line(message: dict[str, Any], clip: int | None) -> str:
    role = str(message.get("role", "")).upper()
    text = message_text(message)
    if clip is not None and len(text) > clip:
        text = text[: clip - 1] + "…"
    calls = [c.get("function", {}).get("name", "?") for c in message.get("tool_calls") or []
             if isinstance(c, dict)]
    if calls:
        role += f"[tools: {', '.join(calls)}]"
    return f"{role}: {text}" if text else role


def digest(messages: list[dict[str, Any]]) -> str:
    """The conversation as text: verbatim when short; else Hermes's digest — the last 24
    messages verbatim (never starting on a tool result), the older ones one line each
    (user 300 characters, assistant 200)."""
    if len(messages) <= _KEEP:
        return "\n\n".join(_line(m, None) for m in messages)
    start = len(messages) - _KEEP
    while start > 0 and messages[start].get("role") == "tool":
        start -= 1
    older = [_line(m, 300 if m.get("role") == "user" else 200) for m in messages[:start]
             if m.get("role") in ("user", "assistant")]
    recent = "\n\n".join(_line(m, None) for m in messages[start:])
    return ("[Earlier conversation digest — one line per message]\n" + "\n".join(older)
            + "\n\n[The rest of the conversation, as it was]\n" + recent)


class LLMBackend:
    """Reviews with a model through :class:`LLMClient` (see the module docstring)."""

    name = "llm"

    def __init__(self, client: LLMClient, *, max_iterations: int = 16) -> None:
        self.client = client
        self.max_iterations = max_iterations

    def review(self, review: Review) -> None:
        kinds = review.request.kinds
        state = review.state
        memory = {t: state.memory.target(t).texts() for t in ("memory", "user")}
        skills = sorted(n for n, r in state.skills.skills.items() if not r.archived)
        context = (f"Memory now (target \"memory\"): {json.dumps(memory['memory'])}\n"
                   f"User profile now (target \"user\"): {json.dumps(memory['user'])}\n"
                   f"Skills now: {', '.join(skills) or 'none'}")
        flat = [m for turn in review.turns for m in turn]
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": prompt_for(kinds)},
            {"role": "user", "content": f"{context}\n\nThe conversation:\n\n{digest(flat)}"},
        ]
        tools = [s for s in REVIEW_TOOLS.schemas()
                 if "skills" in kinds or s["function"]["name"] == "memory"]
        for _ in range(self.max_iterations):
            reply = self.client.chat(messages, tools=list(tools))
            if reply.get("refusal"):
                raise ReviewFailure(f"the model refused: {str(reply['refusal'])[:200]}")
            calls = reply.get("tool_calls") or []
            messages.append({k: v for k, v in reply.items()
                             if k in ("role", "content", "tool_calls")})
            if not calls:
                return
            for call in calls:
                function = call.get("function") or {}
                name = str(function.get("name", ""))
                try:
                    args = json.loads(function.get("arguments") or "{}")
                except (ValueError, RecursionError):
                    args = None
                result = review.call(name, args) if isinstance(args, dict) else {
                    "success": False,
                    "error": "The arguments are not a JSON object; send them again as one."}
                messages.append({"role": "tool", "tool_call_id": call.get("id", ""),
                                 "content": json.dumps(result, ensure_ascii=False)})
        raise ReviewFailure(f"the model was still calling tools after {self.max_iterations} "
                            "rounds; the review was stopped (what it saved stays in its run)")


_SUMMARY_TASK = """\
Summarise this finished conversation between a user and an AI assistant for the \
assistant's future self, in 200 to 400 words of plain prose: what the user wanted, the \
decisions made, the facts learned about the user and their projects, the files and \
commands involved, the errors met and how they were fixed, and what was left open. \
Write only the summary."""


def llm_summary(client: LLMClient, turns: list[list[dict[str, Any]]]) -> str:
    """A session summary written by the model (seed 004: 200-400 words)."""
    flat = [m for turn in turns for m in turn]
    reply = client.chat([{"role": "system", "content": _SUMMARY_TASK},
                         {"role": "user", "content": digest(flat)}])
    if reply.get("refusal"):
        raise ReviewFailure(f"the model refused: {str(reply['refusal'])[:200]}")
    text = reply.get("content")
    if not isinstance(text, str) or not text.strip():
        raise ReviewFailure("the model sent an empty summary")
    return " ".join(text.split(" ")[:450]).strip()
