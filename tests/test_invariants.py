"""Property test: the pool's invariants hold after every event, and the two kernels agree.

On scenarios drawn by hypothesis, the twin checks after every event that pages are conserved,
the flush list is exactly the dirty pages in LSN order, the checkpoint is behind the oldest
modification and nothing is negative (kernels/invariants.py); the kernel gives the same numbers.
"""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import flushsim as fs
from flushsim.kernels import reference, sim
from flushsim.kernels.invariants import check_state
from flushsim.run import kernel_inputs

pytestmark = pytest.mark.kernel


@st.composite
def scenarios(draw):
    knobs = {
        "innodb_buffer_pool_size": draw(st.sampled_from(["8M", "12M"])),
        "table_rows": draw(st.integers(5_000, 120_000)),
        "rows_per_page": draw(st.sampled_from([20, 68])),
        "workload": draw(st.sampled_from(["uniform", "hotset", "zipf", "sequential"])),
        "hot_rows": 500,
        "write_pct": draw(st.sampled_from([0.0, 30.0, 100.0])),
        "threads": draw(st.integers(1, 6)),
        "rows_per_trx": draw(st.integers(1, 20)),
        # think time bounds the number of events: invariants are checked after each one
        "think_time_us": draw(st.sampled_from([2000.0, 5000.0])),
        "innodb_io_capacity": draw(st.sampled_from([100, 200, 1000])),
        "innodb_lru_scan_depth": draw(st.sampled_from([100, 300])),
        "innodb_old_blocks_time": draw(st.sampled_from([0, 1000])),
        "innodb_doublewrite": draw(st.sampled_from(["ON", "OFF"])),
        "innodb_redo_log_capacity": draw(st.sampled_from(["8M", "64M"])),
        "innodb_max_dirty_pages_pct_lwm": draw(st.sampled_from([0.0, 10.0])),
        # the I/O path: journal commits behind a neighbour, ext4's O_DIRECT lock, skipped fsyncs
        "filesystem": draw(st.sampled_from(["ext4", "xfs"])),
        "innodb_flush_method": draw(st.sampled_from(["fsync", "O_DIRECT", "O_DIRECT_NO_FSYNC"])),
        "linux_kernel": draw(st.sampled_from(["4.4", "5.3"])),
        "neighbour_write_mb_s": draw(st.sampled_from([0.0, 30.0])),
        "innodb_flush_log_at_trx_commit": draw(st.sampled_from([1, 2])),
        # an open-loop schedule (sysbench --rate) or the closed loop
        "trx_rate": draw(st.sampled_from([0.0, 0.0, 300.0, 2000.0])),
    }
    engine = draw(st.sampled_from(["mysql-8.0", "mariadb-10.6", "mariadb-10.11"]))
    if engine != "mysql-8.0":
        # MariaDB has no innodb_redo_log_capacity: the same small/large redo via ib_logfile0
        knobs["innodb_log_file_size"] = knobs.pop("innodb_redo_log_capacity")
        knobs["innodb_lru_flush_size"] = draw(st.sampled_from([1, 32, 500]))
    sc = fs.Scenario(knobs=knobs, engine=engine, seconds=2, seed=draw(st.integers(0, 2**32)))
    events = draw(
        st.lists(
            st.tuples(
                st.floats(0.1, 1.9),
                st.sampled_from(["stop", "start", "disable", "enable", "ioc", "rate"]),
            ),
            max_size=3,
        )
    )
    for at, what in events:
        at = round(at, 3)
        if what == "stop":
            sc = sc.stop_workload(at)
        elif what == "start":
            sc = sc.start_workload(at)
        elif what == "disable" and engine == "mysql-8.0":
            sc = sc.at(at, innodb_page_cleaner_disabled_debug=True)
        elif what == "enable" and engine == "mysql-8.0":
            sc = sc.at(at, innodb_page_cleaner_disabled_debug=False)
        elif what in ("disable", "enable"):
            sc = sc.at(at, innodb_lru_scan_depth=draw(st.sampled_from([100, 1000])))
        elif what == "rate":
            sc = sc.at(at, trx_rate=draw(st.sampled_from([0.0, 50.0, 1500.0])))
        else:
            sc = sc.at(at, innodb_io_capacity=draw(st.sampled_from([100, 500])))
    return sc


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenarios())
def test_invariants_hold_after_every_event_and_kernels_agree(scenario):
    ki = kernel_inputs(scenario)
    out, hist = reference.simulate_kernel(*ki.args(), check_every_event=True)
    assert (out >= 0).all()
    free, data, total = out[:, 2], out[:, 3], out[:, 1]
    assert (free + data == total).all()
    out_k, hist_k = sim.simulate_kernel(*ki.args())
    assert np.array_equal(out, out_k) and np.array_equal(hist, hist_k)


def _small_twin():
    sc = fs.Scenario(
        knobs={
            "innodb_buffer_pool_size": "8M",
            "table_rows": 60_000,
            "threads": 2,
            "think_time_us": 2000.0,
            "write_pct": 50,
        },
        seconds=1,
    )
    ki = kernel_inputs(sc)
    twin = reference.ReferenceSim(*ki.args()[:7], tuple(ki.args()[7:]))
    twin.run()
    return twin


@pytest.mark.parametrize(
    "corruption", ["dirty-off-list", "lsn-order", "lost-frame", "old-length", "checkpoint"]
)
def test_the_checker_catches_a_broken_pool(corruption):
    twin = _small_twin()
    check_state(twin)  # the real state is fine
    inst = twin.instances[0]
    clean = next(f for f in twin.frames if f.in_lru and f.oldest_modification == 0)
    dirty = list(inst.flush_list)
    if corruption == "dirty-off-list":
        clean.oldest_modification = twin.lsn
    elif corruption == "lsn-order":
        dirty[0].oldest_modification, dirty[-1].oldest_modification = (
            dirty[-1].oldest_modification,
            dirty[0].oldest_modification,
        )
    elif corruption == "lost-frame":
        inst.free.append(clean)  # a frame both in the LRU and on the free list
    elif corruption == "old-length":
        inst.old_len += 1
    else:
        twin.checkpoint_lsn = dirty[0].oldest_modification + 1
    with pytest.raises(AssertionError):
        check_state(twin)
