# ruff: noqa: D102  (methods named after the InnoDB functions they model, as in reference.py)
"""The twin's state objects: knobs by name, frames, instances, the random stream."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .. import schema as S
from . import layout as L

M64 = (1 << 64) - 1
LSN_MAX = 1 << 62


def spread_row(j: int, rows: int, bits: int) -> int:
    """workload.spread_row: a fixed pseudo-random permutation of [0, rows) (cycle walking)."""
    mask = (1 << bits) - 1
    half = max(1, bits // 2)
    x = j
    while True:
        for _ in range(3):
            x = (x * L.SPREAD_KEY) & mask
            x ^= x >> half
        if x < rows:
            return x


class Knobs:
    """The knob vector with attribute access by server name (values stay floats, as in it)."""

    def __init__(self, vector: np.ndarray) -> None:
        self.vector = vector

    def __getattr__(self, name: str) -> float:
        return float(self.vector[S.KNOB_INDEX[name]])

    def __deepcopy__(self, memo) -> Knobs:  # (copy's other look-ups would reach __getattr__)
        return Knobs(self.vector.copy())

    def set(self, index: int, value: float) -> None:
        self.vector[index] = value


@dataclass(eq=False)
class Frame:
    """One buffer-pool frame and the page it holds."""

    id: int
    instance: int
    page: int = L.NO_PAGE
    prev: Frame | None = None  # LRU: towards the head
    next: Frame | None = None  # LRU: towards the tail
    in_lru: bool = False
    old: bool = False
    io: int = L.IO_NONE
    access_ms: int = 0
    freed_clock: int = 0
    oldest_modification: int = 0
    io_latch: int = 0  # when the flushing thread latched the page for its write (us)


@dataclass(eq=False)
class Instance:
    """One buffer-pool instance: free list, LRU list (with LRU_old), flush list."""

    index: int
    size: int
    first_frame: int
    free: list[Frame] = field(default_factory=list)
    lru_head: Frame | None = None
    lru_tail: Frame | None = None
    lru_len: int = 0
    lru_old: Frame | None = None
    old_len: int = 0
    flush_list: dict[Frame, None] = field(default_factory=dict)  # oldest first
    freed_page_clock: int = 0
    pending_lru: int = 0
    pending_list: int = 0
    try_lru_scan: bool = True
    pending_done: int = 0
    lru_mutex: int = 0  # the LRU's mutex is held by a user thread's search until (us)
    lru_itr: Frame | None = None  # buf_pool.lru_scan_itr
    single_itr: Frame | None = None  # buf_pool.single_scan_itr (MySQL)
    dblwr_lru_free: int = 0  # its Double_write instances' batch in flight completes (us)
    dblwr_list_free: int = 0


class SplitMix64:
    """The kernel's random stream, with Python integers."""

    def __init__(self, seed: int) -> None:
        self.state = seed & M64

    def next(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & M64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
        return z ^ (z >> 31)

    def unit(self) -> float:
        return float(self.next() >> 11) * (1.0 / 9007199254740992.0)

    def below(self, n: int) -> int:
        return int(self.unit() * n)


def latency_bucket(us: int) -> int:
    """Histogram bucket of a latency in us: 8 buckets per power of two."""
    if us < 8:
        return max(us, 0)
    msb = us.bit_length() - 1
    return min(msb * 8 + ((us >> (msb - 3)) & 7), S.HIST_BUCKETS - 1)
