"""Harm potential of a claim, 1 (study metadata) to 5 (dose, route, contraindication, …).

After VetScore: a wrong claim about a dose hurts more than a wrong claim about a study's sample
size, so the risk score weighs each claim by its harm level. Two scorers share one interface:

- ``RuleHarmScorer`` (default): a transparent lexicon of regular expressions
  (``verifiers/lexicons/harm.yaml``); every level comes with the cues that decided it.
- ``LLMHarmJudge`` (optional): asks a model through litellm with the same rubric.

Exceptions: ``HarmError`` (a scorer could not score the batch).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any, Protocol, runtime_checkable

import yaml

from verifiers._llm import BatchedLLM, llm_failures
from verifiers._registry import Registry
from verifiers.errors import HarmError as HarmError  # defined there, importable here

MIN_HARM = 1
MAX_HARM = 5
LEXICON_RESOURCE = "harm.yaml"

RUBRIC = (
    "Rate the harm potential of each biomedical claim if it were wrong, on a 1-5 scale: "
    "5 doses, routes, frequencies, contraindications, interactions, pregnancy or paediatric use, "
    "direct patient actions; 4 treatment efficacy and safety; 3 diagnosis and prognosis; "
    "2 epidemiology and mechanism; 1 study metadata."
)
JUDGE_SYSTEM = (
    RUBRIC + ' Answer only JSON: {"results": [{"index": 0, "level": 1-5, "reasons": '
    '["short reason", ...]}, ...]} with one entry per numbered claim.'
)
DEFAULT_BATCH_SIZE = 16


@dataclass(frozen=True, slots=True)
class HarmAssessment:
    """Harm level of one text with the human-readable reasons that decided it."""

    level: int
    reasons: tuple[str, ...]


@runtime_checkable
class HarmScorer(Protocol):
    """Scores a batch of claims. Synchronous like the NLI backends; callers run it off the loop."""

    name: str
    version: str

    def score_batch(self, texts: Sequence[str]) -> list[HarmAssessment]: ...


@dataclass(frozen=True, slots=True)
class _Cue:
    name: str
    level: int
    pattern: re.Pattern[str]
    needs: frozenset[str]


@dataclass(frozen=True, slots=True)
class Lexicon:
    """The compiled cue list; ``default_level`` applies when no cue matches."""

    version: int
    default_level: int
    cues: tuple[_Cue, ...]

    @classmethod
    def from_mapping(cls, data: dict[str, Any]) -> Lexicon:
        cues = []
        for raw in data["cues"]:
            level = int(raw["level"])
            if not MIN_HARM <= level <= MAX_HARM:
                raise ValueError(f"cue {raw['name']!r}: level {level} outside 1-5")
            alternatives = "|".join(f"(?:{p})" for p in raw["patterns"])
            # Word boundaries on both sides so "oral" never matches inside "moral".
            pattern = re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)", re.IGNORECASE)
            cues.append(_Cue(raw["name"], level, pattern, frozenset(raw.get("needs", ()))))
        return cls(int(data["version"]), int(data["default_level"]), tuple(cues))


@cache
def default_lexicon() -> Lexicon:
    """The lexicon shipped in ``verifiers/lexicons/harm.yaml`` (loaded once)."""
    text = resources.files("verifiers.lexicons").joinpath(LEXICON_RESOURCE).read_text("utf-8")
    return Lexicon.from_mapping(yaml.safe_load(text))


class RuleHarmScorer:
    """Default scorer: the highest level among matching lexicon cues, with those cues as reasons."""

    name = "rules"

    def __init__(self, lexicon: Lexicon | None = None) -> None:
        self.lexicon = lexicon or default_lexicon()
        self.version = f"harm-lexicon-v{self.lexicon.version}"

    def score(self, text: str) -> HarmAssessment:
        hits = [(cue, m.group(0)) for cue in self.lexicon.cues for m in cue.pattern.finditer(text)]
        names = {cue.name for cue, _ in hits}
        counted = [(cue, found) for cue, found in hits if not cue.needs or cue.needs & names]
        if not counted:
            return HarmAssessment(self.lexicon.default_level, ("no harm cue: general claim",))
        level = max(cue.level for cue, _ in counted)
        reasons: dict[str, str] = {}  # case-folded → first spelling, so "You"/"you" count once
        for cue, found in counted:
            if cue.level != level:
                continue
            context = f" ({' or '.join(sorted(cue.needs & names))} context)" if cue.needs else ""
            reason = f"{cue.name}: '{' '.join(found.split())}'{context}"
            reasons.setdefault(reason.casefold(), reason)
        return HarmAssessment(level, tuple(reasons.values()))

    def score_batch(self, texts: Sequence[str]) -> list[HarmAssessment]:
        return [self.score(text) for text in texts]


def score_harm(text: str) -> tuple[int, tuple[str, ...]]:
    """Harm level (1-5) of one claim and the reasons, from the default rule scorer."""
    result = _default_scorer().score(text)
    return result.level, result.reasons


@cache
def _default_scorer() -> RuleHarmScorer:
    return RuleHarmScorer()


class LLMHarmJudge(BatchedLLM):
    """Optional scorer: one litellm chat call per batch of claims, answering JSON with a level
    and reasons per claim. Any malformed answer raises ``HarmError``: a wrong harm level must
    never pass silently, so callers decide whether to fall back to the rules."""

    default_batch_size = DEFAULT_BATCH_SIZE

    def score_batch(self, texts: Sequence[str]) -> list[HarmAssessment]:
        return self._in_batches(texts, self._judge)

    def _judge(self, texts: Sequence[str]) -> list[HarmAssessment]:
        claims = "\n".join(f"{i}. {text}" for i, text in enumerate(texts))
        with llm_failures(HarmError, f"harm judge {self.model}"):
            content = self._endpoint.complete(JUDGE_SYSTEM, claims)
        return parse_judge_answer(content, len(texts))


def parse_judge_answer(content: str, expected: int) -> list[HarmAssessment]:
    """Validate the judge's JSON: exactly one entry per claim, levels 1-5, reasons strings."""
    # Models often wrap JSON in prose or a code fence: read from the first "{" to the last "}".
    body = content[content.find("{") : content.rfind("}") + 1]
    try:
        results = json.loads(body)["results"]
    except (json.JSONDecodeError, KeyError, TypeError) as exc:
        raise HarmError("harm judge answer is not the expected JSON object") from exc
    by_index: dict[int, HarmAssessment] = {}
    for item in results if isinstance(results, list) else []:
        if not isinstance(item, dict):
            raise HarmError(f"harm judge entry is not an object: {item!r}")
        index, level, reasons = item.get("index"), item.get("level"), item.get("reasons", [])
        if not (isinstance(index, int) and isinstance(level, int)):
            raise HarmError(f"harm judge entry without integer index and level: {item!r}")
        if not MIN_HARM <= level <= MAX_HARM:
            raise HarmError(f"harm judge level {level} outside 1-5")
        if not isinstance(reasons, list) or not all(isinstance(r, str) for r in reasons):
            raise HarmError("harm judge reasons must be a list of strings")
        by_index[index] = HarmAssessment(level, tuple(f"llm: {r}" for r in reasons))
    if sorted(by_index) != list(range(expected)):
        raise HarmError(f"harm judge scored {sorted(by_index)}, expected 0..{expected - 1}")
    return [by_index[i] for i in range(expected)]


HARM_SCORERS: Registry[Callable[..., HarmScorer]] = Registry("harm scorer")
HARM_SCORERS.add(RuleHarmScorer.name, RuleHarmScorer)
HARM_SCORERS.add(LLMHarmJudge.name, LLMHarmJudge)


def get_harm_scorer(name: str = RuleHarmScorer.name, **options: Any) -> HarmScorer:
    """Build a registered scorer by name (``rules`` or ``llm``), as config selects it."""
    return HARM_SCORERS.get(name)(**options)
