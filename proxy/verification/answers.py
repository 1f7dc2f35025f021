"""Tool calls and structured (JSON) answers: their string values as verifiable texts.

:mod:`proxy.verification.shapes` says what of each choice is text; this module reads one
assistant message whole, tool calls and JSON included. A plain-text answer is one text. A JSON
answer (``response_format`` ``json_object`` or ``json_schema``) and each tool call's
``arguments`` are parsed, and every string value in them is a text of its own, located by a
JSONPath over the message in which a JSON string (the content, a call's arguments) reads as its
parsed value: ``$.content.findings[0].text``, ``$.tool_calls[0].function.arguments.summary``.
Keys are not verified; numbers and booleans are not prose, and the report notes their paths.
A string under a ``pmid``/``pmids`` key that is a bare number is read as ``PMID <n>``, so a
fabricated PMID in a tool call meets the citation check.

What cannot be read (arguments or a JSON answer that do not parse, a tool call holding no text,
a call that is not a function call, audio) becomes an :class:`Unverifiable` reason: the report
says ``unverified`` and the policy's ``on_verifier_error`` decides -- never a silent "verified".

Redaction works value by value (:func:`redact_message`): a redacted sentence's words inside a
string are replaced by the policy's message and the JSON is written back whole, so it stays
valid and keeps the client's schema.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from proxy.verification.shapes import ANSWER_FIELDS, UNREAD_FIELDS, content_text, unknown_fields
from verifiers import SentenceAnnotation, StrippedQuote

SEPARATOR = "\n\n"  # the segmenter always splits here, so no sentence spans two values
PMID_PREFIX = "PMID "
_PMID_KEY = re.compile(r"(.*_)?pmids?", re.IGNORECASE)
_BARE_PMID = re.compile(r"\d{1,9}")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

Key = str | int


class UnverifiedReason(StrEnum):
    """Why part of an answer was not verified (a bounded metric label)."""

    INVALID_JSON = "invalid_json"
    NO_TEXT = "no_text"
    UNSUPPORTED_SHAPE = "unsupported_shape"


@dataclass(frozen=True, slots=True)
class Unverifiable:
    reason: UnverifiedReason
    detail: str  # for the report and the audit log; never the answer's words


@dataclass(frozen=True, slots=True)
class Part:
    """One verifiable text. ``call`` is the tool call's position (None: the content); ``keys``
    lead to the string inside the parsed JSON; ``structured`` is False for plain-text content."""

    value: str
    call: int | None = None
    keys: tuple[Key, ...] = ()
    structured: bool = False
    prefix: str = ""  # read before the value (a bare PMID becomes "PMID 123")

    @property
    def text(self) -> str:
        return self.prefix + self.value

    @property
    def path(self) -> str | None:
        if not self.structured:
            return None
        base = "$.content" if self.call is None else f"$.tool_calls[{self.call}].function.arguments"
        return base + "".join(_step(k) for k in self.keys)


@dataclass(frozen=True, slots=True)
class AnswerTexts:
    """The verifiable texts of one answer, what could not be verified, and notes."""

    parts: tuple[Part, ...] = ()
    unverifiable: tuple[Unverifiable, ...] = ()
    notes: tuple[str, ...] = ()
    # Quotes taken out of the plain-text content (``quotes_in_text: strip``), at the offsets of
    # their bare brackets in :attr:`text` (the content is its first part).
    quotes: tuple[StrippedQuote, ...] = ()

    @property
    def text(self) -> str:
        """All parts joined, as the verifier reads them."""
        return SEPARATOR.join(p.text for p in self.parts)

    @property
    def error(self) -> str | None:
        """Every reason in one line, or None when all of the answer was readable."""
        return "; ".join(u.detail for u in self.unverifiable) or None

    def locate(self, sentences: Iterable[SentenceAnnotation]) -> list[SentenceAnnotation]:
        """Sentences of :attr:`text` with their JSON path and offsets into their own value
        (a plain-text answer's sentences come back unchanged)."""
        out = []
        for s in sentences:
            start, part = self._part_at(s.start)
            shift = start + len(part.prefix)
            if not part.structured:
                out.append(replace(s, start=s.start - shift, end=s.end - shift))
                continue
            end = min(len(part.value), max(0, s.end - shift))
            out.append(replace(s, start=max(0, s.start - shift), end=end, path=part.path))
        return out

    def _part_at(self, offset: int) -> tuple[int, Part]:
        start = 0
        for part in self.parts:
            end = start + len(part.text)
            if offset < end + len(SEPARATOR):
                return start, part
            start = end + len(SEPARATOR)
        return start, self.parts[-1]


def answer_texts(message: Mapping[str, Any], *, json_content: bool) -> AnswerTexts:
    """The verifiable texts of an assistant message (or of a streamed one, accumulated).
    ``json_content``: the request asked for a JSON answer (``response_format``)."""
    parts: list[Part] = []
    gaps: list[Unverifiable] = []
    notes: list[str] = []
    content = message.get("content")
    if json_content and isinstance(content, str) and content.strip():
        try:
            doc = strict_json(content)
        except ValueError:
            parts.append(Part(content))
            detail = "the answer should be JSON but does not parse (or has a key twice)"
            gaps.append(Unverifiable(UnverifiedReason.INVALID_JSON, detail))
        else:
            _collect(doc, None, parts, notes)
    else:
        text, reasons, _ = content_text(content)  # a string, or a list of content parts
        if text:
            parts.append(Part(text))
        gaps.extend(Unverifiable(UnverifiedReason.UNSUPPORTED_SHAPE, r) for r in reasons)
    for i, call in enumerate(message.get("tool_calls") or ()):
        gap = _read_call(i, call, parts, notes)
        if gap is not None:
            gaps.append(gap)
    for name, reason in UNREAD_FIELDS.items():
        if message.get(name):
            gaps.append(Unverifiable(UnverifiedReason.UNSUPPORTED_SHAPE, reason))
    for reason in unknown_fields("message", message, ANSWER_FIELDS):
        gaps.append(Unverifiable(UnverifiedReason.UNSUPPORTED_SHAPE, reason))
    return AnswerTexts(tuple(parts), tuple(gaps), tuple(notes))


def strict_json(text: str) -> Any:
    """``json.loads``, refusing an object with a key twice: a parser keeps one of the values
    and a client's parser may keep the other, so what was verified would not be what it reads."""
    return json.loads(text, object_pairs_hook=_unique_keys)


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError("an object has a key twice")
        out[key] = value
    return out


def _read_call(i: int, call: Any, parts: list[Part], notes: list[str]) -> Unverifiable | None:
    function = call.get("function") if isinstance(call, Mapping) else None
    arguments = function.get("arguments") if isinstance(function, Mapping) else None
    if not isinstance(function, Mapping) or not isinstance(arguments, str):
        detail = f"tool call {i} is not a function call with arguments"
        return Unverifiable(UnverifiedReason.UNSUPPORTED_SHAPE, detail)
    name = str(function.get("name"))[:64]
    try:
        doc = strict_json(arguments) if arguments.strip() else {}
    except ValueError:
        detail = f"the arguments of tool call {i} ({name}) are not valid JSON with unique keys"
        return Unverifiable(UnverifiedReason.INVALID_JSON, detail)
    if not _collect(doc, i, parts, notes):
        detail = f"tool call {i} ({name}) holds no text to verify"
        return Unverifiable(UnverifiedReason.NO_TEXT, detail)
    return None


def _collect(doc: Any, call: int | None, parts: list[Part], notes: list[str]) -> int:
    """Add the string values of ``doc`` to ``parts`` and notes for its numbers and booleans;
    returns how many strings were found."""
    found = 0
    for leaf in _leaves(doc, call):
        if isinstance(leaf, Part):
            parts.append(leaf)
            found += 1
        else:
            notes.append(f"not verified (not text): {leaf}")
    return found


def _leaves(doc: Any, call: int | None, keys: tuple[Key, ...] = ()) -> Iterator[Part | str]:
    """String values as parts; the paths of numbers and booleans as strings."""
    if isinstance(doc, Mapping):
        for key, value in doc.items():
            yield from _leaves(value, call, (*keys, str(key)))
    elif isinstance(doc, list):
        for index, value in enumerate(doc):
            yield from _leaves(value, call, (*keys, index))
    elif isinstance(doc, str):
        if doc.strip():
            yield Part(doc, call, keys, True, PMID_PREFIX if _is_bare_pmid(keys, doc) else "")
    elif isinstance(doc, (int, float)):  # bool is an int
        yield Part("", call, keys, True).path or ""


def _is_bare_pmid(keys: tuple[Key, ...], value: str) -> bool:
    named = next((k for k in reversed(keys) if isinstance(k, str)), "")
    return bool(_PMID_KEY.fullmatch(named)) and _BARE_PMID.fullmatch(value.strip()) is not None


def _step(key: Key) -> str:
    if isinstance(key, int):
        return f"[{key}]"
    return f".{key}" if _IDENTIFIER.fullmatch(key) else f"[{json.dumps(key)}]"


# -- redaction ------------------------------------------------------------------------------


def redact_message(
    message: Mapping[str, Any],
    texts: AnswerTexts,
    redacted: Sequence[SentenceAnnotation],
    message_for: Callable[[SentenceAnnotation], str | None],
) -> dict[str, Any]:
    """``message`` with each redacted sentence's words replaced by its policy message, inside
    the string value that holds them; JSON content and arguments are re-serialised, so they
    stay valid. ``redacted`` are located sentences (see :meth:`AnswerTexts.locate`)."""
    out = dict(message)
    by_path: dict[str | None, list[SentenceAnnotation]] = {}
    for s in redacted:
        by_path.setdefault(s.path, []).append(s)
    docs: dict[int | None, Any] = {}
    for part in texts.parts:
        sentences = by_path.get(part.path)
        if not sentences:
            continue
        new = _replace_spans(part.value, sentences, message_for)
        if not part.structured:
            out["content"] = new
            continue
        if part.call not in docs:
            docs[part.call] = json.loads(_json_source(out, part.call))
        docs[part.call] = _set(docs[part.call], part.keys, new)
    for call, doc in docs.items():
        text = json.dumps(doc, ensure_ascii=False)
        if call is None:
            out["content"] = text
            continue
        calls = [dict(c) for c in out["tool_calls"]]
        calls[call]["function"] = {**calls[call]["function"], "arguments": text}
        out["tool_calls"] = calls
    return out


def _json_source(message: Mapping[str, Any], call: int | None) -> str:
    if call is None:
        return str(message["content"])
    return str(message["tool_calls"][call]["function"]["arguments"] or "{}")


def _replace_spans(
    value: str,
    sentences: Sequence[SentenceAnnotation],
    message_for: Callable[[SentenceAnnotation], str | None],
) -> str:
    pieces: list[str] = []
    cursor = 0
    for s in sorted(sentences, key=lambda s: s.start):
        pieces.append(value[cursor : s.start])
        pieces.append(message_for(s) or "")
        cursor = max(cursor, s.end)
    pieces.append(value[cursor:])
    return "".join(pieces)


def _set(doc: Any, keys: tuple[Key, ...], value: str) -> Any:
    if not keys:
        return value
    head, rest = keys[0], keys[1:]
    if isinstance(doc, list) and isinstance(head, int):
        return [_set(v, rest, value) if i == head else v for i, v in enumerate(doc)]
    if isinstance(doc, dict):
        return {k: _set(v, rest, value) if k == head else v for k, v in doc.items()}
    return doc
