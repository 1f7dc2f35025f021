"""What a reviewer reads back from the audit log: the sentences a policy redacted or blocked in
one of its tenant's answers, each with the rule that did it and, when the log keeps text
(``audit.include_text``), its own words.

The client's report never holds those words (see ``policies.withhold``); only the
audit record does, and only a key with the ``reviewer`` role may read them back
(``GET /v1/audit/{request id}/withheld``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from policies import PolicyNotFound, PolicyStore
from proxy.audit.jsonl import AuditFileError
from proxy.audit.log import AuditLog
from proxy.errors import ProxyError
from proxy.state import UNREACHABLE_ERRORS

WITHHELD_ACTIONS = ("redact", "block")


class AuditUnavailable(ProxyError):
    """503: the audit log cannot be read back now (file unreadable, Redis away)."""

    status = 503
    type = "service_unavailable"
    code = "audit_unavailable"


@dataclass(frozen=True, slots=True)
class WithheldSentence:
    choice: int
    index: int
    action: str  # redact | block
    verdict: str
    rule: str | None  # the fired rule whose action this is; None if the policy no longer says
    rules_fired: tuple[str, ...]
    text: str | None  # None: the audit log keeps no text (audit.include_text is off)

    def to_dict(self) -> dict[str, Any]:
        return {
            "choice": self.choice,
            "index": self.index,
            "action": self.action,
            "verdict": self.verdict,
            "rule": self.rule,
            "rules_fired": list(self.rules_fired),
            "text": self.text,
        }


async def withheld_sentences(
    audit: AuditLog, request_id: str, tenant: str, policies: PolicyStore | None
) -> list[WithheldSentence] | None:
    """The redacted and blocked sentences of a request of ``tenant``, by choice and position;
    None when the audit log holds no record of that request for that tenant (another tenant's
    request reads as unknown)."""
    try:
        found = await audit.find(request_id)
    except (AuditFileError, *UNREACHABLE_ERRORS) as exc:
        raise AuditUnavailable("the audit log cannot be read now; retry later") from exc
    records = [r for r in found if r.get("tenant") == tenant]
    if not records:
        return None
    out = []
    for record in records:
        policy = str(record.get("policy", ""))
        for s in record.get("sentences") or ():
            if not isinstance(s, Mapping) or s.get("action") not in WITHHELD_ACTIONS:
                continue
            fired = tuple(str(name) for name in s.get("rules_fired") or ())
            out.append(
                WithheldSentence(
                    choice=int(record.get("choice", 0)),
                    index=int(s["index"]),
                    action=str(s["action"]),
                    verdict=str(s.get("verdict", "")),
                    rule=_deciding_rule(policies, policy, str(s["action"]), fired),
                    rules_fired=fired,
                    text=s.get("text") if isinstance(s.get("text"), str) else None,
                )
            )
    return sorted(out, key=lambda w: (w.choice, w.index))


def _deciding_rule(
    policies: PolicyStore | None, name: str, action: str, fired: Sequence[str]
) -> str | None:
    """The first fired sentence rule whose action is the sentence's (the strongest action wins,
    and among rules of that action the policy's first one gives the message)."""
    if policies is None:
        return None
    try:
        policy = policies.get(name)
    except PolicyNotFound:
        return None
    return next(
        (r.name for r in policy.sentence_rules if r.name in fired and r.action.value == action),
        None,
    )
