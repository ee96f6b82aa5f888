"""The numba kernel and its readable pure-Python twin give identical numbers.

Each scenario exercises other paths: LRU batches and single-page flushes (a table larger than
the pool), sync flushing (a small redo log), idle flushing, the disabled page cleaner, timeline
changes, every workload, two instances, each doublewrite mode, and the I/O path (journal
commits forced by fsyncs behind a neighbour's writeback on ext4; ext4's O_DIRECT inode lock;
O_DIRECT_NO_FSYNC; redo flushes at commit and once a second; a SATA drive's flushes),
Percona Server's redo-age formula, and neighbour flushing on a rotational device.
"""

import collections
import functools
import sys

import numpy as np
import pytest

import flushsim as fs
from flushsim import schema
from flushsim.kernels import reference, sim
from flushsim.run import kernel_inputs

pytestmark = pytest.mark.kernel

# think time keeps the pure-Python twin's runs to a few seconds
BASE = {
    "innodb_buffer_pool_size": "8M",
    "table_rows": 60_000,
    "threads": 4,
    "write_pct": 40,
    "think_time_us": 1000.0,
}

# ext4 + O_DIRECT on 5.3 (seed 002): the inode lock delays page writes behind reads
DIO_LOCK = {
    **BASE,
    "table_rows": 150_000,
    "threads": 16,
    "think_time_us": 200.0,
    "filesystem": "ext4",
    "innodb_flush_method": "O_DIRECT",
    "linux_kernel": "5.3",
    "device": "nvme-dc-p4500",
}

# a pool full enough for neighbour flushing (LRU >= BUF_LRU_OLD_MIN_LEN) on a fast rotational
# device, many dirty pages near each other, flush-list batches from the dirty-page share
NEIGHBORS = {
    **BASE,
    "innodb_buffer_pool_size": "16M",
    "table_rows": 100_000,
    "device_rotational": True,
    "innodb_max_dirty_pages_pct_lwm": 10,
    "innodb_lru_scan_depth": 200,
}

SCENARIOS = {
    "io-bound-lru": fs.Scenario(knobs={**BASE, "table_rows": 150_000}, seconds=3),
    "small-redo-sync": fs.Scenario(
        knobs={
            **BASE,
            "table_rows": 20_000,
            "innodb_redo_log_capacity": "8M",
            "innodb_lru_scan_depth": 100,
        },
        seconds=3,
    ),
    "hotset-two-instances": fs.Scenario(
        knobs={
            **BASE,
            "workload": "hotset",
            "hot_rows": 3000,
            "hot_pct": 90,
            "innodb_buffer_pool_size": "16M",
            "innodb_buffer_pool_instances": 2,
            "innodb_page_cleaners": 2,
        },
        seconds=3,
    ),
    "zipf-no-doublewrite": fs.Scenario(
        knobs={**BASE, "workload": "zipf", "innodb_doublewrite": "OFF"}, seconds=3
    ),
    "detect-only": fs.Scenario(
        knobs={**BASE, "innodb_doublewrite": "DETECT_ONLY", "innodb_doublewrite_pages": 16},
        seconds=2,
    ),
    # many threads flushing single pages: some are stopped while their flush is in flight
    "stopped-mid-flush": fs.Scenario(
        knobs={**BASE, "table_rows": 150_000, "threads": 16}, seconds=2
    )
    .stop_workload(1.2)
    .start_workload(1.6),
    "timeline": fs.Scenario(knobs={**BASE, "innodb_io_capacity": 100}, seconds=6)
    .at(1.5, innodb_page_cleaner_disabled_debug=True)
    .at(3, innodb_page_cleaner_disabled_debug=False, innodb_io_capacity=400)
    .stop_workload(4)
    .start_workload(5.2),
    "sequential-update": fs.Scenario(
        knobs={
            **BASE,
            "workload": "sequential",
            "threads": 1,
            "rows_per_trx": 50,
            "write_pct": 100,
            "seq_end_row": 30_000,
        },
        seconds=3,
    ).at(2, seq_start_row=1000, seq_end_row=9000, threads=2),
    "old-blocks-time-0": fs.Scenario(
        knobs={
            **BASE,
            "innodb_old_blocks_time": 0,
            "innodb_old_blocks_pct": 20,
            "think_time_us": 300.0,
        },
        seconds=3,
    ),
    # the I/O path (issue 4): journal commits behind a neighbour's writeback, a skipped fsync
    "ext4-fsync-neighbour": fs.Scenario(
        knobs={
            **BASE,
            "table_rows": 150_000,
            "filesystem": "ext4",
            "innodb_flush_method": "fsync",
            "neighbour_write_mb_s": 20.0,
            # reads faster than writes: each direction's own rate (io._service)
            "device_read_bandwidth_mb_s": 400.0,
            "device_write_bandwidth_mb_s": 80.0,
        },
        seconds=7,
    ),
    "ext4-dio-lock": fs.Scenario(knobs=DIO_LOCK, seconds=3),
    # Percona Server's redo-age formula in the adaptive regime, switched to Oracle's at run time
    "percona-high-checkpoint-then-legacy": fs.Scenario(
        knobs={
            **BASE,
            "innodb_buffer_pool_size": "16M",
            "write_pct": 100,
            "innodb_lru_scan_depth": 100,
            "innodb_redo_log_capacity": "24M",
            "innodb_io_capacity_max": 4000,
            "innodb_cleaner_lsn_age_factor": "high_checkpoint",
        },
        seconds=6,
    ).at(3.5, innodb_cleaner_lsn_age_factor="legacy"),
    # a SATA drive: fsyncs wait for the reads and writes in flight (device_interface = sata)
    "sata-flush-waits": fs.Scenario(
        knobs={**BASE, "table_rows": 150_000, "threads": 8, "device": "sata-ssd"}, seconds=3
    ),
    # innodb_flush_neighbors on a spinning disk (issue 33): contiguous runs, then whole areas
    "rotational-neighbors-1-then-2": fs.Scenario(
        knobs={**NEIGHBORS, "innodb_flush_neighbors": 1}, seconds=3
    ).at(1.5, innodb_flush_neighbors=2),
    "trx-commit-2-then-1": fs.Scenario(
        knobs={**BASE, "innodb_flush_log_at_trx_commit": 2}, seconds=3
    ).at(1.5, innodb_flush_log_at_trx_commit=1),
    # trx_rate (issue 7): a paced schedule, changed, stopped, restarted, then closed loop again
    "paced-rate": fs.Scenario(knobs={**BASE, "trx_rate": 800.0, "think_time_us": 0.0}, seconds=5)
    .at(1.3, trx_rate=2500.0)
    .stop_workload(2.1)
    .start_workload(2.6)
    .at(3.4, trx_rate=3.5)
    .at(4.2, trx_rate=0.0, think_time_us=1000.0),
    "o-direct-no-fsync": fs.Scenario(
        knobs={
            **BASE,
            "table_rows": 150_000,
            "filesystem": "ext4",
            "innodb_flush_method": "O_DIRECT_NO_FSYNC",
            "innodb_doublewrite": "OFF",
            "neighbour_write_mb_s": 5.0,
        },
        seconds=6,
    ),
}


# MariaDB engines (issue 3): the single page cleaner, LRU passes, furious flushing with a small
# ib_logfile0, idle flushing with a non-zero lwm, and (10.6) user threads' own LRU batches.
MARIADB_SCENARIOS = {
    f"{engine}-{name}": fs.Scenario(engine=engine, seconds=3, knobs=knobs)
    for engine in ("mariadb-10.6", "mariadb-10.11")
    for name, knobs in {
        "io-bound-lru": {**BASE, "table_rows": 150_000},
        "small-redo-furious": {
            **BASE,
            "table_rows": 20_000,
            "innodb_log_file_size": "4M",
            "innodb_lru_scan_depth": 100,
            # a slow device and much redo: async flushing falls behind, furious flushing starts
            "redo_bytes_per_change": 4000,
            "device_read_iops": 1000,
            "device_write_iops": 1000,
        },
        "lwm-idle": {**BASE, "innodb_max_dirty_pages_pct_lwm": 10, "innodb_io_capacity": 100},
        "ext4-fsync-neighbour": {
            **BASE,
            "table_rows": 150_000,
            "filesystem": "ext4",
            "innodb_flush_method": "fsync",
            "neighbour_write_mb_s": 20.0,
        },
        # ext4's inode lock delays the writes whose end the LRU passes wait for
        "ext4-dio-lock": DIO_LOCK,
        "rotational-neighbors-2": {**NEIGHBORS, "innodb_flush_neighbors": 2},
    }.items()
}
MARIADB_SCENARIOS["mariadb-10.11-paced-rate"] = fs.Scenario(
    engine="mariadb-10.11",
    seconds=3,
    knobs={**BASE, "table_rows": 150_000, "trx_rate": 1500.0, "think_time_us": 0.0},
).at(1.5, trx_rate=400.0, threads=2)
# 10.6.3: no LRU flushing in the page cleaner, so user threads' searches of the whole LRU (under
# buf_pool.mutex, from lru_scan_itr) and their own batches are the only source of free pages
MARIADB_SCENARIOS["mariadb-10.6.3-whole-lru-search"] = fs.Scenario(
    engine="mariadb-10.6",
    seconds=3,
    knobs={
        **BASE,
        "version": "10.6.3",
        "table_rows": 150_000,
        "threads": 32,
        "write_pct": 100,
        "think_time_us": 0.0,
    },
)
# many threads waiting for buf_pool.mutex or a batch at once: the event loop's wait group
# (scheduler.py), across a change of thread count and a stop
for _engine, _release in (("mariadb-10.6", {"version": "10.6.3"}), ("mariadb-10.11", {})):
    MARIADB_SCENARIOS[f"{_engine}-wait-group"] = (
        fs.Scenario(
            engine=_engine,
            seconds=3,
            knobs={
                **BASE,
                **_release,
                "table_rows": 150_000,
                "threads": 96,
                "write_pct": 100,
                "think_time_us": 0.0,
            },
        )
        .at(1.4, threads=64)
        .stop_workload(2.4)
    )
MARIADB_SCENARIOS["mariadb-10.6-flush-size-and-stop"] = (
    fs.Scenario(
        engine="mariadb-10.6",
        seconds=3,
        knobs={**BASE, "table_rows": 150_000, "innodb_lru_flush_size": 200},
    )
    .at(1.2, innodb_lru_flush_size=8)
    .stop_workload(2.2)
)


@functools.cache
def _both_named(name):
    """Kernel and twin outputs of a named scenario, computed once per test session.

    The coverage tests below reuse them: under NUMBA_DISABLE_JIT (the CI leg) each kernel run
    is pure Python and takes tens of seconds.
    """
    return _both({**SCENARIOS, **MARIADB_SCENARIOS}[name])


def _both(scenario):
    ki = kernel_inputs(scenario)
    knobs_before = ki.knobs.copy()
    a = sim.simulate_kernel(*ki.args())
    assert np.array_equal(ki.knobs, knobs_before), "the kernel changed its input knobs"
    b = reference.simulate_kernel(*ki.args())
    return a, b


def _diff(a, b):
    cols = [schema.COLUMNS[c] for c in range(a.shape[1]) if not np.array_equal(a[:, c], b[:, c])]
    return cols


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_kernel_equals_twin(name):
    (out_a, hist_a), (out_b, hist_b) = _both_named(name)
    assert _diff(out_a, out_b) == []
    assert np.array_equal(hist_a, hist_b)
    # the scenario really ran transactions
    assert out_a[:, schema.C_TPS].sum() > 0


@pytest.mark.parametrize("name", sorted(MARIADB_SCENARIOS))
def test_kernel_equals_twin_mariadb(name):
    (out_a, hist_a), (out_b, hist_b) = _both_named(name)
    assert _diff(out_a, out_b) == []
    assert np.array_equal(hist_a, hist_b)
    assert out_a[:, schema.C_TPS].sum() > 0


@pytest.mark.parametrize("engine", ["mariadb-10.6", "mariadb-10.11"])
def test_the_wait_group_scenarios_have_threads_waiting_for_the_mutex(engine):
    (out, _), _ = _both_named(f"{engine}-wait-group")
    assert out[:, schema.COL["sim_LRU_mutex_wait_ms"]].sum() > 100  # 0.64 and 0.69 s when written


def test_mariadb_scenarios_cover_their_paths():
    seen = set()
    for name in MARIADB_SCENARIOS:
        (out, _), _ = _both_named(name)
        for col in (
            "buffer_LRU_batch_flush_total_pages",
            "buffer_flush_adaptive_total_pages",
            "buffer_flush_sync_total_pages",
            "buffer_flush_background_total_pages",
            "sim_user_LRU_batch_pages",
            "buffer_pool_wait_free",
            "innodb_dblwr_pages_written",
            "buffer_LRU_search_scanned",
            "sim_LRU_mutex_wait_ms",
            "sim_dio_lock_wait_ms",
            "buffer_flush_neighbor_total_pages",
        ):
            if out[:, schema.COL[col]].sum() > 0:
                seen.add(col)
    assert seen == {
        "buffer_flush_neighbor_total_pages",
        "buffer_LRU_batch_flush_total_pages",
        "buffer_flush_adaptive_total_pages",
        "buffer_flush_sync_total_pages",
        "buffer_flush_background_total_pages",
        "sim_user_LRU_batch_pages",
        "buffer_pool_wait_free",
        "innodb_dblwr_pages_written",
        "buffer_LRU_search_scanned",
        "sim_LRU_mutex_wait_ms",
        "sim_dio_lock_wait_ms",
    }


def test_scenarios_cover_the_flushing_paths():
    seen = set()
    for name in SCENARIOS:
        (out, _), _ = _both_named(name)
        for col in (
            "buffer_LRU_batch_flush_total_pages",
            "buffer_flush_adaptive_total_pages",
            "buffer_flush_sync_total_pages",
            "buffer_flush_background_total_pages",
            "sim_single_page_flushes",
            "buffer_pages_made_young",
            "innodb_dblwr_pages_written",
            "sim_redo_wait_ms",
            "sim_neighbour_wkB_s",
            "sim_journal_commits_forced",
            "sim_dio_lock_wait_ms",
            "sim_commit_wait_ms",
            "buffer_flush_neighbor_total_pages",
        ):
            if out[:, schema.COL[col]].sum() > 0:
                seen.add(col)
    assert seen == {
        "buffer_flush_neighbor_total_pages",
        "sim_commit_wait_ms",
        "sim_dio_lock_wait_ms",
        "sim_neighbour_wkB_s",
        "sim_journal_commits_forced",
        "buffer_LRU_batch_flush_total_pages",
        "buffer_flush_adaptive_total_pages",
        "buffer_flush_sync_total_pages",
        "buffer_flush_background_total_pages",
        "sim_single_page_flushes",
        "buffer_pages_made_young",
        "innodb_dblwr_pages_written",
        "sim_redo_wait_ms",
    }


def test_a_thread_stopped_during_its_single_page_flush_frees_the_frame_when_it_ends(
    monkeypatch,
):
    # the flushing thread holds its page io-fixed until it wakes; stopped meanwhile, it still
    # wakes then (wake_threads), and the event loop frees the frame instead of thread_step
    freed_by = collections.Counter()
    done = reference.ReferenceSim.single_flush_done

    def record(self, f):
        freed_by[sys._getframe(1).f_code.co_name] += 1
        return done(self, f)

    monkeypatch.setattr(reference.ReferenceSim, "single_flush_done", record)
    ki = kernel_inputs(SCENARIOS["stopped-mid-flush"])
    out, hist = reference.simulate_kernel(*ki.args(), check_every_event=True)
    assert freed_by["run_to"] > 0 and freed_by["thread_step"] > 0  # the event loop: run_to
    out_k, hist_k = _both_named("stopped-mid-flush")[0]
    assert np.array_equal(out, out_k) and np.array_equal(hist, hist_k)


def test_same_seed_same_numbers_through_both_kernels():
    sc = SCENARIOS["io-bound-lru"]
    a = fs.simulate(sc).series
    b = fs.simulate(sc, kernel="reference").series
    assert a.equals(b) and a.dtypes == b.dtypes
    c = fs.simulate(sc, seed=sc.seed + 1).series
    assert not c.equals(a)
