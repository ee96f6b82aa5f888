"""How fast this machine's CPU is right now, for reading the other benchmarks' numbers.

This VM's speed drifts. Within one session the loop below took 0.28 to 0.51 s, and the same
code's explorer warm start took 4.6 to 5.4 s (5 page loads each) and its slider redraw 90 to
109 ms (40 presses each), without the two moving together: the loop times one core at its
best, the explorer three processes on two cores. Each benchmark writes the loop's time next
to its results (`cpu_calibration_s`) as context only; to compare two versions, run them back
to back, alternating (the kernel reports no steal time to read instead).

`write_result` writes a benchmark's JSON with the Python version and machine it ran on.
"""

from __future__ import annotations

import json
import platform
import time
from pathlib import Path


def cpu_calibration_s(repeats: int = 3) -> float:
    """Best of `repeats` timings of 10 million additions in a pure-Python loop, in seconds."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        total = 0
        for i in range(10_000_000):
            total += i
        best = min(best, time.perf_counter() - start)
    return round(best, 3)


def write_result(path: str | Path, result: dict) -> None:
    """Write a benchmark's result as JSON, with the Python and machine it ran on, and print it."""
    result = {**result, "python": platform.python_version(), "machine": platform.machine()}
    Path(path).write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))
