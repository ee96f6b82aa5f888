"""Kernel speed: simulated page accesses per second, numba kernel vs its pure-Python twin.

    python benchmarks/bench.py --json bench.json [--quick] [--preset-runs 3]

Writes rates (never asserted by tests): `kernel_page_accesses_per_s` on a cache-resident pool
(64k frames), `kernel_page_accesses_per_s_1m_frames` on a 1M-frame pool (cold, so partly
I/O-bound), and `reference_page_accesses_per_s` with `kernel_vs_reference` on a 16 MiB pool
that both can run (the twin takes 1 simulated second, the kernel 10). One thread
(numba.set_num_threads(1)); the kernel's figures are the best of 3 runs. `preset_seconds` is
the wall time of `fs.simulate` on each preset at its own length, once compiled, the best of
`--preset-runs` runs (what a user waits for a preset in the explorer or the CLI).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import flushsim as fs  # noqa: E402

# Cache-resident: 1 GiB pool (65,536 frames), a table that fits, OLTP-like mix.
SMALL = fs.Scenario(
    knobs={
        "innodb_buffer_pool_size": "1G",
        "table_rows": 3_000_000,
        "write_pct": 20,
        "threads": 16,
        "rows_per_trx": 10,
        "innodb_redo_log_capacity": "8G",
    },
    seconds=20,
    name="bench-64k-frames",
)
# Both kernels on the same small pool, for the ratio.
RATIO = fs.Scenario(
    knobs={
        "innodb_buffer_pool_size": "16M",
        "table_rows": 60_000,
        "write_pct": 20,
        "threads": 16,
        "rows_per_trx": 10,
    },
    seconds=10,
    name="bench-1k-frames",
)
# Memory-bound: 16 GiB pool (1,048,576 frames), a table 1.5x the pool.
LARGE = SMALL.replace(
    innodb_buffer_pool_size="16G", table_rows=107_000_000, seconds=5, name="bench-1m-frames"
)


def _rate(scenario: fs.Scenario, kernel: str, repeat: int) -> tuple[float, float, int]:
    best = float("inf")
    accesses = 0
    for _ in range(repeat):
        start = time.perf_counter()
        run = fs.simulate(scenario, kernel=kernel)
        elapsed = time.perf_counter() - start
        accesses = int(run.series["buffer_pool_read_requests"].sum())
        best = min(best, elapsed)
    return accesses / best, best, accesses


def _preset_seconds(repeat: int) -> dict[str, float]:
    """Wall time (s) of each preset's whole run, once compiled: the best of `repeat` runs."""
    best = {}
    for name in fs.presets.names():
        scenario = fs.presets.get(name)
        fs.simulate(scenario, seconds=1)  # loads (or compiles) the kernel outside the timing
        times = []
        for _ in range(repeat):
            start = time.perf_counter()
            fs.simulate(scenario)
            times.append(time.perf_counter() - start)
        best[name] = round(min(times), 3)
    return best


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", required=True, help="output file")
    ap.add_argument("--quick", action="store_true", help="skip the 1M-frame pool")
    ap.add_argument("--preset-runs", type=int, default=3, help="runs of each preset (best kept)")
    args = ap.parse_args()
    if args.preset_runs < 1:
        ap.error(f"--preset-runs {args.preset_runs}: must be 1 or more")
    import numba

    numba.set_num_threads(1)
    fs.simulate(SMALL, seconds=1)  # compile or load numba's cache outside the timing
    kernel_rate, kernel_s, kernel_n = _rate(SMALL, "numba", 3)
    ratio_kernel, _, _ = _rate(RATIO, "numba", 3)
    ref_rate, ref_s, ref_n = _rate(RATIO.replace(seconds=1), "reference", 1)
    result = {
        "kernel_page_accesses_per_s": kernel_rate,
        "reference_page_accesses_per_s": ref_rate,
        "kernel_page_accesses_per_s_ratio_scenario": ratio_kernel,
        "kernel_vs_reference": ratio_kernel / ref_rate,
        "kernel_seconds": kernel_s,
        "kernel_page_accesses": kernel_n,
        "reference_seconds": ref_s,
        "reference_page_accesses": ref_n,
        "scenario": SMALL.name,
        "ratio_scenario": RATIO.name,
        "threads": numba.get_num_threads(),
        "python": platform.python_version(),
        "numba": numba.__version__,
        "cpu_count": os.cpu_count(),
    }
    if not args.quick:
        rate, secs, n = _rate(LARGE, "numba", 1)
        result.update(
            {
                "kernel_page_accesses_per_s_1m_frames": rate,
                "kernel_seconds_1m_frames": secs,
                "kernel_page_accesses_1m_frames": n,
            }
        )
    result["preset_seconds"] = _preset_seconds(args.preset_runs)
    result["preset_runs"] = args.preset_runs
    Path(args.json).write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
