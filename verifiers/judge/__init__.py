"""The cascade from the bundled NLI model to an LLM judge, claim by claim, with quoted evidence
(:mod:`verifiers.judge.cascade`), its configuration (:mod:`verifiers.judge.settings`), the
request and reply (:mod:`verifiers.judge.prompt`) and the client (:mod:`verifiers.judge.client`,
which reaches a litellm model through an ``LLMEndpoint``).
"""

from verifiers._llm import LLMEndpoint
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
    "LLMEndpoint",
    "LiteLLMJudgeClient",
    "parse_escalation",
]
