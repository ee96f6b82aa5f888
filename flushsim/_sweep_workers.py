"""Worker processes for sweep, simulate_many and run_ahead: each fed through its own pipe.

`run_tasks` hands a stream of runs to them (and, for a sweep's short runs, to this process),
gives a dead worker's runs once more to another, and says which were lost twice.

A `concurrent.futures.ProcessPoolExecutor` breaks as a whole when one worker dies (an OOM
kill): every queued run is failed, and which runs the dead worker held is unknown. Here each
worker has its own pipe and its own list of runs in flight, so a death costs exactly those
runs, which are given once more to a live worker; a run lost twice is reported, not retried.

Workers come from a fork server (never a fork of this process: polars' thread pool and a
notebook kernel's threads would be copied with their locks held) that preloads the kernels
(`flushsim._sweep_preload`). A worker ignores SIGINT, SIGHUP and SIGTERM (the terminal and
`systemctl stop` signal the whole group; this process decides and stops them with SIGKILL),
and asks Linux for SIGKILL when its parent, the fork server, exits: the fork server exits with
this process, so a worker never outlives a sweep that was killed.
"""

from __future__ import annotations

import collections
import ctypes
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
RUNS_IN_FLIGHT = 2  # a worker's run plus one queued behind it: no idle gap between runs
STOP_TIMEOUT_S = 5.0
START_TIMEOUT_S = 120.0  # a worker that has not said "ready" by then is not waited for


def _context():
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(["flushsim._sweep_preload"])
    return ctx


def _die_with_parent() -> None:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):  # not Linux: the parent's SIGKILL on stop still holds
        return
    if os.getppid() == 1:  # the parent died before prctl took effect
        os._exit(1)


def serve(conn: Connection, run: Callable, args: tuple) -> None:
    """A worker's loop: receive a task, send back ("done", run(task, *args)), until None."""
    for sig in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM):
        signal.signal(sig, signal.SIG_IGN)
    _die_with_parent()
    conn.send(("ready", os.getpid()))
    while True:
        try:
            task = conn.recv()
        except EOFError:
            return
        if task is None:
            return
        try:
            conn.send(("done", run(task, *args)))
        except Exception as exc:  # a bug in a run: this process re-raises it
            conn.send(("error", f"{type(exc).__name__}: {exc}"))


@dataclass
class Worker:
    """One worker process, its end of the pipe and the tasks it holds, oldest first."""

    process: multiprocessing.process.BaseProcess
    conn: Connection
    tasks: collections.deque = field(default_factory=collections.deque)
    ready: bool = False


@dataclass(frozen=True)
class Death:
    """A worker that died: its pid, exit status (negative: the signal) and lost tasks."""

    pid: int | None
    exitcode: int | None
    tasks: tuple

    def describe(self) -> str:
        """E.g. "worker process 1234 was killed by SIGKILL"."""
        code = self.exitcode
        if code is not None and code < 0:
            how = f"was killed by {signal.Signals(-code).name}"
        else:
            how = f"exited with status {code}"
        return f"worker process {self.pid} {how}"


class Workers:
    """`count` worker processes, started by a thread while this process runs its own share.

    Each holds up to `in_flight` runs (default RUNS_IN_FLIGHT; 1 for runs so long that the
    gap between two is nothing and a run queued behind another could wait for a whole run).
    """

    def __init__(self, count: int, run: Callable, args: tuple, in_flight: int | None = None):
        self._run, self._args = run, args
        self._in_flight = in_flight or RUNS_IN_FLIGHT
        self._ctx = _context()
        self._lock = threading.Lock()
        self._started: list[Worker] = []  # filled by the starter thread
        self._stopping = False
        self.live: list[Worker] = []
        self.ever_ready = False
        self.failed_starts = 0
        self._starters: list[threading.Thread] = []
        self.start(count)

    def start(self, count: int) -> None:
        """Start `count` more workers in a thread (starting the fork server takes ~1 s)."""
        thread = threading.Thread(target=self._start, args=(count,), daemon=True)
        self._starters.append(thread)
        thread.start()

    def _start(self, count: int) -> None:
        for _ in range(count):
            ours, theirs = self._ctx.Pipe()
            proc = self._ctx.Process(
                target=serve, args=(theirs, self._run, self._args), daemon=True
            )
            with self._lock:
                if self._stopping:
                    return
            try:
                proc.start()
            except Exception:  # e.g. the fork server could not start: counted as a failed start
                with self._lock:
                    self.failed_starts += 1
                continue
            theirs.close()
            with self._lock:
                self._started.append(Worker(proc, ours))
                if self._stopping:
                    proc.kill()

    def starting(self) -> bool:
        """Whether a worker is on its way: a starter thread at work, or started, not yet live."""
        # threads first: one that has ended had put its worker in _started before it did
        if any(t.is_alive() for t in self._starters):
            return True
        with self._lock:
            return bool(self._started)

    def _adopt(self) -> None:
        with self._lock:
            self.live += self._started
            self._started.clear()

    def give(self, take: Callable[[], object | None]) -> None:
        """Hand each ready worker tasks from `take` until it holds `in_flight`."""
        self._adopt()
        for w in self.live:
            while w.ready and len(w.tasks) < self._in_flight:
                task = take()
                if task is None:
                    return
                w.tasks.append(task)
                try:
                    w.conn.send(task)
                except OSError:  # it died since the last poll: the next poll reports its tasks
                    break

    def busy(self) -> bool:
        """Whether any worker holds a task."""
        return any(w.tasks for w in self.live)

    def poll(self, timeout: float | None) -> Iterator[tuple[str, object]]:
        """Wait up to `timeout` s; yield ("done", result) and ("died", Death) as they come."""
        self._adopt()
        if not self.live:
            time.sleep(timeout or 0)  # none started yet: no busy wait
            return
        handles = [w.conn for w in self.live] + [w.process.sentinel for w in self.live]
        ready = set(wait(handles, timeout=timeout))
        for w in list(self.live):
            if w.conn not in ready and w.process.sentinel not in ready:
                continue
            yield from self._drain(w)

    def _drain(self, w: Worker) -> Iterator[tuple[str, object]]:
        gone = False
        try:
            while w.conn.poll():
                kind, payload = w.conn.recv()
                if kind == "ready":
                    w.ready = self.ever_ready = True
                elif kind == "done":
                    w.tasks.popleft()
                    yield "done", payload
                else:
                    raise RuntimeError(f"a sweep run failed in a worker process: {payload}")
        except (EOFError, OSError):
            gone = True  # the pipe closed: the worker is exiting, reap it below
        w.process.join(STOP_TIMEOUT_S if gone else 0)
        if w.process.is_alive():
            return
        w.process.join()
        w.conn.close()
        self.live.remove(w)
        if not w.ready:
            self.failed_starts += 1
        yield "died", Death(w.process.pid, w.process.exitcode, tuple(w.tasks))

    def stop(self, now: bool) -> None:
        """Stop every worker: ask them to finish (`now` False) or SIGKILL them (`now` True)."""
        with self._lock:
            self._stopping = True
        for t in self._starters:
            t.join()
        self._adopt()
        for w in self.live:
            if now:
                w.process.kill()
            else:
                try:
                    w.conn.send(None)
                except OSError:
                    w.process.kill()
        for w in self.live:
            w.process.join(STOP_TIMEOUT_S)
            if w.process.is_alive():
                w.process.kill()
                w.process.join()
            w.conn.close()
        self.live.clear()


def run_tasks(
    runs: Iterator,
    workers: int,
    book,
    job: Callable,
    args: tuple,
    *,
    here: bool = True,
    stop: threading.Event | None = None,
) -> list[Death]:
    """`book.finish(*job(task, *args))` for every task of `runs`, on `workers` cores.

    With `here` (a sweep's short runs), this process and `workers - 1` worker processes: this
    process runs the runs in order and, between two of its own, hands the workers theirs.
    Without (`many.simulate_many`'s long runs, where a worker left idle until this process's
    first run ends would lose a whole run), `workers` worker processes, one run each at a time,
    and this process only hands them out. A run lost with its worker is given once more to a
    live worker (or run here if none is left); lost again, `book.lose(index, why)`. Tasks have
    an `index`. Setting `stop` (`many.run_ahead`'s cancel) kills the workers and raises
    Stopped within 0.2 s. Returns the workers that died.
    """
    if getattr(multiprocessing.current_process(), "_inheriting", False):
        # a worker process importing a script that calls sweep() without a main guard: exit
        # here, before its first run, and quietly (SystemExit prints nothing in a worker): the
        # process that started it says why, once
        raise SystemExit(1)
    pool = Workers(workers - 1 if here else workers, job, args, in_flight=None if here else 1)
    retry: collections.deque = collections.deque()
    retried: set[int] = set()
    deaths: list[Death] = []
    handed_out = [False]  # every task of `runs` taken

    def for_a_worker():
        if retry:
            return retry.popleft()
        task = next(runs, None)
        handed_out[0] = task is None
        return task

    def collect(timeout: float | None) -> None:
        if stop is not None:
            if stop.is_set():
                raise Stopped("stopped: the runs not yet finished are dropped")
            timeout = 0.2 if timeout is None else min(timeout, 0.2)
        for kind, payload in pool.poll(timeout):
            if kind == "done":
                book.finish(*payload)
                continue
            if not payload.tasks:
                continue  # died idle or while starting: nothing lost (a failed start: below)
            deaths.append(payload)
            for task in payload.tasks:
                if task.index in retried:
                    book.lose(task.index, payload.describe())
                else:
                    retried.add(task.index)
                    retry.append(task)
            pool.start(1)  # a replacement, for the retries and what is left
        if not pool.ever_ready and not pool.live and not pool.starting() and pool.failed_starts:
            raise RuntimeError(_BROKEN)
        pool.give(for_a_worker)

    try:
        while not here and not handed_out[0]:
            if pool.ever_ready and not pool.live and not pool.starting():
                break  # every worker died between two runs (none lost): the rest run here
            collect(_wait_s(pool))
        while (task := next(runs, None)) is not None:  # without `here`: only after that break
            book.finish(*job(task, *args))
            collect(0)
        while retry or pool.busy():
            if not pool.live and not pool.starting():  # no worker left: the retries run here
                while retry:
                    book.finish(*job(retry.popleft(), *args))
                break
            collect(_wait_s(pool))
        # done before any worker spoke: make sure they could start, or a script without a main
        # guard would pass here while each of its workers runs it all again
        deadline = time.monotonic() + START_TIMEOUT_S
        while not pool.ever_ready and (pool.live or pool.starting()):
            if time.monotonic() > deadline:
                break
            collect(0.2)
    except BaseException:
        pool.stop(now=True)
        raise
    pool.stop(now=False)
    return deaths


class Stopped(Exception):
    """`run_tasks` was told to stop (its `stop` event was set)."""


def _wait_s(pool: Workers) -> float | None:
    # a worker still starting is not yet among those a poll waits for: look again soon, or a
    # replacement would wait for its first run until another worker finished one
    return None if pool.busy() and not pool.starting() else 0.2


_BROKEN = (
    "flushsim: the worker processes died while starting. In a script, call fs.sweep(), "
    'fs.simulate_many() and fs.run_ahead() under `if __name__ == "__main__":` (Python '
    "re-imports the script in every worker process), or pass workers=1"
)


def retried_message(deaths: list[Death], lost: int) -> str:
    """What the dead workers were, and that another worker was given their runs."""
    retried = sum(len(d.tasks) for d in deaths)
    runs = f"{retried} run" if retried == 1 else f"{retried} runs"
    holder = "it" if len(deaths) == 1 else "they"
    verb = "was" if retried == 1 else "were"
    return (
        f"{'; '.join(d.describe() for d in deaths)}: the {runs} {holder} held {verb} "
        f"given once more to another ({lost} lost a second time)"
    )
