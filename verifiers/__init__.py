"""veriproxy's verification library: judges plain text against evidence. Never imports proxy/.

The public surface is ``__all__`` (a test pins it): the report types, building evidence and a
``Verifier`` (and the types its constructor takes), risk, and the exception tree rooted at
``VerifierError``. The report types say what the verifier knows; what a policy did with a
report (``Action``, the status the client reads, ``withheld``, ...) is in ``policies``.
Components have public subpackages of their own, each with a pinned ``__all__``:
``verifiers.nli`` (NLI backends and the decision rule), ``verifiers.checks`` (the deterministic
checks), ``verifiers.judge`` (the LLM judge cascade).
"""

from __future__ import annotations

from verifiers._llm import close_llm_clients
from verifiers._types import (
    SCHEMA_VERSION,
    CheckResult,
    Citation,
    Claim,
    EscalationOutcome,
    EscalationSummary,
    Evidence,
    EvidenceRef,
    EvidenceSentence,
    EvidenceSpan,
    JudgeNote,
    NLILabel,
    Premise,
    QuoteCheck,
    QuoteSpan,
    QuoteStatus,
    ResponseReport,
    SentenceAnnotation,
    StrippedQuote,
    Verdict,
    protocol_fields,
    to_json,
)
from verifiers.citations import parse_citations
from verifiers.embed import Encoder
from verifiers.engine import VerificationStream, Verifier
from verifiers.errors import HarmError, NLIError, UnknownComponent, VerifierError
from verifiers.harm import HarmAssessment, HarmScorer, get_harm_scorer, score_harm
from verifiers.nli import NLIBackend, Thresholds, create_backend
from verifiers.nli.bundled import BundledNLI
from verifiers.risk import (
    VETSCORE_P,
    response_risk,
    response_support,
    sentence_risk,
    sentence_support,
    support_of,
    vetrisk,
    vetscore,
)
from verifiers.segment import MAX_SENTENCE_CHARS, SentenceSpan, segment
from verifiers.windows import WindowSelector, make_evidence

__all__ = [
    "MAX_SENTENCE_CHARS",
    "SCHEMA_VERSION",
    "VETSCORE_P",
    "BundledNLI",
    "CheckResult",
    "Citation",
    "Claim",
    "Encoder",
    "EscalationOutcome",
    "EscalationSummary",
    "Evidence",
    "EvidenceRef",
    "EvidenceSentence",
    "EvidenceSpan",
    "HarmAssessment",
    "HarmError",
    "HarmScorer",
    "JudgeNote",
    "NLIBackend",
    "NLIError",
    "NLILabel",
    "Premise",
    "QuoteCheck",
    "QuoteSpan",
    "QuoteStatus",
    "ResponseReport",
    "SentenceAnnotation",
    "SentenceSpan",
    "StrippedQuote",
    "Thresholds",
    "UnknownComponent",
    "Verdict",
    "VerificationStream",
    "Verifier",
    "VerifierError",
    "WindowSelector",
    "close_llm_clients",
    "create_backend",
    "get_harm_scorer",
    "make_evidence",
    "parse_citations",
    "protocol_fields",
    "response_risk",
    "response_support",
    "score_harm",
    "segment",
    "sentence_risk",
    "sentence_support",
    "support_of",
    "to_json",
    "vetrisk",
    "vetscore",
]
