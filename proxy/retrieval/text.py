"""Query words for keyword backends (FTS5, PubMed esearch)."""

from __future__ import annotations

import re

# Very common words only cost time in an OR query and add next to nothing to BM25.
_STOPWORDS_TEXT = """a an and are as at be by can do does did for from has have how in is it its
of on or that the their there these this to was were what when which who why will with"""
STOPWORDS = frozenset(_STOPWORDS_TEXT.split())
_WORD = re.compile(r"\w+", re.UNICODE)


def content_words(text: str) -> list[str]:
    """Distinct words of ``text`` in order, lower-cased, without stopwords."""
    words = [w for w in _WORD.findall(text.lower()) if w not in STOPWORDS]
    return list(dict.fromkeys(words))
