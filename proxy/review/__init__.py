"""The review queue: reviewers label a sample of live decisions, and the labels become
precision estimates with honest error bars (``veriproxy review report``, the metrics) and
training and evaluation data (``veriproxy review export``).

:mod:`~proxy.review.sampling` picks the sentences (with their inclusion probabilities),
:mod:`~proxy.review.store` keeps items and labels (SQLAlchemy, Alembic migrations),
:mod:`~proxy.review.queue` runs it inside the proxy, :mod:`~proxy.review.estimate` turns labels
into estimates.
"""

from proxy.review.estimate import Agreement, Estimate
from proxy.review.items import Label, ReviewItem
from proxy.review.queue import ReviewQueue, Summary
from proxy.review.sampling import Sampler
from proxy.review.store import ReviewStore, open_store

__all__ = [
    "Agreement",
    "Estimate",
    "Label",
    "ReviewItem",
    "ReviewQueue",
    "ReviewStore",
    "Sampler",
    "Summary",
    "open_store",
]
