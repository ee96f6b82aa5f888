"""Where the kernel's time goes: `perf` samples of a preset's runs, by compiled function.

    python benchmarks/profile.py --json profile.json [--preset default] [--runs 10]
                                 [--freq 4000]

Needs Linux `perf` and `nm`. It samples the cpu-clock, so it works in a VM without hardware
counters. A child process loads the kernel from numba's cache (the parent fills the cache
first), and jitcode.py finds where each compiled function lies in memory: each sample's
address then maps to the function that holds it. `benchmarks/instructions.py` counts
instructions instead, exactly.

An inlined function counts as its caller: those marked `inline="always"` and the small ones
LLVM inlines on its own. So `event_loop` holds run_step, access_page, get_free_block, the
data-page reads (io.submit), the prefetch hints, the row draws and the event selection. A share
is of all the child's samples while it runs the preset `--runs` times. Samples outside numba's
code (Python, the kernel's system calls) are `unmapped_share`.

Keys: `per_run_ms` (best of the child's runs, perf sampling meanwhile: 5 to 10 % slower than
unsampled runs, 134 against 123 ms for the default preset), `samples`, `functions`
({module.function: share of samples}, largest first), `unmapped_share`, `cpu_calibration_s`.
Never asserted by tests.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from jitcode import by_function, compiled_functions  # noqa: E402


def _child(preset: str, runs: int, freq: int, workdir: Path) -> dict:
    """Run in a fresh process: load the kernel from the cache, sample `runs` runs with perf."""
    import flushsim as fs
    from flushsim.kernels.sim import simulate_kernel
    from flushsim.run import kernel_inputs

    scenario = fs.presets.get(preset)
    functions = compiled_functions(
        lambda: simulate_kernel(*kernel_inputs(scenario).args()), workdir
    )

    data = workdir / "perf.data"
    perf = subprocess.Popen(
        ["perf", "record", "-F", str(freq), "-q", "-o", str(data), "-p", str(os.getpid())],
        stderr=subprocess.PIPE,
        text=True,
    )
    time.sleep(0.5)  # perf attaches
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        simulate_kernel(*kernel_inputs(scenario).args())
        best = min(best, time.perf_counter() - start)
    perf.send_signal(signal.SIGINT)
    _, err = perf.communicate()
    if perf.returncode not in (0, -signal.SIGINT) or not data.exists():
        raise SystemExit(f"perf record failed ({perf.returncode}): {err.strip()}")
    ips = subprocess.run(
        ["perf", "script", "-i", str(data), "-F", "ip"], check=True, capture_output=True, text=True
    ).stdout.split()
    shares = by_function(collections.Counter(int(ip, 16) for ip in ips), functions)
    total = max(sum(shares.values()), 1)
    unmapped = shares.pop(None, 0)
    return {
        "per_run_ms": round(best * 1000, 1),
        "samples": total,
        "functions": {name: round(n / total, 4) for name, n in shares.most_common()},
        "unmapped_share": round(unmapped / total, 4),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", help="output file")
    ap.add_argument("--preset", default="default")
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--freq", type=int, default=4000, help="samples a second")
    ap.add_argument("--child", help=argparse.SUPPRESS)  # the sampled process's work directory
    args = ap.parse_args()
    if args.child:
        result = _child(args.preset, args.runs, args.freq, Path(args.child))
        print(json.dumps(result))
        return
    if not args.json:
        ap.error("--json is required")
    for tool in ("perf", "nm"):
        if shutil.which(tool) is None:
            raise SystemExit(f"{tool} is not installed (Debian: apt install linux-perf binutils)")
    from machine import cpu_calibration_s, write_result

    import flushsim as fs

    fs.simulate(fs.presets.get(args.preset), seconds=1)  # fill numba's cache for the child
    with tempfile.TemporaryDirectory() as workdir:
        child = subprocess.run(
            [sys.executable, __file__, "--child", workdir, "--preset", args.preset]
            + ["--runs", str(args.runs), "--freq", str(args.freq)],
            capture_output=True,
            text=True,
        )
    if child.returncode != 0:
        raise SystemExit(f"the sampled process failed: {child.stderr.strip()[-2000:]}")
    out = child.stdout
    result = {
        "preset": args.preset,
        "runs": args.runs,
        "freq": args.freq,
        **json.loads(out.strip().splitlines()[-1]),
        "cpu_calibration_s": cpu_calibration_s(),
    }
    write_result(args.json, result)


if __name__ == "__main__":
    main()
