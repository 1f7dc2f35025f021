"""Enforcing a policy's block and redact on a non-streamed completion.

Blocked: the content becomes the policy's message and ``finish_reason`` is ``content_filter``,
as OpenAI reports filtered output (status 200). Redacted: each redacted sentence's text is
replaced by its message, the rest of the answer is kept; in a JSON answer or tool-call
arguments the replacement happens inside the string value, so the JSON stays valid
(:func:`~proxy.verification.answers.redact_message`). A blocked answer keeps no tool calls.
The client's ``verification`` report withholds the words of every sentence it was not shown;
the audit log keeps them. Token ``logprobs`` go with the words: a blocked choice has none, and
a redacted sentence's entries are dropped (:mod:`proxy.verification.logprobs`).
"""

from __future__ import annotations

from collections.abc import Mapping

from proxy.verification.answers import AnswerTexts, redact_message
from proxy.verification.logprobs import shown_only
from proxy.verification.session import Outcome, VerificationSession
from verifiers import Action, ResponseReport

CONTENT_FILTER = "content_filter"


def enforce_on_choice(
    choice: object,
    index: int,
    outcome: Outcome,
    session: VerificationSession,
    texts: AnswerTexts,
) -> tuple[object, ResponseReport]:
    """One choice as the client may get it, and the report the client may see. ``choice`` is
    the upstream's entry, None when the completion had none (it stays absent unless blocked);
    an entry that cannot be read passes as it is unless the policy blocks it."""
    sentences = outcome.report.sentences
    if outcome.decision.enforced_action is Action.BLOCK:
        base = dict(choice) if isinstance(choice, Mapping) else {"index": index}
        # A blocked answer keeps nothing of its own: no tool calls, no refusal, no logprobs.
        message = {"role": "assistant", "content": outcome.decision.message or ""}
        blocked = {**base, "message": message, "finish_reason": CONTENT_FILTER, "logprobs": None}
        return blocked, session.client_report(outcome.report, set())
    shown = {s.index for s in sentences}
    if not isinstance(choice, Mapping) or not isinstance(choice.get("message"), Mapping):
        return choice, session.client_report(outcome.report, shown)
    out = dict(choice)
    redacted = [s for s in sentences if s.action is Action.REDACT]
    if redacted and not session.policy.shadow:
        message = choice["message"]
        out["message"] = redact_message(message, texts, redacted, session.message_for)
        content = message.get("content")
        spans = [(s.start, s.end) for s in redacted if s.path is None]
        answer = content if isinstance(content, str) else ""
        out["logprobs"] = shown_only(choice.get("logprobs"), answer, spans)
        shown = {s.index for s in sentences if s.action is not Action.REDACT}
    return out, session.client_report(outcome.report, shown)
