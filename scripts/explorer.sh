#!/usr/bin/env bash
# Start the flushsim explorer: JupyterLab on the notebooks, numba warmed first.
#   bash scripts/explorer.sh [extra jupyter lab options]
#   bash scripts/explorer.sh app [extra voila options]   # the explorer and lessons as Voila apps
# HOST (default 127.0.0.1) is the address to listen on. Both ask for a token (printed in the
# URL at start; TOKEN=... sets it); the app also culls kernels idle for CULL_IDLE_S seconds
# (600) and runs at most MAX_KERNELS at once (8; a visit past it gets HTTP 503). README.md,
# "Security", says what is exposed.
set -euo pipefail
host="${HOST:-127.0.0.1}"
token=()
if [ -n "${TOKEN+set}" ]; then
    case "$host" in
        127.0.0.1 | localhost | ::1) ;;
        *)
            if [ -z "$TOKEN" ]; then
                echo "error: TOKEN is empty and HOST=$host is not the loopback: anyone who" \
                    "reaches the port could run the explorer; set a token or HOST=127.0.0.1" >&2
                exit 2
            fi
            ;;
    esac
fi
source "$(dirname "$0")/env.sh"
cd "$REPO"
export PYTHONPATH="$REPO${PYTHONPATH:+:$PYTHONPATH}"  # this checkout, for voila and its kernels
python -m flushsim warm
if [ "${1:-}" = app ]; then
    shift
    if [ -n "${TOKEN+set}" ]; then token=(--Voila.token="$TOKEN"); else token=(--Voila.auto_token=True); fi
    # the folder, not one notebook: the explorer's links to the lessons then open them (as
    # apps); a single-notebook Voila answers 403 to any other notebook
    echo "the explorer is at /voila/render/00-explorer.ipynb; / lists it and the lessons"
    exec voila notebooks/ --Voila.ip="$host" --no-browser "${token[@]}" \
        --VoilaConfiguration.multi_kernel_manager_class=flushsim.serving.CappedKernelManager \
        --CappedKernelManager.max_kernels="${MAX_KERNELS:-8}" \
        --MappingKernelManager.cull_idle_timeout="${CULL_IDLE_S:-600}" \
        --MappingKernelManager.cull_interval="${CULL_INTERVAL_S:-60}" \
        "$@"
fi
args=(--ServerApp.ip="$host" --no-browser)
if [ -n "${TOKEN+set}" ]; then args+=(--IdentityProvider.token="$TOKEN"); fi
if [ "$(id -u)" = 0 ]; then args+=(--allow-root); fi
exec jupyter lab notebooks/00-explorer.ipynb "${args[@]}" "$@"
