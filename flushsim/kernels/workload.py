"""The workload: the random stream (splitmix64), row draws and the paced start schedule.

Random numbers come from splitmix64 so that the pure-Python twin (`reference.py`) draws exactly
the same sequence; uniform, zipf, hot-set and sequential rows map to pages (`draw_row`), and
trx_rate paces transaction starts on a shared schedule (`pace_claim`).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .. import schema as S
from . import layout as L
from .hints import prefetch1, prefetch2

SPLITMIX_STEP = np.uint64(0x9E3779B97F4A7C15)  # the stream's state advances by this a draw


@njit(cache=True, inline="always", _nrt=False)
def _splitmix(z):
    """splitmix64's output for the state z."""
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True, inline="always", _nrt=False)
def _unit(z):
    """A 64-bit value as a float in [0, 1) with 53 random bits."""
    return float(z >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True, inline="always", _nrt=False)
def rng_next(rng):
    """splitmix64: the next 64-bit value of the stream held in rng[0]."""
    rng[0] = rng[0] + SPLITMIX_STEP
    return _splitmix(rng[0])


@njit(cache=True, inline="always", _nrt=False)
def rng_peek_unit(rng, k):
    """rng_unit's value k draws ahead (k >= 1), without drawing: for prefetch hints only."""
    return _unit(_splitmix(rng[0] + SPLITMIX_STEP * np.uint64(k)))


@njit(cache=True, inline="always", _nrt=False)
def prefetch_uniform(fr, page_frame, g, rng, pages_per_unit, per_row):
    """Uniform workload: prefetch what the next two row accesses will read.

    Every draw is a row or an update flag, so the next two rows are the next draw and the one
    `per_row` after it, whichever thread takes them. The row after next gets its page_frame
    entry prefetched, and its page is kept in G_NEXT_PAGE; the next row, which the previous
    call kept there, gets its frame's lines. Hints only: nothing is drawn, and G_NEXT_PAGE is
    read by nothing else (a stale one, after a knob changes the draws, wastes a hint). The page
    is computed without divisions, as unit * (rows / rows_per_page), which rounding may rarely
    put one page off (a wasted hint, never a wrong number); it is clamped to the table.
    """
    f1 = page_frame[g[L.G_NEXT_PAGE]]
    if f1 >= 0:
        prefetch2(fr, f1, L.F_PAGE)
        prefetch2(fr, f1, L.F_DIRTY)  # the row's last field: with F_PAGE, both its lines
    last = page_frame.shape[0] - 1
    p2 = min(int(rng_peek_unit(rng, 1 + per_row) * pages_per_unit), last)
    prefetch1(page_frame, p2)
    g[L.G_NEXT_PAGE] = p2


@njit(cache=True, inline="always", _nrt=False)
def rng_below(rng, n):
    """A value in [0, n) from 53 random bits (no 64-bit division: it is the hot path)."""
    return int(rng_unit(rng) * n)


@njit(cache=True, inline="always", _nrt=False)
def rng_unit(rng):
    """A float in [0, 1) with 53 random bits."""
    return _unit(rng_next(rng))


@njit(cache=True, inline="always", _nrt=False)
def spread_row(j, rows, bits):
    """Hot-set row j: a fixed pseudo-random permutation of the table's rows.

    Rounds of multiply-by-odd and xor-shift are a bijection on [0, 2**bits), the next power of
    two at or above `rows`; a value past the table steps again until it lands inside (cycle
    walking, under 2 steps on average). So the hot set's rows are distinct and scattered like a
    random sample of the table (a random 4,000 of 300,000 rows at 61 a page touch ~2,740
    pages), as the reference recordings' and seed 004's hot sets were.
    """
    mask = (1 << bits) - 1
    half = max(1, bits // 2)
    x = j
    while True:
        for _ in range(3):
            x = (x * L.SPREAD_KEY) & mask
            x ^= x >> half
        if x < rows:
            return x


@njit(cache=True, inline="always", _nrt=False)
def draw_row(g, knobs, rng, zipf_cdf, scatter):
    """The next row a thread accesses, or -1 when a sequential workload has finished."""
    wl = int(knobs[S.K_WORKLOAD])
    rows = int(knobs[S.K_TABLE_ROWS])
    if wl == S.WL_UNIFORM:
        return rng_below(rng, rows)
    if wl == S.WL_ZIPF:
        u = rng_unit(rng)
        # the first rank whose cumulative probability exceeds u, between the guide table's
        # entries for u's bucket (run.zipf_cdf: `rows` probabilities, then the guide): the rank
        # a search of the whole table finds, in a few probes instead of 23 of a 40 MB table
        buckets = zipf_cdf.shape[0] - rows - 1
        j = rows + int(u * buckets)
        lo = int(zipf_cdf[j])
        hi = int(zipf_cdf[j + 1])
        while lo < hi:
            mid = (lo + hi) // 2
            if zipf_cdf[mid] <= u:
                lo = mid + 1
            else:
                hi = mid
        return (lo * (scatter >> S.SCATTER_SHIFT)) % rows
    if wl == S.WL_HOTSET:
        hot_pct = knobs[S.K_HOT_PCT]
        if rng_unit(rng) * 100.0 < hot_pct:
            j = rng_below(rng, min(int(knobs[S.K_HOT_ROWS]), rows))
            return spread_row(j, rows, scatter & S.SCATTER_BITS_MASK)
        return rng_below(rng, rows)
    # WL_SEQUENTIAL
    end = int(knobs[S.K_SEQ_END])
    if end == 0 or end > rows:
        end = rows
    cur = g[L.G_SEQ_CURSOR]
    if cur >= end:
        g[L.G_WL_DONE] = 1
        return -1
    g[L.G_SEQ_CURSOR] = cur + 1
    return cur


@njit(cache=True, inline="always", _nrt=False)
def draw_is_write(knobs, rng):
    """Whether a row access is an update (write_pct of them are)."""
    wp = knobs[S.K_WRITE_PCT]
    if wp >= 100.0:
        return True
    if wp <= 0.0:
        return False
    return rng_unit(rng) * 100.0 < wp


@njit(cache=True, _nrt=False)
def pace_next(g, rate):
    """trx_rate: the time (ns) of the next start on the shared schedule (exact, no drift)."""
    # rounded up, so that start k = rate falls exactly on the next second despite float error
    return g[L.G_PACE_BASE] + int(math.ceil(g[L.G_PACE_K] * (1e9 / rate) - 1e-3))


@njit(cache=True, _nrt=False)
def pace_claim(g, rate, t):
    """trx_rate: the next start slot (us) on the schedule all threads share, like sysbench --rate.

    A thread that is late starts at once; at most 1 s of missed starts is made up.
    """
    nxt = pace_next(g, rate)
    late = (t - 1_000_000) * 1000
    if nxt < late:
        g[L.G_PACE_BASE] = late
        g[L.G_PACE_K] = 0
        nxt = late
    g[L.G_PACE_K] += 1
    return nxt // 1000
