"""Real-browser tests: JupyterLab and Voilà driven by Debian's chromium through Playwright.

Session fixtures start one JupyterLab (rooted at the repository) and one Voilà standalone server
per notebook under test, each on a free 127.0.0.1 port, with `BOKEH_RESOURCES=inline`,
`FLUSHSIM_FAST=1` and a temporary HOME, Jupyter, IPython and XDG dirs (hermetic). The notebook is
notebooks/00-explorer.ipynb unless `FLUSHSIM_BROWSER_NOTEBOOK` names another (for example
tests/browser/fixture_explorer.ipynb, the stand-in that follows the explorer's contract).

Every test here is marked `browser`; all are skipped when chromium is not installed
(scripts/env.sh installs it when run as root).
"""

from __future__ import annotations

import hashlib
import shutil
import tempfile
from pathlib import Path

import helpers
import pytest

HERE = Path(__file__).resolve().parent

# The stand-in notebook is driven in the browser, not executed by nbval.
collect_ignore = ["fixture_explorer.ipynb"]


def pytest_collection_modifyitems(config, items):
    chromium = helpers.chromium_path()
    skip = pytest.mark.skip(
        reason="Debian chromium is not installed (apt-get install chromium; "
        "scripts/env.sh does it as root): browser tests skipped"
    )
    for item in items:
        if HERE not in Path(item.path).resolve().parents:
            continue
        item.add_marker(pytest.mark.browser)
        if chromium is None:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args, browser_home):
    """pytest-playwright: launch Debian's chromium, never a downloaded one, with a temp HOME."""
    args = helpers.launch_args(browser_home / "chromium-home")
    return {**browser_type_launch_args, **args}


@pytest.fixture(scope="session")
def browser_home():
    """A temporary HOME for the servers, their kernels and settings; removed at the end."""
    home = Path(tempfile.mkdtemp(prefix="flushsim-browser-home-"))
    yield home
    shutil.rmtree(home, ignore_errors=True)


@pytest.fixture(scope="session")
def server_env(browser_home):
    env = helpers.hermetic_env(browser_home, FLUSHSIM_FAST="1")
    # Compile numba's kernels now, so that no page waits out a cold compile.
    helpers.warm_numba(env)
    return env


@pytest.fixture(scope="session", params=helpers.notebooks_under_test())
def explorer_notebook(request):
    """Path of the notebook under test, relative to the repository; unchanged by the tests."""
    notebook = request.param
    path = helpers.REPO / notebook
    assert path.is_file(), f"{notebook} does not exist (FLUSHSIM_BROWSER_NOTEBOOK?)"
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    yield notebook
    # Lab's autosave is off (helpers.lab_app_settings); make sure no outputs were written back.
    assert hashlib.sha256(path.read_bytes()).hexdigest() == digest, f"{notebook} was modified"


@pytest.fixture(scope="session")
def lab_server(server_env, browser_home):
    server = helpers.start_lab(browser_home, server_env)
    yield server
    server.stop()


@pytest.fixture
def lab(lab_server):
    """The JupyterLab server; every session (and kernel) a test opened is shut down after it."""
    yield lab_server
    helpers.shutdown_sessions(lab_server)


@pytest.fixture(scope="session")
def voila_server(explorer_notebook, server_env):
    server = helpers.start_voila(explorer_notebook, server_env)
    yield server
    server.stop()


@pytest.fixture
def console_errors(page, request):
    """Console errors and uncaught exceptions of the page, known cosmetic ones filtered out.

    All of them are saved to test-artifacts/<test>-console.log.
    """
    errors = helpers.ConsoleErrors(page)
    yield errors
    errors.save(f"{request.node.name}-console")
