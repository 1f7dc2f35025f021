"""Training recipes: what each stage of ``train-nli`` reads (``--recipe``).

- ``v1`` (the default): the recipe of the shipped model (one epoch per stage), unchanged, so
  that it stays reproducible.
- ``v2`` (issue 27: the recipe of MiniCheck, FactCG and TinyLettuce): stage one adds LingNLI and
  SICK; stage two adds FactCG's CG2C, passages of about 200 tokens around the gold rationale,
  and deletion negatives (``verifiers.training.documents``). The rule-made contradictions and
  the replay of stage one apply to the new pairs as to the old. Pairs are 256 tokens long so
  that a passage and its claim fit whole; the model directory records it (``max_length``), and
  the runtime then reads up to 256 tokens of a global-pass premise instead of 128.
- ``v3``: v2's pairs at v1's 128 tokens (passages of about 90 tokens; CG2C only where a
  document fits), with every training pair of HealthVer's claims seen twice in stage two. The
  first v2 model lost HealthVer (the document readers leave out most of its claims, whose
  passages are its dev evidence, so its own style was the part v2 saw least of); at 128 tokens
  the runtime and its speed stay as they are.
- ``v4``: v1's pairs, plus a swapped-direction, swapped-quantifier or reversed-comparison
  contradiction of half the supported claims that have such a word, and two epochs of stage one
  and three of stage two. Trained for more epochs, v1's data taught the model to let these pass
  more often (docs/nli-model.md); every such claim (a share of 1.0) made it call more correct
  sentences contradicted. Measured and not shipped: it calls a restated conclusion of the
  end-to-end tests' abstract, and a fanciful off-topic claim, contradicted (docs/nli-model.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from verifiers.training.documents import document_readers, token_counter
from verifiers.training.examples import Reader
from verifiers.training.general import GENERAL_READERS, GENERAL_READERS_V2


@dataclass(frozen=True, slots=True)
class Recipe:
    name: str
    max_length: int  # tokens per pair, unless ``--max-length`` says otherwise
    general: Mapping[str, Reader]  # stage one, all of it
    documents: bool  # stage two also gets CG2C, passages and deletion negatives
    # Stage two: claim-group prefixes whose training pairs are seen this many times.
    repeats: Mapping[str, int] = field(default_factory=dict)
    # Stage two: more rule-made contradictions of these kinds (kind -> share of the supported
    # pairs whose claim the rewrite applies to; ``claims.EMPHASIS_MAKERS``).
    emphasis: Mapping[str, float] = field(default_factory=dict)
    # Epochs of each stage unless ``--general-epochs`` / ``--epochs`` say otherwise.
    general_epochs: int = 1
    epochs: int = 1

    def stage_two(self, tokenizer_path: Path, max_length: int) -> dict[str, Reader]:
        """Stage two's readers beyond the window-level ones, their pairs sized with the
        model's tokenizer to fit ``max_length``."""
        if not self.documents:
            return {}
        return document_readers(token_counter(tokenizer_path), max_length)


RECIPES: dict[str, Recipe] = {
    "v1": Recipe("v1", 128, GENERAL_READERS, documents=False),
    "v2": Recipe("v2", 256, GENERAL_READERS_V2, documents=True),
    "v3": Recipe("v3", 128, GENERAL_READERS_V2, documents=True, repeats={"healthver:": 2}),
    "v4": Recipe(
        "v4",
        128,
        GENERAL_READERS,
        documents=False,
        emphasis={"direction": 0.5, "quantifier": 0.5, "comparison": 0.5},
        general_epochs=2,
        epochs=3,
    ),
}
DEFAULT_RECIPE = "v1"
