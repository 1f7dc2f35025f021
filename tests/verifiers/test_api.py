"""The public surface of ``verifiers`` is pinned: the proxy, bench, docs and users import these
names (and those of the public subpackages), and every error it raises shares one root."""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import verifiers
import verifiers.checks
import verifiers.judge
import verifiers.nli

PACKAGE = Path(verifiers.__file__).parent


def test_public_api_is_pinned() -> None:
    assert sorted(verifiers.__all__) == [
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
        "MAX_SENTENCE_CHARS",
        "NLIBackend",
        "NLIError",
        "NLILabel",
        "Premise",
        "QuoteCheck",
        "QuoteSpan",
        "QuoteStatus",
        "ResponseReport",
        "SCHEMA_VERSION",
        "SentenceAnnotation",
        "SentenceSpan",
        "StrippedQuote",
        "Thresholds",
        "UnknownComponent",
        "VETSCORE_P",
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
    assert all(hasattr(verifiers, name) for name in verifiers.__all__)


def test_public_subpackages_are_pinned() -> None:
    assert sorted(verifiers.nli.__all__) == [
        "Decision",
        "NLIBackend",
        "NLIError",
        "NLIPair",
        "NLIScores",
        "Thresholds",
        "backend_names",
        "create_backend",
        "decide",
        "register_backend",
    ]
    assert sorted(verifiers.checks.__all__) == [
        "Check",
        "CheckInput",
        "DEFAULT_CHECKS",
        "Effect",
        "Quantity",
        "Scope",
        "check_alignment",
        "check_direction",
        "check_entities",
        "check_names",
        "check_negation",
        "check_numbers",
        "check_qualifiers",
        "check_quotes",
        "content_tokens",
        "extract_quantities",
        "extract_quotes",
        "get_checks",
        "is_negated",
        "normalise",
        "register_check",
    ]
    assert sorted(verifiers.judge.__all__) == [
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
    for package in (verifiers.nli, verifiers.checks, verifiers.judge):
        assert all(hasattr(package, name) for name in package.__all__)


def test_no_deprecated_names_linger() -> None:
    """0.1's shims are gone: the moved names import from their own modules only."""
    for name in ("Decision", "decide", "LLMHarmJudge", "RuleHarmScorer", "StreamSegmenter"):
        assert not hasattr(verifiers, name)
    assert importlib.util.find_spec("verifiers.export_encoder") is None


def test_one_exception_root() -> None:
    """Every exception class ``verifiers`` defines lives in verifiers/errors.py, under
    ``VerifierError``; the names kept where they were are the same classes."""
    elsewhere = []
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and any(
                ast.unparse(base).endswith(("Error", "Exception", "Failure", "Reply"))
                for base in node.bases
            ):
                elsewhere.append(f"{path.relative_to(PACKAGE)}:{node.name}")
    assert all(entry.startswith("errors.py:") for entry in elsewhere), elsewhere

    from verifiers import errors
    from verifiers.harm import HarmError
    from verifiers.judge import JudgeFailure
    from verifiers.judge.prompt import MalformedReply
    from verifiers.nli import NLIError

    for cls in (HarmError, JudgeFailure, MalformedReply, NLIError, errors.UnknownComponent):
        assert issubclass(cls, verifiers.VerifierError) and cls.__module__ == "verifiers.errors"
    assert issubclass(errors.UnknownComponent, ValueError)  # config code catches ValueError
    assert issubclass(MalformedReply, ValueError)  # as it was


def test_verifiers_never_import_the_proxy() -> None:
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            assert not any(n == "proxy" or n.startswith("proxy.") for n in names), path
