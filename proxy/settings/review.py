"""``review:``, the review queue (used by :mod:`proxy.review`): which answer sentences a
reviewer is shown, where the labels are kept, and the precision floor the alert compares with."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Annotated

from annotated_types import Ge, Le, MinLen

from proxy.settings._section import Pattern, Section

DEFAULT_STORE = "sqlite:///veriproxy-review.sqlite"
DEFAULT_RATE = 0.02  # share of the sentences no rule sends to review, per verdict
DEFAULT_PRECISION_FLOOR = 0.8
VERDICTS = (
    "supported",
    "partially_supported",
    "contradicted",
    "unsupported",
    "invalid_citation",
    "uncited",
    "not_checkworthy",
)
Rate = Annotated[float, Ge(0), Le(1)]


@dataclass(frozen=True, slots=True)
class ReviewSettings(Section):
    """``review:`` in the configuration. Off unless ``enabled``; on, it needs an audit log that
    keeps text (``audit.include_text``), since a reviewer reads the sentence's words."""

    enabled: bool = False
    # SQLAlchemy URL: ``sqlite:///path`` (embedded) or ``postgresql://user@host/db``. It may
    # hold a password: kept out of repr.
    store: Annotated[str, Pattern("^(sqlite|postgresql)(\\+\\w+)?://")] = field(
        default=DEFAULT_STORE, repr=False
    )
    # Sampling rate per sentence verdict for sentences no policy action or needs_review sends.
    rates: Mapping[str, Rate] = field(default_factory=dict)
    default_rate: Rate = DEFAULT_RATE
    # Share of verified responses that enter whole (every sentence): the response precision.
    verified_response_rate: Rate = DEFAULT_RATE
    tenants: tuple[Annotated[str, MinLen(1)], ...] = ()  # empty: every tenant
    # Sampled (not forced) items per UTC day; None: no cap.
    daily_cap: Annotated[int, Ge(0)] | None = None
    reviewers_per_item: Annotated[int, Ge(1), Le(2)] = 2
    precision_floor: Rate = DEFAULT_PRECISION_FLOOR  # the alert's floor for the lower bound

    def __post_init__(self) -> None:
        unknown = sorted(set(self.rates) - set(VERDICTS))
        if unknown:
            raise ValueError(f"unknown verdicts in review.rates: {', '.join(unknown)}")

    def rate(self, verdict: str) -> float:
        return self.rates.get(verdict, self.default_rate)

    def samples(self, tenant: str | None) -> bool:
        return self.enabled and (not self.tenants or tenant in self.tenants)
