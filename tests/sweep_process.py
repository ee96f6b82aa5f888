"""A real `python -m flushsim sweep` in a subprocess, watched from outside.

Its progress bar, its worker processes (by pid, psutil), and what is left of them once it
has exited.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import psutil

PROGRESS = re.compile(r"(\d+)/(\d+) \[")
REPO = Path(__file__).resolve().parents[1]
# a fresh worker has used no CPU; one past this has started a run
MID_RUN_CPU_S = 0.05


def env() -> dict[str, str]:
    """The environment with this checkout's flushsim first on the path.

    From another folder, `python -m flushsim` finds the checkout the environment was
    installed from (pip -e), which need not be this one.
    """
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
    }


class SweepProcess:
    """`python -m flushsim sweep default ARGS --out DIR/NAME`, its stderr read as it comes."""

    def __init__(self, folder: Path, args: list[str], name: str = "sweep.csv"):
        self.out = folder / name
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "flushsim", "sweep", "default", *args, "--out", str(self.out)],
            cwd=folder,
            env=env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.main = psutil.Process(self.proc.pid)
        self.family: dict[int, psutil.Process] = {}
        self._err = bytearray()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        # tqdm redraws with \r and no \n: read bytes as they come, not lines
        while chunk := self.proc.stderr.read1(4096):
            self._err += chunk

    @property
    def stderr(self) -> str:
        return self._err.decode(errors="replace")

    def finished(self) -> int:
        """Rows the progress bar counts so far."""
        counts = PROGRESS.findall(self.stderr)
        return int(counts[-1][0]) if counts else 0

    def observe(self) -> list[psutil.Process]:
        """Every process the sweep has started so far (remembered for `leftovers`)."""
        try:
            for p in self.main.children(recursive=True):
                self.family.setdefault(p.pid, p)
        except psutil.NoSuchProcess:
            pass
        return list(self.family.values())

    def workers(self) -> list[psutil.Process]:
        """The live worker processes: the children of the fork server."""
        out = []
        for p in self.observe():
            try:
                if p.is_running() and p.ppid() in self._fork_servers():
                    out.append(p)
            except psutil.NoSuchProcess:
                continue
        return out

    def _fork_servers(self) -> set[int]:
        servers = set()
        for p in self.family.values():
            try:
                if p.ppid() == self.proc.pid and "multiprocessing.forkserver" in " ".join(
                    p.cmdline()
                ):
                    servers.add(p.pid)
            except psutil.NoSuchProcess:
                continue
        return servers

    def wait_for(self, condition, timeout: float, what: str):
        """Poll `condition()` (and note new processes) until it is truthy; return its value."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.observe()
            value = condition()
            if value:
                return value
            if self.proc.poll() is not None:
                raise AssertionError(f"the sweep exited before {what}:\n{self.stderr}")
            time.sleep(0.05)
        self.proc.kill()
        raise AssertionError(f"no {what} within {timeout} s:\n{self.stderr}")

    def busy_worker(self, timeout: float, exclude: set[int] = frozenset()) -> psutil.Process:
        """A worker mid-run (on the CPU, not waiting for a task), not one of `exclude`, frozen.

        It is stopped with SIGSTOP the moment it is seen, so that it still holds its run when
        the test acts, however fast this machine runs one (CI's ran 0.3 s). `thaw` resumes it.
        """

        def find():
            for w in self.workers():
                try:
                    if (
                        w.pid not in exclude
                        and w.cpu_times().user > MID_RUN_CPU_S
                        and w.status() == psutil.STATUS_RUNNING
                    ):
                        w.send_signal(signal.SIGSTOP)
                        return w
                except psutil.NoSuchProcess:
                    continue
            return None

        return self.wait_for(find, timeout, "busy worker process")

    @staticmethod
    def thaw(worker: psutil.Process) -> None:
        """Resume a worker `busy_worker` froze (gone already: nothing to do)."""
        try:
            worker.send_signal(signal.SIGCONT)
        except psutil.NoSuchProcess:
            pass

    def finish(self, timeout: float = 180) -> int:
        """Wait for the exit; its status."""
        status = self.proc.wait(timeout=timeout)
        self._reader.join(timeout=10)
        self.proc.stdout.close()
        self.proc.stderr.close()
        return status

    def leftovers(self, grace: float = 10.0) -> list[str]:
        """Processes of the sweep still running `grace` s after it exited."""
        deadline = time.monotonic() + grace
        while True:
            alive = []
            for p in self.family.values():
                try:
                    if p.is_running() and p.status() != psutil.STATUS_ZOMBIE:
                        alive.append(f"{p.pid} {' '.join(p.cmdline())[:120]}")
                except psutil.NoSuchProcess:
                    continue
            if not alive or time.monotonic() > deadline:
                return alive
            time.sleep(0.2)
