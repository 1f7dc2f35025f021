"""The audit log: complete records, a chain that verifies and catches tampering, JSONL from
several processes, Redis Streams across replicas and through a Redis crash."""

from __future__ import annotations

import asyncio
import hashlib
import itertools
import json
import multiprocessing
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import pytest
import redis.asyncio as aioredis

from policies import Action, ReportStatus
from proxy.audit import (
    GENESIS,
    AuditLog,
    JsonlSink,
    RedisStreamSink,
    build_record,
    read_entries,
    stream_entries,
    verify_entries,
    verify_file,
    verify_redis,
)
from proxy.audit.jsonl import find_records
from proxy.cli import main
from proxy.outcome import ResponseOutcome
from proxy.state import RedisLink, RedisSettings
from tests.proxy.redis_helpers import SHARED_URL, delete_prefix, fresh_prefix, private_redis
from tests.proxy.report_factory import report, sentence
from verifiers import Verdict

REPORT = report(
    (
        sentence(0, Verdict.SUPPORTED, 2, pmids=("111",), cited=(("111", True),)),
        sentence(1, Verdict.UNSUPPORTED, 5, action=Action.FLAG, cited=(("999", False),)),
    ),
    status=ReportStatus.FLAGGED,
    risk=0.25,
    policy="clinical",
)
CTX = ResponseOutcome(
    request_id="req-1",
    tenant="acme",
    model="gpt-x",
    report=replace(REPORT, latency_ms={**REPORT.latency_ms, "upstream_total": 300.0}),
    prompt="Does aspirin reduce fever?",
    answer="Aspirin reduces fever [PMID:111]. It cures cancer.",
)


def test_record_holds_every_decision_and_text_only_when_asked() -> None:
    body = build_record(CTX, include_text=False, now=1000.0).to_dict()
    assert body["request_id"] == "req-1" and body["tenant"] == "acme"
    assert (body["model"], body["policy"], body["status"]) == ("gpt-x", "clinical", "flagged")
    assert (body["support"], body["risk"]) == (0.75, 0.25)
    assert body["sentences"] == [
        {"index": 0, "verdict": "supported", "harm": 2, "action": "annotate",
         "pmids": ["111"], "support": 1.0, "risk": 0.0, "rules_fired": [], "text": None,
         "decided_by": "", "bundled_verdict": None, "confidence": 0.9, "needs_review": False,
         "premise": None, "quotes": []},
        {"index": 1, "verdict": "unsupported", "harm": 5, "action": "flag",
         "pmids": ["999"], "support": 0.0, "risk": 1.0, "rules_fired": [], "text": None,
         "decided_by": "", "bundled_verdict": None, "confidence": 0.9, "needs_review": False,
         "premise": None, "quotes": []},
    ]  # fmt: skip
    assert body["escalation"] is None  # no judge configured
    assert body["latency_ms"] == {"retrieval": 12.5, "verification": 40.0, "upstream_total": 300}
    assert body["prompt"] is None and body["answer"] is None
    with_text = build_record(CTX, include_text=True).to_dict()
    assert with_text["prompt"] == CTX.prompt and with_text["answer"] == CTX.answer
    leaky = ResponseOutcome("r", "acme", "gpt-x", REPORT, prompt="my key is sk-abcdefghijklmnop ok")
    assert build_record(leaky, include_text=True).prompt == "my key is [redacted] ok"


def test_a_withheld_sentence_keeps_its_rules_and_its_words_only_with_text() -> None:
    redacted = replace(
        sentence(1, Verdict.INVALID_CITATION, 4, action=Action.REDACT, cited=(("999", False),)),
        text="It cures cancer [PMID:999].",
        rules_fired=("redact-fabricated-citation", "flag-low-confidence"),
    )
    withheld = replace(REPORT, sentences=(REPORT.sentences[0], redacted))
    plain = build_record(replace(CTX, report=withheld), include_text=False).to_dict()["sentences"]
    assert plain[1]["rules_fired"] == ["redact-fabricated-citation", "flag-low-confidence"]
    assert plain[1]["text"] is None
    with_text = build_record(replace(CTX, report=withheld), include_text=True).to_dict()[
        "sentences"
    ]
    assert with_text[1]["text"] == "It cures cancer [PMID:999]."
    assert with_text[0]["text"] is None  # a sentence the client saw is in `answer` already


def _write(path: Path, n: int) -> None:
    sink = JsonlSink(path)
    for i in range(n):
        sink.write(build_record(CTX, include_text=False, now=float(i)).to_dict())
    sink.close()


def test_jsonl_chain_verifies_and_survives_reopen(tmp_path: Path) -> None:
    path = tmp_path / "audit" / "log.jsonl"
    _write(path, 3)
    _write(path, 2)  # a restarted proxy continues the same chain
    result = verify_file(path)
    assert (result.ok, result.count) == (True, 5)
    entries = list(read_entries(path))
    assert entries[0]["prev"] == GENESIS
    assert all(b["prev"] == a["hash"] for a, b in itertools.pairwise(entries))
    assert main(["audit", "verify", str(path)]) == 0


@pytest.mark.parametrize("head_file", ["kept", "deleted", "stale"])
def test_a_restart_after_a_very_long_line_continues_the_chain(
    tmp_path: Path, head_file: str
) -> None:
    """Issue 26 item 11: a 400-sentence answer wrote an 87 KB line, and after a restart every
    audited request failed. The head is kept beside the file, and found at any line length."""
    path = tmp_path / "log.jsonl"
    long_answer = replace(CTX, answer="word " * 60_000)  # 300 KB before the record's bound
    sink = JsonlSink(path)
    sink.write(build_record(CTX, include_text=False).to_dict())
    long_line = build_record(long_answer, include_text=True).to_dict()
    long_line["notes_pad"] = "x" * 200_000  # a line longer than any tail window
    sink.write(long_line)
    sink.close()
    head = path.with_name(path.name + ".head")
    if head_file == "deleted":
        head.unlink()
    elif head_file == "stale":
        head.write_bytes(b"%020d %s\n" % (1, b"0" * 64))
    _write(path, 2)  # a restarted proxy continues the same chain
    result = verify_file(path)
    assert (result.ok, result.count) == (True, 4)


def test_record_text_is_bounded_with_a_digest_of_the_whole() -> None:
    answer = "word " * 60_000
    body = build_record(replace(CTX, answer=answer), include_text=True).to_dict()
    text = body["answer"]
    assert len(text) < 21_000 and text.startswith("word word")
    assert hashlib.sha256(answer.encode()).hexdigest() in text
    assert f"cut: {len(answer)} characters" in text


def test_a_failing_audit_file_never_fails_the_write_and_says_so(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    failures: list[str] = []
    log = AuditLog(jsonl=JsonlSink(path), on_failure=failures.append)
    record = build_record(CTX, include_text=False)
    log.write(record)
    with path.open("ab") as fh:
        fh.write(b"not an audit line\n")  # another writer broke the chain's last line
    log.write(record)  # lost, counted, reported -- not raised
    assert failures == ["jsonl"]
    assert asyncio.run(log.readiness()) == "the audit file cannot be written (AuditFileError)"
    assert len(path.read_text().splitlines()) == 2
    assert log.jsonl is not None
    log.jsonl.close()


@pytest.mark.parametrize("tamper", ["edit", "delete", "swap"])
def test_jsonl_tampering_is_detected(
    tmp_path: Path, tamper: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "log.jsonl"
    _write(path, 4)
    lines = path.read_text().splitlines()
    if tamper == "edit":
        entry = json.loads(lines[1])
        entry["record"]["sentences"][1]["verdict"] = "supported"
        lines[1] = json.dumps(entry)
    elif tamper == "delete":
        del lines[2]
    else:
        lines[1], lines[2] = lines[2], lines[1]
    path.write_text("\n".join(lines) + "\n")
    result = verify_file(path)
    assert not result.ok
    assert result.bad_index in (1, 2)
    assert main(["audit", "verify", str(path)]) == 1
    assert "BROKEN" in capsys.readouterr().out


def test_jsonl_from_several_processes_is_one_chain(tmp_path: Path) -> None:
    path = tmp_path / "shared.jsonl"
    ctx = multiprocessing.get_context("fork")
    workers = [ctx.Process(target=_write, args=(path, 25)) for _ in range(3)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(timeout=30)
    result = verify_file(path)
    assert (result.ok, result.count) == (True, 75)


def _records(n: int, tenant: str = "acme") -> list[dict[str, object]]:
    return [
        build_record(
            ResponseOutcome(f"req-{i}", tenant, "gpt-x", REPORT), include_text=False
        ).to_dict()
        for i in range(n)
    ]


async def test_a_request_is_found_again_in_the_file_newest_first(tmp_path: Path) -> None:
    sink = JsonlSink(tmp_path / "audit.jsonl")
    log = AuditLog(jsonl=sink)
    for record in _records(30):
        sink.write(record)
    sink.write({**_records(1)[0], "request_id": "req-7", "choice": 1})  # n > 1: one per choice
    sink.close()
    found = await log.find("req-7")
    assert [(r["request_id"], r["choice"]) for r in found] == [("req-7", 1), ("req-7", 0)]
    assert await log.find("req-") == [] and await log.find("nope") == []
    assert await AuditLog().find("req-7") == []  # no sink: nothing to find
    # Only the newest bytes are searched: an old record is out of reach.
    assert find_records(tmp_path / "audit.jsonl", b'"req-0"', lookback_bytes=2_000) == []


async def test_a_request_is_found_again_in_the_stream(link: RedisLink) -> None:
    sink = RedisStreamSink(link, link.key("audit"))
    log = AuditLog(redis=sink)
    for record in _records(5):
        sink.submit(record)
    assert [r["request_id"] for r in await log.find("req-3")] == ["req-3"]  # still queued
    await sink.start()
    assert await sink.flush(timeout=10)
    await sink.aclose()
    assert [r["request_id"] for r in await log.find("req-3")] == ["req-3"]  # from Redis
    assert await log.find("req-9") == []


@pytest.fixture
async def link() -> AsyncIterator[RedisLink]:
    prefix = fresh_prefix()
    link = RedisLink(RedisSettings(SHARED_URL, prefix=prefix))
    yield link
    await link.aclose()
    delete_prefix(prefix)


async def test_redis_stream_from_two_replicas_is_one_verified_chain(link: RedisLink) -> None:
    stream = link.key("audit")
    other = RedisLink(RedisSettings(SHARED_URL, prefix=link.prefix))
    replicas = [
        AuditLog(redis=RedisStreamSink(link, stream)),
        AuditLog(redis=RedisStreamSink(other, stream)),
    ]
    for log in replicas:
        await log.start()
    for i in range(20):
        ctx = ResponseOutcome(request_id=f"req-{i}", tenant="acme", model="gpt-x", report=REPORT)
        replicas[i % 2].write(build_record(ctx, include_text=False))
    for log in replicas:
        assert log.redis is not None
        assert await log.redis.flush(timeout=10)
        await log.aclose()
    await other.aclose()
    result = await verify_redis(SHARED_URL, stream)
    assert (result.ok, result.count) == (True, 20)
    entries = [e async for e in stream_entries(link.client, stream)]
    assert sorted(e["record"]["request_id"] for e in entries) == sorted(
        f"req-{i}" for i in range(20)
    )
    cli = ["audit", "verify", "--redis", SHARED_URL, "--stream", stream]
    assert await asyncio.to_thread(main, cli) == 0


async def test_redis_stream_tampering_is_detected(link: RedisLink) -> None:
    stream = link.key("audit")
    sink = RedisStreamSink(link, stream)
    await sink.start()
    for i in range(3):
        sink.submit({"n": i})
    assert await sink.flush(timeout=10)
    await sink.aclose()
    entries = [e async for e in stream_entries(link.client, stream)]
    await link.client.xdel(stream, entries[1]["id"])
    assert (await verify_redis(SHARED_URL, stream)).bad_index == 1


class Counts:
    def __init__(self) -> None:
        self.degraded = 0
        self.dropped = 0
        self.pending: list[int] = []

    def on_cache_lookup(self, cache: str, hit: bool) -> None:
        return None

    def on_redis_degraded(self, operation: str) -> None:
        assert operation == "audit"
        self.degraded += 1

    def on_audit_pending(self, count: int) -> None:
        self.pending.append(count)

    def on_audit_dropped(self) -> None:
        self.dropped += 1


async def test_no_record_lost_when_redis_is_killed_and_restarted(tmp_path: Path) -> None:
    with private_redis(tmp_path) as server:
        counts = Counts()
        link = RedisLink(RedisSettings(server.url, socket_timeout=0.2, retry_after=0.1), counts)
        sink = RedisStreamSink(link, "veriproxy:audit", retry_seconds=0.05)
        await sink.start()
        written = 0

        async def traffic(n: int) -> None:
            nonlocal written
            for _ in range(n):
                assert sink.submit({"request_id": f"req-{written}"})
                written += 1
                await asyncio.sleep(0.002)

        await traffic(30)
        server.kill()  # mid-traffic: some records are in flight, the rest must wait
        await traffic(30)
        await asyncio.sleep(0.3)
        assert sink.pending > 0
        assert counts.degraded > 0
        server.start()
        await traffic(30)
        assert await sink.flush(timeout=20)
        await sink.aclose()
        await link.aclose()

        client = aioredis.Redis.from_url(server.url)
        entries = [e async for e in stream_entries(client, "veriproxy:audit")]
        await client.aclose()
        assert [e["record"]["request_id"] for e in entries] == [f"req-{i}" for i in range(90)]
        assert verify_entries(entries).ok
        assert counts.pending[-1] == 0 and max(counts.pending) > 1
        assert counts.dropped == 0


async def test_full_buffer_drops_and_counts() -> None:
    counts = Counts()
    link = RedisLink(RedisSettings("redis://127.0.0.1:1/0", socket_timeout=0.1), counts)
    sink = RedisStreamSink(link, "s", max_pending=2)
    assert sink.submit({"n": 1}) and sink.submit({"n": 2})
    assert not sink.submit({"n": 3})
    assert (sink.pending, counts.dropped) == (2, 1)
    await link.aclose()


def test_record_keeps_what_a_sentence_was_judged_against_and_its_quotes() -> None:
    from verifiers import Premise, QuoteCheck, QuoteStatus

    quoted = replace(
        REPORT.sentences[0],
        premise=Premise.QUOTE,
        quotes=(QuoteCheck("111", "fever fell", QuoteStatus.FOUND),),
    )
    misquoted = replace(
        REPORT.sentences[1],
        premise=Premise.WINDOWS,
        quotes=(QuoteCheck("999", "it cured cancer", QuoteStatus.MISQUOTE),),
    )
    body = build_record(
        replace(CTX, report=replace(REPORT, sentences=(quoted, misquoted))), include_text=False
    ).to_dict()
    assert [(s["premise"], s["quotes"]) for s in body["sentences"]] == [
        ("quote", ["found"]),
        ("windows", ["misquote"]),
    ]
    assert "fever fell" not in json.dumps(body)  # the quoted words are text: kept only with it
