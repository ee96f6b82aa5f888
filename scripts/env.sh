# Sourced by explorer.sh and test.sh: a project venv with everything installed, idempotent.
# - .venv/ in the checkout, created with the machine's python3 (3.11 or newer);
# - `pip install -e '.[all]'` again only when pyproject.toml changed;
# - numba's cache in .numba_cache/<hash of the kernel sources>: numba does not notice a change
#   in a called function of another module nor in a global constant, so a new hash means a
#   fresh cache. The kernel's constants also come from flushsim/schema.py and the knob table
#   it derives the knob vector from (flushsim/knob_spec.py): both are hashed too.
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
kernels="$(cat "$REPO"/flushsim/kernels/*.py "$REPO"/flushsim/schema.py \
    "$REPO"/flushsim/knob_spec.py | sha256sum | cut -c1-12)"
export NUMBA_CACHE_DIR="$REPO/.numba_cache/$kernels"
export BOKEH_RESOURCES="${BOKEH_RESOURCES:-inline}"
# JupyterLab reads jupyter_server_config.py (notebooks saved without outputs) only from here.
export JUPYTER_CONFIG_PATH="$REPO${JUPYTER_CONFIG_PATH:+:$JUPYTER_CONFIG_PATH}"
