"""Client-supplied documents (``extra_body={"veriproxy": {"documents": [...]}}``): apps that do
their own RAG ground and verify against these instead of PubMed.

Each document is a string or an object with ``text`` (or ``abstract`` / ``content``) and
optional ``id`` (or ``pmid``), ``title``, ``journal``, ``year`` and ``url``. Citation labels must
be numbers for the verifier's citation parser, so a document whose id is not a number is
labelled by its position (1, 2, …).

A citation of a document links (:func:`document_links`, the ``url_citation`` annotations) to its
``url`` (http or https), or, for a document sent with a numeric ``pmid``, to that PubMed page;
else to nothing: a number the proxy gave it, or an ``id`` of the app's own, is not a PMID.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from proxy.ingest import Article, sentence_spans, to_evidence
from verifiers import Evidence

MAX_DOCUMENTS = 50
MAX_DOCUMENT_CHARS = 20_000
MAX_URL_CHARS = 2048
PUBMED_URL = "https://pubmed.ncbi.nlm.nih.gov/{}/"


class DocumentError(ValueError):
    """A client document that cannot be used; the message says which and why."""


def client_documents(raw: Sequence[Any]) -> tuple[Evidence, ...]:
    if len(raw) > MAX_DOCUMENTS:
        raise DocumentError(f"at most {MAX_DOCUMENTS} documents per request")
    return tuple(_document(i, doc) for i, doc in enumerate(raw, 1))


def document_links(raw: Sequence[Any]) -> dict[str, str]:
    """The link of each document's citation label (documents without one are left out);
    ``raw`` as :func:`client_documents` accepted it."""
    links: dict[str, str] = {}
    for position, doc in enumerate(raw, 1):
        if not isinstance(doc, Mapping):
            continue
        url = doc.get("url")
        pmid = str(doc.get("pmid", ""))
        if url:
            links[_label(position, doc)] = url
        elif pmid.isdigit():
            links[_label(position, doc)] = PUBMED_URL.format(pmid)
    return links


def _label(position: int, doc: Mapping[str, Any]) -> str:
    given = str(doc.get("id", doc.get("pmid", "")))
    return given if given.isdigit() else str(position)


def _document(position: int, doc: Any) -> Evidence:
    if isinstance(doc, str):
        doc = {"text": doc}
    if not isinstance(doc, Mapping):
        raise DocumentError(f"document {position}: expected a string or an object")
    url = doc.get("url")
    if url is not None and not (
        isinstance(url, str)
        and url.startswith(("https://", "http://"))
        and len(url) <= MAX_URL_CHARS
    ):
        raise DocumentError(f"document {position}: 'url' must be an http(s) URL")
    text = next((doc[k] for k in ("text", "abstract", "content") if doc.get(k)), None)
    if not isinstance(text, str) or not text.strip():
        raise DocumentError(f"document {position}: 'text' must be a non-empty string")
    if len(text) > MAX_DOCUMENT_CHARS:
        raise DocumentError(f"document {position}: longer than {MAX_DOCUMENT_CHARS} characters")
    abstract = " ".join(text.split())
    year = doc.get("year")
    article = Article(
        pmid=_label(position, doc),
        title=" ".join(str(doc.get("title", "")).split()),
        abstract=abstract,
        sentences=sentence_spans(abstract),
        journal=str(doc.get("journal", "")),
        year=year if isinstance(year, int) else None,
    )
    return to_evidence(article, score=1.0, retriever="client")
