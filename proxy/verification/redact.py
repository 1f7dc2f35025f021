"""Enforcing a policy's block and redact on a non-streamed completion.

Blocked: the content becomes the policy's message and ``finish_reason`` is ``content_filter``,
as OpenAI reports filtered output (status 200). Redacted: each redacted sentence's text is
replaced by its message, the rest of the answer is kept. The ``verification`` report keeps the
original sentences (auditors need them); what the client's ``content`` shows is enforced.
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
    if outcome.decision.enforced_action is Action.BLOCK:
        message["content"] = outcome.decision.message or ""
        choice["finish_reason"] = CONTENT_FILTER
    elif not session.policy.shadow:
        message["content"] = _redacted(answer, outcome, session)
    choice["message"] = message
    out["verification"] = to_json(outcome.report)
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
