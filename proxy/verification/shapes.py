"""The shape of a completion: which choices it has, and which of them carry a message to read.

:func:`choice_shapes` turns ``choices`` into one :class:`ChoiceShape` per entry, in order: its
index, its message, or why there is none to read (the choice or its ``message`` is not an
object; a completion without ``choices`` is reported as choice 0 with that reason). Every
choice is verified on its own (``n > 1``); a choice that cannot be read is reported
``unverified`` with the reason and the policy's ``on_verifier_error`` decides -- never a
silent pass. What of a message is text is :func:`content_text` (a string, or the ``text``
parts of a parts list); the rest of a message (tool calls, JSON answers) is read by
:mod:`proxy.verification.answers`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

TEXT_PART_SEPARATOR = "\n\n"
NO_TEXT = "the answer has no text content"
NO_CHOICES = "the completion has no choices"
CONTENT_FILTER = "content_filter"  # the finish_reason of an answer a policy withheld
STOP = "stop"  # ... and of a JSON answer it declined with a refusal
# Message and delta fields the proxy understands but the verifier does not read: each makes
# the answer ``unverified``; they are sent only when the policy does not withhold the answer.
UNREAD_FIELDS = {
    "function_call": "function-call arguments are not verified",
    "audio": "audio output is not verified",
    "refusal": "a refusal is not verified",
    "reasoning_content": "reasoning content is not verified",
}
TOOL_CALLS_UNREAD = "tool-call arguments are not verified"
# The chat view of another API (proxy.dialect_service) lists here, in a message or a delta,
# what of the answer it could not read: each entry is a reason the answer is not verified.
UNREAD_KEY = "veriproxy_unread"
ANSWER_FIELDS = frozenset({"role", "content", "tool_calls", UNREAD_KEY, *UNREAD_FIELDS})
CHOICE_FIELDS = frozenset({"index", "message", "delta", "logprobs", "finish_reason"})
FINISH_REASONS = frozenset({"stop", "length", "tool_calls", "content_filter", "function_call"})


@dataclass(frozen=True, slots=True)
class ChoiceShape:
    """One entry of ``choices``: its ``index``, and its ``message`` or why it has none."""

    index: int
    message: Mapping[str, Any] | None
    reason: str | None = None
    unknown: tuple[str, ...] = ()  # reasons: fields of the choice that are never sent


def choice_shapes(completion: Mapping[str, Any]) -> tuple[ChoiceShape, ...]:
    """One :class:`ChoiceShape` per entry of ``choices``, in order (at least one)."""
    choices = completion.get("choices")
    if not isinstance(choices, list) or not choices:
        return (ChoiceShape(0, None, NO_CHOICES),)
    return tuple(_shape(position, choice) for position, choice in enumerate(choices))


def strict_index(value: object) -> int | None:
    """A choice's ``index`` when it is a non-negative integer (not ``1.0``, ``"1"``, ``true``)."""
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    return None


def present(value: object) -> bool:
    """A field carries something (``null``, ``""``, ``[]`` and ``{}`` carry nothing)."""
    return value is not None and value != "" and value != [] and value != {}


def unknown_fields(kind: str, value: Mapping[str, Any], known: frozenset[str]) -> list[str]:
    """A reason for each field of ``value`` that the proxy does not understand and that carries
    something (it is never sent, and the answer is not ``verified``), and the reasons a chat
    view lists under :data:`UNREAD_KEY`."""
    listed = value.get(UNREAD_KEY)
    return [
        *(str(r)[:200] for r in (listed if isinstance(listed, list) else ())),
        *(
            f"{kind} field {str(k)[:40]!r} is not understood"
            for k, v in value.items()
            if k not in known and present(v)
        ),
    ]


def _shape(position: int, choice: object) -> ChoiceShape:
    if not isinstance(choice, Mapping):
        return ChoiceShape(position, None, f"choice {position} is not an object")
    index = strict_index(choice.get("index", position))
    if index is None:
        return ChoiceShape(position, None, f"the index of choice {position} is not an integer")
    message = choice.get("message")
    if not isinstance(message, Mapping):
        return ChoiceShape(index, None, f"the message of choice {index} is not an object")
    return ChoiceShape(
        index, message, unknown=tuple(unknown_fields("choice", choice, CHOICE_FIELDS))
    )


def content_text(content: object) -> tuple[str, tuple[str, ...], bool]:
    """``(text, reasons, was a parts list)`` of a message's or a delta's ``content``: the
    ``text`` parts of a parts list are joined by blank lines; any other part is a reason."""
    if content is None:
        return "", (), False
    if isinstance(content, str):
        return content, (), False
    if not isinstance(content, list):
        return "", (f"content of type {type(content).__name__} is not verified",), False
    texts: list[str] = []
    reasons: list[str] = []
    for part in content:
        kind = part.get("type") if isinstance(part, Mapping) else None
        text = part.get("text") if isinstance(part, Mapping) else None
        if kind == "text" and isinstance(text, str):
            texts.append(text)
        else:
            reasons.append(f"a content part of type {str(kind)[:40]!r} is not verified")
    return TEXT_PART_SEPARATOR.join(texts), tuple(dict.fromkeys(reasons)), True


def message_text(shape: ChoiceShape) -> str:
    """The plain text of a choice's content, as far as it has any (for the audit log)."""
    if shape.message is None:
        return ""
    return content_text(shape.message.get("content"))[0]


JSON_FORMATS = ("json_object", "json_schema")


def asks_for_json(body: Mapping[str, Any]) -> bool:
    """The request asked for a JSON answer (``response_format`` ``json_object``/``json_schema``)."""
    fmt = body.get("response_format")
    return isinstance(fmt, Mapping) and fmt.get("type") in JSON_FORMATS


def asks_for_structure(body: Mapping[str, Any]) -> bool:
    """The request asked for a structured answer: JSON, or a tool call it forces
    (``tool_choice`` ``"required"`` or a named function), which structured-output clients
    (instructor's TOOLS mode, ``parse()`` with a function tool) read as their object. A block of
    such an answer is declined with a ``refusal``, as OpenAI declines one: text in its place
    would be read as a malformed object (and retried)."""
    choice = body.get("tool_choice")
    forced = choice == "required" or (
        isinstance(choice, Mapping) and choice.get("type") == "function"
    )
    return forced or asks_for_json(body)


@dataclass(frozen=True, slots=True)
class StreamedChoice:
    """One entry of a stream chunk's ``choices``, read strictly. ``index`` is None when it is
    not a non-negative integer (then nothing of the entry is read); ``reasons`` say what of it
    cannot be verified; ``unread`` holds the fields understood but not verified."""

    index: int | None
    text: str = ""
    role: bool = False
    tool_calls: tuple[Mapping[str, Any], ...] = ()
    logprobs: object = None
    finish: str | None = None
    unread: tuple[tuple[str, Any], ...] = ()
    reasons: tuple[str, ...] = ()


def streamed_choices(data: Mapping[str, Any]) -> tuple[StreamedChoice, ...]:
    """The entries of a chunk's ``choices`` (none when it has no list of them)."""
    choices = data.get("choices")
    return tuple(_streamed(c) for c in choices) if isinstance(choices, list) else ()


def _streamed(choice: object) -> StreamedChoice:
    if not isinstance(choice, Mapping):
        return StreamedChoice(None, reasons=("a streamed choice is not an object",))
    index = strict_index(choice.get("index"))
    if index is None:
        return StreamedChoice(None, reasons=("a streamed choice's index is not an integer",))
    reasons = unknown_fields("choice", choice, CHOICE_FIELDS - {"message"})
    delta = choice.get("delta")
    if delta is None:
        delta = {}
    if not isinstance(delta, Mapping):
        return StreamedChoice(index, reasons=(*reasons, "a streamed delta is not an object"))
    text, parts, _ = content_text(delta.get("content"))
    calls = delta.get("tool_calls")
    unread = tuple((k, delta[k]) for k in UNREAD_FIELDS if present(delta.get(k)))
    finish = choice.get("finish_reason")
    return StreamedChoice(
        index,
        text,
        role=present(delta.get("role")),
        tool_calls=tuple(c for c in calls if isinstance(c, Mapping))
        if isinstance(calls, list)
        else (),
        logprobs=choice.get("logprobs"),
        finish=finish if isinstance(finish, str) else None,
        unread=unread,
        reasons=(
            *reasons,
            *parts,
            *(UNREAD_FIELDS[k] for k, _ in unread),
            *unknown_fields("delta", delta, ANSWER_FIELDS),
        ),
    )
