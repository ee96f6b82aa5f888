"""`scripts/explorer.sh app` off the loopback (issue #34, item 5): a token, idle culling, a cap.

The app serves the notebooks folder, so the explorer's links to the lessons open them (#35).

The script is started for real with HOST=0.0.0.0 on a free port, and plain HTTP requests
check what a visitor meets: no token, no page; past MAX_KERNELS kernels, HTTP 503; a kernel
idle past CULL_IDLE_S is shut down, which frees its place.
"""

from __future__ import annotations

import http.client
import os
import re
import signal
import socket
import subprocess
import time
from pathlib import Path

import psutil
import pytest

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "scripts" / "explorer.sh"
EXPLORER = "/voila/render/00-explorer.ipynb"
LESSON = "/voila/render/01-buffer-pool-lists.ipynb"

pytestmark = pytest.mark.slow


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(port: int, path: str, timeout: float = 300) -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("GET", path)
        resp = conn.getresponse()
        return resp.status, dict(resp.getheaders()), resp.read()
    finally:
        conn.close()


def _wait_for(log: Path, pattern: str, timeout: float) -> re.Match:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = re.search(pattern, log.read_text(errors="replace"))
        if found:
            return found
        time.sleep(0.2)
    raise AssertionError(f"no {pattern!r} in the log within {timeout} s:\n{log.read_text()}")


def test_an_empty_token_off_the_loopback_is_refused_before_anything_starts():
    env = {**os.environ, "HOST": "0.0.0.0", "TOKEN": ""}
    res = subprocess.run(
        ["bash", str(SCRIPT), "app"], env=env, capture_output=True, text=True, timeout=60
    )
    assert res.returncode == 2
    assert "TOKEN is empty and HOST=0.0.0.0 is not the loopback" in res.stderr
    assert "numba kernels ready" not in res.stdout  # refused before the warm-up


def test_the_app_on_every_interface_asks_a_token_culls_idle_kernels_and_caps_them(tmp_path):
    port = _free_port()
    log = tmp_path / "voila.log"
    env = {
        **os.environ,
        "HOST": "0.0.0.0",
        "MAX_KERNELS": "1",
        "CULL_IDLE_S": "4",
        "CULL_INTERVAL_S": "1",
        "FLUSHSIM_FAST": "1",
    }
    env.pop("TOKEN", None)
    with log.open("wb") as out:
        proc = subprocess.Popen(
            ["bash", str(SCRIPT), "app", f"--port={port}"],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own group: stopped whole below
        )
    try:
        token = _wait_for(log, rf":{port}/\?token=([0-9a-f]+)", 900).group(1)
        listening = {
            c.laddr.ip
            for c in psutil.Process(proc.pid).net_connections(kind="tcp")
            if c.status == psutil.CONN_LISTEN and c.laddr.port == port
        }
        assert listening & {"0.0.0.0", "::"}, listening  # really off the loopback

        status, headers, _ = _get(port, "/")
        assert status == 302 and "/login" in headers["Location"]  # no token: the login page
        assert _get(port, "/?token=wrong")[0] == 302
        assert "Kernel started" not in log.read_text()  # and no kernel for either

        # / lists the folder (drawn in the browser): no kernel for it
        status, _, listing = _get(port, f"/?token={token}")
        assert status == 200 and b"voila-tree" in listing
        assert "Kernel started" not in log.read_text()

        # a lesson link of the explorer's (relative: /voila/render/<lesson>) opens the lesson
        status, _, lesson = _get(port, f"{LESSON}?token={token}")
        assert status == 200 and b"free, LRU and flush" in lesson
        status, _, _ = _get(port, f"{EXPLORER}?token={token}", timeout=60)
        assert status == 503  # MAX_KERNELS=1: the second visit is turned away
        assert "CappedKernelManager.max_kernels=1" in log.read_text()

        # nobody holds the first kernel's websocket: culled after 4 idle seconds
        _wait_for(log, r"Culling 'idle' kernel", 60)
        deadline = time.monotonic() + 60  # its place is free once the kernel has exited
        while (visit := _get(port, f"{EXPLORER}?token={token}"))[0] == 503:
            assert time.monotonic() < deadline, "the culled kernel's place never came free"
            time.sleep(0.5)
        assert visit[0] == 200 and b"flushsim" in visit[2]
        assert b'href="01-buffer-pool-lists.ipynb"' in visit[2]  # the link checked above
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=60)
