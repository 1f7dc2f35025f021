"""``veriproxy train-roles``: refit the sentence-role model (``verifiers.roles``) from the
section labels of structured abstracts in the public datasets; seconds on one core."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from proxy.cli._parser import add_data_dir
from verifiers.roles import ROLES_PATH


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "train-roles",
        help="fit the model that tells an abstract's aim and methods sentences from its findings",
        description="Fits a logistic regression over word unigrams and bigrams on the section "
        "labels of PubMedQA's training questions and the MEDLINE sample's structured abstracts "
        "(OBJECTIVE, METHODS: design; BACKGROUND, RESULTS, CONCLUSIONS: not), chooses its "
        "threshold out of fold, measures it on the held-out PubMedQA questions and writes it. "
        "The engine sets aside a model contradiction whose evidence is design sentences only.",
    )
    add_data_dir(parser)
    parser.add_argument("--out", type=Path, default=ROLES_PATH, help="JSON file to write")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from verifiers.training.roles import fit_roles

    fit = fit_roles(args.data_dir, progress=lambda line: print(line, file=sys.stderr))
    args.out.write_text(json.dumps(fit.model, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(
        f"{fit.model['version']}: {fit.sentences} sentences ({fit.design} design), "
        f"{len(fit.model['weights'])} n-grams, threshold {fit.model['threshold']}"
    )
    for name, figures in (
        ("out of fold, the fit alone", fit.out_of_fold),
        ("held-out PubMedQA questions, as the engine calls them", fit.held_out),
    ):
        print(
            f"  {name}: design calls agree with the section label {figures['precision']:.3f}, "
            f"find {figures['recall']:.3f} of design sentences ({figures['called']} called of "
            f"{figures['sentences']})"
        )
    print(f"wrote {args.out}")
    return 0
