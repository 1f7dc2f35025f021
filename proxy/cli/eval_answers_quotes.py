"""``veriproxy eval answers --quotes``: the answers verified without and with quoted citations,
side by side (``verifiers.eval.side_by_side``), misquotes included, with the NLI pairs each
sentence cost."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from proxy.cli.eval_answers import print_off_topic, progress_printer
from verifiers import Evidence, ResponseReport
from verifiers.engine import Verifier
from verifiers.eval.answers import PERTURBATIONS, AnswerItem
from verifiers.eval.off_topic import OffTopicSentence
from verifiers.eval.pairs import CountingNLI
from verifiers.eval.quoted import MISQUOTES
from verifiers.eval.side_by_side import compare


def run_quotes(
    args: argparse.Namespace,
    verifier: Verifier,
    verify: Callable[[str, Sequence[Evidence]], ResponseReport],
    items: Sequence[AnswerItem],
    off_topic: Sequence[Sequence[OffTopicSentence]] = (),
) -> int:
    # The verifier scores through the counter from here on; the judge, built before, does not.
    counter = CountingNLI(verifier.nli)
    verifier.nli = counter
    print(
        f"verifying {len(items)} answers without and with quotes, each also once per "
        "distortion and misquote kind, and once with off-topic sentences appended",
        file=sys.stderr,
    )
    started = time.monotonic()
    progress = progress_printer(started, "answers (both renderings)")
    result = compare(verify, items, args.seed, progress, counter, off_topic).as_dict()
    result |= {
        "source": args.source,
        "model": counter.version,
        "judge": args.judge,
        "seconds": round(time.monotonic() - started, 1),
    }
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        _print(result, args)
    return 0


def _print(result: Mapping[str, Any], args: argparse.Namespace) -> None:
    plain, quoted = result["without_quotes"], result["with_quotes"]
    judge = f", judge {args.judge} below confidence {args.escalate_below:g}" if args.judge else ""
    print(
        f"answers: {result['items']} items ({args.source}), model {result['model']}{judge}; "
        f"{result['sentences']} sentences, {result['quoted_sentences']} given a quote"
    )
    print(f"{'':<40}{'without quotes':>16}{'with quotes':>16}")
    rows = (
        ("correct sentences (check-worthy)", "correct_sentences", "d"),
        ("  supported", "supported_rate", ".3f"),
        ("  falsely contradicted", "false_contradicted_rate", ".3f"),
        ("  supported or marked needs_review", "supported_or_review_rate", ".3f"),
        ("  falsely contradicted, unmarked", "false_contradicted_unmarked_rate", ".3f"),
        ("  marked needs_review", "marked_rate", ".3f"),
    )
    for label, key, spec in rows:
        print(f"{label:<40}{plain[key]:>16{spec}}{quoted[key]:>16{spec}}")
    # Only quotes tell how much of a sentence its evidence words hold.
    grounded = f"{quoted['grounded_supported_rate']:.3f} of {quoted['grounded_sentences']}"
    print(f"{'  supported, quote holds half its words':<40}{'-':>16}{grounded:>16}")
    pairs = [f"{column['nli_pairs_per_sentence']:.2f}" for column in (plain, quoted)]
    print(f"{'NLI pairs per sentence':<40}{pairs[0]:>16}{pairs[1]:>16}")
    print("sentence confidence (all sentences judged, distorted ones included):")
    for share in ("10%", "20%", "30%"):
        cells = [f"{c['selective']['error_capture'][share]:.3f}" for c in (plain, quoted)]
        print(f"{f'  error capture at {share}':<40}{cells[0]:>16}{cells[1]:>16}")
    for key in ("aurc", "ece"):
        cells = [f"{c['selective'][key]:.3f}" for c in (plain, quoted)]
        print(f"{'  ' + key.upper():<40}{cells[0]:>16}{cells[1]:>16}")
    print("distorted sentences caught (or marked), the quote left correct:")
    for kind in PERTURBATIONS:
        a, b = plain["perturbed"][kind], quoted["perturbed"][kind]
        cells = [f"{r['caught']:.3f} ({r['caught_or_review']:.3f})" for r in (a, b)]
        label = f"  {kind:<14}{a['sentences']:>6} sentences"
        print(f"{label:<40}{cells[0]:>16}{cells[1]:>16}")
    print(
        f"{'misquotes, the sentence as written':<35}{'sentences':>12}{'caught':>8}{'reported':>10}"
    )
    misquotes = quoted["misquotes"]
    for kind in MISQUOTES:
        row = misquotes[kind]
        print(f"  {kind:<33}{row['sentences']:>12}{row['caught']:>8.3f}{row['reported']:>10.3f}")
    total = misquotes["all"]
    print(f"  {'all':<33}{total['sentences']:>12}{total['caught']:>8.3f}")
    print_off_topic([plain["off_topic"], quoted["off_topic"]], ["without quotes", "with quotes"])
    premise = quoted["premise"]
    judged = sum(premise.values()) or 1
    shares = ", ".join(f"{k} {v / judged:.3f}" for k, v in premise.items())
    print(
        f"correct quotes called misquote: {quoted['correct_quotes_called_misquote']} of "
        f"{quoted['correct_quotes_checked']} checked; sentences with a quote check "
        f"{quoted['quote_checked_rate']:.3f}; premise: {shares or 'none'}"
    )
    for name, column in (("without quotes", plain), ("with quotes", quoted)):
        for key in ("false_contradicted_by", "not_supported_by"):
            shown = ", ".join(f"{c} {n}" for c, n in column[key].items())
            print(f"  {name}, {key.replace('_', ' ')}: {shown or 'none'}")
    shown_kinds: dict[str, int] = {}
    for miss in result["missed"]:
        if shown_kinds.get(miss["kind"], 0) >= args.examples:
            continue
        shown_kinds[miss["kind"]] = shown_kinds.get(miss["kind"], 0) + 1
        print(f"missed [{miss['kind']}] {miss['verdict']}: {miss['text']}\n    {miss['detail']}")
