"""A kernel change, timed against a git revision: alternating runs, and the series compared.

    python benchmarks/ab.py --base HEAD --json ab.json [--presets default,seed001-lru-burst]
                            [--pairs 3] [--repeats 3] [--runs 5] [--full]

The candidate is this checkout's `flushsim/` as it is on disk, edits included; the base is
`flushsim/` and `data/` at `--base`, exported with `git archive`. Each side runs in its own
Python process with its own numba cache (so neither loads the other's compiled code), and the
two alternate `--pairs` times: this VM's speed drifts by more than a kernel change moves it
(machine.py), so only interleaved timings can be compared. A process compiles or loads the
kernels, runs each preset once and hashes its per-second series (SHA-1 of the CSV), then times
`--runs` kernel calls `--repeats` times and keeps the best mean (ms a run). Presets other than
`default` run 20 simulated seconds, or their own length with `--full` (what a preset reaches
only later, such as seed003-lru-flush-size's whole-list searches from about 36 s, is then
compared too).

Writes, per preset: both sides' ms a run at every pair, `ratio` (median of the pairs'
candidate / base; below 1 is faster), and `series_identical` (every series hash of the
candidate equals the base's: a speed change must not move a number). Exits 1 if a series
differs. Never asserted by tests.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

from machine import cpu_calibration_s, write_result  # noqa: E402

SHORT_S = 20  # simulated seconds of a preset other than `default`


def _child(tree: str, presets: list[str], repeats: int, runs: int, full: bool) -> None:
    """Time the presets with the flushsim found in `tree`; print {preset: [hash, ms]} as JSON."""
    sys.path.insert(0, tree)
    import flushsim as fs
    from flushsim.kernels.sim import simulate_kernel
    from flushsim.run import kernel_inputs

    if not Path(fs.__file__).resolve().is_relative_to(Path(tree).resolve()):
        sys.exit(f"imported {fs.__file__}, not the flushsim of {tree}")
    result = {}
    for name in presets:
        scenario = fs.presets.get(name)
        if name != "default" and not full:
            scenario = scenario.replace(seconds=SHORT_S)
        series = fs.simulate(scenario).series  # compiles or loads the kernels first
        digest = hashlib.sha1(series.write_csv().encode()).hexdigest()[:12]
        best = float("inf")
        for _ in range(repeats):
            start = time.perf_counter()
            for _ in range(runs):
                simulate_kernel(*kernel_inputs(scenario).args())
            best = min(best, (time.perf_counter() - start) / runs)
        result[name] = [digest, round(best * 1000, 2)]
    print(json.dumps(result))


def _side(tree: Path, cache: Path, args: argparse.Namespace) -> dict[str, list]:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "PYTHONPATH": str(tree)}
    done = subprocess.run(
        [sys.executable, __file__, "--child", str(tree), "--presets", args.presets]
        + ["--repeats", str(args.repeats), "--runs", str(args.runs)]
        + (["--full"] if args.full else []),
        capture_output=True,
        text=True,
        env=env,
    )
    if done.returncode != 0:
        sys.exit(f"the {tree} side failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _export(rev: str, into: Path) -> str:
    """Write flushsim/ and data/ (the presets) at `rev` under `into`; returns the commit id."""
    commit = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--verify", f"{rev}^{{commit}}"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", commit, "flushsim", "data"],
        check=True,
        capture_output=True,
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return commit


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", default="HEAD", help="git revision to compare against")
    ap.add_argument("--json", help="output file")
    ap.add_argument("--presets", default="default", help="comma-separated preset names")
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--full", action="store_true", help="each preset's own length, not 20 s")
    ap.add_argument("--child", help=argparse.SUPPRESS)  # one side's timings, as JSON
    args = ap.parse_args()
    presets = [p for p in args.presets.split(",") if p]
    if args.child:
        _child(args.child, presets, args.repeats, args.runs, args.full)
        return
    if not args.json:
        ap.error("--json is required")
    for n in ("pairs", "repeats", "runs"):
        if getattr(args, n) < 1:
            ap.error(f"--{n} must be at least 1")
    sys.path.insert(0, str(ROOT))
    import flushsim as fs

    unknown = sorted(set(presets) - set(fs.presets.names()))
    if unknown or not presets:
        ap.error(f"--presets: unknown {unknown}; choose from {', '.join(fs.presets.names())}")
    with tempfile.TemporaryDirectory(prefix="flushsim-ab-") as tmp:
        work = Path(tmp)
        (work / "base").mkdir()
        commit = _export(args.base, work / "base")
        sides = {"base": work / "base", "candidate": ROOT}
        times = {side: {p: [] for p in presets} for side in sides}
        digests = {side: {} for side in sides}
        calibration = cpu_calibration_s()
        for _ in range(args.pairs):
            for side, tree in sides.items():
                for name, (digest, ms) in _side(tree, work / f"cache-{side}", args).items():
                    times[side][name].append(ms)
                    digests[side].setdefault(name, set()).add(digest)
    result = {
        "base": f"{args.base} ({commit[:12]})",
        "candidate": "this checkout's flushsim/, as on disk",
        "pairs": args.pairs,
        "simulated": "each preset's own length" if args.full else f"{SHORT_S} s (default: its own)",
        "runs_timed": f"best of {args.repeats} means of {args.runs} kernel runs",
        "cpu_calibration_s": calibration,
        "presets": {},
    }
    for name in presets:
        base, cand = times["base"][name], times["candidate"][name]
        result["presets"][name] = {
            "base_ms": base,
            "candidate_ms": cand,
            "ratio": round(statistics.median(c / b for b, c in zip(base, cand, strict=True)), 4),
            "base_series": sorted(digests["base"][name]),
            "candidate_series": sorted(digests["candidate"][name]),
            "series_identical": digests["base"][name] == digests["candidate"][name],
        }
    write_result(args.json, result)
    if not all(p["series_identical"] for p in result["presets"].values()):
        sys.exit(1)


if __name__ == "__main__":
    main()
