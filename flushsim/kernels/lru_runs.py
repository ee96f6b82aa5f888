"""Runs of the LRU list: the host's index for a user thread's search for a clean page.

buf_LRU_free_from_common_LRU_list walks the LRU from the tail (or buf_pool.lru_scan_itr) to the
first replaceable page, and the model charges LRU_SCAN_NS for each page it examines: a search
of the whole list of a 35 GiB pool passes two million frames. This index cuts the LRU into
runs of consecutive frames (R_* rows; F_RUN of each frame), kept exact by pool.py's list
operations, and counts each run's clean frames (R_CLEAN), kept exact by those and by the flush
list's (a page dirtied or cleaned). A search passes a run with no clean frame whole, counting
its R_LEN frames as examined, without reading them: the frame found and the pages examined are
the walk's, only the host's work changes. See docs/model.md, section The LRU run index.
"""

from __future__ import annotations

from numba import njit

from . import layout as L


@njit(cache=True, inline="always", _nrt=False)
def _new_run(inst, runs, i):
    """A run id for instance i: a freed one, else the next never used."""
    r = inst[i, L.I_RUN_FREE]
    if r >= 0:
        inst[i, L.I_RUN_FREE] = runs[r, L.R_UP]
    else:
        r = inst[i, L.I_RUN_FRESH]
        inst[i, L.I_RUN_FRESH] = r + 1
    return r


@njit(cache=True, inline="always", _nrt=False)
def _free_run(inst, runs, i, r):
    """Unlink run r from its neighbours and give its id back."""
    up = runs[r, L.R_UP]
    down = runs[r, L.R_DOWN]
    if up >= 0:
        runs[up, L.R_DOWN] = down
    if down >= 0:
        runs[down, L.R_UP] = up
    runs[r, L.R_UP] = inst[i, L.I_RUN_FREE]
    inst[i, L.I_RUN_FREE] = r


@njit(cache=True, inline="always", _nrt=False)
def run_join_head(fr, inst, runs, i, f, head):
    """Frame f was put at the LRU head, before `head` (NIL: the list was empty)."""
    r = L.NIL
    if head >= 0:
        r = fr[head, L.F_RUN]
        if runs[r, L.R_LEN] < L.RUN_LEN:
            fr[f, L.F_RUN] = r
            runs[r, L.R_LEN] += 1
            runs[r, L.R_HEAD] = f
            runs[r, L.R_CLEAN] += 1 - fr[f, L.F_DIRTY]
            runs[r, L.R_VER] += 1
            return
    n = _new_run(inst, runs, i)
    runs[n, L.R_LEN] = 1
    runs[n, L.R_CLEAN] = 1 - fr[f, L.F_DIRTY]
    runs[n, L.R_VER] += 1
    runs[n, L.R_TAIL] = f
    runs[n, L.R_HEAD] = f
    runs[n, L.R_UP] = L.NIL
    runs[n, L.R_DOWN] = r
    if r >= 0:
        runs[r, L.R_UP] = n
    fr[f, L.F_RUN] = n


@njit(cache=True, _nrt=False)
def _split(fr, inst, runs, i, r):
    """Run r grew past RUN_MAX: its head-most half becomes a run of its own."""
    k = runs[r, L.R_LEN] // 2
    n = _new_run(inst, runs, i)
    g = runs[r, L.R_HEAD]
    runs[n, L.R_HEAD] = g
    last = g
    clean = 0
    for _ in range(k):
        fr[g, L.F_RUN] = n
        clean += 1 - fr[g, L.F_DIRTY]
        last = g
        g = fr[g, L.F_NEXT]
    runs[n, L.R_TAIL] = last
    runs[n, L.R_LEN] = k
    runs[n, L.R_CLEAN] = clean
    runs[r, L.R_HEAD] = g
    runs[r, L.R_LEN] -= k
    runs[r, L.R_CLEAN] -= clean
    runs[r, L.R_VER] += 1
    runs[n, L.R_VER] += 1
    up = runs[r, L.R_UP]
    runs[n, L.R_UP] = up
    runs[n, L.R_DOWN] = r
    runs[r, L.R_UP] = n
    if up >= 0:
        runs[up, L.R_DOWN] = n


@njit(cache=True, inline="always", _nrt=False)
def run_join_after(fr, inst, runs, i, f, at):
    """Frame f was put right after `at`, towards the tail (midpoint insertion): f joins its run."""
    r = fr[at, L.F_RUN]
    fr[f, L.F_RUN] = r
    runs[r, L.R_LEN] += 1
    runs[r, L.R_CLEAN] += 1 - fr[f, L.F_DIRTY]
    runs[r, L.R_VER] += 1
    if runs[r, L.R_TAIL] == at:
        runs[r, L.R_TAIL] = f
    if runs[r, L.R_LEN] > L.RUN_MAX:
        _split(fr, inst, runs, i, r)


@njit(cache=True, _nrt=False)
def _merge(fr, inst, runs, i, r):
    """Run r shrank below RUN_MIN: its frames join the neighbour run that has room, if any."""
    n = runs[r, L.R_LEN]
    into = runs[r, L.R_UP]
    if into < 0 or runs[into, L.R_LEN] + n > L.RUN_MAX:
        into = runs[r, L.R_DOWN]
        if into < 0 or runs[into, L.R_LEN] + n > L.RUN_MAX:
            return
        runs[into, L.R_HEAD] = runs[r, L.R_HEAD]
    else:
        runs[into, L.R_TAIL] = runs[r, L.R_TAIL]
    g = runs[r, L.R_TAIL]
    for _ in range(n):
        fr[g, L.F_RUN] = into
        g = fr[g, L.F_PREV]
    runs[into, L.R_LEN] += n
    runs[into, L.R_CLEAN] += runs[r, L.R_CLEAN]
    runs[into, L.R_VER] += 1
    _free_run(inst, runs, i, r)


@njit(cache=True, inline="always", _nrt=False)
def run_leave(fr, inst, runs, i, f, prev, nxt):
    """Frame f left the LRU list, from between prev (towards the head) and nxt (the tail)."""
    r = fr[f, L.F_RUN]
    fr[f, L.F_RUN] = L.NIL
    n = runs[r, L.R_LEN] - 1
    runs[r, L.R_LEN] = n
    runs[r, L.R_CLEAN] -= 1 - fr[f, L.F_DIRTY]
    runs[r, L.R_VER] += 1
    if n == 0:
        _free_run(inst, runs, i, r)
        return
    if runs[r, L.R_TAIL] == f:
        runs[r, L.R_TAIL] = prev
    if runs[r, L.R_HEAD] == f:
        runs[r, L.R_HEAD] = nxt
    if n < L.RUN_MIN:
        _merge(fr, inst, runs, i, r)


@njit(cache=True, inline="always", _nrt=False)
def run_dirty(fr, runs, f, dirty):
    """Frame f was dirtied (1) or cleaned (0), F_DIRTY already set: its run's count follows."""
    r = fr[f, L.F_RUN]
    if r >= 0:
        runs[r, L.R_CLEAN] += 1 - 2 * dirty
