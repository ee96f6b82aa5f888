"""Seed 003 (mysqlonarm.github.io): io_capacity and innodb_lru_flush_size on an IO-bound MariaDB.

sysbench-like one-row updates, 512 threads, uniform access, a 35 GB pool over 70 GB of data, 20 GB
of redo, MariaDB 10.6.3 (presets `seed003-io-capacity` and `seed003-lru-flush-size`, at the
article's sizes: the preset comments say why the pool is not scaled down). The article's claims,
one test each:
- io_capacity 1K/2K: throughput drops "close to 0 (actual values are around 100-500 range) as
  dirty pages hit the threshold" (innodb_max_dirty_pages_pct = 90), from tens of thousands;
- 12K/24K: "There is an improvement but still, the performance is not consistent";
- 12K/24K, innodb_lru_flush_size 32 -> 512 -> 1024 -> 2048 -> 4096: throughput rises and jitter
  falls up to 2048 (ARM) or 1024 (x86), then no further gain;
- (issue #3) on mariadb-10.11 the knob changes nothing.

Measures, stated once. Per-second `sim_tps` after a WARM_UP_S warm-up (the cold pool's free
pages give an early peak; it is full and past 90 % dirty by about 36 s). "Peak" is the largest
second of the whole run, as on the article's charts. Jitter = coefficient of variation (std /
mean) of the per-second sim_tps after the warm-up; the article has no number for it, only its
charts. Seed-to-seed noise (seeds 1 and 2, measured): tps mean within 0.8 %, CV within 0.01. The
12K/24K worst second is 54.5 % of its mean with seed 1 and 60.2 % with seed 2, at the 60 % bound.

Tolerances:
- collapse: the worst second after warm-up is at most 5 % of the peak (the article: 100-500
  from tens of thousands, i.e. 1-2 %; 5 % is loose because the charts are lost). flushsim's
  collapse is shallower than the article's: about 4,800 trx/s, worst second 2.2 % of the peak;
- 12K/24K higher: mean at least 2 % above 1K/2K (the article gives no figure);
- oscillates: CV at least 0.15 and the worst second below 60 % of the mean ("a wide range of
  performance fluctuations");
- lru_flush_size throughput: the better of 1024/2048 at least 2 % above 32; 4096 within 5 % of
  it ("increasing it beyond that doesn't help"; x86 lost a little at 2048);
- lru_flush_size jitter: CV at the better of 1024/2048 at most 0.8 x CV at 32, and CV at 4096
  within 0.05 of CV at 2048 (flat);
- 10.11: every step within max(2 x seed spread, 0.5 %) of the 32 step's mean, and within
  max(2 x seed spread, 0.01) of its CV.

What makes 10.6.3 collapse in the model: with the pool nearly all dirty, a user thread without
a free page searches the LRU for a clean one, from its second iteration on the whole list, while
it holds buf_pool.mutex (LRU_SCAN_NS a page), and the other threads queue for that mutex. The
test below checks that this is what happens, so that a pass cannot come from elsewhere.
"""

from types import SimpleNamespace

import polars as pl
import pytest

import flushsim as fs
from flushsim import reproductions
from flushsim.kernels import layout

WARM_UP_S = 60
SIZES = (32, 512, 1024, 2048, 4096)
IOC_12K = 12_000, 24_000


def dirty_pct(series):
    pool = pl.col("buffer_pool_pages_data") + pl.col("buffer_pool_pages_free")
    return series.select(100 * pl.col("buffer_pool_pages_dirty") / pool).to_series()


def settled(run):
    return run.series.filter(pl.col("time_s") >= WARM_UP_S)


def stats(run):
    """(mean, CV, min) of per-second sim_tps after the warm-up, and the whole run's peak."""
    tps = settled(run)["sim_tps"]
    return tps.mean(), tps.std() / tps.mean(), tps.min(), run.series["sim_tps"].max()


def spread(a, b):
    return abs(a - b) / max(a, b)


@pytest.fixture(scope="module")
def low():
    """seed003-io-capacity: io_capacity 1K/2K, mariadb-10.6."""
    return fs.simulate(fs.presets.get("seed003-io-capacity"))


@pytest.fixture(scope="module")
def sweep():
    """seed003-lru-flush-size on mariadb-10.6: {innodb_lru_flush_size: run}."""
    base = fs.presets.get("seed003-lru-flush-size")
    return {n: fs.simulate(base.replace(innodb_lru_flush_size=n)) for n in SIZES}


@pytest.fixture(scope="module")
def sweep_1011():
    """The same on mariadb-10.11 at 32, 1024 and 4096, and 32 again with seed 2 (the noise)."""
    base = reproductions.seed003_preset("seed003-lru-flush-size", "mariadb-10.11")
    runs = {n: fs.simulate(base.replace(innodb_lru_flush_size=n)) for n in (32, 1024, 4096)}
    return runs, fs.simulate(base, seed=2)


def test_the_presets_are_the_articles_setup():
    a = fs.presets.get("seed003-io-capacity")
    b = fs.presets.get("seed003-lru-flush-size")
    for sc in (a, b):
        k = sc.knobs
        assert sc.engine == "mariadb-10.6"
        assert k["threads"] == 512 and k["workload"] == "uniform"
        assert k["innodb_max_dirty_pages_pct"] == 90
        # the article's sizes: a 35 GB pool over 70 GB of data (16 KiB pages of 68 rows), 20 GB of
        # redo, MariaDB 10.6.3
        assert sc.values["innodb_buffer_pool_size"] == 35 << 30
        assert k["table_rows"] // k["rows_per_page"] == 2 * (35 << 30) // 16384
        assert sc.values["innodb_log_file_size"] == 20 << 30
        assert k["version"] == "10.6.3"
    assert (a.knobs["innodb_io_capacity"], a.knobs["innodb_io_capacity_max"]) == (1000, 2000)
    assert (b.knobs["innodb_io_capacity"], b.knobs["innodb_io_capacity_max"]) == IOC_12K
    assert b.knobs["innodb_lru_flush_size"] == 32


def test_dirty_pages_reach_max_dirty_pages_pct_at_1k(low):
    # the precondition of the collapse: the 1K/2K flush-list budget cannot keep up
    assert dirty_pct(settled(low)).max() >= 90


def test_throughput_collapses_at_1k_when_dirty_pages_hit_the_threshold(low):
    mean, cv, worst, peak = stats(low)
    s = settled(low).with_columns(dirty=dirty_pct(settled(low)))
    at_threshold = s.filter(pl.col("dirty") >= 90)["sim_tps"]
    assert len(at_threshold) > 0
    assert at_threshold.min() <= 0.05 * peak, (mean, cv, worst, peak)


def test_the_collapse_is_threads_queueing_for_buf_pool_mutex(low, sweep):
    late = settled(low)
    # 1K/2K: searches examine about 9 million pages a second: 100 ns each, the mutex is never
    # free; at 12K/24K with 4096-page batches they hardly search
    assert late["buffer_LRU_search_scanned"].mean() * layout.LRU_SCAN_NS >= 0.8e9
    assert late["sim_LRU_mutex_wait_ms"].mean() >= 100_000  # 100 threads waiting, on average
    assert settled(sweep[4096])["buffer_LRU_search_scanned"].mean() < 0.01 * (
        late["buffer_LRU_search_scanned"].mean()
    )
    # 10.6.3's page cleaner flushes no LRU page: the user threads' batches are all there is
    assert (late["buffer_LRU_batch_flush_total_pages"] == late["sim_user_LRU_batch_pages"]).all()


def test_12k_is_higher_on_average_than_1k(low, sweep):
    at_1k, at_12k = stats(low)[0], stats(sweep[32])[0]
    assert at_12k >= 1.02 * at_1k, (at_1k, at_12k)


def test_12k_still_oscillates(sweep):
    mean, cv, worst, _ = stats(sweep[32])
    assert cv >= 0.15, cv
    assert worst <= 0.6 * mean, (worst, mean)
    # the swings happen with the pool at or over innodb_max_dirty_pages_pct (the article: "the
    # drop ... is coming from dirty page hitting threshold")
    assert dirty_pct(settled(sweep[32])).max() >= 90


def test_lru_flush_size_raises_throughput_up_to_1024_2048_then_flattens(sweep):
    tps = {n: stats(sweep[n])[0] for n in SIZES}
    best = max(tps[1024], tps[2048])
    assert best >= 1.02 * tps[32], tps
    assert tps[4096] == pytest.approx(best, rel=0.05), tps


def test_lru_flush_size_lowers_jitter_up_to_1024_2048_then_flattens(sweep):
    cv = {n: stats(sweep[n])[1] for n in SIZES}
    assert min(cv[1024], cv[2048]) <= 0.8 * cv[32], cv
    assert cv[4096] == pytest.approx(cv[2048], abs=0.05), cv


def test_lru_flush_size_changes_nothing_on_1011(sweep_1011):
    runs, other_seed = sweep_1011
    mean32, cv32, _, _ = stats(runs[32])
    mean_s2, cv_s2, _, _ = stats(other_seed)
    tps_tol = max(2 * spread(mean32, mean_s2), 0.005)
    cv_tol = max(2 * abs(cv32 - cv_s2), 0.01)
    for n, run in runs.items():
        assert run.series["sim_user_LRU_batch_pages"].sum() == 0, n
        mean, cv, _, _ = stats(run)
        assert spread(mean, mean32) <= tps_tol, (n, mean, mean32, tps_tol)
        assert abs(cv - cv32) <= cv_tol, (n, cv, cv32, cv_tol)


def test_lesson_03_starts_ahead_exactly_the_runs_its_steps_ask_for(monkeypatch):
    """Every run lesson 03 makes is one `seed003_run_ahead` started, and the other way round."""
    import flushsim.reproductions.seed003 as seed003
    from flushsim.many import _jobs

    asked, started = [], []

    def simulate_many(scenarios, *, seconds=None):
        _, jobs = _jobs(scenarios, seconds)
        asked.extend(job.scenario for job in jobs)
        return {
            label: SimpleNamespace(scenario=job.scenario)
            for label, job in zip(scenarios, jobs, strict=True)
        }

    def run_ahead(scenarios, *, seconds=None):
        started.extend(job.scenario for job in _jobs(scenarios, seconds)[1])

    monkeypatch.setattr(seed003, "simulate_many", simulate_many)
    monkeypatch.setattr(seed003, "run_ahead", run_ahead)
    seconds = 120
    seed003.seed003_run_ahead(seconds)
    io = seed003.seed003_io_capacity_runs(seconds)
    seed003.seed003_lru_flush_size_runs("mariadb-10.6", seconds=seconds, done={32: io["12K/24K"]})
    seed003.seed003_lru_flush_size_runs("mariadb-10.11", seconds=seconds)
    simulate_many(seed003.seed003_exercises(), seconds=seconds)  # as the lesson's last cell
    assert len(started) == len(asked) == 15
    assert all(sc in asked for sc in started) and all(sc in started for sc in asked)
