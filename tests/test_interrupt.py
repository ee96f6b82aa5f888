"""Ctrl-C and SIGTERM while a kernel runs: the wait stops at once, the process never crashes.

A SIGINT handled while numba boxed a kernel's first result crashed the process (exit 139, a
segmentation fault); flushsim.run.call_kernel now runs the kernel on a daemon thread and waits
for it in interruptible joins on the main thread.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from flushsim.run import call_kernel

ROOT = Path(__file__).resolve().parent.parent


def test_a_signal_stops_the_wait_not_after_the_kernel():
    # the "kernel" would take 5 s; SIGINT after 0.2 s must raise within about a second
    threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGINT)).start()
    start = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        call_kernel(time.sleep, 5.0)
    assert time.monotonic() - start < 1.5


def test_a_kernel_error_reaches_the_caller_as_itself():
    def broken():
        raise ValueError("inside the kernel")

    with pytest.raises(ValueError, match="inside the kernel"):
        call_kernel(broken)
    assert call_kernel(divmod, 7, 2) == (3, 1)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=lambda s: s.name)
def test_the_command_line_interrupted_in_its_first_kernel_call_exits_cleanly(tmp_path, sig):
    # a run of 20,000 s takes about half a minute once compiled; the signal comes after the
    # imports (SIGTERM's handler is the CLI's), while it runs or while numba compiles it
    out = tmp_path / "run.csv"
    cmd = [sys.executable, "-m", "flushsim", "run", "default", "--seconds", "20000"]
    proc = subprocess.Popen([*cmd, "--out", str(out)], cwd=ROOT, stderr=subprocess.PIPE, text=True)
    time.sleep(8.0)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + sig, err  # 130 / 143, not -11 (SIGSEGV) or 139
    assert err.strip().splitlines()[-1].startswith("interrupted"), err
    assert not out.exists()
