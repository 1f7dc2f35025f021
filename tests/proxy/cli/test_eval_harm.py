"""``veriproxy eval harm`` reads each dataset's real file layout and prints a distribution."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from proxy.cli import eval_harm


def _data(root: Path) -> Path:
    (root / "scifact").mkdir(parents=True)
    for split, claim in (("train", "Metformin reduces HbA1c."), ("dev", "The PDPN gene binds.")):
        line = json.dumps({"id": 1, "claim": claim, "evidence": {}, "cited_doc_ids": []})
        (root / "scifact" / f"claims_{split}.jsonl").write_text(line + "\n")
    (root / "check_covid").mkdir()
    line = json.dumps({"id": "x", "claim": "Take 5 mg twice daily.", "label": "SUPPORT"})
    (root / "check_covid" / "covidCheck_dev_composed+extracted.json").write_text(line + "\n")
    (root / "pubmedqa").mkdir()
    pqa = {"1": {"LONG_ANSWER": "This study enrolled 40 participants."}}
    (root / "pubmedqa" / "ori_pqal.json").write_text(json.dumps(pqa))
    (root / "healthver").mkdir()
    (root / "healthver" / "healthver_dev.csv").write_text(
        'id,evidence,claim,label\n1,e,"CT has high sensitivity.",Supports\n'
    )
    return root


def test_distribution_per_dataset(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    parser = argparse.ArgumentParser()
    eval_harm.register(parser.add_subparsers())
    args = parser.parse_args(["harm", "--data-dir", str(_data(tmp_path)), "--samples", "1"])
    assert args.func(args) == 0
    out = capsys.readouterr().out
    assert "scifact          2 claims  1:    0  2:    1  3:    0  4:    1  5:    0" in out
    assert "check_covid      1 claims  1:    0  2:    0  3:    0  4:    0  5:    1" in out
    assert "pubmedqa         1 claims  1:    1" in out
    assert "healthver        1 claims  1:    0  2:    0  3:    1" in out
    assert "[5] Take 5 mg twice daily.  <- dose: '5 mg'; frequency: 'twice daily'" in out
