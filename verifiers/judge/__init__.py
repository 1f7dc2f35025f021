"""The cascade from the bundled NLI model to an LLM judge, claim by claim, with quoted evidence
(:mod:`verifiers.judge.cascade`), its configuration (:mod:`verifiers.judge.settings`), the
request and reply (:mod:`verifiers.judge.prompt`) and the client (:mod:`verifiers.judge.client`).
"""

from verifiers.judge.cascade import Cascade, EscalationRun, JudgeBudget, JudgeCache, JudgeObserver
from verifiers.judge.client import JudgeClient, JudgeFailure, LiteLLMJudgeClient
from verifiers.judge.settings import EscalationRule, EscalationSettings, parse_escalation

__all__ = [
    "Cascade",
    "EscalationRule",
    "EscalationRun",
    "EscalationSettings",
    "JudgeBudget",
    "JudgeCache",
    "JudgeClient",
    "JudgeFailure",
    "JudgeObserver",
    "LiteLLMJudgeClient",
    "parse_escalation",
]
