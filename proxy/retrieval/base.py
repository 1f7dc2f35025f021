"""The retriever interface: a query in, ranked evidence records out.

::

    RetrievalError                 retrieval could not run (index missing, backend down)
    └── BackendError               a remote backend (E-utilities, OpenSearch) failed
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from proxy.settings.retrieval import DEFAULT_TOP_K, Mode
from verifiers import Evidence

__all__ = ["DEFAULT_TOP_K", "BackendError", "Mode", "RetrievalError", "Retriever"]


class RetrievalError(Exception):
    """Retrieval could not run; the message is safe to show (no keys, no internals)."""


class BackendError(RetrievalError):
    """A remote retrieval backend failed after retries."""


@runtime_checkable
class Retriever(Protocol):
    """Anything that turns a query into evidence. ``Evidence.retriever`` says which one found it
    (``hybrid``, ``bm25``, ``eutils``, ``opensearch`` …); ``score`` is the retriever's own."""

    name: str

    async def search(self, query: str, *, top_k: int = DEFAULT_TOP_K) -> list[Evidence]: ...

    async def aclose(self) -> None: ...
