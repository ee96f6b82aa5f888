"""The MariaDB 10.11 reference recordings of data/reference/mariadb-10.11 (issue #7).

Recorded by scripts/record_reference.py on a private MariaDB 10.11.19 (see the README beside
them). These tests need no server: they check that each recording is well formed and that it
shows what MariaDB is known to do, with stated tolerances. A replay test can import the helpers
(`pages_flushed`, `idle_phases`, `updates_per_page_flushed`) and the measured headline numbers
(`IDLE_RATE_ABOVE_LWM`, `UPDATES_PER_PAGE`) to say how close the mariadb-10.11 engine comes.

What the recordings show (MariaDB 10.11, buf0flu.cc `buf_flush_page_cleaner`):

- idle flushing needs innodb_max_dirty_pages_pct_lwm > 0 (MariaDB's default is 0: nothing is
  written from an idle pool whose redo age is below innodb_adaptive_flushing_lwm);
- with the lwm at 10 %, an idle pool that is more than 10 % dirty is flushed at exactly
  innodb_io_capacity pages/s (by the adaptive path: `page_cleaner_flush_pages_recommendation`
  returns innodb_io_capacity while the redo age is below innodb_adaptive_flushing_lwm);
- below the lwm the real idle path (buffer_flush_background_total_pages) writes
  innodb_io_capacity pages only every other second: half the rate;
- under a fixed-rate hot-set update load, a higher innodb_io_capacity_max flushes more pages,
  so fewer row updates are combined into each page write.
"""

from __future__ import annotations

import functools
import json
import math
from pathlib import Path

import polars as pl
import pytest

from flushsim.live.recorder import SERVER_SOURCES, SOURCES, Recording
from flushsim.run import MARIADB_STATUS
from flushsim.schema import COLUMNS

ROOT = Path(__file__).resolve().parent.parent
REF = ROOT / "data" / "reference" / "mariadb-10.11"

IDLE = {"idle-ioc100": 100, "idle-ioc200": 200, "idle-ioc400": 400}  # name -> io_capacity
IDLE_LWM0 = "idle-ioc200-lwm0"
HOTSET = {"hotset-iocmax200": 200, "hotset-iocmax400": 400, "hotset-iocmax800": 800}
# issue #32's validation matrix (tests/test_validation.py replays them)
VALIDATION = (
    "burst-lwm0",
    "burst-lwm10",
    "hotset120-iocmax200",
    "hotset120-iocmax400",
    "hotset120-iocmax800",
    "redo-log16M",
    "lru-depth256",
    "lru-depth1536",
    "oltp-pool64M",
    "oltp-pool128M",
)
NAMES = (*IDLE, IDLE_LWM0, *HOTSET, *VALIDATION)
# the recorder also keeps the server's Uptime (restarts; newer recordings only)
ALLOWED = set(COLUMNS) | set(MARIADB_STATUS) | set(SERVER_SOURCES)
# what the tests and a replay read; the recorder writes them for any MariaDB 10.11
NEEDED = {
    "buffer_pool_pages_total",
    "buffer_pool_pages_free",
    "buffer_pool_pages_data",
    "buffer_pool_pages_dirty",
    "buffer_flush_batch_total_pages",
    "buffer_flush_adaptive_total_pages",
    "buffer_flush_background_total_pages",
    "buffer_flush_sync_total_pages",
    "buffer_LRU_batch_flush_total_pages",
    "innodb_dblwr_pages_written",
    "log_lsn_checkpoint_age",
    "log_max_modified_age_async",
    "dml_updates",
    "sim_tps",
}

# Measured headline numbers (the files are fixed, so these are exact up to the rounding shown;
# the README quotes them). A re-recording changes them: update both, deliberately.
IDLE_RATE_ABOVE_LWM = {100: 100.0, 200: 200.0, 400: 400.0}  # pages/s while > lwm dirty
UPDATES_PER_PAGE = {  # io_capacity_max -> (whole recording, its last 45 s)
    200: (38.4, 33.2),
    400: (32.5, 27.6),
    800: (25.9, 22.3),
}
LAST_S = 45

_SIZE = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}


@functools.cache
def load(name: str) -> tuple[Recording, dict]:
    """The recording and its "flushsim.reference" metadata."""
    path = REF / f"{name}.parquet"
    meta = json.loads(pl.read_parquet_metadata(path)["flushsim.reference"])
    return Recording.read(path), meta


def pages_flushed(s: pl.DataFrame) -> pl.Series:
    """Pages written per second: flush-list batches plus LRU batches (as flushsim counts)."""
    return (s["buffer_flush_batch_total_pages"] + s["buffer_LRU_batch_flush_total_pages"]).alias(
        "pages_flushed"
    )


def idle_phases(s: pl.DataFrame, io_capacity: int, lwm_pct: float) -> pl.DataFrame:
    """The seconds of an idle recording after the first, with the state each one began in.

    Columns: time_s, pages_flushed, adaptive, background, dirty_before (dirty pages at the
    end of the previous second), dirty_pct_before (of the pool's LRU + free pages, as MariaDB
    computes it) and phase:

    - "clean": no dirty page left; "tail": fewer than io_capacity;
    - "above_lwm": still above the lwm after a whole io_capacity batch, so the page cleaner
      saw a pool above the lwm whenever in the second it looked;
    - "below_lwm": already below the lwm when the second began;
    - "near_lwm": in between (the page cleaner's 1 s loop is not in step with the samples).
    """
    pool = pl.col("buffer_pool_pages_data") + pl.col("buffer_pool_pages_free")
    before = s.select(
        dirty=pl.col("buffer_pool_pages_dirty"),
        pct=100.0 * pl.col("buffer_pool_pages_dirty") / pool,
        pct_after=100.0 * (pl.col("buffer_pool_pages_dirty") - io_capacity) / pool,
    ).shift(1)
    out = pl.DataFrame(
        {
            "time_s": s["time_s"],
            "pages_flushed": pages_flushed(s),
            "adaptive": s["buffer_flush_adaptive_total_pages"],
            "background": s["buffer_flush_background_total_pages"],
            "dirty_before": before["dirty"],
            "dirty_pct_before": before["pct"],
            "pct_after": before["pct_after"],
        }
    ).slice(1)
    return out.select(
        pl.exclude("pct_after"),
        phase=pl.when(pl.col("dirty_before") == 0)
        .then(pl.lit("clean"))
        .when(pl.col("dirty_before") < io_capacity)
        .then(pl.lit("tail"))
        .when(pl.col("pct_after") >= lwm_pct)
        .then(pl.lit("above_lwm"))
        .when(pl.col("dirty_pct_before") < lwm_pct)
        .then(pl.lit("below_lwm"))
        .otherwise(pl.lit("near_lwm")),
    )


def updates_per_page_flushed(s: pl.DataFrame, last_s: int | None = None) -> float:
    """Row updates per page written, over the recording or its last `last_s` seconds."""
    if last_s is not None:
        s = s.filter(pl.col("time_s") > s["time_s"].max() - last_s)
    flushed = pages_flushed(s).sum()
    return float(s["dml_updates"].sum()) / flushed if flushed else math.nan


def _as_number(value) -> float | None:
    """A server option as the server reports it: 128M -> 134217728, True -> 1; else None."""
    if isinstance(value, bool):
        return float(value)
    text = str(value).strip().lower()
    if text in ("on", "off"):
        return float(text == "on")
    mult = _SIZE.get(text[-1:], 1)
    try:
        return float(text[:-1] if mult > 1 else text) * mult
    except ValueError:
        return None


# ---------------------------------------------------------------- well formed


def test_the_reference_set_is_complete():
    assert sorted(p.stem for p in REF.glob("*.parquet")) == sorted(NAMES)
    readme = (REF / "README.md").read_text()
    for name in NAMES:
        assert name in readme, name
    assert "10.11.19-MariaDB" in readme


@pytest.mark.parametrize("name", NAMES)
def test_recording_is_well_formed(name):
    rec, meta = load(name)
    s = rec.series
    assert rec.engine == "mariadb-10.11"
    assert rec.server_version.startswith("10.11.")
    assert meta["mariadb_version"] == rec.server_version
    assert meta["name"] == name
    assert rec.reconnects == 0 and rec.interval_s == 1.0
    assert s.height >= 30
    assert s["time_s"].to_list() == list(range(1, s.height + 1))
    assert set(s.columns) <= ALLOWED | {"time_s"}, set(s.columns) - ALLOWED
    assert NEEDED <= set(s.columns), NEEDED - set(s.columns)
    # complete: no missed sample, no counter that went backwards
    nulls = {c: n for c, n in zip(s.columns, s.null_count().row(0), strict=True) if n}
    assert not nulls, nulls
    # counters are per-second deltas, gauges are sizes: nothing is negative
    negative = [c for c in s.columns if (s[c] < 0).any()]
    assert not negative, negative
    counters = [c for c in s.columns if c in SOURCES and SOURCES[c][0] == "counter"]
    assert "dml_updates" in counters and "buffer_flush_batch_total_pages" in counters
    # MariaDB's own names are copies of the common columns
    for own, common in MARIADB_STATUS.items():
        if own in s.columns:
            assert s[own].equals(s[common], check_names=False), own
    # the pool: innodb_buffer_pool_size / innodb_page_size, less the server's own pages
    expected = int(rec.variables["innodb_buffer_pool_size"]) // int(
        rec.variables["innodb_page_size"]
    )
    total = s["buffer_pool_pages_total"]
    assert ((total >= 0.95 * expected) & (total <= expected)).all()
    # the server ran with the stated options (the preparation changed some for a while)
    for option, value in meta["options"].items():
        number = _as_number(value)
        if option.startswith("innodb_") and number is not None:
            assert float(rec.variables[option]) == number, option
    # nothing of the recording machine is kept
    assert not any("flushsim-mariadb-" in v for v in rec.variables.values())
    # scrubbed, or (newer recorder) not kept at all
    assert rec.variables.get("hostname", "<host>") == "<host>"


# ---------------------------------------------------------------- idle flushing


@pytest.mark.parametrize("name", IDLE)
def test_idle_pool_is_flushed_at_io_capacity_above_the_lwm(name):
    rec, meta = load(name)
    ioc, s = IDLE[name], rec.series
    lwm = float(rec.variables["innodb_max_dirty_pages_pct_lwm"])
    assert int(rec.variables["innodb_io_capacity"]) == ioc and lwm == 10
    # a good part of the pool dirty, no client activity, no other source of writes
    assert s["buffer_pool_pages_dirty"][0] >= 0.4 * s["buffer_pool_pages_total"][0]
    assert s["dml_updates"].sum() == 0
    for quiet in ("buffer_LRU_batch_flush_total_pages", "buffer_flush_sync_total_pages"):
        assert s[quiet].sum() == 0, quiet
    # the redo age stays below innodb_adaptive_flushing_lwm (10 % of the log): the rule below
    # is the recommendation's flat innodb_io_capacity, with no redo term
    assert s["log_lsn_checkpoint_age"].max() < 0.09 * int(rec.variables["innodb_log_file_size"])

    phases = idle_phases(s, ioc, lwm)
    above = phases.filter(pl.col("phase") == "above_lwm")
    assert above.height >= 5
    rate = above["pages_flushed"].mean()
    assert rate == pytest.approx(ioc, rel=0.10), above
    assert rate == pytest.approx(IDLE_RATE_ABOVE_LWM[ioc], abs=0.5)
    assert (above["pages_flushed"] - ioc).abs().max() <= 0.1 * ioc, above
    # counted as adaptive flushing (the recommendation's early return), not as idle pages
    assert above["adaptive"].sum() >= 0.9 * above["pages_flushed"].sum()
    # once clean, nothing more
    clean = phases.filter(pl.col("phase") == "clean")
    assert clean.height >= 5 and clean["pages_flushed"].sum() == 0


@pytest.mark.parametrize("name", IDLE)
def test_idle_flushing_below_the_lwm_runs_every_other_second(name):
    rec, _ = load(name)
    ioc = IDLE[name]
    phases = idle_phases(rec.series, ioc, float(rec.variables["innodb_max_dirty_pages_pct_lwm"]))
    below = phases.filter(pl.col("phase") == "below_lwm")
    assert below.height >= 2, phases
    # the true idle path (background counter), io_capacity pages in every second round only
    assert below["background"].sum() == below["pages_flushed"].sum() > 0
    assert below["pages_flushed"].mean() == pytest.approx(ioc / 2, rel=0.25), below
    assert set(below["pages_flushed"].to_list()) <= {0, ioc}, below
    # the pool is clean before the recording ends (about ioc/2 per second below the lwm)
    assert rec.series["buffer_pool_pages_dirty"][-1] == 0


def test_idle_rate_scales_with_io_capacity():
    rates = {}
    for name, ioc in IDLE.items():
        rec, _ = load(name)
        phases = idle_phases(rec.series, ioc, 10.0)
        rates[ioc] = phases.filter(pl.col("phase") == "above_lwm")["pages_flushed"].mean()
    assert rates[100] < rates[200] < rates[400]
    assert rates[400] / rates[100] == pytest.approx(4.0, rel=0.10)


def test_default_lwm_of_zero_leaves_an_idle_pool_dirty():
    rec, meta = load(IDLE_LWM0)
    s = rec.series
    assert float(rec.variables["innodb_max_dirty_pages_pct_lwm"]) == 0
    assert int(rec.variables["innodb_io_capacity"]) == 200
    start = s["buffer_pool_pages_dirty"][0]
    assert start >= 0.4 * s["buffer_pool_pages_total"][0]
    # idle and far from innodb_adaptive_flushing_lwm: the page cleaner sleeps
    assert s["log_lsn_checkpoint_age"].max() < 0.09 * int(rec.variables["innodb_log_file_size"])
    assert pages_flushed(s).sum() == 0
    assert s["innodb_dblwr_pages_written"].sum() == 0
    assert s["buffer_pool_pages_dirty"].min() >= 0.95 * start


# ---------------------------------------------------------------- hot-set updates


@pytest.mark.parametrize("name", HOTSET)
def test_hotset_workload_ran_as_stated(name):
    rec, meta = load(name)
    s = rec.series
    wl = meta["workload"]
    assert wl["kind"] == "update-hotset" and wl["rows_per_trx"] == 1
    assert int(rec.variables["innodb_io_capacity_max"]) == HOTSET[name]
    assert int(rec.variables["innodb_io_capacity"]) == 100
    rate = wl["rate_per_s"]
    assert wl["achieved"]["rate_per_s"] == pytest.approx(rate, rel=0.01)
    # every second but the first (the load starts just before the baseline) within 2 %
    steady = s["dml_updates"].slice(1)
    assert (steady - rate).abs().max() <= 0.02 * rate, steady.to_list()
    # one autocommit single-row UPDATE per transaction (a sample can fall between a thread's
    # row update and its commit: at most one statement per thread apart)
    assert (s["sim_tps"] - s["dml_updates"]).abs().max() <= wl["threads"]
    assert s["sim_tps"].sum() == pytest.approx(s["dml_updates"].sum(), abs=wl["threads"])
    # the table fits: no reads, no LRU flushing, no waits; never near the furious point
    assert meta["preparation"]["pages_dirty_at_start"] == 0
    for quiet in (
        "buffer_pool_reads",
        "buffer_LRU_batch_flush_total_pages",
        "buffer_flush_sync_total_pages",
        "buffer_pool_wait_free",
    ):
        assert s[quiet].sum() == 0, quiet
    assert (s["log_lsn_checkpoint_age"] < s["log_max_modified_age_async"]).all()


@pytest.mark.parametrize("name", HOTSET)
def test_hotset_flushing_drops_when_redo_age_passes_the_adaptive_lwm(name):
    """io_capacity pages/s at first, then far fewer: the recommendation's averages start at 0."""
    rec, _ = load(name)
    s = rec.series
    flushed = pages_flushed(s)
    cap = int(rec.variables["innodb_io_capacity"])
    lwm_age = 0.09 * int(rec.variables["innodb_log_file_size"])  # ~ adaptive_flushing_lwm
    early = flushed.filter((s["log_lsn_checkpoint_age"].shift(1) < 0.8 * lwm_age).fill_null(False))
    assert early.len() >= 8
    assert (early - cap).abs().max() <= 0.1 * cap, early.to_list()
    assert flushed.slice(15, 15).min() < cap / 2


def test_higher_io_capacity_max_means_fewer_updates_per_page_flushed():
    whole, last = {}, {}
    for name, iocmax in HOTSET.items():
        rec, _ = load(name)
        whole[iocmax] = updates_per_page_flushed(rec.series)
        last[iocmax] = updates_per_page_flushed(rec.series, LAST_S)
        assert (whole[iocmax], last[iocmax]) == pytest.approx(UPDATES_PER_PAGE[iocmax], abs=0.05)
    for u in (whole, last):
        assert u[200] > u[400] > u[800], u
    # write combining differs by more than a third between the ends (Percona's MySQL runs, 30
    # min each: 62 at 100 to 20 at 5,000)
    assert last[200] / last[800] >= 1.3, last
