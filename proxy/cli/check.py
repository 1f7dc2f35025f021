"""``veriproxy check ANSWER``: verify an answer against evidence offline and show the verdicts.

ANSWER is the text itself, a file path, or ``-`` for stdin. Evidence comes from ``--evidence
FILE`` (JSON list, ``{"evidence": [...]}`` or JSONL; each record has ``pmid``, ``title`` and
``abstract`` as text or ``sentences`` as a list) or ``--pmids`` looked up in the local index.

The report goes through a policy (``--policy``, the ``default`` preset unless named), as the
proxy's would, which sets its status: ``verified``, ``flagged``, ``redacted`` or ``blocked``
(``unverified`` when verification could not run and the policy fails open). The exit status
gates CI: 1 when the status reaches ``--fail-on`` (``unverified`` counts as ``flagged``: an
answer that could not be checked does not pass), 0 when it does not, 2 on a usage or input error.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from policies import DecidedReport, ReportStatus
from proxy.cli._parser import EXIT_FAILED, EXIT_OK, CliError
from verifiers import (
    Evidence,
    Premise,
    QuoteStatus,
    SentenceAnnotation,
    Verdict,
    to_json,
)

if TYPE_CHECKING:
    from policies import Policy

_COLOURS: Mapping[Verdict, str] = {
    Verdict.SUPPORTED: "32",  # green
    Verdict.PARTIALLY_SUPPORTED: "36",  # cyan
    Verdict.CONTRADICTED: "31",  # red
    Verdict.UNSUPPORTED: "33",  # yellow
    Verdict.INVALID_CITATION: "35",  # magenta
    Verdict.UNCITED: "90",  # grey
    Verdict.NOT_CHECKWORTHY: "2",  # dim
}
_ID_KEYS = ("pmid", "id", "doc_id", "cord_id")
SNIPPET_CHARS = 240
DEFAULT_POLICY = "default"
# How far each status goes; --fail-on fails the run at its own level and above.
_SEVERITY: Mapping[str, int] = {
    ReportStatus.VERIFIED: 0,
    ReportStatus.UNVERIFIED: 1,
    ReportStatus.NEEDS_REVIEW: 1,
    ReportStatus.FLAGGED: 1,
    ReportStatus.REDACTED: 2,
    ReportStatus.BLOCKED: 3,
    "never": 4,
}
FAIL_ON = (ReportStatus.FLAGGED, ReportStatus.REDACTED, ReportStatus.BLOCKED, "never")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "check",
        help="verify an answer against evidence, sentence by sentence",
        description="Verify ANSWER against evidence and apply a policy. Exit status: 0 the "
        "answer passed, 1 its status reached --fail-on, 2 usage or input error.",
    )
    parser.add_argument("answer", help="answer text, a file holding it, or - for stdin")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--evidence", type=Path, help="JSON or JSONL evidence records")
    source.add_argument("--pmids", nargs="+", help="PMIDs to look up in the local index")
    parser.add_argument(
        "--index", type=Path, help="SQLite index for --pmids (default: $VERIPROXY_INDEX)"
    )
    parser.add_argument(
        "--policy",
        default=DEFAULT_POLICY,
        metavar="NAME|FILE",
        help="policy that sets the report's status: a preset name or a policy file",
    )
    parser.add_argument(
        "--fail-on",
        choices=[str(s) for s in FAIL_ON],
        default=str(ReportStatus.FLAGGED),
        help="exit 1 when the status is this or worse (flagged < redacted < blocked; "
        "unverified counts as flagged); never: always exit 0",
    )
    parser.add_argument("--json", action="store_true", help="print the JSON report")
    parser.add_argument("--nli", default="bundled", help="NLI backend: bundled, hf or llm")
    parser.add_argument("--nli-model", help="model path/name for the hf and llm backends")
    parser.add_argument("--embed", action="store_true", help="rerank windows by embeddings too")
    parser.add_argument("--no-color", action="store_true", help="plain text output")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from policies import apply_policy
    from verifiers import NLIError, Verifier
    from verifiers.config import verifier_config

    answer = read_answer(args.answer)
    policy = load_policy(args.policy)
    evidence = load_evidence(args.evidence) if args.evidence else lookup_pmids(args)
    nli: dict[str, Any] = {"name": args.nli}
    if args.nli_model:
        nli["model"] = args.nli_model
    try:
        verifier = Verifier.from_config(
            verifier_config({"nli": nli, "windows": {"embed": args.embed}})
        )
    except NLIError as exc:
        raise CliError(f"cannot load the NLI backend: {exc}") from exc
    report = apply_policy(policy, verifier.verify(answer, evidence))
    if args.json:
        print(json.dumps(to_json(report), indent=2, ensure_ascii=False))
    else:
        colour = not args.no_color and sys.stdout.isatty() and "NO_COLOR" not in os.environ
        print("\n".join(render(report, colour=colour)))
        rules = ", ".join(report.rules_fired) or "none"
        print(f"status={report.status.value} policy={report.policy} rules fired: {rules}")
    if not fails(report.status, args.fail_on):
        return EXIT_OK
    print(
        f"veriproxy check: failed: status {report.status.value} (--fail-on {args.fail_on})",
        file=sys.stderr,
    )
    return EXIT_FAILED


def fails(status: ReportStatus, fail_on: str) -> bool:
    """Whether a report with ``status`` fails a run with ``--fail-on fail_on``."""
    return _SEVERITY[status] >= _SEVERITY[fail_on]


def load_policy(name: str) -> Policy:
    """A policy file, else the shipped preset of that name."""
    from policies import PRESETS_DIR, PolicyFileError
    from policies import load_policy as load

    path = Path(name)
    if not path.exists():
        path = PRESETS_DIR / f"{name}.yaml"
        if not path.is_file():
            presets = ", ".join(sorted(p.stem for p in PRESETS_DIR.glob("*.yaml")))
            raise CliError(f"--policy {name}: no such file or preset (presets: {presets})")
    try:
        return load(path)
    except PolicyFileError as exc:
        raise CliError(f"--policy {name}: {exc}") from exc


def read_answer(value: str) -> str:
    if value == "-":
        return sys.stdin.read()
    path = Path(value)
    try:
        is_file = len(value) < 4096 and path.is_file()
    except OSError:  # not a possible file name (too long): the answer itself
        is_file = False
    return path.read_text(encoding="utf-8") if is_file else value


def load_evidence(path: Path) -> list[Evidence]:
    """Evidence records from a JSON document or a JSONL file."""
    text = path.read_text(encoding="utf-8")
    try:
        data: Any = json.loads(text)
    except json.JSONDecodeError:
        records = list(_jsonl(path, text))
    else:
        if isinstance(data, dict) and "evidence" not in data:
            raise CliError(f'{path}: a JSON object needs an "evidence" list')
        records = data["evidence"] if isinstance(data, dict) else data
    if not isinstance(records, list):
        raise CliError(f"{path}: expected a list of evidence records")
    return [evidence_from_record(path, r) for r in records]


def _jsonl(path: Path, text: str) -> Iterator[Any]:
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            try:
                yield json.loads(line)
            except json.JSONDecodeError as exc:
                raise CliError(f"{path}: line {number}: not JSON or JSONL ({exc.msg})") from exc


def evidence_from_record(path: Path, record: Any) -> Evidence:
    from verifiers import make_evidence

    if not isinstance(record, Mapping):
        raise CliError(f"{path}: an evidence record is not a JSON object: {str(record)[:80]}")
    pmid = next((str(record[k]) for k in _ID_KEYS if k in record), None)
    if pmid is None:
        raise CliError(f"{path}: an evidence record has no id ({', '.join(_ID_KEYS)})")
    abstract = record.get("sentences") or record.get("abstract") or ""
    return make_evidence(pmid, str(record.get("title", "")), abstract, retriever="client")


def lookup_pmids(args: argparse.Namespace) -> list[Evidence]:
    """Abstracts for ``--pmids`` from the local SQLite index (built by ``veriproxy index``)."""
    from proxy.ingest import to_evidence
    from proxy.retrieval.base import RetrievalError
    from proxy.retrieval.sqlite_store import SqliteIndex
    from verifiers import Encoder

    path = args.index or os.environ.get("VERIPROXY_INDEX")
    if not path:
        raise CliError("--pmids needs --index PATH (or VERIPROXY_INDEX) of a SQLite index")
    try:
        store = SqliteIndex(path, Encoder(), readonly=True)
    except RetrievalError as exc:
        raise CliError(str(exc)) from exc
    try:
        found = store.articles(args.pmids)
    finally:
        store.close()
    missing = [p for p in args.pmids if p not in found]
    if missing:
        print(f"not in the index: {', '.join(missing)}", file=sys.stderr)
    return [to_evidence(found[p], retriever="index") for p in args.pmids if p in found]


def render(report: DecidedReport, *, colour: bool) -> Iterator[str]:
    """Human-readable report: each sentence with its verdict, then the evidence that decided."""
    for sentence in report.sentences:
        review = " [needs review]" if sentence.needs_review else ""
        tag = _paint(f"[{sentence.verdict.value}]", sentence.verdict, colour)
        yield f"{tag}{review} {sentence.text}"
        if sentence.needs_review:
            yield f"    ? {sentence.review_reason}"
        yield from _details(sentence)
    counts = ", ".join(f"{k}={v}" for k, v in report.counts.items() if v)
    yield ""
    review = f" needs_review={report.needs_review}" if report.needs_review else ""
    yield (
        f"faithful={report.faithful} support={report.support:.3f} risk={report.risk:.3f} "
        f"{counts}{review}"
    )
    if report.error:
        yield f"verification incomplete: {report.error}"


def _details(sentence: SentenceAnnotation) -> Iterator[str]:
    if sentence.lead_citations:
        pmids = ", ".join(sentence.lead_citations)
        yield f"    cited where its list or paragraph is cited once: PMID {pmids}"
    for citation in sentence.citations:
        if not citation.valid:
            yield f"    ! {citation.raw}: PMID {citation.pmid} is not among the evidence"
    for quote in sentence.quotes:
        where = " ".join(f"[{s.start}:{s.end}]" for s in quote.spans)
        if quote.status is QuoteStatus.FOUND:
            judged = " (judged against it)" if sentence.premise is Premise.QUOTE else ""
            yield f'    " quote found in PMID {quote.found_in} {where}{judged}'
        elif quote.status is QuoteStatus.OTHER_ABSTRACT:
            yield f'    " quote is from PMID {quote.found_in} {where}, not PMID {quote.pmid}'
        elif quote.closest is not None:
            yield f'    " misquote; closest in PMID {quote.pmid}: "{quote.closest.text}"'
    for span in sentence.evidence:
        snippet = span.text if len(span.text) <= SNIPPET_CHARS else span.text[:SNIPPET_CHARS] + "…"
        yield f"    {span.label.value} {span.score:.2f} PMID {span.pmid} [{span.start}:{span.end}]"
        yield f"      {snippet}"
    for check in dict.fromkeys(sentence.checks):
        if not check.passed:
            yield f"    ! {check.name}: {check.detail}"


def _paint(text: str, verdict: Verdict, colour: bool) -> str:
    return f"\033[{_COLOURS[verdict]}m{text}\033[0m" if colour else text
