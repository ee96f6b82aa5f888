"""The Zipf guide table (run.zipf_cdf) brackets the rank a search of the whole table finds.

workload.draw_row searches only between the guide's entries for its draw's bucket; the twin
searches the whole table (test_twin's Zipf scenarios compare the two run for run).
"""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from flushsim.run import ZIPF_GUIDE, zipf_cdf


def _bracketed(rows, theta, u):
    table = zipf_cdf(rows, theta)
    cdf, guide = table[:rows], table[rows:].astype(np.int64)
    whole = np.searchsorted(cdf[:-1], u, side="right")  # the twin's search
    bucket = (u * ZIPF_GUIDE).astype(np.int64)
    return whole, guide[bucket], guide[bucket + 1]


@settings(max_examples=25, deadline=None)
@given(
    rows=st.integers(1, 400_000),
    theta=st.floats(0.0, 5.0),  # zipf_theta's range
    seed=st.integers(0, 2**32 - 1),
)
def test_every_draw_s_rank_lies_between_its_bucket_s_guide_entries(rows, theta, seed):
    edges = np.arange(ZIPF_GUIDE) / ZIPF_GUIDE
    u = np.concatenate(
        [
            np.random.default_rng(seed).random(50_000),
            edges,  # a draw exactly at a bucket's start
            np.nextafter(edges[1:], 0.0),  # and just below it
            [np.nextafter(1.0, 0.0)],  # the largest draw rng_unit can give
        ]
    )
    whole, lo, hi = _bracketed(rows, theta, u)
    assert ((lo <= whole) & (whole <= hi)).all()


def test_the_table_is_the_probabilities_then_the_guide():
    table = zipf_cdf(1000, 0.99)
    assert table.shape == (1000 + ZIPF_GUIDE + 1,)
    assert table[999] == 1.0 and (np.diff(table[:1000]) >= 0).all()
    guide = table[1000:]
    assert guide[0] == 0 and guide[-1] == 999 and (np.diff(guide) >= 0).all()
