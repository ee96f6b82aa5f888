"""The scheduler: a binary heap on (time, id) of the user threads and the page cleaner.

Runs are deterministic for a given seed because ties are broken by id. The heap holds keys
time << SCHED_ID_BITS | id, in the order of (time, id): one integer comparison a step, and
the id read from the key, not the time looked up by id. Waking an entity (the
page cleaner on buf_flush_event / do_flush_list, threads on a timeline event) moves its time
earlier and restores the heap.

The wait group, a host-side shortcut of event_loop with no effect on any number: MariaDB
threads that go back to sleep for a free page all wake at the same time (the release of
buf_pool.mutex, the end of an LRU batch), hundreds at a time, and most only sleep again until
the next one. Only the group's lowest id (its representative) is in the heap at the wake time;
the others are PARKED at the bottom of the heap. At the representative's turn the loop takes
the members in id order, as the heap would, up to the first other entity due at that time, and
those that sleep again until one common time stay PARKED: no heap operation for them.
"""

from __future__ import annotations

from numba import njit

from . import layout as L

ID_MASK = (1 << L.SCHED_ID_BITS) - 1


@njit(cache=True, inline="always", _nrt=False)
def heap_key(times, e):
    """Entity e's key in the heap: its time, then its id, in one integer."""
    return (times[e] << L.SCHED_ID_BITS) | e


# Up to this many entries (threads + the page cleaner) the event loop finds the next entry by
# a linear scan of `times` (lowest time, then lowest id: the heap's order) and keeps no heap:
# cheaper than sifting with unpredictable branches.
SCAN_MAX_ENTRIES = 32


@njit(cache=True, inline="always", _nrt=False)
def next_entry(sched):
    """The entry with the lowest (time, id): the heap's top, or a scan of a small `times`."""
    times, heap, pos = sched
    n = times.shape[0]
    if n > SCAN_MAX_ENTRIES:
        return heap[0] & ID_MASK
    best = 0
    bt = times[0]
    for j in range(1, n):
        tj = times[j]
        if tj < bt:
            best = j
            bt = tj
    return best


@njit(cache=True, inline="always", _nrt=False)
def heap_fix(sched, e):
    """Restore heap order after times[e] changed (no heap is kept for a small `times`)."""
    times, heap, pos = sched
    n = heap.shape[0]
    if n <= SCAN_MAX_ENTRIES:
        return
    k = pos[e]
    key = heap_key(times, e)
    while k > 0:
        parent = (k - 1) >> 1
        p = heap[parent]
        if key < p:
            heap[k] = p
            pos[p & ID_MASK] = k
            k = parent
        else:
            break
    while True:
        c = 2 * k + 1
        if c >= n:
            break
        if c + 1 < n:
            c += heap[c + 1] < heap[c]  # the smaller child, without a branch
        child = heap[c]
        if child < key:
            heap[k] = child
            pos[child & ID_MASK] = k
            k = c
        else:
            break
    heap[k] = key
    pos[e] = k


@njit(cache=True, inline="always", _nrt=False)
def wake_cleaner_at(g, sched, t):
    """Move the page cleaner (the schedule's last entry) to t, or to the end of its round."""
    times = sched[0]
    cleaner = times.shape[0] - 1
    wake = max(t, g[L.G_PC_ROUND_END])
    if wake < times[cleaner]:
        times[cleaner] = wake
        heap_fix(sched, cleaner)


@njit(cache=True, inline="always", _nrt=False)
def pre_sleep_check(g):
    """is_server_active = was_server_active || srv_check_activity(last_activity).

    The coordinator evaluates it at the top of its loop, before it sleeps, and acts on it in
    the round after the sleep. A round is one event, so that is at the end of a round.
    """
    busy = g[L.G_PC_WAS_ACTIVE] == 1 or g[L.G_ACTIVITY] != g[L.G_PC_LAST_ACTIVITY]
    g[L.G_PC_ACTIVE] = 1 if busy else 0


@njit(cache=True, _nrt=False)
def signal_cleaner(g, sched, t, force):
    """os_event_set(buf_flush_event): wake a sleeping page cleaner now.

    `force` is for a thread stuck in log_free_check: the woken coordinator checks the sync
    flush point first, whether or not the server counts as active.
    """
    g[L.G_PC_EVENT] = 1
    if g[L.G_PC_DISABLED] == 1:
        return
    if g[L.G_PC_ACTIVE] == 0 and g[L.G_PC_SYNC] == 0 and not force:
        # an inactive coordinator wakes, finds nothing to do, and checks activity again at the
        # top of its loop before it sleeps on: its next timed round may be an active one
        pre_sleep_check(g)
        return
    wake_cleaner_at(g, sched, t)


@njit(cache=True, _nrt=False)
def ma_wake_cleaner(g, sched, t):
    """pthread_cond_signal(do_flush_list): end the page cleaner's (timed or untimed) wait now.

    A cleaner waiting for its own writes (os_aio_wait_until_no_pending_writes) is not woken.
    """
    g[L.G_MA_IDLE] = 0
    if g[L.G_MA_PHASE] != L.PH_TOP:
        return
    wake_cleaner_at(g, sched, t)


@njit(cache=True, _nrt=False)
def wake_threads(g, th, sched, t):
    """Put the active threads back on the schedule at t (workload (re)started).

    A thread stopped while its single-page flush is in flight wakes at its end all the same, to
    free the frame (event_loop), then stops.
    """
    times, heap, pos = sched
    n_active = g[L.G_N_ACTIVE]
    for e in range(g[L.G_N_THREADS_MAX]):
        target = t if (e < n_active and g[L.G_WL_RUNNING] == 1) else L.INF_TIME
        if target == L.INF_TIME and th[e, L.TH_HELD] != 0:
            continue
        if target == L.INF_TIME or times[e] == L.INF_TIME:
            if times[e] != target:
                times[e] = target
                heap_fix(sched, e)


@njit(cache=True, _nrt=False)
def next_parked(times, start, stop):
    """The lowest id from `start` (below `stop`) of a PARKED wait-group member, or -1."""
    for e in range(start, stop):
        if times[e] == L.PARKED:
            return e
    return -1


@njit(cache=True, _nrt=False)
def unpark(sched, start, wake):
    """Put the PARKED members from id `start` on back into the heap at `wake`, one by one."""
    times = sched[0]
    for e in range(start, times.shape[0]):
        if times[e] == L.PARKED:
            times[e] = wake
            heap_fix(sched, e)
