"""How fast this machine's CPU is right now, for reading the other benchmarks' numbers.

This VM's speed drifts. Within one session the loop below took 0.28 to 0.51 s, and the same
code's explorer warm start took 4.6 to 5.4 s (5 page loads each) and its slider redraw 90 to
109 ms (40 presses each), without the two moving together: the loop times one core at its
best, the explorer three processes on two cores. Each benchmark writes the loop's time next
to its results (`cpu_calibration_s`) as context only; to compare two versions, run them back
to back, alternating (the kernel reports no steal time to read instead).
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
