"""trx_rate: an open-loop, paced workload (sysbench --rate), and the row permutation of hot sets.

The kernel and its twin agree on paced runs (tests/test_twin.py, `paced-rate`); these tests check
what the schedule does.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import flushsim as fs
from flushsim.kernels.layout import SPREAD_KEY
from flushsim.kernels.reference import spread_row
from flushsim.kernels.workload import spread_row as spread_row_numba
from flushsim.run import _scatter_for
from flushsim.schema import SCATTER_BITS_MASK

# a pool that holds the table: nothing but the schedule limits the rate
CACHED = {
    "innodb_buffer_pool_size": "64M",
    "table_rows": 200_000,
    "rows_per_trx": 1,
    "write_pct": 100,
    "think_time_us": 0.0,
}

TINY = {**CACHED, "table_rows": 6_800, "cpu_us_per_row": 1000.0, "write_pct": 0}


def tps(scenario: fs.Scenario) -> list[int]:
    return fs.simulate(scenario).series["sim_tps"].to_list()


@pytest.mark.parametrize("engine", ["mysql-8.0", "mariadb-10.11"])
def test_rate_is_met_exactly_and_follows_the_timeline(engine):
    sc = (
        fs.Scenario(engine=engine, knobs={**CACHED, "threads": 8, "trx_rate": 2000.0}, seconds=8)
        .at(3, trx_rate=500.0)
        .stop_workload(5)
        .start_workload(6)
    )
    assert tps(sc) == [2000, 2000, 2000, 500, 500, 0, 500, 500]


def test_fractional_rates_do_not_drift():
    # 1e9 / 900 ns is not a whole number: start 900 k must still fall on second k + 1
    sc = fs.Scenario(knobs={**CACHED, "threads": 4, "trx_rate": 900.0}, seconds=20)
    assert tps(sc) == [900] * 20
    sc = fs.Scenario(knobs={**CACHED, "threads": 4, "trx_rate": 2.5}, seconds=8)
    assert sum(tps(sc)) == 20


def test_too_few_threads_cap_the_rate():
    # one thread, 1 ms of CPU a read-only transaction: at most 1,000 trx/s whatever is asked
    # (a 100-page table: a few reads of the device in the first second, then all hits)
    slow = {**TINY, "threads": 1}
    capped = tps(fs.Scenario(knobs={**slow, "trx_rate": 5000.0}, seconds=3))
    assert all(980 <= x <= 1000 for x in capped) and capped[-1] == 1000, capped
    assert tps(fs.Scenario(knobs={**slow, "trx_rate": 400.0}, seconds=3)) == [400] * 3


def test_a_higher_rate_wakes_threads_asleep_until_a_late_start():
    # at 0.5 trx/s the 4 threads claim starts up to 8 s ahead; the new rate must not wait
    sc = fs.Scenario(knobs={**CACHED, "threads": 4, "trx_rate": 0.5}, seconds=4).at(
        2, trx_rate=1000.0
    )
    assert tps(sc)[2:] == [1000, 1000]


def test_missed_starts_are_made_up_for_at_most_one_second():
    # 2 threads at 1 ms a read-only transaction can do 2,000/s; the schedule asks 4,000/s for
    # 2 s, then 1,000/s: the backlog (capped at 1 s of starts) is worked off at full speed first
    sc = fs.Scenario(knobs={**TINY, "threads": 2, "trx_rate": 4000.0}, seconds=6).at(
        2, trx_rate=1000.0
    )
    got = tps(sc)
    assert all(1960 <= x <= 2000 for x in got[:3]), got  # still behind in the third second
    assert got[-1] == 1000, got  # caught up, back on schedule
    assert sum(got) < 4000 + 4000 + 4 * 1000  # the starts older than 1 s were dropped


def test_closed_loop_is_unchanged_by_a_zero_rate():
    knobs = {**CACHED, "threads": 4, "think_time_us": 500.0}
    a = fs.simulate(fs.Scenario(knobs=knobs, seconds=3)).series
    b = fs.simulate(fs.Scenario(knobs={**knobs, "trx_rate": 0.0}, seconds=3)).series
    assert a.equals(b)


def test_bad_rate_is_named_with_its_range():
    with pytest.raises(ValueError, match=r"trx_rate=-1.*between 0"):
        fs.Scenario(knobs={"trx_rate": -1})


@settings(max_examples=60, deadline=None)
@given(rows=st.integers(1, 10**11), data=st.data())
def test_row_permutation_is_distinct_in_range_and_the_same_in_both_kernels(rows, data):
    bits = _scatter_for(rows) & SCATTER_BITS_MASK
    assert (1 << bits) >= rows and (1 << bits) * SPREAD_KEY < 2**63  # no int64 overflow
    n = min(rows, 200)
    start = data.draw(st.integers(0, rows - n))
    got = [spread_row(j, rows, bits) for j in range(start, start + n)]
    assert len(set(got)) == n and all(0 <= x < rows for x in got)
    assert got == [int(spread_row_numba(j, rows, bits)) for j in range(start, start + n)]


def test_hot_rows_spread_like_a_random_sample():
    # a random 4,000 of 300,000 rows at 61 a page touch P(1 - exp(-4000 / P)) = 2,738 pages
    rows, rpp, hot = 300_000, 61, 4_000
    bits = _scatter_for(rows) & SCATTER_BITS_MASK
    pages = {spread_row(j, rows, bits) // rpp for j in range(hot)}
    expected = (rows / rpp) * (1 - np.exp(-hot / (rows / rpp)))
    assert len(pages) == pytest.approx(expected, rel=0.03)
