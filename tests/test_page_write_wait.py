"""An UPDATE of a page that a flush batch is writing (flushsim/kernels/sim.py access_page).

MySQL 8.0's flushing thread latches a page (SX) when it puts it in a doublewrite chunk and
releases it when the page's write completes; an update of the page waits for that. A page of a
batch whose chunk the write queue has not reached yet is not latched: the update goes ahead, and
the write takes it along. The waiting thread sleeps until the write completes; it must not apply
write completions ahead of the clock (other threads would get the freed frames early).

These run the pure-Python twin, whose state is easy to look at; test_twin.py checks that the
numba kernel gives the same numbers.
"""

import collections

import pytest

import flushsim as fs
from flushsim.kernels import layout as L
from flushsim.kernels.reference import ReferenceSim

# a small pool under skewed updates: hot pages are often in a flush batch when updated
KNOBS = {
    "innodb_buffer_pool_size": "16M",
    "table_rows": 300_000,
    "threads": 16,
    "write_pct": 100,
    "rows_per_trx": 1,
    "think_time_us": 0,
    "workload": "zipf",
}


@pytest.fixture(scope="module")
def seen():
    """Every update of a page with a write in flight: what the kernel did with it."""
    cases = collections.defaultdict(list)
    original = ReferenceSim.buf_page_get

    def buf_page_get(self, page, is_write, t):
        f = self.page_frame.get(page)
        if f is None or not is_write or f.io == L.IO_NONE:
            return original(self, page, is_write, t)
        done = next(d for d, g in self.writes_in_flight if g is f)
        in_flight = len(self.writes_in_flight)
        r = original(self, page, is_write, t)
        case = (t, f.io_latch, done, r, self.io_wait, in_flight, len(self.writes_in_flight))
        cases["latched" if f.io_latch <= t else "not latched"].append(case)
        return r

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(ReferenceSim, "buf_page_get", buf_page_get)
        fs.simulate(fs.Scenario(knobs=KNOBS, seconds=3), kernel="reference")
    return cases


def test_both_cases_happen(seen):
    assert len(seen["latched"]) >= 10
    assert len(seen["not latched"]) >= 100


def test_an_update_of_a_latched_page_sleeps_until_its_write_completes(seen):
    for t, latch, done, r, wake, before, after in seen["latched"]:
        if done > t:
            assert r == -1 and wake == done, (t, latch, done, r, wake)
            # no write completes early on the waiting thread's account
            assert after == before


def test_an_update_of_a_page_not_reached_yet_goes_ahead(seen):
    for t, latch, done, r, *_ in seen["not latched"]:
        assert latch > t
        assert r == t  # no wait: the page is in memory and not latched
        assert latch < done  # the chunk is latched before its page writes complete
