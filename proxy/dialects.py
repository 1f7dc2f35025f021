"""Chat views of the other text APIs: legacy completions and the Responses API.

Evidence injection, the verifier's two stream modes and its finaliser all speak chat
completions. Rather than a copy of each per API, :mod:`proxy.dialect_service` shows them a chat
*view* of the request, the answer and the stream, and a :class:`Dialect` maps the result back:

* request: :meth:`Dialect.messages` (what the evidence preparer reads) and
  :meth:`Dialect.inject` (the evidence messages it added, put where this API takes them: the
  prompt's head for completions, ``instructions`` for responses);
* answer: :meth:`Dialect.answer` and :meth:`Dialect.apply` (the verified text, finish reason
  and report written back);
* stream: :meth:`Dialect.delta` (an event's text), :meth:`Dialect.is_terminal` (the upstream's
  closing events, rebuilt at the end from what the client was actually sent),
  :meth:`Dialect.content_event` and :meth:`Dialect.final_events`.

Only the answer's text is verified. What else an answer holds (reasoning items, tool calls) is
listed in the report's ``unverified_items`` with the reason.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from policies import LegacyCompletions, Policy
from proxy.verification.shapes import CONTENT_FILTER

# Our own Responses stream events. openai-node's stream helper throws on an event type it does
# not know, so they are sent only to a request that opts in (VERIFICATION_EVENTS); by default
# the report, with every sentence's annotation, rides in the closing response.* event.
SENTENCE_EVENT = "response.verification.sentence"
REPORT_EVENT = "response.verification.report"
VERIFICATION_EVENTS = "verification_events"  # veriproxy option / X-Veriproxy-Verification-Events


@dataclass(frozen=True, slots=True)
class Unverifiable:
    """Why verification cannot apply to a request (it then passes through, reported so)."""

    reason: str


class Dialect(Protocol):
    path: str  # below the upstream's base URL

    def skipped_by(self, policy: Policy) -> str | None: ...

    @property
    def answer_id(self) -> str | None: ...

    def messages(self, body: Mapping[str, Any]) -> list[dict[str, Any]] | Unverifiable: ...

    def inject(self, body: Mapping[str, Any], added: list[dict[str, Any]]) -> dict[str, Any]: ...

    def answer(self, data: Mapping[str, Any]) -> str | None: ...

    def apply(
        self, data: Mapping[str, Any], text: str, finish: str | None, report: Mapping[str, Any]
    ) -> dict[str, Any]: ...

    def delta(self, event: Mapping[str, Any]) -> str | None: ...

    def is_terminal(self, event: Mapping[str, Any]) -> bool: ...

    def content_event(self, text: str) -> dict[str, Any]: ...

    def annotation_event(self, annotation: Mapping[str, Any]) -> dict[str, Any]: ...

    def final_events(
        self, text: str, finish: str | None, report: Mapping[str, Any] | None
    ) -> list[dict[str, Any]]: ...


def _added_text(added: list[dict[str, Any]]) -> str:
    return "\n\n".join(str(m.get("content", "")) for m in added)


class CompletionsDialect:
    """``POST /v1/completions``: ``prompt`` in, ``choices[0].text`` out."""

    path = "/completions"

    def __init__(self) -> None:
        self._template: dict[str, Any] = {}
        self._held: list[dict[str, Any]] = []

    def skipped_by(self, policy: Policy) -> str | None:
        if policy.legacy_completions is LegacyCompletions.UNVERIFIED:
            return f"policy '{policy.name}' passes legacy completions through unverified"
        return None

    @property
    def answer_id(self) -> str | None:
        value = self._template.get("id")
        return value if isinstance(value, str) else None

    def messages(self, body: Mapping[str, Any]) -> list[dict[str, Any]] | Unverifiable:
        prompt = body.get("prompt")
        if not isinstance(prompt, str):
            return Unverifiable("the prompt is not one string (a batch or token ids)")
        for name in ("n", "best_of"):
            if isinstance(body.get(name), int) and body[name] > 1:
                return Unverifiable(f"{name} > 1: several answers, only one could be verified")
        if body.get("echo") is True:
            return Unverifiable("echo: the prompt is returned as part of the answer")
        return [{"role": "user", "content": prompt}]

    def inject(self, body: Mapping[str, Any], added: list[dict[str, Any]]) -> dict[str, Any]:
        if not added:
            return dict(body)
        return {**body, "prompt": f"{_added_text(added)}\n\n{body['prompt']}"}

    def answer(self, data: Mapping[str, Any]) -> str | None:
        choice = _first(data.get("choices"))
        text = choice.get("text") if choice else None
        return text if isinstance(text, str) else None

    def apply(
        self, data: Mapping[str, Any], text: str, finish: str | None, report: Mapping[str, Any]
    ) -> dict[str, Any]:
        out = copy.deepcopy(dict(data))
        choice = _first(out.get("choices"))
        if choice is not None:
            choice["text"] = text
            if finish is not None:
                choice["finish_reason"] = finish
        out["verification"] = dict(report)
        return out

    def delta(self, event: Mapping[str, Any]) -> str | None:
        if not self._template:
            self._template = {
                k: event[k] for k in ("id", "object", "created", "model") if k in event
            }
        choice = _first(event.get("choices"))
        text = choice.get("text") if choice else None
        return text if isinstance(text, str) and text else None

    def is_terminal(self, event: Mapping[str, Any]) -> bool:
        choice = _first(event.get("choices"))
        if choice is None or choice.get("finish_reason") is not None:
            self._held.append(dict(event))
            return True
        return False

    def _chunk(self, text: str, finish: str | None) -> dict[str, Any]:
        choice = {"text": text, "index": 0, "logprobs": None, "finish_reason": finish}
        return {**self._template, "choices": [choice]}

    def content_event(self, text: str) -> dict[str, Any]:
        return self._chunk(text, None)

    def annotation_event(self, annotation: Mapping[str, Any]) -> dict[str, Any]:
        return {**self._chunk("", None), "verification": dict(annotation)}

    def final_events(
        self, text: str, finish: str | None, report: Mapping[str, Any] | None
    ) -> list[dict[str, Any]]:
        held_finish = next(
            (_first(e.get("choices")) for e in self._held if _first(e.get("choices"))), None
        )
        reason = finish if finish == CONTENT_FILTER else None
        reason = reason or (held_finish or {}).get("finish_reason") or finish or "stop"
        last = self._chunk("", reason)
        if report is not None:
            last["verification"] = dict(report)
        usage = [e for e in self._held if not e.get("choices")]
        return [last, *usage]


class ResponsesDialect:
    """``POST /v1/responses``: ``instructions``/``input`` in, message items' ``output_text``
    out; streamed as ``response.*`` events."""

    path = "/responses"

    def skipped_by(self, policy: Policy) -> str | None:
        return None

    def __init__(self) -> None:
        self._snapshot: dict[str, Any] = {}  # the response as response.created announced it
        self._completed: dict[str, Any] | None = None  # the upstream's own final response
        self._item: dict[str, Any] | None = None  # the first message item
        self._at = {"item_id": "", "output_index": 0, "content_index": 0}

    @property
    def answer_id(self) -> str | None:
        value = self._snapshot.get("id")
        return value if isinstance(value, str) else None

    def messages(self, body: Mapping[str, Any]) -> list[dict[str, Any]] | Unverifiable:
        out: list[dict[str, Any]] = []
        if isinstance(body.get("instructions"), str):
            out.append({"role": "system", "content": body["instructions"]})
        given = body.get("input")
        if isinstance(given, str):
            out.append({"role": "user", "content": given})
        for item in given if isinstance(given, list) else ():
            if isinstance(item, Mapping) and isinstance(item.get("role"), str):
                out.append({"role": item["role"], "content": _input_text(item.get("content"))})
        return out

    def inject(self, body: Mapping[str, Any], added: list[dict[str, Any]]) -> dict[str, Any]:
        if not added:
            return dict(body)
        own = body.get("instructions")
        head = f"{own}\n\n" if isinstance(own, str) and own else ""
        return {**body, "instructions": head + _added_text(added)}

    def answer(self, data: Mapping[str, Any]) -> str | None:
        texts = [
            part.get("text", "")
            for item in _messages(data)
            for part in item.get("content") or ()
            if isinstance(part, Mapping) and part.get("type") == "output_text"
        ]
        return "".join(texts) if texts else None

    def apply(
        self, data: Mapping[str, Any], text: str, finish: str | None, report: Mapping[str, Any]
    ) -> dict[str, Any]:
        out = copy.deepcopy(dict(data))
        first = True
        for item in _messages(out):
            for part in item.get("content") or ():
                if isinstance(part, dict) and part.get("type") == "output_text":
                    part["text"] = text if first else ""
                    part["annotations"] = part.get("annotations") if first else []
                    part.pop("logprobs", None)  # token text of withheld words must not travel
                    first = False
        if finish == CONTENT_FILTER:
            out["status"] = "incomplete"
            out["incomplete_details"] = {"reason": CONTENT_FILTER}
        out["verification"] = {**report, "unverified_items": _unverified_items(out)}
        return out

    def delta(self, event: Mapping[str, Any]) -> str | None:
        kind = event.get("type")
        if kind == "response.created" and isinstance(event.get("response"), Mapping):
            self._snapshot = copy.deepcopy(dict(event["response"]))
        elif kind == "response.output_item.added" and self._item is None:
            item = event.get("item")
            if isinstance(item, Mapping) and item.get("type") == "message":
                self._item = copy.deepcopy(dict(item))
                self._at["item_id"] = str(item.get("id", ""))
                self._at["output_index"] = int(event.get("output_index") or 0)
        elif kind == "response.output_text.delta" and event.get("item_id") == self._at["item_id"]:
            self._at["content_index"] = int(event.get("content_index") or 0)
            text = event.get("delta")
            return text if isinstance(text, str) and text else None
        return None

    def is_terminal(self, event: Mapping[str, Any]) -> bool:
        kind = event.get("type")
        if kind in ("response.completed", "response.incomplete"):
            self._completed = copy.deepcopy(dict(event.get("response") or {}))
            return True
        if kind in ("response.output_text.done", "response.content_part.done"):
            return event.get("item_id") == self._at["item_id"]
        if kind == "response.output_item.done":
            item = event.get("item")
            return isinstance(item, Mapping) and item.get("id") == self._at["item_id"]
        return False

    def content_event(self, text: str) -> dict[str, Any]:
        return {"type": "response.output_text.delta", **self._at, "delta": text, "logprobs": []}

    def annotation_event(self, annotation: Mapping[str, Any]) -> dict[str, Any]:
        return {"type": SENTENCE_EVENT, **self._at, "annotation": dict(annotation)}

    def final_events(
        self, text: str, finish: str | None, report: Mapping[str, Any] | None
    ) -> list[dict[str, Any]]:
        part = {"type": "output_text", "text": text, "annotations": []}
        status = "incomplete" if finish == CONTENT_FILTER else "completed"
        events: list[dict[str, Any]] = []
        if self._item is not None:
            item = {**self._item, "status": status, "content": [part]}
            events += [
                {"type": "response.output_text.done", **self._at, "text": text, "logprobs": []},
                {"type": "response.content_part.done", **self._at, "part": part},
                {
                    "type": "response.output_item.done",
                    "output_index": self._at["output_index"],
                    "item": item,
                },
            ]
        final = self._completed or {**self._snapshot, "output": [item] if self._item else []}
        final = self.apply(final, text, finish, report or {})
        kind = (
            "response.incomplete" if final.get("status") == "incomplete" else "response.completed"
        )
        events.append({"type": kind, "response": final})
        return events


def _first(choices: object) -> dict[str, Any] | None:
    for choice in choices if isinstance(choices, list) else ():
        if isinstance(choice, dict) and choice.get("index", 0) == 0:
            return choice
    return None


def _messages(data: Mapping[str, Any]) -> list[dict[str, Any]]:
    output = data.get("output")
    return [
        item
        for item in (output if isinstance(output, list) else ())
        if isinstance(item, dict) and item.get("type") == "message"
    ]


def _input_text(content: object) -> str:
    if isinstance(content, str):
        return content
    parts = content if isinstance(content, list) else ()
    return " ".join(str(p.get("text", "")) for p in parts if isinstance(p, Mapping) and "text" in p)


def _unverified_items(data: Mapping[str, Any]) -> list[dict[str, str]]:
    """Output items other than messages: their text is not verified, and this says why."""
    out = []
    output = data.get("output")
    for item in output if isinstance(output, list) else ():
        if not isinstance(item, Mapping) or item.get("type") == "message":
            continue
        kind = str(item.get("type"))
        reason = (
            "reasoning is the model's working, not part of the answer; not verified"
            if kind == "reasoning"
            else f"{kind} items (tool calls and their arguments) are not verified"
        )
        out.append({"type": kind, "id": str(item.get("id", "")), "reason": reason})
    return out
