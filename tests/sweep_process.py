"""A real sweep of the command line in a subprocess, watched from outside.

Its progress bar, which process holds which run (tests/traced_cli.py writes each run's start
and end), its processes (by pid, psutil), and what is left of them once it has exited.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from pathlib import Path

import psutil
from traced_cli import RUN_LOG

PROGRESS = re.compile(r"(\d+)/(\d+) \[")
REPO = Path(__file__).resolve().parents[1]
TESTS = Path(__file__).resolve().parent
TRACED_CLI = "import sys, traced_cli; sys.exit(traced_cli.main())"
STOP_TIMEOUT_S = 10.0


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
    """`flushsim sweep default ARGS --out DIR/NAME`, runs traced, stderr read as it comes."""

    def __init__(self, folder: Path, args: list[str], name: str = "sweep.csv"):
        self.out = folder / name
        # outside `folder`: a test checks that the sweep leaves nothing there
        fd, log = tempfile.mkstemp(prefix="flushsim-sweep-runs-", suffix=".log")
        os.close(fd)
        self.run_log = Path(log)
        weakref.finalize(self, self.run_log.unlink, missing_ok=True)  # a failed test's too
        base = env()
        self.proc = subprocess.Popen(
            [sys.executable, "-c", TRACED_CLI, "sweep", "default", *args, "--out", str(self.out)],
            cwd=folder,
            env={
                **base,
                "PYTHONPATH": os.pathsep.join([str(TESTS), base["PYTHONPATH"]]),
                RUN_LOG: str(self.run_log),
            },
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

    def runs_held(self) -> list[tuple[int, int]]:
        """(pid, row) of every run started and not ended yet, in the order they started.

        A process killed mid-run keeps its entry: the run log cannot tell.
        """
        held: dict[tuple[int, int], None] = {}
        # the last piece has no newline yet when a line is being written: not read
        for line in self.run_log.read_text().split("\n")[:-1]:
            event, pid, row = line.split()
            if event == "start":
                held[int(pid), int(row)] = None
            else:
                held.pop((int(pid), int(row)), None)
        return list(held)

    def wait_for(self, condition, timeout: float, what: str):
        """Poll `condition()` (and note new processes) until it is truthy; return its value."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.observe()
            value = condition()
            if value:
                return value
            if self.proc.poll() is not None:
                raise AssertionError(
                    f"the sweep exited before {what}:\n{self.stderr}{self._runs()}"
                )
            time.sleep(0.05)
        self.proc.kill()
        raise AssertionError(f"no {what} within {timeout} s:\n{self.stderr}{self._runs()}")

    def busy_worker(
        self, timeout: float, exclude: set[int] = frozenset()
    ) -> tuple[psutil.Process, int]:
        """A worker process in a run, not one of `exclude`, stopped there; and that run's row.

        The worker is stopped with SIGSTOP, then its run checked still not ended: it holds
        that run when the test acts, however fast this machine runs one (CI's ran 0.3 s).
        `thaw` resumes it.
        """

        def find():
            for pid, row in self.runs_held():
                if pid == self.proc.pid or pid in exclude:
                    continue
                worker = self._stop(pid)
                if worker is None:
                    continue
                if (pid, row) in self.runs_held():
                    return worker, row
                self.thaw(worker)  # it ended the run before it stopped: try the next
            return None

        return self.wait_for(find, timeout, "worker process in a run")

    def _stop(self, pid: int) -> psutil.Process | None:
        """SIGSTOP `pid`, a process of the sweep, and wait until it is stopped; None if gone."""
        p = self.family.get(pid)  # psutil's own, which will not signal a reused pid
        if p is None:  # not seen yet: the next poll will have it
            return None
        try:
            p.send_signal(signal.SIGSTOP)
            deadline = time.monotonic() + STOP_TIMEOUT_S
            while (status := p.status()) != psutil.STATUS_STOPPED:
                if status == psutil.STATUS_ZOMBIE:
                    return None
                if time.monotonic() > deadline:
                    raise AssertionError(
                        f"process {pid} not stopped {STOP_TIMEOUT_S} s after SIGSTOP"
                    )
                time.sleep(0.001)
        except psutil.NoSuchProcess:
            return None
        return p

    @staticmethod
    def thaw(worker: psutil.Process) -> None:
        """Resume a worker `busy_worker` froze (gone already: nothing to do)."""
        try:
            worker.send_signal(signal.SIGCONT)
        except psutil.NoSuchProcess:
            pass

    def _runs(self) -> str:
        return f"\nruns (event pid row):\n{self.run_log.read_text()}"

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
