"""Helpers for tests that drive the kernel's functions on a hand-built pool."""

from flushsim.kernels import sim


def access(p, page, write, t, resume=0):
    """sim.access_page on the state held by `p` (fr, frl, inst, ..., heap, pos attributes)."""
    return sim.access_page(
        p.g,
        p.fr,
        p.frl,
        p.inst,
        p.page_frame,
        p.knobs,
        p.out,
        p.ring_frame,
        p.ring_done,
        p.times,
        p.heap,
        p.pos,
        page,
        write,
        t,
        resume,
    )
