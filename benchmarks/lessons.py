"""Lesson time: each lesson run top to bottom at full length, as a trainer's room would run it.

    python benchmarks/lessons.py --json lessons.json [--lesson 07] [--fast] [--cells 3]

Runs notebooks/0*.ipynb (or those whose file name starts with a `--lesson` prefix, repeatable)
one after the other, each in a fresh kernel through nbclient, with FLUSHSIM_FAST unset (`--fast`
sets it, as the test suite does) and this checkout first on PYTHONPATH. Outputs stay in memory:
no notebook file is written. Per lesson: `seconds` (wall time from the kernel's start to the
end of the last cell), `slowest_cells` (the `--cells` slowest code cells: their index in
the notebook -> seconds, from nbclient's execution timestamps), `load_before` and `load_after`
(the 1-minute load average: the machine is shared, and a lesson's time means little without
it), and `error` when a cell failed. `cpu_calibration_s`: how fast one core is just now
(machine.py). Goal (issue 35): every lesson in at most 60 s. Never asserted by tests.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from machine import cpu_calibration_s, write_result  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
CELL_TIMEOUT_S = 1800


def _cell_seconds(cell) -> float | None:
    """A code cell's run time from nbclient's timestamps, or None if it did not run."""
    timing = cell.get("metadata", {}).get("execution", {})
    start, end = timing.get("iopub.execute_input"), timing.get("shell.execute_reply")
    if not (start and end):
        return None
    return (datetime.fromisoformat(end) - datetime.fromisoformat(start)).total_seconds()


def run_lesson(path: Path, cells: int) -> dict:
    """Run one notebook in a fresh kernel; its wall time, slowest cells and the machine's load."""
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb,
        timeout=CELL_TIMEOUT_S,
        kernel_name="python3",
        resources={"metadata": {"path": str(NOTEBOOKS)}},
    )
    load_before = os.getloadavg()[0]
    start = time.perf_counter()
    error = ""
    try:
        client.execute()
    except CellExecutionError as exc:  # the time so far is still worth reporting
        error = str(exc).strip().splitlines()[-1]
    seconds = time.perf_counter() - start
    timed = [(i, s) for i, c in enumerate(nb.cells) if (s := _cell_seconds(c)) is not None]
    slowest = sorted(timed, key=lambda pair: -pair[1])[:cells]
    result = {
        "seconds": round(seconds, 1),
        "slowest_cells": {str(i): round(s, 2) for i, s in slowest},
        "load_before": round(load_before, 2),
        "load_after": round(os.getloadavg()[0], 2),
    }
    if error:
        result["error"] = error
    return result


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", required=True, help="output file")
    ap.add_argument("--lesson", action="append", default=[], help="file name prefix, e.g. 07")
    ap.add_argument("--fast", action="store_true", help="set FLUSHSIM_FAST, as the tests do")
    ap.add_argument("--cells", type=int, default=3, help="slowest cells listed per lesson")
    args = ap.parse_args()
    lessons = sorted(NOTEBOOKS.glob("0*.ipynb"))
    if args.lesson:
        lessons = [p for p in lessons if any(p.name.startswith(x) for x in args.lesson)]
        if not lessons:
            ap.error(f"--lesson {' '.join(args.lesson)}: no notebooks/0*.ipynb starts so")
    # the kernels inherit this environment: this checkout's flushsim, full length or fast
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]
    )
    os.environ.pop("FLUSHSIM_FAST", None)
    if args.fast:
        os.environ["FLUSHSIM_FAST"] = "1"
    result = {
        "fast": args.fast,
        "cpu_calibration_s": cpu_calibration_s(),
        "cores": len(os.sched_getaffinity(0)),
        "lessons": {p.stem: run_lesson(p, args.cells) for p in lessons},
    }
    write_result(args.json, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
