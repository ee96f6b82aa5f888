"""Where the kernel's time goes: `perf` samples of a preset's runs, by compiled function.

    python benchmarks/profile.py --json profile.json [--preset default] [--runs 10]
                                 [--freq 4000]

Needs Linux `perf` and `nm`. It samples the cpu-clock, so it works in a VM without hardware
counters. perf cannot name numba's code: it runs from memory the JIT wrote, with no symbols.
So a child process loads the kernel from numba's cache (the parent fills the cache first) and
keeps the object code it loads. `nm` lists that object's functions and their offsets, and the
function's address in memory gives the object's base. Each sample's address then maps to the
function that holds it.

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
import bisect
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

CODE_SYMBOL_TYPES = ("t", "T", "w", "W")  # nm: local, global and weak code symbols


def _demangle(symbol: str) -> str:
    """module.function of a numba symbol (_ZN8flushsim7kernels3sim10event_loopB3v41...)."""
    s = symbol.removeprefix("_ZN")
    parts, i = [], 0
    while i < len(s) and s[i].isdigit():
        j = i
        while s[j].isdigit():
            j += 1
        n = int(s[i:j])
        parts.append(s[j : j + n])
        i = j + n
    return ".".join(parts[-2:]) if len(parts) >= 2 else symbol


def _code_symbols(obj: Path) -> list[tuple[int, int, str, str]]:
    """(offset, size, nm's type letter, symbol) of every code symbol in an object file."""
    out = subprocess.run(
        ["nm", "--defined-only", "-S", str(obj)], check=True, capture_output=True, text=True
    ).stdout
    rows = []
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[2] in CODE_SYMBOL_TYPES:
            rows.append((int(parts[0], 16), int(parts[1], 16), parts[2], parts[3]))
    return rows


def _child(preset: str, runs: int, freq: int, workdir: Path) -> dict:
    """Run in a fresh process: load the kernel from the cache, sample `runs` runs with perf."""
    from numba.core import codegen

    loaded: list[tuple[object, bytes]] = []
    keep = codegen.CodeLibrary._set_compiled_object

    def remember(library, value):  # numba calls this with each object it loads from the cache
        loaded.append((library, value))
        return keep(library, value)

    codegen.CodeLibrary._set_compiled_object = remember

    import flushsim as fs
    from flushsim.kernels.sim import simulate_kernel
    from flushsim.run import kernel_inputs

    scenario = fs.presets.get(preset)
    simulate_kernel(*kernel_inputs(scenario).args())
    if not loaded:
        raise SystemExit("the kernel was compiled, not loaded from numba's cache: run again")
    functions = []  # (address, size, name)
    for k, (library, code) in enumerate(loaded):
        obj = workdir / f"library{k}.o"
        obj.write_bytes(code)
        symbols = _code_symbols(obj)
        base = None
        for offset, _size, kind, symbol in symbols:
            if kind != "T":  # a weak symbol may resolve to another library's copy
                continue
            try:
                address = library.get_pointer_to_function(symbol)
            except Exception:  # a symbol the engine did not export: try the next one
                continue
            if address:
                base = address - offset
                break
        if base is not None:
            functions += [(base + off, size, _demangle(sym)) for off, size, _, sym in symbols]
    functions.sort()
    starts = [f[0] for f in functions]

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
    shares: collections.Counter[str] = collections.Counter()
    for ip in ips:
        address = int(ip, 16)
        k = bisect.bisect_right(starts, address) - 1
        inside = k >= 0 and address < functions[k][0] + functions[k][1]
        shares[functions[k][2] if inside else "unmapped"] += 1
    total = max(sum(shares.values()), 1)
    unmapped = shares.pop("unmapped", 0)
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
