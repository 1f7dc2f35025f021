"""A sentence with a quoted citation is judged against its quote (issue 30), on an NLI model
that entails everything: what these tests show is what the engine does with quotes (which
premise, which checks, what a misquote costs), never how good the model is."""

from __future__ import annotations

import math
from collections.abc import Sequence

import httpx
import pytest
import respx

from verifiers import (
    Evidence,
    Premise,
    QuoteStatus,
    Verdict,
)
from verifiers.confidence import FEATURES, ConfidenceModel, VerdictHead
from verifiers.engine import Verifier
from verifiers.eval.pairs import CountingNLI
from verifiers.quoting import strip_quotes

CRUISE = "biho913w"
ABO = "5sfojk7y"
POSITIVE = "128 tested positive for COVID-19 on reverse transcription-PCR (59%)"
ABO_WORDS = "blood group A was associated with a higher risk for acquiring COVID-19"


@pytest.fixture
def counted(entailing_verifier: Verifier) -> tuple[Verifier, CountingNLI]:
    nli = CountingNLI(entailing_verifier.nli)
    verifier = Verifier(nli, selector=entailing_verifier.selector)
    return verifier, nli


def one(verifier: Verifier, answer: str, evidence: Sequence[Evidence]):  # type: ignore[no-untyped-def]
    (sentence,) = verifier.verify(answer, evidence).sentences
    return sentence


def test_a_found_quote_is_the_premise_and_one_pair_is_scored(
    counted: tuple[Verifier, CountingNLI], evidence: list[Evidence]
) -> None:
    verifier, nli = counted
    answer = f'Of 217 people on board, 128 tested positive [PMID:{CRUISE} "{POSITIVE}"].'
    sentence = one(verifier, answer, evidence)
    assert sentence.verdict is Verdict.SUPPORTED
    assert sentence.premise is Premise.QUOTE
    (quote,) = sentence.quotes
    assert quote.status is QuoteStatus.FOUND and quote.found_in == CRUISE
    cruise = next(ev for ev in evidence if ev.pmid == CRUISE)
    holding = next(s for s in cruise.sentences if POSITIVE in s.text)
    assert {(e.pmid, e.start, e.end) for e in sentence.evidence} == {
        (CRUISE, holding.start, holding.end)
    }
    assert nli.pairs == len(sentence.claims)  # one pair per claim: the quote's sentence
    # The quote is evidence the sentence points at, not a claim of its own.
    assert all("COVID-19 on reverse" not in c.text for c in sentence.claims)


def test_without_a_quote_windows_are_chosen_as_before(
    counted: tuple[Verifier, CountingNLI], evidence: list[Evidence]
) -> None:
    verifier, nli = counted
    sentence = one(
        verifier, f"Of 217 people on board, 128 tested positive [PMID:{CRUISE}].", evidence
    )
    assert sentence.premise is Premise.WINDOWS and sentence.quotes == ()
    assert nli.pairs > 1  # several windows of the abstract


def test_a_misquote_is_never_supported_and_falls_back_to_windows(
    entailing_verifier: Verifier, evidence: list[Evidence]
) -> None:
    answer = f'Most tested positive [PMID:{CRUISE} "{POSITIVE.replace("128", "182")}"].'
    sentence = one(entailing_verifier, answer, evidence)
    assert sentence.verdict is not Verdict.SUPPORTED
    assert sentence.premise is Premise.WINDOWS
    (quote,) = sentence.quotes
    assert quote.status is QuoteStatus.MISQUOTE
    assert "'182'" in quote.difference and "'128'" in quote.difference
    failed = [c for c in sentence.checks if not c.passed]
    assert [c.name for c in failed] == ["quoted_citation"] and "misquote" in failed[0].detail


def test_a_quote_from_another_abstract_is_named_and_not_supported(
    entailing_verifier: Verifier, evidence: list[Evidence]
) -> None:
    answer = f'Blood group A carried a higher risk [PMID:{CRUISE} "{ABO_WORDS}"].'
    sentence = one(entailing_verifier, answer, evidence)
    (quote,) = sentence.quotes
    assert quote.status is QuoteStatus.OTHER_ABSTRACT and quote.found_in == ABO
    assert sentence.verdict is not Verdict.SUPPORTED


def test_numbers_are_checked_against_the_quote(
    entailing_verifier: Verifier, evidence: list[Evidence]
) -> None:
    # 6.2% is in the abstract (those evacuated), not in the quoted sentence (59% positive):
    # against the whole abstract the numbers check passes (only the sentence the claim copies,
    # aligned word by word, shows the number changed); against the quote it is a changed number.
    claim = "Of 217 people on board, 6.2% tested positive"
    unquoted = one(entailing_verifier, f"{claim} [PMID:{CRUISE}].", evidence)
    quoted = one(entailing_verifier, f'{claim} [PMID:{CRUISE} "{POSITIVE}"].', evidence)
    failed = {c.name for c in unquoted.checks if not c.passed}
    assert unquoted.premise is Premise.WINDOWS and failed == {"aligned_change"}
    assert quoted.premise is Premise.QUOTE and quoted.verdict is Verdict.CONTRADICTED
    assert any(c.name == "numbers" and not c.passed for c in quoted.checks)


def test_stripped_quotes_are_judged_as_written_ones(
    entailing_verifier: Verifier, evidence: list[Evidence]
) -> None:
    answer = (
        f'Of 217 people on board, 128 tested positive [PMID:{CRUISE} "{POSITIVE}"]. '
        f'Blood group A carried a higher risk [PMID:{CRUISE} "{ABO_WORDS}"].'
    )
    visible, quotes = strip_quotes(answer)
    assert '"' not in visible
    kept = entailing_verifier.verify(answer, evidence)
    stripped = entailing_verifier.verify(visible, evidence, quotes=quotes)
    for written, taken_out in zip(kept.sentences, stripped.sentences, strict=True):
        assert taken_out.verdict is written.verdict
        assert taken_out.quotes == written.quotes
        assert taken_out.premise is written.premise
        assert [c.quote for c in taken_out.citations] == [c.quote for c in written.citations]
        assert taken_out.text == visible[taken_out.start : taken_out.end]


def test_stripped_quotes_reach_a_streamed_answer(
    entailing_verifier: Verifier, evidence: list[Evidence]
) -> None:
    answer = f'Of 217 people on board, 128 tested positive [PMID:{CRUISE} "{POSITIVE}"]. Then more.'
    visible, quotes = strip_quotes(answer)
    stream = entailing_verifier.stream(evidence)
    cut = visible.index("].") + 2
    stream.feed(visible[:cut], quotes)
    stream.feed(visible[cut:])
    first = stream.finish().sentences[0]
    assert first.premise is Premise.QUOTE and first.quotes[0].status is QuoteStatus.FOUND


@respx.mock
def test_quotes_are_checked_when_nli_cannot_run(evidence: list[Evidence]) -> None:
    from verifiers.nli.llm_judge import LLMJudge
    from verifiers.windows import WindowSelector

    respx.post("http://judge.test/v1/chat/completions").mock(return_value=httpx.Response(503))
    judge = LLMJudge("openai/judge", api_base="http://judge.test/v1", api_key="k", timeout_s=2)
    misquote = POSITIVE.replace("128", "182")
    visible, quotes = strip_quotes(f'Most tested positive [PMID:{CRUISE} "{misquote}"].')
    report = Verifier(judge, selector=WindowSelector()).verify(visible, evidence, quotes=quotes)
    # The verifier says why it did not run in full; a policy then reports it unverified.
    assert report.error
    (sentence,) = report.sentences
    assert sentence.citations[0].quote == misquote
    assert sentence.quotes[0].status is QuoteStatus.MISQUOTE
    assert sentence.verdict is not Verdict.SUPPORTED


def test_a_passage_is_narrowed_to_the_sentence_holding_the_quote(
    entailing_verifier: Verifier, evidence: list[Evidence]
) -> None:
    from verifiers.windows import make_evidence

    cruise = next(ev for ev in evidence if ev.pmid == CRUISE)
    # The record's "sentences" are snippets (as BioASQ gives them): one passage of several.
    passage = make_evidence(CRUISE, cruise.title, [" ".join(s.text for s in cruise.sentences)])
    answer = f'Of 217 people on board, 128 tested positive [PMID:{CRUISE} "{POSITIVE}"].'
    sentence = one(entailing_verifier, answer, [passage])
    (span,) = sentence.evidence
    holding = next(s for s in cruise.sentences if POSITIVE in s.text)
    assert span.text == holding.text
    assert passage.abstract[span.start : span.end] == holding.text


def test_a_name_put_where_the_quote_puts_another_is_not_supported(
    entailing_verifier: Verifier,
) -> None:
    from verifiers.windows import make_evidence

    # SciFact corpus, abstract 2727303 (CC BY 4.0 / ODC-By): STIM1 is in the quote, as what
    # the inhibitor acts on; the answer makes it the inhibitor's target.
    quoted = (
        "Tubastatin-A, a specific HDAC6 inhibitor, inhibited STIM1 translocation to plasma "
        "membrane and blocked SOCE activation in cancer cells but not normal epithelial cells."
    )
    record = make_evidence(
        "2727303",
        "Microtubule-associated histone deacetylase 6 supports the calcium store sensor STIM1 "
        "in mediating malignant cell behaviors.",
        ["HDAC6 upregulation in cancer cells was accompanied by hypoacetylated tubulin.", quoted],
    )
    quote = "Tubastatin-A, a specific HDAC6 inhibitor, inhibited STIM1 translocation"
    claim = "Tubastatin-A, a specific {} inhibitor, blocked SOCE activation in cancer cells"
    cite = f' [PMID:2727303 "{quote}"].'
    swapped = one(entailing_verifier, claim.format("STIM1") + cite, [record])
    assert swapped.premise is Premise.QUOTE and swapped.quotes[0].status is QuoteStatus.FOUND
    assert swapped.verdict is Verdict.UNSUPPORTED
    failed = [c for c in swapped.claims[0].checks if not c.passed]
    assert [c.name for c in failed] == ["swapped_entity"]
    assert "'STIM1' where the evidence says 'HDAC6'" in failed[0].detail
    right = one(entailing_verifier, claim.format("HDAC6") + cite, [record])
    assert right.verdict is Verdict.SUPPORTED


def test_a_number_naming_what_the_quote_numbers_otherwise_is_not_supported(
    entailing_verifier: Verifier,
) -> None:
    from verifiers.windows import make_evidence

    # SciFact corpus sentence (ODC-By), reworded past what the alignment check reads; the model
    # entails it all, so only the numbers check decides.
    quoted = "Nutritional excess is a major forerunner of type 2 diabetes"
    record = make_evidence("x1", "Obesity and diabetes", [f"{quoted}.", "It is common."])
    cite = f' [PMID:x1 "{quoted}"].'
    right = one(
        entailing_verifier, "Eating too much often leads to type 2 diabetes" + cite, [record]
    )
    wrong = one(
        entailing_verifier, "Eating too much often leads to type 1 diabetes" + cite, [record]
    )
    assert right.verdict is Verdict.SUPPORTED
    assert wrong.premise is Premise.QUOTE and wrong.verdict is Verdict.UNSUPPORTED
    failed = [c for c in wrong.claims[0].checks if not c.passed]
    assert [c.name for c in failed] == ["labelled_number"]
    assert "type 1" in failed[0].detail and "type 2" in failed[0].detail


def test_a_claim_cut_from_its_quote_that_ends_on_the_flipped_word_is_contradicted(
    entailing_verifier: Verifier,
) -> None:
    from verifiers.windows import make_evidence

    # PubMedQA 18594195's conclusion (MIT): the claim "... is low" is cut at the comma, so its
    # flipped word is its last.
    quoted = (
        "As in many studies, the refusal rate in this study is high, and seems to be related "
        "to physical mobility restrictions"
    )
    record = make_evidence("18594195", "Refusal", [f"{quoted}, travel distance."])
    answer = quoted.replace("is high", "is low") + f' [PMID:18594195 "{quoted}"].'
    sentence = one(entailing_verifier, answer, [record])
    assert sentence.premise is Premise.QUOTE and sentence.verdict is Verdict.CONTRADICTED
    flipped = [c for claim in sentence.claims for c in claim.checks if not c.passed]
    assert [c.name for c in flipped] == ["aligned_change"]
    assert "\u2018low\u2019 where the evidence says \u2018high\u2019" in flipped[0].detail


def test_a_generic_name_its_quote_never_gives_is_not_supported(
    entailing_verifier: Verifier,
) -> None:
    from verifiers.windows import make_evidence

    # PubMedQA 10749257 (MIT): the quote spells the agency out.
    quoted = (
        "The United States Food and Drug Administration implemented federal regulations "
        "governing mammography"
    )
    record = make_evidence("10749257", "MQSA", [f"{quoted} under the MQSA of 1992."])
    claim = "The {} implemented federal regulations governing mammography"
    cite = f' [PMID:10749257 "{quoted}"].'
    right = one(entailing_verifier, claim.format("FDA") + cite, [record])
    assert right.premise is Premise.QUOTE and right.verdict is Verdict.SUPPORTED
    wrong = one(entailing_verifier, claim.format("NIH") + cite, [record])
    assert wrong.premise is Premise.QUOTE and wrong.verdict is Verdict.UNSUPPORTED
    failed = [c for c in wrong.claims[0].checks if not c.passed]
    assert [(c.name, c.detail) for c in failed] == [("entity", "not in the cited evidence: NIH")]


def _constant(probability: float) -> VerdictHead:
    n = len(FEATURES)
    return VerdictHead(
        (0.0,) * n, (1.0,) * n, (0.0,) * n, math.log(probability / (1 - probability))
    )


def test_a_claim_judged_against_its_quote_is_read_by_the_quoted_heads(
    entailing_verifier: Verifier, evidence: list[Evidence]
) -> None:
    model = ConfidenceModel(
        entailing_verifier.nli.version,
        {Verdict.SUPPORTED: _constant(0.6)},
        review_below=0.5,
        quoted_heads={Verdict.SUPPORTED: _constant(0.9)},
    )
    verifier = Verifier(
        entailing_verifier.nli, selector=entailing_verifier.selector, confidence=model
    )
    said = "Of 217 people on board, 128 tested positive"
    quoted = one(verifier, f'{said} [PMID:{CRUISE} "{POSITIVE}"].', evidence)
    plain = one(verifier, f"{said} [PMID:{CRUISE}].", evidence)
    assert quoted.premise is Premise.QUOTE and plain.premise is Premise.WINDOWS
    assert {(c.verdict, c.confidence) for c in quoted.claims} == {(Verdict.SUPPORTED, 0.9)}
    assert {(c.verdict, c.confidence) for c in plain.claims} == {(Verdict.SUPPORTED, 0.6)}
