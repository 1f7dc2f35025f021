"""``veriproxy check ANSWER``: verify an answer against evidence offline and show the verdicts.

ANSWER is the text itself, a file path, or ``-`` for stdin. Evidence comes from ``--evidence
FILE`` (JSON list, ``{"evidence": [...]}`` or JSONL; each record has ``pmid``, ``title`` and
``abstract`` as text or ``sentences`` as a list) or ``--pmids`` looked up in the local index.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from verifiers import Evidence, ResponseReport, SentenceAnnotation, Verdict, to_json

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


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("check", help="verify an answer against evidence, sentence by sentence")
    parser.add_argument("answer", help="answer text, a file holding it, or - for stdin")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--evidence", type=Path, help="JSON or JSONL evidence records")
    source.add_argument("--pmids", nargs="+", help="PMIDs to look up in the local index")
    parser.add_argument("--index", type=Path, help="SQLite index for --pmids")
    parser.add_argument("--json", action="store_true", help="print the JSON report")
    parser.add_argument("--nli", default="bundled", help="NLI backend: bundled, hf or llm")
    parser.add_argument("--nli-model", help="model path/name for the hf and llm backends")
    parser.add_argument("--embed", action="store_true", help="rerank windows by embeddings too")
    parser.add_argument("--no-color", action="store_true", help="plain text output")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from verifiers.engine import Verifier
    from verifiers.nli._base import NLIError

    answer = read_answer(args.answer)
    evidence = load_evidence(args.evidence) if args.evidence else lookup_pmids(args)
    nli: dict[str, Any] = {"name": args.nli}
    if args.nli_model:
        nli["model"] = args.nli_model
    try:
        verifier = Verifier.from_config({"nli": nli, "windows": {"embed": args.embed}})
    except NLIError as exc:
        print(f"veriproxy check: cannot load the NLI backend: {exc}", file=sys.stderr)
        return 2
    report = verifier.verify(answer, evidence)
    if args.json:
        print(json.dumps(to_json(report), indent=2, ensure_ascii=False))
    else:
        colour = not args.no_color and sys.stdout.isatty() and "NO_COLOR" not in os.environ
        print("\n".join(render(report, colour=colour)))
    return 0


def read_answer(value: str) -> str:
    if value == "-":
        return sys.stdin.read()
    path = Path(value)
    if len(value) < 4096 and path.is_file():
        return path.read_text(encoding="utf-8")
    return value


def load_evidence(path: Path) -> list[Evidence]:
    """Evidence records from a JSON document or a JSONL file."""
    text = path.read_text(encoding="utf-8")
    try:
        data: Any = json.loads(text)
        records = data.get("evidence", []) if isinstance(data, dict) else data
    except json.JSONDecodeError:
        records = [json.loads(line) for line in text.splitlines() if line.strip()]
    return [evidence_from_record(r) for r in records]


def evidence_from_record(record: Mapping[str, Any]) -> Evidence:
    from verifiers.windows import make_evidence

    pmid = next((str(record[k]) for k in _ID_KEYS if k in record), None)
    if pmid is None:
        raise SystemExit(f"evidence record without an id ({', '.join(_ID_KEYS)}): {record}")
    abstract = record.get("sentences") or record.get("abstract") or ""
    return make_evidence(pmid, str(record.get("title", "")), abstract, retriever="client")


def lookup_pmids(args: argparse.Namespace) -> list[Evidence]:
    """Abstracts for ``--pmids`` from the local SQLite index (built by ``veriproxy index``)."""
    from proxy.ingest import to_evidence
    from proxy.retrieval.sqlite_store import SqliteIndex
    from verifiers.embed import Encoder

    path = args.index or os.environ.get("VERIPROXY_INDEX")
    if not path:
        raise SystemExit("--pmids needs --index PATH (or VERIPROXY_INDEX) of a SQLite index")
    store = SqliteIndex(path, Encoder(), readonly=True)
    try:
        found = store.articles(args.pmids)
    finally:
        store.close()
    missing = [p for p in args.pmids if p not in found]
    if missing:
        print(f"not in the index: {', '.join(missing)}", file=sys.stderr)
    return [to_evidence(found[p], retriever="index") for p in args.pmids if p in found]


def render(report: ResponseReport, *, colour: bool) -> Iterator[str]:
    """Human-readable report: each sentence with its verdict, then the evidence that decided."""
    for sentence in report.sentences:
        yield _paint(f"[{sentence.verdict.value}]", sentence.verdict, colour) + f" {sentence.text}"
        yield from _details(sentence)
    counts = ", ".join(f"{k}={v}" for k, v in report.counts.items() if v)
    yield ""
    yield f"faithful={report.faithful} risk={report.risk:.3f} {counts}"
    if report.error:
        yield f"verification incomplete: {report.error}"


def _details(sentence: SentenceAnnotation) -> Iterator[str]:
    for citation in sentence.citations:
        if not citation.valid:
            yield f"    ! {citation.raw}: PMID {citation.pmid} is not among the evidence"
    for span in sentence.evidence:
        snippet = span.text if len(span.text) <= SNIPPET_CHARS else span.text[:SNIPPET_CHARS] + "…"
        yield f"    {span.label.value} {span.score:.2f} PMID {span.pmid} [{span.start}:{span.end}]"
        yield f"      {snippet}"
    for check in dict.fromkeys(sentence.checks):
        if not check.passed:
            yield f"    ! {check.name}: {check.detail}"


def _paint(text: str, verdict: Verdict, colour: bool) -> str:
    return f"\033[{_COLOURS[verdict]}m{text}\033[0m" if colour else text
