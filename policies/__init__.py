"""veriproxy policies: YAML files that say what to do with verified answers.

Depends only on ``verifiers`` (its report types); never imports ``proxy``.
"""

from policies._model import (
    Bounds,
    LegacyCompletions,
    Match,
    Messages,
    OnVerifierError,
    Policy,
    ResponseRule,
    ResponseWhen,
    SentenceRule,
    SentenceWhen,
    StreamMode,
    policy_json_schema,
    policy_json_schema_text,
)
from policies.engine import (
    ResponseDecision,
    SentenceDecision,
    apply_policy,
    decide_and_apply,
    decide_report,
    decide_response,
    decide_sentence,
)
from policies.errors import (
    Issue,
    PolicyError,
    PolicyFileError,
    PolicyNotFound,
)
from policies.loader import load_policy, parse_policy
from policies.replay import ReplaySummary, replay
from policies.store import PRESETS_DIR, PolicyStore

__all__ = [
    "PRESETS_DIR",
    "Bounds",
    "Issue",
    "LegacyCompletions",
    "Match",
    "Messages",
    "OnVerifierError",
    "Policy",
    "PolicyError",
    "PolicyFileError",
    "PolicyNotFound",
    "PolicyStore",
    "ReplaySummary",
    "ResponseDecision",
    "ResponseRule",
    "ResponseWhen",
    "SentenceDecision",
    "SentenceRule",
    "SentenceWhen",
    "StreamMode",
    "apply_policy",
    "decide_and_apply",
    "decide_report",
    "decide_response",
    "decide_sentence",
    "load_policy",
    "parse_policy",
    "policy_json_schema",
    "policy_json_schema_text",
    "replay",
]
