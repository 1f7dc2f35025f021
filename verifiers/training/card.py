"""``nli_config.json`` facts and benchmark figures rendered into ``MODEL_CARD.md``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from verifiers.confidence import CONFIDENCE_FILE
from verifiers.training.recipe import DEFAULT_RECIPE, RECIPES

METRICS_FILE = "metrics.json"

_HEADER = """# veriproxy bundled biomedical NLI model

Three-way verifier for (evidence window, claim) pairs: **entailment** (the window supports the
claim), **neutral** (not enough evidence), **contradiction**. Premise = a window of 1-3 abstract
sentences, hypothesis = the claim. A calibrated rule turns the windows' scores into a
claim-level verdict (`verifiers.nli.decide`). Runs with ONNX Runtime + `tokenizers` only.

## Base model and licence

- `sentence-transformers/all-MiniLM-L6-v2` (Apache-2.0), 6 layers, hidden 384, fine-tuned as a
  cross-encoder with mean pooling and a factorised head: relevance r and stance s,
  P(entailment) = r·s, P(neutral) = 1 - r, P(contradiction) = r·(1 - s).
- The fine-tuned weights are released with veriproxy (Apache-2.0); the training data's terms
  are listed below.

## Training data (../shared/data)

Stage one, general-domain NLI (`--general-epochs`; how many: the training settings below):

| source | licence | use |
|---|---|---|
| TaxiNLI (MultiNLI subset) | MIT / MultiNLI terms | three-way |
| SNLI dev | CC BY-SA 4.0 | three-way (SNLI test is held out: its accuracy is reported) |
| DocNLI (MNLI and FEVER-NLI parts, 5,000 per file) | MIT | entailment / not-entailment |
| Climate-FEVER | CC BY-SA 4.0 | claim vs evidence sentence, three-way |
| Factcheck-GPT | Apache-2.0 | claims from ChatGPT answers vs evidence (partial support left out) |
| WiCE | CC BY-SA 4.0 | supported / not supported |

Binary sets train P(entailment) only: a not-entailment pair pushes r·s down without saying
whether it is neutral or a contradiction.

Stage two, biomedical window-level pairs (`--epochs`), split by claim:

| source | licence | use |
|---|---|---|
| SciFact train | CC BY 4.0 / ODC-By 1.0 | rationale windows → supported/contradicted; other windows → neutral |
| Check-COVID train | MIT | as SciFact, including its NOTENOUGHINFO evidence windows |
| HealthVer train | see ../shared/data/README | claim vs evidence, three-way (dev claims never read) |
| COVID-Fact | none stated | claim vs its evidence sentences |
| PubMedQA (expert set) | MIT | yes/no questions rewritten as claims vs the conclusion; long-answer sentences vs their best abstract window (paraphrased supports) |
| BioASQ 7B-10B | BioASQ terms (internal use) | yes/no claims vs ideal answers; ideal-answer sentences vs their best gold snippet (paraphrased supports); training only, never redistributed |
| SciFact corpus titles | CC BY 4.0 | titles that state a finding vs their own abstract (no dev-cited abstract) |
| NLI4CT train (single-trial) | none stated | statement vs evidence lines of the trial report |
| Citation-Integrity train | MIT | ACCURATE → supported, CONTRADICT → contradicted |
| synthetic | — | changed numbers and number words, swapped direction words, reversed comparisons, swapped quantifiers, negation flips, overstated hedges and entities swapped within the abstract, each of a supported claim → contradicted; windows of other claims → neutral |

Never trained on: SciFact dev, Check-COVID dev, HealthVer dev, SNLI test, and the questions
`veriproxy eval answers` uses (a fixed hash split of BioASQ and PubMedQA).
"""  # noqa: E501

_RECIPE_V2 = """### Recipe v2 additions (`train-nli --recipe v2`, and `v3`)

| stage | source | licence | use |
|---|---|---|---|
| one | LingNLI (training rounds; the validation rounds are never read) | none stated (MultiNLI premises) | three-way |
| one | SICK | CC BY-NC-SA 3.0 (training only) | three-way |
| two | FactCG CG2C (documents with and without the relation a claim needs) | MIT | grounded / not grounded (binary); a pair over the token bound is left out whole |
| two | passages (SciFact, Check-COVID, HealthVer train) | as their source | a claim vs about 200 tokens of its abstract around a gold rationale, labelled as the rationale |
| two | deletion negatives (same claims) | as their source | a claim vs a passage of its abstract with the rationale and any sentence restating the claim removed → neutral |

Passages and deletion negatives never use an abstract or passage that a dev claim is judged
against (a shared sentence is enough to leave it out). v2's pairs are up to 256 tokens long;
v3 keeps v1's 128 and sees every training pair of HealthVer's claims twice in stage two. The
runtime reads as many tokens as the model was trained on (`max_length`).
"""  # noqa: E501

_EMPHASIS = """### Recipe v4 additions (`train-nli --recipe v4`)

Beside the one rule-made contradiction of a random kind that half the supported pairs get,
stage two gets one more of each kind below for this share of the supported pairs whose claim
has such a word (source `<source>+<kind>`): {shares}. Trained for more epochs on v1's data, a
model let more flipped directions and swapped quantifiers pass as supported.
"""

_LIMITS = """## Known limits

- Below the project's targets (macro-F1 SciFact >= 0.70, HealthVer >= 0.60, Check-COVID >= 0.55,
  contradiction F1 >= 0.55): a 22M-parameter MiniLM.
- Contradiction is the weakest class on most benchmarks (the per-class F1 above): refutations
  are often called "not enough evidence" or supports.
- Stage two costs general NLI: SNLI test accuracy falls from stage one's to the final figure
  above, as the biomedical mix pulls the decision towards its own labels.
- A changed number, unit or direction word is still often read as support by the model
  alone: the verifier's deterministic numbers and direction checks decide those.
"""


def render(model_dir: Path) -> str:
    config: dict[str, Any] = json.loads((model_dir / "nli_config.json").read_text("utf-8"))
    train = config.get("training", {})
    settings = train.get("settings", {})
    recipe = RECIPES.get(str(settings.get("recipe", DEFAULT_RECIPE)))
    lines = [_HEADER, *([_RECIPE_V2] if recipe is not None and recipe.documents else [])]
    if recipe is not None and recipe.emphasis:
        shares = ", ".join(f"{kind} {share:g}" for kind, share in recipe.emphasis.items())
        lines += [_EMPHASIS.format(shares=shares)]
    lines += ["## Training settings\n", *(f"- {k}: {v}" for k, v in settings.items())]
    lines += [f"- pairs: {train.get('pairs', {})}"]
    by_source = train.get("pairs_by_source", {})
    lines += [f"- {stage} pairs by source: {counts}" for stage, counts in by_source.items()]
    lines += [""]
    lines += [f"- SNLI test accuracy: {train.get('snli_test_accuracy', {})}", ""]
    t = config["thresholds"]
    lines += [
        "## Decision rule (calibrated)\n",
        f"- {_rule(t)}; windows of {config['window_sizes']} sentences. Chosen by 5-fold "
        f"cross-validated claim-level macro-F1 on held-out training claims (SciFact, "
        f"Check-COVID and HealthVer train validation splits, "
        f"{train.get('calibration_items', '?')} claim-abstract items; the learned rule must "
        f"lead by 0.01; false-alarm ceiling: {train.get('false_alarm_ceiling') or 'none'}): "
        f"{train.get('calibration_cv_macro_f1', '?')}; supported claims called contradicted: "
        f"{train.get('calibration_cv_false_alarms', 'not measured')}.",
        "",
        "## int8 vs fp32 parity (window-level validation pairs)\n",
        f"- {train.get('parity', {})}",
        f"- not int8: {train.get('precision_kept', {})}",
        "- int8 weights are stored as uint8 + 128 (`verifiers/training/quantize.py`): ONNX "
        "Runtime then computes the same integers on every CPU (its int8 x uint8 kernels "
        "saturate on x86 CPUs without VNNI, so verdicts depended on the machine).",
        "",
        "## Benchmarks (`veriproxy eval nli --dataset NAME --model-only --record`)\n",
    ]
    lines += _benchmarks(model_dir)
    lines += ["", "## Confidence model (`confidence.json`)\n", *_confidence(model_dir)]
    lines += ["", _LIMITS, "## Files\n", f"- version: `{config['version']}`"]
    lines += [f"- `{name}` sha256 `{digest}`" for name, digest in config.get("sha256", {}).items()]
    return "\n".join(lines) + "\n"


def _rule(t: dict[str, Any]) -> str:
    if t.get("rule") == "most_relevant":
        return (
            f"rule `most_relevant`: the least neutral window decides; relevance ≥ "
            f"{t['relevance']}, then entailment when P(ent) / (P(ent) + P(con)) ≥ {t['support']}, "
            + (
                f"contradiction when it is ≤ {t['refute']}, else neutral (the false-alarm "
                "ceiling on held-out supported claims called contradicted)"
                if t.get("refute") is not None
                else "else contradiction"
            )
        )
    if t.get("rule") == "learned":
        return (
            "rule `learned`: a logistic regression over eight features of the windows' scores "
            "(top relevances, the most relevant window's stance, best entailment and "
            "contradiction, the stance of the relevant windows, the window count)"
        )
    return f"rule `or_join`: contradiction ≥ {t['contradiction']}, entailment ≥ {t['entailment']}"


def _confidence(model_dir: Path) -> list[str]:
    """What ``train-nli --confidence-only`` fitted beside this model, if anything."""
    path = model_dir / CONFIDENCE_FILE
    if not path.exists():
        return ["- none: claims carry the decision rule's own probability, nothing is marked"]
    raw: dict[str, Any] = json.loads(path.read_text("utf-8"))
    fit: dict[str, Any] = raw.get("fit", {})
    oof = fit.get("out_of_fold", {})
    threshold = fit.get("review_below", {})
    return [
        "- P(verdict right) per verdict: a logistic regression over "
        f"{len(raw['features'])} features of the judged claim, then the "
        f"{fit.get('calibration', 'isotonic')} map, "
        f"fitted on {fit.get('claims')} held-out claims {fit.get('by_source')} (sources weighted "
        "equally; `verifiers/training/confidence.py`).",
        f"- out of fold: {_out_of_fold(oof)}.",
        f"- default `review_below` {raw['review_below']} (rule `{threshold.get('rule')}`: "
        f"supported verdicts at or above it are right {threshold.get('precision')} of the time "
        f"and {threshold.get('kept')} of them stay unmarked; target precision "
        f"{fit.get('target_precision')}, at least {fit.get('min_supported_kept')} kept); "
        f"{oof.get('needs_review_share')} of the held-out claims are marked.",
        *_quoted_heads(fit.get("quoted")),
    ]


def _quoted_heads(quoted: dict[str, Any] | None) -> list[str]:
    if not quoted:
        return ["- claims judged against their quote: read by the same heads (none of their own)"]
    oof = quoted.get("out_of_fold", {})
    unmarked = quoted.get("unmarked_supported", {})
    return [
        "- claims judged against their quote: heads of their own, with the "
        f"{quoted.get('calibration', 'isotonic')} map, fitted on {quoted.get('claims')} claims "
        f"of quoted training answers {quoted.get('by_source')} (`eval answers --quotes` built "
        "from training questions; written and perturbed weighted equally); out of fold: "
        f"{_out_of_fold(oof)}; at the same "
        f"`review_below`, {oof.get('needs_review_share')} are marked and unmarked supported "
        f"verdicts are right {unmarked.get('precision')} of the time ({unmarked.get('kept')} of "
        "them kept).",
    ]


def _out_of_fold(oof: dict[str, Any]) -> str:
    return (
        f"error capture {oof.get('error_capture')} (the model's own probability: "
        f"{oof.get('error_capture_raw_confidence')}); ECE {oof.get('ece')} (own probability: "
        f"{oof.get('ece_raw_confidence')})"
    )


def _benchmarks(model_dir: Path) -> list[str]:
    path = model_dir / METRICS_FILE
    if not path.exists():
        return ["- not measured yet"]
    results: dict[str, Any] = json.loads(path.read_text("utf-8"))
    rows = [
        "| dataset | items | macro-F1 | F1 supported | F1 NEI | F1 contradicted |",
        "|---|---|---|---|---|---|",
    ]
    for name, r in sorted(results.items()):
        f1 = {k: v["f1"] for k, v in r["per_class"].items()}
        rows.append(
            f"| {name} | {r['items']} | {r['macro_f1']:.3f} | {f1['supported']:.3f} | "
            f"{f1['not_enough_evidence']:.3f} | {f1['contradicted']:.3f} |"
        )
    return rows


def record(model_dir: Path, dataset: str, result: dict[str, Any]) -> None:
    """Stores one benchmark result and re-renders the card."""
    path = model_dir / METRICS_FILE
    results: dict[str, Any] = json.loads(path.read_text("utf-8")) if path.exists() else {}
    results[dataset] = result
    path.write_text(json.dumps(results, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    write(model_dir)


def write(model_dir: Path) -> None:
    (model_dir / "MODEL_CARD.md").write_text(render(model_dir), encoding="utf-8")
