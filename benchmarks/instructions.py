"""Instructions the kernel executes in a run: an exact count, by compiled function (valgrind).

    python benchmarks/instructions.py --json instructions.json [--preset default] [--runs 1]

Needs valgrind and `nm`; takes about a minute. A timing on this VM drifts by 2 to 5 % between
minutes, more than most code changes gain, while the instruction count of a run is the same at
every repeat: the same config and seed take the same path through the same code. For the
default preset it is also what the time follows: 0.88 billion instructions in a 120 ms run are
7.3 billion a second, 2 to 3 a cycle (2.8 at the 2.6 GHz this VM reports, 2.0 at a 3.7 GHz
boost), so the kernel is bound by the instructions it executes rather than by waiting on memory.

A child process runs under valgrind's callgrind. numba is told this machine's CPU name and
features, so it loads the kernel this machine's cache holds (the code that runs outside
valgrind) instead of compiling one for valgrind's emulated CPU, which takes minutes. Valgrind
3.19 has no AVX-512: on such a CPU (this VM's znver4) export NUMBA_CPU_NAME and a
NUMBA_CPU_FEATURES with every +avx512* turned to -avx512*; both processes then use them. It loads
the kernel without running it, jitcode.py maps the code, and then the preset runs `--runs`
times: every instruction counted in numba's code belongs to those runs. Instructions outside
it (numba's dispatcher, the allocator, Python) are not counted.

An inlined function counts as its caller, as in profile.py. Keys: `instructions_per_run`,
`instructions_per_row` (a row access: `dml_reads`), `rows_per_run`, `functions`
({module.function: instructions per run}, largest first), `cpu`. Never asserted by tests.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from jitcode import by_function, compiled_functions  # noqa: E402


def _child(preset: str, runs: int, workdir: Path) -> None:
    """Under valgrind: load the kernel, write its map, run the preset `runs` times."""
    from numba import typeof

    import flushsim as fs
    from flushsim.kernels.sim import simulate_kernel
    from flushsim.run import kernel_inputs
    from flushsim.schema import C_DML_READS

    args = kernel_inputs(fs.presets.get(preset)).args()
    signature = tuple(typeof(a) for a in args)
    functions = compiled_functions(lambda: simulate_kernel.compile(signature), workdir)
    rows = 0.0
    for _ in range(runs):
        out, _ = simulate_kernel(*args)
        rows += float(out[:, C_DML_READS].sum())
    (workdir / "map.json").write_text(json.dumps({"functions": functions, "rows": rows}))


def _instructions(callgrind_out: Path) -> dict[int, int]:
    """Instructions executed at each address, from callgrind's output (--dump-instr=yes)."""
    counts: dict[int, int] = collections.defaultdict(int)
    after_call = False
    with callgrind_out.open() as f:
        for line in f:
            if after_call:  # the line after calls= is the callee's inclusive cost: not ours
                after_call = False
                continue
            if line.startswith("calls="):
                after_call = True
            elif line.startswith("0x"):
                address, n = line.split()[:2]
                counts[int(address, 16)] += int(n)
    return counts


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", help="output file")
    ap.add_argument("--preset", default="default")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--child", help=argparse.SUPPRESS)  # the counted process's work directory
    args = ap.parse_args()
    if args.child:
        _child(args.preset, args.runs, Path(args.child))
        return
    if not args.json:
        ap.error("--json is required")
    if args.runs < 1:
        ap.error(f"--runs {args.runs}: must be 1 or more")
    for tool in ("valgrind", "nm"):
        if shutil.which(tool) is None:
            raise SystemExit(f"{tool} is not installed (Debian: apt install valgrind binutils)")
    import llvmlite.binding as ll
    from machine import write_result
    from numba.core.codegen import get_host_cpu_features

    import flushsim as fs

    fs.simulate(fs.presets.get(args.preset), seconds=1)  # fill numba's cache for the child
    # a target set in the environment wins, as it does for the parent's compile above: on a CPU
    # with AVX-512, which valgrind 3.19 cannot run, set NUMBA_CPU_FEATURES with -avx512*
    cpu = os.environ.get("NUMBA_CPU_NAME") or ll.get_host_cpu_name()
    features = os.environ.get("NUMBA_CPU_FEATURES") or get_host_cpu_features()
    env = {**os.environ, "NUMBA_CPU_NAME": cpu, "NUMBA_CPU_FEATURES": features}
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        out = workdir / "callgrind.out"
        child = subprocess.run(
            ["valgrind", "--tool=callgrind", "--dump-instr=yes", "--dump-line=no"]
            + ["--compress-pos=no", "--compress-strings=no", f"--callgrind-out-file={out}"]
            + [sys.executable, __file__, "--child", tmp, "--preset", args.preset]
            + ["--runs", str(args.runs)],
            capture_output=True,
            text=True,
            env=env,
        )
        if child.returncode != 0 or not (workdir / "map.json").exists():
            raise SystemExit(f"the counted process failed: {child.stderr.strip()[-2000:]}")
        mapped = json.loads((workdir / "map.json").read_text())
        by = by_function(_instructions(out), mapped["functions"])
    by.pop(None, None)  # outside numba's code
    total = sum(by.values())
    rows = mapped["rows"] / args.runs
    write_result(
        args.json,
        {
            "preset": args.preset,
            "runs": args.runs,
            "instructions_per_run": round(total / args.runs),
            "instructions_per_row": round(total / args.runs / rows, 1) if rows else None,
            "rows_per_run": round(rows),
            "functions": {name: round(n / args.runs) for name, n in by.most_common()},
            "cpu": cpu,
        },
    )


if __name__ == "__main__":
    main()
