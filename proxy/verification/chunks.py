"""Reading the upstream's chat chunks: choice 0, the envelope our chunks copy, and what of a
chunk waits for the end of the answer (its finish and usage).

These read choice 0; every other choice is taken out of the stream and verified by
:mod:`proxy.verification.choices`. The chunks veriproxy adds are rendered from typed events by
:mod:`proxy.verification.chat_stream`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from proxy.verification import render
from proxy.verification.shapes import strict_index


def first_choice(data: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
    """Choice 0 of a chunk, or None (usage-only chunks have no choices)."""
    if not data:
        return None
    for choice in data.get("choices") or ():
        if isinstance(choice, Mapping) and choice.get("index", 0) == 0:
            return choice
    return None


def finish_reason(data: Mapping[str, Any] | None) -> str | None:
    choice = first_choice(data)
    reason = choice.get("finish_reason") if choice is not None else None
    return reason if isinstance(reason, str) else None


def content_of(data: Mapping[str, Any] | None) -> str | None:
    """Choice 0's text in a chunk (None: none)."""
    choice = first_choice(data)
    delta = choice.get("delta") if choice is not None else None
    content = delta.get("content") if isinstance(delta, Mapping) else None
    return content if isinstance(content, str) and content else None


def template_of(data: Mapping[str, Any] | None) -> dict[str, Any]:
    """The envelope fields (id, created, model, …) our own chunks copy from the upstream's."""
    return render.envelope(data or {}, "chat.completion.chunk")


def split_tail(data: Mapping[str, Any]) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """``(now, held)``: what of a chunk may go to the client at once, and the upstream's finish
    or usage part, which waits until the annotations and the report are out (clients stop
    reading at ``finish_reason``, and the SDK's stream helper keeps the last chunk's usage)."""
    if not data.get("choices"):
        return None, dict(data)
    reason = finish_reason(data)
    if reason is None:
        return dict(data), None
    now_choices = []
    for choice in data["choices"]:
        if isinstance(choice, Mapping) and choice.get("index", 0) == 0:
            if choice.get("delta") or choice.get("logprobs"):
                now_choices.append({**choice, "finish_reason": None})
        else:
            now_choices.append(choice)
    now = {**data, "choices": now_choices} if now_choices else None
    if now is not None and now.get("usage") is not None:
        now["usage"] = None
    held = {**data, "choices": [{"index": 0, "delta": {}, "finish_reason": reason}]}
    return now, held


def with_content(data: Mapping[str, Any], text: str) -> dict[str, Any]:
    """A chunk with choice 0's text replaced by ``text`` (quotes stripped) and its token
    log-probabilities dropped (they spell the words as the model wrote them)."""
    choices = []
    first = True
    for choice in data.get("choices") or ():
        if isinstance(choice, Mapping) and strict_index(choice.get("index")) == 0:
            delta = choice.get("delta")
            content = text if first else ""
            first = False
            delta = {**delta, "content": content} if isinstance(delta, Mapping) else delta
            choice = {**choice, "delta": delta, "logprobs": None}
        choices.append(choice)
    return {**data, "choices": choices}


def with_finish(data: Mapping[str, Any], reason: str) -> dict[str, Any]:
    """A held finish chunk with choice 0's ``finish_reason`` replaced (a block)."""
    choices = [
        {**c, "finish_reason": reason} if isinstance(c, Mapping) and c.get("index", 0) == 0 else c
        for c in data.get("choices") or ()
    ]
    return {**data, "choices": choices}
