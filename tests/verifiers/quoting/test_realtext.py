"""Every corpus in the data directory through the quote parser, the stripper and the quote
check: real text (units, other scripts, odd punctuation, long sentences) raises nothing, and a
verbatim run of words from a text is found in it at offsets that give those words back."""

from __future__ import annotations

import random
import re

import pytest

from bench.realtext import real_texts
from verifiers import QuoteStatus
from verifiers.checks.normalise import normalise_mapped
from verifiers.citations import parse_citations
from verifiers.quoting import check_quote, find_quoted, quote_parts, strip_quotes
from verifiers.quoting.syntax import mask_quotes
from verifiers.segment import segment
from verifiers.windows import make_evidence

CORPORA = real_texts(per_corpus=40)
if not CORPORA:
    pytest.skip("no data directory (../shared/data)", allow_module_level=True)


@pytest.mark.parametrize("corpus", sorted(CORPORA))
def test_quotes_of_real_text_are_found_where_they_are(corpus: str) -> None:
    rng = random.Random(corpus)
    for number, text in enumerate(CORPORA[corpus][:20]):
        record = make_evidence(f"{number}", "Title", text)
        words = list(re.finditer(r"\S+", text))
        if len(words) < 4:
            continue
        first = rng.randrange(0, len(words) - 3)
        last = min(len(words) - 1, first + rng.randint(2, 25))
        quote = text[words[first].start() : words[last].end()].strip(" .,;:")
        if not quote or any(c in quote for c in '"\u201c\u201d\u201e\u00ab\u00bb[]\n'):
            continue  # a quote holding quote marks or brackets is not one the contract asks for
        result = check_quote(quote, [record])
        assert result.status is QuoteStatus.FOUND, (corpus, quote)
        assert [_words(span.text) for span in result.spans] == [
            _words(part) for part in quote_parts(quote)
        ], (corpus, quote)
        answer = f'Something was found [PMID:{number} "{quote}"]. {text[:300]}'
        citations = parse_citations(answer, [str(number)])
        assert citations[0].quote == quote
        visible, stripped = strip_quotes(answer)
        assert stripped[0].quote == quote and visible.startswith(
            f"Something was found [PMID:{number}]."
        )
        assert len(mask_quotes(answer)) == len(answer)
        # The quote may hold sentence ends: its bracket stays inside the first sentence.
        assert segment(answer)[0].end >= answer.index('"].') + 2


@pytest.mark.parametrize("corpus", sorted(CORPORA))
def test_real_text_as_an_answer_raises_nothing(corpus: str) -> None:
    texts = CORPORA[corpus]
    records = [make_evidence(str(i), "t", t) for i, t in enumerate(texts[:5])]
    for text in texts[:20]:
        find_quoted(text)
        visible, _ = strip_quotes(text)
        assert len(mask_quotes(text)) == len(text)
        parse_citations(text, [r.pmid for r in records])
        # A misquote: the text's words against other texts: never found, never an error.
        misquote = check_quote(text[:200], records[:1], records[1:])
        assert misquote.status in set(QuoteStatus)
        assert visible == text or find_quoted(text)


def _words(text: str) -> str:
    return normalise_mapped(text).text.strip(" .,;:")
