"""Quoted citations (``[PMID:123 "exact words"]``): their syntax, the check of a quote against
the abstract it cites, and taking quotes out of the text a client reads (whole or streamed)."""

from verifiers.quoting.match import check_quote
from verifiers.quoting.stream import QuoteStripper, Stripped
from verifiers.quoting.syntax import (
    MAX_BRACKET_CHARS,
    MAX_QUOTE_CHARS,
    Quoted,
    QuotedBracket,
    find_quoted,
    quote_parts,
    strip_quotes,
)

__all__ = [
    "MAX_BRACKET_CHARS",
    "MAX_QUOTE_CHARS",
    "QuoteStripper",
    "Quoted",
    "QuotedBracket",
    "Stripped",
    "check_quote",
    "find_quoted",
    "quote_parts",
    "strip_quotes",
]
