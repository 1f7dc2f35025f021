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
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
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
from verifiers.engine import Verifier, quote_premise
from verifiers.eval.answers import AnswerItem, load_items, perturbations
from verifiers.eval.quoted import quote_item
from verifiers.quoting.match import check_quote
from verifiers.training import benchmarks
from verifiers.training.dataset import VALIDATION_FRACTION
from verifiers.training.evaluate import CLASS_NAMES
from verifiers.training.reliability import error_capture, reliability
from verifiers.windows import Window, make_evidence

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
_SUPPORTED = frozenset({Verdict.SUPPORTED})
_NOT_SUPPORTED = frozenset({Verdict.UNSUPPORTED, Verdict.CONTRADICTED})


@dataclass(frozen=True, slots=True)
class CalibrationClaim:
    """A claim with the evidence it is judged against and the verdicts that count as right."""

    group: str  # folds never split a group (a claim's abstracts, an answer's question)
    source: str  # claims | answers
    claim: str
    evidence: tuple[Evidence, ...]
    right: frozenset[Verdict]
    # The sentences the claim's quote stands in, which it is judged against (source "quoted").
    premise: tuple[Window, ...] | None = None


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
    items: Sequence[AnswerItem],
    verifier: Verifier,
    max_answers: int,
    seed: int,
    *,
    quoted: bool = False,
) -> list[CalibrationClaim]:
    """Claims of training answers as written (right: supported) and of their perturbed
    sentences (the changed claims; right: anything but supported). ``quoted``: the answers
    of ``eval answers --quotes`` instead, each claim judged against the sentences of its
    sentence's quote (a perturbed sentence keeps the correct quote it distorts); sentences
    without a usable quote are left out."""
    rng = random.Random(seed)
    items = list(items)  # answers to training questions (``load_items(held_out=False)``)
    rng.shuffle(items)
    source = "quoted" if quoted else "answers"
    # Quoted claims as written and perturbed weigh the same: one perturbation per kind outnumbers
    # an answer's correct sentences four to one, and a fit on that mixture learns that a quoted
    # claim left unsupported is nearly always right, so the correct ones it misses go unmarked.
    perturbed = "quoted perturbed" if quoted else "answers"
    out: list[CalibrationClaim] = []
    for item in items[:max_answers]:
        quoted_item = quote_item(item) if quoted else None
        records = quoted_item.evidence if quoted_item else item.evidence
        by_pmid = {ev.pmid: ev for ev in records}
        premises = (
            [
                _quote_premise(quote, by_pmid[pmid], by_pmid)
                for quote, pmid in zip(quoted_item.quotes, item.pmids, strict=True)
            ]
            if quoted_item
            else [None] * len(item.sentences)
        )
        originals: dict[int, set[str]] = {}
        for i, (sentence, pmid) in enumerate(zip(item.sentences, item.pmids, strict=True)):
            claims = _claims(verifier, sentence)
            originals[i] = set(claims)
            if quoted and premises[i] is None:
                continue
            cited = (by_pmid[pmid],)
            out.extend(
                CalibrationClaim(item.group, source, c, cited, _SUPPORTED, premises[i])
                for c in claims
            )
        for _, index, sentence in perturbations(item, rng):
            if quoted and premises[index] is None:
                continue
            cited = (by_pmid[item.pmids[index]],)
            out.extend(
                CalibrationClaim(item.group, perturbed, c, cited, _NOT_SUPPORTED, premises[index])
                for c in _claims(verifier, sentence)
                if c not in originals[index]
            )
    return out


def _quote_premise(
    quote: str, record: Evidence, by_pmid: Mapping[str, Evidence]
) -> tuple[Window, ...] | None:
    """The sentences of ``record`` that ``quote`` stands in, as the engine reads a quoted
    citation; None when the quote is empty or not found there."""
    if not quote:
        return None
    others = [ev for pmid, ev in by_pmid.items() if pmid != record.pmid]
    return quote_premise((check_quote(quote, [record], others),), by_pmid)


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
        results = verifier.judge_claims(
            [c.claim for c in chunk], [c.evidence for c in chunk], [c.premise for c in chunk]
        )
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


def fit(judged: Sequence[Judged], model_version: str) -> ConfidenceModel:
    """Heads for the claims judged against chosen windows and for the quoted ones, each scored
    out of fold by group with isotonic maps on those scores, and the review threshold (set by
    the former: the claims of the benchmarks are never quoted); the heads shipped are refitted
    on every claim."""
    plain = [j for j in judged if not j.signals.quoted]
    heads, oof = _fit_heads(plain)
    threshold = review_threshold(
        oof,
        [j.signals.verdict for j in plain],
        [int(j.correct) for j in plain],
        TARGET_PRECISION,
        MIN_SUPPORTED_KEPT,
    )
    stats = fit_stats(plain, oof, threshold)
    log.info("confidence model: %s", stats)
    model = ConfidenceModel(model_version, heads, threshold.value, stats)
    quoted = [j for j in judged if j.signals.quoted]
    return with_quoted_heads(model, quoted) if quoted else model


def with_quoted_heads(model: ConfidenceModel, quoted: Sequence[Judged]) -> ConfidenceModel:
    """``model`` with heads of its own for quoted claims, fitted on ``quoted``, and their
    out-of-fold figures at its review threshold in its fit record."""
    heads, oof = _fit_heads(quoted)
    stats = quoted_stats(quoted, oof, model.review_below)
    log.info("quoted heads: %s", stats)
    return replace(model, quoted_heads=heads, fit={**model.fit, "quoted": stats})


def _fit_heads(judged: Sequence[Judged]) -> tuple[dict[Verdict, VerdictHead], list[float]]:
    """One head per verdict and each claim's calibrated P(right), scored out of fold."""
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
    return heads, oof.tolist()


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
    return {
        **_seen(judged),
        "target_precision": TARGET_PRECISION,
        "min_supported_kept": MIN_SUPPORTED_KEPT,
        "review_below": asdict(threshold),
        "out_of_fold": _out_of_fold(judged, oof, threshold.value),
    }


def quoted_stats(
    judged: Sequence[Judged], oof: Sequence[float], review_below: float
) -> dict[str, Any]:
    """What the quoted heads saw and how they did out of fold, at the model's threshold."""
    kept = [
        j.correct
        for p, j in zip(oof, judged, strict=True)
        if j.signals.verdict is Verdict.SUPPORTED and p >= review_below
    ]
    supported = sum(j.signals.verdict is Verdict.SUPPORTED for j in judged)
    return {
        **_seen(judged),
        "unmarked_supported": {
            "precision": round(sum(kept) / max(len(kept), 1), 4),
            "kept": round(len(kept) / max(supported, 1), 4),
        },
        "out_of_fold": _out_of_fold(judged, oof, review_below),
    }


def _seen(judged: Sequence[Judged]) -> dict[str, Any]:
    """How a set of heads was fitted, on how many claims of which sources, how many right."""
    right = sum(j.correct for j in judged)
    return {
        "calibration": CALIBRATION,
        "claims": len(judged),
        "by_source": dict(Counter(j.item.source for j in judged)),
        "accuracy": round(right / max(len(judged), 1), 4),
    }


def _out_of_fold(
    judged: Sequence[Judged], oof: Sequence[float], review_below: float
) -> dict[str, Any]:
    right = [j.correct for j in judged]
    raw_confidence = [j.signals.nli_confidence for j in judged]
    return {
        "error_capture": {f"{k}%": v for k, v in error_capture(oof, right).items()},
        "error_capture_raw_confidence": {
            f"{k}%": v for k, v in error_capture(raw_confidence, right).items()
        },
        "needs_review_share": round(sum(p < review_below for p in oof) / max(len(oof), 1), 4),
        "ece": reliability(oof, right)[1],
        "ece_raw_confidence": reliability(raw_confidence, right)[1],
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
    base: ConfidenceModel | None = None,
) -> ConfidenceModel:
    """Fit the confidence model of ``verifier``'s NLI model and write it into ``out``
    (``max_claims`` caps the benchmark claims, for tiny runs). With ``base``, only its quoted
    heads are fitted: its other heads, threshold and fit record are kept."""
    answers = load_items(data, held_out=False)  # reading them takes half a minute: once
    items = answer_claims(answers, verifier, max_answers, seed, quoted=True)
    if base is None:
        claims = held_out_claims(data)[:max_claims]
        items = claims + answer_claims(answers, verifier, max_answers, seed) + items
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
    if base is None:
        model = fit(judged, verifier.nli.version)
    else:
        model = with_quoted_heads(base, [j for j in judged if j.signals.quoted])
    model.save(out)
    return model
