"""The emulator's answer on ``POST /v1/responses``, in OpenAI's wire format.

* text: one ``message`` item whose ``output_text`` part holds the answer, or streamed as
  ``response.created`` … ``response.output_text.delta`` … ``response.completed``;
* a function call, as the chat route calls a tool: when the request has ``tools`` (and
  ``tool_choice`` is not ``"none"`` and the last input item is not a ``function_call_output``),
  one ``function_call`` item calling the first function tool with the emulator's
  ``tool_arguments``, streamed as ``response.function_call_arguments.delta`` events;
* logprobs, when ``include`` asks for ``message.output_text.logprobs`` or ``top_logprobs`` is
  given: each output token (a delta) with its logprob and bytes, and ``top_logprobs``
  alternatives (the token itself), on the ``output_text`` part and on each
  ``response.output_text.delta`` / ``.done`` event (those without bytes, as OpenAI's are).
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

LOGPROBS_INCLUDE = "message.output_text.logprobs"
_TOKEN_SPLIT = " "
_ARGUMENT_PIECE = 8  # characters per streamed arguments delta, as the chat route streams them
_LOGPROB = -0.01


@dataclass(frozen=True, slots=True)
class ResponsesReply:
    id: str
    item_id: str
    model: str
    instructions: object
    text: str
    prompt: str
    tools: tuple[Mapping[str, Any], ...] = ()
    tool: str | None = None  # the function it calls; None: it answers in text
    tool_arguments: str = ""
    top_logprobs: int | None = None  # None: no logprobs asked for
    created_at: int = field(default_factory=lambda: int(time.time()))

    @classmethod
    def build(
        cls, body: Mapping[str, Any], number: int, text: str, tool_arguments: str
    ) -> ResponsesReply:
        tools = tuple(t for t in body.get("tools") or () if isinstance(t, Mapping))
        tool = _tool_to_call(body)
        return cls(
            id=f"resp_emu{number}",
            item_id=f"{'msg' if tool is None else 'fc'}_emu{number}",
            model=str(body.get("model")),
            instructions=body.get("instructions"),
            text=text,
            prompt=last_input_text(body.get("input")),
            tools=tools,
            tool=tool,
            tool_arguments=tool_arguments,
            top_logprobs=_top_logprobs(body),
        )

    # -- items ---------------------------------------------------------------------------

    def part(self, text: str, tokens: list[str] | None = None) -> dict[str, Any]:
        logprobs = [self._logprob(t, with_bytes=True) for t in tokens or ()]
        return {"type": "output_text", "text": text, "annotations": [], "logprobs": logprobs}

    def item(self, status: str, content: list[dict[str, Any]]) -> dict[str, Any]:
        return {
            "type": "message",
            "id": self.item_id,
            "status": status,
            "role": "assistant",
            "content": content,
        }

    def function_call(self, status: str, arguments: str) -> dict[str, Any]:
        return {
            "type": "function_call",
            "id": self.item_id,
            "call_id": "call_emu_1",
            "name": self.tool,
            "arguments": arguments,
            "status": status,
        }

    def _done_item(self) -> dict[str, Any]:
        if self.tool is not None:
            return self.function_call("completed", self.tool_arguments)
        return self.item("completed", [self.part(self.text, self._tokens())])

    def _tokens(self) -> list[str] | None:
        return pieces(self.text) if self.top_logprobs is not None else None

    def _logprob(self, token: str, *, with_bytes: bool) -> dict[str, Any]:
        entry: dict[str, Any] = {"token": token, "logprob": _LOGPROB}
        if with_bytes:
            entry["bytes"] = list(token.encode())
        alternatives = [dict(entry)][: self.top_logprobs or 0]
        return {**entry, "top_logprobs": alternatives}

    # -- the response ----------------------------------------------------------------------

    def response(self, status: str, *, with_output: bool) -> dict[str, Any]:
        output = [self._done_item()] if with_output else []
        done = status == "completed"
        answered = self.tool_arguments if self.tool is not None else self.text
        return {
            "id": self.id,
            "object": "response",
            "created_at": self.created_at,
            "status": status,
            "error": None,
            "incomplete_details": None,
            "instructions": self.instructions,
            "model": self.model,
            "output": output,
            "parallel_tool_calls": True,
            "temperature": 1.0,
            "tool_choice": "auto",
            "tools": [dict(t) for t in self.tools],
            "top_p": 1.0,
            "top_logprobs": self.top_logprobs or 0,
            "text": {"format": {"type": "text"}},
            "metadata": {},
            "usage": _usage(self.prompt, answered) if done else None,
        }

    def events(self) -> Iterator[dict[str, Any]]:
        """The stream's events, unnumbered (the route adds ``sequence_number``)."""
        head = self.response("in_progress", with_output=False)
        yield {"type": "response.created", "response": head}
        yield {"type": "response.in_progress", "response": head}
        yield from self._call_events() if self.tool is not None else self._text_events()
        yield {"type": "response.output_item.done", "output_index": 0, "item": self._done_item()}
        yield {
            "type": "response.completed",
            "response": self.response("completed", with_output=True),
        }

    def _text_events(self) -> Iterator[dict[str, Any]]:
        at = {"item_id": self.item_id, "output_index": 0, "content_index": 0}
        added = self.item("in_progress", [])
        yield {"type": "response.output_item.added", "output_index": 0, "item": added}
        yield {"type": "response.content_part.added", **at, "part": self.part("")}
        asked = self.top_logprobs is not None
        for piece in pieces(self.text):
            logprobs = [self._logprob(piece, with_bytes=False)] if asked else []
            yield {"type": "response.output_text.delta", **at, "delta": piece, "logprobs": logprobs}
        logprobs = [self._logprob(t, with_bytes=False) for t in self._tokens() or ()]
        yield {"type": "response.output_text.done", **at, "text": self.text, "logprobs": logprobs}
        part = self.part(self.text, self._tokens())
        yield {"type": "response.content_part.done", **at, "part": part}

    def _call_events(self) -> Iterator[dict[str, Any]]:
        at = {"item_id": self.item_id, "output_index": 0}
        added = self.function_call("in_progress", "")
        yield {"type": "response.output_item.added", "output_index": 0, "item": added}
        arguments = self.tool_arguments
        for start in range(0, len(arguments), _ARGUMENT_PIECE):
            delta = arguments[start : start + _ARGUMENT_PIECE]
            yield {"type": "response.function_call_arguments.delta", **at, "delta": delta}
        yield {
            "type": "response.function_call_arguments.done",
            **at,
            "name": self.tool,
            "arguments": arguments,
        }


def pieces(text: str) -> list[str]:
    """The answer's stream deltas (and logprob tokens): words with their following space."""
    words = text.split(_TOKEN_SPLIT)
    return [w + (_TOKEN_SPLIT if i < len(words) - 1 else "") for i, w in enumerate(words)]


def content_text(content: object) -> str:
    """A message's text: a string, or its content parts' texts joined ('' for anything else)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return ""


def last_input_text(value: object) -> str:
    """The last user text of a Responses ``input``: a string, or a list of message items."""
    if isinstance(value, str):
        return value
    for item in reversed(value if isinstance(value, list) else []):
        if not isinstance(item, dict) or item.get("role", "user") != "user":
            continue
        if isinstance(content := item.get("content"), str | list):
            return content_text(content)
    return ""


def _tool_to_call(body: Mapping[str, Any]) -> str | None:
    """The first function tool, unless ``tool_choice`` is ``"none"`` or the input ends with a
    function's result (the model then answers in text, as the chat route does)."""
    if body.get("tool_choice") == "none":
        return None
    given = body.get("input")
    last = given[-1] if isinstance(given, list) and given else None
    if isinstance(last, Mapping) and last.get("type") == "function_call_output":
        return None
    for tool in body.get("tools") or ():
        if isinstance(tool, Mapping) and tool.get("type") == "function":
            return str(tool.get("name", "tool"))
    return None


def _top_logprobs(body: Mapping[str, Any]) -> int | None:
    """How many alternatives each token lists; None when no logprobs are asked for."""
    top = body.get("top_logprobs")
    include = body.get("include")
    asked = isinstance(include, list) and LOGPROBS_INCLUDE in include
    if isinstance(top, int) and not isinstance(top, bool):
        return top
    return 0 if asked else None


def _usage(prompt: str, text: str) -> dict[str, Any]:
    p, c = len(prompt.split()), len(text.split())
    return {
        "input_tokens": p,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": c,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": p + c,
    }
