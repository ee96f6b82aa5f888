"""How fast this machine's CPU is right now, for reading the other benchmarks' numbers.

This VM's CPU speed drifts: within one session the loop below took from 0.68 to 1.07 s, and
the explorer's warm start and slider latency moved with it. Each benchmark writes the loop's
time next to its results (`cpu_calibration_s`); compare two results only at similar values, or
better, run the two versions back to back.
"""

from __future__ import annotations

import time


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
