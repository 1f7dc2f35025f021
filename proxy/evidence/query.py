"""The retrieval query of a chat request: the last user turn, optionally preceded by a short
context from earlier user turns (so "and in children?" still retrieves the right abstracts)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from proxy.settings.retrieval import DEFAULT_CONTEXT_TURNS

DEFAULT_CONTEXT_CHARS = 300
MAX_QUERY_CHARS = 2000


def message_text(message: Mapping[str, Any]) -> str:
    """Text of a chat message whose content is a string or a list of content parts."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(
            str(part.get("text", ""))
            for part in content
            if isinstance(part, Mapping) and part.get("type") == "text"
        )
    return ""


def build_query(
    messages: Sequence[Mapping[str, Any]],
    *,
    context_turns: int = DEFAULT_CONTEXT_TURNS,
    context_chars: int = DEFAULT_CONTEXT_CHARS,
) -> str:
    """The query text; empty when the request has no user turn with text."""
    users = [" ".join(message_text(m).split()) for m in messages if m.get("role") == "user"]
    users = [u for u in users if u]
    if not users:
        return ""
    last = users[-1][:MAX_QUERY_CHARS]
    earlier = " ".join(users[-1 - context_turns : -1]) if context_turns > 0 else ""
    if not earlier:
        return last
    return f"{earlier[-context_chars:]} {last}"
