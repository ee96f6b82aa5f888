"""Explorer interaction latency in a real browser (Voilà, optionally JupyterLab, Debian chromium).

    python benchmarks/explorer_latency.py --json latency.json [--notebook PATH] [--lab] [--fast]

Writes (never asserted by tests):

- `slider_redraw_ms_median`, `slider_redraw_ms_p95`: from the key press on a knob's slider handle
  (an `ArrowRight`/`ArrowLeft` step, timed in the page by a capturing keydown listener) to the
  first animation frame after the one in which the `pool` source's dirty column has changed, so
  that BokehJS has painted the new data; polled with requestAnimationFrame, so the resolution is
  one frame (about 17 ms). `slider_ready_ms_*` time the `fs-status` element reading `ready` again.
- `warm_start_s`: median over `--starts` page loads of opening the Voilà page (a fresh kernel;
  numba's cache warm, and one page load done before) until the status reads `ready`.
- `peak_rss_mb`: the peak resident set (VmHWM, MiB) of the kernel that served the measured page,
  after the slider presses.
- `cpu_calibration_s`: how fast the CPU is just now (benchmarks/machine.py): this VM drifts.
- the chromium, jupyterlab, bokeh, jupyter_bokeh, ipywidgets, voila and playwright versions.

With `--lab` the slider is also timed in JupyterLab (`lab_slider_*`, `lab_peak_rss_mb`). The
notebook must follow the explorer's contract (tests/browser/helpers.py); by default it is
notebooks/00-explorer.ipynb, or `FLUSHSIM_BROWSER_NOTEBOOK`. `--fast` sets `FLUSHSIM_FAST=1` (short
runs, as in the tests); without it the explorer runs its real default scenario.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "browser"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import helpers  # noqa: E402
from machine import cpu_calibration_s  # noqa: E402

KNOB = "innodb_io_capacity"
SOURCE = "pool"
DIRTY = "buffer_pool_pages_dirty"

# Installed before a key press; resolves once the new data has been seen, painted, and the
# status reads ready again. Times are relative to the keydown event.
_WATCH_JS = """([name, column, timeoutMs]) => {
    const read = () => {
        for (const doc of (window.Bokeh && window.Bokeh.documents) || []) {
            const m = doc.get_model_by_name(name);
            if (!m) continue;
            const v = typeof m.data.get === 'function' ? m.data.get(column) : m.data[column];
            return v == null ? null : Array.from(v, Number);
        }
        return null;
    };
    const ready = () => {
        const nodes = [...document.querySelectorAll('.fs-status')];
        return nodes.length > 0 && nodes.every(n => n.textContent.trim() === 'ready');
    };
    const snap = read();
    const changed = v => v !== null && snap !== null &&
        (v.length !== snap.length || v.some((x, i) => x !== snap[i]));
    let key = null, seen = null, painted = null, readyAt = null;
    window.addEventListener('keydown', () => { key = performance.now(); },
                            {capture: true, once: true});
    const start = performance.now();
    window.__fsWatch = new Promise((resolve, reject) => {
        const tick = () => {
            const now = performance.now();
            if (key !== null) {
                if (seen === null) {
                    if (changed(read())) seen = now;
                } else if (painted === null) {
                    painted = now;
                }
                if (seen !== null && readyAt === null && ready()) readyAt = now;
                if (painted !== null && readyAt !== null) {
                    resolve({redraw_ms: painted - key, data_ms: seen - key,
                             ready_ms: readyAt - key});
                    return;
                }
            }
            if (now - start > timeoutMs) {
                reject(new Error(`no redraw within ${timeoutMs} ms (key seen: ${key !== null})`));
                return;
            }
            requestAnimationFrame(tick);
        };
        requestAnimationFrame(tick);
    });
    return snap !== null;
}"""


def _percentile(values: list[float], q: float) -> float:
    """Linear-interpolated percentile (q in 0..100)."""
    ordered = sorted(values)
    if len(ordered) == 1:
        return ordered[0]
    pos = (len(ordered) - 1) * q / 100
    low = int(pos)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


def time_slider(page, presses: int, timeout_s: float = 120) -> dict[str, list[float]]:
    """Press the knob's handle `presses` times; per press, the times of the watch above."""
    helpers.wait_status_ready(page, timeout=timeout_s)
    helpers.wait_source_column(page, SOURCE, DIRTY)
    samples: dict[str, list[float]] = {"redraw_ms": [], "data_ms": [], "ready_ms": []}
    for i in range(presses):
        # Bounce between 200 and 1,000 (three steps each way): every step there changes the run.
        # Past innodb_io_capacity_max (2,000) the server's startup rule clamps io_capacity, the
        # run repeats and no redraw would ever come.
        key = "ArrowRight" if (i // 3) % 2 == 0 else "ArrowLeft"
        assert page.evaluate(_WATCH_JS, [SOURCE, DIRTY, timeout_s * 1000])
        helpers.move_knob(page, KNOB, key)
        result = page.evaluate("() => window.__fsWatch")
        for name in samples:
            samples[name].append(round(result[name], 1))
        helpers.wait_status_ready(page, timeout=timeout_s)
        time.sleep(0.2)  # the app is idle before the next press
    return samples


def peak_rss_mb(pid: int) -> float | None:
    """VmHWM of a process in MiB (Linux), or None."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        return None
    return None


def _summary(prefix: str, samples: dict[str, list[float]]) -> dict[str, object]:
    out: dict[str, object] = {}
    for name, values in samples.items():
        stem = name.removesuffix("_ms")
        out[f"{prefix}slider_{stem}_ms_median"] = round(statistics.median(values), 1)
        out[f"{prefix}slider_{stem}_ms_p95"] = round(_percentile(values, 95), 1)
        out[f"{prefix}slider_{stem}_ms_samples"] = values
    return out


def _close_voila(page, context, server: helpers.Server, wait: float = 3) -> bool:
    """Close the tab as a user does, then make sure its kernel is gone.

    Voilà asks for its kernel's shutdown on `beforeunload`, but Voilà 0.5 sends that POST without
    an `_xsrf` argument and the server answers 403 (voila-dashboards/voila#1458), so the kernel
    stays. The benchmark then shuts it down through the API (with the token, no xsrf needed), so
    that idle kernels do not pile up on the machine. Returns whether closing the tab alone did it.
    """
    kernels = server.kernels()
    page.close(run_before_unload=True)
    context.close()
    if not kernels:
        return True
    pid, kernel_id = kernels[-1]
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        if pid not in server.kernel_pids():
            return True
        time.sleep(0.1)
    server.api(f"/voila/api/shutdown/{kernel_id}", method="POST")
    deadline = time.monotonic() + 15
    while pid in server.kernel_pids() and time.monotonic() < deadline:
        time.sleep(0.1)
    return False


def bench_voila(browser, server: helpers.Server, presses: int, starts: int) -> dict[str, object]:
    # One page load first: it fills whatever the kernel-side caches are (numba's is warm already).
    context = browser.new_context()
    page = context.new_page()
    helpers.open_voila(page, server)
    helpers.wait_status_ready(page, timeout=300)
    closed_by_tab = _close_voila(page, context, server)

    starts_s = []
    for i in range(starts):
        context = browser.new_context()
        page = context.new_page()
        t0 = time.perf_counter()
        helpers.open_voila(page, server)
        helpers.wait_status_ready(page, timeout=300)
        starts_s.append(round(time.perf_counter() - t0, 2))
        if i < starts - 1:
            _close_voila(page, context, server)
    kernels = server.kernel_pids()
    samples = time_slider(page, presses)
    out: dict[str, object] = {
        "warm_start_s": round(statistics.median(starts_s), 2),
        "warm_start_s_samples": starts_s,
    }
    out.update(_summary("", samples))
    out["peak_rss_mb"] = peak_rss_mb(kernels[-1]) if kernels else None
    out["voila_kernels_alive"] = len(kernels)
    out["voila_tab_close_shuts_kernel_down"] = closed_by_tab
    _close_voila(page, context, server)
    return out


def bench_lab(browser, server: helpers.Server, notebook: str, presses: int) -> dict[str, object]:
    context = browser.new_context()
    page = context.new_page()
    helpers.open_lab_notebook(page, server, notebook)
    helpers.run_all_cells(page, server)
    helpers.reveal(page, ".fs-status", timeout=300)
    helpers.wait_status_ready(page, timeout=300)
    samples = time_slider(page, presses)
    kernels = server.kernel_pids()
    out = _summary("lab_", samples)
    out["lab_peak_rss_mb"] = peak_rss_mb(kernels[-1]) if kernels else None
    context.close()
    helpers.shutdown_sessions(server)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", required=True, help="output file")
    ap.add_argument("--notebook", default=helpers.notebooks_under_test()[0], help="repo-relative")
    ap.add_argument("--presses", type=int, default=15, help="slider key presses (default 15)")
    ap.add_argument("--starts", type=int, default=3, help="timed page loads (default 3)")
    ap.add_argument("--lab", action="store_true", help="also time the slider in JupyterLab")
    ap.add_argument("--fast", action="store_true", help="FLUSHSIM_FAST=1: short runs")
    args = ap.parse_args()
    if helpers.chromium_path() is None:
        print("chromium is not installed (apt-get install chromium)", file=sys.stderr)
        return 2
    if not (helpers.REPO / args.notebook).is_file():
        print(f"{args.notebook}: no such notebook", file=sys.stderr)
        return 2
    from playwright.sync_api import sync_playwright

    home = Path(tempfile.mkdtemp(prefix="flushsim-latency-home-"))
    extra = {"FLUSHSIM_FAST": "1"} if args.fast else {}
    env = helpers.hermetic_env(home, **extra)
    if not args.fast:
        env.pop("FLUSHSIM_FAST", None)
    servers: list[helpers.Server] = []
    result: dict[str, object] = {"notebook": args.notebook, "fast": args.fast}
    result["cpu_calibration_s"] = cpu_calibration_s()  # benchmarks/machine.py
    try:
        result["numba_warm_s"] = round(helpers.warm_numba(env), 2)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(**helpers.launch_args(home / "chromium-home"))
            voila = helpers.start_voila(args.notebook, env)
            servers.append(voila)
            result.update(bench_voila(browser, voila, args.presses, args.starts))
            if args.lab:
                lab = helpers.start_lab(home, env)
                servers.append(lab)
                result.update(bench_lab(browser, lab, args.notebook, args.presses))
            result["versions"] = helpers.versions(browser)
            browser.close()
    finally:
        for server in servers:
            server.stop()
        shutil.rmtree(home, ignore_errors=True)
    result["machine"] = {
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "numba_num_threads": env.get("NUMBA_NUM_THREADS", "default"),
    }
    Path(args.json).write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps({k: v for k, v in result.items() if not k.endswith("_samples")}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
