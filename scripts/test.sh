#!/usr/bin/env bash
# Install everything the tests need, start their services, and run the suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh dev
bash scripts/services.sh
. .venv/bin/activate
python -m pytest -q "$@"
