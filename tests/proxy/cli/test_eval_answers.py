"""``veriproxy eval answers`` through the real command line on one PubMedQA answer, with the
bundled model and then with the emulator as an LLM judge (``--judge``); and ``--quotes`` on the
three PubMedQA records of tests/fixtures/answers."""

from __future__ import annotations

import json

from proxy.testing.server_thread import RunningEmulator
from tests.proxy.cli import test_eval_nli
from tests.proxy.cli.test_eval_nli import REPO, run_cli
from tests.verifiers.judge.scripted import judge_reply

pytestmark = test_eval_nli.pytestmark  # skipped without the datasets or the bundled model

ARGV = ("--source", "pubmedqa", "--limit", "1", "--json")


def test_a_judge_that_calls_everything_contradicted_is_what_the_figures_show(
    emulator: RunningEmulator,
) -> None:
    bundled = json.loads(run_cli("answers", *ARGV).stdout)
    assert bundled["judge"] is None and bundled["correct_sentences"] > 0
    emulator.emulator.reply = judge_reply("contradicted")
    judge = ("--judge", "openai/emu-judge", "--judge-api-base", emulator.base_url)
    done = run_cli("answers", *ARGV, *judge, "--judge-key-env", "K", env={"K": "sk-j"})
    judged = json.loads(done.stdout)
    assert judged["judge"] == "openai/emu-judge"
    assert judged["correct_sentences"] == bundled["correct_sentences"]
    # Every claim escalated and called contradicted, each with a quote from its evidence.
    assert judged["supported_rate"] == 0.0
    assert judged["false_contradicted_rate"] == 1.0
    # Each false contradiction has one cause; the judge's, unless a check also failed on it.
    causes = judged["false_contradicted_by"]
    assert sum(causes.values()) == judged["correct_sentences"] and "judge" in causes
    assert emulator.stats.requests, "the judge was never asked"


QUOTED = ("--data-dir", str(REPO / "tests" / "fixtures" / "answers"), "--source", "pubmedqa")


def test_quotes_put_both_renderings_side_by_side_with_the_same_distortions() -> None:
    done = run_cli("answers", *QUOTED, "--quotes", "--json")
    result = json.loads(done.stdout)
    plain, quoted = result["without_quotes"], result["with_quotes"]
    assert result["items"] == 3 and result["quoted_sentences"] == result["sentences"] == 5
    assert plain["correct_sentences"] == quoted["correct_sentences"] > 0
    # The same seed draws the same distorted sentences in both renderings.
    assert {k: r["sentences"] for k, r in plain["perturbed"].items()} == {
        k: r["sentences"] for k, r in quoted["perturbed"].items()
    }
    assert plain["nli_pairs_per_sentence"] > 0 and quoted["nli_pairs_per_sentence"] > 0
    assert plain["correct_quotes_checked"] == 0 and plain["quote_checked_rate"] == 0.0
    # PubMedQA sentences quote themselves: every correct one is grounded in its quote; plain
    # citations quote nothing.
    assert quoted["grounded_sentences"] == quoted["correct_sentences"]
    assert plain["grounded_sentences"] == 0
    # Every quote was checked; the right ones found, every misquote reported (the check is
    # character for character, no model in it). One abstract per item: no other_abstract.
    assert quoted["correct_quotes_checked"] >= 5 and quoted["correct_quotes_called_misquote"] == 0
    made = {k: r for k, r in quoted["misquotes"].items() if k != "all" and r["sentences"]}
    assert set(made) == {"word", "number", "other_item"}
    assert all(r["reported"] == 1.0 for r in made.values())
    # Each answer once more with another answer's sentence appended uncited, in both renderings;
    # the fixtures hold no SNLI, so no everyday sentence, and the command says so.
    for column in (plain, quoted):
        assert set(column["off_topic"]) == {"other_answer"}
        assert column["off_topic"]["other_answer"]["sentences"] == 3
    assert "no everyday sentences are appended" in done.stderr
    shown = run_cli("answers", *QUOTED, "--quotes", "--examples", "1").stdout
    assert "without quotes" in shown and "misquotes, the sentence as written" in shown
    assert "off-topic uncited sentences called contradicted" in shown
    ece = next(line for line in shown.splitlines() if line.strip().startswith("ECE"))
    assert ece.split()[1:] == [f"{c['selective']['ece']:.3f}" for c in (plain, quoted)]


def test_the_plain_report_ends_with_the_off_topic_sentences() -> None:
    shown = run_cli("answers", *QUOTED).stdout
    assert "perturbation" in shown
    off_topic = shown[shown.index("off-topic uncited sentences called contradicted") :]
    assert "other_answer (3 appended)" in off_topic
