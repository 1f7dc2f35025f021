from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
import respx

from verifiers.harm import (
    HarmAssessment,
    HarmError,
    HarmScorer,
    Lexicon,
    LLMHarmJudge,
    RuleHarmScorer,
    get_harm_scorer,
    parse_judge_answer,
    score_harm,
)

FIXTURE = Path(__file__).parents[1] / "fixtures" / "harm_claims.jsonl"
CLAIMS = [json.loads(line) for line in FIXTURE.read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("row", CLAIMS, ids=[f"{r['source']}-{r['id']}" for r in CLAIMS])
def test_real_claims_get_their_rubric_level(row: dict[str, object]) -> None:
    level, reasons = score_harm(str(row["text"]))
    assert level == row["level"], reasons
    assert reasons


def test_fixture_covers_every_level() -> None:
    assert {r["level"] for r in CLAIMS} == {1, 2, 3, 4, 5}


@pytest.mark.parametrize(
    ("text", "level", "reason"),
    [
        ("Take 500 mg of paracetamol every 6 hours.", 5, "dose: '500 mg'"),
        ("Give 0.5 mg/kg i.v. twice daily.", 5, "route: 'i.v.'"),
        ("Warfarin is contraindicated with aspirin.", 5, "contraindication: 'contraindicated'"),
        ("Clarithromycin inhibits CYP3A4.", 5, "interaction: 'CYP3A4'"),
        ("You should stop taking it at once.", 5, "direct patient action: 'You should'"),
        ("Metformin reduces HbA1c.", 4, "drug name: 'Metformin'"),
        (
            "CT angiography has high sensitivity for embolism.",
            3,
            "diagnosis or prognosis: 'sensitivity'",
        ),
        ("BRCA1 mutations are common in this population.", 2, "mechanism: 'mutations'"),
        ("The trial enrolled 300 participants.", 1, "study metadata: 'enrolled'"),
    ],
)
def test_levels_and_reasons(text: str, level: int, reason: str) -> None:
    got, reasons = score_harm(text)
    assert got == level
    assert reason in reasons


def test_pregnancy_counts_only_in_a_treatment_context() -> None:
    assert score_harm("Obesity is more common in pregnancy than before.")[0] < 5
    level, reasons = score_harm("Tamoxifen use in pregnancy is rare.")
    assert level == 5
    assert any("drug name context" in r for r in reasons)


@pytest.mark.parametrize(
    "text",
    [
        "5G networks facilitate the spread of the coronavirus.",  # G is not grams
        "Lactate above 5 mmol/L was common.",  # a lab value, not a dose
        "A moral duty to participate in research was discussed at length.",  # 'oral' inside
        "Brown fat appears in subcutaneous fat depots of mice.",  # anatomy, not a route
    ],
)
def test_false_friends_are_not_level_5(text: str) -> None:
    assert score_harm(text)[0] < 5


def test_no_cue_gives_the_default_with_a_reason() -> None:
    level, reasons = score_harm("Teaching hospitals do not provide better care.")
    assert (level, reasons) == (2, ("no harm cue: general claim",))


def test_batch_matches_single_and_scorer_is_registered() -> None:
    scorer = get_harm_scorer("rules")
    assert isinstance(scorer, RuleHarmScorer)
    assert isinstance(scorer, HarmScorer)
    texts = [str(r["text"]) for r in CLAIMS]
    assert [(a.level, a.reasons) for a in scorer.score_batch(texts)] == [
        score_harm(t) for t in texts
    ]
    with pytest.raises(ValueError, match="unknown harm scorer"):
        get_harm_scorer("crystal-ball")


def test_custom_lexicon_and_bad_level() -> None:
    lexicon = Lexicon.from_mapping(
        {
            "version": 7,
            "default_level": 1,
            "cues": [{"name": "horse", "level": 3, "patterns": ["mares?"]}],
        }
    )
    scorer = RuleHarmScorer(lexicon)
    assert scorer.version == "harm-lexicon-v7"
    assert scorer.score("Mares foal in spring.") == HarmAssessment(3, ("horse: 'Mares'",))
    assert scorer.score("Nothing here.").level == 1
    with pytest.raises(ValueError, match="outside 1-5"):
        Lexicon.from_mapping(
            {
                "version": 1,
                "default_level": 2,
                "cues": [{"name": "x", "level": 6, "patterns": ["x"]}],
            }
        )


# --- LLM judge (remote API, so respx stands in for it) ----------------------------------------

JUDGE_URL = "http://judge.test/v1/chat/completions"


def _completion(content: str) -> httpx.Response:
    return httpx.Response(
        200,
        json={
            "id": "c1",
            "object": "chat.completion",
            "created": 0,
            "model": "judge",
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "stop",
                    "message": {"role": "assistant", "content": content},
                }
            ],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        },
    )


@pytest.fixture
def judge(litellm_httpx: None) -> LLMHarmJudge:
    # litellm_httpx (tests/verifiers/conftest.py) routes litellm through httpx, which respx mocks.
    return LLMHarmJudge(
        "openai/judge", api_base="http://judge.test/v1", api_key="sk-test", batch_size=2
    )


@respx.mock
def test_llm_judge_scores_a_batch(judge: LLMHarmJudge) -> None:
    answer = {
        "results": [
            {"index": 1, "level": 2, "reasons": ["mechanism"]},
            {"index": 0, "level": 5, "reasons": ["dose"]},
        ]
    }
    route = respx.post(JUDGE_URL).mock(return_value=_completion(json.dumps(answer)))
    got = judge.score_batch(["Take 5 mg.", "Genes exist."])
    assert got == [HarmAssessment(5, ("llm: dose",)), HarmAssessment(2, ("llm: mechanism",))]
    sent = json.loads(route.calls.last.request.content)
    assert "0. Take 5 mg." in sent["messages"][1]["content"]
    assert "sk-test" not in str(got)


@respx.mock
def test_llm_judge_errors_are_harm_errors(judge: LLMHarmJudge) -> None:
    respx.post(JUDGE_URL).mock(return_value=_completion('{"results": [{"index": 0, "level": 9}]}'))
    with pytest.raises(HarmError, match="outside 1-5"):
        judge.score_batch(["x"])
    respx.post(JUDGE_URL).mock(return_value=httpx.Response(401, json={"error": {"message": "no"}}))
    with pytest.raises(HarmError, match="failed"):
        judge.score_batch(["x"])
    assert judge.score_batch([]) == []


@respx.mock
def test_llm_judge_batches(judge: LLMHarmJudge) -> None:
    answers = iter(
        [
            '{"results": [{"index": 0, "level": 4}, {"index": 1, "level": 3}]}',
            '{"results": [{"index": 0, "level": 1}]}',
        ]
    )
    route = respx.post(JUDGE_URL).mock(side_effect=lambda request: _completion(next(answers)))
    assert [a.level for a in judge.score_batch(["a", "b", "c"])] == [4, 3, 1]
    assert route.call_count == 2


def test_judge_answer_may_sit_in_a_code_fence() -> None:
    fenced = '```json\n{"results": [{"index": 0, "level": 3, "reasons": ["prognosis"]}]}\n```'
    assert parse_judge_answer(fenced, 1) == [HarmAssessment(3, ("llm: prognosis",))]


@pytest.mark.parametrize(
    "content",
    [
        "not json",
        '{"results": [{"index": 0, "level": 3}]}',  # one entry missing (two claims sent)
        '{"results": [{"index": 0, "level": "high"}, {"index": 1, "level": 2}]}',
        '{"results": [{"index": 0, "level": 3, "reasons": "x"}, {"index": 1, "level": 2}]}',
        '{"results": [3, 4]}',
    ],
)
def test_judge_answers_are_validated(content: str) -> None:
    with pytest.raises(HarmError):
        parse_judge_answer(content, 2)
