"""``veriproxy eval nli --reviews FILE``: the bundled model scored on reviewers' labels (an
export of the NLI fixture pairs), through the real command line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.proxy.review.exported import write_export

REPO = Path(__file__).parents[3]


def test_eval_nli_scores_the_reviewed_pairs(tmp_path: Path) -> None:
    path = tmp_path / "reviews.jsonl"
    rows = write_export(path)
    command = [sys.executable, "-m", "proxy", "eval", "nli", "--reviews", str(path)]
    done = subprocess.run(
        [*command, "--threads", "1", "--json"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout)
    assert (result["dataset"], result["items"]) == ("reviews", len(rows))
    confusion = result["confusion"]
    assert sum(map(sum, confusion)) == len(rows)
    gold = {"supported": 3, "not_enough_evidence": 2, "contradicted": 4}
    for name, count in gold.items():
        assert result["per_class"][name]["support"] == count
    assert 0.0 <= result["macro_f1"] <= 1.0


def test_dataset_and_reviews_exclude_each_other(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "proxy", "eval", "nli", "--dataset", "scifact"]
    done = subprocess.run(
        [*command, "--reviews", str(tmp_path / "x.jsonl")],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert "not allowed with argument" in done.stderr
