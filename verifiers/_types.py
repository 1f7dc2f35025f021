"""Typed report structures: what the verifier knows about an answer.

Everything a policy reads is one of these frozen, slotted dataclasses. They hold verdicts,
evidence and scores, never what a policy did with them: the policies layer extends the two
protocol objects (``SentenceAnnotation``, ``ResponseReport``) with its decisions
(``policies.DecidedSentence``, ``policies.DecidedReport``), and the JSON form of those
(``to_json``) is the annotation protocol, versioned by ``SCHEMA_VERSION`` and published as JSON
Schema in ``policies/schema/``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum, StrEnum
from typing import Any

# 1.1: decided_by, bundled_verdict, escalation (the LLM judge).
# 2.0: ``support`` is the harm-weighted supported share that 1.x called ``risk``; ``risk`` is
# now harm-weighted risk, rising with unsupported and contradicted content (verifiers/risk.py).
# 2.1: quoted citations: ``Citation.quote``, ``SentenceAnnotation.quotes`` and ``premise``.
# 2.2: ``premise`` may be ``quote_and_window``.
# 2.3: ``SentenceAnnotation.lead_citations``: a list item cited by the line introducing its list.
# 2.4: ``lead_citations`` also of an item whose list is cited once at its end.
# 2.5: ``lead_citations`` also of a sentence whose paragraph (or list item) is cited once at its
# end.
SCHEMA_VERSION = "2.5"


class Verdict(StrEnum):
    """Sentence (and claim) verdicts, exactly as the annotation protocol lists them."""

    SUPPORTED = "supported"
    PARTIALLY_SUPPORTED = "partially_supported"
    CONTRADICTED = "contradicted"
    UNSUPPORTED = "unsupported"
    INVALID_CITATION = "invalid_citation"
    UNCITED = "uncited"
    NOT_CHECKWORTHY = "not_checkworthy"


class NLILabel(StrEnum):
    """Three-way NLI label of an (evidence window, claim) pair."""

    ENTAILMENT = "entailment"
    NEUTRAL = "neutral"
    CONTRADICTION = "contradiction"


@dataclass(frozen=True, slots=True)
class EvidenceSentence:
    """One sentence of an abstract with its character offsets into ``Evidence.abstract``."""

    text: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Evidence:
    """One evidence record (a PubMed abstract or a client-supplied document)."""

    pmid: str
    title: str
    abstract: str
    sentences: tuple[EvidenceSentence, ...]
    journal: str = ""
    year: int | None = None
    score: float = 0.0
    retriever: str = ""  # bm25 | dense | hybrid | rrf | eutils | opensearch | client


@dataclass(frozen=True, slots=True)
class Citation:
    """A citation found in an answer sentence; offsets are into the sentence."""

    raw: str
    pmid: str
    start: int
    end: int
    valid: bool
    # The words the answer quoted with this citation (``[PMID:123 "exact words"]``), as written;
    # '' for a plain citation. With ``quotes_in_text: strip`` the proxy removed the quote from
    # the text the client reads, and ``raw`` is the bracket the client sees.
    quote: str = ""


@dataclass(frozen=True, slots=True)
class StrippedQuote:
    """A quote the proxy took out of the text the client reads (``quotes_in_text: strip``):
    ``[PMID:123 "exact words"]`` became ``[PMID:123]``, whose offsets in the answer as the
    client reads it are ``start``/``end``; the engine judges the citations of ``pmids`` in that
    bracket with ``quote`` (a bracket with several quotes leaves one of these per quote)."""

    start: int
    end: int
    pmids: tuple[str, ...]
    quote: str


class QuoteStatus(StrEnum):
    """What became of a quoted citation's words, checked character for character."""

    FOUND = "found"  # in the cited abstract (after normalising case, Unicode and spacing)
    MISQUOTE = "misquote"  # in none of the evidence: never the ground for ``supported``
    OTHER_ABSTRACT = "other_abstract"  # not in the cited abstract, but in another one given


class Premise(StrEnum):
    """What a sentence's claims were judged against."""

    QUOTE = "quote"  # the abstract sentences holding the words its citation quoted
    # The quote, and for a claim the quote left undecided, a window of the cited abstract past
    # it that supports the claim.
    QUOTE_AND_WINDOW = "quote_and_window"
    WINDOWS = "windows"  # windows chosen from the cited abstracts (all evidence when uncited)


@dataclass(frozen=True, slots=True)
class QuoteSpan:
    """Words of an abstract; offsets into ``Evidence.abstract`` (title words: into the title,
    with ``in_title``)."""

    text: str
    start: int
    end: int
    in_title: bool = False


@dataclass(frozen=True, slots=True)
class QuoteCheck:
    """A quoted citation checked against the evidence: where its words are, or, for a
    misquote, the closest words of the cited abstract and how they differ."""

    pmid: str  # the abstract it was cited with
    quote: str  # as written
    status: QuoteStatus
    # Where the words are (one span per part of a quote cut with an ellipsis, in order), in
    # ``found_in``: the cited abstract when found, another one for ``other_abstract``.
    spans: tuple[QuoteSpan, ...] = ()
    found_in: str | None = None
    closest: QuoteSpan | None = None  # misquote: the cited abstract's nearest words
    difference: str = ""  # misquote: what differs ("quote says '15%', abstract says '12%'")


@dataclass(frozen=True, slots=True)
class EvidenceSpan:
    """The evidence window that decided a claim; offsets are into the abstract."""

    pmid: str
    title: str
    text: str
    start: int
    end: int
    label: NLILabel
    score: float


@dataclass(frozen=True, slots=True)
class CheckResult:
    """A deterministic check (numbers, negation, quote) beside NLI."""

    # numbers | unstated_number | labelled_number | misattributed_number | negation | direction |
    # comparison | overstated | quantifier | aligned_change | aligned_unstated | entity |
    # swapped_entity | quote | quoted_citation, and
    # the engine's reasons to set a model contradiction aside: finding | shared_negation |
    # unrelated, and numbers_reread (passed: the claim read with the evidence's own values)
    name: str
    passed: bool
    detail: str
    pmid: str | None = None


class EscalationOutcome(StrEnum):
    """What became of a claim an escalation rule sent (or meant to send) to the LLM judge."""

    JUDGED = "judged"  # the judge's verdict stands: its quote is in the evidence it cited
    QUOTE_REJECTED = "quote_rejected"  # its quote is not in that evidence: bundled verdict kept
    # It called the claim supported with a quote from the evidence that the bundled model reads
    # as neither entailing nor relevant to the claim: the bundled verdict is kept.
    QUOTE_IRRELEVANT = "quote_irrelevant"
    # It called the claim supported, but a deterministic check (numbers, direction, negation)
    # failed on it: the bundled verdict is kept, a judge never outvotes a stated number.
    CHECK_FAILED = "check_failed"
    # It called the claim supported with a quote that itself says the opposite (the direction,
    # negation and numbers checks between claim and quote): the bundled verdict is kept.
    QUOTE_CONTRADICTS = "quote_contradicts"
    JUDGE_ERROR = "judge_error"  # judge down, slow or malformed: bundled verdict kept
    BUDGET = "budget"  # not sent: the tenant's judge token budget is spent
    MAX_CLAIMS = "max_claims"  # not sent: more claims matched than ``max_claims``


@dataclass(frozen=True, slots=True)
class JudgeNote:
    """A claim's escalation: why it went, what the judge said and whether it stood."""

    outcome: EscalationOutcome
    rule: str  # the escalation rule that matched
    judge: str  # the judge's model, as configured
    bundled_verdict: Verdict
    verdict: Verdict | None = None  # the judge's verdict, None when it gave none usable
    quote: str = ""  # verbatim from the evidence it cited
    evidence: tuple[str, ...] = ()  # PMIDs of the windows / abstracts it cited
    reason: str = ""  # the judge's short explanation, or what went wrong
    cached: bool = False  # answered from the judge cache


@dataclass(frozen=True, slots=True)
class Claim:
    """An atomic claim with its span in the sentence, harm and verification outcome."""

    text: str
    start: int
    end: int
    verdict: Verdict
    support: float  # vᵢ ∈ [0, 1] of the risk score: the supported fraction of this claim
    confidence: float
    harm: int  # 1 (study metadata) … 5 (dose, contraindication, direct patient harm)
    harm_reasons: tuple[str, ...] = ()
    evidence: tuple[EvidenceSpan, ...] = ()
    checks: tuple[CheckResult, ...] = ()
    # The verifier whose verdict this is: the NLI model version, ``judge:<model>``, or
    # ``restatement`` when the claim repeats a clause of its evidence (no model was asked).
    decided_by: str = ""
    escalation: JudgeNote | None = None  # set when an escalation rule matched this claim
    # ``confidence`` (the calibrated probability that the verdict is right) is below the
    # deployment's ``review_below``: the verdict stands but a judge or a person must look.
    needs_review: bool = False


@dataclass(frozen=True, slots=True)
class SentenceAnnotation:
    """The per-sentence annotation of the protocol."""

    index: int
    text: str
    start: int
    end: int
    verdict: Verdict
    confidence: float
    citations: tuple[Citation, ...] = ()
    evidence: tuple[EvidenceSpan, ...] = ()
    claims: tuple[Claim, ...] = ()
    harm: int = 1
    harm_reasons: tuple[str, ...] = ()
    support: float = 1.0  # harm-weighted supported share of its claims, higher is better
    risk: float = 0.0  # harm-weighted unsupported share of its claims, higher is worse
    checks: tuple[CheckResult, ...] = ()
    # Where the text sits when the answer is JSON (structured output, tool-call arguments):
    # a JSONPath such as ``$.tool_calls[0].function.arguments.summary``, with ``start``/``end``
    # offsets into that string value. None for a plain-text answer.
    path: str | None = None
    # Which verifier decided the verdict: the NLI model's version, or ``judge:<model>`` when
    # the LLM judge's verdict stood for one of its claims; then ``bundled_verdict`` is what
    # the bundled model alone said.
    decided_by: str = ""
    bundled_verdict: Verdict | None = None
    # One of its claims needs review (a verdict the verifier cannot vouch for); ``review_reason``
    # says which and why. Never set on a sentence whose verdict is decided without the model
    # (``invalid_citation``, ``not_checkworthy``).
    needs_review: bool = False
    review_reason: str = ""
    # Its quoted citations, each checked against the evidence.
    quotes: tuple[QuoteCheck, ...] = ()
    # What its claims were judged against; None when no model judged it.
    premise: Premise | None = None
    # A sentence that cites nothing itself, lent the citations of the line introducing its list
    # ("Key findings [PMID:1]:"), else of its list's or paragraph's end when only that cites
    # ("- metformin" "- insulin [PMID:1]", "Metformin is first-line. It lowers glucose
    # [PMID:1]."): those PMIDs (valid ones only), which it was judged against as cited.
    lead_citations: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class EvidenceRef:
    """A short reference to evidence that was used, for the response report."""

    pmid: str
    title: str
    score: float
    retriever: str


@dataclass(frozen=True, slots=True)
class EscalationSummary:
    """The response's escalations to the LLM judge (claims, outcomes, tokens)."""

    judge: str
    escalated: int = 0  # claims sent to the judge or answered from its cache
    judged: int = 0  # judge verdicts that stand
    overturned: int = 0  # of those, verdicts that differ from the bundled model's
    quote_rejected: int = 0
    quote_irrelevant: int = 0  # judge "supported" verdicts whose quote did not bear on the claim
    check_failed: int = 0  # judge "supported" verdicts a failed deterministic check kept out
    quote_contradicts: int = 0  # judge "supported" verdicts whose own quote says the opposite
    cached: int = 0
    requests: int = 0
    # Claims a rule matched that were not sent: ``budget`` / ``max_claims`` -> count.
    escalation_skipped: Mapping[str, int] = field(default_factory=dict)
    judge_error: str | None = None  # the last judge failure; bundled verdicts stood
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_ms: float = 0.0


@dataclass(frozen=True, slots=True)
class ResponseReport:
    """The response-level report (last streamed chunk or ``completion.verification``)."""

    support: float  # harm-weighted supported share (VetScore), 1.0 = all harm potential supported
    risk: float  # harm-weighted unsupported or contradicted share, 0.0 = nothing at risk
    faithful: bool  # AND-join: False as soon as one check-worthy sentence is not supported
    counts: Mapping[str, int]
    sentences: tuple[SentenceAnnotation, ...]
    evidence: tuple[EvidenceRef, ...] = ()
    latency_ms: Mapping[str, float] = field(default_factory=dict)
    # Why verification did not (fully) run, if it did not: then the answer is not verified
    # (the verifier's one word on it; the status the client reads is the policy's).
    error: str | None = None
    model_version: str = ""
    schema_version: str = SCHEMA_VERSION
    notes: tuple[str, ...] = ()  # facts a reader needs that are not errors ("no evidence…")
    # Which choice of the completion this report is for (``n > 1``: one report per choice).
    choice: int = 0
    escalation: EscalationSummary | None = None  # None: no escalation configured
    needs_review: int = 0  # claims of check-worthy sentences marked ``needs_review``

    def as_unverified(self, error: str) -> ResponseReport:
        """This report, unverified for ``error`` (a timeout, a failed verifier, a part of the
        answer that could not be read): its sentences stand, but it is never called verified or
        faithful. The one way every layer marks a report so."""
        return dataclasses.replace(self, faithful=False, error=error)


def protocol_fields(cls: type[Any]) -> tuple[dataclasses.Field[Any], ...]:
    """A report structure's fields in the protocol's order. A layer above that extends one
    (the policy's decisions) places each field it adds with ``metadata={"after": name}``: after
    the field ``name``, first for ``None``; a field without it comes last."""
    known = _PROTOCOL_FIELDS.get(cls)
    if known is None:  # once per class: to_json asks for every object of every report
        known = _PROTOCOL_FIELDS[cls] = _ordered_fields(cls)
    return known


_PROTOCOL_FIELDS: dict[type[Any], tuple[dataclasses.Field[Any], ...]] = {}


def _ordered_fields(cls: type[Any]) -> tuple[dataclasses.Field[Any], ...]:
    fields: list[dataclasses.Field[Any]] = []
    for f in dataclasses.fields(cls):
        if "after" not in f.metadata:
            fields.append(f)
            continue
        after = f.metadata["after"]
        at = 0 if after is None else [g.name for g in fields].index(after) + 1
        fields.insert(at, f)
    return tuple(fields)


def to_json(obj: Any) -> Any:
    """Turn a report structure (or a tuple/mapping of them) into plain JSON-ready values."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: to_json(getattr(obj, f.name)) for f in protocol_fields(type(obj))}
    if isinstance(obj, Enum):
        return obj.value
    if isinstance(obj, Mapping):
        return {str(k): to_json(v) for k, v in obj.items()}
    if isinstance(obj, (tuple, list)):
        return [to_json(v) for v in obj]
    return obj
