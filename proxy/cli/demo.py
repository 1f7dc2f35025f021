"""``veriproxy demo [--serve] [--policy NAME]``: the whole pipeline offline, on recorded answers.

No network and no key: a real proxy on loopback, whose upstream is a transport replaying
hand-written answers (``proxy/data/demo_answers.json``, see ``proxy.cli._replay``) to a few
PubMedQA questions, retrieves evidence from the shipped PubMedQA index, injects it, and
verifies each answer with the bundled NLI model. Each report is printed with ``veriproxy
check``'s renderer. ``--serve`` then keeps the proxy running and prints the playground URL, so
the same answers stream into /ui.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

if TYPE_CHECKING:
    import httpx
    from starlette.types import ASGIApp

DEMO_ANSWERS = Path(__file__).resolve().parents[1] / "data" / "demo_answers.json"
DEMO_MODEL = "demo"
DRIP_SECONDS = 0.04  # between streamed words, so the page visibly streams
# The demo model's upstream: never dialled, the replay transport answers every request.
REPLAY_BASE_URL = "http://replay.invalid/v1"
REQUEST_TIMEOUT_S = 300.0


@dataclass(frozen=True, slots=True)
class RecordedAnswer:
    pmid: str
    question: str
    answer: str
    shows: str
    # The verdict each sentence should get, as ``shows`` describes it; a sentence whose verdict
    # differs must at least be marked needs_review (tests/proxy/cli/test_demo.py).
    expect: tuple[str, ...]


def load_recorded(path: Path = DEMO_ANSWERS) -> tuple[RecordedAnswer, ...]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return tuple(
        RecordedAnswer(**(item | {"expect": tuple(item["expect"])})) for item in data["answers"]
    )


class Replay:
    """The replay upstream's ``reply``: the recorded answer to the request's last user message."""

    def __init__(self, recorded: Sequence[RecordedAnswer]) -> None:
        self._answers = {_normal(r.question): r.answer for r in recorded}
        questions = " ".join(f"“{r.question}”" for r in recorded)
        self.fallback = (
            "This offline demo replays recorded answers to its own questions only. "
            f"Ask one of these: {questions}"
        )

    def __call__(self, body: Mapping[str, Any]) -> str:
        for message in reversed(list(body.get("messages") or ())):
            if message.get("role") == "user" and isinstance(message.get("content"), str):
                return self._answers.get(_normal(message["content"]), self.fallback)
        return self.fallback


def demo_config(upstream_base_url: str) -> dict[str, Any]:
    """Proxy configuration: keyless on loopback, one model on the replay upstream (other names are
    refused, so /v1/models lists only it), the shipped retrieval index and presets,
    verification with the bundled model."""
    upstream = {"base_url": upstream_base_url}
    return {
        "unknown_model": "reject",
        "default_upstream": upstream,
        "models": {DEMO_MODEL: upstream},
        "verification": {"enabled": True},
    }


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "demo", help="run the whole pipeline offline on recorded answers (no network, no key)"
    )
    parser.add_argument(
        "--serve", action="store_true", help="keep the proxy running and print the /ui URL"
    )
    parser.add_argument("--policy", help="policy for the printed reports (default: default)")
    parser.add_argument("--no-color", action="store_true", help="plain text output")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from proxy.app import create_app
    from proxy.cli._replay import ReplayTransport
    from proxy.config import settings_from_mapping

    recorded = load_recorded()
    colour = not args.no_color and sys.stdout.isatty() and "NO_COLOR" not in os.environ
    print("[demo] starting the proxy; its upstream replays recorded answers", flush=True)
    settings = settings_from_mapping(demo_config(REPLAY_BASE_URL), environ={})
    print("[demo] loading the retrieval index and the bundled NLI model…", flush=True)
    replay = ReplayTransport(Replay(recorded), drip_s=DRIP_SECONDS)
    demo = _Demo(recorded, args.policy, colour=colour, serve=args.serve)
    try:
        asyncio.run(demo.run(create_app(settings, transport=replay)))
    except KeyboardInterrupt:
        if not demo.serving:
            raise  # interrupted before the playground was up: ``main`` reports it
        print("\n[demo] stopping")
    return 0


class _Demo:
    """Asks the proxy the recorded questions and prints the reports, then (``serve``) keeps it
    up until interrupted."""

    def __init__(
        self, recorded: Sequence[RecordedAnswer], policy: str | None, *, colour: bool, serve: bool
    ) -> None:
        self.recorded = recorded
        self.policy = policy
        self.colour = colour
        self.serve = serve
        self.serving = False  # the playground is up: Ctrl+C is the way out, not an interruption

    async def run(self, app: ASGIApp) -> None:
        from proxy.cli._loopback import serving

        async with serving(app) as url:
            await self._ask_all(url)
            if not self.serve:
                print("\nSee the same answers stream in the browser: veriproxy demo --serve")
                return
            self.serving = True
            _print_playground(url, self.recorded)
            await asyncio.Event().wait()  # until Ctrl+C cancels this task

    async def _ask_all(self, url: str) -> None:
        import httpx

        async with httpx.AsyncClient(base_url=url, timeout=REQUEST_TIMEOUT_S) as client:
            for number, item in enumerate(self.recorded, start=1):
                print(f"\n[demo] {number}/{len(self.recorded)} {item.question}", flush=True)
                print(f"       recorded answer showing {item.shows}", flush=True)
                report = await ask(client, item.question, self.policy)
                for line in render_report(report, colour=self.colour):
                    print(line)


async def ask(client: httpx.AsyncClient, question: str, policy: str | None) -> dict[str, Any]:
    """One chat completion through the proxy; returns its ``verification`` report."""
    options: dict[str, Any] = {"policy": policy} if policy else {}
    response = await client.post(
        "/v1/chat/completions",
        json={
            "model": DEMO_MODEL,
            "messages": [{"role": "user", "content": question}],
            "veriproxy": options,
        },
    )
    body = response.json()
    if response.status_code != 200:
        raise SystemExit(f"veriproxy demo: the proxy answered {response.status_code}: {body}")
    report: dict[str, Any] = body["verification"]
    return report


def render_report(report: Mapping[str, Any], *, colour: bool) -> list[str]:
    from policies import DecidedReport
    from policies.replay import decode
    from proxy.cli.check import render

    lines = list(render(decode(DecidedReport, dict(report)), colour=colour))
    rules = ", ".join(report.get("rules_fired") or ()) or "none"
    evidence = ", ".join(ref["pmid"] for ref in report.get("evidence") or ()) or "none"
    lines.append(f"status={report['status']} policy={report['policy']} rules fired: {rules}")
    lines.append(f"evidence used: PMID {evidence}")
    return lines


def _print_playground(url: str, recorded: Sequence[RecordedAnswer]) -> None:
    print(f"\nPlayground: {url}/ui  (model '{DEMO_MODEL}', no key needed; Ctrl+C stops)")
    for item in recorded:
        print(f"  {url}/ui?q={quote(item.question)}", flush=True)


def _normal(text: str) -> str:
    return " ".join(text.split()).casefold()
