"""Evidence for a chat request: the retrieval query, client documents, the injected system
message with its citation contract, and the preparer that runs them in the chat service."""

from __future__ import annotations

from proxy.evidence.documents import DocumentError, client_documents
from proxy.evidence.inject import Injection, format_evidence, inject
from proxy.evidence.preparer import EvidencePreparer
from proxy.evidence.query import build_query
from proxy.settings.retrieval import Backend, RetrievalSettings

__all__ = [
    "Backend",
    "DocumentError",
    "EvidencePreparer",
    "Injection",
    "RetrievalSettings",
    "build_query",
    "client_documents",
    "format_evidence",
    "inject",
]
