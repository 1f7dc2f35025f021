"""Decomposition of a check-worthy sentence (``verifiers.checkworthy``) into atomic claims.

The rule-based decomposer cuts a sentence only at clause boundaries (";", "whereas", ", but",
", while", ", and" before a new clause) and never inside a clause, so every claim keeps its
negation, quantities and time qualifiers; each claim is a verbatim slice of the sentence with its
offsets. ``LLMDecomposer`` (litellm) is the optional alternative; both are registered by name.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from verifiers._llm import DEFAULT_TIMEOUT_S, LLMEndpoint
from verifiers._registry import Registry
from verifiers.checkworthy import asserting_pieces, has_verb, lead_length, question_claim
from verifiers.lexicons.verbs import DETERMINERS, is_verb

_CLAUSE_BREAK = re.compile(
    r";\s+|,?\s+whereas\s+|,\s+but\s+|,\s+while\s+|,\s+although\s+|,\s+and\s+(?=\w+\s+\w+\s+\w+)"
)
_WORD = re.compile(r"[\w%.]*\w%?")
_DECOMPOSE_PROMPT = (
    "Split the user's sentence into atomic factual claims. Each claim must stand alone (replace "
    "pronouns with what they refer to) and keep every negation, number, unit, population and time "
    'qualifier. Do not add facts. Reply with JSON only: {"claims": ["..."]}'
)
_log = logging.getLogger(__name__)
_PRONOUN = re.compile(r"(?:it|they|this|these|that|those)(?=\s)", re.IGNORECASE)
# "it" that stands for the clause after it, not for the subject before: "..., but it is not
# clear how X", "it remains unknown whether Y", "it is important to ...". Before "to" a past
# participle raises the subject: in "..., but it is thought to play a role" "it" is the subject.
_EXPLETIVE = re.compile(
    r"it\s+(?:is|was|remains|seems|appears)\s+(?:not\s+)?(?P<word>\w+)\s+"
    r"(?:that|whether|how|why|if|(?P<to>to))\b",
    re.IGNORECASE,
)
_LIST_COMMA = re.compile(r",\s+")
MIN_CLAIM_WORDS = 4  # a shorter fragment is a qualifier of its neighbour, not a claim


@dataclass(frozen=True, slots=True)
class ClaimSpan:
    """An atomic claim: its text and its offsets in the sentence it came from."""

    text: str
    start: int
    end: int


class Decomposer(Protocol):
    """Splits a sentence into atomic claims; rule-based and LLM versions implement it."""

    name: str

    def decompose(self, sentence: str) -> list[ClaimSpan]: ...


class RuleDecomposer:
    """Clause-level splitting that keeps qualifiers with their clause.

    A break splits only where a clause follows it: the words up to the next break hold a verb
    (``verifiers.lexicons.verbs``), and an ", and" does not close a list ("A, B, and C"). A
    clause that opens with its verb ("…, but did not reduce stroke") gets the first clause's
    subject in its text, as one that opens with a pronoun does: a fragment is unjudgeable on
    its own, and the model calls it anything but supported. A yes or no that answers the
    user's question is left out of the first claim."""

    name = "rules"

    def decompose(self, sentence: str) -> list[ClaimSpan]:
        lead, stop = lead_length(sentence), len(sentence)
        question = question_claim(sentence) if sentence.rstrip().endswith("?") else None
        if question is not None:  # "Did you know that X?", "X, right?": X is the claim
            lead, stop = max(lead, question[0]), question[1]
        breaks = [
            m
            for m in _CLAUSE_BREAK.finditer(sentence, lead, stop)
            if _depth(sentence, m.start()) == 0
        ]
        cuts = [(0, lead)]
        for i, match in enumerate(breaks):
            following = sentence[
                match.end() : breaks[i + 1].start() if i + 1 < len(breaks) else stop
            ]
            if _opens_clause(sentence[cuts[-1][1] : match.start()], match.group(), following):
                cuts.append((match.start(), match.end()))
        cuts.append((stop, stop))
        pieces = [(cuts[i][1], cuts[i + 1][0]) for i in range(len(cuts) - 1)]
        merged: list[tuple[int, int]] = []
        for start, end in pieces:
            short = len(sentence[start:end].split()) < MIN_CLAIM_WORDS
            if merged and (short or _words(sentence, merged[-1]) < MIN_CLAIM_WORDS):
                merged[-1] = (merged[-1][0], end)
            else:
                merged.append((start, end))
        claims = [_span(sentence, start, end) for start, end in merged]
        # A clause that is all aside ("I cannot give medical advice, but ...") claims nothing.
        claims = [c for c in claims if asserting_pieces(c.text)] or claims
        subject = _subject(claims[0].text) if len(claims) > 1 else None
        return [claims[0], *(_resolve(c, subject) for c in claims[1:])]


def _opens_clause(before: str, separator: str, following: str) -> bool:
    """Whether a break (``separator``) between ``before`` (the clause so far) and
    ``following`` (the words up to the next break) starts a new clause."""
    if not has_verb(following):
        return False  # "…, but not all, ethnic groups"; "stable, and resistant to RNase R"
    if separator.strip(", ") == "and":
        items = _LIST_COMMA.split(before)
        if len(items) > 1 and not has_verb(items[-1]):
            return False  # the last item of a list: "A, B, and C have been reported"
    return True


def _subject(clause: str) -> str | None:
    """The words before the first verb of a clause: "Aspirin reduced X" → "Aspirin"; the
    reported clause's own where the verb reports one ("These data suggest that surgery offers
    X" → "surgery")."""
    words = clause.split()
    for i, word in enumerate(words[1:], start=1):
        if is_verb(word, words[i - 1]):
            if i + 1 < len(words) and words[i + 1].lower() == "that":
                return _subject(" ".join(words[i + 2 :])) or " ".join(words[:i])
            return " ".join(words[:i])
    return None


def _resolve(claim: ClaimSpan, subject: str | None) -> ClaimSpan:
    """A later clause that opens with a pronoun or with its verb gets the first clause's
    subject in its text (its span stays the clause): "it did not reduce stroke" and "did not
    reduce stroke" are unjudgeable on their own. "that" before a subject of its own is a
    conjunction ("but that its use …") and is left out."""
    text = claim.text
    words = text.split()
    if len(words) > 1 and words[0].lower() == "that" and words[1].lower() in DETERMINERS:
        return ClaimSpan(text[len(words[0]) :].lstrip(), claim.start, claim.end)
    if subject is None:
        return claim
    match = _PRONOUN.match(text)
    expletive = _EXPLETIVE.match(text)
    if expletive is not None and expletive["to"] and is_verb(expletive["word"]):
        expletive = None
    if match is not None and expletive is None:
        return ClaimSpan(subject + text[match.end() :], claim.start, claim.end)
    if words and (words[0].lower() == "not" or is_verb(words[0])):
        return ClaimSpan(f"{subject} {text}", claim.start, claim.end)
    return claim


def _words(sentence: str, span: tuple[int, int]) -> int:
    return len(sentence[span[0] : span[1]].split())


def _depth(text: str, index: int) -> int:
    """Bracket depth at ``index``: clause breaks inside parentheses do not split."""
    depth = 0
    for char in text[:index]:
        if char in "([":
            depth += 1
        elif char in ")]" and depth:
            depth -= 1
    return depth


def _span(sentence: str, start: int, end: int) -> ClaimSpan:
    raw = sentence[start:end]
    lead = len(raw) - len(raw.lstrip())
    text = raw.strip()
    return ClaimSpan(text, start + lead, start + lead + len(text))


class LLMDecomposer:
    """Atomic, self-contained claims from an LLM through litellm; each claim points back to the
    sentence span holding its words. When the LLM fails or answers nonsense, the rule-based
    split is used (and logged): decomposition only shapes what is checked, never a verdict."""

    name = "llm"

    def __init__(
        self,
        model: str,
        *,
        api_base: str | None = None,
        api_key: str | None = None,
        timeout_s: float = DEFAULT_TIMEOUT_S,
    ) -> None:
        self.model = model
        self._endpoint = LLMEndpoint(model, api_base, api_key, timeout_s)

    def decompose(self, sentence: str) -> list[ClaimSpan]:
        try:
            content = self._endpoint.complete(_DECOMPOSE_PROMPT, sentence)
            claims = parse_claims(content)
        except Exception as exc:  # litellm raises many provider-specific types
            _log.warning(
                "LLM decomposer %s failed (%s); using rules", self.model, type(exc).__name__
            )
            return RuleDecomposer().decompose(sentence)
        return [locate(claim, sentence) for claim in claims]


def parse_claims(content: str) -> list[str]:
    """The claim strings of a ``{"claims": [...]}`` reply (prose or code fences around it are
    ignored). Raises ``ValueError`` when there is none."""
    start, end = content.find("{"), content.rfind("}")
    data = json.loads(content[start : end + 1]) if 0 <= start < end else None
    if not isinstance(data, dict) or not isinstance(data.get("claims"), list):
        raise ValueError("no claims list in the reply")
    claims = [str(c).strip() for c in data["claims"] if str(c).strip()]
    if not claims:
        raise ValueError("empty claims list")
    return claims


def locate(claim: str, sentence: str) -> ClaimSpan:
    """The claim with the sentence span from its first to its last word that occurs in the
    sentence (the whole sentence when none does)."""
    words = {w.casefold() for w in _WORD.findall(claim)}
    hits = [m for m in _WORD.finditer(sentence) if m.group(0).casefold() in words]
    if not hits:
        return ClaimSpan(claim, 0, len(sentence))
    return ClaimSpan(claim, hits[0].start(), hits[-1].end())


DECOMPOSERS: Registry[Callable[..., Decomposer]] = Registry("decomposer")
DECOMPOSERS.add(RuleDecomposer.name, RuleDecomposer)
DECOMPOSERS.add(LLMDecomposer.name, LLMDecomposer)


def create_decomposer(name: str = RuleDecomposer.name, **options: Any) -> Decomposer:
    """Build a registered decomposer by name (``rules`` or ``llm``), as config selects it."""
    return DECOMPOSERS.get(name)(**options)
