"""Seed 004 (Percona): dirty hot pages absorb more updates per flush at a low io_capacity_max.

A users table of about 6.5M rows where a random 30k rows take every update, one run per
innodb_io_capacity_max step (preset `seed004-hot-rows`, innodb_io_capacity = 100). The article's
numbers: about 62 updates per page flushed at 100, about 20 at 5,000 ("a factor of three"); above
6,000 trx/s at 100, below 5,400 trx/s at 4,000; no furious flushing.

Each figure is measured over the last 300 s of a 600 s run: the first 300 s are one pass of the
page cleaner over the 30k dirty pages at the slowest step, and the article's 30-minute runs are
about the settled state (later windows differ by under 3 %, measured to 2,400 s).

Tolerances, stated once:
- Updates per page flushed at 100 and at 5,000: +-25 % of the article's 62 and 20. The level
  scales with the redo capacity, which the seed text does not give (its settings block is lost);
  measured, settled (on the default device, before the preset moved to a SATA SSD): 58 -> 19
  at the preset's 512M, 70 -> 25 at 768M, 81 -> 30 at 1G; 384M reaches the sync point at 100.
  The article's figures are read off a chart.
- The factor between the two ends: +-20 % of 62 / 20 = 3.1. Unlike the level it depends little
  on the redo capacity (3.1 at 512M, 2.7 at 1G), so it gets the chart's own precision.
- Throughput: the article's two bounds as printed, and a fall of 5-15 % for "roughly 10 %".

The server is taken to be Percona Server (see the preset): its default
innodb_cleaner_lsn_age_factor = high_checkpoint makes the redo-age term grow as age^2.5 rather
than Oracle MySQL's age^1.5, and the factor follows (3.1 here; Oracle's formula gives about 4).

What the model does not reproduce is marked xfail(strict=True) with the measured numbers.
"""

import polars as pl
import pytest

import flushsim as fs
from flushsim import amplification

# innodb_io_capacity_max steps: the article's 100, 4,000 and 5,000, plus two in between
STEPS = (100, 200, 1000, 4000, 5000)
WARM_UP_S = 300

ARTICLE_UPP_AT_100 = 62
ARTICLE_UPP_AT_5000 = 20
ARTICLE_FACTOR = ARTICLE_UPP_AT_100 / ARTICLE_UPP_AT_5000


@pytest.fixture(scope="module")
def runs():
    base = fs.presets.get("seed004-hot-rows")
    return {m: fs.simulate(base.replace(innodb_io_capacity_max=m)) for m in STEPS}


def settled(run):
    """The run's per-second chain after the warm-up."""
    return amplification.chain(run).filter(pl.col("time_s") > WARM_UP_S)


def updates_per_page(run):
    c = settled(run)
    return c["dml_updates"].sum() / c["pages_flushed"].sum()


def tps(run):
    return run.series.filter(pl.col("time_s") > WARM_UP_S)["sim_tps"].mean()


def test_the_hot_rows_fit_in_the_pool_and_span_about_30k_pages(runs):
    s = runs[100].series
    # a random 30k-row subset of 6.5M rows at 68 per page covers about 25.7k pages (25,691 here)
    assert 25_000 <= s["buffer_pool_pages_dirty"].max() <= 30_000
    late = s.filter(pl.col("time_s") > WARM_UP_S)
    # every hot page is cached and the pool never runs short: only the flush list is written
    assert late["buffer_pool_reads"].sum() == 0
    assert late["buffer_pool_pages_free"].min() > 0
    for m, run in runs.items():
        assert run.series["buffer_LRU_batch_flush_total_pages"].sum() == 0, m
        assert run.series["sim_single_page_flushes"].sum() == 0, m


def test_no_furious_flushing_at_any_step(runs):
    # "We never reached a furious flushing situation."
    for m, run in runs.items():
        assert run.series["buffer_flush_sync_total_pages"].sum() == 0, m
        assert run.series["sim_redo_wait_ms"].sum() == 0, m


def test_updates_per_page_flushed_fall_as_io_capacity_max_rises(runs):
    upp = [updates_per_page(runs[m]) for m in STEPS]
    falls = all(a > b for a, b in zip(upp, upp[1:], strict=False))
    assert falls, dict(zip(STEPS, upp, strict=True))


def test_about_62_updates_per_page_flushed_at_100(runs):
    assert updates_per_page(runs[100]) == pytest.approx(ARTICLE_UPP_AT_100, rel=0.25)


def test_about_20_updates_per_page_flushed_at_5000(runs):
    assert updates_per_page(runs[5000]) == pytest.approx(ARTICLE_UPP_AT_5000, rel=0.25)


def test_write_load_falls_by_a_factor_of_about_three(runs):
    # on Percona Server's default formula (innodb_cleaner_lsn_age_factor = high_checkpoint)
    factor = updates_per_page(runs[100]) / updates_per_page(runs[5000])
    assert factor == pytest.approx(ARTICLE_FACTOR, rel=0.20)


def test_oracle_mysql_formula_would_fall_further(runs):
    """The same load on Oracle MySQL 8.0's one formula (legacy): a steeper fall, about 4x.

    A prediction, not the article's: its flush rate grows about as io_capacity_max^(1/2.5)
    against Percona's ^(1/3.5), so the factor between 100 and 5,000 is larger than 3.1 by more
    than the test's tolerance. If this fails, the preset's case for Percona Server is gone.
    """
    oracle = {
        m: fs.simulate(runs[m].scenario.replace(innodb_cleaner_lsn_age_factor="legacy"))
        for m in (100, 5000)
    }
    factor = updates_per_page(oracle[100]) / updates_per_page(oracle[5000])
    assert factor > ARTICLE_FACTOR * 1.2
    # the flush rate at the low end hardly depends on the formula; at 5,000 Oracle's flushes more
    assert updates_per_page(oracle[5000]) < updates_per_page(runs[5000])


def test_above_6000_trx_per_s_at_100(runs):
    # a calibration check (threads and think_time_us), not a reproduction: see the preset
    assert tps(runs[100]) > 6000


@pytest.mark.xfail(
    strict=True,
    reason=(
        "flushsim's throughput falls 6.8 %, not about 10 %: 6,137 trx/s at 100 and 5,718 at "
        "4,000, against the article's above 6,000 and below 5,400 (3.7 % before MySQL's "
        "data-file fsync per doublewrite batch, issue #33). The path from flushing to the "
        "clients here is the SATA drive's cache flush, which waits for the page writes in "
        "flight before each commit's redo fsync (device_interface = sata; on an NVMe-like "
        "device the fall was 0.0 % before that change); an update waiting for its page's "
        "write costs nothing measurable. CPU shared with the page cleaner is not modelled, "
        "and the seed names neither the laptop's drive nor its CPU."
    ),
)
def test_throughput_falls_by_roughly_10_percent(runs):
    at_100, at_4000 = tps(runs[100]), tps(runs[4000])
    assert at_4000 < 5400
    assert 0.05 <= 1 - at_4000 / at_100 <= 0.15
