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

An interrupt (Ctrl-C, the notebook's stop button, or the command line's SIGTERM / SIGHUP) keeps
the rows already finished: the table comes back shorter, with an IncompleteSweep warning
naming the missing rows. A worker process that dies (an OOM kill) costs only the runs it held,
which another worker runs once more (`flushsim._sweep_workers`); a run lost twice is named in
that warning. A grid of STREAM_ROWS rows or more is planned as it runs: a progress bar from
the start, 17 numbers and a 16-byte key a row in memory, its values checked one by one before
the first run. docs/reliability.md says what was tried.
"""

from __future__ import annotations

import hashlib
import math
import os
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np
import polars as pl

from . import _sweep_workers, params, ssd
from .lifetime import run_lifetime
from .run import Run, latency_quantiles, simulate
from .scenario import MAX_SECONDS, Scenario
from .warmup import AUTO, AUTO_CAP_S, simulate_warm, warm_up

DEFAULT_DRIVE = "intel-dc-p4610-1.6tb"
DEFAULT_FILL = 0.5
DEFAULT_FTL_MODEL = ssd.DEFAULT_MODEL
MAX_CONFIGS = 1_000_000
STREAM_ROWS = 100_000  # from this many rows on, the plan is built as the runs go
STALL_FRACTION = 0.5  # a second below half the run's median throughput is a stall second

# Pages flushed per second, by kind: InnoDB's counters, run means (pages/s). Every page write
# is in one kind: buf_flush_page_coordinator_thread counts a sync round's LRU and flush-list
# pages both as sync pages (MONITOR_FLUSH_SYNC_TOTAL_PAGE). docs/model.md, "Pages flushed".
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
    "pages_flushed_per_s": (
        "the kinds above added up: every page written, mean [pages/s]; not "
        "buffer_flush_batch_total_pages, which leaves out a sync round's LRU pages and counts a "
        "flush-list batch when it starts, the kinds when the page cleaner's round does"
    ),
    "updates_per_page_flushed": "rows changed per page written (write combining) [rows/page]",
    "buffer_pool_pages_dirty_max": "most dirty pages at the end of any second [pages]",
    "checkpoint_age_max_pct_async": (
        "largest checkpoint age as % of log_max_modified_age_async [%]"
    ),
    "bytes_written_per_day": (
        "data pages + doublewrite + redo handed to the drive in a day, the load running at its "
        "mean rate 24 hours a day unless the knob ssd_hours_per_day says fewer [bytes/day]"
    ),
    "ssd_lifetime_years": (
        "years the drive lasts at that write rate, 24 hours a day unless the knob "
        "ssd_hours_per_day says fewer (flushsim.lifetime) [years]"
    ),
    "warmup_s": "seconds at the start left out of the summary (its own with warm-up auto) [s]",
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
    total_flushed = float(sum(s[k].sum() for k in FLUSH_KINDS))
    updates = float(s["dml_updates"].sum())
    hist = run.latency_hist[warmup_s:].sum(axis=0, keepdims=True)
    p99 = float(latency_quantiles(hist, 0.99)[0])
    age = (s["log_lsn_checkpoint_age"] / s["log_max_modified_age_async"]).max()
    life = run_lifetime(run, wear.resolved(), wear.fill, warmup_s=warmup_s, model=wear.model)
    db_bytes_per_s = life.write_bytes_per_s
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
        "bytes_written_per_day": db_bytes_per_s * life.hours_per_day * 3600.0,
        "ssd_lifetime_years": life.years,
        "warmup_s": float(warmup_s),
    }


# ---------------------------------------------------------------- the grid
class Grid:
    """A sweep's rows, numbered and never all built.

    Row i is grid point i // len(seeds) with seed i % len(seeds), the first knob varying
    slowest. A million-point grid is 17 numbers a row until its runs finish, not a million
    Scenarios.
    """

    def __init__(
        self,
        scenario: Scenario,
        grid: Mapping[str, Sequence[object]],
        seeds: int | Sequence[int] = 1,
    ):
        if not isinstance(scenario, Scenario):
            raise TypeError(f"sweep() takes a Scenario, not {type(scenario).__name__}")
        self.scenario = scenario
        self.knobs, self.axes = _axes(scenario, grid)
        self.seeds = _seeds(scenario, seeds)
        self.points = math.prod(len(a) for a in self.axes)
        if self.points > MAX_CONFIGS:
            raise ValueError(
                f"the grid has {self.points:,} points; sweep() runs at most {MAX_CONFIGS:,}"
            )
        self.rows = self.points * len(self.seeds)
        # digit of knob j in point p: (p // stride[j]) % len(axes[j])
        self._strides = [
            math.prod(len(a) for a in self.axes[j + 1 :]) for j in range(len(self.axes))
        ]

    def digits(self, rows: np.ndarray) -> list[np.ndarray]:
        """For each knob, the index into its values of each of `rows`."""
        points = np.asarray(rows, dtype=np.int64) // len(self.seeds)
        return [(points // st) % len(a) for st, a in zip(self._strides, self.axes, strict=True)]

    def point(self, row: int) -> dict[str, object]:
        """{knob: value} of a row's grid point."""
        digits = self.digits(np.array([row]))
        return {k: a[int(d[0])] for k, a, d in zip(self.knobs, self.axes, digits, strict=True)}

    def seed(self, row: int) -> int:
        """The seed of a row."""
        return self.seeds[row % len(self.seeds)]

    def describe(self, row: int) -> str:
        """E.g. "innodb_io_capacity=300 seed=1"."""
        return " ".join(
            [*(f"{k}={v}" for k, v in self.point(row).items()), f"seed={self.seed(row)}"]
        )

    def check_values(self) -> None:
        """Each grid value alone against its knob (cheap: one Scenario a value, not a point)."""
        for knob, values in zip(self.knobs, self.axes, strict=True):
            for value in values:
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore", params.FlushsimWarning)
                        self.scenario.replace(**{knob: value})
                except ValueError as exc:
                    raise ValueError(f"grid value {knob}={value!r}: {exc}") from None

    def tasks(self) -> Iterator[Task]:
        """Every row as a validated Task, in row order, built as they are asked for.

        Raises:
            ValueError: a grid point the knobs do not accept together, naming the point.
        """
        for p in range(self.points):
            point = self.point(p * len(self.seeds))
            try:
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always", params.FlushsimWarning)
                    sc = self.scenario.replace(**point)
            except ValueError as exc:
                where = ", ".join(f"{k}={v!r}" for k, v in point.items())
                raise ValueError(f"grid point {where}: {exc}") from None
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", params.FlushsimWarning)  # caught once, above
                copies = [sc.replace(seed=seed) for seed in self.seeds]
            notes = [str(w.message) for w in caught]
            # the timeline's SET GLOBAL wins from its time on: say so rather than sweep in silence
            notes += [
                f"the timeline sets {k} at {t:g} s: the grid's value holds until then"
                for t, action, k, _ in sc.changes
                if action == "set" and k in point
            ]
            adjusted = "; ".join(dict.fromkeys(notes))
            first = p * len(self.seeds)
            for k, c in enumerate(copies):
                yield Task(first + k, point, c, adjusted)


def _axes(
    scenario: Scenario, grid: Mapping[str, Sequence[object]]
) -> tuple[list[str], list[list[object]]]:
    """The grid's knob names and typed values, checked for shape (not yet against ranges)."""
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
    # "512M" or "ON" as a my.cnf would say them: typed values, so the columns sort as numbers
    axes = [[params.parse_value(n, v) if isinstance(v, str) else v for v in grid[n]] for n in names]
    return names, axes


def expand(scenario: Scenario, grid: Mapping[str, Sequence[object]]) -> list[dict[str, object]]:
    """The grid's cross product as a list of {knob: value}, first knob varying slowest.

    Raises:
        ValueError: an empty grid, a knob the engine does not have, an empty or non-list value
            list, or more than MAX_CONFIGS points.
    """
    g = Grid(scenario, grid)
    return [g.point(p) for p in range(g.points)]


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
    return list(Grid(scenario, grid, seeds).tasks())


def _run_key(sc: Scenario) -> bytes:
    """What makes two runs the same: engine, every resolved knob, timeline, length and seed."""
    key = (sc.engine, sc.seconds, sc.seed, repr(sorted(sc.values.items())), repr(sc.changes))
    # 16 bytes a run rather than the whole text: a million-point grid keeps one per run
    return hashlib.blake2b(repr(key).encode(), digest_size=16).digest()


def distinct_runs(tasks: Sequence[Task]) -> tuple[list[Task], dict[int, list[int]]]:
    """The tasks to simulate, one per distinct run, and the rows each one's numbers fill.

    Grid points that the server would run alike are one run: e.g. innodb_io_capacity 3000 with
    innodb_io_capacity_max 200 is lowered to 200 at startup, exactly the point (200, 200). A run
    is its engine, every resolved knob, its timeline, length and seed, all the kernel reads.
    """
    first: dict[bytes, int] = {}
    rows_of: dict[int, list[int]] = {}
    for task in tasks:
        index = first.setdefault(_run_key(task.scenario), task.index)
        rows_of.setdefault(index, []).append(task.index)
    return [tasks[i] for i in rows_of], rows_of


# ---------------------------------------------------------------- what a sweep has done
class IncompleteSweep(RuntimeWarning):
    """The table lacks rows: interrupted, stopped at a refused grid point, or runs lost.

    A streamed grid (STREAM_ROWS rows or more) stops at a point whose knobs are refused
    together; a run is lost when its worker process died with it twice.

    Attributes:
        missing: rows not in the table.
        interrupted: the signal that stopped the sweep ("Ctrl-C", "SIGTERM", ...), or "".
    """

    def __init__(self, message: str, *, missing: int, interrupted: str):
        super().__init__(message)
        self.missing = missing
        self.interrupted = interrupted


class _Book:
    """Each row's summary once its run is done, the runs lost, and which rows share a run."""

    def __init__(self, grid: Grid, on_done: Callable[[int], None]):
        self.grid = grid
        self.values = np.full((grid.rows, len(SUMMARY_COLUMNS)), np.nan)
        self.done = np.zeros(grid.rows, dtype=bool)
        self.notes: dict[str, int] = {"": 0}
        self.note_of = np.zeros(grid.rows, dtype=np.int32)
        self.copies: dict[int, list[int]] = {}  # a run's row -> later rows the server runs alike
        self.lost: dict[int, str] = {}  # a run's row -> why
        self._first: dict[bytes, int] = {}
        self._on_done = on_done

    def distinct(self, tasks: Iterable[Task]) -> Iterator[Task]:
        """The tasks to simulate, one per distinct run; a repeat waits for its first's numbers."""
        for task in tasks:
            self.note_of[task.index] = self.notes.setdefault(task.adjustments, len(self.notes))
            first = self._first.setdefault(_run_key(task.scenario), task.index)
            if first == task.index:
                yield task
            elif self.done[first]:
                self._fill(task.index, self.values[first])
            else:
                self.copies.setdefault(first, []).append(task.index)

    def finish(self, index: int, summary: Mapping[str, float]) -> None:
        """Record a run's summary for its row and every row that shares it."""
        vector = np.array([summary[k] for k in SUMMARY_COLUMNS])
        for row in [index, *self.copies.pop(index, [])]:
            self._fill(row, vector)

    def _fill(self, row: int, vector: np.ndarray) -> None:
        self.values[row] = vector
        self.done[row] = True
        self._on_done(row)

    def lose(self, index: int, why: str) -> None:
        """A run given up: its rows stay out of the table and are named."""
        self.lost[index] = why

    def row(self, row: int) -> dict[str, object]:
        """One finished row as the table has it."""
        return {
            **self.grid.point(row),
            "seed": self.grid.seed(row),
            "adjustments": self._note_text()[self.note_of[row]],
            **dict(zip(SUMMARY_COLUMNS, self.values[row].tolist(), strict=True)),
        }

    def _note_text(self) -> list[str]:
        return list(self.notes)  # dicts keep insertion order: position = id

    def missing(self) -> np.ndarray:
        """The rows not in the table."""
        return np.flatnonzero(~self.done)

    def names(self, rows: np.ndarray, most: int = 10) -> str:
        """The first `most` of `rows` by grid point and seed, and how many more."""
        text = ", ".join(self.grid.describe(int(r)) for r in rows[:most])
        return text + (f" and {len(rows) - most:,} more" if len(rows) > most else "")

    def table(self) -> pl.DataFrame:
        """The finished rows in grid order: the knobs, seed, adjustments, SUMMARY_COLUMNS."""
        rows = np.flatnonzero(self.done)
        g = self.grid
        columns = []
        for knob, axis, digits in zip(g.knobs, g.axes, g.digits(rows), strict=True):
            dtype = _dtype(axis)
            cast = {pl.String: str, pl.Float64: float}.get(dtype, lambda v: v)
            typed = [cast(v) for v in axis]
            columns.append(pl.Series(knob, [typed[d] for d in digits.tolist()], dtype=dtype))
        seeds = np.asarray(g.seeds, dtype=np.int64)[rows % len(g.seeds)]
        columns.append(pl.Series("seed", seeds, dtype=pl.Int64))
        notes = self._note_text()
        columns.append(
            pl.Series("adjustments", [notes[i] for i in self.note_of[rows]], dtype=pl.String)
        )
        columns += [
            pl.Series(k, self.values[rows, j], dtype=pl.Float64)
            for j, k in enumerate(SUMMARY_COLUMNS)
        ]
        return pl.DataFrame(columns)


# ---------------------------------------------------------------- running
def _run_task(task: Task, warmup_s: int | str, wear: WearSetting) -> tuple[int, dict[str, float]]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", params.FlushsimWarning)  # reported once, by plan()
        if warmup_s == AUTO:  # each point settles in its own time: a larger pool fills longer
            # run on from the kept warm state: the lengthened run's summary, the warm-up
            # simulated once (tests/test_sweep.py)
            warm = warm_up(task.scenario, AUTO)
            summary = summarize(simulate_warm(task.scenario, warm=warm), wear=wear)
            return task.index, {**summary, "warmup_s": float(warm.seconds)}
        run = simulate(task.scenario)
    return task.index, summarize(run, warmup_s=warmup_s, wear=wear)


# a container's CPU limit (cgroup v2, then v1): Binder's pods see every core of their host but may
# use one or two, and each worker process more would cost its memory for nothing
CGROUP_CPU_MAX = "/sys/fs/cgroup/cpu.max"
CGROUP_V1_QUOTA = "/sys/fs/cgroup/cpu/cpu.cfs_quota_us"
CGROUP_V1_PERIOD = "/sys/fs/cgroup/cpu/cpu.cfs_period_us"


def local_cores() -> int:
    """Cores this process may run on: its CPU affinity, within its container's CPU limit."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cores = os.cpu_count() or 1
    limit = _cgroup_cpu_limit()
    return cores if limit is None else max(1, min(cores, int(limit)))


def _cgroup_cpu_limit() -> float | None:
    """The container's CPU quota in cores, or None if it has none (or it cannot be read)."""
    try:
        with open(CGROUP_CPU_MAX) as f:
            quota, period = f.read().split()[:2]
        return None if quota == "max" else int(quota) / int(period)
    except (OSError, ValueError):
        pass
    try:
        with open(CGROUP_V1_QUOTA) as f:
            quota = int(f.read())
        with open(CGROUP_V1_PERIOD) as f:
            period = int(f.read())
        return None if quota <= 0 or period <= 0 else quota / period
    except (OSError, ValueError):
        return None


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
    warmup_s: int | str = 0,
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
        warmup_s: seconds at the start of every run left out of the summary, or "auto": each
            run starts after its own warm-up (`warmup.warm_up`: until its dirty pages, free
            pages and checkpoint age settle, at most AUTO_CAP_S), simulated once and kept.
        drive: the SSD whose lifetime is projected: a catalog name or an `ssd.Drive`.
        fill: fraction of that drive holding data (0 to 0.95).
        ftl_model: its FTL write-amplification model (`ssd.write_amplification`).
        on_row: called with each finished row, in the order the runs finish.

    Returns:
        A polars DataFrame, one row per (grid point, seed) in grid order: the grid's knobs,
        `seed`, `adjustments` and SUMMARY_COLUMNS. After an interrupt, or when runs were lost
        with a worker process twice, only the finished rows, and an IncompleteSweep warning
        naming the missing ones.

    Raises:
        ValueError: a bad grid, seed list, worker count, warm-up or drive, before any run (a
            grid of STREAM_ROWS rows or more: each value alone; a point whose knobs are refused
            together stops the sweep when reached, with an IncompleteSweep warning).
    """
    g = Grid(scenario, grid, seeds)
    _check_warmup(warmup_s, scenario.seconds)
    wear = WearSetting(drive, fill, ftl_model)
    wear = replace(wear, drive=wear.resolved())  # the catalog read once, not every run (0.4 ms)
    ssd.write_amplification(fill, ftl_model)  # a bad fill or model fails here, not in a worker
    if workers is None:
        workers = local_cores()
    if isinstance(workers, bool) or not isinstance(workers, int) or not 1 <= workers <= 256:
        raise ValueError(f"workers={workers!r} must be a whole number between 1 and 256")
    bar = _progress(g.rows, progress)
    book: _Book

    def row_done(row: int) -> None:
        if bar is not None:
            bar.update(1)
        if on_row is not None:
            on_row(book.row(row))

    book = _Book(g, row_done)
    if g.rows < STREAM_ROWS:
        tasks: Iterable[Task] = list(g.tasks())  # every point checked before any run
    else:
        g.check_values()
        tasks = _refusals_stop(g.tasks())  # planned as the runs go: the first start at once
    runs = book.distinct(tasks)
    interrupted = refused = ""
    deaths: list[_sweep_workers.Death] = []
    try:
        if client is not None:
            _run_dask(client, list(runs), warmup_s, wear, book.finish)
        elif workers == 1 or g.rows == 1:
            for task in runs:
                book.finish(*_run_task(task, warmup_s, wear))
        else:
            deaths = _sweep_workers.run_tasks(runs, workers, book, _run_task, (warmup_s, wear))
    except KeyboardInterrupt as exc:  # Ctrl-C, or the CLI's SIGTERM / SIGHUP (a subclass)
        interrupted = str(exc) or "Ctrl-C"
    except _RefusedPoint as exc:
        refused = str(exc)
    finally:
        if bar is not None:
            bar.close()
    _warn_incomplete(book, interrupted, refused, deaths)
    return book.table()


def _check_warmup(warmup_s: int | str, seconds: int) -> None:
    """A fixed warm-up shorter than the runs, or "auto" with room for its cap."""
    if warmup_s == AUTO:
        if seconds + AUTO_CAP_S > MAX_SECONDS:
            raise ValueError(
                f"warmup_s='auto' may add up to {AUTO_CAP_S} s to seconds={seconds}: more "
                f"than {MAX_SECONDS} s"
            )
    elif isinstance(warmup_s, str) or not 0 <= warmup_s < seconds:
        raise ValueError(f"warmup_s={warmup_s!r} must be 'auto' or between 0 and {seconds - 1}")


class _RefusedPoint(Exception):
    """A streamed grid point whose knobs are refused together: the sweep stops there."""


def _refusals_stop(tasks: Iterator[Task]) -> Iterator[Task]:
    # a ValueError here is the plan's, not a run's: the finished rows are kept
    try:
        yield from tasks
    except ValueError as exc:
        raise _RefusedPoint(str(exc)) from None


def _warn_incomplete(book: _Book, interrupted: str, refused: str, deaths: list) -> None:
    total = book.grid.rows
    if deaths:
        warnings.warn(
            _sweep_workers.retried_message(deaths, len(book.lost)), RuntimeWarning, stacklevel=3
        )
    missing = book.missing()
    if not len(missing):
        return
    finished = total - len(missing)
    if interrupted:
        message = (
            f"sweep interrupted: {finished} of {total} rows finished ({interrupted}); "
            f"returning those rows; not run: {book.names(missing)}"
        )
    elif refused:
        message = (
            f"sweep stopped at {refused}; {finished} of {total} rows finished; returning "
            f"those rows; not run: {book.names(missing)}"
        )
    else:
        message = (
            f"{len(missing)} of {total} rows lost: their run died with its worker process "
            f"twice: {book.names(missing)}"
        )
    warnings.warn(
        IncompleteSweep(message, missing=len(missing), interrupted=interrupted), stacklevel=3
    )


def _run_dask(client, tasks, warmup_s, wear, finish) -> None:
    from distributed import as_completed

    futures = client.map(_run_task, tasks, warmup_s=warmup_s, wear=wear, pure=False)
    try:
        for fut in as_completed(futures):
            finish(*fut.result())
    except BaseException:
        client.cancel(futures)
        raise


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
