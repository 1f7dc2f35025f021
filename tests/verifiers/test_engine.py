"""Engine plumbing on a tiny HF model (its verdicts mean nothing) and verdicts on the real
bundled model (skipped until the model is in the tree)."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from pathlib import Path
from typing import Any

import httpx
import pytest
import respx

from verifiers import Evidence, ResponseReport, Verdict
from verifiers.config import verifier_config
from verifiers.engine import Verifier
from verifiers.nli.llm_judge import LLMJudge
from verifiers.windows import WindowSelector

BUNDLED = Path(__file__).parents[2] / "verifiers" / "models" / "nli" / "nli_config.json"

ANSWER = (
    "Hello! ALDH1 expression is associated with poorer prognosis in breast cancer [PMID:45638119]. "
    "The majority of COVID-19-positive patients (18%) were asymptomatic [2]. "
    "CDCA treatment increased whole-body energy expenditure [PMID:99999999]. "
    "Blood group A was associated with a higher risk of COVID-19."
)


def verdicts(report: Any) -> list[Verdict]:
    return [s.verdict for s in report.sentences]


def test_pipeline_verdicts_beyond_nli(
    entailing_verifier: Verifier, evidence: list[Evidence]
) -> None:
    ordered = [next(e for e in evidence if e.pmid == p) for p in ("45638119", "biho913w")]
    report = entailing_verifier.verify(ANSWER, ordered + [e for e in evidence if e not in ordered])
    assert verdicts(report) == [
        Verdict.NOT_CHECKWORTHY,
        Verdict.SUPPORTED,
        Verdict.CONTRADICTED,  # 18% vs the abstract's 81%: the numbers check overrides NLI
        Verdict.INVALID_CITATION,  # fabricated PMID
        Verdict.UNCITED,
    ]
    numbers = report.sentences[2].claims[0].checks
    assert any(c.name == "numbers" and not c.passed and c.detail.startswith("18%") for c in numbers)
    assert report.counts["supported"] == 1 and sum(report.counts.values()) == 5
    assert report.faithful is False
    assert report.error is None
    for sentence in report.sentences:
        assert ANSWER[sentence.start : sentence.end] == sentence.text
    span = report.sentences[1].evidence[0]
    abstract = next(e.abstract for e in evidence if e.pmid == span.pmid)
    assert span.pmid == "45638119" and abstract[span.start : span.end] == span.text


def test_cited_sentences_only_use_the_cited_abstract(
    entailing_verifier: Verifier, evidence: list[Evidence]
) -> None:
    report = entailing_verifier.verify(
        "Blood group A carries a higher risk of COVID-19 [PMID:5sfojk7y].", evidence
    )
    [sentence] = report.sentences
    assert {span.pmid for span in sentence.evidence} == {"5sfojk7y"}
    assert [r.pmid for r in report.evidence] == [e.pmid for e in evidence]


def test_harm_and_risk_are_filled(entailing_verifier: Verifier, evidence: list[Evidence]) -> None:
    report = entailing_verifier.verify(
        "Patients received a 50 mg dose of CDCA daily [PMID:1568684].", evidence
    )
    [sentence] = report.sentences
    assert sentence.harm >= 4 and sentence.harm_reasons
    assert sentence.claims[0].harm == sentence.harm
    assert 0.0 <= report.risk <= 1.0


def test_stream_gives_the_same_sentences_as_batch(
    entailing_verifier: Verifier, evidence: list[Evidence]
) -> None:
    batch = entailing_verifier.verify(ANSWER, evidence)
    stream = entailing_verifier.stream(evidence)
    early = []
    for start in range(0, len(ANSWER), 9):
        early += stream.feed(ANSWER[start : start + 9])
    final = stream.finish()
    assert len(early) >= 3  # sentences are annotated while the answer is still arriving
    assert [s.index for s in final.sentences] == list(range(len(batch.sentences)))

    def strip(report: Any) -> Any:
        return dataclasses.replace(report, latency_ms={})

    assert strip(final) == strip(batch)


def test_async_api_runs_off_the_event_loop(
    entailing_verifier: Verifier, evidence: list[Evidence]
) -> None:
    async def main() -> tuple[Any, list[Any], Any]:
        report = await entailing_verifier.averify(ANSWER, evidence)
        stream = entailing_verifier.stream(evidence)
        early = await stream.afeed(ANSWER)
        return report, early, await stream.afinish()

    # asyncio.run owns (and closes) its loop; litellm, imported by other tests, leaves
    # a pytest-asyncio loop unclosed.
    report, early, final = asyncio.run(main())
    assert len(report.sentences) == 5
    assert early != []
    assert len(final.sentences) == 5


@respx.mock
@pytest.mark.usefixtures("litellm_httpx")
def test_nli_failure_is_never_reported_verified(evidence: list[Evidence]) -> None:
    # The LLM judge's remote API fails.
    respx.post("http://judge.test/v1/chat/completions").mock(return_value=httpx.Response(503))
    judge = LLMJudge("openai/judge", api_base="http://judge.test/v1", api_key="k", timeout_s=2)
    report = Verifier(judge, selector=WindowSelector()).verify(ANSWER, evidence)
    assert report.error
    assert report.faithful is False
    assert Verdict.SUPPORTED not in verdicts(report)
    assert Verdict.INVALID_CITATION in verdicts(report)


bundled = pytest.mark.skipif(not BUNDLED.exists(), reason="bundled NLI model not in the tree")
# Known-bad model versions, measured: e3270eec377f (partial training run) gets 4 of the 11
# dataset claims right, cc3cde95f151 (1 epoch) 4 to 5, 3fe7a9bd704a (2 epochs, shipped) 6 with
# the OR-join and 7 with its calibrated most-relevant-window rule; all miss negation and antonyms.
# With the number and direction checks (which catch the antonyms the model misses) 3fe7a9bd704a
# reaches MIN_CORRECT, so it is no longer on the list. 89b2a2c027e4 (two stages) gets 8 with its
# learned rule and 7 with the most-relevant rule it ships with (docs/nli-model.md says why).
# 14784792a400 is 89b2a2c027e4 with its weights stored as uint8 (exact integer arithmetic on
# every CPU, verifiers/training/quantize.py): 6, on any machine, then 7 with the later checks,
# and 8 since the entity check reads a name however the evidence writes it (2026-12-07: the
# model's right support of "CX3CR1 on the Th2 cells promotes T cell survival" was withheld, the
# abstract writing "T(H)2"), so it is no longer on the list.
# The mark names the version, so any newer model runs these tests for real; a known-bad
# version that starts passing fails as XPASS (strict).
MIN_CORRECT = 8
_KNOWN_BAD = {
    "veriproxy-nli-minilm-e3270eec377f",
    "veriproxy-nli-minilm-cc3cde95f151",
    "veriproxy-nli-minilm-89b2a2c027e4",
}


def _bundled_version() -> str:
    return str(json.loads(BUNDLED.read_text())["version"]) if BUNDLED.exists() else ""


known_bad_model = pytest.mark.xfail(
    _bundled_version() in _KNOWN_BAD,
    reason=f"bundled model {_bundled_version()} mislabels these (see docs/verification.md)",
    strict=True,
)


@pytest.fixture(scope="module")
def bundled_verifier() -> Verifier:
    return Verifier.from_config(verifier_config({"nli": {"name": "bundled", "threads": 1}}))


@bundled
@known_bad_model
def test_bundled_model_verdicts_on_dataset_claims(
    bundled_verifier: Verifier, evidence: list[Evidence], cases: list[dict[str, Any]]
) -> None:
    """SciFact / Check-COVID dev claims cited against their own abstract: at least
    ``MIN_CORRECT`` of the 11 (a model that says one thing for everything gets at most 6)."""
    wrong = []
    for case in cases:
        answer = f"{case['claim'].rstrip('. ')} [PMID:{case['pmid']}]."
        report = bundled_verifier.verify(answer, evidence)
        [sentence] = report.sentences
        if sentence.verdict.value != case["expected"]:
            wrong.append((case["source"], case["expected"], sentence.verdict.value))
    assert len(cases) - len(wrong) >= MIN_CORRECT, wrong


@bundled
def test_bundled_model_answer_report(bundled_verifier: Verifier, evidence: list[Evidence]) -> None:
    answer = (
        "ALDH1 expression is associated with poorer prognosis in breast cancer [PMID:45638119]. "
        "Chenodeoxycholic acid treatment reduces whole-body energy expenditure [PMID:1568684]."
    )
    report = bundled_verifier.verify(answer, evidence)
    assert verdicts(report) == [Verdict.SUPPORTED, Verdict.CONTRADICTED]
    assert report.faithful is False and report.risk < 1.0
    contradicting = report.sentences[1].evidence[0]
    assert "increased" in contradicting.text and contradicting.label.value == "contradiction"


def test_markdown_and_citations_after_the_full_stop_are_read_as_written(
    entailing_verifier: Verifier, evidence: list[Evidence]
) -> None:
    """A heading is a label, a lead-in does not hide its finding, and a citation written after
    the full stop cites its own sentence (it once cited the next one, and left its own
    ``uncited``)."""
    answer = (
        "## Key findings\n\n"
        "Please note that ALDH1 expression is associated with poorer prognosis in breast "
        "cancer. [PMID:45638119] Blood group A carries a higher risk of COVID-19. [PMID:5sfojk7y]"
    )
    report = entailing_verifier.verify(answer, evidence)
    assert verdicts(report) == [Verdict.NOT_CHECKWORTHY, Verdict.SUPPORTED, Verdict.SUPPORTED]
    cited = [{span.pmid for span in s.evidence} for s in report.sentences[1:]]
    assert cited == [{"45638119"}, {"5sfojk7y"}]
    assert report.sentences[1].text.endswith("[PMID:45638119]")
    assert report.sentences[1].claims[0].text.startswith("ALDH1 expression")


@bundled
def test_the_model_reads_a_claim_the_same_however_it_is_marked_up(
    bundled_verifier: Verifier, evidence: list[Evidence]
) -> None:
    """A list item without a full stop, bold and italic words, inline code: the model is given
    the same claim, so each form gets the very same scores (the full stop alone once moved a
    borderline claim from supported to contradicted)."""
    words = "ALDH1 expression is associated with poorer prognosis in breast cancer"
    forms = [
        f"{words} [PMID:45638119].",
        f"- {words} [PMID:45638119]",
        "**ALDH1 expression** is associated with *poorer prognosis* in breast cancer "
        "[PMID:45638119].",
        "`ALDH1` expression is associated with __poorer prognosis__ in breast cancer "
        "[PMID:45638119]",
    ]
    judged = []
    for form in forms:
        [sentence] = bundled_verifier.verify(form, evidence).sentences
        [claim] = sentence.claims
        assert "*" not in claim.text and "_" not in claim.text and "`" not in claim.text
        judged.append((claim.verdict, claim.confidence, [e.score for e in claim.evidence]))
    assert all(j == judged[0] for j in judged), judged


NAMES_LIST = (
    "In people with asthma, a fraction of CD4(+) T cells express the CX3CL1 receptor:\n"
    "- CX3CR1 [PMID:21366394]\n"
    "- CCR7 [PMID:21366394]\n"
)


def test_a_list_of_bare_names_is_verified_item_by_item(
    entailing_verifier: Verifier, evidence: list[Evidence]
) -> None:
    """Each bare name of a list is judged as the claim its introducing line makes of it; a name
    the cited abstract never gives is not supported (both items went out `not_checkworthy`, and
    the answer `faithful`). Streamed in small pieces, the verdicts are the same."""
    report = entailing_verifier.verify(NAMES_LIST, evidence)
    _, right, wrong = report.sentences
    assert right.claims[0].text == (
        "In people with asthma, a fraction of CD4(+) T cells express the CX3CL1 receptor CX3CR1."
    )
    assert right.verdict is Verdict.SUPPORTED
    assert wrong.verdict is not Verdict.SUPPORTED
    assert "entity" in [c.name for c in wrong.claims[0].checks if not c.passed]
    assert report.faithful is False
    stream = entailing_verifier.stream(evidence)
    for start in range(0, len(NAMES_LIST), 7):
        stream.feed(NAMES_LIST[start : start + 7])
    assert verdicts(stream.finish()) == verdicts(report)


@bundled
def test_a_list_item_is_not_judged_as_a_fragment(
    bundled_verifier: Verifier, evidence: list[Evidence]
) -> None:
    """A name in a list judged alone (the integrin, a fragment) was called contradicted by its
    own abstract; read with its lead it is the abstract's finding."""
    answer = (
        "Effector Treg cells express high amounts of:\n"
        "1. integrin αvβ8 [PMID:17997584]\n"  # noqa: RUF001 (as the abstract writes it)
    )
    item = bundled_verifier.verify(answer, evidence).sentences[1]
    assert item.claims[0].text == "Effector Treg cells express high amounts of integrin αvβ8."  # noqa: RUF001
    assert item.verdict is Verdict.SUPPORTED


def test_a_cited_name_under_a_label_must_be_in_what_it_cites(
    entailing_verifier: Verifier, evidence: list[Evidence]
) -> None:
    """Under a label (no claim to complete) a bare name states nothing to judge, but a cited
    one must be named by the record it cites: a name it never gives is `unsupported`, with the
    entity check that decided it (it went out as talk, and the answer `faithful`)."""
    answer = "**CX3CL1 receptors:**\n- CX3CR1 [PMID:21366394]\n- CCR7 [PMID:21366394]\n"
    report = entailing_verifier.verify(answer, evidence)
    assert verdicts(report) == [
        Verdict.NOT_CHECKWORTHY,
        Verdict.NOT_CHECKWORTHY,
        Verdict.UNSUPPORTED,
    ]
    named, wrong = report.sentences[1].checks[0], report.sentences[2].checks[0]
    assert named.name == "entity" and named.passed
    assert wrong.name == "entity" and not wrong.passed and wrong.detail.endswith("CCR7")
    assert report.faithful is False and report.sentences[2].risk == 1.0


def test_a_cited_bare_term_must_be_stated_by_what_it_cites(
    entailing_verifier: Verifier, evidence: list[Evidence]
) -> None:
    """A bare term under a label names no symbol: judged alone it was a fragment the model read
    as it liked, so a term its record never states could pass as supported. Its words must now
    stand in the cited record, in a row."""
    answer = (
        "**Sites of CX3CL1 expression:**\n"
        "- airway smooth muscle [PMID:21366394]\n"
        "- liver [PMID:21366394]\n"
        "- lung muscle [PMID:21366394]\n"
    )
    report = entailing_verifier.verify(answer, evidence)
    assert verdicts(report) == [
        Verdict.NOT_CHECKWORTHY,
        Verdict.NOT_CHECKWORTHY,
        Verdict.UNSUPPORTED,
        Verdict.UNSUPPORTED,  # both words are in the abstract, never together
    ]
    stated, liver = report.sentences[1].checks[0], report.sentences[2].checks[0]
    assert stated.passed and stated.pmid == "21366394"
    assert not liver.passed and liver.detail.endswith("liver")


def test_a_lead_the_evidence_entails_carries_no_item_it_does_not_name(
    entailing_verifier: Verifier, evidence: list[Evidence]
) -> None:
    """Read with its lead, an item's claim is mostly the lead's words, which the evidence
    entails: "... is increased upon allergen challenge in liver." was `supported`. What the item
    names must be stated by its evidence too."""
    answer = (
        "In asthma, CX3CL1 expression is increased upon allergen challenge in:\n"
        "- airway smooth muscle [PMID:21366394]\n"
        "- liver [PMID:21366394]\n"
    )
    _, stated, unstated = entailing_verifier.verify(answer, evidence).sentences
    assert unstated.verdict is Verdict.UNSUPPORTED
    assert any(c.name == "entity" and not c.passed for c in unstated.claims[0].checks)
    assert all(c.passed for c in stated.claims[0].checks if c.name == "entity")


def test_an_uncited_item_under_a_label_is_read_with_the_label(
    entailing_verifier: Verifier, evidence: list[Evidence]
) -> None:
    """With no citation there is no record to check a bare name against, and under a label it
    went out `not_checkworthy`: it is now the claim the label makes of it, `uncited`. Labels of
    the answer itself ("References:", "Key findings:") make none."""
    answer = "**Cures for cancer:**\n- homeopathy\n\n**References:**\n- Smith and Jones\n"
    label, cure, references, reference = entailing_verifier.verify(answer, evidence).sentences
    assert cure.verdict is Verdict.UNCITED
    assert (
        cure.claims[0].text.startswith("Cures for cancer") and "homeopathy" in cure.claims[0].text
    )
    assert (label.verdict, references.verdict) == (Verdict.NOT_CHECKWORTHY,) * 2
    assert reference.claims == () or not reference.claims[0].text.startswith("References")


def test_an_item_cited_by_the_line_introducing_its_list_is_judged_as_cited(
    entailing_verifier: Verifier, evidence: list[Evidence]
) -> None:
    """Answers often cite a list once, in the line that introduces it: its items were
    `uncited` and judged against every abstract. Each item that cites nothing itself is now
    judged against what its lead cites (`lead_citations`), and can be `supported`; an item's
    own citation still decides, and a lead citing only a reference never given lends nothing.
    Streamed in small pieces, the verdicts are the same."""
    answer = (
        "Key findings on CX3CL1 in asthma [PMID:21366394]:\n"
        "- CX3CL1 expression is increased in airway smooth muscle after allergen challenge.\n"
        "- Blood group A carries a higher risk of COVID-19 [PMID:5sfojk7y].\n"
        "\n"
        "Findings of another trial [PMID:99999999]:\n"
        "- CX3CL1 expression is increased in airway smooth muscle.\n"
    )
    report = entailing_verifier.verify(answer, evidence)
    lead, inherited, own, fabricated_lead, uncited = report.sentences
    assert inherited.verdict is Verdict.SUPPORTED
    assert inherited.lead_citations == ("21366394",) and inherited.citations == ()
    assert {span.pmid for span in inherited.evidence} == {"21366394"}
    assert own.lead_citations == () and [c.pmid for c in own.citations] == ["5sfojk7y"]
    assert {span.pmid for span in own.evidence} == {"5sfojk7y"}
    assert fabricated_lead.verdict is Verdict.INVALID_CITATION
    assert uncited.verdict is Verdict.UNCITED and uncited.lead_citations == ()
    assert lead.lead_citations == ()
    _streamed_alike(entailing_verifier, evidence, answer, report, 5)


def test_an_item_cited_by_its_lists_end_is_judged_as_cited(
    entailing_verifier: Verifier, evidence: list[Evidence]
) -> None:
    """Answers also cite a list once at its end, in its last item or on a line after it. The
    items before went out `uncited`, and a bare name `not_checkworthy`: a wrong one passed as
    talk. Each item that cites nothing is now judged against what the list's end cites
    (`lead_citations`), so a name its record never gives is `unsupported`. A list whose other
    items cite keeps its uncited items as written. Streamed in small pieces, the same."""
    answer = (
        "**Sites of CX3CL1 expression:**\n"
        "- airway smooth muscle\n"
        "- liver\n"
        "- airway epithelium [PMID:21366394]\n"
        "## In asthma\n"
        "- CX3CL1 expression is increased in airway smooth muscle after allergen challenge.\n"
        "\n"
        "[PMID:21366394]\n"
        "\n"
        "Other findings:\n"
        "- Blood group A carries a higher risk of COVID-19 [PMID:5sfojk7y].\n"
        "- CX3CL1 expression is increased in airway smooth muscle.\n"
        "- Blood group O carries a lower risk of COVID-19 [PMID:5sfojk7y].\n"
    )
    report = entailing_verifier.verify(answer, evidence)
    label, muscle, liver, closer, heading, finding, line, *rest = report.sentences
    other, own, uncited, last = rest
    assert (muscle.verdict, liver.verdict) == (Verdict.NOT_CHECKWORTHY, Verdict.UNSUPPORTED)
    assert muscle.lead_citations == liver.lead_citations == ("21366394",)
    assert muscle.citations == () and not liver.checks[0].passed
    assert closer.lead_citations == () and [c.pmid for c in closer.citations] == ["21366394"]
    # A clause in a list whose citations stand on a line after it.
    assert finding.verdict is Verdict.SUPPORTED and finding.lead_citations == ("21366394",)
    assert {span.pmid for span in finding.evidence} == {"21366394"}
    assert line.verdict is Verdict.NOT_CHECKWORTHY
    # Cited item by item: the one uncited item stays uncited.
    assert uncited.verdict is Verdict.UNCITED and uncited.lead_citations == ()
    assert (label.lead_citations, heading.lead_citations, other.lead_citations) == ((), (), ())
    assert own.lead_citations == ()
    assert last.lead_citations == ()
    _streamed_alike(entailing_verifier, evidence, answer, report, 7)


def test_a_sentence_cited_by_its_paragraphs_end_is_judged_as_cited(
    entailing_verifier: Verifier, evidence: list[Evidence]
) -> None:
    """Answers cite a paragraph once too, in its last sentence or on a line after it: the
    sentences before went out `uncited`. Each check-worthy one is now judged against what the
    paragraph's end cites (`lead_citations`); talk is lent nothing, and a paragraph whose other
    sentences cite keeps its uncited sentence as written. Streamed in small pieces, the same."""
    answer = (
        "Great question. CX3CL1 expression is increased in airway smooth muscle after allergen "
        "challenge. It is also increased in the airway epithelium [PMID:21366394].\n"
        "\n"
        "Blood group A carries a higher risk of COVID-19. Blood group O carries a lower risk.\n"
        "\n"
        "[PMID:5sfojk7y]\n"
        "\n"
        "Blood group A carries a higher risk of COVID-19 [PMID:5sfojk7y]. CX3CL1 expression is "
        "increased in airway smooth muscle. Blood group O carries a lower risk [PMID:5sfojk7y].\n"
    )
    report = entailing_verifier.verify(answer, evidence)
    talk, finding, closer, group_a, group_o, line, own, uncited, last = report.sentences
    assert talk.verdict is Verdict.NOT_CHECKWORTHY and talk.lead_citations == ()
    assert finding.verdict is Verdict.SUPPORTED and finding.lead_citations == ("21366394",)
    assert finding.citations == () and {span.pmid for span in finding.evidence} == {"21366394"}
    assert closer.lead_citations == () and [c.pmid for c in closer.citations] == ["21366394"]
    for sentence in (group_a, group_o):
        assert sentence.verdict is Verdict.SUPPORTED and sentence.lead_citations == ("5sfojk7y",)
    assert line.verdict is Verdict.NOT_CHECKWORTHY
    assert uncited.verdict is Verdict.UNCITED and uncited.lead_citations == ()
    assert own.lead_citations == last.lead_citations == ()
    _streamed_alike(entailing_verifier, evidence, answer, report, 7)


def test_a_bare_name_lent_its_paragraphs_citation_is_checked_against_the_record(
    entailing_verifier: Verifier, evidence: list[Evidence]
) -> None:
    """A list written as bare lines, one name per line and the citation on the last (as BioASQ
    answers are): a name lent that citation is checked by the names check, as a list item's
    is, not read by the model as a fragment (this one supports every fragment)."""
    answer = "airway smooth muscle\nhepatic stellate cells\nlung endothelium [PMID:21366394]."
    muscle, stellate, _ = entailing_verifier.verify(answer, evidence).sentences
    assert muscle.verdict is Verdict.NOT_CHECKWORTHY and muscle.lead_citations == ("21366394",)
    assert all(check.passed for check in muscle.checks)
    assert stellate.verdict is Verdict.UNSUPPORTED and stellate.lead_citations == ("21366394",)
    assert not stellate.checks[0].passed and "stellate" in stellate.checks[0].detail


def test_a_one_word_name_on_a_line_lent_its_paragraphs_citation_is_checked_too(
    entailing_verifier: Verifier, evidence: list[Evidence]
) -> None:
    """A gene on a line of its own says too little to be check-worthy, but a list written as
    bare lines names its record: a wrong one is not passed as talk. Talk is still lent nothing."""
    answer = "Great question.\nCX3CR1\nCCR7\nlung endothelium [PMID:21366394]."
    talk, named, wrong, _ = entailing_verifier.verify(answer, evidence).sentences
    assert talk.verdict is Verdict.NOT_CHECKWORTHY and talk.lead_citations == ()
    assert named.verdict is Verdict.NOT_CHECKWORTHY and named.lead_citations == ("21366394",)
    assert [c.passed for c in named.checks] == [True]
    assert wrong.verdict is Verdict.UNSUPPORTED and wrong.lead_citations == ("21366394",)
    assert wrong.checks[0].detail == "not in the evidence for this claim: CCR7"


def test_with_no_evidence_no_sentence_waits_for_its_paragraphs_end(
    entailing_verifier: Verifier, evidence: list[Evidence]
) -> None:
    """A paragraph that may yet be cited at its end holds its sentences' verdicts back; with no
    evidence a citation lends nothing, so each sentence is verified as soon as it is complete."""
    text = "CX3CL1 is increased in asthma. It is also increased in the epithelium. It is"
    assert entailing_verifier.stream(evidence).feed(text) == []
    verified = entailing_verifier.stream([]).feed(text)
    assert [s.verdict for s in verified] == [Verdict.UNCITED] * 2


def _streamed_alike(
    verifier: Verifier, evidence: list[Evidence], answer: str, report: ResponseReport, size: int
) -> None:
    """Streamed in pieces of ``size`` characters, ``answer`` gets the verdicts and list
    citations of ``report`` (the whole answer's)."""
    stream = verifier.stream(evidence)
    for start in range(0, len(answer), size):
        stream.feed(answer[start : start + size])
    streamed = stream.finish()
    assert verdicts(streamed) == verdicts(report)
    assert [s.lead_citations for s in streamed.sentences] == [
        s.lead_citations for s in report.sentences
    ]
