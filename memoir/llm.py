"""A chat-completions client for any OpenAI-compatible server, shared by everything in
memoir that asks a model: the LLM reviewer, the curator's consolidation plan, and (in
time) session summaries.

It wraps the maintained ``openai`` package (the ``llm`` extra), whose retries
handle HTTP 429 and 5xx with backoff (honouring ``Retry-After``), and turns every way a
request can fail into :class:`LLMError` with a reason a person can read.  Configuration:
``reviewers.llm`` (``base_url``, ``model``, ``api_key_env``, ``timeout_seconds``,
``max_retries``), falling back to ``$OPENAI_BASE_URL``, ``$MEMOIR_LLM_MODEL`` and
``$OPENAI_API_KEY``.
"""

from __future__ import annotations

import os
from typing import Any

from memoir.config import Config, LLMConfig, key_variable_problem
from memoir.errors import ConfigError, MemoirError, ValidationError
from memoir.install import extra_hint

__all__ = ["LLMClient", "LLMError", "client_from_config"]


class LLMError(MemoirError, RuntimeError):
    """The model or its server could not give an answer (the reason says why)."""


class LLMClient:
    """A chat-completions client (the ``openai`` package) for one server and model."""

    def __init__(self, *, base_url: str | None, model: str, api_key: str | None,
                 timeout: float = 60.0, max_retries: int = 3) -> None:
        try:
            from openai import OpenAI
        except ImportError:  # an optional dependency
            raise ValidationError(extra_hint("llm", "asking a model")) from None
        self.model = model
        # Typed loosely: the SDK's overloads are stricter than the plain dicts memoir
        # builds its messages from.
        self._client: Any = OpenAI(base_url=base_url, api_key=api_key or "not-needed",
                                   timeout=timeout, max_retries=max_retries)

    def chat(self, messages: list[dict[str, Any]], *,
             tools: list[Any] | None = None) -> dict[str, Any]:
        """One completion; the assistant message as a plain dict."""
        import openai

        try:
            response = self._client.chat.completions.create(
                model=self.model, messages=messages,
                **({"tools": tools} if tools else {}))
        except openai.APITimeoutError:
            raise LLMError("the LLM server did not answer in time (after retries)") \
                from None
        except openai.APIConnectionError as exc:
            raise LLMError(f"could not reach the LLM server: {exc}") from None
        except openai.APIStatusError as exc:
            raise LLMError(f"the LLM server answered HTTP {exc.status_code} (after "
                                f"retries): {str(exc)[:200]}") from None
        if not response.choices:
            raise LLMError("the LLM server sent no choices")
        message = response.choices[0].message
        return dict(message.model_dump(exclude_none=True))


def client_from_config(config: Config) -> LLMClient:
    """The client ``reviewers.llm`` describes, with the environment's fallbacks."""
    llm: LLMConfig = config.reviewers.llm
    base_url = llm.base_url or os.environ.get("OPENAI_BASE_URL")
    model = llm.model or os.environ.get("MEMOIR_LLM_MODEL")
    if not model:
        raise ValidationError("no model for the LLM reviewer: set reviewers.llm.model in "
                              "config.yaml or $MEMOIR_LLM_MODEL")
    problem = key_variable_problem(llm.api_key_env)
    if problem:
        raise ConfigError(problem)
    return LLMClient(base_url=base_url, model=model, api_key=os.environ.get(llm.api_key_env),
                     timeout=llm.timeout_seconds, max_retries=llm.max_retries)
