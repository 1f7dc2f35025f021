"""What importing a module costs: ``python -X importtime`` in fresh interpreters.

    python bench/import_cost.py [--runs 5] [module ...]    (default: proxy.config pydantic)

For each module, the best of ``--runs`` fresh interpreters: the cumulative import time of the
module's own line (what ``import`` adds once the interpreter is up, ``site`` excluded), the
wall time of ``python -c "import MODULE"`` against ``python -c pass``, and whether onnxruntime,
redis or prometheus_client came with it. The machine's load average is printed beside the
figures: on a shared machine, queueing for a core dominates.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

HEAVY = ("onnxruntime", "redis", "prometheus_client")


def importtime(module: str) -> float:
    """Seconds, the cumulative figure of ``module``'s top-level line."""
    run = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", f"import {module}"],
        capture_output=True,
        text=True,
        check=True,
    )
    for line in run.stderr.splitlines():  # "import time: self | cumulative | name"
        parts = line.split("|")
        if len(parts) == 3 and parts[2].strip() == module:
            return int(parts[1]) / 1e6
    raise RuntimeError(f"no importtime line for {module}")


def wall(code: str) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True)
    return time.perf_counter() - start


def heavy_loaded(module: str) -> list[str]:
    code = f"import {module}, sys; print(*[m for m in {HEAVY!r} if m in sys.modules])"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return run.stdout.split()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("modules", nargs="*", default=["proxy.config", "pydantic"])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f}, best of {args.runs} runs")
    baseline = min(wall("pass") for _ in range(args.runs))
    for module in args.modules:
        cost = min(importtime(module) for _ in range(args.runs))
        extra = min(wall(f"import {module}") for _ in range(args.runs)) - baseline
        heavy = ", ".join(heavy_loaded(module)) or "none"
        print(f"{module:20} importtime {cost:.3f} s  wall +{extra:.3f} s  heavy: {heavy}")


if __name__ == "__main__":
    main()
