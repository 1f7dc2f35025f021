"""Enforcing a policy's block and redact on a non-streamed completion.

Blocked: the content becomes the policy's message and ``finish_reason`` is ``content_filter``,
as OpenAI reports filtered output (status 200); a structured answer (``response_format`` JSON,
a forced tool call) instead gets OpenAI's form of a declined structured answer,
``content: null`` and the message in ``refusal`` with ``finish_reason: "stop"``, which the
openai SDK's ``parse()`` and instructor's TOOLS mode hand the app (``parse()`` raises on
``content_filter`` before it looks at the refusal).
Redacted: each redacted sentence's text is replaced by its message, the rest of the answer is
kept; in a JSON answer or tool-call arguments the replacement happens inside the string value,
so the JSON stays valid (:func:`~proxy.verification.answers.redact_message`). A blocked answer
keeps no tool calls. The client's ``verification`` report withholds the words of every
sentence it was not shown; the audit log keeps them. The message's ``annotations`` hold the
citations of the sentences it shows as written, indexed into the content it holds
(:mod:`proxy.verification.annotations`). Token ``logprobs`` go with the words: a
blocked choice has none, and a redacted sentence's entries are dropped
(:mod:`proxy.verification.logprobs`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from policies import Action, DecidedReport
from proxy.verification import render
from proxy.verification.annotations import answer_citations
from proxy.verification.answers import AnswerTexts, redact_message
from proxy.verification.logprobs import shown_only
from proxy.verification.session import Outcome, VerificationSession
from proxy.verification.shapes import CONTENT_FILTER
from verifiers import SentenceAnnotation


def enforce_on_choice(
    choice: object,
    index: int,
    outcome: Outcome,
    session: VerificationSession,
    texts: AnswerTexts,
    *,
    structured: bool = False,
) -> tuple[object, DecidedReport]:
    """One choice as the client may get it, rendered from what was read (the allowlist of
    :mod:`proxy.verification.render`), and the report the client may see. ``choice`` is the
    upstream's entry, None when the completion had none (it stays absent unless blocked); an
    entry whose message cannot be read keeps no words of its own."""
    if outcome.decision.enforced_action is Action.BLOCK:
        # A blocked answer keeps nothing of its own: no tool calls, no refusal, no logprobs.
        text = outcome.decision.message or ""
        if structured:
            refused = {"role": "assistant", "content": None, "refusal": text}
            blocked = {"index": index, "message": refused, "finish_reason": "stop"}
        else:
            message = {"role": "assistant", "content": text}
            blocked = {"index": index, "message": message, "finish_reason": CONTENT_FILTER}
        return {**blocked, "logprobs": None}, outcome.shown_as(set())
    if choice is None:
        return None, outcome.shown_as(set())
    entry = choice if isinstance(choice, Mapping) else {}
    source = entry.get("message")
    if not isinstance(source, Mapping):
        empty = {"role": "assistant", "content": None, "refusal": None}
        out = {"index": index, "message": empty, "logprobs": None, "finish_reason": "stop"}
        return out, outcome.shown_as(set())
    decided = outcome.decided()
    withheld = {
        s.annotation.index: s for s in decided if s.decision.enforced_action is Action.REDACT
    }
    redacted = [s.annotation for s in withheld.values()]
    shown = {s.annotation.index for s in decided if s.annotation.index not in withheld}

    def message_for(sentence: SentenceAnnotation) -> str:
        return withheld[sentence.index].decision.message or ""

    if redacted:
        source = redact_message(source, texts, redacted, message_for)
    content = entry["message"].get("content")
    answer = content if isinstance(content, str) else texts.text
    # A redacted value inside JSON cannot be located among the tokens: then none go.
    spans = (
        None if any(s.path is not None for s in redacted) else [(s.start, s.end) for s in redacted]
    )
    rendered: dict[str, Any] = render.message(source, unread=True)
    report = outcome.shown_as(shown)
    replaced = [(s.start, s.end, message_for(s)) for s in redacted if s.path is None]
    citations = answer_citations(report.sentences, session.links, replaced)
    if citations:
        rendered["annotations"] = [c.chat() for c in citations]
    out = {
        "index": index,
        "message": rendered,
        "logprobs": shown_only(entry.get("logprobs"), answer, spans),
        "finish_reason": render.finish_reason(entry.get("finish_reason")),
    }
    return out, report
