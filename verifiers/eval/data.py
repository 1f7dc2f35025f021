"""Where the public datasets are: one setting for the eval and train commands, the benchmarks
and the tests.

``$VERIPROXY_DATA_DIR`` when set, else ``../shared/data`` (the datasets sit beside a repository
checkout). A relative setting is relative to the current directory for the commands (so
``../shared/data`` is right from the repository root) and to the checkout for the benchmarks
and the tests. A command's ``--data-dir`` overrides it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

DATA_DIR_ENV = "VERIPROXY_DATA_DIR"
DEFAULT_DATA_DIR = "../shared/data"


def data_dir(relative_to: Path | None = None, environ: Mapping[str, str] = os.environ) -> Path:
    """The datasets' directory as set; a relative setting is taken from ``relative_to`` when
    given, else left relative to the current directory."""
    path = Path(environ.get(DATA_DIR_ENV) or DEFAULT_DATA_DIR)
    return path if relative_to is None else (relative_to / path).resolve()
