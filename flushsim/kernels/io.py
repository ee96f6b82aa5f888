"""The device: one FIFO queue that serves reads, writes and fsyncs, and the write-completion ring.

Simplifications (the storage issue refines them; keep this module replaceable):
- Each I/O occupies the device for max(1/device_iops, bytes/bandwidth) and completes a fixed
  latency after its service ends. Reads and writes have their own FIFO; a read takes device
  time from the writes (they are pushed back) but never waits behind queued writes, as on an
  NVMe device with separate submission queues. The page cleaner dispatches a whole batch at
  once, partly ahead of the clock, and a single FIFO would make reads wait for writes that in
  reality would not have been submitted yet.
- An fsync is issued after the write it makes durable has completed and takes
  device_fsync_latency_us; it does not wait for other files' queued writes (O_DIRECT data files)
  and does not occupy the queue.
- iostat figures are attributed to the second in which an I/O is submitted.
- Because write service starts are monotone and the write latency is fixed, asynchronous writes
  complete in submission order, so their completions sit in a FIFO ring.
"""

from __future__ import annotations

from numba import njit

from .layout import (
    C_AQU,
    C_FSYNC_LAT,
    C_FSYNCS,
    C_R_AWAIT,
    C_R_S,
    C_RKB,
    C_UTIL,
    C_W_AWAIT,
    C_W_S,
    C_WKB,
    G_DEV_BUSY,
    G_DEV_BUSY_READ,
    G_RING_HEAD,
    G_RING_TAIL,
    K_DEV_BW,
    K_DEV_FSYNC,
    K_DEV_IOPS,
    K_DEV_RLAT,
    K_DEV_WLAT,
)


@njit(cache=True, inline="always", _nrt=False)
def _second(out, t):
    s = t // 1_000_000
    if s >= out.shape[0]:
        return -1
    return s


@njit(cache=True, _nrt=False)
def submit(g, knobs, out, now, nbytes, is_write):
    """Queue one I/O of `nbytes` at time `now` (us); return its completion time (us)."""
    per_op = 1e6 / knobs[K_DEV_IOPS]
    per_byte = nbytes / (knobs[K_DEV_BW] * 1e6) * 1e6
    service = int(max(per_op, per_byte) + 0.5)
    if service < 1:
        service = 1
    if is_write:
        start = max(now, g[G_DEV_BUSY])
        g[G_DEV_BUSY] = start + service
    else:
        start = max(now, g[G_DEV_BUSY_READ])
        g[G_DEV_BUSY_READ] = start + service
        g[G_DEV_BUSY] = max(g[G_DEV_BUSY], now) + service
    lat = knobs[K_DEV_WLAT] if is_write else knobs[K_DEV_RLAT]
    done = start + service + int(lat + 0.5)
    s = _second(out, now)
    if s >= 0:
        resp_ms = (done - now) / 1000.0
        if is_write:
            out[s, C_W_S] += 1
            out[s, C_WKB] += nbytes / 1024.0
            out[s, C_W_AWAIT] += resp_ms  # a sum until finish_seconds divides it
        else:
            out[s, C_R_S] += 1
            out[s, C_RKB] += nbytes / 1024.0
            out[s, C_R_AWAIT] += resp_ms
        out[s, C_AQU] += (done - now) / 1e6
        out[s, C_UTIL] += service / 1e4
    return done


@njit(cache=True, _nrt=False)
def fsync(g, knobs, out, now):
    """An fsync issued at `now` (us): completes device_fsync_latency_us later."""
    done = now + int(knobs[K_DEV_FSYNC] + 0.5)
    s = _second(out, now)
    if s >= 0:
        out[s, C_FSYNCS] += 1
        out[s, C_FSYNC_LAT] += (done - now) / 1000.0
    return done


@njit(cache=True, _nrt=False)
def ring_push(g, ring_frame, ring_done, f, done):
    """Remember that the write of frame f completes at `done`."""
    tail = g[G_RING_TAIL]
    cap = ring_frame.shape[0]
    ring_frame[tail % cap] = f
    ring_done[tail % cap] = done
    g[G_RING_TAIL] = tail + 1


@njit(cache=True, inline="always", _nrt=False)
def ring_peek_done(g, ring_done):
    """Completion time of the oldest write in flight, or -1 if none."""
    if g[G_RING_HEAD] == g[G_RING_TAIL]:
        return -1
    return ring_done[g[G_RING_HEAD] % ring_done.shape[0]]


@njit(cache=True, _nrt=False)
def ring_pop(g, ring_frame):
    """Remove the oldest write in flight and return its frame."""
    head = g[G_RING_HEAD]
    f = ring_frame[head % ring_frame.shape[0]]
    g[G_RING_HEAD] = head + 1
    return f
