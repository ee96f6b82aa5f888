"""sweep(): a grid of what-ifs, one summary row per configuration and seed, on every core.

`fs.sweep(scenario, grid={"innodb_io_capacity_max": [1000, 2000, 4000]}, seeds=3)` builds one
Scenario per point of the grid's cross product (every one validated before anything runs, so a
bad value fails at once naming the knob and its range), simulates each with each seed in
worker processes (or on a Dask cluster with `client=`), and returns a polars table:

- the grid's knobs (the values asked for) and `seed`; `adjustments` lists what the server would
  have changed at startup (e.g. `innodb_io_capacity` lowered to `innodb_io_capacity_max`);
- the summary figures of `summarize()` (SUMMARY_COLUMNS).

Grid points the server would run alike (innodb_io_capacity above innodb_io_capacity_max is
lowered to it at startup) are simulated once and share their numbers (`distinct_runs`).

An interrupt (Ctrl-C, or the notebook's stop button) keeps the rows already finished: the
table comes back shorter, with a warning saying how many rows are missing.
"""

from __future__ import annotations

import itertools
import math
import os
import signal
import threading
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, replace

import numpy as np
import polars as pl

from . import amplification, params, ssd
from .run import Run, latency_quantiles, simulate
from .scenario import Scenario

DEFAULT_DRIVE = "intel-dc-p4610-1.6tb"
DEFAULT_FILL = 0.5
DEFAULT_FTL_MODEL = "desnoyers-greedy"
MAX_CONFIGS = 1_000_000
STALL_FRACTION = 0.5  # a second below half the run's median throughput is a stall second

# Pages flushed per second, by kind: InnoDB's counters, run means (pages/s).
FLUSH_KINDS = (
    "buffer_LRU_batch_flush_total_pages",
    "buffer_flush_adaptive_total_pages",
    "buffer_flush_background_total_pages",
    "buffer_flush_sync_total_pages",
    "sim_single_page_flushes",
)

# name -> what it is (units in brackets); the order of the summary columns.
SUMMARY_COLUMNS = {
    "tps_mean": "transactions per second, mean over the summarised seconds [trx/s]",
    "tps_p1": "per-second throughput that 99 % of the seconds reached (1st percentile) [trx/s]",
    "trx_latency_p99_ms": "99th percentile transaction latency over the whole run [ms]",
    "stall_seconds": (
        f"seconds whose throughput fell below {STALL_FRACTION:.0%} of the run's median [s]"
    ),
    "buffer_pool_wait_free": "Innodb_buffer_pool_wait_free, total over the run [waits]",
    **{k: f"{k}, mean per second [pages/s]" for k in FLUSH_KINDS},
    "pages_flushed_per_s": "all page writes of the kinds above, mean [pages/s]",
    "updates_per_page_flushed": "rows changed per page written (write combining) [rows/page]",
    "buffer_pool_pages_dirty_max": "most dirty pages at the end of any second [pages]",
    "checkpoint_age_max_pct_async": (
        "largest checkpoint age as % of log_max_modified_age_async [%]"
    ),
    "bytes_written_per_day": (
        "data pages + doublewrite + redo handed to the drive, at the mean rate [bytes/day]"
    ),
    "ssd_lifetime_years": "years the drive lasts at that write rate (flushsim.ssd) [years]",
}


@dataclass(frozen=True)
class WearSetting:
    """The drive a sweep projects SSD lifetime for.

    Attributes:
        drive: catalog name (`data/ssd_catalog.csv`) or an `ssd.Drive`.
        fill: fraction of the drive holding data (0 to 0.95).
        model: the FTL write-amplification model (`ssd.write_amplification`).
    """

    drive: str | ssd.Drive = DEFAULT_DRIVE
    fill: float = DEFAULT_FILL
    model: str = DEFAULT_FTL_MODEL

    def resolved(self) -> ssd.Drive:
        """The Drive, checked (an unknown catalog name raises ValueError naming the choices)."""
        return self.drive if isinstance(self.drive, ssd.Drive) else ssd.drive(self.drive)


def summarize(run: Run, *, warmup_s: int = 0, wear: WearSetting | None = None) -> dict[str, float]:
    """The summary figures (SUMMARY_COLUMNS) of one run, skipping the first `warmup_s` seconds.

    Every run starts like a freshly started server; `warmup_s` leaves out the seconds before
    adaptive flushing has its averages (about `innodb_flushing_avg_loops` seconds).
    """
    wear = wear or WearSetting()
    s = run.series
    if not 0 <= warmup_s < s.height:
        raise ValueError(
            f"warmup_s={warmup_s!r} must be between 0 and {s.height - 1} "
            f"(the run is {s.height} s long)"
        )
    s = s.slice(warmup_s)
    tps = s["sim_tps"].to_numpy().astype(np.float64)
    median = float(np.median(tps))
    flushed = {k: float(s[k].mean()) for k in FLUSH_KINDS}
    total_flushed = float(
        s["buffer_LRU_batch_flush_total_pages"].sum()
        + s["buffer_flush_batch_total_pages"].sum()
        + s["sim_single_page_flushes"].sum()
    )
    updates = float(s["dml_updates"].sum())
    hist = run.latency_hist[warmup_s:].sum(axis=0, keepdims=True)
    p99 = float(latency_quantiles(hist, 0.99)[0])
    age = (s["log_lsn_checkpoint_age"] / s["log_max_modified_age_async"]).max()
    # the whole run's, then cut: redo bytes are differences of consecutive LSNs
    db_bytes_per_s = float(amplification.db_bytes(run).slice(warmup_s).mean() or 0.0)
    years = wear.resolved().lifetime_years(db_bytes_per_s, fill=wear.fill, model=wear.model)
    return {
        "tps_mean": float(tps.mean()),
        "tps_p1": float(np.percentile(tps, 1)),
        "trx_latency_p99_ms": p99,
        "stall_seconds": float(np.count_nonzero(tps < STALL_FRACTION * median)),
        "buffer_pool_wait_free": float(s["buffer_pool_wait_free"].sum()),
        **flushed,
        "pages_flushed_per_s": total_flushed / s.height,
        "updates_per_page_flushed": updates / total_flushed if total_flushed else math.inf,
        "buffer_pool_pages_dirty_max": float(s["buffer_pool_pages_dirty"].max()),
        "checkpoint_age_max_pct_async": 100.0 * float(age or 0.0),
        "bytes_written_per_day": db_bytes_per_s * amplification.SECONDS_PER_DAY,
        "ssd_lifetime_years": float(years),
    }


# ---------------------------------------------------------------- the grid
def expand(scenario: Scenario, grid: Mapping[str, Sequence[object]]) -> list[dict[str, object]]:
    """The grid's cross product as a list of {knob: value}, first knob varying slowest.

    Raises:
        ValueError: an empty grid, a knob the engine does not have, an empty or non-list value
            list, or more than MAX_CONFIGS points.
    """
    if not isinstance(grid, Mapping) or not grid:
        raise ValueError("grid must be a non-empty mapping of knob name -> list of values")
    names = []
    for name, values in grid.items():
        if not isinstance(name, str):
            raise ValueError(f"grid key {name!r} must be a knob name")
        if name not in scenario.values:
            raise ValueError(
                params.missing_message(name, scenario.engine)
                if _is_knob(name)
                else params.unknown_message(name)
            )
        if isinstance(values, str | bytes) or not isinstance(values, Iterable):
            raise ValueError(f"grid[{name!r}] must be a list of values, not {values!r}")
        if not list(values):
            raise ValueError(f"grid[{name!r}] is empty: give at least one value")
        names.append(name)
    count = math.prod(len(list(v)) for v in grid.values())
    if count > MAX_CONFIGS:
        raise ValueError(f"the grid has {count:,} points; sweep() runs at most {MAX_CONFIGS:,}")
    # "512M" or "ON" as a my.cnf would say them: typed values, so the columns sort as numbers
    axes = [[params.parse_value(n, v) if isinstance(v, str) else v for v in grid[n]] for n in names]
    return [dict(zip(names, combo, strict=True)) for combo in itertools.product(*axes)]


def _is_knob(name: str) -> bool:
    try:
        params.get(name)
    except (KeyError, ValueError):
        return False
    return True


def _seeds(scenario: Scenario, seeds: int | Sequence[int]) -> list[int]:
    if isinstance(seeds, bool):
        raise ValueError(f"seeds={seeds!r} must be a count (1 to 1000) or a list of seeds")
    if isinstance(seeds, int):
        if not 1 <= seeds <= 1000:
            raise ValueError(f"seeds={seeds!r} must be between 1 and 1000")
        return [scenario.seed + k for k in range(seeds)]
    out = list(seeds)
    if not out or any(isinstance(x, bool) or not isinstance(x, int) or x < 0 for x in out):
        raise ValueError(f"seeds={seeds!r} must be a count or a non-empty list of seeds >= 0")
    return out


@dataclass(frozen=True)
class Task:
    """One simulation of a sweep: where its row goes, its grid point and its Scenario."""

    index: int
    point: Mapping[str, object]
    scenario: Scenario
    adjustments: str


def plan(
    scenario: Scenario, grid: Mapping[str, Sequence[object]], seeds: int | Sequence[int] = 1
) -> list[Task]:
    """Every (grid point, seed) as a validated Task, in row order; nothing is simulated.

    Raises:
        ValueError: as `expand`, or a grid value the knob does not accept, naming the point.
    """
    if not isinstance(scenario, Scenario):
        raise TypeError(f"sweep() takes a Scenario, not {type(scenario).__name__}")
    tasks = []
    seed_list = _seeds(scenario, seeds)
    for point in expand(scenario, grid):
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", params.FlushsimWarning)
                sc = scenario.replace(**point)
        except ValueError as exc:
            where = ", ".join(f"{k}={v!r}" for k, v in point.items())
            raise ValueError(f"grid point {where}: {exc}") from None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", params.FlushsimWarning)  # caught once, above
            copies = [sc.replace(seed=seed) for seed in seed_list]
        notes = [str(w.message) for w in caught]
        # the timeline's SET GLOBAL wins from its time on: say so rather than sweep in silence
        notes += [
            f"the timeline sets {k} at {t:g} s: the grid's value holds until then"
            for t, action, k, _ in sc.changes
            if action == "set" and k in point
        ]
        adjusted = "; ".join(dict.fromkeys(notes))
        tasks += [Task(len(tasks) + k, point, c, adjusted) for k, c in enumerate(copies)]
    return tasks


def distinct_runs(tasks: Sequence[Task]) -> tuple[list[Task], dict[int, list[int]]]:
    """The tasks to simulate, one per distinct run, and the rows each one's numbers fill.

    Grid points that the server would run alike are one run: e.g. innodb_io_capacity 3000 with
    innodb_io_capacity_max 200 is lowered to 200 at startup, exactly the point (200, 200). A run
    is its engine, every resolved knob, its timeline, length and seed, all the kernel reads.
    """
    first: dict[tuple, int] = {}
    rows_of: dict[int, list[int]] = {}
    for task in tasks:
        sc = task.scenario
        key = (sc.engine, sc.seconds, sc.seed, repr(sorted(sc.values.items())), repr(sc.changes))
        index = first.setdefault(key, task.index)
        rows_of.setdefault(index, []).append(task.index)
    return [tasks[i] for i in rows_of], rows_of


# ---------------------------------------------------------------- running
def _run_task(task: Task, warmup_s: int, wear: WearSetting) -> tuple[int, dict[str, float]]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", params.FlushsimWarning)  # reported once, by plan()
        run = simulate(task.scenario)
    return task.index, summarize(run, warmup_s=warmup_s, wear=wear)


def _worker_init() -> None:
    # Ctrl-C goes to the whole process group: the parent decides, workers must not die noisily.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def local_cores() -> int:
    """Cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def _progress(total: int, enabled: bool):
    if not enabled:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=total, desc="sweep", unit="run")


def sweep(
    scenario: Scenario,
    grid: Mapping[str, Sequence[object]],
    seeds: int | Sequence[int] = 1,
    *,
    workers: int | None = None,
    client=None,
    progress: bool = True,
    warmup_s: int = 0,
    drive: str | ssd.Drive = DEFAULT_DRIVE,
    fill: float = DEFAULT_FILL,
    ftl_model: str = DEFAULT_FTL_MODEL,
    on_row: Callable[[dict[str, object]], None] | None = None,
) -> pl.DataFrame:
    """Simulate every point of `grid` with every seed; one summary row each.

    Args:
        scenario: the base what-if; the grid's knobs replace its values.
        grid: knob name -> list of values; the runs are the cross product.
        seeds: how many seeds (scenario.seed, +1, ...) or the list of seeds.
        workers: cores to run on (default: every core this process may use): this process
            and `workers - 1` worker processes; 1 runs everything in this process.
        client: a `dask.distributed.Client`: run on its cluster instead of local processes.
        progress: show a progress bar (a widget in notebooks, a line in a terminal).
        warmup_s: seconds at the start of every run left out of the summary.
        drive: the SSD whose lifetime is projected: a catalog name or an `ssd.Drive`.
        fill: fraction of that drive holding data (0 to 0.95).
        ftl_model: its FTL write-amplification model (`ssd.write_amplification`).
        on_row: called with each finished row, in the order the runs finish.

    Returns:
        A polars DataFrame, one row per (grid point, seed) in grid order: the grid's knobs,
        `seed`, `adjustments` and SUMMARY_COLUMNS. After an interrupt, only the finished rows.

    Raises:
        ValueError: a bad grid, seed list, worker count, warm-up or drive, before any run.
    """
    tasks = plan(scenario, grid, seeds)
    if not 0 <= warmup_s < scenario.seconds:
        raise ValueError(f"warmup_s={warmup_s!r} must be between 0 and {scenario.seconds - 1}")
    wear = WearSetting(drive, fill, ftl_model)
    wear = replace(wear, drive=wear.resolved())  # the catalog read once, not every run (0.4 ms)
    ssd.write_amplification(fill, ftl_model)  # a bad fill or model fails here, not in a worker
    if workers is None:
        workers = local_cores()
    if isinstance(workers, bool) or not isinstance(workers, int) or not 1 <= workers <= 256:
        raise ValueError(f"workers={workers!r} must be a whole number between 1 and 256")
    results: dict[int, dict[str, float]] = {}
    runs, rows_of = distinct_runs(tasks)
    ctx = _mp_context() if client is None and workers > 1 and len(runs) > 1 else None
    bar = _progress(len(tasks), progress)

    def done(index: int, summary: dict[str, float]) -> None:
        for row in rows_of[index]:
            results[row] = summary
            if bar is not None:
                bar.update(1)
            if on_row is not None:
                on_row(_row(tasks[row], summary))

    try:
        if client is not None:
            _run_dask(client, runs, warmup_s, wear, done)
        elif workers == 1 or len(runs) == 1:
            for task in runs:
                done(*_run_task(task, warmup_s, wear))
        else:
            _run_local(ctx, runs, min(workers, len(runs)), warmup_s, wear, done)
    except KeyboardInterrupt:
        warnings.warn(
            f"sweep interrupted: {len(results)} of {len(tasks)} rows finished; "
            "returning those rows",
            RuntimeWarning,
            stacklevel=2,
        )
    finally:
        if bar is not None:
            bar.close()
    return _table(tasks, results, list(grid))


def _mp_context():
    import multiprocessing

    # Never fork this process: polars' thread pool (and a notebook kernel's threads) would be
    # copied with their locks held. The fork server starts clean, loads the kernels once
    # (flushsim._sweep_preload) and forks the workers from itself.
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(["flushsim._sweep_preload"])
    return ctx


def _run_local(ctx, tasks, workers, warmup_s, wear, done) -> None:
    """Run `tasks` on `workers` cores: this process and `workers - 1` worker processes.

    Starting the workers takes about 0.7 s (the fork server imports flushsim and loads the
    kernels), and `pool.submit` blocks meanwhile: a thread starts them while this process
    simulates. Only this thread calls `done`.
    """
    children = workers - 1
    pool = ProcessPoolExecutor(max_workers=children, mp_context=ctx, initializer=_worker_init)
    pending: set[Future] = set()
    queue = iter(tasks)
    lock = threading.Lock()  # the queue is shared with the starter thread
    failed: list[BaseException] = []

    def take() -> Task | None:
        with lock:
            return next(queue, None)

    def feed() -> None:
        # Each worker gets one run queued behind the one it runs: at the end, this process
        # waits for at most one run per worker, and an interrupt has little to cancel.
        while len(pending) < 2 * children:
            task = take()
            if task is None:
                return
            pending.add(pool.submit(_run_task, task, warmup_s, wear))

    def start() -> None:
        try:
            # The first submit blocks until a worker runs: hold no run while it does. Its
            # result says whether the worker could start (BrokenProcessPool if not).
            pool.submit(int).result()
            feed()
        except BaseException as exc:  # a broken pool, or the shutdown after an interrupt
            failed.append(exc)

    def collect(timeout: float | None) -> None:
        finished, _ = wait(pending, timeout=timeout, return_when=FIRST_COMPLETED)
        for fut in finished:
            pending.discard(fut)
            done(*fut.result())

    def started() -> bool:
        if starter.is_alive():
            return False
        if failed:
            raise failed[0]
        return True  # from now on `pending` is this thread's alone

    starter = threading.Thread(target=start, name="flushsim-sweep-start", daemon=True)
    starter.start()
    try:
        while (task := take()) is not None:
            done(*_run_task(task, warmup_s, wear))
            if started():
                collect(0)
                feed()
        starter.join()
        started()
        while pending:
            collect(None)
            feed()
    except BrokenProcessPool:
        _stop(pool, pending)
        raise RuntimeError(_BROKEN) from None
    except BaseException:
        _stop(pool, pending)
        raise
    pool.shutdown(wait=True)


def _stop(pool: ProcessPoolExecutor, pending: set[Future]) -> None:
    """Cancel what is queued and stop the worker processes."""
    for fut in list(pending):  # the starter thread may still be adding to it
        fut.cancel()
    # Running simulations are not interruptible: stop their processes.
    for proc in list(getattr(pool, "_processes", {}).values()):
        proc.terminate()
    pool.shutdown(wait=False, cancel_futures=True)


_BROKEN = (
    "sweep(): the worker processes died while starting. In a script, call sweep() under "
    '`if __name__ == "__main__":` (Python re-imports the script in every worker process), '
    "or pass workers=1"
)


def _run_dask(client, tasks, warmup_s, wear, done) -> None:
    from distributed import as_completed

    futures = client.map(_run_task, tasks, warmup_s=warmup_s, wear=wear, pure=False)
    try:
        for fut in as_completed(futures):
            done(*fut.result())
    except BaseException:
        client.cancel(futures)
        raise


def _row(task: Task, summary: Mapping[str, float]) -> dict[str, object]:
    return {
        **task.point,
        "seed": task.scenario.seed,
        "adjustments": task.adjustments,
        **summary,
    }


def _table(tasks: list[Task], results: Mapping[int, dict[str, float]], knobs: list[str]):
    schema = {k: _dtype([t.point[k] for t in tasks]) for k in knobs}
    schema |= {"seed": pl.Int64, "adjustments": pl.String}
    schema |= {k: pl.Float64 for k in SUMMARY_COLUMNS}
    rows = [_row(tasks[i], results[i]) for i in sorted(results)]
    for row in rows:
        for k in knobs:
            if schema[k] == pl.String:
                row[k] = str(row[k])
            elif schema[k] == pl.Float64:
                row[k] = float(row[k])
    return pl.DataFrame(rows, schema=schema, orient="row") if rows else pl.DataFrame(schema=schema)


def _dtype(values: Sequence[object]):
    """One column type for a knob's grid values (mixed ints and floats are floats)."""
    if all(isinstance(v, bool) for v in values):
        return pl.Boolean
    if any(isinstance(v, bool) for v in values):
        return pl.String
    if all(isinstance(v, int) for v in values):
        return pl.Int64
    if all(isinstance(v, int | float) for v in values):
        return pl.Float64
    return pl.String


def by_config(table: pl.DataFrame, knobs: Sequence[str] | None = None) -> pl.DataFrame:
    """Mean over seeds of every summary column, one row per grid point (`runs`: seeds averaged).

    `knobs` defaults to the table's columns before `seed`.
    """
    if knobs is None:
        knobs = table.columns[: table.columns.index("seed")]
    summary = [c for c in SUMMARY_COLUMNS if c in table.columns]
    return (
        table.group_by(list(knobs), maintain_order=True)
        .agg(
            pl.len().alias("runs"),
            pl.col("adjustments").first(),
            *[pl.col(c).mean() for c in summary],
        )
        .sort(list(knobs))
    )
