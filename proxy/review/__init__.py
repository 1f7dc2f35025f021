"""The review queue: reviewers label a sample of live decisions, and the labels become
precision estimates with honest error bars (``veriproxy review report``, the metrics) and
training and evaluation data (``veriproxy review export``).

:mod:`~proxy.review.sampling` picks the sentences (with their inclusion probabilities),
:mod:`~proxy.review.store` keeps items and labels (SQLAlchemy, Alembic migrations),
:mod:`~proxy.review.queue` runs it inside the proxy, :mod:`~proxy.review.estimate` turns labels
into estimates.

The store and the queue (SQLAlchemy, Alembic) are imported from their modules, and only where
the queue is on, so that a proxy without it never loads them.
"""

from proxy.review.estimate import Agreement, Estimate
from proxy.review.items import Label, Labelled, ReviewItem
from proxy.review.sampling import Sampler

__all__ = ["Agreement", "Estimate", "Label", "Labelled", "ReviewItem", "Sampler"]
