"""User threads waiting on writes: an UPDATE of a page being written, get_free_block's sleep.

flushsim/kernels/sim.py access_page and get_free_block, and their twins in reference.py.

MySQL 8.0's flushing thread latches a page (SX) when it puts it in a doublewrite chunk and
releases it when the page's write completes; an update of the page waits for that. A page of a
batch whose chunk the write queue has not reached yet is not latched: the update goes ahead, and
the write takes it along. The waiting thread sleeps until the write completes, as a thread
without a free page sleeps 10 ms between its tries; neither may apply write completions ahead of
the clock (other threads would get the freed frames early).

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

    def buf_page_get(self, page, is_write, t, resume=0):
        f = self.page_frame.get(page)
        if f is None or not is_write or f.io in (L.IO_NONE, L.IO_SINGLE):  # not in the ring
            return original(self, page, is_write, t, resume)
        done = next(d for d, g in self.writes_in_flight if g is f)
        in_flight = len(self.writes_in_flight)
        r = original(self, page, is_write, t, resume)
        case = (t, f.io_latch, done, r, self.sleep_until, in_flight, len(self.writes_in_flight))
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


# A tiny pool under 64 writing threads: user threads run out of free pages, flush pages
# themselves and, from get_free_block's third iteration, sleep 10 ms between tries.
STARVED = {
    "innodb_buffer_pool_size": "8M",
    "table_rows": 300_000,
    "threads": 64,
    "write_pct": 100,
    "rows_per_trx": 1,
    "think_time_us": 0,
}


@pytest.mark.parametrize(
    ("engine", "knobs", "column"),
    [
        ("mysql-8.0", KNOBS, None),
        ("mysql-8.0", STARVED, "buffer_LRU_get_free_waits"),
        ("mariadb-10.6", STARVED, "sim_user_LRU_batch_pages"),
    ],
    ids=["zipf", "starved", "starved-mariadb"],
)
def test_no_write_completes_ahead_of_the_clock(engine, knobs, column):
    """Write completions are applied at the event time, never at a waiting thread's own time."""
    clock = [0]
    ahead = []
    advance, complete = ReferenceSim.advance, ReferenceSim.complete_writes

    def tracked_advance(self, t):
        clock[0] = max(clock[0], t)
        return advance(self, t)

    def tracked_complete(self, t):
        if t > clock[0]:
            ahead.append((clock[0], t))
        return complete(self, t)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(ReferenceSim, "advance", tracked_advance)
        mp.setattr(ReferenceSim, "complete_writes", tracked_complete)
        run = fs.simulate(fs.Scenario(engine=engine, knobs=knobs, seconds=2), kernel="reference")
    if column is not None:
        assert run.series[column].sum() > 0  # the scenario takes the path it is here for
    assert ahead == [], ahead[:5]
    # a row that sleeps and is retried is one buffer_pool_read_requests, as one
    # buf_page_get_gen call on the server: the requests exceed the rows done only by the rows
    # still under way at the end, at most one a thread
    extra = run.series["buffer_pool_read_requests"].sum() - run.series["dml_reads"].sum()
    assert 0 <= extra <= knobs["threads"], extra
