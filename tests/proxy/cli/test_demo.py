"""``veriproxy demo``: the recorded answers are real PubMedQA questions over the shipped index,
the replay serves them, and the command runs the whole pipeline offline, prints the reports
and, with ``--serve``, keeps the proxy and the playground up until Ctrl+C."""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from proxy.cli.demo import DEMO_ANSWERS, DEMO_MODEL, Replay, load_recorded
from proxy.data import DEMO_INDEX

REPO = Path(__file__).parents[3]
FABRICATED = "31415926"
CITATION = re.compile(r"\[PMID:(\d+)\]")
# A sentence line of the printed report: "[verdict] [needs review] text".
SENTENCE = re.compile(r"^\[(\w+)\]( \[needs review\])? (.+)$")
STARTUP_TIMEOUT_S = 240
STOP_TIMEOUT_S = 30


def _titles() -> dict[str, str]:
    with sqlite3.connect(f"file:{DEMO_INDEX}?mode=ro", uri=True) as db:
        return dict(db.execute("SELECT pmid, title FROM docs"))


def test_recorded_answers_are_labelled_and_ask_pubmedqa_questions() -> None:
    data = json.loads(DEMO_ANSWERS.read_text(encoding="utf-8"))
    assert "recorded" in data["note"].lower() and "PubMedQA" in data["note"]
    recorded = load_recorded()
    assert 4 <= len(recorded) <= 6
    titles = _titles()
    cited: set[str] = set()
    for item in recorded:
        assert titles[item.pmid] == item.question  # PubMedQA's question is the title
        cited |= set(CITATION.findall(item.answer))
        assert item.pmid in CITATION.findall(item.answer)
    # Every citation is a real abstract of the demo index but the one fabricated on purpose.
    assert cited - set(titles) == {FABRICATED}
    uncited = [s for r in recorded for s in r.answer.split(". ") if not CITATION.search(s)]
    assert uncited, "one recorded sentence carries no citation"


def test_replay_answers_its_questions_only() -> None:
    recorded = load_recorded()
    replay = Replay(recorded)
    first = recorded[0]
    messages = [
        {"role": "system", "content": "evidence…"},
        {"role": "user", "content": "  " + first.question.upper() + "\n"},
    ]
    assert replay({"messages": messages}) == first.answer
    other = replay({"messages": [{"role": "user", "content": "What is aspirin?"}]})
    assert other == replay.fallback
    assert all(item.question in other for item in recorded)


def test_demo_runs_offline_prints_reports_and_serves_the_playground() -> None:
    command = [sys.executable, "-m", "proxy", "demo", "--serve", "--no-color"]
    # faulthandler: a demo that does not stop prints every thread's stack on SIGABRT.
    env = {**os.environ, "PYTHONFAULTHANDLER": "1"}
    with subprocess.Popen(
        command,
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
        preexec_fn=_as_in_a_terminal,
    ) as process:
        try:
            output = _until_serving(process)
            assert "[supported] Pretreatment with ibuprofen" in output
            assert "[contradicted] All patients were injected intrathecally" in output
            assert "numbers: 200 mg not in the evidence" in output
            assert "[invalid_citation] Amoxapine also halved" in output
            assert f"PMID {FABRICATED} is not among the evidence" in output
            assert "Selective COX-2 inhibitors" in output
            assert output.count("status=") == len(load_recorded())
            _each_sentence_as_promised(output)
            url = re.search(r"Playground: (http://\S+)/ui", output)
            assert url is not None
            page = httpx.get(f"{url.group(1)}/ui")
            assert page.status_code == 200 and "veriproxy playground" in page.text
            models = httpx.get(f"{url.group(1)}/v1/models").json()
            assert [m["id"] for m in models["data"]] == [DEMO_MODEL]
            process.send_signal(signal.SIGINT)
            assert _stopped(process) == 0
        finally:
            if process.poll() is None:
                process.kill()


def _as_in_a_terminal() -> None:
    """Ctrl+C reaches the demo as it would in a terminal's foreground. A suite started in the
    background by a shell ("... &") ignores SIGINT, and a child inherits the ignoring: the demo
    could then never be stopped by the signal this test sends."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _stopped(process: subprocess.Popen[str]) -> int:
    """The exit code once Ctrl+C has stopped the demo; the stacks of its threads if it did not."""
    try:
        return process.wait(timeout=STOP_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        process.send_signal(signal.SIGABRT)
        rest, _ = process.communicate(timeout=30)
        pytest.fail(f"the demo did not stop within {STOP_TIMEOUT_S} s of Ctrl+C:\n{rest[-8000:]}")


def _until_serving(process: subprocess.Popen[str]) -> str:
    """The command's output up to the line with the playground URL."""
    assert process.stdout is not None
    lines: list[str] = []
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    while not any(line.startswith("Playground: ") for line in lines):
        line = process.stdout.readline()
        assert line and time.monotonic() < deadline, "".join(lines)
        lines.append(line)
    return "".join(lines)


def _each_sentence_as_promised(output: str) -> None:
    """Every recorded sentence gets the verdict its answer's description promises, or, where
    the model still gets it wrong, is marked needs review: never a confident wrong verdict."""
    printed = [SENTENCE.match(line) for line in output.splitlines()]
    found = {m.group(3): (m.group(1), bool(m.group(2))) for m in printed if m}
    for item in load_recorded():
        sentences = [s for s in found if s in item.answer]
        assert len(sentences) == len(item.expect), (item.shows, sentences)
        for text, expected in zip(
            sorted(sentences, key=item.answer.index), item.expect, strict=True
        ):
            verdict, marked = found[text]
            assert verdict == expected or marked, f"{text!r}: {verdict}, promised {expected}"
