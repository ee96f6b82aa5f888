"""innodb_flush_neighbors: a batch writes a flushed page's dirty neighbours with it.

Models `buf_flush_try_neighbors` and `buf_flush_check_neighbor` of buf0flu.cc, MySQL 8.0 and
MariaDB 10.6/10.11, called where a batch picks a dirty page (`buf_flush_page_and_try_neighbors`
in MySQL; `buf_do_flush_list_batch` and `buf_flush_LRU_list_batch` in MariaDB). The area is
`buf_flush_area` = min(read_ahead_area, pool instance size / 16) pages. The neighbours count
toward the batch's page budget as the server counts them. See docs/model.md, section
Neighbour flushing.
"""

from __future__ import annotations

from numba import njit

from .. import schema as S
from . import layout as L
from .engine import is_mysql
from .hints import nonneg
from .io import ring_stage


@njit(cache=True, inline="always", _nrt=False)
def neighbor_mode(inst, knobs, i, kind):
    """innodb_flush_neighbors as a batch of flush type `kind` on instance i applies it now.

    0 when the LRU is shorter than BUF_LRU_OLD_MIN_LEN (both servers). MariaDB also flushes
    neighbours only on rotational storage (fil_space_t::is_rotational), and in an LRU batch only
    once the free list holds half of innodb_lru_scan_depth (buf_flush_LRU_list_batch).
    """
    mode = int(knobs[S.K_NEIGHBORS])
    if mode == 0 or inst[i, L.I_LRU_LEN] < L.BUF_LRU_OLD_MIN_LEN:
        return 0
    if is_mysql(knobs):
        return mode
    if knobs[S.K_DEV_ROTATIONAL] == 0:
        return 0
    if kind != L.IO_LIST and inst[i, L.I_FREE_LEN] * 2 < int(knobs[S.K_LRU_DEPTH]):
        return 0
    return mode


@njit(cache=True, _nrt=False)
def flush_area(inst, i):
    """buf_flush_area: min(read_ahead_area, curr_size / 16) pages of instance i.

    read_ahead_area = min(BUF_READ_AHEAD_PAGES (64), ut_2_power_up(curr_size / 32)).
    """
    size = inst[i, L.I_SIZE]
    ahead = 1
    while ahead < size // 32:
        ahead *= 2
    return max(1, min(min(ahead, 64), size // 16))


@njit(cache=True, inline="always", _nrt=False)
def check_neighbor(fr, frl, f, old_only):
    """buf_flush_check_neighbor: in the pool, dirty, no write in flight; old if `old_only`.

    MySQL's LRU batch takes only old-sublist neighbours ("the flushed blocks are soon freed");
    MariaDB takes any.
    """
    if f < 0:
        return False
    if frl[f, L.L_OLDEST_MODIFICATION] == 0 or fr[f, L.F_IO] != L.IO_NONE:
        return False
    return not old_only or fr[f, L.F_LRU] == L.LRU_OLD


@njit(cache=True, _nrt=False)
def try_neighbors(g, pool, knobs, out, ring, i, f, kind, n_flushed, n_to_flush, t):
    """buf_flush_try_neighbors: stage victim f and its neighbours as writes of flush type kind.

    Staged after the n_flushed frames the batch holds (io.ring_stage), in page order. Mode 1
    takes the contiguous run of flushable pages around f within its area, mode 2 every
    flushable page of the area. Once n_flushed + staged reaches n_to_flush only f itself is
    still written. Adds the neighbours (staged - 1) to buffer_flush_neighbor_total_pages at t.
    Returns the number staged, f included.
    """
    fr, frl, inst, page_frame, _runs = pool
    ring_frame, ring_done = ring
    f = nonneg(f)
    mode = neighbor_mode(inst, knobs, i, kind)
    old_only = kind == L.IO_LRU and is_mysql(knobs)
    page = int(fr[f, L.F_PAGE])
    low = page
    high = page + 1
    if mode != 0:
        area = flush_area(inst, i)
        low = page // area * area
        high = min(low + area, page_frame.shape[0])
        if mode == 1:
            j = page
            while j > low and check_neighbor(fr, frl, page_frame[j - 1], old_only):
                j -= 1
            low = j
            j = page + 1
            while j < high and check_neighbor(fr, frl, page_frame[j], old_only):
                j += 1
            high = j
    count = 0
    p = low
    while p < high:
        if count + n_flushed >= n_to_flush:
            if p > page:
                break
            p = page  # the victim is written even when the budget is spent
        h = page_frame[p]
        if p == page or check_neighbor(fr, frl, h, old_only):
            fr[h, L.F_IO] = kind
            ring_stage(g, ring_frame, n_flushed + count, h)
            count += 1
        p += 1
    s = t // 1_000_000
    if count > 1 and s < out.shape[0]:
        out[s, S.C_NEIGHBOR] += count - 1
    return count
