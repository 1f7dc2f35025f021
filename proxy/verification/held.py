"""What a stream mode reads of choice 0 and holds until the upstream is done.

Choice 0 is read strictly (:func:`~proxy.verification.shapes.streamed_choices`): its text
deltas go to the sentence stream, quotes taken out as the client reads them
(:mod:`proxy.verification.quotes`); the fragments of tool calls and of a JSON answer are
collected and verified whole at the end (:mod:`proxy.verification.answers`); the fields
understood but not verified (a refusal, reasoning, a legacy function call), what could not be
read, the finish reason and the usage counts wait for the end too.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from proxy.settings.retrieval import QuoteDisplay
from proxy.verification import render
from proxy.verification.answers import AnswerTexts, Unverifiable, UnverifiedReason, answer_texts
from proxy.verification.chunks import finish_reason, split_tail, with_content
from proxy.verification.events import Finish, Unread, Usage
from proxy.verification.quotes import StreamQuotes
from proxy.verification.shapes import CONTENT_FILTER, streamed_choices
from verifiers import StrippedQuote
from verifiers.quoting.stream import Rewritten, as_written


@dataclass(frozen=True, slots=True)
class StreamShape:
    """What the request asked for: ``json_content`` -- the answer's content is JSON;
    ``structured`` -- a structured answer (JSON or a forced tool call), whose block is declined
    with a refusal; and what the client reads of a quoted citation (``quotes``,
    :mod:`proxy.verification.quotes`)."""

    json_content: bool = False
    structured: bool = False
    quotes: QuoteDisplay = QuoteDisplay.STRIP


@dataclass(frozen=True, slots=True)
class Text:
    """Choice 0's text in one chunk, as the client reads it, and its token log-probabilities;
    ``spelled``: False when the stripper held or rewrote any of it (the tokens then spell
    words the client does not read as written, and go nowhere)."""

    text: str
    logprobs: object = None
    spelled: bool = True


class Held:
    """What is read of choice 0 and waits for the end of the upstream stream: the fragments of
    tool calls and of a JSON answer (verified whole), the fields understood but not verified,
    what could not be read, and the upstream's finish and usage."""

    def __init__(self, shape: StreamShape) -> None:
        self.shape = shape
        self.json = ""
        self.calls: dict[int, dict[str, Any]] = {}
        self._unread: dict[str, list[Any]] = {}
        self.reasons: list[str] = []
        self.role = False
        self.finish_reason: str | None = None
        self.usage: dict[str, Any] | None = None
        self.tail: list[Finish | Usage] = []  # annotate mode: the upstream's own closing chunks
        self._stripper = StreamQuotes(shape.quotes)
        self._quotes: list[StrippedQuote] = []  # taken out, not yet handed to the verifier
        self._rewritten: list[Rewritten] = []  # the brackets stripped, as the model wrote them

    def read(self, data: Mapping[str, Any]) -> list[Text]:
        """Read a chunk strictly: the text deltas of choice 0 (for the sentence stream), each
        with its logprobs, quotes taken out. Every other entry here has an index that is not
        an integer (those with one were taken out by :mod:`proxy.verification.choices`): it is
        not read."""
        out: list[Text] = []
        for choice in streamed_choices(data):
            self.reasons.extend(choice.reasons)
            if choice.index != 0:
                continue
            self.role = self.role or choice.role
            text = choice.text
            if self.shape.json_content:
                self.json += text
                text = ""
            for fragment in choice.tool_calls:
                self._add_call(fragment)
            for name, value in choice.unread:
                self._unread.setdefault(name, []).append(value)
            self.finish_reason = choice.finish or self.finish_reason
            out.append(self._visible(text, choice.logprobs))
        self.usage = render.usage(data.get("usage")) or self.usage
        return out

    def _visible(self, text: str, logprobs: object) -> Text:
        if not text:
            return Text(text, logprobs)
        stripped = self._stripper.feed(text)
        self._quotes.extend(stripped.quotes)
        self._rewritten.extend(stripped.rewritten)
        if stripped.text == text:
            return Text(text, logprobs)
        return Text(stripped.text, None, spelled=False)

    def flush(self) -> str:
        """The end of choice 0's text: what the quote stripper still held, released."""
        rest = self._stripper.flush()
        self._quotes.extend(rest.quotes)
        self._rewritten.extend(rest.rewritten)
        return rest.text

    def as_written(self, text: str, offset: int) -> str:
        """``text``, the client's text from ``offset`` on, with the brackets stripped in it
        put back as the model wrote them (gate mode releasing text nothing verified)."""
        return as_written(text, offset, self._rewritten)

    def keep_quotes(self) -> str:
        """Verification stopped: no annotation will carry a quote from here on, so the text
        keeps them (nothing the model wrote is lost). Returns what the stripper held, as
        written; empty once called."""
        rest = self._stripper.stop()
        self._quotes.clear()  # they would never reach the verifier
        return rest.text

    def take_quotes(self) -> tuple[StrippedQuote, ...]:
        """The quotes taken out of the text read since the last call (for the verifier)."""
        taken, self._quotes = tuple(self._quotes), []
        return taken

    def collect(self, data: Mapping[str, Any]) -> tuple[str, dict[str, Any] | None]:
        """Annotate mode: read the chunk and hold its tail; returns the chunk's text delta and
        what of the chunk goes on at once (annotate delivers as it streams), its text as the
        client reads it."""
        texts = self.read(data)
        delta = "".join(t.text for t in texts)
        now, held = split_tail(data)
        if held is not None and held.get("choices"):
            self.tail.append(Finish(finish_reason(data) or "", upstream=held))
        elif held is not None:
            self.tail.append(Usage(upstream=held))
        if now is not None and not all(t.spelled for t in texts):
            now = with_content(now, delta)
        return delta, now

    def _add_call(self, fragment: Mapping[str, Any]) -> None:
        index = fragment.get("index", 0)
        call = self.calls.setdefault(index if isinstance(index, int) else 0, {"function": {}})
        for key in ("id", "type"):
            if isinstance(fragment.get(key), str):
                call[key] = fragment[key]
        function = fragment.get("function")
        if isinstance(function, Mapping):
            own = call["function"]
            if isinstance(function.get("name"), str):
                own["name"] = own.get("name", "") + function["name"]
            if isinstance(function.get("arguments"), str):
                own["arguments"] = own.get("arguments", "") + function["arguments"]

    @property
    def message(self) -> dict[str, Any]:
        """The structured part of the answer as a message (the text content is not in it)."""
        calls = [
            {
                **call,
                "type": call.get("type", "function"),
                "function": {"arguments": "", **call["function"]},
            }
            for _, call in sorted(self.calls.items())
        ]
        return {"content": self.json or None, "tool_calls": calls}

    def texts(self) -> AnswerTexts | None:
        gaps = tuple(
            Unverifiable(UnverifiedReason.UNSUPPORTED_SHAPE, r) for r in dict.fromkeys(self.reasons)
        )
        if not self.json and not self.calls:
            return AnswerTexts(unverifiable=gaps) if gaps else None
        texts = answer_texts(self.message, json_content=self.shape.json_content)
        return replace(texts, unverifiable=(*texts.unverifiable, *gaps))

    def unread(self) -> Unread | None:
        """The fields understood but not verified, whole (gate mode sends them only when the
        answer is not withheld)."""
        joined: dict[str, Any] = {}
        for name in ("refusal", "reasoning_content"):
            values = self._unread.get(name, [])
            joined[name] = "".join(v for v in values if isinstance(v, str))
        call = {"name": "", "arguments": ""}
        for fragment in self._unread.get("function_call", []):
            for key in call:
                if isinstance(fragment, Mapping) and isinstance(fragment.get(key), str):
                    call[key] += fragment[key]
        if any(call.values()):
            joined["function_call"] = call
        fields = render.unread_fields(joined)
        return Unread(fields) if fields else None

    def held_end(self, *, blocked: bool) -> list[Finish | Usage]:
        """Annotate mode: the upstream's held finish and usage; a block says
        ``content_filter``."""
        out = [
            replace(t, reason=CONTENT_FILTER) if blocked and isinstance(t, Finish) else t
            for t in self.tail
        ]
        if blocked and not any(isinstance(t, Finish) for t in self.tail):
            out.insert(0, Finish(CONTENT_FILTER))
        return out

    def end(self) -> list[Finish | Usage]:
        """Gate mode: the finish reason and the usage counts, as read."""
        out: list[Finish | Usage] = [Finish(render.finish_reason(self.finish_reason))]
        if self.usage is not None:
            out.append(Usage(self.usage))
        return out
