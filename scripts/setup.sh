#!/usr/bin/env bash
# Create .venv and install veriproxy. `setup.sh` installs the runtime; `setup.sh dev` adds the
# training and test tools. torch is installed first, pinned, because an unpinned torch pulls a
# multi-GB CUDA build; it is only needed for training and user-supplied Hugging Face models.
set -euo pipefail
cd "$(dirname "$0")/.."
extra="${1:-}"
PYTHON="${PYTHON:-python3.11}"
command -v "$PYTHON" >/dev/null 2>&1 || PYTHON=python3
if [ ! -x .venv/bin/python ]; then
  echo "[setup] creating .venv with $PYTHON"
  "$PYTHON" -m venv .venv
fi
. .venv/bin/activate
python -m pip install --quiet --upgrade pip
if [ "$extra" = "dev" ]; then
  echo "[setup] installing torch 2.13.0 (CPU build)"
  python -m pip install --quiet "torch==2.13.0"
  echo "[setup] installing veriproxy with dev extras"
  python -m pip install --quiet -e ".[dev]"
else
  echo "[setup] installing veriproxy"
  python -m pip install --quiet -e .
fi
echo "[setup] done: $(veriproxy --help | head -n 1)"
