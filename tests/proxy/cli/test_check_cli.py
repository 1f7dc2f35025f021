"""``veriproxy check`` and the two verification eval commands, end to end on real fixtures."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from policies.protocol import load_schema
from proxy.cli import main
from verifiers.eval.citations import Item, alter_number, render_answer
from verifiers.eval.segmentation import gold_boundaries, ours
from verifiers.windows import make_evidence

FIXTURES = Path(__file__).parents[2] / "fixtures" / "verification"
BUNDLED = Path(__file__).parents[3] / "verifiers" / "models" / "nli" / "nli_config.json"
ANSWER = (
    "Hello! ALDH1 expression is associated with poorer prognosis in breast cancer [PMID:45638119]. "
    "The majority of COVID-19-positive patients (18%) were asymptomatic [PMID:biho913w]. "
    "CDCA increased energy expenditure [PMID:12345678]."
)

needs_model = pytest.mark.skipif(not BUNDLED.exists(), reason="bundled NLI model not in the tree")


@needs_model
def test_check_json_report(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["check", ANSWER, "--evidence", str(FIXTURES / "evidence.jsonl"), "--json"])
    assert code == 1  # flagged by the default policy: --fail-on flagged fails the run
    captured = capsys.readouterr()
    assert captured.err == "veriproxy check: failed: status flagged (--fail-on flagged)\n"
    report = json.loads(captured.out)
    jsonschema.validate(report, load_schema("response_report"))
    assert report["status"] == "flagged" and report["policy"] == "default"
    assert report["rules_fired"] == ["flag-contradicted", "flag-invalid-citation"]
    verdicts = [s["verdict"] for s in report["sentences"]]
    assert verdicts[0] == "not_checkworthy" and verdicts[3] == "invalid_citation"
    assert verdicts[2] == "contradicted"  # 18% vs the abstract's 81%


@needs_model
def test_check_text_output_reads_answer_from_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    answer_file = tmp_path / "answer.txt"
    answer_file.write_text(ANSWER)
    evidence_file = tmp_path / "evidence.json"
    records = [json.loads(line) for line in (FIXTURES / "evidence.jsonl").read_text().splitlines()]
    evidence_file.write_text(json.dumps({"evidence": records}))
    argv = ["check", str(answer_file), "--evidence", str(evidence_file), "--no-color"]
    assert main([*argv, "--fail-on", "never"]) == 0
    out = capsys.readouterr().out
    assert "[invalid_citation] CDCA increased energy expenditure [PMID:12345678]." in out
    assert "! [PMID:12345678]: PMID 12345678 is not among the evidence" in out
    assert "! numbers: 18% not in the evidence" in out
    assert "\033[" not in out
    assert "faithful=False" in out
    assert "status=flagged policy=default rules fired: flag-contradicted" in out


def test_segmentation_gold_boundaries_and_ours() -> None:
    sentences = ["Doses were 2.5 mg/kg i.v. vs. placebo.", "Fig. 2 shows p < 0.05.", "End."]
    text, gold = gold_boundaries(sentences)
    assert gold == {len(sentences[0]) + 1, len(sentences[0]) + len(sentences[1]) + 2}
    assert ours(text) == gold


def test_citation_eval_alters_a_stated_number() -> None:
    import random

    abstract = "The majority of COVID-19-positive patients were asymptomatic (81%, 104 patients)."
    altered = alter_number("Most patients (81%) had no symptoms.", abstract, random.Random(1))
    assert altered is not None and "81%" not in altered
    evidence = [make_evidence("1", "t", abstract)]
    rendered = render_answer([Item("Most had no symptoms.", "1")], evidence, random.Random(2))
    assert rendered.startswith("Most had no symptoms ") and rendered.endswith(".")


@needs_model
def test_check_pmids_from_a_local_index(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from proxy.ingest import Article, sentence_spans
    from proxy.retrieval.sqlite_store import SqliteIndex
    from verifiers.embed import Encoder

    records = [json.loads(line) for line in (FIXTURES / "evidence.jsonl").read_text().splitlines()]
    index = SqliteIndex(tmp_path / "index.sqlite", Encoder())
    abstracts = {r["pmid"]: " ".join(r["sentences"]) for r in records if r["pmid"].isdigit()}
    index.upsert([Article(p, "title", text, sentence_spans(text)) for p, text in abstracts.items()])
    index.close()
    argv = ["check", ANSWER, "--pmids", "45638119", "1568684", "31415926"]
    assert main([*argv, "--index", str(tmp_path / "index.sqlite"), "--json"]) == 1
    captured = capsys.readouterr()
    assert "not in the index: 31415926" in captured.err
    report = json.loads(captured.out)
    cited = [c for s in report["sentences"] for c in s["citations"]]
    assert {c["pmid"]: c["valid"] for c in cited} == {
        "45638119": True,
        "biho913w": False,
        "12345678": False,
    }


def test_check_reports_an_unloadable_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["check", ANSWER, "--evidence", str(FIXTURES / "evidence.jsonl"), "--nli", "hf"]
    assert main([*argv, "--nli-model", str(tmp_path / "absent")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("veriproxy check: error: cannot load the NLI backend")
    assert err.count("\n") == 1


@needs_model
def test_check_reads_quoted_citations_and_names_a_misquote(
    capsys: pytest.CaptureFixture[str],
) -> None:
    quoted = "Of the 217 passengers and crew on board, 128 tested positive for COVID-19"
    answer = (
        f'Most of those on board tested positive [PMID:biho913w "{quoted}"]. '
        f'Few needed evacuation [PMID:biho913w "{quoted.replace("128", "182")}"].'
    )
    argv = ["check", answer, "--evidence", str(FIXTURES / "evidence.jsonl"), "--no-color"]
    main([*argv, "--fail-on", "never"])
    out = capsys.readouterr().out
    assert '" quote found in PMID biho913w [' in out and "(judged against it)" in out
    assert "! quoted_citation: misquote: quote says '182' where the abstract says '128'" in out
    assert '" misquote; closest in PMID biho913w: "Of the 217 passengers' in out
