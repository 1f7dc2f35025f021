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
  :meth:`Dialect.content_events` and :meth:`Dialect.final_events`.

Only the answer's text is verified. What else an answer holds (reasoning items, tool calls) is
listed in the report's ``unverified_items`` with the reason.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from policies import LegacyCompletions, Policy
from proxy.errors import InvalidRequest, UpstreamProtocolError
from proxy.verification import render
from proxy.verification.shapes import CONTENT_FILTER, JSON_FORMATS, strict_index

# Our own Responses stream events. openai-node's stream helper throws on an event type it does
# not know, so they are sent only to a request that opts in (the ``verification_events``
# option, RequestOptions.verification_events); by default
# the report, with every sentence's annotation, rides in the closing response.* event.
SENTENCE_EVENT = "response.verification.sentence"
REPORT_EVENT = "response.verification.report"


@dataclass(frozen=True, slots=True)
class UnverifiedRequest:
    """Why verification cannot apply to a request (it then passes through, reported so)."""

    reason: str


class Dialect(Protocol):
    path: str  # below the upstream's base URL
    verifying: bool  # False: the answer passes through unverified (and is said to)
    asks_for_json: bool  # the request asked for a structured (JSON) answer

    def skipped_by(self, policy: Policy) -> str | None: ...

    @property
    def answer_id(self) -> str | None: ...

    def messages(self, body: Mapping[str, Any]) -> list[dict[str, Any]] | UnverifiedRequest: ...

    def inject(self, body: Mapping[str, Any], added: list[dict[str, Any]]) -> dict[str, Any]: ...

    def answer(self, data: Mapping[str, Any]) -> str | None: ...

    def unread(self, data: Mapping[str, Any]) -> list[str]: ...

    def apply(
        self,
        data: Mapping[str, Any],
        text: str,
        finish: str | None,
        report: Mapping[str, Any],
        *,
        whole: bool = False,
        refusal: str | None = None,
        annotations: Sequence[Mapping[str, Any]] = (),
    ) -> dict[str, Any]: ...

    def delta(self, event: Mapping[str, Any]) -> str | None: ...

    def take_unread(self) -> list[str]: ...

    @property
    def answering(self) -> bool: ...

    def opening_events(self) -> list[dict[str, Any]]: ...

    def ended(self) -> None: ...

    def is_terminal(self, event: Mapping[str, Any]) -> bool: ...

    def content_events(self, text: str) -> list[dict[str, Any]]: ...

    def annotation_event(self, annotation: Mapping[str, Any]) -> dict[str, Any]: ...

    def citation_events(self, annotations: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]: ...

    def final_events(
        self,
        text: str,
        finish: str | None,
        report: Mapping[str, Any] | None,
        refusal: str | None = None,
    ) -> list[dict[str, Any]]: ...


def _added_text(added: list[dict[str, Any]]) -> str:
    return "\n\n".join(str(m.get("content", "")) for m in added)


class CompletionsDialect:
    """``POST /v1/completions``: ``prompt`` in, ``choices[0].text`` out. ``n`` and ``best_of``
    must be integers; a verified answer has exactly one choice, index 0 (any other entry is an
    upstream protocol error); what the client gets is rendered: text, index, finish reason and
    usage counts, never the upstream's other fields (its ``logprobs`` included)."""

    path = "/completions"
    asks_for_json = False  # legacy completions have no response format

    def __init__(self) -> None:
        self._template: dict[str, Any] = {}
        self._held: list[dict[str, Any]] = []
        self.verifying = True  # False: the answer passes through unverified (said so)

    def skipped_by(self, policy: Policy) -> str | None:
        if policy.legacy_completions is LegacyCompletions.UNVERIFIED:
            return f"policy '{policy.name}' passes legacy completions through unverified"
        return None

    @property
    def answer_id(self) -> str | None:
        value = self._template.get("id")
        return value if isinstance(value, str) else None

    def messages(self, body: Mapping[str, Any]) -> list[dict[str, Any]] | UnverifiedRequest:
        for name in ("n", "best_of"):
            if name in body and body[name] is not None and strict_index(body[name]) is None:
                raise InvalidRequest(f"'{name}' must be a non-negative integer", param=name)
        prompt = body.get("prompt")
        if not isinstance(prompt, str):
            return UnverifiedRequest("the prompt is not one string (a batch or token ids)")
        for name in ("n", "best_of"):
            if (body.get(name) or 1) > 1:
                return UnverifiedRequest(f"{name} > 1: several answers, only one could be verified")
        if body.get("echo") is True:
            return UnverifiedRequest("echo: the prompt is returned as part of the answer")
        return [{"role": "user", "content": prompt}]

    def inject(self, body: Mapping[str, Any], added: list[dict[str, Any]]) -> dict[str, Any]:
        if not added:
            return dict(body)
        return {**body, "prompt": f"{_added_text(added)}\n\n{body['prompt']}"}

    def answer(self, data: Mapping[str, Any]) -> str | None:
        choice = self._only(data.get("choices"))
        text = choice.get("text") if choice else None
        return text if isinstance(text, str) else None

    def unread(self, data: Mapping[str, Any]) -> list[str]:
        return []

    def _only(self, choices: object) -> dict[str, Any] | None:
        """Choice 0; when verifying, any other entry is a protocol error (one was asked for)."""
        if not self.verifying:
            return _first(choices)
        entries = choices if isinstance(choices, list) else []
        if any(not isinstance(c, dict) or strict_index(c.get("index")) != 0 for c in entries):
            raise UpstreamProtocolError("upstream sent a choice the request did not ask for")
        return entries[0] if entries else None

    def apply(
        self,
        data: Mapping[str, Any],
        text: str,
        finish: str | None,
        report: Mapping[str, Any],
        *,
        whole: bool = False,
        refusal: str | None = None,
        annotations: Sequence[Mapping[str, Any]] = (),
    ) -> dict[str, Any]:
        out = render.envelope(data, "text_completion")
        upstream = data.get("choices")
        entries = (
            [c for c in upstream if isinstance(c, Mapping)] if isinstance(upstream, list) else []
        )
        if whole:  # passed through unverified: every choice, rendered
            out["choices"] = [_completion_choice(c) for c in entries]
        else:
            first = entries[0] if entries else {}
            reason = finish or first.get("finish_reason")
            out["choices"] = [_completion_choice({"text": text, "finish_reason": reason})]
        if (counts := render.usage(data.get("usage"))) is not None:
            out["usage"] = counts
        out["verification"] = dict(report)
        return out

    def delta(self, event: Mapping[str, Any]) -> str | None:
        if not self._template:
            self._template = render.envelope(event, "text_completion")
        choice = self._only(event.get("choices"))
        text = choice.get("text") if choice else None
        return text if isinstance(text, str) and text else None

    def take_unread(self) -> list[str]:
        return []

    @property
    def answering(self) -> bool:
        return False  # a completions stream has no opening events to render

    def opening_events(self) -> list[dict[str, Any]]:
        return []

    def ended(self) -> None:
        return None

    def is_terminal(self, event: Mapping[str, Any]) -> bool:
        choice = self._only(event.get("choices"))
        if choice is None or choice.get("finish_reason") is not None:
            self._held.append(dict(event))
            return True
        return False

    def _chunk(self, text: str, finish: str | None) -> dict[str, Any]:
        choice = {"text": text, "index": 0, "logprobs": None, "finish_reason": finish}
        return {**self._template, "choices": [choice]}

    def content_events(self, text: str) -> list[dict[str, Any]]:
        return [self._chunk(text, None)]

    def annotation_event(self, annotation: Mapping[str, Any]) -> dict[str, Any]:
        return {**self._chunk("", None), "verification": dict(annotation)}

    def citation_events(self, annotations: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
        return []  # legacy completions have no annotations; the report has the citations

    def final_events(
        self,
        text: str,
        finish: str | None,
        report: Mapping[str, Any] | None,
        refusal: str | None = None,
    ) -> list[dict[str, Any]]:
        held_finish = next(
            (_first(e.get("choices")) for e in self._held if _first(e.get("choices"))), None
        )
        reason = finish if finish == CONTENT_FILTER else None
        reason = reason or (held_finish or {}).get("finish_reason") or finish or "stop"
        last = self._chunk("", render.finish_reason(reason))
        if report is not None:
            last["verification"] = dict(report)
        usage = [render.usage(e.get("usage")) for e in self._held if not e.get("choices")]
        return [last, *({**self._template, "choices": [], "usage": u} for u in usage if u)]


class ResponsesDialect:
    """``POST /v1/responses``: ``instructions``/``input`` in, message items' ``output_text``
    out; streamed as ``response.*`` events. Every message item's text is verified (items joined
    by a blank line) and the client gets one message item holding the verified text. Content
    parts other than ``output_text`` (``refusal``, ``text``), items other than messages
    (reasoning, tool calls), a response whose status is not ``completed``/``incomplete`` and a
    stream that fails or stops before ``response.completed`` are never reported ``verified``;
    the final response is rendered from known fields (no top-level ``output_text``)."""

    path = "/responses"

    def skipped_by(self, policy: Policy) -> str | None:
        return None

    def __init__(self) -> None:
        self._snapshot: dict[str, Any] = {}  # the response as response.created announced it
        self._completed: dict[str, Any] | None = None  # the upstream's own final response
        self._item: dict[str, Any] | None = None  # the first message item
        self._messages: set[str] = set()  # the ids of every message item
        self._current = ""  # the message item whose text is streaming
        self._unread: list[str] = []
        self._at: dict[str, Any] = {"item_id": "", "output_index": 0, "content_index": 0}
        self._text_part = True  # the client has the text part (False: not yet, rendered stream)
        self._citations: list[dict[str, Any]] = []  # the url_citation annotations sent
        self.verifying = True
        self.asks_for_json = False

    @property
    def answer_id(self) -> str | None:
        value = self._snapshot.get("id")
        return value if isinstance(value, str) else None

    def messages(self, body: Mapping[str, Any]) -> list[dict[str, Any]] | UnverifiedRequest:
        text = body.get("text")
        fmt = text.get("format") if isinstance(text, Mapping) else None
        self.asks_for_json = isinstance(fmt, Mapping) and fmt.get("type") in JSON_FORMATS
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
            "".join(
                str(part.get("text", ""))
                for part in item.get("content") or ()
                if isinstance(part, Mapping) and part.get("type") == "output_text"
            )
            for item in _messages(data)
        ]
        return ITEM_SEPARATOR.join(texts) if texts else None

    def unread(self, data: Mapping[str, Any]) -> list[str]:
        """Why what the response holds besides its messages' ``output_text`` is not verified."""
        reasons = [i["reason"] for i in _unverified_items(data)]
        for item in _messages(data):
            for part in item.get("content") or ():
                kind = part.get("type") if isinstance(part, Mapping) else None
                if kind != "output_text":
                    reasons.append(f"a content part of type {str(kind)[:40]!r} is not verified")
        status = data.get("status")
        if status not in ("completed", "incomplete"):
            reasons.append(f"the response's status is {str(status)[:40]!r}, not completed")
        return list(dict.fromkeys(reasons))

    def apply(
        self,
        data: Mapping[str, Any],
        text: str,
        finish: str | None,
        report: Mapping[str, Any],
        *,
        whole: bool = False,
        refusal: str | None = None,
        text_part: bool = False,
        annotations: Sequence[Mapping[str, Any]] = (),
    ) -> dict[str, Any]:
        """The response as the client gets it. A block ends it ``incomplete`` (reason
        ``content_filter``), or, given the policy's message as ``refusal``, ``completed`` with
        the message item's ``refusal`` part: OpenAI's form of a declined answer, which the
        SDKs' stream helpers, ``parse()`` and the Agents SDK read."""
        out = _response_head(data)
        withheld = finish == CONTENT_FILTER
        output: list[dict[str, Any]] = []
        first = True
        for item in data.get("output") or ():
            if isinstance(item, Mapping) and item.get("type") == "message":
                if first:
                    cited = [_url_citation(a) for a in annotations]
                    output.append(
                        _message_item(item, text, refusal, text_part=text_part, cited=cited)
                    )
                first = False
            elif isinstance(item, Mapping) and not withheld:
                output.append(copy.deepcopy(dict(item)))  # unverified, listed, the policy passed it
        out["output"] = output
        if withheld and refusal is not None:
            out["status"] = "completed"
            out["incomplete_details"] = None
        elif withheld:
            out["status"] = "incomplete"
            out["incomplete_details"] = {"reason": CONTENT_FILTER}
        out["verification"] = {**report, "unverified_items": _unverified_items(data)}
        return out

    def delta(self, event: Mapping[str, Any]) -> str | None:
        kind = event.get("type")
        if kind in ("error", "response.failed"):
            raise UpstreamProtocolError("upstream reported an error in the middle of the answer")
        if kind == "response.created" and isinstance(event.get("response"), Mapping):
            self._snapshot = copy.deepcopy(dict(event["response"]))
        elif kind == "response.output_item.added":
            self._item_added(event)
        elif kind == "response.output_text.delta" and event.get("item_id") in self._messages:
            text = event.get("delta")
            if not isinstance(text, str) or not text:
                return None
            if event.get("item_id") != self._current:
                separator = ITEM_SEPARATOR if self._current else ""
                self._current = str(event.get("item_id"))
                return separator + text
            return text
        elif (
            isinstance(kind, str)
            and kind.endswith(".delta")
            and kind != "response.output_text.delta"
        ):
            self._unread.append(f"{kind[:60]} events are not verified")
        elif kind == "response.output_text.delta":
            self._unread.append("text of an output item that is not a message is not verified")
        return None

    def _item_added(self, event: Mapping[str, Any]) -> None:
        item = event.get("item")
        if not isinstance(item, Mapping):
            self._unread.append("an output item is not an object")
        elif item.get("type") == "message":
            self._messages.add(str(item.get("id", "")))
            if self._item is None:
                self._item = copy.deepcopy(dict(item))
                self._at["item_id"] = str(item.get("id", ""))
                self._at["output_index"] = strict_index(event.get("output_index")) or 0
        else:
            self._unread.append(f"{str(item.get('type'))[:40]} items are not verified")

    def take_unread(self) -> list[str]:
        out, self._unread = list(dict.fromkeys(self._unread)), []
        return out

    @property
    def answering(self) -> bool:
        """The answer's message item has been announced (its opening events can be rendered)."""
        return self._item is not None

    def opening_events(self) -> list[dict[str, Any]]:
        """``response.created``, ``response.in_progress`` and, once the message item is known,
        its ``output_item.added`` (its text part comes with the first text), rendered from what
        was parsed: for a stream whose upstream events are not forwarded (gate mode). The SDKs'
        stream helpers need them before any delta."""
        head = {**_response_head(self._snapshot), "status": "in_progress", "output": []}
        events = [
            {"type": "response.created", "response": head},
            {"type": "response.in_progress", "response": head},
        ]
        self._text_part = False  # announced with the first text (see content_events)
        if self._item is not None:
            item = {**_message_item(self._item, ""), "status": "in_progress", "content": []}
            events.append(
                {
                    "type": "response.output_item.added",
                    "output_index": self._at["output_index"],
                    "item": item,
                }
            )
        return events

    def ended(self) -> None:
        if self._completed is None:
            raise UpstreamProtocolError("the upstream stream ended before response.completed")

    def is_terminal(self, event: Mapping[str, Any]) -> bool:
        kind = event.get("type")
        if kind in ("response.completed", "response.incomplete"):
            self._completed = copy.deepcopy(dict(event.get("response") or {}))
            return True
        if kind in ("response.output_text.done", "response.content_part.done"):
            return event.get("item_id") in self._messages
        if kind == "response.output_item.done":
            item = event.get("item")
            return isinstance(item, Mapping) and item.get("id") in self._messages
        return False

    def content_events(self, text: str) -> list[dict[str, Any]]:
        """A text delta; in a rendered stream the first is preceded by its part's
        ``content_part.added`` (announced only once there is text, so a block before any has
        just the refusal part)."""
        head = []
        if not self._text_part:
            self._text_part = True
            part = {"type": "output_text", "text": "", "annotations": []}
            head = [{"type": "response.content_part.added", **self._at, "part": part}]
        delta = {"type": "response.output_text.delta", **self._at, "delta": text, "logprobs": []}
        return [*head, delta]

    def annotation_event(self, annotation: Mapping[str, Any]) -> dict[str, Any]:
        return {"type": SENTENCE_EVENT, **self._at, "annotation": dict(annotation)}

    def citation_events(self, annotations: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
        """``response.output_text.annotation.added`` for each citation a sentence's chunk
        carries (chat-shaped, :mod:`proxy.verification.annotations`), as OpenAI streams one."""
        events = []
        for annotation in annotations:
            cited = _url_citation(annotation)
            events.append(
                {
                    "type": "response.output_text.annotation.added",
                    **self._at,
                    "annotation_index": len(self._citations),
                    "annotation": cited,
                }
            )
            self._citations.append(dict(annotation))
        return events

    def _refusal_events(self, refusal: str | None, after_text: bool) -> list[dict[str, Any]]:
        """A refusal part (after the text part, if any): added, its text, done, as OpenAI
        streams one."""
        if refusal is None:
            return []
        at = {**self._at, "content_index": self._at["content_index"] + int(after_text)}
        return [
            {
                "type": "response.content_part.added",
                **at,
                "part": {"type": "refusal", "refusal": ""},
            },
            {"type": "response.refusal.delta", **at, "delta": refusal},
            {"type": "response.refusal.done", **at, "refusal": refusal},
            {
                "type": "response.content_part.done",
                **at,
                "part": {"type": "refusal", "refusal": refusal},
            },
        ]

    def final_events(
        self,
        text: str,
        finish: str | None,
        report: Mapping[str, Any] | None,
        refusal: str | None = None,
    ) -> list[dict[str, Any]]:
        """The closing events, rebuilt from the text the client was sent. A block's message
        (``refusal``) becomes the item's ``refusal`` part, streamed after its text part, and
        the response ends ``completed`` (see :meth:`apply`)."""
        if refusal is not None and self._item is None:
            # A block with no message item to hold its refusal (a function call asked for JSON
            # output): it ends content_filter, so no unverified item reaches the final event.
            refusal, finish = None, CONTENT_FILTER
        status = "incomplete" if finish == CONTENT_FILTER and refusal is None else "completed"
        events: list[dict[str, Any]] = []
        has_text = self._text_part or refusal is None
        if self._item is not None:
            if not self._text_part and refusal is None:
                events += self.content_events("")[:1]  # an empty answer: its part, announced
            cited = [_url_citation(a) for a in self._citations]
            item = {
                **_message_item(self._item, text, refusal, text_part=has_text, cited=cited),
                "status": status,
            }
            part = {"type": "output_text", "text": text, "annotations": cited}
            text_done = [
                {"type": "response.output_text.done", **self._at, "text": text, "logprobs": []},
                {"type": "response.content_part.done", **self._at, "part": part},
            ]
            events += [
                *(text_done if has_text else []),
                *self._refusal_events(refusal, has_text),
                {
                    "type": "response.output_item.done",
                    "output_index": self._at["output_index"],
                    "item": item,
                },
            ]
        final = self._completed or {**self._snapshot, "output": [self._item] if self._item else []}
        final = self.apply(
            final,
            text,
            finish,
            report or {},
            refusal=refusal,
            text_part=has_text,
            annotations=self._citations,
        )
        kind = (
            "response.incomplete" if final.get("status") == "incomplete" else "response.completed"
        )
        events.append({"type": kind, "response": final})
        return events


ITEM_SEPARATOR = "\n\n"  # between message items: the segmenter always splits here
RESPONSE_FIELDS = (
    "id",
    "created_at",
    "status",
    "incomplete_details",
    "instructions",
    "max_output_tokens",
    "model",
    "parallel_tool_calls",
    "previous_response_id",
    "reasoning",
    "store",
    "temperature",
    "text",
    "tool_choice",
    "tools",
    "top_p",
    "truncation",
    "user",
    "metadata",
    "background",
    "service_tier",
)


def _response_head(data: Mapping[str, Any]) -> dict[str, Any]:
    """A response's known fields (:data:`RESPONSE_FIELDS`), its usage counts and error code."""
    out = {k: copy.deepcopy(data[k]) for k in RESPONSE_FIELDS if k in data}
    out["object"] = "response"
    out["usage"] = render.usage(data.get("usage"))
    error = data.get("error")
    code = error.get("code") if isinstance(error, Mapping) else None
    out["error"] = {"code": code, "message": "the upstream failed"} if code else None
    return out


def _message_item(
    item: Mapping[str, Any],
    text: str,
    refusal: str | None = None,
    *,
    text_part: bool = False,
    cited: Sequence[Mapping[str, Any]] = (),
) -> dict[str, Any]:
    """A message item holding an ``output_text`` part (the verified text, with ``cited``, its
    annotations) and with a block's ``refusal`` a ``refusal`` part; a refusal alone has no
    empty text part (``parse()`` would read it as JSON) unless ``text_part`` (a stream
    announced it)."""
    content: list[dict[str, Any]] = []
    if text or refusal is None or text_part:
        content.append(
            {"type": "output_text", "text": text, "annotations": [dict(c) for c in cited]}
        )
    if refusal is not None:
        content.append({"type": "refusal", "refusal": refusal})
    return {
        "type": "message",
        "id": str(item.get("id", "")),
        "status": str(item.get("status") or "completed"),
        "role": "assistant",
        "content": content,
    }


def _url_citation(annotation: Mapping[str, Any]) -> dict[str, Any]:
    """A chat-shaped ``url_citation`` annotation as a Responses ``output_text`` part holds it
    (its fields beside its type; no stream ``index``)."""
    fields = annotation.get("url_citation")
    return {"type": "url_citation", **(fields if isinstance(fields, Mapping) else {})}


def _completion_choice(choice: Mapping[str, Any]) -> dict[str, Any]:
    text = choice.get("text")
    return {
        "text": text if isinstance(text, str) else "",
        "index": strict_index(choice.get("index")) or 0,
        "logprobs": None,
        "finish_reason": render.finish_reason(choice.get("finish_reason")),
    }


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
