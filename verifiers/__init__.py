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
from verifiers.embed import Encoder

__all__ = [
    "SCHEMA_VERSION",
    "Action",
    "CheckResult",
    "Citation",
    "Claim",
    "Encoder",
    "Evidence",
    "EvidenceRef",
    "EvidenceSentence",
    "EvidenceSpan",
    "NLILabel",
    "ReportStatus",
    "ResponseReport",
    "SentenceAnnotation",
    "Verdict",
    "to_json",
]
