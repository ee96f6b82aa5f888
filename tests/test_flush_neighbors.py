"""innodb_flush_neighbors (issue 33): buf_flush_try_neighbors in both engines' batches."""

import numpy as np
import pytest

import flushsim as fs
from flushsim.kernels import layout as L
from flushsim.kernels import neighbors, reference_cleaner

# Write-only transactions on a table that fits in the pool, on the 7,200 rpm disk: a small redo
# log keeps the flush list busy, and most pages of an area are dirty at once.
HDD = {
    "device": "hdd-7200rpm",
    "innodb_buffer_pool_size": "64M",
    "table_rows": 200_000,
    "threads": 8,
    "write_pct": 100,
    "think_time_us": 0.0,
    "innodb_redo_log_capacity": "16M",
}
LIST_PAGES = (
    "buffer_flush_adaptive_total_pages",
    "buffer_flush_sync_total_pages",
    "buffer_flush_background_total_pages",
)


def _steady(engine, knobs, seconds=60):
    run = fs.simulate(fs.Scenario(engine=engine, knobs=knobs, seconds=seconds))
    return run.series.tail(seconds // 2)


def _list_rate(s):
    return sum(s[c].sum() for c in LIST_PAGES) / s.height


def test_mysql_neighbours_on_a_disk_write_more_flush_list_pages_and_count_them():
    off = _steady("mysql-8.0", {**HDD, "innodb_flush_neighbors": 0})
    on = _steady("mysql-8.0", {**HDD, "innodb_flush_neighbors": 1})
    # adjacent writes cost no seek: the same disk time writes more pages (measured 90 -> 114)
    assert _list_rate(on) >= 1.15 * _list_rate(off)
    assert off["buffer_flush_neighbor_total_pages"].sum() == 0
    neighbours = on["buffer_flush_neighbor_total_pages"].sum()
    assert neighbours > 0
    # the neighbours count toward the batch (buf_do_flush_list_batch's count), never above it
    batch = on["buffer_flush_batch_total_pages"].sum()
    assert neighbours < batch
    assert batch == sum(on[c].sum() for c in LIST_PAGES)


def test_mariadb_flushes_neighbours_only_on_rotational_storage():
    knobs = {**HDD, "innodb_log_file_size": "16M"}
    del knobs["innodb_redo_log_capacity"]
    ssd = {**knobs, "device": "nvme-pcie4"}
    for engine in ("mariadb-10.6", "mariadb-10.11"):
        # fil_space_t::is_rotational: on an SSD the default (1) and 0 give the same run
        one = _steady(engine, {**ssd, "innodb_flush_neighbors": 1}, seconds=10)
        zero = _steady(engine, {**ssd, "innodb_flush_neighbors": 0}, seconds=10)
        assert one.equals(zero), engine
        disk = _steady(engine, knobs)
        assert fs.Scenario(engine=engine, knobs=knobs)["innodb_flush_neighbors"] == 1
        assert disk["buffer_flush_neighbor_total_pages"].sum() > 0, engine


@pytest.mark.kernel
def test_flush_area_is_read_ahead_area_capped_at_a_sixteenth_of_the_instance():
    class Inst:
        size = 0

    inst = np.zeros((1, L.N_INST), dtype=np.int64)
    for size, area in ((320, 16), (1000, 32), (4096, 64), (65536, 64), (16, 1)):
        inst[0, L.I_SIZE] = size
        Inst.size = size
        assert neighbors.flush_area(inst, 0) == area, size
        assert reference_cleaner.CleanerMixin.buf_flush_area(Inst) == area, size


def test_neighbors_knob_range_and_engines():
    assert fs.Scenario().at(5, innodb_flush_neighbors=2)
    with pytest.raises(ValueError, match=r"innodb_flush_neighbors=3 .*between 0 and 2"):
        fs.Scenario().replace(innodb_flush_neighbors=3)
    assert fs.Scenario(engine="mysql-8.4")["innodb_flush_neighbors"] == 0
    sc = fs.Scenario(knobs={"device": "hdd-7200rpm"})
    assert sc.values["device_rotational"] is True
    assert fs.Scenario(knobs={"device": "sata-ssd"}).values["device_rotational"] is False
