#!/usr/bin/env bash
# The whole test suite, exactly as CI runs it:
#   1. ruff (lint and format, notebooks included);
#   2. the kernel tests as pure Python (NUMBA_DISABLE_JIT=1);
#   3. pytest: unit, property, seed reproductions, CLI, and every notebook top to bottom (nbval).
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$REPO"
echo "== ruff"
ruff check .
ruff format --check .
echo "== pytest, kernel tests without numba (NUMBA_DISABLE_JIT=1)"
set +e
NUMBA_DISABLE_JIT=1 python -m pytest tests -m kernel -q
status=$?
set -e
if [ "$status" -ne 0 ] && [ "$status" -ne 5 ]; then exit "$status"; fi
echo "== pytest: everything, notebooks included"
FLUSHSIM_FAST=1 python -m pytest tests notebooks --nbval-lax --nbval-current-env "$@"
