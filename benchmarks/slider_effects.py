"""What each explorer slider changes in a preset: one slider at a time over its stops.

    python benchmarks/slider_effects.py [PRESET] [--set KNOB=VALUE ...] [--knob NAME ...]

For every slider of the explorer (flushsim/viz/explorer.py CHOICES, plus the SSD fill: `--knob
fill`) it runs the preset with that slider at each stop, the others at the preset's values, and
prints one row per stop: transactions a second, free-page waits (`Innodb_buffer_pool_wait_free`),
pages flushed a second by kind (LRU batch, flush list, single page), the share of page requests
read from the drive (miss%), the drive's lifetime in years (Desnoyers greedy FTL, the explorer's
default drive) and the host seconds the run took (the explorer redraws a whole run: about a
second is its budget). Used to choose the explorer's opening scenario (docs/training.md);
numbers are deterministic, times are not.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

import flushsim as fs  # noqa: E402
from flushsim.lifetime import run_lifetime  # noqa: E402
from flushsim.viz import sources  # noqa: E402
from flushsim.viz.explorer import CHOICES  # noqa: E402

FILLS = (0.0, 0.25, 0.5, 0.75, 0.9)


def measure(scenario: fs.Scenario, fill: float = 0.5) -> dict[str, float]:
    """The row of one run: throughput, waits, pages flushed by kind, lifetime, host time."""
    start = time.perf_counter()
    run = fs.simulate(scenario)
    host_s = time.perf_counter() - start
    s = run.series
    reads = float(s["buffer_pool_reads"].sum()) if "buffer_pool_reads" in s.columns else np.nan
    requests = (
        float(s["buffer_pool_read_requests"].sum())
        if "buffer_pool_read_requests" in s.columns
        else np.nan
    )
    years = run_lifetime(run, sources.default_ssd().drive, fill).years  # the explorer's
    return {
        "trx/s": float(s["sim_tps"].mean()),
        "wait_free": float(s["buffer_pool_wait_free"].sum()),
        "lru/s": float(s["buffer_LRU_batch_flush_total_pages"].mean()),
        "list/s": float(s["buffer_flush_batch_total_pages"].mean()),
        "single/s": float(s["sim_single_page_flushes"].mean()),
        "miss%": 100.0 * reads / requests if requests else np.nan,
        "years": float(years),
        "host_s": host_s,
    }


def _row(label: str, m: dict[str, float]) -> str:
    return f"{label:>28} " + " ".join(
        f"{m[k]:>9,.0f}" if k not in ("miss%", "host_s", "years") else f"{m[k]:>9.2f}" for k in m
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("preset", nargs="?", default="default")
    ap.add_argument("--set", action="append", default=[], metavar="KNOB=VALUE")
    ap.add_argument("--knob", action="append", default=[], help="only these sliders")
    args = ap.parse_args(argv)
    base = fs.presets.resolve(args.preset)
    for item in args.set:
        name, _, value = item.partition("=")
        base = base.replace(**{name: fs.params.parse_value(name, value)})
    fs.simulate(base, seconds=1)  # compile or load numba's cache before timing
    header = f"{'slider = stop':>28} " + " ".join(
        f"{k:>9}" for k in ("trx/s", "wait_free", "lru/s", "list/s", "single/s")
    )
    print(header + f" {'miss%':>9} {'years':>9} {'host_s':>9}")
    print(_row("(preset as is)", measure(base)))
    for name, stops in CHOICES.items():
        if args.knob and name not in args.knob:
            continue
        for v in stops:
            print(_row(f"{name} = {v:,}", measure(base.replace(**{name: v}))))
    if not args.knob or "fill" in args.knob:
        for f in FILLS:
            print(_row(f"SSD fill = {f:.0%}", measure(base, fill=f)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
