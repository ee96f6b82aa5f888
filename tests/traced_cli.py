"""`flushsim.cli.main` with each sweep run's start and end written to a file, for the fault tests.

tests/sweep_process.py starts its sweeps with `python -c "...traced_cli.main()" sweep ...`, so
that it knows, not guesses from CPU times, which process is in which run: every run, in the
sweep's process or in a worker, appends "start PID ROW" to the file named by RUN_LOG before it
simulates and "end PID ROW" once it has its summary, before the summary is sent back (so a run
without its end line is still held by its process). Everything else is the real command line.
"""

from __future__ import annotations

import importlib
import os
import sys

SWEEP = importlib.import_module("flushsim.sweep")  # the module: `flushsim.sweep` is the function
RUN_LOG = "FLUSHSIM_TEST_RUN_LOG"
_run_task = SWEEP._run_task  # the real one, also in a worker, which imports this module afresh


def traced_run_task(task, *args):
    """flushsim.sweep._run_task between a start and an end line."""
    _note("start", task.index)
    result = _run_task(task, *args)
    _note("end", task.index)
    return result


def _note(event: str, row: int) -> None:
    # one write of one line to an O_APPEND file: lines from several processes never mix
    fd = os.open(os.environ[RUN_LOG], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, f"{event} {os.getpid()} {row}\n".encode())
    finally:
        os.close(fd)


def main() -> int:
    """The command line, its sweep runs traced (the workers get the traced function by name)."""
    from flushsim import cli

    SWEEP._run_task = traced_run_task
    return cli.main(sys.argv[1:])
