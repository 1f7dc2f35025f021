#!/usr/bin/env bash
# Install everything the tests need, start their services, and run the suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh dev
bash scripts/services.sh
# openai-node and the Vercel AI SDK, pinned by tests/node/package-lock.json (tests/proxy/test_client_matrix_e2e.py).
npm ci --prefix tests/node --no-audit --no-fund --loglevel=error
. .venv/bin/activate
# Two workers (pytest-xdist), each given whole test files (--dist loadfile), so a module's
# fixtures -- a trained tiny model, one proxy for a matrix -- are built once. The tests keep
# their own state apart (Redis keys under a prefix of their own, a PostgreSQL schema each, free
# ports, tmp_path), as they must when several people run them on one machine.
# VERIPROXY_TEST_WORKERS=0 runs them in this process; arguments after it pass to pytest.
python -m pytest -q -n "${VERIPROXY_TEST_WORKERS:-2}" --dist loadfile "$@"
