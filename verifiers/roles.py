"""What an abstract sentence does: state the study's design (its aim or its methods), or
report something (background or a finding).

A sentence that says what a study set out to do or how it did it ("To determine whether X
reduces Y", "Fifty-two patients underwent CRT") reports no finding, so it cannot refute a
claim. The small NLI model reads such sentences as contradicting the study's own conclusion
("X did not reduce Y" against "To determine whether X reduces Y"); the engine sets aside a
contradiction that rests on design sentences alone (``verifiers.engine``).

The model is a logistic regression over lower-cased word unigrams and bigrams, fitted by
``veriproxy train-roles`` on the section labels of structured abstracts (PubMedQA's training
questions and the MEDLINE sample; ``verifiers.training.roles``) and shipped as JSON. Its
threshold keeps the design calls in agreement with the section labels at least 90% of the time
out of fold; a sentence that states an aim outright ("whether", "we hypothesized", "To
determine ...", a purpose such as "To point out the value of X.") is design whatever the fit
says.
"""

from __future__ import annotations

import itertools
import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from verifiers.segment import segment

ROLES_PATH = Path(__file__).parent / "lexicons" / "sentence_roles.json"
# scikit-learn's CountVectorizer default tokens (two or more word characters), lower-cased:
# the runtime must read a sentence as the fit did.
_TOKEN = re.compile(r"(?u)\b\w\w+\b")
# Sentences that pose a question rather than report a finding: "We hypothesized that X
# increases Y", "To determine whether X ...".
AIM = re.compile(
    r"\b(?:whether|hypothes[ie]s|hypothesi[sz]ed|aims?|aimed|objectives?|purpose"
    r"|we (?:sought|tested|asked))\b|\?\s*$",
    re.IGNORECASE,
)
# What a study set out to do, said outright; the fit misses many of these, as structured
# abstracts often state their aim under BACKGROUND (and label it so). "We compared" and "we
# investigated" say what was done; "we determined that" and "we identified" report findings.
_AIM_OPENING = re.compile(
    r"^(?:(?:in (?:this|the present) (?:study|work|paper|article)|here),?\s+)?"
    r"(?:to|we|(?:this|the present) (?:study|research|work|paper|article|review|analysis))\s+"
    r"(?:\w+\s+)?(?:determine|evaluate|assess|investigate|examine|compare|analy[sz]e|explore|"
    r"identify|describe|test|establish|review|evaluated|assessed|investigated|examined|"
    r"compared|analy[sz]ed|explored|tested|reviewed|evaluates|assesses|investigates|examines|"
    r"compares|analy[sz]es|explores|describes|tests|reviews|study|studied|studies|measure|"
    r"quantify|clarify|elucidate|characteri[sz]e|estimate)\b",
    re.IGNORECASE,
)
# An aim in the imperative, as structured abstracts state their objective: "Demonstrate that
# the rabbit may be used in the training of surgery." Capitalised: the sentence's first word.
_IMPERATIVE_AIM = re.compile(
    r"^(?:Demonstrate|Determine|Evaluate|Assess|Investigate|Compare|Describe|Analy[sz]e"
    r"|Identify|Examine|Explore|Establish|Characteri[sz]e)\s+(?:that|whether|if|how|the|a|an)\b"
)

# An outcome the study set out to measure, defined rather than reported: "Short-term mortality
# (i.e. death within 7 and 21 days) was the primary outcome.", "Main outcome measures were
# ...". The fit scores some of these below its threshold (0.45 for the first); "Secondary
# outcomes were not different between groups" reports a finding. In PubMedQA and the MEDLINE
# sample this adds 8 design calls, every one under an OBJECTIVE or METHODS label.
_OUTCOME_DEFINED = re.compile(
    r"\b(?:main|primary|secondary|principal)\s+(?:outcomes?|end[- ]?points?)(?:\s+measures?)?"
    r"\s+(?:was|were|included|includes)\b(?!\s+(?:not|no|significantly|similar|comparable"
    r"|different|higher|lower|better|worse|improved|reduced|increased|decreased|achieved|met"
    r"|observed|found|seen)\b)"
    r"|\b(?:was|were)\s+(?:the|our)\s+(?:(?:main|primary|secondary|principal)\s+)?"
    r"(?:outcomes?|end[- ]?points?)(?:\s+measures?)?\s*(?:[.;,(]|$)"
    r"|^outcome measures?\b",
    re.IGNORECASE,
)

# An aim said as a purpose: "To point out the value of X." or "To understand X, we planned
# ...", whatever its verb. A purpose clause before a main clause of its own ("To achieve
# ambulation, a normal score showed the best PPV") introduces a finding, and is not one of
# these; nor are "To date" and "To our knowledge".
_PURPOSE_OPENING = re.compile(
    r"^[Tt]o\s+(?!(?:date|our|my|this|that|these|those|the|a|an|some|all|each|what|which|whom"
    r"|whose|its|their|his|her)\b)[a-z]+\b[^,]*(?:$|,\s+[Ww]e\b)"
)

# What others believe or suppose: the background an abstract opens with ("It is generally
# believed that ...", "Several studies have suggested ...", "little is known about ...").
# It states no finding of the study either, and a study's conclusion often answers it (the
# study that finds "Left positioning does not affect the risk" opens "It is generally believed
# that positioning decreases the likelihood"); the model reads the two as opposed.
BELIEF = re.compile(
    r"\b(?:is|are|has been|have been)\s+(?:\w+ly\s+)?"
    r"(?:believed|thought|assumed|presumed|regarded|recommended|known)\b"
    r"|\b(?:has|have) been (?:\w+ly\s+)?considered\b"
    r"|\bit (?:is|was|has been) (?:\w+ly\s+)?(?:suggested|proposed|hypothesi[sz]ed|claimed)\b"
    r"|\b(?:several|many|numerous|previous|prior|earlier|some|other|recent)\s+(?:\w+\s+)?"
    r"(?:studies|reports|investigators|authors|trials)\s+(?:have\s+|had\s+)?"
    r"(?:suggested|proposed|speculated)\b|\blittle is known\b"
    # What is new about the study: "To our knowledge, X has not been previously described".
    r"|\bto (?:the best of )?our knowledge\b"
    r"|\b(?:not|never)\s+(?:been\s+)?previously\s+(?:described|reported|documented)\b"
    # An open question, when the sentence is no more than it ("However, the effect of X remains
    # unclear"): after a comma a finding may come first ("Although it is considered that X
    # originates from bats, the intermediate host remains unknown" refutes a lab origin).
    r"|^(?:(?:however|but|yet|still|thus|moreover|nevertheless),?\s+)?[^,;:]*"
    r"\b(?:remains?|remained)\s+(?:\w+ly\s+)?(?:unclear|unknown|uncertain|controversial|"
    r"unresolved|to be (?:established|determined|elucidated|clarified))\b",
    re.IGNORECASE,
)

# P(design) from which a sentence next to a design sentence is design too. On the held-out
# PubMedQA questions' section labels: design calls agree with the label 0.851 -> 0.849 of the
# time and find 0.666 -> 0.765 of design sentences (0.5: 0.838 and 0.803).
NEIGHBOUR_THRESHOLD = 0.6


def ngrams(text: str) -> set[str]:
    """The sentence's unigrams and bigrams as the fit counted them (present or not)."""
    tokens = _TOKEN.findall(text.lower())
    return set(tokens) | {f"{a} {b}" for a, b in itertools.pairwise(tokens)}


@dataclass(frozen=True, slots=True)
class RoleModel:
    """P(design) = sigmoid(bias + the weights of the n-grams present); ``threshold`` is the
    probability from which a sentence is called design."""

    weights: Mapping[str, float]
    bias: float
    threshold: float
    version: str = ""

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> RoleModel:
        return cls(
            {str(k): float(v) for k, v in raw["weights"].items()},
            float(raw["bias"]),
            float(raw["threshold"]),
            str(raw.get("version", "")),
        )

    def design_probability(self, text: str) -> float:
        score = self.bias + sum(self.weights.get(gram, 0.0) for gram in ngrams(text))
        return 1.0 / (1.0 + math.exp(-max(min(score, 50.0), -50.0)))

    def is_design(self, text: str) -> bool:
        """The sentence states the study's aim or methods: the fit calls it design, or it says
        outright what the study set out to do ("To determine whether ...") or measure ("X was
        the primary outcome")."""
        return (
            any(
                rule.search(text)
                for rule in (AIM, _AIM_OPENING, _PURPOSE_OPENING, _IMPERATIVE_AIM, _OUTCOME_DEFINED)
            )
            or self.design_probability(text) >= self.threshold
        )

    def states_design_only(self, passage: str) -> bool:
        """Every sentence of ``passage`` (an evidence window) states no finding: the study's
        design, or a belief its background reports (as ``split`` reads them)."""
        design, reports = self.split(passage)
        return bool(design) and not reports

    def split(self, passage: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """``passage``'s sentences that state no finding (the study's design, or a belief its
        background reports, ``BELIEF``), and those that report something. An abstract's
        sections are runs of sentences, so a sentence next to a design one is design from
        ``NEIGHBOUR_THRESHOLD`` on ("The control group received the protocol every 12 hours"
        after "To compare the incidence ...")."""
        sentences = [s.text for s in segment(passage)]
        called = [self.is_design(s) or bool(BELIEF.search(s)) for s in sentences]
        design = tuple(
            s
            for i, s in enumerate(sentences)
            if called[i]
            or (
                any(called[j] for j in (i - 1, i + 1) if 0 <= j < len(called))
                and self.design_probability(s) >= NEIGHBOUR_THRESHOLD
            )
        )
        return design, tuple(s for s in sentences if s not in design)


@lru_cache(maxsize=4)
def load_roles(path: Path = ROLES_PATH) -> RoleModel:
    """The shipped role model (or another file ``veriproxy train-roles`` wrote)."""
    return RoleModel.from_dict(json.loads(path.read_text(encoding="utf-8")))


@lru_cache(maxsize=8192)
def states_design(sentence: str) -> bool:
    """Whether the shipped role model calls ``sentence`` design, remembered: the checks ask
    about the same evidence sentences for every claim of an answer."""
    return load_roles().is_design(sentence)
