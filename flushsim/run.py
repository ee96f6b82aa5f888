"""simulate(): Scenario in, Run out. A Run holds the per-second series as a polars DataFrame.

Column names are InnoDB's own metric names (INNODB_METRICS / SHOW GLOBAL STATUS), so a
recording from a real server lines up column for column; quantities InnoDB does not report
carry a `sim_` prefix. Gauges are end-of-second values, counters per-second deltas, and row k
covers the second that ends at `time_s` = k + 1.

MariaDB runs keep every common InnoDB name (MariaDB has the same INNODB_METRICS counters) and
add, as copies, the SHOW GLOBAL STATUS names under which MariaDB reports what MySQL has no
status variable for (`MARIADB_STATUS`): `Innodb_buffer_pool_pages_LRU_flushed` and
`Innodb_buffer_pool_pages_LRU_freed` (buf_lru_flush_page_count / buf_lru_freed_page_count of
buf0flu.cc, per-second deltas here like every counter), `Innodb_checkpoint_age` and
`Innodb_checkpoint_max_age` (log_sys.max_checkpoint_age, the furious-flushing point).
`buffer_pool_wait_free` is `Innodb_buffer_pool_wait_free` on both servers; on MariaDB it counts
buf_pool.stat.LRU_waits (one per wait for the page cleaner, or per user LRU batch on 10.6).
"""

from __future__ import annotations

import functools
import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import polars as pl

from . import schema
from .params import ENGINES, MARIADB
from .scenario import Scenario

FLOAT_COLUMNS = schema.FLOAT_COLUMNS  # (kept here: the name callers import)

KERNELS = ("numba", "reference")

# MariaDB status name -> the common column it copies (MariaDB runs only)
MARIADB_STATUS = {
    "Innodb_buffer_pool_pages_LRU_flushed": "buffer_LRU_batch_flush_total_pages",
    "Innodb_buffer_pool_pages_LRU_freed": "buffer_LRU_batch_evict_total_pages",
    "Innodb_checkpoint_age": "log_lsn_checkpoint_age",
    "Innodb_checkpoint_max_age": "log_max_modified_age_sync",
}


@dataclass(frozen=True)
class KernelInputs:
    """Everything the kernel (or its twin) takes, as plain arrays and numbers."""

    knobs: np.ndarray
    seconds: int
    n_threads_max: int
    table_pages: int
    seed: int
    zipf_cdf: np.ndarray
    scatter: int
    tl_time: np.ndarray
    tl_kind: np.ndarray
    tl_knob: np.ndarray
    tl_value: np.ndarray

    def args(self) -> tuple:
        """Positional arguments of simulate_kernel."""
        return (
            self.knobs,
            self.seconds,
            self.n_threads_max,
            self.table_pages,
            self.seed,
            self.zipf_cdf,
            self.scatter,
            self.tl_time,
            self.tl_kind,
            self.tl_knob,
            self.tl_value,
        )


def _scatter_for(rows: int) -> int:
    """The kernel's two row maps, packed (schema.SCATTER_SHIFT): zipf ranks and the hot set.

    Zipf rank r is row r * prime % rows, a prime multiplier coprime with the row count. The hot
    set goes through workload.spread_row, a permutation of the next power of two at or above `rows`
    (its bits are the low field).
    """
    bits = max(1, (rows - 1).bit_length())
    for p in (1_000_003, 1_000_033, 1_000_037, 1_000_039):
        if rows % p:
            return (p << schema.SCATTER_SHIFT) | bits
    raise AssertionError("unreachable: four distinct primes cannot all divide rows")


# buckets of the Zipf guide table: a power of two, so that j / ZIPF_GUIDE and u * ZIPF_GUIDE are
# exact; 2^18 (2 MiB) brackets a search of 5 M ranks to a few entries
ZIPF_GUIDE = 1 << 18


@functools.lru_cache(maxsize=1)
def zipf_cdf(rows: int, theta: float) -> np.ndarray:
    """Cumulative probabilities of ranks 1..rows under Zipf(theta), then their guide table.

    The first `rows` entries are the cumulative probabilities (the last exactly 1). Then
    ZIPF_GUIDE + 1 entries, entry j the first rank whose probability exceeds j / ZIPF_GUIDE
    (rows - 1 if none): workload.draw_row searches only between the entries of its draw's
    bucket, and finds the rank a search of the whole table finds (the twin searches it whole).
    Shared, never written to, and kept for the next run (a sweep's runs share one table): 5 M
    rows took 48 ms a run, 3 % of a 90 s run of lesson 07. Not made read-only: numba would
    compile another signature for it.
    """
    w = np.arange(1, rows + 1, dtype=np.float64) ** -theta
    cdf = np.cumsum(w)
    cdf /= cdf[-1]
    bucket_starts = np.arange(ZIPF_GUIDE + 1, dtype=np.float64) / ZIPF_GUIDE
    guide = np.searchsorted(cdf[:-1], bucket_starts, side="right")
    return np.concatenate([cdf, guide.astype(np.float64)])


def kernel_inputs(scenario: Scenario) -> KernelInputs:
    """Translate a validated Scenario into kernel arrays (no numba involved)."""
    v = scenario.values
    knobs = np.zeros(schema.N_KNOBS, dtype=np.float64)
    for name, idx in schema.KNOB_INDEX.items():
        if name == "engine":
            knobs[idx] = float(schema.engine_code(scenario.engine))
        elif name in v:
            knobs[idx] = schema.encode(name, v[name])
        else:
            knobs[idx] = schema.KNOB_FILL[name]
    rows = int(v["table_rows"])
    table_pages = -(-rows // int(v["rows_per_page"]))
    uses_zipf = v["workload"] == "zipf" or any(
        k == "workload" and val == "zipf" for _, _, k, val in scenario.changes
    )
    cdf = zipf_cdf(rows, float(v["zipf_theta"])) if uses_zipf else np.ones(1)
    threads = [int(v["threads"])] + [
        int(val) for _, _, k, val in scenario.changes if k == "threads"
    ]
    tl_time, tl_kind, tl_knob, tl_value = timeline_arrays(scenario.changes)
    return KernelInputs(
        knobs=knobs,
        seconds=scenario.seconds,
        n_threads_max=max(threads),
        table_pages=table_pages,
        seed=scenario.seed,
        zipf_cdf=cdf,
        scatter=_scatter_for(rows),
        tl_time=tl_time,
        tl_kind=tl_kind,
        tl_knob=tl_knob,
        tl_value=tl_value,
    )


TL_KINDS = {
    "set": schema.TL_SET,
    "stop_workload": schema.TL_WORKLOAD_STOP,
    "start_workload": schema.TL_WORKLOAD_START,
}


def timeline_arrays(changes) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The kernel's timeline (time us, kind, knob slot, value) of Scenario.changes-like tuples."""
    ch = tuple(changes)
    return (
        np.array([int(round(t * 1e6)) for t, _, _, _ in ch], dtype=np.int64),
        np.array([TL_KINDS[a] for _, a, _, _ in ch], dtype=np.int64),
        np.array([_knob_slot(k) if k else -1 for _, _, k, _ in ch], dtype=np.int64),
        np.array([schema.encode(k, val) if k else 0.0 for _, _, k, val in ch], dtype=np.float64),
    )


def _knob_slot(name: str) -> int:
    """The kernel's slot of a knob a timeline sets (every dynamic knob has one: test_schema)."""
    if name not in schema.KNOB_INDEX:
        raise ValueError(f"knob {name!r} cannot change during a run: the kernel has no slot for it")
    return schema.KNOB_INDEX[name]


def latency_quantiles(hist: np.ndarray, q: float) -> np.ndarray:
    """Per-second latency quantile (ms) from the bucket counts; NaN where no transaction."""
    counts = hist.sum(axis=1)
    cum = np.cumsum(hist, axis=1)
    # the first bucket whose cumulative count reaches q of the second's (searchsorted "left")
    k = np.argmax(cum >= (q * counts)[:, None], axis=1)
    return np.where(counts > 0, _bucket_uppers_ms(hist.shape[1])[k], np.nan)


@functools.cache
def _bucket_uppers_ms(buckets: int) -> np.ndarray:
    upper = np.array([_bucket_upper_us(b) for b in range(buckets)], dtype=np.float64) / 1000.0
    upper.flags.writeable = False
    return upper


def _bucket_upper_us(b: int) -> float:
    if b < 8:
        return float(b)
    msb, sub = divmod(b, 8)
    return float(((8 + sub + 1) << (msb - 3)) - 1) if msb >= 3 else float(b)


def series_frame(out: np.ndarray, hist: np.ndarray, engine: str = "mysql-8.0") -> pl.DataFrame:
    """The per-second table of a run, from the kernel's raw arrays."""
    # a copy stored column by column, so that every column below is one contiguous block
    out = np.array(out, dtype=np.float64, order="F")
    c = schema.COL
    # the kernel sums microseconds (kernels/io.py _count_io): iostat's units per second
    with np.errstate(invalid="ignore", divide="ignore"):
        for await_col, n_col in (
            ("r_await_ms", "r_s"),
            ("w_await_ms", "w_s"),
            ("sim_fsync_latency_ms", "sim_fsyncs"),
        ):
            n = out[:, c[n_col]]
            out[:, c[await_col]] = np.where(n > 0, out[:, c[await_col]] / 1000.0 / n, 0.0)
    out[:, c["aqu_sz"]] /= 1e6  # us of I/O in flight per second of time
    out[:, c["util_pct"]] = np.minimum(out[:, c["util_pct"]] / 1e4, 100.0)  # busy us -> %
    counts = np.rint(out).astype(np.int64, order="F")
    data = {
        name: out[:, c[name]] if name in FLOAT_COLUMNS else counts[:, c[name]]
        for name in schema.COLUMNS
    }
    data["sim_trx_latency_p99_ms"] = latency_quantiles(hist, 0.99)
    data["sim_trx_latency_max_ms"] = latency_quantiles(hist, 1.0)
    if engine not in ENGINES:
        raise ValueError(f"engine {engine!r} is not one of {', '.join(ENGINES)}")
    if engine in MARIADB:
        for name, common in MARIADB_STATUS.items():
            data[name] = data[common].copy()
    # polars takes a list of Series faster than a dict of arrays: with the column-order copy,
    # 0.73 -> 0.54 ms for a 60-second run (a sweep builds one table a run)
    return pl.DataFrame([pl.Series(name, col) for name, col in data.items()])


@dataclass(frozen=True)
class Run:
    """A finished simulation: the scenario, the per-second series and raw latency histogram."""

    scenario: Scenario
    series: pl.DataFrame
    latency_hist: np.ndarray
    kernel: str = "numba"
    # log_lsn_current before the first row: a warm run's is its warm-up's last, not the start's
    start_lsn: int = schema.LOG_START_LSN

    def summary(self) -> dict[str, float]:
        """Headline figures of the whole run (means are per second)."""
        s = self.series
        flushed = (
            s["buffer_LRU_batch_flush_total_pages"].sum()
            + s["buffer_flush_batch_total_pages"].sum()
            + s["sim_single_page_flushes"].sum()
        )
        updates = s["dml_updates"].sum()
        return {
            "seconds": float(s.height),
            "tps_mean": float(s["sim_tps"].mean()),
            "pages_flushed_total": float(flushed),
            "updates_per_page_flushed": float(updates / flushed) if flushed else float("inf"),
            "wait_free_total": float(s["buffer_pool_wait_free"].sum()),
            "dirty_pages_max": float(s["buffer_pool_pages_dirty"].max()),
        }

    def write(self, path: str | Path) -> Path:
        """Save the series as .parquet or .csv (by the suffix, any case), written atomically."""
        from .outputs import write_frame

        return write_frame(self.series, path)


def simulate(
    scenario: Scenario,
    *,
    seconds: int | None = None,
    seed: int | None = None,
    kernel: str = "numba",
) -> Run:
    """Run `scenario` (optionally with another length in seconds or seed) and return a Run.

    `kernel="reference"` runs the pure-Python twin instead of numba: same numbers, far slower.
    """
    if not isinstance(scenario, Scenario):
        raise TypeError(f"simulate() takes a Scenario, not {type(scenario).__name__}")
    if kernel not in KERNELS:
        raise ValueError(f"kernel={kernel!r} must be one of {', '.join(KERNELS)}")
    changes = {}
    if seconds is not None:
        changes["seconds"] = seconds
    if seed is not None:
        changes["seed"] = seed
    if changes:
        scenario = scenario.replace(**changes)
    inputs = kernel_inputs(scenario)
    if kernel == "numba":
        from .kernels.sim import simulate_kernel
    else:
        from .kernels.reference import simulate_kernel
    out, hist = call_kernel(simulate_kernel, *inputs.args())
    series = series_frame(out, hist, scenario.engine)
    return Run(scenario=scenario, series=series, latency_hist=hist, kernel=kernel)


def call_kernel(kernel, *args):
    """`kernel(*args)`, waited for on the main thread so that Ctrl-C stops the wait at once.

    A signal handled while numba boxes a kernel's result (its unpickling, in the first call)
    crashed the process with a segmentation fault. On the main thread the kernel therefore runs
    on a daemon thread, where no signal handler runs, and the main thread waits in short,
    interruptible joins: a Ctrl-C (or the CLI's SIGTERM) raises there, and the kernel's run,
    which cannot be stopped, is dropped with the process. Elsewhere (the explorer's runner) no
    signal arrives: the kernel runs on the calling thread.
    """
    if threading.current_thread() is not threading.main_thread():
        return _unwrapped(kernel, args)
    box = {}

    def work():
        try:
            box["result"] = _unwrapped(kernel, args)
        except BaseException as exc:  # handed to the waiting thread, which raises it
            box["error"] = exc

    worker = threading.Thread(target=work, name="flushsim-kernel", daemon=True)
    worker.start()
    while worker.is_alive():
        worker.join(0.05)
    if "error" in box:
        raise box["error"]
    return box["result"]


def _unwrapped(kernel, args):
    """`kernel(*args)`, a KeyboardInterrupt hidden in numba's SystemErrors raised as itself."""
    try:
        return kernel(*args)
    except SystemError as exc:
        if (interrupt := _interrupted(exc)) is not None:
            raise interrupt from None  # itself: the CLI's Terminated("SIGTERM") stays one
        raise


def _interrupted(exc: BaseException) -> KeyboardInterrupt | None:
    """The Ctrl-C (or SIGTERM, as the CLI raises it) this SystemError hides, if any.

    Python runs the SIGINT handler in the first Python code after the (nogil) kernel returns:
    numba's unpickling of its result, which turns the KeyboardInterrupt into a SystemError.
    """
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, KeyboardInterrupt):
            return exc
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return None
