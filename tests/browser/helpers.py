"""Real-browser helpers: start JupyterLab and Voilà, and drive the explorer in Chromium.

Shared by the browser tests (tests/browser) and the latency benchmark
(benchmarks/explorer_latency.py). The recipe is docs/development.md's browser tests: Debian's
chromium (never `playwright install`), servers on free 127.0.0.1 ports with `BOKEH_RESOURCES=inline`
and a temporary HOME, kernels idle (asked of /api/kernels) before Run All, the notebook focused
before the Run menu is used, and Bokeh sources read in the page (a `Map` in Lab, a plain object in
Voilà).

The explorer's contract, which these helpers rely on: every knob has the DOM class
`fs-knob-<knob>`, a Bokeh ColumnDataSource is named `pool`, and an element with the class
`fs-status` reads `ready` once a run has finished and been drawn.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "test-artifacts"
DEFAULT_NOTEBOOK = "notebooks/00-explorer.ipynb"
FIXTURE_NOTEBOOK = "tests/browser/fixture_explorer.ipynb"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
READY = "ready"

# Console errors that are known and cosmetic (docs/development.md, browser tests): Voilà 0.5 bundles
# JupyterLab 4.2 core packages and complains about shared singletons, and it asks a CDN for its
# fontawesome CSS, which fails offline. Matched against "<text> @ <url>".
COSMETIC_CONSOLE = (
    re.compile(r"Unsatisfied version .* of shared singleton module"),
    re.compile(r"font-?awesome", re.IGNORECASE),
)


def notebooks_under_test() -> list[str]:
    """Notebook paths (relative to the repository) that the browser tests drive.

    `FLUSHSIM_BROWSER_NOTEBOOK` overrides the default explorer; several paths may be given,
    separated by commas.
    """
    raw = os.environ.get("FLUSHSIM_BROWSER_NOTEBOOK", "").strip() or DEFAULT_NOTEBOOK
    return [p.strip() for p in raw.split(",") if p.strip()]


def chromium_path() -> str | None:
    """Debian's chromium, or None when it is not installed."""
    found = shutil.which("chromium")
    if found:
        return found
    return "/usr/bin/chromium" if os.access("/usr/bin/chromium", os.X_OK) else None


def launch_args(home: Path) -> dict[str, Any]:
    """Keyword arguments for `playwright.chromium.launch` that use Debian's chromium.

    Chromium gets `home` as HOME and XDG dirs: it writes `~/.config/chromium` (crash reports) and
    `~/.cache/dconf` otherwise.
    """
    env = dict(os.environ)
    for name, sub in (("HOME", ""), ("XDG_CONFIG_HOME", ".config"), ("XDG_CACHE_HOME", ".cache")):
        path = home / sub
        path.mkdir(parents=True, exist_ok=True)
        env[name] = str(path)
    return {
        "executable_path": chromium_path(),
        "headless": True,
        "args": list(CHROMIUM_ARGS),
        "env": env,
    }


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def hermetic_env(home: Path, **extra: str) -> dict[str, str]:
    """The environment for Jupyter servers (and their kernels) with every user dir under `home`.

    JupyterLab, Chromium, IPython and npm otherwise write into the real home (docs/development.md,
    browser tests). NUMBA_CACHE_DIR is kept from the environment so that kernels find the warm
    cache.
    """
    env = dict(os.environ)
    dirs = {
        "HOME": home,
        "XDG_CONFIG_HOME": home / ".config",
        "XDG_CACHE_HOME": home / ".cache",
        "XDG_DATA_HOME": home / ".local" / "share",
        "JUPYTER_CONFIG_DIR": home / ".jupyter",
        "JUPYTER_DATA_DIR": home / ".local" / "share" / "jupyter",
        "JUPYTER_RUNTIME_DIR": home / ".local" / "share" / "jupyter" / "runtime",
        "IPYTHONDIR": home / ".ipython",
    }
    for name, path in dirs.items():
        path.mkdir(parents=True, exist_ok=True)
        env[name] = str(path)
    env["BOKEH_RESOURCES"] = "inline"
    env["JUPYTER_PLATFORM_DIRS"] = "1"
    env["PYTHONUNBUFFERED"] = "1"
    env.pop("JUPYTER_TOKEN", None)
    env.update(extra)
    return env


def lab_app_settings(home: Path) -> Path:
    """A JupyterLab app settings dir holding binder/overrides.json plus test-only settings.

    The windowing mode comes from binder/overrides.json, as on Binder (the environment variable
    `FLUSHSIM_BROWSER_WINDOWING` overrides it, to check that the scrolling test catches the
    pitfall). Autosave is switched off so
    that a test never writes outputs into the notebook under test, and the news toast is not
    offered.
    """
    settings = home / "lab-app-settings"
    settings.mkdir(parents=True, exist_ok=True)
    overrides: dict[str, Any] = {}
    binder = REPO / "binder" / "overrides.json"
    if binder.is_file():
        overrides.update(json.loads(binder.read_text()))
    mode = os.environ.get("FLUSHSIM_BROWSER_WINDOWING")  # e.g. "full", to see the pitfall
    if mode:
        overrides.setdefault("@jupyterlab/notebook-extension:tracker", {})["windowingMode"] = mode
    overrides.setdefault("@jupyterlab/docmanager-extension:plugin", {})["autosave"] = False
    overrides.setdefault("@jupyterlab/apputils-extension:notification", {})["fetchNews"] = "false"
    (settings / "overrides.json").write_text(json.dumps(overrides, indent=2))
    return settings


@dataclass
class Server:
    """A Jupyter server process (JupyterLab or Voilà) that this process started."""

    name: str
    proc: subprocess.Popen
    port: int
    token: str
    log_path: Path
    notebook: str = ""
    _log: Any = field(default=None, repr=False)

    @property
    def base(self) -> str:
        """The server's root URL."""
        return f"http://127.0.0.1:{self.port}"

    def url(self, path: str = "/", **query: str) -> str:
        """URL of `path` with the token (and `query`) attached."""
        params = urllib.parse.urlencode({"token": self.token, **query})
        return f"{self.base}{path}?{params}"

    def api(self, path: str, method: str = "GET") -> Any:
        """JSON answer of a REST call to the server (None for an empty answer)."""
        req = urllib.request.Request(self.url(path), method=method)
        req.add_header("Authorization", f"token {self.token}")
        with urllib.request.urlopen(req, timeout=10) as resp:
            body = resp.read()
        return json.loads(body) if body else None

    def log_tail(self, lines: int = 40) -> str:
        """Last lines of the server log, for error messages."""
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])

    def kernels(self) -> list[tuple[int, str]]:
        """(pid, kernel id) of the kernels this server started, oldest first.

        The id comes from the kernel's connection file name (`kernel-<id>.json`).
        """
        import psutil

        try:
            children = psutil.Process(self.proc.pid).children(recursive=True)
        except psutil.NoSuchProcess:
            return []
        found = []
        for child in children:
            try:
                cmdline = child.cmdline()
                if not any("ipykernel" in part for part in cmdline):
                    continue
                match = re.search(r"kernel-([0-9a-f-]+)\.json", " ".join(cmdline))
                found.append((child.create_time(), child.pid, match.group(1) if match else ""))
            except psutil.Error:
                continue
        return [(pid, kernel_id) for _, pid, kernel_id in sorted(found)]

    def kernel_pids(self) -> list[int]:
        """Process ids of the kernels this server started, oldest first."""
        return [pid for pid, _ in self.kernels()]

    def stop(self, timeout: float = 15) -> None:
        """Terminate the server (it shuts its kernels down), then kill what is left of it."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout)
        try:  # kernels left in the server's own process group
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        if self._log is not None:
            self._log.close()


def _start(
    name: str, cmd: list[str], port: int, token: str, env: dict[str, str], probe: str, notebook: str
) -> Server:
    ARTIFACTS.mkdir(exist_ok=True)
    log_path = ARTIFACTS / f"{name}-server.log"
    log = log_path.open("w")
    proc = subprocess.Popen(
        cmd, cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
    )
    server = Server(name, proc, port, token, log_path, notebook, log)
    try:
        wait_http(server, probe, timeout=90)
    except BaseException:
        server.stop()
        raise
    return server


def wait_http(server: Server, path: str, timeout: float) -> None:
    """Poll `path` until the server answers HTTP at all (any status code)."""
    deadline = time.monotonic() + timeout
    while True:
        if server.proc.poll() is not None:
            raise RuntimeError(
                f"{server.name} exited with {server.proc.returncode}:\n{server.log_tail()}"
            )
        try:
            with urllib.request.urlopen(server.url(path), timeout=5):
                return
        except urllib.error.HTTPError:
            return
        except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
            pass
        if time.monotonic() > deadline:
            raise TimeoutError(f"{server.name} not up after {timeout} s:\n{server.log_tail()}")
        time.sleep(0.2)


def start_lab(home: Path, env: dict[str, str]) -> Server:
    """JupyterLab rooted at the repository, on a free port (docs/development.md, browser tests)."""
    port, token = free_port(), secrets.token_hex(16)
    cmd = [
        sys.executable,
        "-m",
        "jupyterlab",
        "--allow-root",
        "--no-browser",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={REPO}",
        f"--LabApp.app_settings_dir={lab_app_settings(home)}",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        "--LabApp.news_url=None",
        "--LabApp.extension_manager=readonly",
    ]
    return _start("lab", cmd, port, token, env, "/api/status", "")


def start_voila(notebook: str, env: dict[str, str]) -> Server:
    """Voilà standalone serving `notebook` (relative to the repository) at `/`."""
    port, token = free_port(), secrets.token_hex(16)
    cmd = [
        sys.executable,
        "-m",
        "voila",
        notebook,
        "--no-browser",
        f"--port={port}",
        "--Voila.ip=127.0.0.1",
        "--Voila.port_retries=0",
        f"--token={token}",
    ]
    # Any static path answers once the server is up; `/` itself would start a kernel.
    return _start("voila", cmd, port, token, env, "/voila/static/readiness-probe", notebook)


def warm_numba(env: dict[str, str], timeout: float = 900) -> float:
    """Compile flushsim's kernels into NUMBA_CACHE_DIR before any page waits on them."""
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "flushsim", "warm"],
        cwd=REPO,
        env=env,
        check=True,
        timeout=timeout,
        capture_output=True,
    )
    return time.perf_counter() - start


# -- JupyterLab ------------------------------------------------------------------------------------


def kernel_models(server: Server, timeout: float = 10) -> list[dict[str, Any]]:
    """The server's `/api/kernels` answer, asked again while it is a 500 (up to `timeout` s).

    jupyter_server 2.21 answers 500 (TraitError: last_activity is None) to a poll that lands
    while a kernel starts: jupyter_client lists the kernel before the server sets its
    last_activity. 5 of 3,551 polls during 8 kernel starts got it here.
    """
    deadline = time.monotonic() + timeout
    while True:
        try:
            return server.api("/api/kernels")
        except urllib.error.HTTPError as err:
            if err.code != 500 or time.monotonic() > deadline:
                raise
        time.sleep(0.1)


def wait_kernels_idle(server: Server, timeout: float = 120, page: Any = None) -> None:
    """Wait until the server has at least one kernel and every kernel is idle.

    The toolbar says "idle" before the kernel is ready, and a Run All sent then is dropped
    (docs/development.md, browser tests), so ask the server. A kernel-selection dialog, if the
    notebook names no kernel, is accepted with its default.
    """
    deadline = time.monotonic() + timeout
    states: list[str] = []
    while time.monotonic() < deadline:
        states = [k.get("execution_state") for k in kernel_models(server)]
        if states and all(s == "idle" for s in states):
            return
        if page is not None:
            select = page.locator(".jp-Dialog .jp-mod-accept")
            if select.count():
                select.first.click()
        time.sleep(0.25)
    raise TimeoutError(f"kernels not idle after {timeout} s: {states}\n{server.log_tail()}")


def shutdown_sessions(server: Server) -> None:
    """Delete every session (and its kernel) of a JupyterLab server."""
    for session in server.api("/api/sessions"):
        try:
            server.api(f"/api/sessions/{session['id']}", method="DELETE")
        except urllib.error.HTTPError:
            pass


def dismiss_news_toast(page: Any) -> None:
    """Answer "No" to JupyterLab's "get notified about official Jupyter news?" toast if shown."""
    button = page.get_by_role("button", name="No", exact=True)
    try:
        if button.count() and button.first.is_visible():
            button.first.click(timeout=2000)
    except Exception:  # the toast may vanish between the check and the click
        pass


def open_lab_notebook(page: Any, server: Server, notebook: str, timeout: float = 120) -> None:
    """Open `notebook` in JupyterLab with a reset workspace and wait for its kernel."""
    page.goto(server.url(f"/lab/tree/{notebook}", reset=""), timeout=timeout * 1000)
    page.locator(".jp-NotebookPanel .jp-Cell").first.wait_for(timeout=timeout * 1000)
    wait_kernels_idle(server, timeout, page)
    dismiss_news_toast(page)


def run_all_cells(page: Any, server: Server, timeout: float = 30) -> None:
    """Run → Run All Cells, with the notebook focused, and wait until a kernel has started on it.

    Clicking a cell first makes the notebook the current widget; otherwise the Run menu only offers
    a disabled, generic "Run All". That the run started is asked of the server (a kernel's
    `last_activity` moves, or it is busy), since with windowing the cells may not be in the DOM.
    """
    before = {k["id"]: k.get("last_activity") for k in kernel_models(server)}
    page.locator(".jp-NotebookPanel .jp-Cell").first.click()
    page.locator(".lm-MenuBar-itemLabel:text-is('Run')").click()
    item = ".lm-Menu-item:not(.lm-mod-disabled) .lm-Menu-itemLabel:text-is('Run All Cells')"
    page.locator(item).click()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for kernel in kernel_models(server):
            if kernel.get("execution_state") == "busy":
                return
            if kernel.get("last_activity") != before.get(kernel["id"]):
                return
        time.sleep(0.1)
    raise TimeoutError(f"Run All Cells did not start the kernel within {timeout} s")


def reveal(page: Any, selector: str, timeout: float = 120) -> Any:
    """Scroll `selector` into view and return its locator, searching a windowed notebook.

    In JupyterLab's `full` windowing mode the cells far out of view are hidden or not in the DOM,
    so a selector that matches nothing visible is searched for by scrolling the notebook from top
    to bottom (again and again until `timeout`, since the cell may not have run yet). An element
    replaced while it is scrolled to (the explorer's status goes from "running…" to "ready" just
    after it is first drawn, and ipywidgets renders the new text as a new element) is looked up
    again.
    """
    from playwright.sync_api import Error as PlaywrightError

    locator = page.locator(selector)
    scroller = page.locator(".jp-NotebookPanel .jp-WindowedPanel-outer")
    deadline = time.monotonic() + timeout

    def shown() -> bool:
        return bool(locator.count()) and locator.first.is_visible()

    while True:
        if shown():
            try:
                locator.first.scroll_into_view_if_needed()
                return locator.first
            except PlaywrightError as exc:
                if "not attached" not in str(exc) or time.monotonic() > deadline:
                    raise
                continue
        if time.monotonic() > deadline:
            raise AssertionError(f"{selector!r} did not appear within {timeout} s")
        if scroller.count():
            height, view = scroller.first.evaluate("e => [e.scrollHeight, e.clientHeight]")
            for top in range(0, int(height) + 1, max(int(view * 0.8), 100)):
                scroller.first.evaluate("(e, top) => { e.scrollTop = top; }", top)
                page.wait_for_timeout(150)
                if shown():
                    break
        else:
            page.wait_for_timeout(250)


# -- Voilà -----------------------------------------------------------------------------------------


def open_voila(page: Any, server: Server, timeout: float = 120) -> None:
    """Open the Voilà app (which runs the notebook in a fresh kernel)."""
    page.goto(server.url("/"), timeout=timeout * 1000, wait_until="commit")


# -- The explorer's contract -----------------------------------------------------------------------

_READ_COLUMN_JS = """([name, column]) => {
    const docs = (window.Bokeh && window.Bokeh.documents) || [];
    for (const doc of docs) {
        const model = doc.get_model_by_name(name);
        if (!model) continue;
        const data = model.data;
        const values = typeof data.get === 'function' ? data.get(column) : data[column];
        return values == null ? null : Array.from(values, Number);
    }
    return null;
}"""

_STATUS_JS = """() => {
    const nodes = [...document.querySelectorAll('.fs-status')];
    if (!nodes.length) return null;
    return nodes.map(n => n.textContent.trim()).join('|');
}"""


def read_source_column(page: Any, name: str, column: str) -> list[float] | None:
    """Values of `column` in the Bokeh ColumnDataSource called `name`, or None."""
    return page.evaluate(_READ_COLUMN_JS, [name, column])


def wait_source_column(page: Any, name: str, column: str, timeout: float = 60) -> list[float]:
    """Wait until the source `name` exists in the page and has a non-empty `column`."""
    try:
        page.wait_for_function(
            f"args => {{ const v = ({_READ_COLUMN_JS})(args); return v !== null && v.length; }}",
            arg=[name, column],
            timeout=timeout * 1000,
        )
    except Exception as exc:
        docs = page.evaluate("() => window.Bokeh ? (window.Bokeh.documents || []).length : null")
        where = (
            "BokehJS is not loaded (no output_notebook()? CDN unreachable?)"
            if docs is None
            else f"{docs} Bokeh document(s) in the page"
        )
        raise AssertionError(
            f"no column {column!r} in a Bokeh source named {name!r} after {timeout} s: {where}"
        ) from exc
    return read_source_column(page, name, column)


def wait_source_column_changed(
    page: Any, name: str, column: str, old: list[float], timeout: float = 60
) -> list[float]:
    """Wait until `column` of source `name` differs from `old`; return the new values."""
    try:
        page.wait_for_function(
            f"""([name, column, old]) => {{
                const v = ({_READ_COLUMN_JS})([name, column]);
                return v !== null && (v.length !== old.length || v.some((x, i) => x !== old[i]));
            }}""",
            arg=[name, column, old],
            timeout=timeout * 1000,
            polling="raf",
        )
    except Exception as exc:
        raise AssertionError(
            f"column {column!r} of source {name!r} did not change within {timeout} s "
            f"(status: {status_text(page)!r})"
        ) from exc
    return read_source_column(page, name, column)


def status_text(page: Any) -> str | None:
    """Text of the `fs-status` element(s) ('|'-joined), or None when there is none."""
    return page.evaluate(_STATUS_JS)


def wait_status_ready(page: Any, timeout: float = 120) -> None:
    """Wait until every `.fs-status` element reads exactly `ready`."""
    try:
        page.wait_for_function(
            f"""() => {{
                const nodes = [...document.querySelectorAll('.fs-status')];
                return nodes.length > 0 && nodes.every(n => n.textContent.trim() === '{READY}');
            }}""",
            timeout=timeout * 1000,
        )
    except Exception as exc:
        raise AssertionError(
            f"status never became {READY!r} in {timeout} s (it reads {status_text(page)!r})"
        ) from exc


def knob_handle(page: Any, knob: str) -> Any:
    """Locator of the slider handle of the knob control `fs-knob-<knob>`."""
    return page.locator(f".fs-knob-{knob} .noUi-handle").first


def knob_step_key(page: Any, knob: str, key: str = "ArrowRight") -> str:
    """`key`, or the other arrow when the knob's slider already sits at that end.

    Read from the handle's aria-valuenow/min/max (noUiSlider sets them); without them, `key`.
    """
    aria = knob_handle(page, knob).evaluate(
        """el => ['aria-valuenow', 'aria-valuemin', 'aria-valuemax']
                 .map(a => parseFloat(el.getAttribute(a)))"""
    )
    now, low, high = aria
    if any(v is None or v != v for v in aria):  # missing attribute: NaN (or null)
        return key
    if key == "ArrowRight" and now >= high:
        return "ArrowLeft"
    if key == "ArrowLeft" and now <= low:
        return "ArrowRight"
    return key


def move_knob(page: Any, knob: str, key: str = "ArrowRight") -> str:
    """Focus the knob's slider handle and press `key` (one step), or the other arrow at an end.

    Returns the key pressed.
    """
    handle = knob_handle(page, knob)
    handle.wait_for(state="attached")
    key = knob_step_key(page, knob, key)
    handle.focus()
    page.keyboard.press(key)
    return key


# -- Figures, screenshots and console errors -------------------------------------------------------


def figure_canvas(page: Any, scope: str = "") -> Any:
    """Locator of the first Bokeh figure canvas (CSS selectors pierce Bokeh's shadow DOM)."""
    return page.locator(f"{scope} .bk-Figure canvas".strip()).first


def ink_fraction(png: bytes) -> float:
    """Share of the pixels of a screenshot that differ from its most common colour."""
    import io

    from PIL import Image

    image = Image.open(io.BytesIO(png)).convert("RGB")
    colours = image.getcolors(maxcolors=image.width * image.height) or []
    if not colours:
        return 0.0
    total = image.width * image.height
    return 1 - max(count for count, _ in colours) / total


def screenshot(page: Any, name: str, locator: Any = None) -> Path:
    """Save a screenshot of the page (or of `locator`) as test-artifacts/<name>.png."""
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{re.sub(r'[^A-Za-z0-9_.-]+', '_', name)}.png"
    if locator is None:
        page.screenshot(path=str(path))
    else:
        locator.screenshot(path=str(path))
    return path


class ConsoleErrors:
    """Collects console errors and uncaught page errors, minus the known cosmetic ones."""

    def __init__(self, page: Any) -> None:
        self.messages: list[str] = []
        page.on("console", self._on_console)
        page.on("pageerror", self._on_pageerror)

    def _on_console(self, msg: Any) -> None:
        if msg.type == "error":
            url = (msg.location or {}).get("url", "")
            self.messages.append(f"console.error: {msg.text} @ {url}")

    def _on_pageerror(self, error: Any) -> None:
        self.messages.append(f"pageerror: {error}")

    def save(self, name: str) -> Path:
        """Write every collected message, cosmetic ones included, to test-artifacts/<name>.log."""
        ARTIFACTS.mkdir(exist_ok=True)
        path = ARTIFACTS / f"{re.sub(r'[^A-Za-z0-9_.-]+', '_', name)}.log"
        path.write_text("".join(f"{m}\n" for m in self.messages))
        return path

    @property
    def unexpected(self) -> list[str]:
        """The collected errors that are not known to be cosmetic."""
        return [m for m in self.messages if not any(p.search(m) for p in COSMETIC_CONSOLE)]


def versions(browser: Any = None) -> dict[str, str]:
    """Versions of the browser-facing stack, for reports."""
    from importlib.metadata import PackageNotFoundError, version

    out = {}
    for dist in ("jupyterlab", "bokeh", "jupyter_bokeh", "ipywidgets", "voila", "playwright"):
        try:
            out[dist] = version(dist)
        except PackageNotFoundError:
            out[dist] = "absent"
    if browser is not None:
        out["chromium"] = browser.version
    return out
