"""``--judge`` and its options for the eval commands: the LLM judge cascade over the bundled
model, as ``verification.verifier.escalate`` configures it in the proxy."""

from __future__ import annotations

import argparse
import os

from verifiers.judge import (
    Cascade,
    EscalationRule,
    EscalationSettings,
    LiteLLMJudgeClient,
)
from verifiers.nli import NLIBackend
from verifiers.windows import WindowSelector


def add_judge_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("LLM judge (the cascade)")
    group.add_argument(
        "--judge",
        metavar="MODEL",
        default=None,
        help="escalate claims to this litellm model, e.g. openai/gpt-4o-mini (default: none)",
    )
    group.add_argument(
        "--judge-api-base",
        metavar="URL",
        default=None,
        help="the judge's OpenAI-compatible base URL (default: the provider's)",
    )
    group.add_argument(
        "--judge-key-env",
        metavar="VAR",
        default=None,
        help="environment variable holding the judge's API key (default: the provider's own)",
    )
    group.add_argument(
        "--escalate-below",
        type=float,
        default=1.0,
        metavar="X",
        help="escalate claims whose bundled confidence is below X (default: %(default)s, all)",
    )
    group.add_argument(
        "--judge-timeout",
        type=float,
        default=60.0,
        metavar="S",
        help="seconds per judge request (default: %(default)s)",
    )


def judge_cascade(
    args: argparse.Namespace, selector: WindowSelector, nli: NLIBackend
) -> Cascade | None:
    """The cascade the options ask for; None without ``--judge``. ``nli`` checks that a
    judge's quote bears on the claim it calls supported."""
    if args.judge is None:
        return None
    from verifiers.judge import LLMEndpoint

    key = os.environ.get(args.judge_key_env) if args.judge_key_env else None
    endpoint = LLMEndpoint(
        args.judge, api_base=args.judge_api_base, api_key=key, timeout_s=args.judge_timeout
    )
    settings = EscalationSettings(
        judge=args.judge,
        when=(EscalationRule(name="cli", confidence_below=args.escalate_below),),
        max_claims=100,
        timeout_seconds=args.judge_timeout,
    )
    return Cascade(settings, LiteLLMJudgeClient(endpoint), selector, nli=nli)
