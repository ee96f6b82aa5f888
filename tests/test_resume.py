"""A run simulated to second W, kept, and resumed to W + D is the straight run, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

import flushsim as fs
from flushsim.kernels import reference, sim
from flushsim.resume import resume, start
from flushsim.run import kernel_inputs

pytestmark = pytest.mark.kernel

W, D = 2, 2  # seconds: the pause, then the resumed run (the twin runs a few seconds a second)

# an I/O-bound pool (LRU flushing, single-page flushes) with a small redo log (sync flushing)
KNOBS = {
    "innodb_buffer_pool_size": "8M",
    "table_rows": 150_000,
    "threads": 4,
    "write_pct": 40,
    "think_time_us": 1000.0,
    "innodb_lru_scan_depth": 100,
}
REDO = {"mysql-8.0": {"innodb_redo_log_capacity": "8M"}, "mariadb-10.11": {}}
# SET GLOBAL at the pause, and one before it (during the first piece)
AT_W = (W, "set", "innodb_io_capacity", 400)
BEFORE_W = (1, "set", "threads", 6)


def _scenario(engine, events):
    sc = fs.Scenario(engine=engine, seconds=W + D, knobs={**KNOBS, **REDO[engine]})
    for at, _, knob, value in events:
        sc = sc.at(at, **{knob: value})
    return sc


def _straight(sc, kernel):
    run = sim.simulate_kernel if kernel == "numba" else reference.simulate_kernel
    return run(*kernel_inputs(sc).args())


@pytest.mark.parametrize("kernel", ["numba", "reference"])
@pytest.mark.parametrize("engine", ["mysql-8.0", "mariadb-10.11"])
@pytest.mark.parametrize("events", [(), (AT_W,), (BEFORE_W, AT_W)], ids=["none", "at-W", "both"])
def test_paused_and_resumed_is_the_straight_run(kernel, engine, events):
    sc = _scenario(engine, events)
    out, hist = _straight(sc, kernel)
    first = tuple(e for e in sc.changes if e[0] < W)
    paused = resume(start(sc, W + D, kernel=kernel), W, first)
    done = resume(paused, W + D, tuple(e for e in sc.changes if e[0] >= W))
    got_out, got_hist = done.arrays()
    assert np.array_equal(got_out, out) and np.array_equal(got_hist, hist)
    assert done.run(sc).series.equals(fs.simulate(sc, kernel=kernel).series)


@pytest.mark.parametrize("kernel", ["numba", "reference"])
def test_resuming_leaves_the_paused_run_untouched(kernel):
    sc = _scenario("mysql-8.0", ())
    paused = resume(start(sc, W + D, kernel=kernel), W)
    before = [a.copy() for a in paused.arrays()]
    a = resume(paused, W + D, (AT_W,)).arrays()
    b = resume(paused, W + D, (AT_W,)).arrays()
    plain = resume(paused, W + D).arrays()
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    assert all(np.array_equal(x, y) for x, y in zip(paused.arrays(), before, strict=True))
    assert not np.array_equal(a[0], plain[0])  # the event did change the run
    assert paused.second == W and a[0].shape[0] == W + D


def test_a_paused_run_refuses_what_it_cannot_resume():
    paused = resume(start(_scenario("mysql-8.0", ()), W + D), W)
    with pytest.raises(ValueError, match="resumes to between 2 and 4 s, not 5 s"):
        resume(paused, W + D + 1)
    with pytest.raises(ValueError, match="a change at 1 s is outside the resumed seconds 2 to 4"):
        resume(paused, W + D, ((1, "set", "innodb_io_capacity", 400),))
    with pytest.raises(ValueError, match="threads=9 is more than the 4 thread slots"):
        resume(paused, W + D, ((W, "set", "threads", 9),))
