"""The I/O path's mechanisms, one at a time (flushsim/kernels/io.py).

Redo flushes with group commit, innodb_flush_log_at_trx_commit, storage profiles and the
neighbour's writeback.

The seeds' reproductions are in test_seed000.py and test_seed002.py; these tests check the
pieces they are built from, on small runs.
"""

import functools

import numpy as np
import polars as pl
import pytest

import flushsim as fs
from flushsim import devices, schema
from flushsim.kernels import io, layout
from flushsim.run import kernel_inputs

# a write-heavy load on a pool that holds the table: commits, not misses, set the pace
BASE = {
    "innodb_buffer_pool_size": "64M",
    "table_rows": 100_000,
    "write_pct": 100,
    "rows_per_trx": 1,
    "think_time_us": 0.0,
}


@functools.cache
def series(**knobs):
    sc = fs.Scenario(knobs={**BASE, **knobs}, seconds=6)
    return fs.simulate(sc).series.filter(pl.col("time_s") > 2)


def test_one_thread_flushes_the_redo_once_per_commit():
    s = series(threads=1)
    assert s["log_writes"].sum() == pytest.approx(s["sim_tps"].sum(), rel=0.01)
    assert s["sim_commit_wait_ms"].sum() > 0


def test_group_commit_shares_a_flush_between_committers():
    s = series(threads=64)
    # many commits arrive while a flush is under way: they share the next one
    assert s["log_writes"].sum() < 0.2 * s["sim_tps"].sum()
    assert s["sim_tps"].sum() > 2 * series(threads=1)["sim_tps"].sum()


@pytest.mark.parametrize("value", [0, 2])
def test_trx_commit_0_and_2_flush_once_a_second_and_commits_do_not_wait(value):
    s = series(threads=8, innodb_flush_log_at_trx_commit=value)
    assert s["sim_commit_wait_ms"].sum() == 0
    assert s["log_writes"].max() == 1
    assert s["sim_tps"].sum() > series(threads=8)["sim_tps"].sum()


def test_a_profile_sets_the_device_knobs_a_hand_set_knob_wins():
    sc = fs.Scenario(knobs={"device": "sata-ssd", "device_write_iops": 5000})
    profile = devices.knobs("sata-ssd")
    assert sc.values["device_write_iops"] == 5000
    for name in ("device_read_iops", "device_read_bandwidth_mb_s", "device_fsync_latency_us"):
        assert sc.values[name] == profile[name]
    with pytest.raises(ValueError, match="device="):
        fs.Scenario(knobs={"device": "nvme"})


def test_the_neighbours_bytes_go_out_at_journal_commits():
    # 30 MB/s of buffered writes for 6 s
    def written(fs_name):
        sc = fs.Scenario(
            knobs={**BASE, "threads": 2, "filesystem": fs_name, "neighbour_write_mb_s": 30.0},
            seconds=6,
        )
        return fs.simulate(sc).series["sim_neighbour_wkB_s"] * 1024  # bytes per second

    # ext4 + fsync: every commit's redo fsync forces a journal commit, which writes the
    # neighbour's data out as it comes (all but the last commit's worth)
    ext4 = written("ext4")
    assert ext4.sum() == pytest.approx(30e6 * 6, rel=0.001)
    assert ext4.min() > 0.9 * 30e6
    # xfs: nothing forces a commit; the timed one at 5 s writes the first 5 s in one stream
    xfs = written("xfs")
    assert xfs[:5].sum() == 0
    assert xfs[5] == pytest.approx(30e6 * 5, rel=0.001)


# ---------------------------------------------------------------- iostat's seconds


@pytest.mark.kernel
def test_iostat_counts_an_io_where_it_completes_and_its_queue_time_where_it_waits():
    # A read submitted at 0.9 s behind a read FIFO busy until 1.15 s: Linux counts it, its
    # bytes and its await when it completes (second 1); aqu_sz, the mean number in flight,
    # gets 0.1 s of it in second 0 and the rest in second 1; util the device time it used.
    knobs = kernel_inputs(fs.Scenario(knobs={"device": "nvme-pcie4"})).knobs
    g = np.zeros(layout.N_G, dtype=np.int64)
    g[layout.G_DEV_BUSY_READ] = 1_150_000
    out = np.zeros((3, schema.N_COLS))
    done = io.submit(g, knobs, out, 900_000, 16384, False)
    assert 1_150_000 < done < 2_000_000
    assert list(out[:, schema.C_R_S]) == [0, 1, 0]
    assert list(out[:, schema.C_RKB]) == [0, 16, 0]
    assert out[1, schema.C_R_AWAIT] == done - 900_000
    assert list(out[:, schema.C_AQU]) == [100_000, done - 1_000_000, 0]
    service = round(16384 / 6900)  # bandwidth-bound on the 990 PRO profile: 2 us
    assert list(out[:, schema.C_UTIL]) == [0, service, 0]
    # an I/O that completes after the run counts nowhere, but its time in flight does
    g[layout.G_DEV_BUSY_READ] = 3_050_000
    late = io.submit(g, knobs, out, 2_999_000, 16384, False)
    assert late > 3_000_000 and out[:, schema.C_R_S].sum() == 1
    assert out[2, schema.C_AQU] == 1_000


@pytest.mark.parametrize(
    "knobs",
    [
        {"innodb_buffer_pool_size": "64M", "table_rows": 2_000_000, "threads": 8},
        # ext4's inode lock moves page writes' completions (seed 002)
        {
            "innodb_buffer_pool_size": "64M",
            "table_rows": 2_000_000,
            "threads": 32,
            "innodb_flush_method": "O_DIRECT",
            "filesystem": "ext4",
            "linux_kernel": "5.3",
        },
        # fsyncs behind the neighbour's writeback stream (seed 000)
        {
            **BASE,
            "filesystem": "ext4",
            "neighbour_write_mb_s": 64.0,
            "device_read_iops": 5_000,
            "device_write_iops": 5_000,
        },
    ],
    ids=["reads-and-flushing", "ext4-inode-lock", "neighbour"],
)
def test_iostat_columns_obey_iostats_identity_over_a_run(knobs):
    # iostat derives avgqu-sz and await from the same per-request times, so over any span
    # avgqu-sz x seconds = (r/s x r_await + w/s x w_await) / 1000. Only I/Os still in flight
    # when the run ends have queue time and no await yet (a few ms of a 6 s run's seconds).
    s = fs.simulate(fs.Scenario(knobs=knobs, seconds=6)).series
    in_flight = s["aqu_sz"].sum()
    awaited = (
        (s["r_s"] * s["r_await_ms"].fill_nan(0.0) + s["w_s"] * s["w_await_ms"].fill_nan(0.0)) / 1000
    ).sum()
    assert in_flight > 0.5
    assert in_flight * 0.97 <= awaited <= in_flight * (1 + 1e-9)


# ---------------------------------------------------------------- device_interface (SATA flush)


def _fsync_at(interface, write_busy_until, read_busy_until=0, now=1_000_000):
    """Microseconds an fsync of the redo log at `now` (us) takes on xfs.

    The device's write and read FIFOs are busy until the given times (us).
    """
    sc = fs.Scenario(
        knobs={"device": "sata-ssd", "device_interface": interface, "filesystem": "xfs"}
    )
    knobs = kernel_inputs(sc).knobs
    g = np.zeros(layout.N_G, dtype=np.int64)
    g[layout.G_DEV_BUSY_WRITE] = write_busy_until
    g[layout.G_DEV_BUSY_READ] = read_busy_until
    out = np.zeros((5, schema.N_COLS))
    return io.fsync(g, knobs, out, now, layout.FILE_LOG) - now


@pytest.mark.kernel
def test_a_sata_flush_waits_for_the_commands_in_flight_at_most_ncq_depth():
    fsync_us = devices.knobs("sata-ssd")["device_fsync_latency_us"]  # 2,000 us
    # an idle device: the flush costs its own latency, whatever the interface
    assert _fsync_at("sata", 0) == _fsync_at("nvme", 0) == fsync_us
    # 300 us of writes in flight: NVMe queues the flush beside them, SATA waits for them
    assert _fsync_at("nvme", 1_000_300) == fsync_us
    assert _fsync_at("sata", 1_000_300) == 300 + fsync_us
    assert _fsync_at("sata", 0, read_busy_until=1_000_200) == 200 + fsync_us  # reads too
    # a long backlog: only the head of it is at the drive (32 NCQ slots of 16 KiB writes)
    page_us = round(16384 / 530)  # bandwidth-bound on the 870 EVO profile: 31 us a page
    assert _fsync_at("sata", 1_500_000) == 32 * page_us + fsync_us


@pytest.mark.kernel
def test_ext4s_inode_lock_takes_page_writes_one_at_a_time_after_the_reads_before_each():
    # ext4 + O_DIRECT on 5.3 (seed 002). A read is in flight from 0 us until `busy` when two
    # page writes are dispatched back to back at 10 us. Write 1 gets the lock when that read is
    # done; a read arriving at 50 us waits for write 1 and goes with it. Write 2's thread was
    # blocked in io_submit until write 1 had the lock, so write 2 waits for that read too.
    knobs = kernel_inputs(fs.presets.get("seed002-ext4-dio")).knobs
    g = np.zeros(layout.N_G, dtype=np.int64)
    out = np.zeros((3, schema.N_COLS))
    ring_done = np.zeros(8, dtype=np.int64)
    page = int(knobs[schema.K_PAGE_SIZE])
    busy = io.read_data_page(g, knobs, out, ring_done, 0, page)
    for _ in range(2):
        ring_done[g[layout.G_RING_TAIL]] = io.submit(g, knobs, out, 10, page, True)
        g[layout.G_RING_TAIL] += 1
    back = ring_done[0] - 10  # a page write's service and latency
    late = io.read_data_page(g, knobs, out, ring_done, 50, page)
    assert ring_done[0] == busy + back  # write 1 had the lock when the first read was done
    assert late > busy and out[0, schema.C_DIO_WAIT] == (busy - 50) / 1000
    # write 2 is not placed yet: it asks when write 1 has the lock, and reads may come first;
    # meanwhile it completes no earlier than that
    assert g[layout.G_LOCK_IDX] == 1 and ring_done[1] < busy + back
    ring_frame = np.array([7, 8, 0, 0, 0, 0, 0, 0], dtype=np.int64)
    assert io.ring_done_of(g, ring_frame, ring_done, 8) == busy + back
    io.place_locks(g, knobs, ring_done, busy - 1)
    assert g[layout.G_LOCK_IDX] == 1 and g[layout.G_LOCK_FLOOR] == busy + back
    io.place_locks(g, knobs, ring_done, busy)
    assert g[layout.G_LOCK_IDX] == 2 and ring_done[1] == late + back
    assert g[layout.G_LOCK_FLOOR] == 0  # every write placed: no floor


def test_profiles_set_the_interface_by_kind_and_a_hand_set_one_wins():
    for name in devices.names():
        sata = devices.device(name).kind in ("sata-ssd", "hdd")
        sc = fs.Scenario(knobs={"device": name})
        assert sc.values["device_interface"] == ("sata" if sata else "nvme"), name
    assert fs.Scenario().values["device_interface"] == "nvme"  # custom: as before
    sc = fs.Scenario(knobs={"device": "sata-ssd", "device_interface": "nvme"})
    assert sc.values["device_interface"] == "nvme"
    with pytest.raises(ValueError, match="device_interface='scsi'.*nvme, sata"):
        fs.Scenario(knobs={"device_interface": "scsi"})


def test_on_sata_page_writes_slow_the_commits():
    # the same write-heavy load with a page cleaner writing 2,000 pages/s behind it
    def tps(interface):
        s = series(
            threads=32,
            device="sata-ssd",
            device_interface=interface,
            innodb_io_capacity=2000,
            innodb_io_capacity_max=4000,
            innodb_max_dirty_pages_pct_lwm=1,
        )
        return s["sim_tps"].mean(), s["sim_fsync_latency_ms"].mean()

    (nvme_tps, nvme_fsync), (sata_tps, sata_fsync) = tps("nvme"), tps("sata")
    assert sata_fsync > nvme_fsync
    assert sata_tps < nvme_tps


def test_reads_are_submitted_in_time_order_around_single_page_flushes(monkeypatch):
    # A user thread's single-page flush is synchronous (doublewrite, fsync, write, fsync). It
    # sleeps until that I/O is done: a read submitted at the flush's end while the clock is
    # still at its start booked the device's read queue milliseconds ahead, for every thread
    # (28 ms out of order here before the fix). What is left is the LRU search a thread does
    # before its read, at most the whole LRU at LRU_SCAN_NS a frame.
    from flushsim.kernels.reference import ReferenceSim

    submitted = []
    read = ReferenceSim.read_data_page

    def record(self, now, nbytes):
        submitted.append(now)
        return read(self, now, nbytes)

    monkeypatch.setattr(ReferenceSim, "read_data_page", record)
    knobs = {
        "innodb_buffer_pool_size": "8M",  # 512 frames
        "table_rows": 150_000,
        "threads": 16,
        "write_pct": 40,
        "think_time_us": 1000.0,
    }
    run = fs.simulate(fs.Scenario(knobs=knobs, seconds=2), kernel="reference")
    assert run.series["sim_single_page_flushes"].sum() > 1000
    back = max(a - b for a, b in zip(submitted, submitted[1:], strict=False))
    assert back <= 512 * layout.LRU_SCAN_NS / 1000
