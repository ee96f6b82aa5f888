"""Helpers for tests that drive the kernel's functions on a hand-built pool."""

from flushsim.kernels import layout as L
from flushsim.kernels import threads


def access(p, page, write, t, resume=0):
    """threads.access_page on the state held by `p` (fr, frl, inst, ..., heap, pos attributes)."""
    return threads.access_page(
        p.g,
        L.Pool(p.fr, p.frl, p.inst, p.page_frame),
        p.knobs,
        p.out,
        L.Ring(p.ring_frame, p.ring_done),
        L.Sched(p.times, p.heap, p.pos),
        page,
        write,
        t,
        resume,
    )
