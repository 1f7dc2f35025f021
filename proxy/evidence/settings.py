"""Deprecated: the ``retrieval:`` section is declared in :mod:`proxy.settings.retrieval`."""

from __future__ import annotations

import warnings

from proxy.settings.retrieval import (
    DEFAULT_NCBI_KEY_ENV,
    DEFAULT_OPENSEARCH_INDEX,
    DEFAULT_OPENSEARCH_URL,
    DEFAULT_TIMEOUT_SECONDS,
    DEFAULT_TOOL,
    Backend,
    EutilsSettings,
    OpenSearchSettings,
    RetrievalSettings,
)

__all__ = [
    "DEFAULT_NCBI_KEY_ENV",
    "DEFAULT_OPENSEARCH_INDEX",
    "DEFAULT_OPENSEARCH_URL",
    "DEFAULT_TIMEOUT_SECONDS",
    "DEFAULT_TOOL",
    "Backend",
    "EutilsSettings",
    "OpenSearchSettings",
    "RetrievalSettings",
]

warnings.warn(
    "proxy.evidence.settings is deprecated; import from proxy.settings.retrieval",
    DeprecationWarning,
    stacklevel=2,
)
