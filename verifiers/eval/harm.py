"""Real claims for the harm scorer's sanity check (``veriproxy eval harm``): no public dataset
has harm labels, so the claims of SciFact, Check-COVID, PubMedQA and HealthVer are read as they
are, for the level distribution and samples a reader judges."""

from __future__ import annotations

import csv
import json
from collections.abc import Callable
from pathlib import Path


def _scifact(data: Path) -> list[str]:
    claims = []
    for split in ("train", "dev"):
        with (data / "scifact" / f"claims_{split}.jsonl").open(encoding="utf-8") as fh:
            claims += [json.loads(line)["claim"] for line in fh if line.strip()]
    return claims


def _check_covid(data: Path) -> list[str]:
    path = data / "check_covid" / "covidCheck_dev_composed+extracted.json"
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line)["claim"] for line in fh if line.strip()]


def _pubmedqa(data: Path) -> list[str]:
    with (data / "pubmedqa" / "ori_pqal.json").open(encoding="utf-8") as fh:
        return [item["LONG_ANSWER"] for item in json.load(fh).values()]


def _healthver(data: Path) -> list[str]:
    with (data / "healthver" / "healthver_dev.csv").open(encoding="utf-8", newline="") as fh:
        return [row["claim"] for row in csv.DictReader(fh)]


DATASETS: dict[str, Callable[[Path], list[str]]] = {
    "scifact": _scifact,
    "check_covid": _check_covid,
    "pubmedqa": _pubmedqa,
    "healthver": _healthver,
}
