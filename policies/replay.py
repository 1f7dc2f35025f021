"""What a policy would have done to recorded reports, before anyone turns it on.

Input is JSONL, one report per line, in either form the project writes:
- a report as the client reads it (``DecidedReport``, ``verifiers.to_json``; complete: every
  condition evaluates);
- an audit-log entry (``{"prev", "hash", "record"}``, ``proxy/audit``). Audit records keep each
  sentence's verdict, harm, support and risk but not its confidence or citations, so
  ``confidence`` and ``citation_valid`` conditions cannot hold on them; ``ReplaySummary.partial``
  counts such lines. A record written before protocol 2.0 has no ``support``: its ``risk`` was
  the supported share, and is read as such.
"""

from __future__ import annotations

import dataclasses
import json
import math
import types
import typing
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from policies._decided import Action, DecidedReport, DecidedSentence, ReportStatus
from policies._model import Policy
from policies.engine import decide_report, decide_sentence
from verifiers import Verdict

_FAITHFUL = frozenset({Verdict.SUPPORTED, Verdict.NOT_CHECKWORTHY})


class ReportFormatError(ValueError):
    """A line of the reports file is neither a report nor an audit entry."""


@dataclass(frozen=True, slots=True)
class ReplayedSentence:
    """A sentence the policy would have blocked or redacted."""

    report: int  # 1-based line number in the reports file
    index: int
    text: str
    action: Action
    rules_fired: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ReplaySummary:
    policy: str
    reports: int
    partial: int
    by_action: Mapping[str, int]
    by_status: Mapping[str, int]
    changed_status: int  # reports whose recorded status differs from the replayed one
    sentence_actions: Mapping[str, int]
    rules: Mapping[str, int]  # how many reports each rule fired in
    blocked: tuple[ReplayedSentence, ...] = field(default_factory=tuple)
    redacted: tuple[ReplayedSentence, ...] = field(default_factory=tuple)


def replay(policy: Policy, lines: Iterable[str]) -> ReplaySummary:
    """Decide every report in ``lines`` with ``policy`` and summarise the outcome."""
    by_action: Counter[str] = Counter()
    by_status: Counter[str] = Counter()
    sentence_actions: Counter[str] = Counter()
    rules: Counter[str] = Counter()
    blocked: list[ReplayedSentence] = []
    redacted: list[ReplayedSentence] = []
    reports = partial = changed = 0
    for number, report, is_partial in read_reports(lines):
        reports += 1
        partial += is_partial
        decision = decide_report(policy, report)
        by_action[decision.action.value] += 1
        by_status[decision.status.value] += 1
        changed += decision.status is not report.status
        rules.update(decision.rules_fired)
        for sentence in report.sentences:
            verdict = decide_sentence(policy, sentence)
            sentence_actions[verdict.action.value] += 1
            entry = ReplayedSentence(
                number, sentence.index, sentence.text, verdict.action, verdict.rules_fired
            )
            if verdict.action is Action.BLOCK:
                blocked.append(entry)
            elif verdict.action is Action.REDACT:
                redacted.append(entry)
    return ReplaySummary(
        policy.name,
        reports,
        partial,
        dict(by_action),
        dict(by_status),
        changed,
        dict(sentence_actions),
        dict(rules),
        tuple(blocked),
        tuple(redacted),
    )


def read_reports(lines: Iterable[str]) -> Iterator[tuple[int, DecidedReport, bool]]:
    """(line number, report, partial) for each non-blank line."""
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            if isinstance(data, dict) and isinstance(data.get("record"), dict):
                yield number, _from_audit_record(data["record"]), True
            else:
                yield number, decode(DecidedReport, data), False
        except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
            raise ReportFormatError(f"line {number}: not a report or audit entry: {exc}") from exc


def decode(tp: Any, value: Any) -> Any:
    """Rebuild a report structure from ``to_json`` output, guided by the dataclass type hints."""
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is types.UnionType or origin is typing.Union:
        if value is None:
            return None
        return decode(next(a for a in args if a is not type(None)), value)
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        if not isinstance(value, dict):
            raise TypeError(f"{tp.__name__} expects an object, got {type(value).__name__}")
        hints = typing.get_type_hints(tp)
        names = {f.name for f in dataclasses.fields(tp)}
        return tp(**{k: decode(hints[k], v) for k, v in value.items() if k in names})
    if isinstance(tp, type) and issubclass(tp, Enum):
        return tp(value)
    if origin is tuple:
        return tuple(decode(args[0], v) for v in value)
    if origin is Mapping or origin is dict:
        return {str(k): decode(args[1], v) for k, v in value.items()}
    if tp is float:
        return float(value)
    return value


def _scores(entry: Mapping[str, Any]) -> tuple[float, float]:
    """(support, risk) of an audit record or sentence, whichever protocol wrote it."""
    if "support" in entry:
        return float(entry["support"]), float(entry["risk"])
    support = float(entry["risk"])  # protocol 1.x: ``risk`` held the supported share
    return support, 1.0 - support


def _from_audit_record(record: dict[str, Any]) -> DecidedReport:
    sentences = tuple(
        DecidedSentence(
            index=int(s["index"]),
            text="",
            start=0,
            end=0,
            verdict=Verdict(s["verdict"]),
            confidence=math.nan,  # not recorded: every confidence bound is false
            harm=int(s["harm"]),
            support=_scores(s)[0],
            risk=_scores(s)[1],
            action=Action(s["action"]),
        )
        for s in record["sentences"]
    )
    support, risk = _scores(record)
    return DecidedReport(
        status=ReportStatus(record["status"]),
        support=support,
        risk=risk,
        faithful=all(s.verdict in _FAITHFUL for s in sentences),
        counts=dict(Counter(s.verdict.value for s in sentences)),
        sentences=sentences,
        policy=str(record.get("policy", "")),
        shadow=bool(record.get("shadow", False)),
        rules_fired=tuple(record.get("rules_fired", ())),
        action=Action(record.get("action", "annotate")),
        error=record.get("error"),
    )
