"""What a verified stream is made of, before any API shape gives it bytes.

The stream modes (:mod:`proxy.verification.streams`) and the other choices
(:mod:`proxy.verification.choices`) yield these typed events; each API shape renders them at
its edge: chat chunks (:mod:`proxy.verification.chunks`), and from the chat chunks, which carry
the event they render, legacy completions and Responses events (:mod:`proxy.dialect_service`).
Nothing downstream reads a verification payload back out of a dict.

Each event is about choice 0 unless its ``choice`` says otherwise (``n > 1``: the other
choices are released whole, after choice 0, :mod:`proxy.verification.choices`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from policies import DecidedReport, DecidedSentence, SentenceDecision, withhold
from proxy.streaming import StreamChunk
from proxy.verification.annotations import UrlCitation

if TYPE_CHECKING:
    from proxy.verification.session import Outcome


@dataclass(frozen=True, slots=True)
class Opened:
    """The upstream's envelope (id, created, model, ...), which every rendered chunk copies;
    sent once, before anything else is rendered."""

    envelope: Mapping[str, Any]
    choice: int = 0


@dataclass(frozen=True, slots=True)
class Forward:
    """Annotate mode: an upstream chunk the client gets as the upstream sent it, or an upstream
    comment; ``text``: choice 0's text as the client reads it, when the proxy rewrote the chunk
    (quotes stripped from it)."""

    chunk: StreamChunk
    text: str | None = None


@dataclass(frozen=True, slots=True)
class KeepAlive:
    """Gate mode: the upstream sent a comment; its words are not the proxy's to send."""


@dataclass(frozen=True, slots=True)
class Role:
    """The answer's role, at once (gate mode)."""


@dataclass(frozen=True, slots=True)
class Content:
    """Text of the answer as the client reads it, with its token log-probabilities (``tokens``:
    OpenAI's entries, None: none go)."""

    text: str
    tokens: Sequence[Mapping[str, Any]] | None = None
    choice: int = 0


@dataclass(frozen=True, slots=True)
class OtherChoice:
    """Another choice's delta (role, content as the client may read it, its citations) with
    the ``logprobs`` of the text shown as written, released whole once it is verified."""

    index: int
    delta: Mapping[str, Any]
    logprobs: object = None


@dataclass(frozen=True, slots=True)
class Sentence:
    """One verified sentence, as the client may see it (withheld when the policy kept its words
    back), and the policy's decision for it, made once."""

    annotation: DecidedSentence
    decision: SentenceDecision
    choice: int = 0

    def withheld(self) -> Sentence:
        """This sentence with its words kept back (``policies.withhold``): its verdict stays,
        its text becomes the policy's message."""
        return Sentence(withhold(self.annotation, self.decision), self.decision, self.choice)


@dataclass(frozen=True, slots=True)
class Report:
    """The end of verification: the session's ``outcome`` (the report with the policy applied,
    as the audit log keeps it), the report as the client may see it (``shown``: the words of
    sentences it was not shown withheld) and the citations of the text it was shown, each at its
    place in the client's text (:mod:`proxy.verification.annotations`)."""

    outcome: Outcome
    shown: DecidedReport
    citations: tuple[UrlCitation, ...] = ()
    choice: int = 0


@dataclass(frozen=True, slots=True)
class BlockMessage:
    """The policy's block message after what the client has (``separator`` between them); in a
    structured answer it is the answer's ``refusal``, never its text."""

    message: str
    separator: str = ""
    structured: bool = False


@dataclass(frozen=True, slots=True)
class ToolCalls:
    """Whole tool calls (gate mode releases them once their arguments are verified)."""

    calls: Sequence[Mapping[str, Any]]


@dataclass(frozen=True, slots=True)
class Unread:
    """Fields understood but not verified (a refusal, reasoning, a legacy function call),
    rendered by :mod:`proxy.verification.render`, sent whole at the end of a released answer."""

    fields: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class Finish:
    """The answer's ``finish_reason``; ``upstream``: annotate mode's held finish chunk, sent as
    the upstream wrote it but for the reason."""

    reason: str
    upstream: Mapping[str, Any] | None = None
    choice: int = 0


@dataclass(frozen=True, slots=True)
class Usage:
    """The upstream's token counts, last: rendered from ``counts`` (gate mode), or the
    upstream's own usage chunk (``upstream``, annotate mode)."""

    counts: Mapping[str, Any] = field(default_factory=dict)
    upstream: Mapping[str, Any] | None = None


StreamEvent = (
    Opened
    | Forward
    | KeepAlive
    | Role
    | Content
    | OtherChoice
    | Sentence
    | Report
    | BlockMessage
    | ToolCalls
    | Unread
    | Finish
    | Usage
)
