"""Fits the confidence model (``verifiers.confidence``) for one NLI model: P(verdict right).

Two kinds of held-out training data, never a benchmark's dev or test split and never a question
of ``eval answers``:

- **claims**: the training claims of SciFact, Check-COVID and HealthVer that fell in the
  training pipeline's validation split (the model never trained on them), each against its
  abstract; right means the gold three-way label.
- **answers**: answers to the training questions of BioASQ and PubMedQA
  (``load_items(held_out=False)``), each sentence's claims against the abstract it cites (right:
  ``supported``), and one sentence per perturbation kind rewritten (its changed claims: right is
  anything but ``supported``), so the deterministic checks' outcomes are learned too.

Every claim goes through ``Verifier.judge_claims``, the engine's own path. One logistic
regression per verdict is scored out of fold (folds by question or claim group), a centred
isotonic map (``centred_isotonic``) is fitted on those out-of-fold outputs, and
``review_below`` is the lowest threshold at which the out-of-fold ``supported`` verdicts above
it reach the target precision.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from sklearn.isotonic import IsotonicRegression
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GroupKFold
from sklearn.preprocessing import StandardScaler

from verifiers._types import Evidence, Verdict
from verifiers.confidence import (
    CLAIM_VERDICTS,
    ClaimSignals,
    ConfidenceModel,
    VerdictHead,
    features,
)
from verifiers.engine import Verifier
from verifiers.eval.answers import load_items, perturbations
from verifiers.training import benchmarks
from verifiers.training.dataset import VALIDATION_FRACTION
from verifiers.training.evaluate import CLASS_NAMES
from verifiers.training.reliability import error_capture, reliability
from verifiers.windows import make_evidence

log = logging.getLogger(__name__)

FOLDS = 5
C = 0.5  # the data are a few thousand claims: a small, well-regularised model
# Unmarked supported verdicts should be right this often (issue 27) ...
TARGET_PRECISION = 0.95
# ... but a default that marks nearly every claim tells a reviewer nothing: when the target
# keeps fewer supported verdicts than this, the default keeps this share instead (and the fit
# records the precision that buys). Deployments set review_below to choose otherwise.
MIN_SUPPORTED_KEPT = 0.6
DEFAULT_MAX_ANSWERS = 700
# How the heads' outputs are mapped to P(right), as recorded in the fit (earlier fits: "isotonic").
CALIBRATION = "centred isotonic"
_GOLD = {
    CLASS_NAMES.index("supported"): Verdict.SUPPORTED,
    CLASS_NAMES.index("not_enough_evidence"): Verdict.UNSUPPORTED,
    CLASS_NAMES.index("contradicted"): Verdict.CONTRADICTED,
}
_NOT_SUPPORTED = frozenset({Verdict.UNSUPPORTED, Verdict.CONTRADICTED})


@dataclass(frozen=True, slots=True)
class CalibrationClaim:
    """A claim with the evidence it is judged against and the verdicts that count as right."""

    group: str  # folds never split a group (a claim's abstracts, an answer's question)
    source: str  # claims | answers
    claim: str
    evidence: tuple[Evidence, ...]
    right: frozenset[Verdict]


@dataclass(frozen=True, slots=True)
class Judged:
    item: CalibrationClaim
    signals: ClaimSignals

    @property
    def correct(self) -> bool:
        return self.signals.verdict in self.item.right


def held_out_claims(data: Path) -> list[CalibrationClaim]:
    """Benchmark training claims in the validation split, each against its abstract."""
    items = benchmarks.validation(data, VALIDATION_FRACTION)
    return [
        CalibrationClaim(
            item.group,
            "claims",
            item.claim,
            (make_evidence(f"claim-{n}", "", list(item.sentences)),),
            frozenset({_GOLD[item.label]}),
        )
        for n, item in enumerate(items)
    ]


def answer_claims(
    data: Path, verifier: Verifier, max_answers: int, seed: int
) -> list[CalibrationClaim]:
    """Claims of training answers as written (right: supported) and of their perturbed
    sentences (the changed claims; right: anything but supported)."""
    rng = random.Random(seed)
    items = load_items(data, held_out=False)
    rng.shuffle(items)
    out: list[CalibrationClaim] = []
    for item in items[:max_answers]:
        by_pmid = {ev.pmid: ev for ev in item.evidence}
        originals: dict[int, set[str]] = {}
        for i, (sentence, pmid) in enumerate(zip(item.sentences, item.pmids, strict=True)):
            claims = _claims(verifier, sentence)
            originals[i] = set(claims)
            cited = (by_pmid[pmid],)
            out.extend(
                CalibrationClaim(item.group, "answers", c, cited, frozenset({Verdict.SUPPORTED}))
                for c in claims
            )
        for _, index, sentence in perturbations(item, rng):
            cited = (by_pmid[item.pmids[index]],)
            out.extend(
                CalibrationClaim(item.group, "answers", c, cited, _NOT_SUPPORTED)
                for c in _claims(verifier, sentence)
                if c not in originals[index]
            )
    return out


def _claims(verifier: Verifier, sentence: str) -> list[str]:
    return [
        " ".join(span.text.split())
        for span in verifier.decomposer.decompose(sentence)
        if len(span.text.split()) >= 3
    ]


def judge_all(
    verifier: Verifier,
    items: Sequence[CalibrationClaim],
    progress: Callable[[int, int], None] | None = None,
    batch: int = 64,
) -> list[Judged]:
    """Every claim through the engine, in batches (progress after each); claims the engine
    found restated word for word get no model score and are left out."""
    judged: list[Judged] = []
    for first in range(0, len(items), batch):
        chunk = items[first : first + batch]
        results = verifier.judge_claims([c.claim for c in chunk], [c.evidence for c in chunk])
        judged.extend(
            Judged(c, r.signals)
            for c, r in zip(chunk, results, strict=True)
            if not r.signals.restated
        )
        if progress is not None:
            progress(first + len(chunk), len(items))
    return judged


def _fit_head(
    x: npt.NDArray[np.float64], y: npt.NDArray[np.int_], w: npt.NDArray[np.float64]
) -> VerdictHead:
    scaler = StandardScaler().fit(x)
    scale = np.where(scaler.scale_ > 0, scaler.scale_, 1.0)
    if len(set(y.tolist())) < 2:  # always right or always wrong: a constant
        rate = float(y.mean())
        return VerdictHead(
            tuple(map(float, scaler.mean_)),
            tuple(map(float, scale)),
            (0.0,) * x.shape[1],
            float(np.log(max(rate, 1e-3) / max(1 - rate, 1e-3))),
        )
    model = LogisticRegression(C=C, max_iter=5000).fit(
        (x - scaler.mean_) / scale, y, sample_weight=w
    )
    return VerdictHead(
        tuple(map(float, scaler.mean_)),
        tuple(map(float, scale)),
        tuple(float(w) for w in model.coef_[0]),
        float(model.intercept_[0]),
    )


def centred_isotonic(
    raw: Sequence[float], right: Sequence[int], weight: Sequence[float]
) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """The isotonic map from raw outputs to the rate of right verdicts, with each of its
    plateaus drawn in to one point at the weighted mean of its raw outputs (centred isotonic
    regression, Oron and Flournoy 2017), so the map rises strictly between its first and last
    point. A plain isotonic map is a staircase: one step can hold most of a verdict's claims,
    every one at the same confidence, and no threshold can then mark some of them and not the
    others (a candidate model's ``review_below`` kept 0.91 of supported verdicts for that)."""
    x = np.asarray(raw, dtype=np.float64)
    w = np.asarray(weight, dtype=np.float64)
    iso = IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip")
    fitted = iso.fit(x, right, sample_weight=w).predict(x)
    levels = np.unique(fitted)
    centres = [
        float(np.average(x[fitted == level], weights=w[fitted == level])) for level in levels
    ]
    return tuple(centres), tuple(float(level) for level in levels)


def source_weights(sources: Sequence[str]) -> npt.NDArray[np.float64]:
    """Each source weighs as much as the others in all (the answers outnumber the benchmark
    claims six to one, and a fit that follows them alone ranks the claims' errors worse)."""
    counts = {s: sources.count(s) for s in set(sources)}
    mean = len(sources) / len(counts)
    return np.asarray([mean / counts[s] for s in sources], dtype=np.float64)


@dataclass(frozen=True, slots=True)
class Fitted:
    model: ConfidenceModel
    out_of_fold: list[float]  # calibrated P(right) per judged claim, each scored out of fold


def fit(judged: Sequence[Judged], model_version: str, seed: int = 13) -> Fitted:
    """Per-verdict heads, scored out of fold by group, isotonic maps on those scores, and the
    review threshold; the heads shipped are refitted on every claim."""
    x = np.asarray([features(j.signals) for j in judged], dtype=np.float64)
    y = np.asarray([int(j.correct) for j in judged])
    groups = np.asarray([j.item.group for j in judged])
    verdicts = np.asarray([j.signals.verdict.value for j in judged])
    w = source_weights([j.item.source for j in judged])
    raw = np.zeros(len(judged))
    oof = np.zeros(len(judged))
    heads: dict[Verdict, VerdictHead] = {}
    for verdict in CLAIM_VERDICTS:
        rows = np.flatnonzero(verdicts == verdict.value)
        if len(rows) == 0:
            continue
        folds = min(FOLDS, len(set(groups[rows].tolist())))
        if folds >= 2:
            splitter = GroupKFold(n_splits=folds)
            for train, test in splitter.split(x[rows], y[rows], groups[rows]):
                head = _fit_head(x[rows][train], y[rows][train], w[rows][train])
                raw[rows[test]] = [head.raw(v) for v in x[rows][test]]
        else:
            head = _fit_head(x[rows], y[rows], w[rows])
            raw[rows] = [head.raw(v) for v in x[rows]]
        iso_x, iso_y = centred_isotonic(raw[rows].tolist(), y[rows].tolist(), w[rows].tolist())
        full = replace(_fit_head(x[rows], y[rows], w[rows]), iso_x=iso_x, iso_y=iso_y)
        heads[verdict] = full
        oof[rows] = [full.calibrated(r) for r in raw[rows]]
    threshold = review_threshold(
        oof.tolist(),
        [j.signals.verdict for j in judged],
        y.tolist(),
        TARGET_PRECISION,
        MIN_SUPPORTED_KEPT,
    )
    stats = fit_stats(judged, oof.tolist(), threshold)
    log.info("confidence model: %s", stats)
    model = ConfidenceModel(model_version, heads, threshold.value, stats)
    return Fitted(model, oof.tolist())


@dataclass(frozen=True, slots=True)
class ReviewThreshold:
    """The default ``review_below`` and why: ``precision`` when unmarked supported verdicts
    reach the target precision while at least ``MIN_SUPPORTED_KEPT`` of them stay unmarked,
    else ``coverage``: the threshold that keeps that share, at the precision it reaches."""

    value: float
    rule: str  # precision | coverage
    precision: float  # of the supported verdicts at or above it (held-out folds)
    kept: float  # share of supported verdicts at or above it


def review_threshold(
    probability: Sequence[float],
    verdicts: Sequence[Verdict],
    right: Sequence[int],
    precision: float = TARGET_PRECISION,
    min_kept: float = 0.0,
) -> ReviewThreshold:
    """The lowest threshold at which the supported verdicts at or above it are right at least
    ``precision`` of the time; when that keeps fewer than ``min_kept`` of them, the threshold
    that keeps ``min_kept`` instead. Claims tied at a probability stand or fall together: a
    threshold cannot split them. With no supported verdict to go by, 1.0 (all reviewed)."""
    supported = sorted(
        (p, r)
        for p, v, r in zip(probability, verdicts, right, strict=True)
        if v is Verdict.SUPPORTED
    )
    cuts: list[tuple[float, float, float]] = []  # (threshold, precision, kept), most probable first
    hits = n = 0
    for k in range(len(supported) - 1, -1, -1):
        p, r = supported[k]
        hits, n = hits + r, n + 1
        if k == 0 or supported[k - 1][0] != p:
            cuts.append((p, hits / n, n / len(supported)))
    reaching = [c for c in cuts if c[1] >= precision]
    if reaching and reaching[-1][2] >= min_kept:
        value, reached, kept = reaching[-1]
        return ReviewThreshold(round(value, 4), "precision", round(reached, 4), round(kept, 4))
    covering = next((c for c in cuts if c[2] >= min_kept), None) if min_kept > 0 else None
    if covering is None:
        return ReviewThreshold(1.0, "precision", 0.0, 0.0)
    value, reached, kept = covering
    return ReviewThreshold(round(value, 4), "coverage", round(reached, 4), round(kept, 4))


def fit_stats(
    judged: Sequence[Judged], oof: Sequence[float], threshold: ReviewThreshold
) -> dict[str, Any]:
    """What the fit saw and how its out-of-fold confidence did."""
    right = [j.correct for j in judged]
    by_source: dict[str, int] = {}
    for j in judged:
        by_source[j.item.source] = by_source.get(j.item.source, 0) + 1
    review_below = threshold.value
    raw_confidence = [j.signals.nli_confidence for j in judged]
    return {
        "calibration": CALIBRATION,
        "claims": len(judged),
        "by_source": by_source,
        "accuracy": round(sum(right) / max(len(right), 1), 4),
        "target_precision": TARGET_PRECISION,
        "min_supported_kept": MIN_SUPPORTED_KEPT,
        "review_below": asdict(threshold),
        "out_of_fold": {
            "error_capture": {f"{k}%": v for k, v in error_capture(oof, right).items()},
            "error_capture_raw_confidence": {
                f"{k}%": v for k, v in error_capture(raw_confidence, right).items()
            },
            "needs_review_share": round(sum(p < review_below for p in oof) / max(len(oof), 1), 4),
            "ece": reliability(oof, right)[1],
            "ece_raw_confidence": reliability(raw_confidence, right)[1],
        },
    }


def fit_for(
    verifier: Verifier,
    data: Path,
    out: Path,
    *,
    max_answers: int = DEFAULT_MAX_ANSWERS,
    max_claims: int | None = None,
    seed: int = 13,
    progress: Callable[[int, int], None] | None = None,
) -> ConfidenceModel:
    """Fit the confidence model of ``verifier``'s NLI model and write it into ``out``
    (``max_claims`` caps the benchmark claims, for tiny runs)."""
    claims = held_out_claims(data)[:max_claims]
    items = claims + answer_claims(data, verifier, max_answers, seed)
    log.info("fitting the confidence model on %d held-out claims", len(items))
    plain = Verifier(
        verifier.nli,
        decomposer=verifier.decomposer,
        selector=verifier.selector,
        harm=verifier.harm,
        thresholds=verifier.thresholds,
        checks=verifier.checks,
    )  # the model's own probabilities: what the confidence model learns from
    judged = judge_all(plain, items, progress)
    model = fit(judged, verifier.nli.version, seed).model
    model.save(out)
    return model
