"""Seed 002 (Percona, "Watch Out for Disk I/O Performance Issues when Running EXT4", 2019).

From Linux 4.9 ("ext4: Allow parallel DIO reads") ext4 serialises direct reads and writes of a
file; on an IO-bound sysbench OLTP_RW on NVMe (preset `seed002-ext4-dio`, which says how it was
chosen) the article finds, one test each:
- up to 8 threads the filesystems are "more/less similar";
- at high thread counts ext4 O_DIRECT loses 30-80 % against xfs;
- mounting with dioread_nolock fixes it on the fixed kernel ("5.3.0+ilock_fix"; upstream from
  5.5 with dioread_nolock, the default from 5.6) but not on a regular kernel (the author's
  reply to a comment); kernels before 4.9 do not have the problem;
- O_DSYNC on ext4 is "just 10 % less than" O_DIRECT on xfs and "~35 % better than" O_DIRECT on
  ext4.

Measured: mean sim_tps after WARM_UP_S (the numbers in the reasons: 60 s runs). Tolerances:
"similar" is within 5 %; "10 % less" is 5-20 % less; the fixed configurations must match xfs
exactly (the lock is off: same numbers).
What the model does not reproduce is marked xfail(strict=True) with the measured numbers.
"""

import functools

import polars as pl
import pytest

import flushsim as fs

WARM_UP_S = 20
HIGH = 256


@functools.cache
def tps(threads, **changes):
    sc = fs.presets.get("seed002-ext4-dio").replace(threads=threads, **changes)
    s = fs.simulate(sc).series.filter(pl.col("time_s") > WARM_UP_S)
    return s["sim_tps"].mean()


@functools.cache
def series(threads, **changes):
    sc = fs.presets.get("seed002-ext4-dio").replace(threads=threads, **changes)
    return fs.simulate(sc).series.filter(pl.col("time_s") > WARM_UP_S)


@pytest.mark.xfail(
    strict=True,
    reason=(
        "flushsim's ext4 O_DIRECT at 8 threads is 39.4 % below xfs (2,343 against 3,864 trx/s), "
        "not similar. The drive is not saturated at 8 threads (73 % util on xfs): its reads run "
        "at the P4500's 645,000 IOPS, its writes at 62,500. flushsim's threads spend 5 us of "
        "CPU per row and the rest in I/O, so about 7 reads are in flight at any moment, and the "
        "page cleaner writes about 9,600 pages a second: nearly every read finds a page write "
        "waiting for the reads before it, and waits for them too (1.9 thread-seconds a second of "
        "sim_dio_lock_wait_ms), and the writes take the lock one at a time. A sysbench thread "
        "also spends CPU on its queries (range scans, the client's round trips), which keeps "
        "fewer reads in flight; the article prints "
        "neither its tps nor its options, so the preset does not guess them. (The article's "
        "'until 8 i/o threads ... similar' is from its fio runs, which flushsim cannot run; "
        "this test asks it of the sysbench-like preset.)"
    ),
)
def test_up_to_8_threads_the_filesystems_are_similar():
    xfs = tps(8, filesystem="xfs")
    assert abs(tps(8) - xfs) <= 0.05 * xfs


def test_reads_wait_for_the_inode_lock_only_where_the_kernel_has_the_regression():
    assert series(HIGH)["sim_dio_lock_wait_ms"].sum() > 0
    assert series(HIGH, filesystem="ext4-dioread_nolock")["sim_dio_lock_wait_ms"].sum() > 0
    for fixed in (
        {"filesystem": "xfs"},
        {"linux_kernel": "4.4"},
        {"linux_kernel": "5.6"},
        {"filesystem": "ext4-dioread_nolock", "linux_kernel": "5.5"},
        {"innodb_flush_method": "O_DSYNC"},
    ):
        assert series(HIGH, **fixed)["sim_dio_lock_wait_ms"].sum() == 0, fixed


def test_dioread_nolock_on_a_fixed_kernel_and_older_kernels_are_ext4_without_the_lock():
    # the same numbers: only the lock differed (ext4 keeps its journal commit per log fsync,
    # which puts it a few percent below xfs)
    unlocked = tps(HIGH, linux_kernel="4.4")
    assert tps(HIGH, filesystem="ext4-dioread_nolock", linux_kernel="5.5") == unlocked
    assert tps(HIGH, linux_kernel="5.6") == unlocked
    xfs = tps(HIGH, filesystem="xfs")
    assert abs(unlocked - xfs) <= 0.05 * xfs


def test_dioread_nolock_does_not_help_on_a_regular_kernel():
    assert tps(HIGH, filesystem="ext4-dioread_nolock") == tps(HIGH)


def test_o_dsync_on_ext4_is_about_10_percent_below_xfs_o_direct():
    xfs = tps(HIGH, filesystem="xfs")
    dsync = tps(HIGH, innodb_flush_method="O_DSYNC")
    assert 0.80 * xfs <= dsync <= 0.95 * xfs


@pytest.mark.xfail(
    strict=True,
    reason=(
        "flushsim's ext4 O_DIRECT at 256 threads is 4.4 % below xfs (4,092 against 4,282 "
        "trx/s; ext4 on a kernel without the regression: 4,094), not 30-80 % below. The "
        "device is nearly saturated on xfs too (82 % util) and the threads wait for a free page "
        "most of the time (192 thread-seconds a second of sim_free_wait_ms). A thread waiting "
        "for a free page sends no read, so page writes then get the lock without waiting (reads "
        "wait for it 21 thread-seconds a second), and the device stays as busy: a page-cleaner "
        "batch books its writes' device time when it is dispatched, not when each write gets "
        "the lock (moving it to the lock, tried and not kept, gave -5 % too). Measured before "
        "the doublewrite fix of issue #33, with the settings the article does not give "
        "changed (a 4 GiB pool, innodb_lru_scan_depth up to 8192 with "
        "8 cleaners, 10x the CPU per row, other drives) the loss stays between 0.4 and 5.3 %. "
        "It is large where reads, not free pages, hold the threads up: 31 % at 32 threads on the "
        "consumer nvme-pcie4 drive (lesson 05, exercise 4)."
    ),
)
def test_ext4_o_direct_loses_30_to_80_percent_at_high_thread_counts():
    xfs = tps(HIGH, filesystem="xfs")
    assert 0.2 * xfs <= tps(HIGH) <= 0.7 * xfs


@pytest.mark.xfail(
    strict=True,
    reason=(
        "O_DSYNC on ext4 is 4.4 % below ext4 O_DIRECT in flushsim (3,910 against 4,092 trx/s), "
        "not 35 % above it: ext4 O_DIRECT barely loses (see the test above), and O_DSYNC's "
        "journal commit per doublewrite and data fsync costs device time."
    ),
)
def test_o_dsync_on_ext4_beats_ext4_o_direct_by_about_35_percent():
    assert tps(HIGH, innodb_flush_method="O_DSYNC") >= 1.2 * tps(HIGH)
