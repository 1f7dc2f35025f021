"""Verifying a non-streamed completion: every choice, whatever its shape.

Each entry of ``choices`` gets its own session (``n > 1``: every choice is verified, and each
gets its own audit record) and is enforced on its own (:func:`enforce_on_choice`). What a
choice holds is read by :mod:`proxy.verification.shapes` (which choices, which messages) and
:mod:`proxy.verification.answers` (text, parts, JSON, tool calls); a choice with nothing to
read -- no message, a message that is not an object, no text at all, a completion without
choices -- is verified as an empty answer with the reason, so it comes out ``unverified`` and
the policy's ``on_verifier_error`` decides (``closed``: the choice is replaced by the policy's
message and ``finish_reason: "content_filter"``).

The completion's top-level ``verification`` is the report of its first choice, as before; with
more than one choice every choice object also carries its own ``verification``. The headers
give the most severe status over the choices, the highest risk and the lowest support.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from policies import DecidedReport, ReportStatus
from proxy.settings.retrieval import QuoteDisplay
from proxy.verification import render
from proxy.verification.answers import AnswerTexts, Unverifiable, UnverifiedReason, answer_texts
from proxy.verification.quotes import strip_entry
from proxy.verification.redact import enforce_on_choice
from proxy.verification.session import Outcome, VerificationSession
from proxy.verification.shapes import NO_TEXT, ChoiceShape, choice_shapes
from verifiers import StrippedQuote, to_json

# Most severe first: the header of a completion with several choices shows the worst.
SEVERITY = (
    ReportStatus.BLOCKED,
    ReportStatus.REDACTED,
    ReportStatus.UNVERIFIED,
    ReportStatus.FLAGGED,
    ReportStatus.NEEDS_REVIEW,
    ReportStatus.VERIFIED,
)

NewSession = Callable[[int], VerificationSession]  # a fresh session for choice ``index``
Record = Callable[[Outcome, str], None]  # audit one choice: its outcome and its text


@dataclass(frozen=True, slots=True)
class VerifiedCompletion:
    body: dict[str, Any]
    headers: dict[str, str]
    report: DecidedReport  # the first choice's, as the client gets it
    evidence_of: VerificationSession  # the first choice's session (its evidence)


async def verify_completion(
    completion: Mapping[str, Any],
    new_session: NewSession,
    record: Record,
    *,
    json_content: bool,
    structured: bool = False,
    quotes: QuoteDisplay = QuoteDisplay.STRIP,
) -> VerifiedCompletion:
    """Every choice verified and enforced; ``json_content``: the content is JSON;
    ``structured``: a block is declined with a refusal (JSON or a forced tool call asked for);
    ``quotes``: what the client reads of a quoted citation (:mod:`proxy.verification.quotes`)."""
    upstream = completion.get("choices")
    entries: list[object] = list(upstream) if isinstance(upstream, list) else []
    choices: list[object] = []
    reports: list[DecidedReport] = []
    gaps: list[Unverifiable] = []
    first: VerificationSession | None = None
    for position, shape in enumerate(choice_shapes(completion)):
        session = new_session(shape.index)
        first = first or session
        entry = entries[position] if position < len(entries) else None
        entry, texts, outcome = await verify_choice(
            entry, shape, session, quotes, json_content=json_content
        )
        record(outcome, texts.text)
        choice, report = enforce_on_choice(
            entry, shape.index, outcome, session, texts, structured=structured
        )
        if choice is not None:
            choices.append(choice)
        reports.append(report)
        gaps.extend(texts.unverifiable)
    assert first is not None  # choice_shapes gives at least one
    # Rendered, not copied: only the envelope and usage of the upstream's completion remain.
    body = render.envelope(completion, "chat.completion")
    if (counts := render.usage(completion.get("usage"))) is not None:
        body["usage"] = counts
    if choices or "choices" in completion:
        body["choices"] = choices
    body["verification"] = to_json(reports[0])
    if len(reports) > 1:
        body["choices"] = [
            {**c, "verification": to_json(r)} if isinstance(c, dict) else c
            for c, r in zip(body["choices"], reports, strict=False)
        ]
    return VerifiedCompletion(body, _headers(reports, gaps), reports[0], first)


async def verify_choice(
    entry: object,
    shape: ChoiceShape,
    session: VerificationSession,
    quotes: QuoteDisplay,
    *,
    json_content: bool,
    unverifiable: tuple[Unverifiable, ...] = (),
) -> tuple[object, AnswerTexts, Outcome]:
    """One choice verified with its quotes taken out as the client reads them (``quotes``):
    the entry the client may get, the texts verified and the outcome. ``unverifiable``: what
    of the choice the reader already knows it could not read.

    When not one sentence was verified (the verifier failed, or ran out of time before its
    first sentence), no annotation will carry the quotes, so the choice keeps them in its
    text: a quote the model wrote is never lost to the client."""
    stripped, taken = strip_entry(entry, quotes, json_content=json_content)
    shown = shape
    if taken and isinstance(stripped, Mapping):
        shown = replace(shape, message=stripped["message"])
    texts = _texts(shown, json_content, unverifiable, taken)
    outcome = await session.verify(texts)
    if taken and not outcome.report.sentences:
        return entry, _texts(shape, json_content, unverifiable), outcome
    return stripped, texts, outcome


def _texts(
    shape: ChoiceShape,
    json_content: bool,
    unverifiable: tuple[Unverifiable, ...],
    quotes: tuple[StrippedQuote, ...] = (),
) -> AnswerTexts:
    texts = choice_texts(shape, json_content=json_content)
    return replace(texts, quotes=quotes, unverifiable=(*texts.unverifiable, *unverifiable))


def choice_texts(shape: ChoiceShape, *, json_content: bool) -> AnswerTexts:
    """What of one choice the verifier reads, and why the rest is not verified."""
    if shape.message is None:
        reason = shape.reason or "the choice has no message"
        return AnswerTexts(unverifiable=(Unverifiable(UnverifiedReason.UNSUPPORTED_SHAPE, reason),))
    texts = answer_texts(shape.message, json_content=json_content)
    unknown = tuple(Unverifiable(UnverifiedReason.UNSUPPORTED_SHAPE, r) for r in shape.unknown)
    texts = replace(texts, unverifiable=(*texts.unverifiable, *unknown))
    if not texts.parts and not texts.unverifiable:
        return replace(texts, unverifiable=(Unverifiable(UnverifiedReason.NO_TEXT, NO_TEXT),))
    return texts


def _headers(reports: list[DecidedReport], gaps: list[Unverifiable]) -> dict[str, str]:
    status = min((r.status for r in reports), key=SEVERITY.index)
    headers = {
        "X-Veriproxy-Status": status.value,
        "X-Veriproxy-Risk": f"{max(r.risk for r in reports):.4f}",
        "X-Veriproxy-Support": f"{min(r.support for r in reports):.4f}",
    }
    if gaps:  # reason codes only: the details may quote model output
        headers["X-Veriproxy-Unverified"] = ",".join(dict.fromkeys(g.reason.value for g in gaps))
    return headers
