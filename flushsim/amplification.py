"""The write-amplification chain of a run: rows changed -> pages flushed -> bytes -> flash.

Stages (bytes/s unless noted), all from the per-second series:
- `row_bytes`: rows changed (`dml_updates`) x the row's share of a page
  (`innodb_page_size / rows_per_page`): what the application asked to change;
- `data_page_bytes`: pages written back (LRU batch + flush-list batches + single-page flushes)
  x `innodb_page_size`;
- `doublewrite_bytes`: `innodb_dblwr_pages_written` x `innodb_page_size`;
- `redo_bytes`: the LSN's advance (InnoDB's LSN counts redo bytes);
- optional, each only when its figures are given (flushsim simulates neither file):
  `undo_bytes`: rows changed x `undo_bytes_per_row`, the undo records written (their undo
  pages reach the undo tablespace as the page cleaner flushes them);
  `binlog_bytes`: read-write transactions committed (`trx_rw_commits`) x `binlog_bytes_per_trx`
  plus rows changed x `binlog_bytes_per_row`, the binary log (row format: each transaction's
  GTID, BEGIN, table-map and XID events, plus each changed row's images). Measure both on
  your server: binlog file growth over `trx_rw_commits` and `Innodb_rows_updated` of a run;
- `db_bytes`: the stages above, what the database hands the drive;
- `flash_bytes`: `db_bytes` x the drive's FTL write amplification (see `flushsim.ssd`);
- `drive_writes_per_day` (full-drive writes per day, given the drive's capacity): `flash_bytes`
  x 86,400 s / capacity, the wear rate of that second kept up for a day.

Simplification: redo is counted from the LSN (InnoDB's LSN counts redo bytes), not from the
device model's redo writes, which round each write up to 4 KiB blocks (kernels/io.py).
"""

from __future__ import annotations

import math
from numbers import Real

import polars as pl

from .run import Run

# Pages written: LRU batches, flush-list batches and user threads' single-page flushes.
PAGES_FLUSHED_COLUMNS = (
    "buffer_LRU_batch_flush_total_pages",
    "buffer_flush_batch_total_pages",
    "sim_single_page_flushes",
)
PAGES_FLUSHED = pl.sum_horizontal(*PAGES_FLUSHED_COLUMNS)

STAGES = (
    ("row_bytes", "rows changed"),
    ("data_page_bytes", "data pages written"),
    ("doublewrite_bytes", "doublewrite"),
    ("redo_bytes", "redo log"),
    ("db_bytes", "database writes"),
    ("flash_bytes", "flash writes (FTL)"),
)

# Stages a run has only when their per-row / per-transaction figures are given (chain's
# arguments), placed between redo and the database total.
OPTIONAL_STAGES = (
    ("undo_bytes", "undo log"),
    ("binlog_bytes", "binary log"),
)

# The stage each stage's `factor` (in `totals`) is relative to (None: no factor).
FACTOR_BASE: dict[str, str | None] = {
    "row_bytes": None,
    "data_page_bytes": "row_bytes",
    "doublewrite_bytes": "data_page_bytes",
    "redo_bytes": "data_page_bytes",
    "undo_bytes": "data_page_bytes",
    "binlog_bytes": "data_page_bytes",
    "db_bytes": "row_bytes",
    "flash_bytes": "db_bytes",
}

SECONDS_PER_DAY = 86_400


def _check_number(name: str, value, *, low: float, closed: bool, what: str, why: str = "") -> None:
    """Raise a ValueError naming `name` unless `value` is a finite number above `low`.

    `closed`: `low` itself is allowed. `what` is the valid range in words.
    """
    # bool is an int to Python, but ftl_write_amplification=True is a mistake, not 1.0
    if isinstance(value, bool) or not isinstance(value, Real) or math.isnan(value):
        raise ValueError(f"{name}={value!r} is not a number: it must be {what}")
    if not (low <= value if closed else low < value) or value == math.inf:
        raise ValueError(f"{name}={value!r} is out of range: it must be {what}{why}")


def _check_ftl(value) -> None:
    _check_number(
        "ftl_write_amplification",
        value,
        low=1.0,
        closed=True,
        what="a finite number >= 1",
        why=" (a drive cannot write less flash than it is sent)",
    )


def _check_capacity(value) -> None:
    if value is not None:
        _check_number(
            "capacity_bytes",
            value,
            low=0.0,
            closed=False,
            what="a finite number of bytes > 0",
            why=" (the drive's user capacity)",
        )


def _check_bytes(name: str, value) -> None:
    if value is not None:
        _check_number(name, value, low=0.0, closed=True, what="a finite number of bytes >= 0")


def chain(
    run: Run,
    ftl_write_amplification: float = 1.0,
    capacity_bytes: float | None = None,
    *,
    undo_bytes_per_row: float | None = None,
    binlog_bytes_per_trx: float | None = None,
    binlog_bytes_per_row: float | None = None,
) -> pl.DataFrame:
    """Per-second stages of the chain (bytes/s), `updates_per_page_flushed` and drive wear.

    Args:
        run: a finished simulation.
        ftl_write_amplification: flash bytes written per byte the host writes (finite, >= 1).
        capacity_bytes: the drive's user capacity in bytes (finite, > 0), e.g.
            `ssd.drive(name).capacity_bytes` or a `ssd.Drive` you type in; None leaves
            `drive_writes_per_day` null.
        undo_bytes_per_row: undo log bytes written per row changed (>= 0); None: no
            `undo_bytes` stage.
        binlog_bytes_per_trx: binary-log bytes per read-write transaction, its events other
            than the rows' (>= 0); None counts 0 if `binlog_bytes_per_row` is given.
        binlog_bytes_per_row: binary-log bytes per row changed, its images (>= 0). None for
            both binlog arguments: no `binlog_bytes` stage.

    Returns:
        One row per simulated second: `time_s`, the stages of `STAGES` (and of
        `OPTIONAL_STAGES` whose figures are given) in bytes/s (plus
        `pages_flushed` in pages/s and `dml_updates` in rows/s), `updates_per_page_flushed`
        (null in a second without flushes) and `drive_writes_per_day`, full-drive writes per
        day: `flash_bytes` x 86,400 / `capacity_bytes`. With `ftl_write_amplification=1` this
        is the host-write DWPD that vendors rate. `flushsim.ssd` counts a rating as writes at
        write amplification 1, so with `ftl_write_amplification` = WA(fill) a drive rated D
        DWPD for Y years lasts D x Y / (the run's mean of this column) years, which is what
        `ssd.lifetime_years(mean db_bytes, ...)` gives at that fill.

    Raises:
        ValueError: an argument is not a number or out of range.
    """
    _check_ftl(ftl_write_amplification)
    _check_capacity(capacity_bytes)
    for name, value in (
        ("undo_bytes_per_row", undo_bytes_per_row),
        ("binlog_bytes_per_trx", binlog_bytes_per_trx),
        ("binlog_bytes_per_row", binlog_bytes_per_row),
    ):
        _check_bytes(name, value)
    page = int(run.scenario["innodb_page_size"])
    row = page / int(run.scenario["rows_per_page"])
    s = run.series
    optional = []
    if undo_bytes_per_row is not None:
        optional.append((pl.col("dml_updates") * undo_bytes_per_row).alias("undo_bytes"))
    if binlog_bytes_per_trx is not None or binlog_bytes_per_row is not None:
        optional.append(
            (
                pl.col("trx_rw_commits") * (binlog_bytes_per_trx or 0.0)
                + pl.col("dml_updates") * (binlog_bytes_per_row or 0.0)
            ).alias("binlog_bytes")
        )
    stages = _written_stages(s, page, run.start_lsn) + optional
    written = [e.meta.output_name() for e in stages]
    return (
        s.select(
            "time_s",
            (pl.col("dml_updates") * row).alias("row_bytes"),
            PAGES_FLUSHED.alias("pages_flushed"),
            *stages,
            pl.col("dml_updates"),
        )
        .with_columns(db_bytes=pl.sum_horizontal(*written))
        .with_columns(
            flash_bytes=pl.col("db_bytes") * ftl_write_amplification,
            updates_per_page_flushed=pl.when(pl.col("pages_flushed") > 0)
            .then(pl.col("dml_updates") / pl.col("pages_flushed"))
            .otherwise(None),
        )
        .with_columns(
            drive_writes_per_day=(
                pl.col("flash_bytes") * (SECONDS_PER_DAY / capacity_bytes)
                if capacity_bytes is not None
                else pl.lit(None, dtype=pl.Float64)
            ),
        )
    )


def db_bytes(run: Run) -> pl.Series:
    """`chain`'s db_bytes without its optional stages, alone: bytes written each second (bytes/s).

    sweep.summarize wants only this, once a run: `chain` takes 0.72 ms, this 0.26 ms.
    """
    s = run.series
    page = int(run.scenario["innodb_page_size"])
    return s.select(db_bytes=pl.sum_horizontal(_written_stages(s, page, run.start_lsn)))["db_bytes"]


def _written_stages(series: pl.DataFrame, page: int, start_lsn: int) -> list[pl.Expr]:
    """The stages every run writes: data pages, doublewrite, redo (bytes/s); `page` in bytes.

    `start_lsn`: log_lsn_current before the first row (Run.start_lsn).
    """
    return [
        (PAGES_FLUSHED * page).alias("data_page_bytes"),
        (pl.col("innodb_dblwr_pages_written") * page).alias("doublewrite_bytes"),
        # redo bytes are differences of consecutive LSNs; the first second's from the run's start
        pl.col("log_lsn_current")
        .diff()
        .fill_null(series["log_lsn_current"][0] - start_lsn)
        .alias("redo_bytes"),
    ]


def totals(
    run: Run,
    ftl_write_amplification: float = 1.0,
    *,
    undo_bytes_per_row: float | None = None,
    binlog_bytes_per_trx: float | None = None,
    binlog_bytes_per_row: float | None = None,
) -> pl.DataFrame:
    """One row per stage: `stage`, `label`, `bytes_per_s` (run mean) and `factor`.

    `factor` is each stage over the one before it (data pages over rows, flash over database
    writes); the doublewrite, redo, undo and binlog rows are relative to the data pages. The
    undo and binlog rows are there only when `chain` is given their figures (same arguments).
    """
    c = chain(
        run,
        ftl_write_amplification,
        undo_bytes_per_row=undo_bytes_per_row,
        binlog_bytes_per_trx=binlog_bytes_per_trx,
        binlog_bytes_per_row=binlog_bytes_per_row,
    )
    stages = [st for st in STAGES if st[0] != "db_bytes" and st[0] != "flash_bytes"]
    stages += [st for st in OPTIONAL_STAGES if st[0] in c.columns]
    stages += [st for st in STAGES if st[0] in ("db_bytes", "flash_bytes")]
    mean = {name: float(c[name].mean() or 0.0) for name, _ in stages}
    factors = []
    for name, _ in stages:
        base = FACTOR_BASE[name]
        factors.append(mean[name] / mean[base] if base and mean[base] > 0 else None)
    return pl.DataFrame(
        {
            "stage": [n for n, _ in stages],
            "label": [label for _, label in stages],
            "bytes_per_s": [mean[n] for n, _ in stages],
            "factor": factors,
        },
        schema={
            "stage": pl.String,
            "label": pl.String,
            "bytes_per_s": pl.Float64,
            "factor": pl.Float64,
        },
    )
