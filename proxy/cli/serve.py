"""``veriproxy serve [--config FILE] [--host HOST] [--port PORT] [--workers N]``: run the proxy
under uvicorn.

Without a config file it starts on embedded defaults (127.0.0.1:8080, no model list, unknown
models to ``https://api.openai.com/v1`` with the client's own ``Authorization`` forwarded).
SIGTERM/SIGINT drain: new connections are refused, in-flight streams get up to
``drain_seconds`` to finish, then the process exits.

``--workers N`` (N > 1) runs N processes on one socket under uvicorn's supervisor, each with its
own models (verification is CPU-bound and a process uses about one core for it). Prometheus
runs in multiprocess mode: ``$PROMETHEUS_MULTIPROC_DIR``, or a fresh temporary directory, is
emptied at start and ``/metrics`` on any worker reports the sum of all of them.
"""

from __future__ import annotations

import argparse
import logging
import os
import shutil
import signal
import sys
import tempfile
from pathlib import Path
from types import FrameType
from typing import Any


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("serve", help="run the OpenAI-compatible proxy")
    parser.add_argument("--config", help="YAML config file (default: $VERIPROXY_CONFIG)")
    parser.add_argument("--host", help="bind address (default: the config's, else 127.0.0.1)")
    parser.add_argument("--port", type=int, help="port (default: the config's, else 8080)")
    parser.add_argument(
        "--workers",
        type=_positive,
        default=1,
        help="worker processes sharing the port (default 1; metrics are summed across them)",
    )
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
    options: dict[str, Any] = {
        "host": settings.host,
        "port": settings.port,
        "log_config": None,
        "log_level": settings.log_level,
        "access_log": False,
        "lifespan": "on",
        "ws": "none",
        "timeout_graceful_shutdown": max(1, round(settings.drain_seconds)),
        "server_header": False,
    }
    if args.workers > 1:
        limits = settings.rate_limits
        if settings.redis is None and (not limits.default.unlimited or limits.tenants):
            logging.getLogger("veriproxy").warning(
                "%d workers without redis: each worker counts rate limits on its own, so a key "
                "gets up to %d times its budget",
                args.workers,
                args.workers,
            )
        return _run_workers(args, options)
    config = uvicorn.Config(create_app(settings), **options)
    # uvicorn drains, restores the previous handlers, then re-raises the signal it caught;
    # make that previous handler a clean exit so a drained shutdown reports status 0.
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, _exit_cleanly)
    uvicorn.Server(config).run()
    return 0


def _run_workers(args: argparse.Namespace, options: dict[str, Any]) -> int:
    """N worker processes, each building the app from the same configuration."""
    import uvicorn

    from proxy.config import CONFIG_ENV
    from proxy.metrics import MULTIPROC_ENV

    own_directory = MULTIPROC_ENV not in os.environ
    directory = Path(os.environ.get(MULTIPROC_ENV) or tempfile.mkdtemp(prefix="veriproxy-metrics-"))
    # Values a previous run left there would be summed into this one's.
    for stale in directory.glob("*.db"):
        stale.unlink()
    # The workers are fresh interpreters: they read the config (and these) from the environment.
    os.environ[MULTIPROC_ENV] = str(directory)
    if args.config:
        os.environ[CONFIG_ENV] = str(Path(args.config).resolve())
    try:
        uvicorn.run("proxy.app:app_from_environment", factory=True, workers=args.workers, **options)
    finally:
        if own_directory:
            shutil.rmtree(directory, ignore_errors=True)
    return 0


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def _exit_cleanly(signum: int, frame: FrameType | None) -> None:
    sys.exit(0)
