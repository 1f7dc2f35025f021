"""veriproxy policies: YAML files that say what to do with verified answers.

Depends only on ``verifiers`` (its report types); never imports ``proxy``. The policy's
vocabulary is imported from here: ``Action``, the decisions, and the one writer of each policy
field of a report (``record_decision``, ``withhold``, ``delivered_before_block``). ``Action``
is still defined beside the report types it types (issue 28 moves it here with them).
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
from policies.disclosure import delivered_before_block, withhold
from policies.engine import (
    ResponseDecision,
    SentenceDecision,
    apply_policy,
    decide_and_apply,
    decide_report,
    decide_response,
    decide_sentence,
    record_decision,
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
from verifiers import Action

__all__ = [
    "PRESETS_DIR",
    "Action",
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
    "delivered_before_block",
    "load_policy",
    "parse_policy",
    "policy_json_schema",
    "policy_json_schema_text",
    "record_decision",
    "replay",
    "withhold",
]
