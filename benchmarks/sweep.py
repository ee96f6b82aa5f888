"""Sweep speed: configurations of the default scenario per second, and the two-core speedup.

    python benchmarks/sweep.py --json sweep.json [--configs 1000] [--speedup-runs 100]
                              [--speedup-repeats 3]

`configs_per_s`: a sweep of 1,000 configurations (innodb_io_capacity x innodb_io_capacity_max
x innodb_lru_scan_depth, 10 values each) of the default scenario (60 simulated seconds each)
on every core, progress bar off; `--configs 100` takes the first 1 x 10 x 10. Goal (issue 8):
1,000 configurations in under a minute on this 2-core machine, >= 17 configs/s.
`distinct_runs`: the simulations that sweep ran (grid points the server runs alike,
innodb_io_capacity above innodb_io_capacity_max, run once: 710 of the 1,000), and
`distinct_runs_per_s` their rate, the simulator's own speed.
`two_core_speedup`: the time of `--speedup-runs` runs of the default scenario (seeds 1..N)
with workers=1 over the time with workers=2 (the timing process and one worker process, its
start-up included). This VM's second core is not always as fast as the first, so a single
ratio varied from 1.43 to 2.11 within a day: the measure is repeated `--speedup-repeats` times,
each in a fresh Python process (so each pays the worker's start-up: the fork server is started
once per process), and the median is reported, with every repeat's ratio in
`two_core_speedup_samples`. Goal >= 1.7.
`cpu_calibration_s`: how fast the CPU is just now (benchmarks/machine.py).
Never asserted by tests.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from machine import cpu_calibration_s, write_result  # noqa: E402

import flushsim as fs  # noqa: E402
from flushsim.sweep import distinct_runs, local_cores, plan  # noqa: E402

GRID = {
    "innodb_io_capacity": [100, 200, 300, 400, 600, 800, 1000, 1500, 2000, 3000],
    "innodb_io_capacity_max": [200, 400, 600, 800, 1000, 1500, 2000, 3000, 4000, 6000],
    "innodb_lru_scan_depth": [100, 128, 256, 384, 512, 768, 1024, 2048, 4096, 8192],
}


def _timed(scenario: fs.Scenario, grid: dict, seeds: int, workers: int) -> tuple[float, int]:
    start = time.perf_counter()
    rows = fs.sweep(scenario, grid, seeds=seeds, workers=workers, progress=False).height
    return time.perf_counter() - start, rows


def _speedup_once(runs: int) -> tuple[float, float]:
    """(one-core seconds, two-core seconds) for `runs` runs of the default scenario."""
    scenario = fs.presets.get("default")
    fs.simulate(scenario, seconds=1)  # compile or load the kernels outside the timings
    one_point = {"innodb_io_capacity": [200]}
    one, _ = _timed(scenario, one_point, runs, workers=1)
    two, _ = _timed(scenario, one_point, runs, workers=2)
    return one, two


def _speedup_in_fresh_process(runs: int) -> tuple[float, float]:
    out = subprocess.run(
        [sys.executable, __file__, "--speedup-once", str(runs)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    one, two = json.loads(out.strip().splitlines()[-1])
    return one, two


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", help="output file")
    ap.add_argument("--configs", type=int, choices=(10, 100, 1000), default=1000)
    ap.add_argument("--speedup-runs", type=int, default=100)
    ap.add_argument("--speedup-repeats", type=int, default=3)
    ap.add_argument("--speedup-once", type=int, help=argparse.SUPPRESS)  # one repeat, as JSON
    args = ap.parse_args()
    if args.speedup_once:
        print(json.dumps(_speedup_once(args.speedup_once)))
        return
    if not args.json:
        ap.error("--json is required")
    scenario = fs.presets.get("default")
    calibration = cpu_calibration_s()
    fs.simulate(scenario, seconds=1)  # compile or load the kernels outside the timings
    pairs = [_speedup_in_fresh_process(args.speedup_runs) for _ in range(args.speedup_repeats)]
    ratios = [one / two for one, two in pairs]
    one, two = pairs[ratios.index(statistics.median_low(ratios))]
    keep = {10: (1, 1, 10), 100: (1, 10, 10), 1000: (10, 10, 10)}[args.configs]
    grid = {k: v[:n] for (k, v), n in zip(GRID.items(), keep, strict=True)}
    cores = local_cores()
    wall, rows = _timed(scenario, grid, 1, workers=cores)
    # grid points the server runs alike (io_capacity above io_capacity_max) run once
    runs = len(distinct_runs(plan(scenario, grid))[0])
    result = {
        "scenario": f"default preset, {scenario.seconds} simulated seconds a run",
        "configs": rows,
        "workers": cores,
        "wall_s": round(wall, 2),
        "configs_per_s": round(rows / wall, 3),
        "configs_per_s_goal": 17,
        "distinct_runs": runs,
        "distinct_runs_per_s": round(runs / wall, 3),
        "speedup_runs": args.speedup_runs,
        "speedup_repeats": args.speedup_repeats,
        "one_core_s": round(one, 2),
        "two_core_s": round(two, 2),
        "two_core_speedup": round(one / two, 3),
        "two_core_speedup_samples": [round(r, 3) for r in ratios],
        "two_core_speedup_goal": 1.7,
        "cpu_calibration_s": calibration,
        "seconds_per_run_one_core": round(one / args.speedup_runs, 4),
    }
    write_result(args.json, result)


if __name__ == "__main__":
    main()
