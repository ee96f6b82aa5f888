#!/usr/bin/env bash
# The whole test suite, exactly as CI runs it:
#   1. ruff (lint and format, notebooks included);
#   2. the kernel tests as pure Python (NUMBA_DISABLE_JIT=1), on the second core, while
#   3. pytest runs everything: unit, property, seed reproductions, CLI, live recorder (a private
#      MariaDB), sweeps, browser and every notebook top to bottom (nbval).
# Both logs are printed at the end, the full run's last; the exit status is the first failure's.
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$REPO"
echo "== ruff"
ruff check .
ruff format --check .
logs="$(mktemp -d)"
echo "== pytest, kernel tests without numba (NUMBA_DISABLE_JIT=1), in the background"
NUMBA_DISABLE_JIT=1 python -m pytest tests -m kernel -q > "$logs/nojit.log" 2>&1 &
nojit_pid=$!
trap 'kill "$nojit_pid" 2>/dev/null || true' EXIT  # an interrupted run leaves nothing behind
echo "== pytest: everything, notebooks included (output below when both are done)"
set +e
FLUSHSIM_FAST=1 python -m pytest tests notebooks --nbval-lax --nbval-current-env "$@" \
    > "$logs/full.log" 2>&1
full=$?
wait "$nojit_pid"
nojit=$?
set -e
echo "== kernel tests without numba (exit $nojit)"
cat "$logs/nojit.log"
echo "== everything, notebooks included (exit $full)"
cat "$logs/full.log"
rm -rf "$logs"
# pytest's 5 means "no test selected": not a failure of the kernel leg
if [ "$nojit" -ne 0 ] && [ "$nojit" -ne 5 ]; then exit "$nojit"; fi
exit "$full"
