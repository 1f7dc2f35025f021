"""The sentence-level verifier: answer + evidence in, a ``ResponseReport`` out.

Pipeline (after VerifAI's cite-then-verify and RT4CHART's local/global passes):

    segment → citations → check-worthiness → claims → windows (or the quote) → local NLI
            (OR-join) → global NLI over the best windows together
            → a quoted claim its quote left undecided: windows past the quote, for support only
            → numbers / negation / direction / quote checks
            → harm → risk, per sentence and, AND-joined, per response

Every step is a component chosen by name from config (``Verifier.from_config``). The engine
returns a ``ResponseReport`` (with ``error`` when NLI failed: not verified); what a policy does
with it, the status the client reads included, is the policies layer's. Synchronous and CPU
bound: async callers use ``averify`` / ``VerificationStream.afeed``, which run it in a worker
thread.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

import anyio.to_thread

from verifiers._types import (
    CheckResult,
    Citation,
    Claim,
    Evidence,
    EvidenceRef,
    EvidenceSpan,
    NLILabel,
    Premise,
    QuoteCheck,
    QuoteSpan,
    QuoteStatus,
    ResponseReport,
    SentenceAnnotation,
    StrippedQuote,
    Verdict,
)
from verifiers.checks import Check, CheckInput, Effect, Scope, get_checks
from verifiers.checks.entities import check_cited_term, check_entities
from verifiers.checks.names import specific_names
from verifiers.checks.negation import negated_alike, without_negation
from verifiers.checks.numbers import written_alike
from verifiers.checkworthy import bare_term, is_checkworthy, list_lead
from verifiers.citations import parse_citations, strip_citations
from verifiers.claims import ClaimSpan, Decomposer, create_decomposer
from verifiers.confidence import ClaimSignals, ConfidenceModel, load_confidence
from verifiers.embed import LazyEncoder, shared_encoder
from verifiers.errors import UnsegmentedText
from verifiers.harm import HarmScorer, get_harm_scorer
from verifiers.markup import as_prose
from verifiers.nli._base import NLIBackend, NLIError, NLIPair, NLIScores
from verifiers.nli.batching import batched
from verifiers.nli.decide import Decision, Thresholds, decide
from verifiers.nli.registry import create_backend
from verifiers.quoting.match import check_quote
from verifiers.quoting.syntax import mask_quotes
from verifiers.relatedness import Relatedness
from verifiers.restatement import (
    RESTATED_BY,
    RESTATED_CONFIDENCE,
    restated_sentence,
    restates,
)
from verifiers.risk import (
    claims_risk,
    claims_support,
    response_risk,
    response_support,
    sentence_risk,
    sentence_support,
    support_of,
)
from verifiers.roles import load_roles
from verifiers.segment import (
    MAX_SENTENCE_CHARS,
    SentenceSpan,
    StreamSegmenter,
    require_covered,
    segment,
    without_surrogates,
)
from verifiers.windows import SentenceEncoder, Window, WindowSelector, evidence_sentences

if TYPE_CHECKING:
    from verifiers.config import VerifierConfig

GLOBAL_WINDOWS = 3
# A model contradiction set aside because its evidence states the study's design, not a finding
# (a failed result on the claim; it has no effect of its own: the verdict is already changed).
FINDING = "finding"
_DESIGN_ONLY = (
    "the contradicting evidence states the study's aim or methods, or a belief its background "
    "reports, not a finding: {!r}"
)
_DESIGN_LED = (
    "the contradiction rests on the study's aim or methods, or a belief its background reports: "
    "they contradict the claim, the rest of the evidence read without them does not: {!r}"
)
# A model contradiction set aside because the claim and its evidence are both negated and
# read without their negation words do not contradict: the small model takes "not" and "no"
# for a contradiction cue (an annotation artifact of the NLI corpora), whichever side they are
# on. A failed result with no effect of its own, like ``finding``.
SHARED_NEGATION = "shared_negation"
_SHARED_NEGATION = (
    "the claim and the evidence are both negated, and read without the negation they do not "
    "contradict: {!r}"
)
# A model contradiction set aside because the claim and the evidence are about different
# things (``verifiers.relatedness``): an off-topic sentence, an aside. Like ``finding``.
UNRELATED = "unrelated"
_UNRELATED = (
    "the claim and the evidence that contradicts it are about different things (similarity "
    "{similarity:.2f}, below {below:.2f}): {{!r}}"
)
# A model contradiction read once more with the values of claim and evidence written alike
# (``verifiers.checks.numbers.written_alike``): the small model reads "about a quarter"
# against "Twenty-three percent", or "39 cases" against "Thirty-nine cases", as a changed
# number, which the numbers check has read and found restated. A passed result: the claim's
# verdict is the one its reread gets.
NUMBERS_REREAD = "numbers_reread"
_NUMBERS_REREAD = (
    "the model contradicted the claim as written and not with its values and the evidence's "
    "written alike, as the evidence's digits: {!r}"
)
# Sentences judged per batch when ``verify`` runs against a deadline (checked between batches).
DEADLINE_BATCH = 16
# Backends with a ``batch_size`` option, which a configured batcher sets to its ``max_pairs``.
BATCH_SIZED_BACKENDS = frozenset({"bundled", "hf"})
_SENTENCE_END = frozenset(".!?")
_CLOSERS = "\"'\u201d\u2019)]"
_SPACE_BEFORE_PUNCT = re.compile(
    r"\s+([.,;:!?])"
)  # windows joined into one premise for the global pass


@dataclass(frozen=True, slots=True)
class _Pending:
    """A check-worthy sentence on its way through the pipeline."""

    span: SentenceSpan
    index: int
    citations: tuple[Citation, ...]
    candidates: tuple[Evidence, ...]
    claims: tuple[ClaimSpan, ...]
    masked: str  # the sentence with its citations' quotes blanked (what claims are cut from)
    quotes: tuple[QuoteCheck, ...]
    # The abstract sentences holding its quotes, when they were found where cited: its claims
    # are judged against these alone. None: windows are chosen as for an unquoted sentence.
    premise: tuple[Window, ...] | None
    # A list item read with its lead whose own words the evidence does not state: its claim is
    # not supported, whatever the model reads into the lead.
    unnamed: CheckResult | None = None
    lead_citations: tuple[str, ...] = ()  # ``SentenceAnnotation.lead_citations``


@dataclass(frozen=True, slots=True)
class ClaimJudgement:
    """One claim judged against its candidate evidence: the verdict, its confidence (the
    calibrated probability that it is right, where the model ships a confidence model), whether
    it needs review, the deciding spans, the checks and the signals the confidence was read
    from."""

    verdict: Verdict
    confidence: float
    needs_review: bool
    evidence: tuple[EvidenceSpan, ...]
    checks: tuple[CheckResult, ...]
    signals: ClaimSignals
    # A quoted claim its quote left undecided, supported by a window of the cited abstract past
    # the quote (``Verifier._read_past_quotes``).
    past_quote: bool = False


@dataclass(slots=True)
class _Timer:
    """Milliseconds spent per stage, summed over calls."""

    stages: dict[str, float] = field(default_factory=dict)

    def add(self, stage: str, since: float) -> float:
        now = time.perf_counter()
        self.stages[stage] = self.stages.get(stage, 0.0) + (now - since) * 1000
        return now


class Verifier:
    """Verifies answers against evidence. Thread-safe for concurrent ``verify`` calls as long as
    its components are (the bundled NLI, the encoder and the rule components are)."""

    def __init__(
        self,
        nli: NLIBackend,
        *,
        decomposer: Decomposer | None = None,
        selector: WindowSelector | None = None,
        harm: HarmScorer | None = None,
        thresholds: Thresholds | None = None,
        checks: Sequence[Check] | None = None,
        confidence: ConfidenceModel | None = None,
        review_below: float | None = None,
        relatedness: Relatedness | None = None,
    ) -> None:
        """``confidence`` maps what the engine knows of a claim to P(verdict right); without
        one a claim's confidence is the NLI decision's own probability. ``review_below``: a
        claim whose confidence is below it is marked ``needs_review`` (default: the threshold
        fitted with ``confidence``; None without one: nothing is marked). ``relatedness``: a
        model contradiction of a claim unrelated to its evidence is set aside (None: never)."""
        self.nli = nli
        self.decomposer = decomposer or create_decomposer("rules")
        self.selector = selector or WindowSelector()
        self.harm = harm or get_harm_scorer()
        self.checks = get_checks() if checks is None else tuple(checks)
        self._claim_checks = [c for c in self.checks if c.scope is Scope.CLAIM]
        self._sentence_checks = [c for c in self.checks if c.scope is Scope.SENTENCE]
        self._effects = {name: e for c in self._claim_checks for name, e in c.effects.items()}
        # Calibrated thresholds travel with the model (BundledNLI.thresholds); others use defaults.
        calibrated = getattr(nli, "thresholds", None)
        self.thresholds: Thresholds = thresholds or (
            calibrated if isinstance(calibrated, Thresholds) else Thresholds()
        )
        self.confidence = confidence
        self.roles = load_roles()
        self.relatedness = relatedness
        self.review_below = (
            review_below
            if review_below is not None
            else (confidence.review_below if confidence is not None else None)
        )

    @classmethod
    def from_config(cls, config: VerifierConfig | None = None) -> Verifier:
        """Build from ``verification.verifier`` as :class:`~verifiers.config.VerifierConfig`
        declares and checks it (``verifiers.config.verifier_config(mapping)`` validates a plain
        mapping); None is the shipped verifier."""
        from verifiers.config import VerifierConfig  # it names the judge's settings: a cycle

        config = config or VerifierConfig()
        checks = get_checks(config.checks)
        nli_options = dict(config.nli.options)
        batching = config.batching
        if batching is not None and config.nli.name in BATCH_SIZED_BACKENDS:
            # The bundled model scores one pair per run unless told otherwise; pooled pairs
            # should run as the pooled batch.
            nli_options.setdefault("batch_size", batching.max_pairs)
        nli = create_backend(config.nli.name, **nli_options)
        if batching is not None:
            nli = batched(nli, batching)
        window_options = dict(config.windows.options)
        # Windows as long as the model was trained on (the bundled model says so in its config).
        sizes = getattr(getattr(nli, "config", None), "window_sizes", None)
        if sizes:
            window_options.setdefault("max_sentences", max(sizes))
        encoder: SentenceEncoder | None = None
        # Embedding every evidence sentence costs more than the NLI itself on a small CPU, so
        # the embedding rerank of windows is opt-in; lexical overlap alone is the default.
        if config.windows.embed:
            encoder = shared_encoder()
        # Only a model contradiction is embedded (its claim and windows), so the encoder is
        # loaded on the first one, and shared with retrieval in the proxy's process.
        below = config.unrelated_below
        relatedness = None if below is None else Relatedness(LazyEncoder(), below)
        return cls(
            nli,
            decomposer=create_decomposer(config.decomposer.name, **config.decomposer.options),
            selector=WindowSelector(encoder, **window_options),
            harm=get_harm_scorer(config.harm.name, **config.harm.options),
            checks=checks,
            confidence=_shipped_confidence(nli),
            review_below=config.review_below,
            relatedness=relatedness,
        )

    # -- public API -------------------------------------------------------------------------

    def verify(
        self,
        answer: str,
        evidence: Sequence[Evidence],
        *,
        seconds: float | None = None,
        quotes: Sequence[StrippedQuote] = (),
    ) -> ResponseReport:
        """Verify a whole answer at once. With ``seconds``, sentences are judged in batches and
        none is started past that time: the report is then ``unverified``, says how far it got,
        and the calling thread is free again soon after the deadline (a thread cannot be
        cancelled from outside). ``quotes``: the quotes taken out of ``answer``'s citations
        (``quotes_in_text: strip``); quotes still in the text are read from it."""
        timer = _Timer()
        started = time.perf_counter()
        text = without_surrogates(answer)
        spans = segment(text)
        timer.add("segment", started)
        try:
            require_covered(text, spans, end=len(text))
        except UnsegmentedText as exc:  # the answer cannot be verified: the policy decides
            return self._failed(spans, evidence, str(exc), timer, started, quotes)
        batch = len(spans) if seconds is None else DEADLINE_BATCH
        sentences: list[SentenceAnnotation] = []
        for first in range(0, len(spans), max(batch, 1)):
            if seconds is not None and time.perf_counter() - started > seconds:
                error = (
                    f"verification did not finish within {seconds:g} s "
                    f"({len(sentences)} of {len(spans)} sentences verified)"
                )
                return self.report(sentences, evidence, timer.stages, started, error=error)
            try:
                sentences += self._annotate(
                    spans[first : first + batch], evidence, first, timer, quotes
                )
            except NLIError as exc:
                return self._failed(spans, evidence, str(exc), timer, started, quotes)
        return self.report(sentences, evidence, timer.stages, started)

    async def averify(
        self,
        answer: str,
        evidence: Sequence[Evidence],
        *,
        seconds: float | None = None,
        quotes: Sequence[StrippedQuote] = (),
    ) -> ResponseReport:
        """``verify`` in a worker thread, for async callers."""
        return await anyio.to_thread.run_sync(
            partial(self.verify, seconds=seconds, quotes=quotes), answer, evidence
        )

    def stream(
        self, evidence: Sequence[Evidence], *, max_sentence_chars: int = MAX_SENTENCE_CHARS
    ) -> VerificationStream:
        """Incremental verification of a streamed answer; a sentence still open after
        ``max_sentence_chars`` is judged as it stands (so a stream that never ends a sentence
        costs bounded memory and time)."""
        return VerificationStream(self, evidence, max_sentence_chars=max_sentence_chars)

    def annotate(
        self,
        spans: Sequence[SentenceSpan],
        evidence: Sequence[Evidence],
        *,
        first_index: int = 0,
        quotes: Sequence[StrippedQuote] = (),
    ) -> list[SentenceAnnotation]:
        """Annotate a batch of sentences (offsets into the answer), numbered from
        ``first_index``; ``quotes`` as for ``verify``. Raises ``NLIError``."""
        return self._annotate(spans, evidence, first_index, _Timer(), quotes)

    def report(
        self,
        sentences: Sequence[SentenceAnnotation],
        evidence: Sequence[Evidence],
        latency_ms: Mapping[str, float],
        started: float,
        *,
        error: str | None = None,
    ) -> ResponseReport:
        """The response-level report: AND-join, counts, risk, the evidence checked against.
        With ``error`` it is ``unverified`` for that reason (``ResponseReport.as_unverified``):
        what the sentences say stands, but the answer is never called verified."""
        counts = Counter({v.value: 0 for v in Verdict})
        counts.update(s.verdict.value for s in sentences)
        latency = dict(latency_ms)
        latency["total"] = (time.perf_counter() - started) * 1000
        report = ResponseReport(
            support=response_support(sentences),
            risk=response_risk(sentences),
            faithful=all(_faithful(s) for s in sentences),
            counts=dict(counts),
            sentences=tuple(sentences),
            # Everything the answer was checked against; sentences carry the deciding spans.
            evidence=tuple(
                EvidenceRef(ev.pmid, ev.title, ev.score, ev.retriever) for ev in evidence
            ),
            latency_ms={k: round(v, 2) for k, v in latency.items()},
            model_version=self.nli.version,
            needs_review=sum(c.needs_review for s in sentences for c in s.claims),
        )
        return report if error is None else report.as_unverified(error)

    def restated(
        self, report: ResponseReport, sentences: Sequence[SentenceAnnotation]
    ) -> ResponseReport:
        """``report`` with these sentences in place of its own (the LLM judge re-decided some):
        counts, risk and the AND-join follow them; the error stays (a report that was not
        verified does not become verified)."""
        rebuilt = self.report(sentences, (), report.latency_ms, time.perf_counter())
        verified = report.error is None
        return replace(
            report,
            sentences=rebuilt.sentences,
            counts=rebuilt.counts,
            support=rebuilt.support,
            risk=rebuilt.risk,
            faithful=rebuilt.faithful if verified else report.faithful,
            needs_review=rebuilt.needs_review,
        )

    # -- the pipeline ---------------------------------------------------------------------

    def _annotate(
        self,
        spans: Sequence[SentenceSpan],
        evidence: Sequence[Evidence],
        first_index: int,
        timer: _Timer,
        stripped: Sequence[StrippedQuote] = (),
    ) -> list[SentenceAnnotation]:
        mark = time.perf_counter()
        ids = [ev.pmid for ev in evidence]
        by_id = {ev.pmid: ev for ev in evidence}
        results: dict[int, SentenceAnnotation] = {}
        pending: list[_Pending] = []
        for offset, span in enumerate(spans):
            index = first_index + offset
            citations = _with_stripped(parse_citations(span.text, ids), span.start, stripped)
            quotes = _check_quotes(citations, by_id, evidence)
            in_lead = _in_lead(span, ids)
            from_lead = () if citations else _lent_citations(span, in_lead, ids)
            said = strip_citations(span.text, citations)
            worthy = is_checkworthy(said, span.heading)
            # A paragraph's citation at its end is for its findings, not talk; but a bare name
            # ("SIK1" on a line of its own) is a list written as bare lines, naming its record.
            if from_lead and not span.list_item and not worthy and not _bare_name(said):
                from_lead = ()
            named_here = [c.pmid for c in citations if c.valid]
            cited = tuple(dict.fromkeys(by_id[pmid] for pmid in named_here or from_lead))
            lead = _list_lead(span, said, in_lead, labels=not (citations or from_lead))
            # A bare name in a list, or lent its paragraph's citation (a list written as bare
            # lines), is checked against the record: the model would read a fragment.
            named_only = not lead and (span.list_item or from_lead) and cited
            term = bare_term(said) if named_only else None
            if term or (not lead and not worthy):
                named = self._names_cited(term or said, cited, term=term is not None)
                result = _not_checkworthy(span, index, citations, quotes, named, from_lead)
                if result.verdict is Verdict.UNSUPPORTED:
                    result = self._harmed(result, span)
                results[index] = result
                continue
            candidates = cited or tuple(evidence)
            masked = mask_quotes(span.text)
            premise = quote_premise(quotes, by_id)
            claim_spans = (
                (ClaimSpan(f"{lead} {masked}", 0, len(masked)),)
                if lead
                else self._cut_claims(masked, citations, premise, candidates)
            )
            # A lead entailed by the evidence carries any item along ("... is increased in:"
            # then "- liver"): what the item names must be stated as well.
            lead_term = bare_term(said) if lead else None
            named = self._names_cited(lead_term, candidates, term=True) if lead_term else None
            pending.append(
                _Pending(
                    span,
                    index,
                    citations,
                    candidates,
                    claim_spans,
                    masked,
                    quotes,
                    premise,
                    named if named is not None and not named.passed else None,
                    from_lead,
                )
            )
        mark = timer.add("claims", mark)
        texts = [_claim_text(p, c) for p in pending for c in p.claims]
        outcomes = self._judge(
            texts,
            [item.candidates for item in pending for _ in item.claims],
            timer,
            [item.premise for item in pending for _ in item.claims],
        )
        mark = time.perf_counter()
        harms = iter(self.harm.score_batch(texts))
        judged = iter(outcomes)
        for item in pending:
            claims: list[Claim] = []
            past_quote = False
            for claim_span in item.claims:
                outcome, assessment = next(judged), next(harms)
                if item.unnamed is not None:
                    outcome = _unnamed(outcome, item.unnamed)
                past_quote = past_quote or outcome.past_quote
                claims.append(
                    Claim(
                        text=_claim_text(item, claim_span),
                        start=claim_span.start,
                        end=claim_span.end,
                        verdict=outcome.verdict,
                        support=support_of(outcome.verdict) or 0.0,
                        confidence=outcome.confidence,
                        harm=assessment.level,
                        harm_reasons=assessment.reasons,
                        evidence=outcome.evidence,
                        checks=outcome.checks,
                        decided_by=RESTATED_BY if outcome.signals.restated else self.nli.version,
                        needs_review=outcome.needs_review,
                    )
                )
            own = self._sentence_results(item)
            judged_against = _premise(item, past_quote)
            results[item.index] = _sentence(
                item, tuple(claims), own, self.nli.version, judged_against
            )
        timer.add("harm", mark)
        return [results[i] for i in sorted(results)]

    def _cut_claims(
        self,
        masked: str,
        citations: Sequence[Citation],
        premise: Sequence[Window] | None,
        candidates: Sequence[Evidence],
    ) -> tuple[ClaimSpan, ...]:
        """The claims of a sentence (``masked``: its quotes blanked). A sentence that is, word
        for word, a whole clause of its evidence (its quote's sentences; where it quotes
        nothing, any sentence of what it cites) is one claim: cut at its commas, a clause is
        read without the words the evidence gives it too, and a clause lent a subject can be
        lent the wrong one ("X leads to the conclusion that Y cannot exceed 25%, and is probably
        lower" gave "X is probably lower", which the model contradicted)."""
        whole = ClaimSpan(masked, 0, len(masked))
        copied = (
            [window.text for window in premise]
            if premise is not None
            else [s.text for record in candidates for s in evidence_sentences(record)]
        )
        if restates(_claim_words(masked, citations, whole), copied):
            return (whole,)
        return tuple(self.decomposer.decompose(masked))

    def _names_cited(
        self, text: str, cited: Sequence[Evidence], *, term: bool = False
    ) -> CheckResult | None:
        """Whether the names a sentence with nothing to judge gives are in what it cites ("- BRCA1
        [PMID:1]" under a label): a cited name is a claim about the record, and a list of wrong
        names went out as talk. ``term``: ``text`` is what a bare list item names
        (``bare_term``), whose words the record must state when it names no symbol or drug ("-
        fever [PMID:1]"). None where it cites nothing or names nothing."""
        if not cited:
            return None
        records = [(ev.pmid, f"{ev.title}\n{ev.abstract}") for ev in cited]
        named = check_entities(
            text,
            records,
            {ev.pmid: self.selector.abbreviations(ev) for ev in cited},
            self.selector.defined_in(text),
        )
        if named is None and term:
            return check_cited_term(text, records)
        return named

    def _harmed(self, sentence: SentenceAnnotation, span: SentenceSpan) -> SentenceAnnotation:
        """A sentence with no claim that failed a check, with the harm of what it names read
        with the line that introduced its list ("Contraindicated drugs: ketoprofen")."""
        text = strip_citations(sentence.text, sentence.citations)
        lead = span.lead.strip().rstrip(":").strip()
        [harm] = self.harm.score_batch([f"{lead}: {text}" if lead else text])
        return _scored(replace(sentence, harm=harm.level, harm_reasons=harm.reasons))

    def _sentence_results(self, item: _Pending) -> tuple[CheckResult, ...]:
        """The sentence-scope checks' results (quotes): the sentence against its abstracts."""
        subject = CheckInput(item.masked, item.candidates)
        found = tuple(r for check in self._sentence_checks for r in check.run(subject))
        return found + tuple(_quote_result(q) for q in item.quotes)

    # -- NLI ------------------------------------------------------------------------------

    def judge_claims(
        self,
        claims: Sequence[str],
        candidates: Sequence[Sequence[Evidence]],
        premises: Sequence[tuple[Window, ...] | None] = (),
    ) -> list[ClaimJudgement]:
        """Judge each claim (plain text, no citation markers) against its candidate evidence,
        as the engine judges the claims of an answer; ``premises[i]``, where given, are the
        sentences claim ``i``'s quote stands in (``quote_premise``). ``veriproxy eval`` and the
        fitting of the confidence model read claims through here. Raises ``NLIError``."""
        return self._judge(claims, [tuple(c) for c in candidates], _Timer(), premises)

    def _judge(
        self,
        texts: Sequence[str],
        candidates: Sequence[tuple[Evidence, ...]],
        timer: _Timer,
        premises: Sequence[tuple[Window, ...] | None] = (),
    ) -> list[ClaimJudgement]:
        """``premises[i]``, where given and not None, are the windows claim ``i`` is judged
        against (a quoted citation's sentences); the others get windows chosen for them."""
        mark = time.perf_counter()
        premises = list(premises) or [None] * len(texts)
        open_claims = [i for i, p in enumerate(premises) if p is None]
        selected = iter(
            self.selector.select(
                [texts[i] for i in open_claims], [candidates[i] for i in open_claims]
            )
            if open_claims
            else []
        )
        windows = [list(p) if p is not None else next(selected) for p in premises]
        # A claim that repeats a whole clause of one of its windows is not put to the model.
        restated = [restated_sentence(t, ws) for t, ws in zip(texts, windows, strict=True)]
        mark = timer.add("windows", mark)
        scored = [ws if r is None else [] for ws, r in zip(windows, restated, strict=True)]
        pairs = [NLIPair(w.text, text) for text, ws in zip(texts, scored, strict=True) for w in ws]
        scores = iter(self.nli.predict(pairs) if pairs else [])
        local = [[next(scores) for _ in ws] for ws in scored]
        decisions = [decide(s, self.thresholds) for s in local]
        # Global pass: claims the local decision left undecided, over their best windows joined.
        undecided = [
            i
            for i, d in enumerate(decisions)
            if d.label is NLILabel.NEUTRAL and len(windows[i]) > 1 and restated[i] is None
        ]
        joined = [
            " ".join(w.text for w in _in_order(windows[i][:GLOBAL_WINDOWS])) for i in undecided
        ]
        global_scores = (
            self.nli.predict([NLIPair(p, texts[i]) for p, i in zip(joined, undecided, strict=True)])
            if undecided
            else []
        )
        global_decisions = dict(zip(undecided, global_scores, strict=True))
        mark = timer.add("nli", mark)
        outcomes: list[ClaimJudgement] = []
        for i, found in enumerate(restated):
            if found is not None:
                outcomes.append(self._restated(texts[i], candidates[i], found))
                continue
            outcomes.append(
                self._outcome(
                    texts[i],
                    candidates[i],
                    windows[i],
                    local[i],
                    decisions[i],
                    global_decisions.get(i),
                    quote_windows=len(premises[i] or ()),
                )
            )
        self._read_past_quotes(texts, candidates, premises, decisions, outcomes)
        timer.add("checks", mark)
        return outcomes

    def _read_past_quotes(
        self,
        texts: Sequence[str],
        candidates: Sequence[tuple[Evidence, ...]],
        premises: Sequence[tuple[Window, ...] | None],
        decisions: Sequence[Decision],
        outcomes: list[ClaimJudgement],
    ) -> None:
        """Quoted claims that every check passes against their quote but the model leaves
        undecided are read once more against windows of the cited abstracts, as an unquoted
        claim is, and ``supported`` where one of them entails the claim (a quote is often
        shorter than the finding it cites). Only support is taken past the quote: what the
        quote's words fail stays failed, the quote is never read as contradicted from elsewhere,
        and the checks read the quote and the supporting window (865 held-out answers with
        quotes: 13 more correct sentences supported, 3 distortions fewer caught; see
        docs/nli-model.md). Replaces those outcomes."""
        open_claims = [
            i
            for i, premise in enumerate(premises)
            if premise is not None
            and decisions[i].label is NLILabel.NEUTRAL
            and outcomes[i].verdict is Verdict.UNSUPPORTED
            and not outcomes[i].signals.restated
            and all(c.passed for c in outcomes[i].checks)
        ]
        if not open_claims:
            return
        selected = self.selector.select(
            [texts[i] for i in open_claims], [candidates[i] for i in open_claims]
        )
        past = [
            _outside(windows, premises[i] or ())
            for i, windows in zip(open_claims, selected, strict=True)
        ]
        pairs = [
            NLIPair(w.text, texts[i]) for i, ws in zip(open_claims, past, strict=True) for w in ws
        ]
        scores = iter(self.nli.predict(pairs) if pairs else [])
        for i, windows in zip(open_claims, past, strict=True):
            local = [next(scores) for _ in windows]
            decision = decide(local, self.thresholds)
            if decision.label is not NLILabel.ENTAILMENT or decision.window is None:
                continue
            quote = premises[i] or ()
            outcomes[i] = replace(
                self._outcome(
                    texts[i],
                    candidates[i],
                    (*quote, *windows),
                    (*outcomes[i].signals.scores, *local),
                    replace(decision, window=len(quote) + decision.window),
                    None,
                    quote_windows=len(quote),
                ),
                past_quote=True,
            )

    def _outcome(
        self,
        text: str,
        candidates: tuple[Evidence, ...],
        windows: Sequence[Window],
        scores: Sequence[NLIScores],
        decision: Decision,
        global_scores: NLIScores | None,
        *,
        quote_windows: int = 0,
    ) -> ClaimJudgement:
        """``quote_windows``: how many of ``windows``, first, hold the claim's quote (0: it
        has none)."""
        label, confidence = decision.label, decision.confidence
        decided: list[tuple[Window, NLIScores]] = []  # the window(s) the label rests on
        if decision.window is not None and decision.label is not NLILabel.NEUTRAL:
            decided = [(windows[decision.window], scores[decision.window])]
        global_decided = False
        if global_scores is not None:
            joined = decide([global_scores], self.thresholds)
            if joined.label is not NLILabel.NEUTRAL:
                label, confidence, global_decided = joined.label, joined.confidence, True
                decided = [(w, global_scores) for w in _in_order(windows[:GLOBAL_WINDOWS])]
        set_aside: tuple[CheckResult, ...] = ()
        if label is NLILabel.CONTRADICTION and decided:
            reread = self._reread_numbers(text, [w for w, _ in decided], global_decided)
            if reread is not None:
                label, confidence, decided, set_aside = reread
        # Contradictions the small model is known to misread are set aside: a study's aim or
        # methods report no finding ("To determine whether X reduces Y" against "X did not
        # reduce Y"), and two negations that agree are no opposition.
        reason = (
            self._set_aside_reason(text, [w for w, _ in decided], global_decided)
            if label is NLILabel.CONTRADICTION and decided
            else None
        )
        if reason is not None:
            name, detail = reason
            set_aside = tuple(
                CheckResult(name, False, detail.format(w.text[:120]), w.pmid) for w, _ in decided
            )
            label, confidence, decided = NLILabel.NEUTRAL, decided[0][1].neutral, []
        spans = [_span(w, s) for w, s in decided]
        # The checks of a claim the model supports read the window(s) that decided it, so a name
        # the claim adds that only another window holds does not ride on that support (865
        # held-out answers: 6 more swapped entities caught, no correct sentence lost). A quoted
        # claim's checks read its quote, and the window past it that supports it, if one does.
        supported_by = [w for w, _ in decided] if label is NLILabel.ENTAILMENT else []
        quote = tuple(windows[:quote_windows])
        if quote:
            read = (*quote, *(w for w in supported_by if w not in quote))
        else:
            read = tuple(supported_by or windows)
        checks = set_aside + self._claim_results(text, candidates, read, quoted=bool(quote))
        verdict = {
            NLILabel.ENTAILMENT: Verdict.SUPPORTED,
            NLILabel.CONTRADICTION: Verdict.CONTRADICTED,
            NLILabel.NEUTRAL: Verdict.UNSUPPORTED,
        }[label]
        verdict, confidence, failed = self._with_checks(verdict, confidence, checks)
        signals = ClaimSignals(
            claim=text,
            verdict=verdict,
            nli_confidence=confidence,
            scores=tuple(scores),
            windows=tuple(w.text for w in windows),
            global_decided=global_decided,
            failed_effects=tuple(e.value for e in failed),
            passed_checks=sum(c.passed for c in checks),
            quoted=bool(quote),
        )
        if self.confidence is not None:
            confidence = self.confidence.probability(signals)
        needs_review = self.review_below is not None and confidence < self.review_below
        return ClaimJudgement(
            verdict, round(confidence, 4), needs_review, tuple(spans), checks, signals
        )

    def _reread_numbers(
        self, claim: str, windows: Sequence[Window], joined: bool
    ) -> tuple[NLILabel, float, list[tuple[Window, NLIScores]], tuple[CheckResult, ...]] | None:
        """The label, confidence, deciding windows and result of the claim read against
        ``windows`` (joined, as they decided, when ``joined``) with the values of both written
        alike, where one side writes a value otherwise and so read the claim is not
        contradicted; None otherwise."""
        alike = written_alike(claim, [(w.pmid, w.text) for w in windows])
        if alike is None:
            return None
        reworded, texts = alike
        premises = [" ".join(texts)] if joined else texts
        scores = self.nli.predict([NLIPair(p, reworded) for p in premises])
        decision = decide(scores, self.thresholds)
        if decision.label is NLILabel.CONTRADICTION:
            return None
        decided: list[tuple[Window, NLIScores]] = []
        if decision.label is NLILabel.ENTAILMENT and decision.window is not None:
            decided = (
                [(w, scores[0]) for w in windows]
                if joined
                else [(windows[decision.window], scores[decision.window])]
            )
        result = CheckResult(
            NUMBERS_REREAD, True, _NUMBERS_REREAD.format(reworded), windows[0].pmid
        )
        return decision.label, decision.confidence, decided, (result,)

    def _set_aside_reason(
        self, claim: str, windows: Sequence[Window], joined: bool
    ) -> tuple[str, str] | None:
        """The check name and detail of a reason to set aside a model contradiction drawn from
        ``windows`` (joined, as they decided, when ``joined``), or None to keep it."""
        if self.relatedness is not None:
            similarity = self.relatedness.unrelated(claim, [w.text for w in windows])
            if similarity is not None:
                return UNRELATED, _UNRELATED.format(
                    similarity=similarity, below=self.relatedness.below
                )
        design = self._design_reason(claim, windows, joined)
        if design is not None:
            return FINDING, design
        if self._negation_led(claim, windows, joined):
            return SHARED_NEGATION, _SHARED_NEGATION
        return None

    def _negation_led(self, claim: str, windows: Sequence[Window], joined: bool) -> bool:
        """Whether the claim and every deciding window are negated alike (each negated clause of
        the claim faces a negated clause) and, their negation words taken out of both, the model
        no longer reads a contradiction (one more NLI pair per window). A flipped negation is a
        negated side against an affirmative one: untouched."""
        premises = [" ".join(w.text for w in windows)] if joined else [w.text for w in windows]
        if not all(negated_alike(claim, p) for p in premises):
            return False
        hypothesis = without_negation(claim)
        scores = self.nli.predict([NLIPair(without_negation(p), hypothesis) for p in premises])
        return decide(scores, self.thresholds).label is not NLILabel.CONTRADICTION

    def _design_reason(self, claim: str, windows: Sequence[Window], joined: bool) -> str | None:
        """Why a model contradiction from ``windows`` rests on the study's design, or None if it
        does not: every window states design only, or holds a design sentence, and scored
        apart (joined, as the windows decided, when ``joined``), the design sentences
        contradict the claim and the rest does not."""
        parts = [self.roles.split(w.text) for w in windows]
        if not all(design for design, _ in parts):
            return None  # a window without a design sentence decided
        reports = [" ".join(r) for _, r in parts if r]
        if not reports:
            return _DESIGN_ONLY
        designs = [" ".join(d) for d, _ in parts]
        if joined:
            designs, reports = [" ".join(designs)], [" ".join(reports)]
        scores = self.nli.predict([NLIPair(p, claim) for p in (*designs, *reports)])
        by_design = decide(scores[: len(designs)], self.thresholds).label
        by_reports = decide(scores[len(designs) :], self.thresholds).label
        if by_design is NLILabel.CONTRADICTION and by_reports is not NLILabel.CONTRADICTION:
            return _DESIGN_LED
        return None

    def _restated(
        self,
        text: str,
        candidates: tuple[Evidence, ...],
        window: Window,
    ) -> ClaimJudgement:
        """A claim that repeats a whole clause of ``window`` (the sentence holding it):
        supported, the sentence its evidence, unless a deterministic check says otherwise; no
        model was asked."""
        span = EvidenceSpan(
            window.pmid, window.title, window.text, window.start, window.end,
            NLILabel.ENTAILMENT, 1.0,
        )  # fmt: skip
        # The checks read the sentence it restates, as they read a quote's: another sentence
        # of the abstract would be compared with a claim that is none of its words.
        checks = self._claim_results(text, candidates, (window,), quoted=True)
        verdict, confidence, failed = self._with_checks(
            Verdict.SUPPORTED, RESTATED_CONFIDENCE, checks
        )
        signals = ClaimSignals(
            claim=text,
            verdict=verdict,
            nli_confidence=confidence,
            scores=(),
            windows=(window.text,),
            failed_effects=tuple(e.value for e in failed),
            passed_checks=sum(c.passed for c in checks),
            restated=True,
        )
        needs_review = self.review_below is not None and confidence < self.review_below
        return ClaimJudgement(verdict, confidence, needs_review, (span,), checks, signals)

    def _with_checks(
        self, verdict: Verdict, confidence: float, checks: Sequence[CheckResult]
    ) -> tuple[Verdict, float, tuple[Effect, ...]]:
        """The verdict and confidence once the failed checks had their effect, and the effects."""
        failed = tuple(
            self._effects[c.name] for c in checks if not c.passed and c.name in self._effects
        )
        effects = set(failed)
        if Effect.CONTRADICTS in effects or (
            Effect.REFUTES_SUPPORT in effects and verdict is Verdict.SUPPORTED
        ):
            verdict, confidence = Verdict.CONTRADICTED, max(confidence, 0.5)
        elif Effect.WITHHOLDS_SUPPORT in effects and verdict is Verdict.SUPPORTED:
            verdict = Verdict.UNSUPPORTED
        return verdict, confidence, failed

    def _claim_results(
        self,
        text: str,
        candidates: tuple[Evidence, ...],
        windows: Sequence[Window],
        *,
        quoted: bool = False,
    ) -> tuple[CheckResult, ...]:
        """The claim-scope checks' results, in the order the checks were configured. A claim
        judged against its quote is checked against the quote's sentences alone."""
        if not self._claim_checks:
            return ()
        sentences = (
            tuple((w.pmid, w.text) for w in windows)
            if quoted
            else tuple((ev.pmid, s.text) for ev in candidates for s in evidence_sentences(ev))
        )
        subject = CheckInput(
            text,
            () if quoted else candidates,
            windows=tuple(windows),
            sentences=sentences,
            abbreviations={ev.pmid: self.selector.abbreviations(ev) for ev in candidates},
            defined=self.selector.defined_in(text),
        )
        return tuple(r for check in self._claim_checks for r in check.run(subject))

    def _failed(
        self,
        spans: Sequence[SentenceSpan],
        evidence: Sequence[Evidence],
        error: str,
        timer: _Timer,
        started: float,
        stripped: Sequence[StrippedQuote] = (),
    ) -> ResponseReport:
        """NLI could not run: report what the deterministic steps found (citations, quotes),
        never "verified"."""
        ids = [ev.pmid for ev in evidence]
        by_id = {ev.pmid: ev for ev in evidence}
        sentences = []
        for index, span in enumerate(spans):
            citations = _with_stripped(parse_citations(span.text, ids), span.start, stripped)
            quotes = _check_quotes(citations, by_id, evidence)
            said = strip_citations(span.text, citations)
            verdict = Verdict.UNSUPPORTED
            if any(not c.valid for c in citations):
                verdict = Verdict.INVALID_CITATION
            elif not is_checkworthy(said, span.heading) and not _list_lead(
                span, said, _in_lead(span, ids), labels=not citations
            ):
                verdict = Verdict.NOT_CHECKWORTHY
            annotation = SentenceAnnotation(
                index,
                span.text,
                span.start,
                span.end,
                verdict,
                0.0,
                citations,
                checks=tuple(_quote_result(q) for q in quotes),
                quotes=quotes,
            )
            sentences.append(_scored(annotation))
        return self.report(sentences, evidence, timer.stages, started, error=error)


class VerificationStream:
    """Feed text deltas of a streamed answer; get annotations as sentences complete."""

    def __init__(
        self,
        verifier: Verifier,
        evidence: Sequence[Evidence],
        *,
        max_sentence_chars: int = MAX_SENTENCE_CHARS,
    ) -> None:
        self._verifier = verifier
        self._evidence = tuple(evidence)
        # With no evidence a citation lends nothing: no sentence waits for its list's or
        # paragraph's end.
        self._segmenter = StreamSegmenter(max_sentence_chars, closings=bool(self._evidence))
        self._sentences: list[SentenceAnnotation] = []
        self._timer = _Timer()
        self._started = time.perf_counter()
        self._error: str | None = None
        self._quotes: list[StrippedQuote] = []
        self._covered = 0  # the text up to here lies in the sentences emitted (but for space)

    def feed(self, delta: str, quotes: Sequence[StrippedQuote] = ()) -> list[SentenceAnnotation]:
        """Annotations of the sentences that ``delta`` completed (often none). ``quotes``: the
        quotes taken out of this delta's citations (offsets into the whole answer so far)."""
        self._quotes.extend(quotes)
        spans = self._segmenter.feed(without_surrogates(delta))
        # Before any of them is released: no word between them may have gone unseen.
        self._covered = require_covered(self._segmenter.text, spans, self._covered)
        return self._annotate(spans)

    def finish(self) -> ResponseReport:
        """Annotate the last sentence(s) and return the response-level report. Raises
        ``UnsegmentedText`` (as ``feed`` does) where a word lies outside every sentence."""
        spans = self._segmenter.flush()
        text = self._segmenter.text
        self._covered = require_covered(text, spans, self._covered, len(text))
        self._annotate(spans)
        return self._verifier.report(
            self._sentences, self._evidence, self._timer.stages, self._started, error=self._error
        )

    async def afeed(
        self, delta: str, quotes: Sequence[StrippedQuote] = ()
    ) -> list[SentenceAnnotation]:
        return await anyio.to_thread.run_sync(self.feed, delta, quotes)

    async def afinish(self) -> ResponseReport:
        return await anyio.to_thread.run_sync(self.finish)

    def _annotate(self, spans: Sequence[SentenceSpan]) -> list[SentenceAnnotation]:
        if not spans:
            return []
        try:
            annotated = self._verifier._annotate(
                spans, self._evidence, len(self._sentences), self._timer, self._quotes
            )
        except NLIError as exc:
            self._error = str(exc)
            failed = self._verifier._failed(
                spans, self._evidence, str(exc), self._timer, time.perf_counter(), self._quotes
            )
            annotated = [
                replace(s, index=len(self._sentences) + i) for i, s in enumerate(failed.sentences)
            ]
        self._sentences.extend(annotated)
        return annotated


# -- assembling annotations -----------------------------------------------------------------


def _claim_text(item: _Pending, claim: ClaimSpan) -> str:
    """The claim without its citation markers."""
    return _claim_words(item.masked, item.citations, claim)


def _claim_words(masked: str, citations: Sequence[Citation], claim: ClaimSpan) -> str:
    """``claim`` of the sentence ``masked`` without its citation markers (removed by text: an
    LLM or a resolved pronoun may have changed the claim's wording around them)."""
    text = claim.text
    for citation in citations:
        if claim.start <= citation.start and citation.end <= claim.end:
            text = text.replace(masked[citation.start : citation.end], " ")
    text = as_prose(text)
    return _as_sentence(_SPACE_BEFORE_PUNCT.sub(r"\1", " ".join(text.split())).strip())


def _as_sentence(claim: str) -> str:
    """A claim cut from an answer, written as a sentence: it ends in a full stop. Where an
    answer's claim ends is an accident of its layout ("X [PMID:1]" in a list, "X [PMID:1].",
    the first clause of "X, but Y"), and the model's stance on a borderline claim moved with
    the full stop alone. A claim handed in on its own (``judge_claims``) is read as written."""
    text = claim.rstrip()
    if not text or text.rstrip(_CLOSERS)[-1:] in _SENTENCE_END:
        return text  # 'he said "X."' ends as a sentence does
    return text.rstrip(",;:") + "."


def _outside(windows: Sequence[Window], quote: Sequence[Window]) -> list[Window]:
    """``windows`` but those spanning exactly a quote window (its words were read already)."""
    read = {(q.pmid, q.start, q.end) for q in quote}
    return [w for w in windows if (w.pmid, w.start, w.end) not in read]


def _premise(item: _Pending, past_quote: bool) -> Premise:
    if item.premise is None:
        return Premise.WINDOWS
    return Premise.QUOTE_AND_WINDOW if past_quote else Premise.QUOTE


def _sentence(
    item: _Pending,
    claims: tuple[Claim, ...],
    own: tuple[CheckResult, ...],
    decided_by: str,
    premise: Premise,
) -> SentenceAnnotation:
    sentence = SentenceAnnotation(
        index=item.index,
        text=item.span.text,
        start=item.span.start,
        end=item.span.end,
        verdict=Verdict.UNSUPPORTED,
        confidence=0.0,
        citations=item.citations,
        checks=own,
        decided_by=decided_by,
        quotes=item.quotes,
        premise=premise,
        lead_citations=item.lead_citations,
    )
    return with_claims(sentence, claims)


def with_claims(sentence: SentenceAnnotation, claims: tuple[Claim, ...]) -> SentenceAnnotation:
    """``sentence`` with these claims and everything that follows from them: the verdict (the
    claims', then its citations' and quotes'), confidence, harm, risk and deciding evidence.
    The LLM judge uses it to restate a sentence whose claims it re-decided."""
    # The sentence's own results (sentence-scope checks: quotes) are those no claim carries.
    carried = {check for claim in sentence.claims for check in claim.checks}
    own = tuple(c for c in sentence.checks if c not in carried)
    verdicts = [c.verdict for c in claims]
    if Verdict.CONTRADICTED in verdicts:
        verdict = Verdict.CONTRADICTED
    elif verdicts and all(v is Verdict.SUPPORTED for v in verdicts):
        verdict = Verdict.SUPPORTED
    elif Verdict.SUPPORTED in verdicts:
        verdict = Verdict.PARTIALLY_SUPPORTED
    else:
        verdict = Verdict.UNSUPPORTED
    if verdict is Verdict.SUPPORTED and any(not c.passed for c in own):
        verdict = Verdict.PARTIALLY_SUPPORTED  # the claims hold but, say, the quoted words do not
    if any(not c.valid for c in sentence.citations):
        verdict = Verdict.INVALID_CITATION
    elif (
        not (sentence.citations or sentence.lead_citations) and verdict is not Verdict.CONTRADICTED
    ):
        verdict = Verdict.UNCITED
    harm = max((c.harm for c in claims), default=1)
    reasons = tuple(dict.fromkeys(r for c in claims if c.harm == harm for r in c.harm_reasons))
    review = _review_reason(verdict, claims)
    return replace(
        sentence,
        verdict=verdict,
        needs_review=bool(review),
        review_reason=review,
        confidence=min((c.confidence for c in claims), default=0.0),
        evidence=tuple(dict.fromkeys(span for c in claims for span in c.evidence)),
        claims=claims,
        harm=harm,
        harm_reasons=reasons,
        support=claims_support(claims),
        risk=claims_risk(claims),
        checks=own + tuple(check for c in claims for check in c.checks),
    )


def _review_reason(verdict: Verdict, claims: Sequence[Claim]) -> str:
    """Why the sentence needs review ('' when it does not): the claims that decide its verdict
    include one the verifier cannot vouch for. A contradiction needs every contradicted claim
    to be in doubt (one sure contradiction decides); any other verdict needs all its claims."""
    if verdict is Verdict.INVALID_CITATION:
        return ""  # decided by the citation, whatever the claims say
    contradicted = [c for c in claims if c.verdict is Verdict.CONTRADICTED]
    if contradicted and not all(c.needs_review for c in contradicted):
        return ""
    doubtful = [c for c in (contradicted or claims) if c.needs_review]
    if not doubtful:
        return ""
    claim = min(doubtful, key=lambda c: c.confidence)
    return (
        f"{claim.verdict.value} at confidence {claim.confidence:.2f} (the calibrated "
        f"probability that this verdict is right) is below the review threshold: "
        f"'{claim.text[:80]}'"
    )


def _unnamed(outcome: ClaimJudgement, failed: CheckResult) -> ClaimJudgement:
    """``outcome`` with the failed check of what a list item names: support withheld."""
    verdict = outcome.verdict
    if verdict in (Verdict.SUPPORTED, Verdict.PARTIALLY_SUPPORTED):
        verdict = Verdict.UNSUPPORTED
    return replace(outcome, verdict=verdict, checks=(*outcome.checks, failed))


def _in_lead(span: SentenceSpan, ids: Sequence[str]) -> tuple[Citation, ...]:
    """The citations of the line that introduced a list item's list (none for a sentence
    outside a list), parsed once for ``_lent_citations`` and ``_list_lead``."""
    return parse_citations(span.lead, ids) if span.lead else ()


def _lent_citations(
    span: SentenceSpan, in_lead: Sequence[Citation], ids: Sequence[str]
) -> tuple[str, ...]:
    """The PMIDs a sentence that cites nothing itself is judged against, as cited: those the
    line introducing its list cites validly ("Key findings of the trial [PMID:1]:"), else those
    its list or paragraph cites once at its end (``SentenceSpan.closing``: "- metformin\n-
    insulin [PMID:1]", "Metformin is first-line. It lowers glucose [PMID:1]."). References
    never given lend nothing: the sentence is uncited."""
    cited = [c for c in in_lead if c.valid] or [
        c for c in parse_citations(span.closing, ids) if c.valid
    ]
    return tuple(dict.fromkeys(c.pmid for c in cited))


def _bare_name(said: str) -> bool:
    """Whether ``said`` is nothing but a name (a bare term naming a symbol or drug, not a
    generic one): "SIK1", not "Great question" or "DNA"."""
    return bare_term(said) is not None and bool(specific_names(said))


def _list_lead(
    span: SentenceSpan, said: str, in_lead: Sequence[Citation], *, labels: bool
) -> str | None:
    """For a list item that is no clause of its own (``said``: its words without citations),
    the words of the line that introduced its list that make it a claim
    (``checkworthy.list_lead``; ``labels``: a label completes it too), citations left out."""
    if not span.lead:
        return None
    return list_lead(strip_citations(span.lead, in_lead), said, labels=labels)


def _not_checkworthy(
    span: SentenceSpan,
    index: int,
    citations: tuple[Citation, ...],
    quotes: tuple[QuoteCheck, ...] = (),
    named: CheckResult | None = None,
    lead_citations: tuple[str, ...] = (),
) -> SentenceAnnotation:
    """Nothing to judge, unless it cites a reference that was never given, or names what the
    records it (or its list's lead) cites never name (``named``: ``Verifier._names_cited``,
    then ``unsupported``); what it quotes is still checked (a misquote is reported whatever the
    sentence around it says)."""
    fabricated = any(not c.valid for c in citations)
    verdict = Verdict.INVALID_CITATION if fabricated else Verdict.NOT_CHECKWORTHY
    if not fabricated and named is not None and not named.passed:
        verdict = Verdict.UNSUPPORTED
    checks = tuple(_quote_result(q) for q in quotes) + ((named,) if named is not None else ())
    return _scored(
        SentenceAnnotation(
            index,
            span.text,
            span.start,
            span.end,
            verdict,
            1.0,
            citations,
            checks=checks,
            quotes=quotes,
            lead_citations=lead_citations,
        )
    )


def _scored(sentence: SentenceAnnotation) -> SentenceAnnotation:
    """A sentence without claims, with the support and risk its own verdict gives."""
    return replace(sentence, support=sentence_support(sentence), risk=sentence_risk(sentence))


def _faithful(sentence: SentenceAnnotation) -> bool:
    """AND-join member: a check-worthy sentence counts only when all its claims are supported
    and every citation is real."""
    if sentence.verdict is Verdict.NOT_CHECKWORTHY:
        return all(c.valid for c in sentence.citations)
    return (
        sentence.verdict is not Verdict.INVALID_CITATION
        and all(c.verdict is Verdict.SUPPORTED for c in sentence.claims)
        and bool(sentence.claims)
    )


def _span(window: Window, scores: NLIScores) -> EvidenceSpan:
    label = scores.label
    score = {
        NLILabel.ENTAILMENT: scores.entailment,
        NLILabel.NEUTRAL: scores.neutral,
        NLILabel.CONTRADICTION: scores.contradiction,
    }[label]
    return EvidenceSpan(
        window.pmid, window.title, window.text, window.start, window.end, label, round(score, 4)
    )


def _in_order(windows: Sequence[Window]) -> list[Window]:
    """Windows in reading order (abstract, then position), overlaps removed."""
    ordered: list[Window] = []
    for window in sorted(windows, key=lambda w: (w.pmid, w.first)):
        if ordered and ordered[-1].pmid == window.pmid and window.first <= ordered[-1].last:
            continue
        ordered.append(window)
    return ordered


# -- quoted citations ------------------------------------------------------------------------

QUOTED_CITATION_CHECK = "quoted_citation"  # the name of a quote's result among a sentence's


def _with_stripped(
    citations: tuple[Citation, ...], sentence_start: int, stripped: Sequence[StrippedQuote]
) -> tuple[Citation, ...]:
    """The citations with the quotes the proxy took out of their brackets put back (matched by
    the bracket's offsets in the answer, then by PMID where a bracket had several quotes)."""
    if not stripped:
        return citations
    restored = []
    for citation in citations:
        at = (sentence_start + citation.start, sentence_start + citation.end)
        here = [q for q in stripped if (q.start, q.end) == at]
        quote = next((q for q in here if citation.pmid in q.pmids), None)
        if quote is None and len(here) == 1:
            quote = here[0]  # a numbered reference ([1 "…"]): its PMID is resolved
        restored.append(replace(citation, quote=quote.quote) if quote else citation)
    return tuple(restored)


def _check_quotes(
    citations: Sequence[Citation], by_id: Mapping[str, Evidence], evidence: Sequence[Evidence]
) -> tuple[QuoteCheck, ...]:
    """Each quote of the sentence checked against the abstracts it was cited with (the rest
    of the evidence tells a quote from another abstract from a misquote)."""
    cited_with: dict[tuple[int, str], list[str]] = {}
    for citation in citations:
        if citation.quote:
            cited_with.setdefault((citation.start, citation.quote), []).append(citation.pmid)
    checks = []
    for (_, quote), pmids in cited_with.items():
        cited = [by_id[p] for p in dict.fromkeys(pmids) if p in by_id]
        others = [ev for ev in evidence if ev.pmid not in pmids]
        checks.append(check_quote(quote, cited, others))
    return tuple(checks)


def quote_premise(
    quotes: Sequence[QuoteCheck], by_id: Mapping[str, Evidence]
) -> tuple[Window, ...] | None:
    """The abstract sentences that hold the sentence's quotes found where they were cited, as
    windows (one per quote); None when no quote is usable (then windows are chosen)."""
    windows = []
    for quote in quotes:
        record = by_id.get(quote.found_in or "")
        if quote.status is not QuoteStatus.FOUND or record is None:
            continue
        spans = [s for s in quote.spans if not s.in_title]
        if not spans:
            continue  # words of the title: no sentence to judge against
        sentences = evidence_sentences(record)
        touched = [
            i
            for i, sentence in enumerate(sentences)
            if any(sentence.start < s.end and s.start < sentence.end for s in spans)
        ]
        if not touched:
            continue
        first, last = touched[0], touched[-1]
        start, end = _narrowed(record.abstract, sentences[first].start, sentences[last].end, spans)
        window = Window(
            record.pmid, record.title, record.abstract[start:end], start, end, first, last, 1.0
        )
        if window not in windows:
            windows.append(window)
    return tuple(windows) or None


def _narrowed(abstract: str, start: int, end: int, spans: Sequence[QuoteSpan]) -> tuple[int, int]:
    """``abstract[start:end]`` cut to the sentences the quote touches, where the record's own
    "sentences" are passages (snippets, sections): the model reads 128 tokens, and words past
    them, or a negated neighbour, would decide instead of the quote's sentence."""
    pieces = [
        (start + p.start, start + p.end)
        for p in segment(abstract[start:end])
        if any(start + p.start < s.end and s.start < start + p.end for s in spans)
    ]
    return (pieces[0][0], pieces[-1][1]) if pieces else (start, end)


def _quote_result(quote: QuoteCheck) -> CheckResult:
    """A quote's outcome as one of the sentence's check results: a failed one keeps the
    sentence from ``supported``."""
    if quote.status is QuoteStatus.FOUND:
        return CheckResult(QUOTED_CITATION_CHECK, True, f"quote found: {quote.quote!r}", quote.pmid)
    if quote.status is QuoteStatus.OTHER_ABSTRACT:
        detail = f"quote is from PMID {quote.found_in}, not the abstract cited: {quote.quote!r}"
    else:
        detail = f"misquote: {quote.difference or 'not in the cited abstract'}: {quote.quote!r}"
    return CheckResult(QUOTED_CITATION_CHECK, False, detail, quote.pmid)


def _shipped_confidence(nli: NLIBackend) -> ConfidenceModel | None:
    """The confidence model fitted for this backend's model, where one ships beside it (the
    bundled model's ``confidence.json``); others keep the model's own probabilities."""
    model_dir = getattr(nli, "model_dir", None)
    if model_dir is None:
        return None
    return load_confidence(Path(model_dir), nli.version)
