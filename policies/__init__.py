"""veriproxy policies: YAML files that say what to do with verified answers.

Depends only on ``verifiers`` (its report types); never imports ``proxy``. The policy's
vocabulary lives here: ``Action``, ``ReportStatus`` (the status a client reads), the decisions,
and the protocol objects a client reads, the verifier's annotation and report with the policy's
decisions (``DecidedSentence``, ``DecidedReport``; their JSON Schema: ``policies.protocol``),
each policy field written once (``record_decision``, ``withhold``, ``delivered_before_block``,
``decide_and_apply``).
"""

from policies._decided import Action, DecidedReport, DecidedSentence, ReportStatus
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
    skipped,
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
    "Action",
    "Bounds",
    "DecidedReport",
    "DecidedSentence",
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
    "ReportStatus",
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
    "skipped",
    "withhold",
]
