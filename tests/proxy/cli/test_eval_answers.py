"""``veriproxy eval answers`` through the real command line on one PubMedQA answer, with the
bundled model and then with the emulator as an LLM judge (``--judge``)."""

from __future__ import annotations

import json

from proxy.testing.server_thread import RunningEmulator
from tests.proxy.cli import test_eval_nli
from tests.proxy.cli.test_eval_nli import run_cli
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
