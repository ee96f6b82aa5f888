"""Drive wear per day in the write-amplification chain: units, the ssd models, bad input."""

import dataclasses
import math

import numpy as np
import polars as pl
import pytest

import flushsim as fs
from flushsim import amplification, ssd
from flushsim.schema import LOG_START_LSN
from flushsim.ssd import TB


@pytest.fixture(scope="module")
def run():
    return fs.simulate(fs.presets.get("default").replace(seconds=15))


def steady_run(run, pages_per_s: int):
    """`run` with every second flushing `pages_per_s` pages through the doublewrite, no redo."""
    s = run.series.with_columns(
        pl.lit(0, dtype=pl.Int64).alias("buffer_LRU_batch_flush_total_pages"),
        pl.lit(pages_per_s, dtype=pl.Int64).alias("buffer_flush_batch_total_pages"),
        pl.lit(0, dtype=pl.Int64).alias("sim_single_page_flushes"),
        pl.lit(pages_per_s, dtype=pl.Int64).alias("innodb_dblwr_pages_written"),
        pl.lit(LOG_START_LSN, dtype=pl.Int64).alias("log_lsn_current"),
    )
    return dataclasses.replace(run, series=s)


def test_hand_worked_drive_writes_per_day(run):
    # seed 004's "moderately busy server": 2,000 pages/s, each 16 KiB to the data file and 16 KiB
    # to the doublewrite: 65,536,000 B/s, x 86,400 s / 1.6 TB = 3.538944 drive writes per day
    c = amplification.chain(steady_run(run, 2000), 1.0, capacity_bytes=1.6 * TB)
    assert (c["db_bytes"] == 2 * 2000 * 16384).all()
    np.testing.assert_allclose(c["drive_writes_per_day"].to_numpy(), 3.538944, rtol=1e-12)
    # an FTL writing 3 flash bytes per host byte wears the drive 3x faster
    c3 = amplification.chain(steady_run(run, 2000), 3.0, capacity_bytes=1.6 * TB)
    np.testing.assert_allclose(c3["drive_writes_per_day"].to_numpy(), 3 * 3.538944, rtol=1e-12)


def test_column_is_flash_bytes_per_day_over_capacity(run):
    cap = ssd.drive("intel-dc-p4610-1.6tb").capacity_bytes
    c = amplification.chain(run, 2.5, capacity_bytes=cap)
    assert c["drive_writes_per_day"].dtype == pl.Float64
    assert c["drive_writes_per_day"].null_count() == 0
    want = c["flash_bytes"].to_numpy() * 86_400 / cap
    np.testing.assert_allclose(c["drive_writes_per_day"].to_numpy(), want, rtol=1e-12)
    assert (c["drive_writes_per_day"] > 0).any()


def test_without_a_capacity_the_column_is_there_and_null(run):
    c = amplification.chain(run)
    assert c["drive_writes_per_day"].dtype == pl.Float64
    assert c["drive_writes_per_day"].null_count() == c.height
    # the other columns do not depend on the capacity
    with_cap = amplification.chain(run, capacity_bytes=TB)
    assert c.drop("drive_writes_per_day").equals(with_cap.drop("drive_writes_per_day"))


@pytest.mark.parametrize(
    ("fill", "model", "kw"),
    [
        (0.0, "seed004", {}),
        (0.75, "seed004", {}),
        (0.9, "desnoyers-greedy", {"over_provisioning": 0.07}),
        (1.0, "desnoyers-lru", {"over_provisioning": 0.28}),
    ],
)
def test_dwpd_rating_over_the_column_is_the_lifetime_ssd_projects(run, fill, model, kw):
    # a drive typed in by hand, rated 3 DWPD for 5 years
    d = ssd.Drive(name="typed-in 3.84 TB", capacity_bytes=3.84 * TB, dwpd=3, warranty_years=5)
    wa = ssd.write_amplification(fill, model, **kw)
    c = amplification.chain(run, wa, capacity_bytes=d.capacity_bytes)
    years_from_column = d.dwpd * d.warranty_years / c["drive_writes_per_day"].mean()
    years = d.lifetime_years(c["db_bytes"].mean(), fill=fill, model=model, **kw)
    assert years_from_column == pytest.approx(years, rel=1e-12)


def test_catalog_drive_capacity_works_as_is(run):
    for d in ssd.catalog_drives():
        c = amplification.chain(run, capacity_bytes=d.capacity_bytes)
        assert c["drive_writes_per_day"].null_count() == 0, d.name


@pytest.mark.parametrize("bad", [0, 0.0, -1.6e12, math.inf, -math.inf])
def test_capacity_out_of_range_is_refused(run, bad):
    with pytest.raises(
        ValueError,
        match=r"capacity_bytes=.* is out of range: it must be a finite number of bytes > 0",
    ):
        amplification.chain(run, capacity_bytes=bad)


@pytest.mark.parametrize("bad", [math.nan, "1.6TB", True, [1e12]])
def test_capacity_that_is_not_a_number_is_refused(run, bad):
    with pytest.raises(
        ValueError, match=r"capacity_bytes=.* is not a number: it must be a finite number"
    ):
        amplification.chain(run, capacity_bytes=bad)


@pytest.mark.parametrize(
    ("bad", "match"),
    [
        (math.inf, r"ftl_write_amplification=inf is out of range: it must be a finite number >= 1"),
        (0.99, r"ftl_write_amplification=0\.99 is out of range: it must be a finite number >= 1"),
        ("2", r"ftl_write_amplification='2' is not a number"),
        (True, r"ftl_write_amplification=True is not a number"),
    ],
)
def test_ftl_factor_errors_name_the_parameter_and_range(run, bad, match):
    with pytest.raises(ValueError, match=match):
        amplification.chain(run, bad, capacity_bytes=TB)


def test_numpy_scalars_are_accepted(run):
    c = amplification.chain(run, np.float64(1.5), capacity_bytes=np.int64(10**12))
    want = amplification.chain(run, 1.5, capacity_bytes=1e12)
    assert c.equals(want)
