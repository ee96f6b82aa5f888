"""Scale: memory per page and cost per page access for pools from 1 GiB to 64 GiB (4M pages).

    python benchmarks/scale.py --json scale.json [--sizes 1,4,16,64]

Each pool size runs in its own process (so peak RSS is that size's): the same OLTP mix
(uniform rows, a table twice the pool, 16 threads, 20 % writes) for 2 and for 12 simulated
seconds. Reported per size:
- `state_bytes_per_page`: the kernel's arrays per buffer-pool frame, from the layout
  (frame fields + per-frame work arrays), and `table_bytes_per_page` per table page;
- `rss_bytes_per_page`: (peak RSS - RSS before the run) / frames, measured;
- `setup_s`: the 2-second run less two seconds' worth of the per-second cost (allocation and
  start-up, O(pages));
- `ns_per_page_access`: the 10 extra seconds' wall time over their page accesses (O(events)).
Issue 8's goal: at most 64 bytes of state per page, a cost linear in pages and events.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from machine import write_result  # noqa: E402

GiB = 2**30


def _rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize()


def child(gib: int) -> dict:
    import flushsim as fs
    from flushsim.kernels import layout

    fs.simulate(fs.presets.get("default"), seconds=1)  # kernels loaded before the baseline
    frames = gib * GiB // 16384
    sc = fs.Scenario(
        knobs={
            "innodb_buffer_pool_size": gib * GiB,
            "table_rows": 2 * frames * 68,
            "threads": 16,
            "write_pct": 20,
            "innodb_redo_log_capacity": "8G",
        },
        seconds=2,
    )
    base = _rss_bytes()
    t0 = time.perf_counter()
    short = fs.simulate(sc)
    t1 = time.perf_counter()
    long = fs.simulate(sc, seconds=12)
    t2 = time.perf_counter()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    acc_short = int(short.series["buffer_pool_read_requests"].sum())
    acc_long = int(long.series["buffer_pool_read_requests"].sum())
    per_access = ((t2 - t1) - (t1 - t0)) / max(1, acc_long - acc_short)
    per_second = per_access * (acc_long - acc_short) / 10
    frame_bytes = 4 * layout.N_FRAME_I32 + 8 * layout.N_FRAME_I64
    work_bytes = 4 + 8  # the completion ring (frame, completion time); batches are staged in it
    return {
        "pool_gib": gib,
        "frames": frames,
        "table_pages": 2 * frames,
        "state_bytes_per_page": frame_bytes + work_bytes,
        "frame_field_bytes": frame_bytes,
        "work_array_bytes_per_frame": work_bytes,
        "table_bytes_per_page": 4,
        "rss_bytes_per_page": round((peak - base) / frames, 1),
        "setup_s": round((t1 - t0) - 2 * per_second, 3),
        "ns_per_page_access": round(per_access * 1e9, 1),
        "page_accesses_12s": acc_long,
        "wall_12s": round(t2 - t1, 3),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", help="output file")
    ap.add_argument("--sizes", default="1,4,16,64", help="pool sizes in GiB")
    ap.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(args.child)))
        return
    if not args.json:
        ap.error("--json is required")
    rows = []
    for gib in (int(x) for x in args.sizes.split(",")):
        out = subprocess.run(
            [sys.executable, __file__, "--child", str(gib)],
            capture_output=True,
            text=True,
            check=True,
        )
        rows.append(json.loads(out.stdout.strip().splitlines()[-1]))
        print(rows[-1], flush=True)
    result = {
        "sizes": rows,
        "state_bytes_per_page_goal": 64,
    }
    write_result(args.json, result)


if __name__ == "__main__":
    main()
