"""Deterministic checks that run beside NLI: numbers and units, negation and direction flips,
qualifiers (certainty, quantity), changes to an aligned near copy, named entities, quoted text.
Each is a ``Check`` registered by name; the verifier runs the ones config lists
(``DEFAULT_CHECKS`` unless it lists others)."""

from verifiers.checks._base import (
    DEFAULT_CHECKS,
    Check,
    CheckInput,
    Effect,
    Scope,
    check_names,
    get_checks,
    register_check,
)
from verifiers.checks.alignment import ALIGNMENT_CHECK, check_alignment
from verifiers.checks.direction import DIRECTION_CHECK, check_direction
from verifiers.checks.entities import ENTITIES_CHECK, check_entities
from verifiers.checks.negation import NEGATION_CHECK, check_negation, is_negated
from verifiers.checks.normalise import content_tokens, normalise
from verifiers.checks.numbers import NUMBERS_CHECK, Quantity, check_numbers, extract_quantities
from verifiers.checks.qualifiers import QUALIFIERS_CHECK, check_qualifiers
from verifiers.checks.quotes import QUOTES_CHECK, check_quotes, extract_quotes

for _check in (
    NUMBERS_CHECK,
    NEGATION_CHECK,
    DIRECTION_CHECK,
    QUALIFIERS_CHECK,
    ALIGNMENT_CHECK,
    ENTITIES_CHECK,
    QUOTES_CHECK,
):
    register_check(_check)

__all__ = [
    "DEFAULT_CHECKS",
    "Check",
    "CheckInput",
    "Effect",
    "Quantity",
    "Scope",
    "check_alignment",
    "check_direction",
    "check_entities",
    "check_names",
    "check_negation",
    "check_numbers",
    "check_qualifiers",
    "check_quotes",
    "content_tokens",
    "extract_quantities",
    "extract_quotes",
    "get_checks",
    "is_negated",
    "normalise",
    "register_check",
]
