# Sourced by explorer.sh and test.sh: a project venv with everything installed, idempotent.
# - .venv/ in the checkout, created with the machine's python3 (3.11 or newer);
# - `pip install -e '.[all]'` again only when pyproject.toml changed;
# - numba's cache in .numba_cache/<hash of the kernel sources>, as flushsim/numba_cache.py
#   names it (importing flushsim picks the same folder when NUMBA_CACHE_DIR is unset).
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PY="${PYTHON:-python3}"
if ! "$PY" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
    echo "flushsim needs Python 3.11 or newer as '$PY' (set PYTHON=/path/to/python3.11)" >&2
    return 1 2>/dev/null || exit 1
fi
if [ ! -x "$REPO/.venv/bin/python" ]; then
    echo "creating $REPO/.venv" >&2
    "$PY" -m venv "$REPO/.venv"
fi
# shellcheck disable=SC1091
source "$REPO/.venv/bin/activate"
stamp="$REPO/.venv/.flushsim-installed"
want="$(sha256sum "$REPO/pyproject.toml" | cut -c1-16)"
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    echo "installing flushsim and its dependencies into .venv (about a minute)" >&2
    python -m pip install --quiet --upgrade pip
    python -m pip install --quiet -e "$REPO[all]"
    echo "$want" > "$stamp"
fi
# The browser tests (tests/browser) drive Debian's chromium; never `playwright install`.
if ! command -v chromium >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "installing Debian's chromium for the browser tests (apt-get, about a minute)" >&2
        apt-get update -qq && apt-get install -y -qq chromium >/dev/null \
            || echo "warning: installing chromium failed: browser tests will be skipped" >&2
    else
        echo "warning: no chromium and not root to install it: browser tests will be skipped" >&2
    fi
fi
# The recorder's end-to-end test starts a private MariaDB from Debian's mariadb-server.
# shellcheck disable=SC1091
source "$REPO/scripts/mariadb.sh"
# the one definition of the folder (a plain `python -m flushsim` uses the same)
NUMBA_CACHE_DIR="$(python "$REPO/flushsim/numba_cache.py")"
export NUMBA_CACHE_DIR
export BOKEH_RESOURCES="${BOKEH_RESOURCES:-inline}"
# JupyterLab reads jupyter_server_config.py (notebooks saved without outputs) only from here.
export JUPYTER_CONFIG_PATH="$REPO${JUPYTER_CONFIG_PATH:+:$JUPYTER_CONFIG_PATH}"
