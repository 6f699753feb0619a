"""The OpenAI SDK's own types for what memoir builds, for type-checked agent loops.

memoir's results are plain dicts shaped as the chat-completions API wants them; their
types (:class:`memoir.tools.results.ToolMessage`, :class:`memoir.tools.ToolSchema`) are
memoir's own, because the SDK is optional.  A project that type-checks its loop against
the SDK's ``ChatCompletionMessageParam`` uses these instead: the same values, typed as
the SDK types them.  Importing this module needs nothing at run time; type-checking a
module that imports it needs the ``openai`` package (the ``llm`` extra).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from memoir.tools import tool_schemas

if TYPE_CHECKING:
    from openai.types.chat import ChatCompletionToolMessageParam, ChatCompletionToolParam

    from memoir.sessions.session import Session

__all__ = ["tool_messages", "tool_result_message", "tools"]


def tool_messages(session: Session, message: Any) -> list[ChatCompletionToolMessageParam]:
    """:meth:`Session.tool_messages`, typed as the SDK's tool messages."""
    return cast("list[ChatCompletionToolMessageParam]", session.tool_messages(message))


def tool_result_message(session: Session, tool_call: Any) -> ChatCompletionToolMessageParam:
    """:meth:`Session.tool_result_message`, typed as the SDK's tool message."""
    return cast("ChatCompletionToolMessageParam", session.tool_result_message(tool_call))


def tools(*, strict: bool = False) -> list[ChatCompletionToolParam]:
    """:func:`memoir.tool_schemas`, typed as the SDK's tool parameters."""
    return tool_schemas(strict=strict)
