"""Enforcing a policy's block and redact on a non-streamed completion.

Blocked: the content becomes the policy's message and ``finish_reason`` is ``content_filter``,
as OpenAI reports filtered output (status 200). Redacted: each redacted sentence's text is
replaced by its message, the rest of the answer is kept. The client's ``verification`` report
withholds the words of every sentence it was not shown; the audit log keeps them.
"""

from __future__ import annotations

from typing import Any

from proxy.verification.session import Outcome, VerificationSession
from verifiers import Action, to_json

CONTENT_FILTER = "content_filter"


def enforce_on_completion(
    completion: dict[str, Any], outcome: Outcome, session: VerificationSession
) -> dict[str, Any]:
    out = dict(completion)
    out["choices"] = [dict(c) if isinstance(c, dict) else c for c in completion["choices"]]
    choice = next(c for c in out["choices"] if isinstance(c, dict) and c.get("index", 0) == 0)
    message = dict(choice.get("message") or {})
    answer = message.get("content") or ""
    sentences = outcome.report.sentences
    shown: set[int] = {s.index for s in sentences}
    if outcome.decision.enforced_action is Action.BLOCK:
        message["content"] = outcome.decision.message or ""
        choice["finish_reason"] = CONTENT_FILTER
        shown = set()
    elif not session.policy.shadow:
        message["content"] = _redacted(answer, outcome, session)
        shown = {s.index for s in sentences if s.action is not Action.REDACT}
    choice["message"] = message
    out["verification"] = to_json(session.client_report(outcome.report, shown))
    return out


def _redacted(answer: str, outcome: Outcome, session: VerificationSession) -> str:
    parts: list[str] = []
    cursor = 0
    for sentence in outcome.report.sentences:
        if sentence.action is Action.REDACT:
            parts.append(answer[cursor : sentence.start])
            parts.append(session.message_for(sentence) or "")
            cursor = sentence.end
    parts.append(answer[cursor:])
    return "".join(parts)
