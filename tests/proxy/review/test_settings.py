"""``review:``: the documented example loads; what cannot work is refused at start."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from proxy.config import ConfigError, settings_from_mapping

DOC = Path(__file__).parents[3] / "docs" / "configuration.md"
AUDITED = {"audit": {"jsonl": "/tmp/audit.jsonl", "include_text": True}}


def _documented() -> dict[str, Any]:
    text = DOC.read_text(encoding="utf-8")
    section = text[text.index("## `review:`") :]
    (block,) = re.findall(r"```yaml\n(.*?)```", section[: section.index("| key |")], re.S)
    return dict(yaml.safe_load(block))


def test_the_documented_example_loads() -> None:
    review = settings_from_mapping(_documented(), {}).review
    assert review.enabled and review.rate("supported") == 0.05 and review.rate("uncited") == 0.02
    assert review.samples("clinic") and not review.samples("other")
    assert "veriproxy@db" not in repr(review)  # the store URL may hold a password


@pytest.mark.parametrize(
    ("review", "audit", "message"),
    [
        ({"enabled": True, "ratez": {}}, AUDITED["audit"], "review.ratez: Extra inputs"),
        ({"enabled": True}, {"jsonl": "/tmp/a.jsonl"}, "audit.include_text"),
        ({"enabled": True}, {"include_text": True}, "audit.include_text"),
        ({"rates": {"plausible": 0.1}}, {}, "unknown verdicts in review.rates: plausible"),
        ({"default_rate": 1.5}, {}, "review.default_rate"),
        ({"store": "mysql://db/x"}, {}, "review.store"),
        ({"reviewers_per_item": 3}, {}, "review.reviewers_per_item"),
    ],
)
def test_what_cannot_work_is_refused(
    review: dict[str, Any], audit: dict[str, Any], message: str
) -> None:
    with pytest.raises(ConfigError, match=re.escape(message)):
        settings_from_mapping({"review": review, "audit": audit}, {})


def test_off_by_default() -> None:
    assert not settings_from_mapping({}, {}).review.samples("anyone")
