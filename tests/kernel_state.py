"""Helpers for tests that drive the kernel's functions on a hand-built pool."""

import numpy as np

from flushsim import schema
from flushsim.kernels import layout as L
from flushsim.kernels import sim, threads
from flushsim.run import kernel_inputs


def init_pool(p, scenario, frames):
    """Give `p` the state of one pool instance of `frames` frames for `scenario`, one thread."""
    build_pool(p, kernel_inputs(scenario).knobs.copy(), frames)


def access(p, page, write, t, resume=0):
    """threads.access_page on the state held by `p` (fr, frl, inst, ..., heap, pos attributes)."""
    return threads.access_page(
        p.g,
        L.Pool(p.fr, p.frl, p.inst, p.page_frame, p.runs),
        p.knobs,
        p.out,
        L.Ring(p.ring_frame, p.ring_done),
        L.Sched(p.times, p.heap, p.pos),
        page,
        write,
        t,
        resume,
    )


def build_pool(p, knobs, frames):
    """Give `p` the state of a run with `knobs` (a kernel knob vector) on a pool of `frames`.

    One user thread and the page cleaner (entry 1 of `times`), both waiting; nothing read yet.
    """
    knobs[schema.K_POOL_SIZE] = frames * int(knobs[schema.K_PAGE_SIZE])
    p.knobs = knobs
    p.fr, p.frl, p.inst, p.page_frame, p.runs, p.g, p.gf, _ = sim.init_state(
        knobs, 1, 4 * frames, 1
    )
    p.out = np.zeros((10, schema.N_COLS))
    p.ring_frame = np.zeros(frames + 1, dtype=np.int32)
    p.ring_done = np.zeros(frames + 1, dtype=np.int64)
    p.times = np.full(2, L.INF_TIME, dtype=np.int64)  # [user thread, page cleaner]
    p.heap = np.arange(2)
    p.pos = np.arange(2)
