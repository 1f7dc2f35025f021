"""``veriproxy serve [--config FILE] [--host HOST] [--port PORT]``: run the proxy under uvicorn.

Without a config file it starts on embedded defaults (127.0.0.1:8080, no model list, unknown
models to ``https://api.openai.com/v1`` with the client's own ``Authorization`` forwarded).
SIGTERM/SIGINT drain: new connections are refused, in-flight streams get up to
``drain_seconds`` to finish, then the process exits.
"""

from __future__ import annotations

import argparse
import signal
import sys
from types import FrameType


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("serve", help="run the OpenAI-compatible proxy")
    parser.add_argument("--config", help="YAML config file (default: $VERIPROXY_CONFIG)")
    parser.add_argument("--host", help="bind address (default: the config's, else 127.0.0.1)")
    parser.add_argument("--port", type=int, help="port (default: the config's, else 8080)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import uvicorn

    from proxy.app import create_app
    from proxy.auth import exposure_problem
    from proxy.config import ConfigError, load_settings
    from proxy.logs import configure_logging

    try:
        settings = load_settings(args.config, overrides={"host": args.host, "port": args.port})
    except ConfigError as exc:
        print(f"veriproxy: {exc}", file=sys.stderr)
        return 2
    problem = exposure_problem(
        settings.host, settings.auth.store is not None, settings.auth.allow_unauthenticated
    )
    if problem is not None:
        print(f"veriproxy: {problem}", file=sys.stderr)
        return 2
    configure_logging(settings.log_level, settings.secrets())
    config = uvicorn.Config(
        create_app(settings),
        host=settings.host,
        port=settings.port,
        log_config=None,
        log_level=settings.log_level,
        access_log=False,
        lifespan="on",
        ws="none",
        timeout_graceful_shutdown=max(1, round(settings.drain_seconds)),
        server_header=False,
    )
    # uvicorn drains, restores the previous handlers, then re-raises the signal it caught;
    # make that previous handler a clean exit so a drained shutdown reports status 0.
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, _exit_cleanly)
    uvicorn.Server(config).run()
    return 0


def _exit_cleanly(signum: int, frame: FrameType | None) -> None:
    sys.exit(0)
