"""A ``veriproxy review export`` file made the way the command makes it: the NLI fixture pairs
(tests/fixtures/nli_pairs.jsonl) as reviewed items, each labelled with its gold verdict, a few
sentences to one request."""

from __future__ import annotations

import json
from pathlib import Path

from proxy.review.items import Label, Labelled, Quote
from proxy.review.report import export_rows
from tests.proxy.review.factory import NOW, item

PAIRS = Path(__file__).parents[2] / "fixtures" / "nli_pairs.jsonl"
VERDICT_OF = {"entailment": "supported", "contradiction": "contradicted", "neutral": "unsupported"}


def write_export(path: Path, per_request: int = 3) -> list[dict[str, object]]:
    pairs = [json.loads(line) for line in PAIRS.read_text(encoding="utf-8").splitlines()]
    found = []
    for i, pair in enumerate(pairs):
        quote = Quote("12345", "Title", pair["premise"], 0, len(pair["premise"]), "neutral", 0.5)
        reviewed = item(
            f"req-{i // per_request}", i % per_request, text=pair["hypothesis"], evidence=(quote,)
        )
        label = Label(i, "r1", False, VERDICT_OF[pair["expected"]], "", NOW)
        found.append(Labelled(reviewed, (label,)))
    rows = export_rows(found)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return rows
