"""``veriproxy eval nli`` through the real command line on the first SciFact dev claims, with the
bundled model: the usual metrics, and the ``--coverage`` table in text and JSON."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from proxy.testing.server_thread import RunningEmulator
from tests.verifiers.judge.scripted import judge_reply
from verifiers.eval.data import data_dir

REPO = Path(__file__).parents[3]
DATA = data_dir(relative_to=REPO)
BUNDLED = REPO / "verifiers" / "models" / "nli" / "nli_config.json"

pytestmark = [
    pytest.mark.skipif(not DATA.is_dir(), reason=f"public datasets not at {DATA}"),
    pytest.mark.skipif(not BUNDLED.exists(), reason="bundled NLI model not in the tree"),
]


def run_cli(
    command_name: str, *argv: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``veriproxy eval COMMAND_NAME --data-dir DATA ARGV``, which must succeed."""
    command = [sys.executable, "-m", "proxy", "eval", command_name, "--data-dir", str(DATA), *argv]
    done = subprocess.run(
        command,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, **(env or {})},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def _eval_nli(*argv: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return run_cli("nli", *argv, env=env)


def test_coverage_json_has_one_row_per_fraction() -> None:
    argv = ("--dataset", "scifact", "--limit", "5", "--threads", "1")
    result = json.loads(_eval_nli(*argv, "--coverage", "--json").stdout)
    assert result["items"] == 5
    rows = result["coverage"]
    assert [r["escalated_fraction"] for r in rows] == [0.0, 0.1, 0.2, 0.3, 0.5]
    # floor(fraction * 5) claims escalated.
    assert [r["escalated"] for r in rows] == [0, 0, 1, 1, 2]
    assert [r["kept"] for r in rows] == [5, 5, 4, 4, 3]
    assert {r["total"] for r in rows} == {5}
    thresholds = [r["threshold"] for r in rows]
    assert thresholds == sorted(thresholds) and all(0.0 <= t <= 1.0 for t in thresholds)
    # Escalating nothing is the plain evaluation.
    assert rows[0]["accuracy"] == result["accuracy"]
    assert rows[0]["macro_f1"] == result["macro_f1"]
    assert rows[0]["contradicted_f1"] == result["per_class"]["contradicted"]["f1"]

    assert "coverage" not in json.loads(_eval_nli(*argv, "--json").stdout)


def test_coverage_table_follows_the_usual_output() -> None:
    argv = ("--dataset", "scifact", "--limit", "5", "--threads", "1", "--coverage")
    lines = _eval_nli(*argv).stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("coverage"))
    assert lines[0].startswith("scifact: 5 items")
    assert any(line.startswith("confusion") for line in lines[:start])
    header, *rows = lines[start + 1 : start + 7]
    after = lines[start + 7 :]
    assert header.split() == [
        "escalated",
        "confidence",
        "below",
        "kept",
        "accuracy",
        "macro-F1",
        "contra-F1",
    ]
    assert [row.split()[:2] for row in rows] == [
        ["0%", "0"],
        ["10%", "0"],
        ["20%", "1"],
        ["30%", "1"],
        ["50%", "2"],
    ]
    assert [row.split()[3] for row in rows] == ["5/5", "5/5", "4/5", "4/5", "3/5"]
    # Then what the confidence is worth: error capture, AURC and ECE, the reliability table and
    # the needs-review figures of the engine path.
    assert after[0].startswith("error capture") and "20% " in after[0]
    assert after[1].startswith("risk-coverage area (AURC)")
    assert after[-1].startswith("needs review:")


def test_selective_figures_in_json_and_the_model_only_path() -> None:
    argv = ("--dataset", "scifact", "--limit", "6", "--threads", "1", "--json", "--coverage")
    engine = json.loads(_eval_nli(*argv).stdout)
    assert engine["path"] == "engine"
    selective = engine["selective"]
    assert set(selective["error_capture"]) == {"10%", "20%", "30%"}
    assert 0.0 <= selective["aurc"] <= 1.0 and 0.0 <= selective["ece"] <= 1.0
    assert sum(row["claims"] for row in selective["reliability"]) == 6
    review = selective["needs_review"]
    assert 0 <= review["marked"] <= 6 and 0.0 <= review["kept_supported_precision"] <= 1.0
    model = json.loads(_eval_nli(*argv, "--model-only").stdout)
    assert model["path"] == "model" and "needs_review" not in model["selective"]


def test_judge_option_runs_the_cascade_against_a_judge(emulator: RunningEmulator) -> None:
    """``--judge`` with the emulator as the judge, scripted to call every claim contradicted
    with a quote from the first window it was shown: every escalated claim ends contradicted."""
    emulator.emulator.reply = judge_reply("contradicted")
    argv = ("--dataset", "scifact", "--limit", "4", "--threads", "1", "--json")
    judge = ("--judge", "openai/emu-judge", "--judge-api-base", emulator.base_url)
    done = _eval_nli(*argv, *judge, "--judge-key-env", "JUDGE_KEY", env={"JUDGE_KEY": "sk-j"})
    result = json.loads(done.stdout)
    assert result["judge"]["model"] == "openai/emu-judge"
    assert [row[2] for row in result["judge"]["confusion"]] == [
        sum(row) for row in result["confusion"]
    ]
    assert len(emulator.stats.requests) == 4
    # Every claim was sent (--escalate-below 1.0): all the model's wrong verdicts among them.
    errors = result["items"] - round(result["accuracy"] * result["items"])
    assert (result["judge"]["sent"], result["judge"]["sent_wrong"]) == (4, errors)
    assert emulator.stats.headers[0]["authorization"] == "Bearer sk-j"
