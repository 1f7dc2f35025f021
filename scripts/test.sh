#!/usr/bin/env bash
# Install everything the tests need, start their services, and run the suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh dev
bash scripts/services.sh
# openai-node and the Vercel AI SDK, pinned by tests/node/package-lock.json (tests/proxy/test_client_matrix_e2e.py).
npm ci --prefix tests/node --no-audit --no-fund --loglevel=error
. .venv/bin/activate
python -m pytest -q "$@"
