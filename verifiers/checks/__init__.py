"""Deterministic checks that run beside NLI: numbers and units, negation and direction flips,
named entities, quoted text."""

from verifiers.checks.direction import check_direction
from verifiers.checks.entities import check_entities
from verifiers.checks.negation import check_negation, is_negated
from verifiers.checks.normalise import content_tokens, normalise
from verifiers.checks.numbers import Quantity, check_numbers, extract_quantities
from verifiers.checks.quotes import check_quotes, extract_quotes

__all__ = [
    "Quantity",
    "check_direction",
    "check_entities",
    "check_negation",
    "check_numbers",
    "check_quotes",
    "content_tokens",
    "extract_quantities",
    "extract_quotes",
    "is_negated",
    "normalise",
]
