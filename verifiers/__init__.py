"""veriproxy's verification library: judges plain text against evidence. Never imports proxy/."""

from verifiers._types import (
    SCHEMA_VERSION,
    Action,
    CheckResult,
    Citation,
    Claim,
    Evidence,
    EvidenceRef,
    EvidenceSentence,
    EvidenceSpan,
    NLILabel,
    ReportStatus,
    ResponseReport,
    SentenceAnnotation,
    Verdict,
    to_json,
)
from verifiers.citations import parse_citations
from verifiers.embed import Encoder
from verifiers.engine import VerificationStream, Verifier
from verifiers.harm import (
    HarmAssessment,
    HarmError,
    HarmScorer,
    LLMHarmJudge,
    RuleHarmScorer,
    get_harm_scorer,
    score_harm,
)
from verifiers.nli.bundled import BundledNLI
from verifiers.nli.decide import Decision, Thresholds, decide
from verifiers.nli.registry import create_backend
from verifiers.risk import (
    VETSCORE_P,
    claims_risk,
    response_risk,
    sentence_risk,
    support_of,
    vetscore,
)
from verifiers.segment import SentenceSpan, StreamSegmenter, segment
from verifiers.windows import make_evidence

__all__ = [
    "SCHEMA_VERSION",
    "VETSCORE_P",
    "Action",
    "BundledNLI",
    "CheckResult",
    "Citation",
    "Claim",
    "Decision",
    "Encoder",
    "Evidence",
    "EvidenceRef",
    "EvidenceSentence",
    "EvidenceSpan",
    "HarmAssessment",
    "HarmError",
    "HarmScorer",
    "LLMHarmJudge",
    "NLILabel",
    "ReportStatus",
    "ResponseReport",
    "RuleHarmScorer",
    "SentenceAnnotation",
    "SentenceSpan",
    "StreamSegmenter",
    "Thresholds",
    "Verdict",
    "VerificationStream",
    "Verifier",
    "claims_risk",
    "create_backend",
    "decide",
    "get_harm_scorer",
    "make_evidence",
    "parse_citations",
    "response_risk",
    "score_harm",
    "segment",
    "sentence_risk",
    "support_of",
    "to_json",
    "vetscore",
]
