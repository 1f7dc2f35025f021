"""Fit the sentence-role model (``verifiers.roles``) from structured abstracts' section labels.

Sources, both in ``../shared/data``: PubMedQA's abstracts (``LABELS`` name each context part's
section), leaving out every question ``veriproxy eval answers`` holds back, and the MEDLINE
sample's structured abstracts (``NlmCategory`` on each ``AbstractText``). Each section is cut
into sentences; a sentence of an OBJECTIVE or METHODS section is "design", one of a
BACKGROUND, RESULTS or CONCLUSIONS section is not. Labels that mix the two ("METHODS AND
RESULTS", "BACKGROUND AND AIMS") are left out.

The fit is a logistic regression over binary unigrams and bigrams (scikit-learn). Its threshold
is the lowest probability at which the design calls are right at least ``PRECISION`` of the
time out of fold (folds by abstract); the held-out PubMedQA questions measure it once more.
No randomness: the same data gives the same file.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from verifiers.roles import RoleModel, ngrams
from verifiers.segment import segment
from verifiers.training.examples import is_answer_eval

# Of the design calls, out of fold, agreeing with the section label. The labels are noisy both
# ways (aims stated under BACKGROUND, a first finding under METHODS), so this undercounts; a
# wrong call only turns a contradiction from that window into "unsupported".
PRECISION = 0.90
MIN_COUNT = 3  # n-grams seen in fewer sentences are left out of the vocabulary
FOLDS = 5
_DESIGN = re.compile(
    r"\b(?:OBJECTIVES?|AIMS?|PURPOSES?|METHODS?|DESIGN|SETTINGS?|PATIENTS|PARTICIPANTS|"
    r"SUBJECTS|INTERVENTIONS?|MEASURES?|MEASUREMENTS|MATERIALS?|HYPOTHES[IE]S)\b"
)
_REPORT = re.compile(
    r"\b(?:BACKGROUND|INTRODUCTION|CONTEXT|RESULTS?|FINDINGS|CONCLUSIONS?|INTERPRETATION)\b"
)


@dataclass(frozen=True, slots=True)
class RoleSentence:
    group: str  # the abstract it comes from (folds never split one)
    text: str
    design: bool


def section_role(label: str) -> bool | None:
    """True for a design section, False for a reporting one, None when the label is neither or
    both ("METHODS AND RESULTS")."""
    design, report = bool(_DESIGN.search(label.upper())), bool(_REPORT.search(label.upper()))
    return design if design != report else None


def _sentences(group: str, label: str, text: str) -> Iterator[RoleSentence]:
    role = section_role(label)
    if role is None:
        return
    for span in segment(text):
        if len(span.text.split()) >= 3:
            yield RoleSentence(group, span.text, role)


def pubmedqa_sentences(data: Path, *, held_out: bool = False) -> Iterator[RoleSentence]:
    """PubMedQA's labelled sections: the training questions', or with ``held_out`` those of
    ``veriproxy eval answers`` (measured, never fitted)."""
    rows = json.loads((data / "pubmedqa" / "ori_pqal.json").read_text(encoding="utf-8"))
    for pmid, row in rows.items():
        group = f"pubmedqa:{pmid}"
        if is_answer_eval(group) is not held_out:
            continue
        for part, label in zip(row["CONTEXTS"], row["LABELS"], strict=False):
            yield from _sentences(group, label, part)


def medline_sentences(data: Path) -> Iterator[RoleSentence]:
    """The MEDLINE sample's structured abstracts, by NLM's normalised section category."""
    path = data / "medline_sample" / "medline16n0902.xml.gz"
    with gzip.open(path) as stream:
        for _, element in ET.iterparse(stream):
            if element.tag != "MedlineCitation":
                continue
            pmid = element.findtext("PMID", default="")
            for part in element.iter("AbstractText"):
                category = part.get("NlmCategory")
                if category and category != "UNASSIGNED":
                    yield from _sentences(f"medline:{pmid}", category, "".join(part.itertext()))
            element.clear()


def _fold(group: str) -> int:
    return int.from_bytes(hashlib.sha256(group.encode("utf-8")).digest()[:4], "big") % FOLDS


@dataclass(frozen=True, slots=True)
class RoleFit:
    """The fitted model as ``verifiers.roles.RoleModel`` reads it, and how it measured."""

    model: dict[str, Any]
    sentences: int
    design: int
    out_of_fold: dict[str, float]  # the fit's calls at its threshold
    held_out: dict[str, float]  # the engine's calls (the aim words too), held-out questions


def _precision_recall(calls: list[bool], truth: list[bool]) -> dict[str, float]:
    hits = sum(c and t for c, t in zip(calls, truth, strict=True))
    return {
        "precision": round(hits / max(sum(calls), 1), 4),
        "recall": round(hits / max(sum(truth), 1), 4),
        "called": sum(calls),
        "sentences": len(calls),
    }


def fit_roles(data: Path, progress: Callable[[str], None] = print) -> RoleFit:
    """Fit on the training sources, choose the threshold out of fold, measure on the held-out
    PubMedQA questions."""
    import numpy as np
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.linear_model import LogisticRegression

    rows = [*pubmedqa_sentences(data), *medline_sentences(data)]
    progress(f"roles: {len(rows)} sentences, {sum(r.design for r in rows)} design")
    truth = np.array([r.design for r in rows])

    def model() -> tuple[Any, Any]:
        vectorizer = CountVectorizer(
            analyzer=lambda text: sorted(ngrams(text)), min_df=MIN_COUNT, binary=True
        )
        return vectorizer, LogisticRegression(C=0.5, max_iter=2000)

    folds = np.array([_fold(r.group) for r in rows])
    scores = np.zeros(len(rows))
    for k in range(FOLDS):
        vectorizer, classifier = model()
        train, test = folds != k, folds == k
        classifier.fit(
            vectorizer.fit_transform([r.text for r, t in zip(rows, train, strict=True) if t]),
            truth[train],
        )
        scores[test] = classifier.predict_proba(
            vectorizer.transform([r.text for r, t in zip(rows, test, strict=True) if t])
        )[:, 1]
        progress(f"roles: fold {k + 1}/{FOLDS}")
    threshold = _threshold(scores, truth)
    vectorizer, classifier = model()
    classifier.fit(vectorizer.fit_transform([r.text for r in rows]), truth)
    names = vectorizer.get_feature_names_out()
    weights = {
        str(name): round(float(w), 5)
        for name, w in zip(names, classifier.coef_[0], strict=True)
        if abs(w) >= 1e-4
    }
    body = {"weights": weights, "bias": round(float(classifier.intercept_[0]), 5)}
    digest = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()[:12]
    fitted = {"version": f"roles-{digest}", "threshold": round(threshold, 4), **body}
    runtime = RoleModel.from_dict(fitted)
    held = list(pubmedqa_sentences(data, held_out=True))
    return RoleFit(
        fitted,
        len(rows),
        int(truth.sum()),
        _precision_recall([bool(s >= threshold) for s in scores], truth.tolist()),
        _precision_recall([runtime.is_design(r.text) for r in held], [r.design for r in held]),
    )


def _threshold(scores: Any, truth: Any) -> float:
    """The lowest score at which the calls from it up are right ``PRECISION`` of the time."""
    order = sorted(zip(scores.tolist(), truth.tolist(), strict=True), reverse=True)
    hits, best = 0, 1.0
    for n, (score, design) in enumerate(order, start=1):
        hits += design
        if hits / n >= PRECISION:
            best = score
    return float(best)
