"""Faults injected for real into `python -m flushsim sweep` (issue #34, items 1 and 3).

Each test starts a real sweep in a subprocess, then signals it or SIGKILLs one of its worker
processes by pid (psutil), as `timeout`, systemd or the OOM killer would, and checks the
exit status, the one-line report, the rows in the file, and that no process is left behind
(fork server, resource tracker, workers). docs/reliability.md tabulates what was tried.
"""

from __future__ import annotations

import re
import signal
import time

import polars as pl
import pytest
from sweep_process import SweepProcess

import flushsim
from flushsim import presets
from flushsim._sweep_workers import RUNS_IN_FLIGHT

pytestmark = pytest.mark.slow

IO_CAPACITY = "innodb_io_capacity=100,200,300,400,500,600"
POINTS = 6
# each run must outlast the worker's start (~1 s) by far, or this process runs them all
RUN_WALL_S = 4.0


@pytest.fixture(scope="module")
def seconds() -> int:
    """Simulated seconds of the default preset that take about RUN_WALL_S here.

    Measured, not fixed: a run of 180 s took 4-6 s on the 2-core VM and 0.3 s on a CI machine,
    where the sweep ended before its worker process had started.
    """
    flushsim.simulate(presets.get("default"), seconds=10)  # compile or load the cache
    start = time.perf_counter()
    flushsim.simulate(presets.get("default"), seconds=60)
    per_second = (time.perf_counter() - start) / 60
    return int(min(3600, max(60, RUN_WALL_S / per_second)))


@pytest.fixture
def args(seconds) -> list[str]:
    return ["--seconds", str(seconds), "--grid", IO_CAPACITY, "--workers", "2"]


def _named(stderr: str) -> list[int]:
    """The io_capacity of every point the report names as missing."""
    return sorted(int(v) for v in re.findall(r"innodb_io_capacity=(\d+) seed=1", stderr))


@pytest.mark.parametrize(
    "sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT], ids=lambda s: s.name
)
def test_a_stop_signal_writes_the_finished_rows_and_leaves_no_process(tmp_path, args, sig):
    sw = SweepProcess(tmp_path, args)
    seen = sw.wait_for(sw.finished, 240, "finished run")
    worker, _ = sw.busy_worker(60)  # a worker mid-run too: there is something to stop
    sw.proc.send_signal(sig)
    sw.thaw(worker)
    status = sw.finish()
    err = sw.stderr
    assert status == 128 + sig, err
    assert "Traceback" not in err
    name = "Ctrl-C" if sig == signal.SIGINT else sig.name
    assert f"rows finished ({name}); returning those rows; not run: " in err
    table = pl.read_csv(sw.out)
    assert seen <= table.height < POINTS
    missing = sorted(set(range(100, 700, 100)) - set(table["innodb_io_capacity"]))
    assert _named(err) == missing  # every point not run is named
    last = err.strip().splitlines()[-1]
    assert last == (
        f"error: {POINTS - table.height} rows missing; the {table.height} finished rows are in "
        f"{sw.out}"
    )
    assert sw.leftovers() == []


def test_a_worker_killed_mid_run_costs_no_row(tmp_path, args):
    sw = SweepProcess(tmp_path, args)
    worker, _ = sw.busy_worker(240)
    worker.send_signal(signal.SIGKILL)  # as the OOM killer does
    status = sw.finish()
    err = sw.stderr
    assert status == 0, err
    assert f"worker process {worker.pid} was killed by SIGKILL: the " in err
    assert "given once more to another (0 lost a second time)" in err
    assert "died while starting" not in err and "Traceback" not in err
    table = pl.read_csv(sw.out)
    assert table["innodb_io_capacity"].to_list() == list(range(100, 700, 100))
    assert table["tps_mean"].min() > 0
    assert sw.leftovers() == []


def test_a_run_lost_twice_is_named_and_the_rest_kept(tmp_path, args):
    # --workers 2 is this process and one worker process: kill the worker mid-run, then the
    # replacement that takes its lost runs first, frozen mid-run too so it still holds them
    sw = SweepProcess(tmp_path, args)
    first, row = sw.busy_worker(240)
    first.send_signal(signal.SIGKILL)
    second, again = sw.busy_worker(240, exclude={first.pid})
    assert again == row  # the replacement's first run is the one the first worker lost
    second.send_signal(signal.SIGKILL)
    status = sw.finish()
    err = sw.stderr
    table = pl.read_csv(sw.out)
    missing = sorted(set(range(100, 700, 100)) - set(table["innodb_io_capacity"]))
    # the run lost twice, and at most the other run the first worker held: the rest is kept
    assert 100 * (row + 1) in missing, err
    assert len(missing) <= RUNS_IN_FLIGHT, err
    assert status == 1, err
    assert (
        f"{len(missing)} of {POINTS} rows lost: their run died with its worker process twice: "
        in err
    )
    assert _named(err) == missing
    assert err.strip().splitlines()[-1] == (
        f"error: {len(missing)} rows missing; the {table.height} finished rows are in {sw.out}"
    )
    assert "Traceback" not in err
    assert sw.leftovers() == []


def test_a_sweep_killed_outright_takes_its_workers_with_it(tmp_path, args):
    # kill -9 of the sweep itself: nothing can be written, but nothing may keep running either
    # (the workers ask Linux for SIGKILL when the fork server, their parent, exits with it)
    sw = SweepProcess(tmp_path, args)
    sw.thaw(sw.busy_worker(240)[0])
    assert len(sw.observe()) >= 3  # fork server, resource tracker, a worker
    sw.proc.send_signal(signal.SIGKILL)
    assert sw.finish() == -signal.SIGKILL
    assert sw.leftovers() == []
    assert not sw.out.exists()
    assert [p.name for p in tmp_path.iterdir()] == []  # no temporary file either


def test_a_million_point_grid_starts_at_once_and_keeps_its_rows_on_sigterm(tmp_path):
    # planned as it runs: the bar counts from the first second, memory stays that of the
    # rows (17 numbers each), and SIGTERM keeps what finished
    depths = ",".join(str(d) for d in range(100, 1100))
    capacities = ",".join(str(c) for c in range(200, 1200))
    sw = SweepProcess(
        tmp_path,
        [
            "--seconds",
            "2",
            "--grid",
            f"innodb_io_capacity={capacities}",
            "--grid",
            f"innodb_lru_scan_depth={depths}",
            "--workers",
            "2",
        ],
    )
    sw.wait_for(lambda: "/1000000 [" in sw.stderr, 60, "progress bar")
    sw.wait_for(lambda: sw.finished() >= 20, 240, "20 finished runs")
    rss_mb = sw.main.memory_info().rss / 2**20
    sw.proc.send_signal(signal.SIGTERM)
    assert sw.finish() == 143, sw.stderr
    table = pl.read_csv(sw.out)
    assert table.height >= 20
    assert table["innodb_io_capacity"].unique().to_list() == [200]
    depths = table["innodb_lru_scan_depth"].to_list()
    assert depths == sorted(set(depths)) and depths[0] >= 100  # grid order, no row twice
    # runs end out of order (the sweep's process and a worker each hold one): only those still
    # running at the signal are missing below the last row kept
    assert len(set(range(100, depths[-1])) - set(depths)) <= 4, depths
    assert "not run: " in sw.stderr and "more" in sw.stderr
    assert rss_mb < 1024, f"the sweep's process held {rss_mb:.0f} MB"
    assert sw.leftovers() == []
