#!/usr/bin/env bash
# Start the flushsim explorer: JupyterLab on the notebooks, numba warmed first.
#   bash scripts/explorer.sh [extra jupyter lab options]
#   bash scripts/explorer.sh app [extra voila options]   # the explorer alone, as a Voila app
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$REPO"
python -m flushsim warm
if [ "${1:-}" = app ]; then
    shift
    exec voila notebooks/00-explorer.ipynb --Voila.ip="${HOST:-127.0.0.1}" --no-browser "$@"
fi
args=(--ServerApp.ip="${HOST:-127.0.0.1}" --no-browser)
if [ "$(id -u)" = 0 ]; then args+=(--allow-root); fi
exec jupyter lab notebooks/00-explorer.ipynb "${args[@]}" "$@"
